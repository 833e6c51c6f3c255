//! The `remember` action's effect (SPEC §8): a dated, attributed note appended to the
//! agent's memory directory.
//!
//! [`append_note`] appends to `memory_dir/YYYY-MM-DD.md`, the *local* day of the
//! [`Clock`] it is given, one block per note:
//!
//! ```text
//!
//! ## 10:05 — thinker (watcher escalation)
//!
//! > text line 1
//! > text line 2
//! ```
//!
//! The heading is the local time and the attribution (cleaned to one line); a block is
//! preceded by a blank line unless the file is empty (a file that does not end in a
//! newline, e.g. after a kill mid-write, gets one first). The text is untrusted (a model
//! wrote it): [`crate::untrusted::clean`]ed (control, escape and invisible characters
//! removed; several lines allowed), trailing blank lines dropped, and every line quoted
//! with `> ` (an empty line with `>`), so no line of it starts at the left margin: it
//! cannot forge a heading (`## 09:00 — thinker`), a fake note boundary or anything else a
//! reader splitting the file on `## ` would trust.
//!
//! The directory is created 0700 if missing (an existing one keeps its mode: it is the
//! agent's), the file 0600. What is there is never rewritten: the file is opened for
//! append only, and one note is one `write` followed by a sync. A symbolic link (live or
//! dangling) or anything but a regular file (a FIFO would hang the tick) in the file's
//! place is refused before opening, as `crate::storage` does for the state; since std
//! has no `O_NOFOLLOW` (and the crate forbids `unsafe`), the opened file is then checked
//! to be the one looked at (same device and inode, still not a link), which refuses a
//! link swapped in between — at worst after creating an empty file where it pointed.
//!
//! **Hard links are refused** too: a file in `memory_dir` with more than one
//! link is another file's name as well (`ln /etc/motd memory/2026-11-22.md`), and
//! appending would write into that file.
//!
//! **Thinker's own notes are recognised** ([`strip_own_notes`]), so that no
//! source ever reads them back as new facts (a `files` source pointing at `memory_dir`, as
//! `init`'s example suggests, made a note escalate again, three times): a note is its
//! heading — `## HH:MM — thinker` and, optionally, ` (…)` to the end of the line — and
//! the lines after it that are blank or start with `>`. No line of a note's text can
//! start a heading (each is quoted), so only thinker writes one. The dated file name is
//! not needed: the agent's own lines in the same file are kept.
//!
//! Must not: read the real clock, rewrite or truncate a file, follow a link into another
//! file, or decide what is worth remembering.

use std::fs::{self, DirBuilder};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, FileExt, MetadataExt};
use std::path::{Path, PathBuf};

use crate::clock::Clock;
use crate::storage::file_kind;
use crate::untrusted;

/// Why a note could not be appended.
#[derive(Debug, thiserror::Error)]
pub enum NoteError {
    #[error(
        "cannot create memory directory {path}: {source}; create it yourself or set `memory_dir` in [escalation] to a directory thinker can write"
    )]
    CreateDir { path: PathBuf, source: io::Error },
    #[error(
        "memory file {path} is a symbolic link{}; thinker appends notes only to a regular file and did not follow it. Replace the link with the file itself, or set `memory_dir` in [escalation] to the directory that holds it",
        target.as_ref().map(|t| format!(" to {}", t.display())).unwrap_or_default()
    )]
    Symlink {
        path: PathBuf,
        target: Option<PathBuf>,
    },
    #[error(
        "memory file {path} is {kind}, not a regular file; thinker appends notes only to a regular file. Move it aside (`mv {path} {path}.aside`) or set `memory_dir` in [escalation]",
        path = path.display()
    )]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error(
        "memory file {path} changed while it was being opened (replaced by a link or another file); nothing was written. Check who else writes to the memory directory"
    )]
    Replaced { path: PathBuf },
    #[error(
        "memory file {path} has {links} hard links: it is also another file's name, and a note appended to it would be written there too, so thinker did not touch it. Replace it with a copy of its own (`cp {path} {path}.copy && mv {path}.copy {path}`) or set `memory_dir` in [escalation]",
        path = path.display()
    )]
    HardLinked { path: PathBuf, links: u64 },
    #[error("the note is empty once cleaned; nothing was written to {path}")]
    Empty { path: PathBuf },
    #[error(
        "cannot append to memory file {path}: {source}; check its permissions and the free space, or set `memory_dir` in [escalation]"
    )]
    Write { path: PathBuf, source: io::Error },
}

/// Appends a note by `attribution` (e.g. `thinker (watcher escalation)`) holding `text`
/// to today's file in `memory_dir`, the day and time read from `clock`; returns the
/// file's path. See the module doc for the format and what is refused.
pub fn append_note(
    memory_dir: &Path,
    clock: &Clock,
    attribution: &str,
    text: &str,
) -> Result<PathBuf, NoteError> {
    let path = memory_dir.join(format!("{}.md", clock.today().format("%Y-%m-%d")));
    let block = note_block(clock, attribution, text)
        .ok_or_else(|| NoteError::Empty { path: path.clone() })?;
    if !memory_dir.is_dir() {
        DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(memory_dir)
            .map_err(|source| NoteError::CreateDir {
                path: memory_dir.to_path_buf(),
                source,
            })?;
    }
    let before = refuse_irregular(&path)?;
    let werr = |source| NoteError::Write {
        path: path.clone(),
        source,
    };
    let file = crate::storage::open_append(&path).map_err(werr)?;
    let opened = file.metadata().map_err(werr)?;
    let same = |m: &fs::Metadata| m.dev() == opened.dev() && m.ino() == opened.ino();
    let now_there = fs::symlink_metadata(&path).ok();
    if !opened.is_file()
        || before.as_ref().is_some_and(|m| !same(m))
        || !now_there.as_ref().is_some_and(|m| m.is_file() && same(m))
    {
        return Err(NoteError::Replaced { path });
    }
    if opened.nlink() > 1 {
        // Linked between the look and the open.
        return Err(NoteError::HardLinked {
            path,
            links: opened.nlink(),
        });
    }
    let mut bytes = Vec::with_capacity(block.len() + 2);
    let len = opened.len();
    if len > 0 {
        let mut last = [0u8; 1];
        file.read_exact_at(&mut last, len - 1).map_err(werr)?;
        if last[0] != b'\n' {
            bytes.push(b'\n');
        }
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(block.as_bytes());
    (&file).write_all(&bytes).map_err(werr)?;
    file.sync_data().map_err(werr)?;
    Ok(path)
}

/// The note's block: heading, blank line, quoted text, final newline; `None` when the
/// cleaned text is blank.
fn note_block(clock: &Clock, attribution: &str, text: &str) -> Option<String> {
    let text = untrusted::clean(text);
    let lines: Vec<&str> = text.trim_end().lines().map(str::trim_end).collect();
    if lines.iter().all(|l| l.trim().is_empty()) {
        return None;
    }
    let attribution = untrusted::clean_line(attribution);
    let mut block = format!(
        "## {} — {}\n\n",
        clock.zone.time(clock.now).format("%H:%M"),
        attribution.trim()
    );
    for line in lines {
        if line.is_empty() {
            block.push_str(">\n");
        } else {
            block.push_str("> ");
            block.push_str(line);
            block.push('\n');
        }
    }
    Some(block)
}

/// Whether `line` is the heading of one of thinker's notes: `## HH:MM — thinker`, then
/// nothing or ` (…)`.
fn is_note_heading(line: &str) -> bool {
    let Some(rest) = line.strip_prefix("## ") else {
        return false;
    };
    let b = rest.as_bytes();
    let time = b.len() >= 5
        && b[0].is_ascii_digit()
        && b[1].is_ascii_digit()
        && b[2] == b':'
        && b[3].is_ascii_digit()
        && b[4].is_ascii_digit();
    if !time {
        return false;
    }
    let Some(by) = rest[5..].strip_prefix(" — thinker") else {
        return false;
    };
    let by = by.trim_end();
    by.is_empty() || (by.starts_with(" (") && by.ends_with(')'))
}

/// `text` without thinker's own notes (see the module doc), and how many were taken out.
/// Other lines are kept as they are.
pub fn strip_own_notes(text: &str) -> (String, usize) {
    if !text.contains(" — thinker") {
        return (text.to_string(), 0);
    }
    let mut out = String::with_capacity(text.len());
    let mut notes = 0;
    let mut in_note = false;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if is_note_heading(bare) {
            in_note = true;
            notes += 1;
            continue;
        }
        if in_note && (bare.trim().is_empty() || bare.starts_with('>')) {
            continue;
        }
        in_note = false;
        out.push_str(line);
    }
    (out, notes)
}

/// Refuses a link or a non-regular file at `path`; its metadata when a file is there.
fn refuse_irregular(path: &Path) -> Result<Option<fs::Metadata>, NoteError> {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return Ok(None);
    };
    let kind = meta.file_type();
    if kind.is_file() && meta.nlink() > 1 {
        return Err(NoteError::HardLinked {
            path: path.to_path_buf(),
            links: meta.nlink(),
        });
    }
    if kind.is_file() {
        return Ok(Some(meta));
    }
    if kind.is_symlink() {
        return Err(NoteError::Symlink {
            path: path.to_path_buf(),
            target: fs::read_link(path).ok(),
        });
    }
    Err(NoteError::NotRegular {
        path: path.to_path_buf(),
        kind: file_kind(kind),
    })
}

#[cfg(test)]
mod tests {
    use chrono::FixedOffset;

    use super::*;
    use crate::clock::Zone;

    fn clock(text: &str) -> Clock {
        Clock::utc(crate::timestamp::parse(text).unwrap())
    }

    #[test]
    fn the_block_is_a_heading_and_quoted_lines() {
        let b = note_block(
            &clock("2026-11-22T10:05:00Z"),
            "thinker (watcher escalation)",
            "line 1\n\nline 2\n\n",
        )
        .unwrap();
        assert_eq!(
            b,
            "## 10:05 — thinker (watcher escalation)\n\n> line 1\n>\n> line 2\n"
        );
    }

    /// Regression (a hostile probe): a hard link in `memory_dir` to a file elsewhere got
    /// the note appended.
    #[test]
    fn a_hard_link_is_refused_and_its_target_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = dir.path().join("motd");
        fs::write(&elsewhere, "welcome\n").unwrap();
        let memory = dir.path().join("memory");
        fs::create_dir(&memory).unwrap();
        fs::hard_link(&elsewhere, memory.join("2026-11-22.md")).unwrap();
        let e = append_note(&memory, &clock("2026-11-22T10:05:00Z"), "t", "x").unwrap_err();
        assert!(matches!(e, NoteError::HardLinked { links: 2, .. }), "{e}");
        assert!(e.to_string().contains("2 hard links"), "{e}");
        assert_eq!(fs::read_to_string(&elsewhere).unwrap(), "welcome\n");
    }

    #[test]
    fn thinkers_own_notes_are_recognised_and_the_agents_lines_kept() {
        let c = clock("2026-11-22T10:05:00Z");
        let note = note_block(&c, "thinker (librarian escalation)", "Pay the fee\n\nat x").unwrap();
        let file = format!(
            "# 2026-11-22\n- met Bob\n\n{note}\n## 11:00 — thinker\n\n> old form\n- agent line\n## 12:00 — thinker (x) extra\n> kept: not a heading of ours\n"
        );
        let (kept, notes) = strip_own_notes(&file);
        assert_eq!(notes, 2);
        assert_eq!(
            kept,
            "# 2026-11-22\n- met Bob\n\n- agent line\n## 12:00 — thinker (x) extra\n> kept: not a heading of ours\n"
        );
        // A text quoting a heading is not a note: its lines are quoted.
        let quoted = note_block(&c, "thinker", "## 09:00 — thinker\nforged").unwrap();
        assert_eq!(strip_own_notes(&quoted).1, 1);
        assert_eq!(strip_own_notes(&quoted).0, "");
        assert_eq!(strip_own_notes("no notes\n"), ("no notes\n".to_string(), 0));
    }

    #[test]
    fn a_blank_note_is_refused() {
        assert!(note_block(&clock("2026-11-22T10:05:00Z"), "t", " \n\u{200b}\n").is_none());
    }

    #[test]
    fn the_day_and_time_are_local() {
        let dir = tempfile::tempdir().unwrap();
        let now = crate::timestamp::parse("2026-11-22T03:30:00Z").unwrap();
        let new_york = Clock::new(now, Zone::Fixed(FixedOffset::west_opt(5 * 3600).unwrap()));
        let path = append_note(dir.path(), &new_york, "thinker", "late").unwrap();
        assert_eq!(path, dir.path().join("2026-11-21.md"));
        assert_eq!(
            fs::read_to_string(path).unwrap(),
            "## 22:30 — thinker\n\n> late\n"
        );
    }

    #[test]
    fn a_file_without_a_final_newline_gets_one_first() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("2026-11-22.md"), "torn").unwrap();
        append_note(dir.path(), &clock("2026-11-22T10:05:00Z"), "t", "x").unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("2026-11-22.md")).unwrap(),
            "torn\n\n## 10:05 — t\n\n> x\n"
        );
    }

    #[test]
    fn a_fifo_is_refused_without_opening_it() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("2026-11-22.md");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            return; // no mkfifo here
        }
        let e = append_note(dir.path(), &clock("2026-11-22T10:05:00Z"), "t", "x").unwrap_err();
        assert!(matches!(e, NoteError::NotRegular { .. }), "{e}");
        assert!(e.to_string().contains("FIFO"), "{e}");
    }
}
