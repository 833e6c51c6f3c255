//! The `files` source (SPEC §6): files matching globs, those changed since the last tick
//! called out.
//!
//! Each glob expanded (at most 10,000 matches each), sorted, deduplicated, regular files
//! only (symlinks followed). Files modified after `last_tick` come first, headed
//! `== PATH (changed since last tick) ==`, the others `== PATH ==`; in each group the
//! most recently modified first, ties by path. On the first tick (`last_tick = None`)
//! nothing is called out as changed. The total cap (`max_bytes`, default
//! [`DEFAULT_FILES_MAX_BYTES`]) is shared: files are shown in that order while each can
//! have its header and the start of its text (512 bytes, or all of it), the rest left
//! out; the text left after the headers is shared by size (the shorter files whole, the
//! longer ones an equal share of the rest, each cut at a line end), so a long file cannot
//! push the others out. A blank line between files; any cut or file left out
//! marks the text truncated. A file with a NUL byte in what is read is shown as
//! `(binary file, not shown)`. **Thinker's own notes** (`remember`, in `memory_dir`) are
//! taken out of every file ([`crate::escalation::note::strip_own_notes`]), so a note is
//! never read back as a new fact; a file of nothing else shows
//! `(only thinker's own notes, not shown)`. Paths in
//! headers have control characters replaced with `?`. An unreadable file, a bad pattern
//! or an unreadable directory is skipped; only when nothing at all could be read is it a
//! failure. **A glob that matches nothing is neither text nor failure**: the text is
//! empty (an empty memory directory is normal, and telling the model about the runner's
//! configuration is what SPEC §4.3 forbids); `doctor` warns about it, through
//! [`expand_globs`].
//!
//! Owns [`FilesSettings`] (paths resolved against the config file once, `max_bytes`
//! checked); must not read more than its cap of any file.

use std::path::PathBuf;
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use serde::Deserialize;

use super::error::SourceError;
use super::read::{blocking, read_head};
use super::settings::{self, MAX_BYTES_RANGE, Resolve, SettingsError};
use super::text::{cap_head, one_line, sanitize};
use super::{GatherContext, Text};
use crate::escalation::note::strip_own_notes;

/// Default cap of a `files` source, all files together.
pub const DEFAULT_FILES_MAX_BYTES: usize = 8000;
/// A file is shown only with at least this much of its text (or all of it, if shorter).
const MIN_FILE_SHARE: usize = 512;
/// How much more than its share of a file is read, for thinker's own notes to be taken
/// out of it.
const NOTES_HEADROOM: usize = 64 << 10;
/// At most this many paths are taken from one glob.
const MAX_GLOB_MATCHES: usize = 10_000;

/// The keys a `files` source takes besides `kind` and `name`.
pub(super) const KEYS: &[&str] = &["paths", "max_bytes"];

/// A `files` source as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    paths: Vec<String>,
    max_bytes: Option<toml::Value>,
}

/// A `files` source, checked: `paths = ["~/notes/*.md"]`.
#[derive(Debug, Clone, PartialEq)]
pub struct FilesSettings {
    /// Glob patterns, absolute (resolved against the config file's directory).
    patterns: Vec<String>,
    /// All files together.
    max_bytes: usize,
}

impl FilesSettings {
    /// Checks the keys of a `files` table (`kind` and `name` taken out).
    pub fn from_table(
        table: toml::Table,
        resolve: Resolve<'_>,
    ) -> Result<FilesSettings, SettingsError> {
        let raw: Raw = settings::read("files", KEYS, table)?;
        let patterns = raw
            .paths
            .iter()
            .enumerate()
            .map(|(i, p)| {
                resolve(p)
                    .map(|p| p.to_string_lossy().into_owned())
                    .map_err(|e| SettingsError::at(format!("paths[{i}]"), e.to_string()))
            })
            .collect::<Result<_, _>>()?;
        Ok(FilesSettings {
            patterns,
            max_bytes: settings::count(
                "max_bytes",
                raw.max_bytes.as_ref(),
                DEFAULT_FILES_MAX_BYTES,
                MAX_BYTES_RANGE,
            )?,
        })
    }

    /// The glob patterns, resolved.
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }
}

/// Reads the files, on the blocking pool.
pub(super) async fn text(
    settings: &FilesSettings,
    ctx: &GatherContext<'_>,
) -> Result<Text, SourceError> {
    let patterns = settings.patterns.clone();
    let max = settings.max_bytes.min(ctx.max_bytes);
    let last_tick = ctx.last_tick;
    blocking(move || files_text(&patterns, max, last_tick)).await
}

/// The regular files the globs match: sorted, deduplicated, with their modification
/// time; and what went wrong on the way (bad patterns, unreadable directories or files).
pub fn expand_globs(patterns: &[String]) -> (Vec<(PathBuf, SystemTime)>, Vec<String>) {
    let mut errors = Vec::new();
    let mut paths = Vec::new();
    for pattern in patterns {
        match glob::glob(pattern) {
            Err(e) => errors.push(format!("`{pattern}` is not a valid glob: {e}")),
            Ok(found) => {
                for p in found.take(MAX_GLOB_MATCHES) {
                    match p {
                        Ok(p) => paths.push(p),
                        Err(e) => errors.push(e.to_string()),
                    }
                }
            }
        }
    }
    paths.sort();
    paths.dedup();
    let mut files = Vec::with_capacity(paths.len());
    for p in paths {
        match std::fs::metadata(&p) {
            Ok(m) if m.is_file() => {
                files.push((p, m.modified().unwrap_or(SystemTime::UNIX_EPOCH)));
            }
            Ok(_) => {}
            Err(e) => errors.push(format!("{}: {e}", p.display())),
        }
    }
    (files, errors)
}

fn files_text(
    patterns: &[String],
    max: usize,
    last_tick: Option<DateTime<Utc>>,
) -> Result<Text, SourceError> {
    let (files, mut errors) = expand_globs(patterns);
    let mut files: Vec<(PathBuf, SystemTime, bool, usize)> = files
        .into_iter()
        .map(|(p, mtime)| {
            let changed = last_tick.is_some_and(|t| DateTime::<Utc>::from(mtime) > t);
            let size =
                std::fs::metadata(&p).map_or(0, |m| usize::try_from(m.len()).unwrap_or(usize::MAX));
            (p, mtime, changed, size)
        })
        .collect();
    files.sort_by(|a, b| {
        b.2.cmp(&a.2)
            .then_with(|| b.1.cmp(&a.1))
            .then_with(|| a.0.cmp(&b.0))
    });
    let headers: Vec<String> = files
        .iter()
        .enumerate()
        .map(|(i, (path, _, changed, _))| {
            format!(
                "{}== {} {}{} ==\n",
                if i == 0 { "" } else { "\n" },
                super::refs::label(&super::refs::reference('f', &path.to_string_lossy())),
                one_line(&path.to_string_lossy(), '?', 1000),
                if *changed {
                    " (changed since last tick)"
                } else {
                    ""
                }
            )
        })
        .collect();
    // The files shown: each needs its header and the start of its text.
    let mut needed = 0usize;
    let mut shown = 0;
    for (header, file) in headers.iter().zip(&files) {
        needed += header.len() + file.3.min(MIN_FILE_SHARE);
        if needed > max {
            break;
        }
        shown += 1;
    }
    let body_budget = max.saturating_sub(headers[..shown].iter().map(String::len).sum());
    let shares = shares(
        &files[..shown].iter().map(|f| f.3).collect::<Vec<_>>(),
        body_budget,
    );
    let mut out = String::new();
    let mut truncated = shown < files.len();
    let mut read_any = false;
    for ((path, _, _, _), (header, &room)) in files.iter().zip(headers.iter().zip(&shares)) {
        // Thinker's own notes are taken out after reading: read a little more for them.
        let limit = room.saturating_add(room.min(NOTES_HEADROOM));
        let bytes = match read_head(path, limit.saturating_add(1)) {
            Ok(b) => b,
            Err(e) => {
                errors.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        read_any = true;
        let (mut body, more) = if bytes.contains(&0) {
            ("(binary file, not shown)\n".to_string(), false)
        } else {
            let more = bytes.len() > limit;
            let (body, notes) = strip_own_notes(&sanitize(&bytes));
            if notes > 0 && body.trim().is_empty() && !more {
                ("(only thinker's own notes, not shown)\n".to_string(), false)
            } else {
                (body, more)
            }
        };
        let cut = cap_head(&mut body, room, more);
        if !body.is_empty() && !body.ends_with('\n') && body.len() < room {
            body.push('\n');
        }
        out.push_str(header);
        out.push_str(&body);
        truncated |= cut;
    }
    if !read_any && !errors.is_empty() {
        let more = errors.len() - 1;
        return Err(SourceError::NothingReadable {
            first: errors.swap_remove(0),
            more,
        });
    }
    Ok(Text {
        text: out,
        truncated,
    })
}

/// Each file's share of `budget` by its size: the files smaller than an equal share of
/// what is left are kept whole (the smallest first), the others share the rest equally —
/// so one long file cannot push the others out.
fn shares(sizes: &[usize], budget: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| (sizes[i], i));
    let mut out = vec![0; sizes.len()];
    let mut left = budget;
    for (k, &i) in order.iter().enumerate() {
        let share = left / (order.len() - k);
        out[i] = sizes[i].min(share);
        left -= out[i];
    }
    out
}

/// What counts as a change of the files for the quiet tick (`crate::quiet`): their
/// paths and contents, whatever the order and without the per-tick
/// `(changed since last tick)` marks, which drop on the next tick by themselves.
pub(crate) fn world(text: &str) -> String {
    let mut blocks: Vec<String> = Vec::new();
    for line in text.lines() {
        let header = line.starts_with("== ") && line.ends_with(" ==");
        if header || blocks.is_empty() {
            blocks.push(String::new());
        }
        let line = if header {
            line.replace(" (changed since last tick)", "")
        } else {
            line.to_string()
        };
        if let Some(block) = blocks.last_mut() {
            block.push_str(&line);
            block.push('\n');
        }
    }
    let mut blocks: Vec<&str> = blocks.iter().map(|b| b.trim_end()).collect();
    blocks.sort_unstable();
    blocks.join("\n")
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;
    use std::path::Path;

    use super::*;
    use crate::sources::testing::{ctx, one};
    use crate::sources::{Source, SourceKind, gather};
    use crate::state::State;
    use crate::timestamp;

    fn files(paths: Vec<String>, max_bytes: Option<usize>) -> SourceKind {
        SourceKind::Files(FilesSettings {
            patterns: paths,
            max_bytes: max_bytes.unwrap_or(DEFAULT_FILES_MAX_BYTES),
        })
    }

    fn write(path: &Path, text: &str, mtime: &str) {
        std::fs::write(path, text).unwrap();
        let t: SystemTime = timestamp::parse(mtime).unwrap().into();
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }

    #[tokio::test]
    async fn changed_files_come_first_and_the_cap_holds() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(&d.join("a.md"), "old a\n", "2026-11-20T00:00:00Z");
        write(&d.join("b.md"), "new b\n", "2026-11-22T10:00:00Z");
        write(&d.join("c.md"), "older c\n", "2026-11-19T00:00:00Z");
        std::fs::create_dir(d.join("sub.md")).unwrap(); // not a regular file
        let pattern = format!("{}/*.md", d.display());
        let state = State::default();
        let mut cx = ctx(&state, d);
        cx.last_tick = timestamp::parse("2026-11-22T09:00:00Z");
        let source = |max| {
            Source::from(files(
                vec![pattern.clone(), format!("{}/a.*", d.display())],
                max,
            ))
        };
        let g = gather(&[source(None)], &cx).await;
        let p = |f: &str| {
            let path = d.join(f).display().to_string();
            format!(
                "{} {path}",
                super::super::refs::label(&super::super::refs::reference('f', &path))
            )
        };
        assert_eq!(
            g.texts[0].text,
            format!(
                "== {} (changed since last tick) ==\nnew b\n\n== {} ==\nold a\n\n== {} ==\nolder c\n",
                p("b.md"),
                p("a.md"),
                p("c.md")
            )
        );
        assert!(!g.texts[0].truncated && g.failures.is_empty());

        let full = g.texts[0].text.len();
        let g = gather(&[source(Some(full - 3))], &cx).await;
        let t = &g.texts[0];
        assert!(t.truncated && t.text.len() <= full - 3, "{t:?}");
        assert!(
            t.text.contains("new b\n") && t.text.contains("old a\n"),
            "{t:?}"
        );
        assert!(!t.text.contains("older c"));

        // No match: empty text, no failure.
        let g = gather(
            &[files(vec![format!("{}/*.txt", d.display())], None).into()],
            &cx,
        )
        .await;
        assert_eq!(g.texts[0].text, "");
        assert!(g.failures.is_empty());
    }

    /// A long file read first took the whole cap and the others were left out.
    #[tokio::test]
    async fn a_long_file_shares_the_cap_with_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let long: String = (0..400).fold(String::new(), |mut s, i| {
            use std::fmt::Write as _;
            let _ = writeln!(s, "line {i} of the long file");
            s
        });
        write(&d.join("a-long.md"), &long, "2026-11-22T10:00:00Z");
        write(
            &d.join("b.md"),
            "Fact B: the dentist moved to Friday\n",
            "2026-11-20T00:00:00Z",
        );
        write(
            &d.join("c.md"),
            "Fact C: rent is due on the 3rd\n",
            "2026-11-19T00:00:00Z",
        );
        let g = one(files(vec![format!("{}/*.md", d.display())], Some(2000))).await;
        let t = &g.texts[0];
        assert!(t.truncated && t.text.len() <= 2000, "{t:?}");
        assert!(t.text.contains("line 0 of the long file"), "{}", t.text);
        assert!(
            t.text.contains("Fact B") && t.text.contains("Fact C"),
            "{}",
            t.text
        );
        assert_eq!(shares(&[10, 5000, 5000], 1010), vec![10, 500, 500]);
        assert_eq!(shares(&[], 100), Vec::<usize>::new());
    }

    /// A `remember` note in `memory_dir` was read back by a `files` source and
    /// escalated again.
    #[tokio::test]
    async fn thinkers_own_notes_are_not_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let clock = crate::clock::Clock::utc(timestamp::parse("2026-11-22T10:05:00Z").unwrap());
        crate::escalation::note::append_note(
            d,
            &clock,
            "thinker (librarian escalation)",
            "Pay the customs fee",
        )
        .unwrap();
        let g = one(files(vec![format!("{}/*.md", d.display())], None)).await;
        assert!(!g.texts[0].text.contains("customs"), "{:?}", g.texts[0]);
        assert!(
            g.texts[0]
                .text
                .contains("(only thinker's own notes, not shown)")
        );
        // The agent's own lines in the same file still show.
        std::fs::OpenOptions::new()
            .append(true)
            .open(d.join("2026-11-22.md"))
            .unwrap()
            .write_all(b"- the agent booked the hotel\n")
            .unwrap();
        let g = one(files(vec![format!("{}/*.md", d.display())], None)).await;
        assert!(
            g.texts[0].text.contains("booked the hotel"),
            "{:?}",
            g.texts[0]
        );
        assert!(!g.texts[0].text.contains("customs"), "{:?}", g.texts[0]);
    }

    #[tokio::test]
    async fn a_bad_glob_with_nothing_read_is_a_failure() {
        let g = one(Source {
            name: Some("notes".into()),
            kind: files(vec!["/tmp/[".into()], None),
            private: None,
        })
        .await;
        assert!(g.texts.is_empty());
        assert_eq!(g.failures[0].name, "notes");
        assert!(g.failures[0].error.contains("not a valid glob"), "{g:?}");
    }
}
