//! The `files` source (SPEC §6): files matching globs, those changed since the last tick
//! called out.
//!
//! Each glob expanded (at most 10,000 matches each), sorted, deduplicated, regular files
//! only (symlinks followed). Files modified after `last_tick` come first, headed
//! `== PATH (changed since last tick) ==`, the others `== PATH ==`; in each group the
//! most recently modified first, ties by path. On the first tick (`last_tick = None`)
//! nothing is called out as changed. Files are read in that order until the total cap
//! (`max_bytes`, default [`DEFAULT_FILES_MAX_BYTES`]), a blank line between them; the
//! file that crosses the cap is cut (marked truncated) and the rest are left out. A file
//! with a NUL byte in what is read is shown as `(binary file, not shown)`. Paths in
//! headers have control characters replaced with `?`. An unreadable file, a bad pattern
//! or an unreadable directory is skipped; only when nothing at all could be read is it a
//! failure. **A glob that matches nothing is neither text nor failure**: the text is
//! empty (an empty memory directory is normal, and telling the model about the runner's
//! configuration is what SPEC §4.3 forbids); `doctor` can call [`expand_globs`].
//!
//! Owns [`FilesSettings`] (paths resolved against the config file once, `max_bytes`
//! checked); must not read more than its cap of any file.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use serde::Deserialize;

use super::read::{blocking, read_head};
use super::settings::{self, MAX_BYTES_RANGE, Resolve, SettingsError};
use super::text::{cap_head, one_line, sanitize};
use super::{GatherContext, Text};

/// Default cap of a `files` source, all files together.
pub const DEFAULT_FILES_MAX_BYTES: usize = 8000;
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
                    .map_err(|message| SettingsError::at(format!("paths[{i}]"), message))
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
) -> Result<Text, String> {
    let patterns = settings.patterns.clone();
    let max = settings.max_bytes;
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
) -> Result<Text, String> {
    let (files, mut errors) = expand_globs(patterns);
    let mut files: Vec<(PathBuf, SystemTime, bool)> = files
        .into_iter()
        .map(|(p, mtime)| {
            let changed = last_tick.is_some_and(|t| DateTime::<Utc>::from(mtime) > t);
            (p, mtime, changed)
        })
        .collect();
    files.sort_by(|a, b| {
        b.2.cmp(&a.2)
            .then_with(|| b.1.cmp(&a.1))
            .then_with(|| a.0.cmp(&b.0))
    });
    let mut out = String::new();
    let mut truncated = false;
    let mut read_any = false;
    for (path, _, changed) in &files {
        let header = format!(
            "{}== {}{} ==\n",
            if out.is_empty() { "" } else { "\n" },
            one_line(&path.to_string_lossy(), '?', 1000),
            if *changed {
                " (changed since last tick)"
            } else {
                ""
            }
        );
        let room = max.saturating_sub(out.len() + header.len());
        if room == 0 {
            truncated = true;
            break;
        }
        let bytes = match read_head(path, room.saturating_add(1)) {
            Ok(b) => b,
            Err(e) => {
                errors.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        read_any = true;
        let (mut body, cut) = if bytes.contains(&0) {
            ("(binary file, not shown)\n".to_string(), false)
        } else {
            let over = bytes.len() > room;
            (sanitize(&bytes), over)
        };
        let cut = cap_head(&mut body, room, cut);
        if !body.is_empty() && !body.ends_with('\n') && body.len() < room {
            body.push('\n');
        }
        out.push_str(&header);
        out.push_str(&body);
        if cut {
            truncated = true;
            break;
        }
    }
    if !read_any && !errors.is_empty() {
        let more = errors.len() - 1;
        let mut message = format!("nothing could be read: {}", one_line(&errors[0], ' ', 300));
        if more > 0 {
            let _ = write!(message, " (and {more} more problems)");
        }
        return Err(message);
    }
    Ok(Text {
        text: out,
        truncated,
    })
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
        let p = |f: &str| d.join(f).display().to_string();
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
