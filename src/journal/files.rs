//! The journal's files (SPEC §2): `journal.jsonl` and the rotated
//! `journal-<stamp>[.n].jsonl`, the stamp being the UTC month (`2026-11`) or instant
//! (`2026-11-22T100500Z`) of the file's first line.
//!
//! Owns when the journal is rotated ([`JournalRotation`], [`rotation_stamp`]), the names
//! of rotated files ([`rotated_name`]) and reading them back ([`journal_file_start`],
//! [`journal_file_order`]), and the order of the files of a directory
//! ([`journal_files`]: rotated ones by their stamp, `journal.jsonl` last). Must not
//! rename or write anything: `storage` rotates, in its append, under the tick lock.
//! Imports nothing of thinker's but `timestamp`, so that `storage` may use it.

use std::fs::{self, File};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

/// The current journal file: lines are appended to it.
pub const JOURNAL_FILE: &str = "journal.jsonl";

/// When `journal.jsonl` is renamed aside (`[journal] rotate`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum JournalRotation {
    /// When a line of another UTC month than the file's first line is appended.
    #[default]
    Month,
    /// When the file would grow past this many bytes (a single larger line still goes in).
    Size { max_bytes: u64 },
    /// Never: one file forever.
    Never,
}

/// The stamp `journal.jsonl` (open as `file`, `len` bytes long) is to be renamed aside
/// with before `lines` (the serialized lines about to be appended) go in, or `None` when
/// they may join it. A file whose first line has no readable time is not rotated by month.
pub fn rotation_stamp(
    rotation: JournalRotation,
    file: &File,
    len: u64,
    lines: &[u8],
) -> Option<String> {
    let first = || first_line_time(file, len);
    match rotation {
        JournalRotation::Never => None,
        JournalRotation::Month => {
            let (start, new) = (first()?, line_time(lines)?);
            let month = |t: DateTime<Utc>| t.format("%Y-%m").to_string();
            (month(start) != month(new)).then(|| month(start))
        }
        JournalRotation::Size { max_bytes } => {
            if len.saturating_add(lines.len() as u64) <= max_bytes {
                return None;
            }
            let start = first().or_else(|| line_time(lines))?;
            Some(start.format("%Y-%m-%dT%H%M%SZ").to_string())
        }
    }
}

/// The name of the `n`th rotated file of `stamp` (1: `journal-<stamp>.jsonl`, else
/// `journal-<stamp>.<n>.jsonl`).
pub fn rotated_name(stamp: &str, n: u32) -> String {
    if n <= 1 {
        format!("journal-{stamp}.jsonl")
    } else {
        format!("journal-{stamp}.{n}.jsonl")
    }
}

/// The time of the first line of `file` that has one (within its first 1 MiB).
fn first_line_time(file: &File, len: u64) -> Option<DateTime<Utc>> {
    let mut head = vec![0u8; usize::try_from(len.min(1 << 20)).ok()?];
    file.read_exact_at(&mut head, 0).ok()?;
    head.split(|&b| b == b'\n').find_map(line_time)
}

/// The `time` of a JSON line (the first line of `bytes`).
fn line_time(bytes: &[u8]) -> Option<DateTime<Utc>> {
    #[derive(serde::Deserialize)]
    struct Timed {
        time: String,
    }
    let line = bytes.split(|&b| b == b'\n').next()?;
    let timed: Timed = serde_json::from_slice(line).ok()?;
    crate::timestamp::parse(&timed.time)
}

/// Whether `name` is a journal file, current (`journal.jsonl`) or rotated
/// (`journal-<stamp>[.n].jsonl`), and the instant its stamp says its first line is at or
/// after (`None` for the current one, which comes after every rotated one).
pub fn journal_file_start(name: &str) -> Option<Option<DateTime<Utc>>> {
    journal_file_order(name).map(|o| o.map(|(start, _)| start))
}

/// [`journal_file_start`] with the file's number among those of the same stamp (1 for
/// `journal-<stamp>.jsonl`, n for `journal-<stamp>.n.jsonl`): the order they were made in.
pub fn journal_file_order(name: &str) -> Option<Option<(DateTime<Utc>, u32)>> {
    if name == JOURNAL_FILE {
        return Some(None);
    }
    let stamp = name.strip_prefix("journal-")?.strip_suffix(".jsonl")?;
    let (stamp, n) = match stamp.split_once('.') {
        Some((stamp, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            (stamp, n.parse().ok()?)
        }
        Some(_) => return None,
        None => (stamp, 1),
    };
    let naive = chrono::NaiveDateTime::parse_from_str(stamp, "%Y-%m-%dT%H%M%SZ")
        .ok()
        .or_else(|| {
            chrono::NaiveDate::parse_from_str(&format!("{stamp}-01"), "%Y-%m-%d")
                .ok()
                .and_then(|d| d.and_hms_opt(0, 0, 0))
        })?;
    Some(Some((naive.and_utc(), n)))
}

/// A rotated file's stamp and its number among files of that stamp.
type FileOrder = (DateTime<Utc>, u32);

/// The journal files of `dir`, oldest first: rotated ones by the stamp in their name
/// (then by name), `journal.jsonl` last. No directory: no files.
pub fn journal_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut files: Vec<(Option<FileOrder>, String)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let order = journal_file_order(&name)?;
            Some((order, name))
        })
        .collect();
    // By stamp, then by number (`journal-<stamp>.2.jsonl` after `journal-<stamp>.jsonl`);
    // `None` (the current file) after every rotated one.
    files.sort_by(|a, b| match (a.0, b.0) {
        (Some(x), Some(y)) => x.cmp(&y).then_with(|| a.1.cmp(&b.1)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.1.cmp(&b.1),
    });
    Ok(files.into_iter().map(|(_, name)| dir.join(name)).collect())
}

/// The instant the stamp in `path`'s name says its first line is at or after.
pub(super) fn start_of(path: &Path) -> Option<DateTime<Utc>> {
    journal_file_start(path.file_name()?.to_str()?)?
}
