//! The `archive` source (SPEC §6): forgotten entries from `archive.jsonl` that resemble
//! what is remembered now.
//!
//! The last 256 KiB of `archive.jsonl`, read leniently (lines that are not archive lines,
//! [`crate::archive::Archived`], skipped; an entry needs a non-blank `id` and `summary`). Deduplicated by id, the latest removal winning (`removed_at`, then
//! file order). An archived entry that is back in the state (same id and same summary)
//! is left out. Each is scored by its best Jaccard similarity to a current entry; those
//! above 0 are shown, best first, ties the most recently removed first, at most
//! `max_entries` (default [`DEFAULT_ARCHIVE_ENTRIES`]); when nothing resembles, the most
//! recently removed. No archive file → empty text.
//!
//! Owns [`ArchiveSettings`] (`max_entries` checked); must not write the archive (that is
//! `storage`'s).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Deserialize;

use super::error::SourceError;
use super::read::{blocking, read_tail};
use super::settings::{self, SettingsError};
use super::text::one_line;
use super::{GatherContext, Text};
use crate::archive::Archived;
use crate::matching::{Similarity, TokenSet, similarity};
use crate::storage::ARCHIVE_FILE;

/// Default number of entries an `archive` source shows.
pub const DEFAULT_ARCHIVE_ENTRIES: usize = 5;
/// The most entries an `archive` source may show.
const MAX_ENTRIES: usize = 1000;
/// How much of the end of `archive.jsonl` is read.
const ARCHIVE_TAIL_BYTES: usize = 256 * 1024;
/// Longest id or summary shown for an archived entry, in chars.
const ARCHIVE_FIELD_CHARS: usize = 300;

/// The keys an `archive` source takes besides `kind` and `name`.
pub(super) const KEYS: &[&str] = &["max_entries"];

/// An `archive` source as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    max_entries: Option<toml::Value>,
}

/// An `archive` source, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct ArchiveSettings {
    max_entries: usize,
}

impl Default for ArchiveSettings {
    fn default() -> Self {
        ArchiveSettings {
            max_entries: DEFAULT_ARCHIVE_ENTRIES,
        }
    }
}

impl ArchiveSettings {
    /// Checks the keys of an `archive` table (`kind` and `name` taken out).
    pub fn from_table(table: toml::Table) -> Result<ArchiveSettings, SettingsError> {
        let raw: Raw = settings::read("archive", KEYS, table)?;
        Ok(ArchiveSettings {
            max_entries: settings::count(
                "max_entries",
                raw.max_entries.as_ref(),
                DEFAULT_ARCHIVE_ENTRIES,
                1..=MAX_ENTRIES,
            )?,
        })
    }
}

/// Reads the archive next to the state, on the blocking pool.
pub(super) async fn text(
    settings: &ArchiveSettings,
    ctx: &GatherContext<'_>,
) -> Result<Text, SourceError> {
    let path = ctx.state_dir.join(ARCHIVE_FILE);
    let current: Vec<(String, String)> = ctx
        .state
        .all_entries()
        .map(|(_, e)| (e.id.clone(), e.summary.clone()))
        .collect();
    let max = settings.max_entries;
    blocking(move || archive_text(&path, &current, max)).await
}

/// One entry of `archive.jsonl`, as far as the archive source cares.
#[derive(Debug, Clone)]
struct Forgotten {
    id: String,
    summary: String,
    removed_at: Option<DateTime<Utc>>,
    reason: Option<String>,
    /// Line number in what was read: later lines were appended later.
    line: usize,
}

impl Forgotten {
    fn parse(line: &str, index: usize) -> Option<Forgotten> {
        let archived = Archived::parse(line.as_bytes())?;
        let text = |s: &str| Some(s.trim()).filter(|s| !s.is_empty()).map(str::to_string);
        Some(Forgotten {
            id: text(&archived.entry.id)?,
            summary: text(&archived.entry.summary)?,
            removed_at: Some(archived.removed_at),
            reason: Some(archived.reason.word().into_owned()),
            line: index,
        })
    }

    /// Later removals sort greater.
    fn recency(&self) -> (Option<DateTime<Utc>>, usize) {
        (self.removed_at, self.line)
    }

    fn render(&self, out: &mut String) {
        let mut notes = Vec::new();
        if let Some(t) = self.removed_at {
            notes.push(format!("removed {}", t.format("%Y-%m-%d")));
        }
        if let Some(r) = &self.reason {
            notes.push(one_line(r, ' ', 40));
        }
        let _ = write!(
            out,
            "- [{}] {}",
            one_line(&self.id, ' ', ARCHIVE_FIELD_CHARS),
            one_line(&self.summary, ' ', ARCHIVE_FIELD_CHARS)
        );
        if !notes.is_empty() {
            let _ = write!(out, " ({})", notes.join(", "));
        }
        out.push('\n');
    }
}

/// Forgotten entries that resemble the `current` (id, summary) entries.
fn archive_text(
    path: &Path,
    current: &[(String, String)],
    max: usize,
) -> Result<Text, SourceError> {
    let tail = match read_tail(path, ARCHIVE_TAIL_BYTES) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Text::default()),
        Err(source) => {
            return Err(SourceError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let bytes = if tail.at_line_start {
        &tail.bytes[..]
    } else {
        // A partial first line cannot parse anyway.
        let start = tail
            .bytes
            .iter()
            .position(|&c| c == b'\n')
            .map_or(tail.bytes.len(), |nl| nl + 1);
        &tail.bytes[start..]
    };
    let text = String::from_utf8_lossy(bytes);
    let mut latest: HashMap<String, Forgotten> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let Some(f) = Forgotten::parse(line, i) else {
            continue;
        };
        match latest.get(&f.id) {
            Some(seen) if seen.recency() > f.recency() => {}
            _ => {
                latest.insert(f.id.clone(), f);
            }
        }
    }
    let remembered: HashSet<(&str, &str)> = current
        .iter()
        .map(|(id, s)| (id.as_str(), s.as_str()))
        .collect();
    let sets: Vec<TokenSet> = current.iter().map(|(_, s)| TokenSet::new(s)).collect();
    let mut scored: Vec<(Similarity, Forgotten)> = latest
        .into_values()
        .filter(|f| !remembered.contains(&(f.id.as_str(), f.summary.as_str())))
        .map(|f| {
            let own = TokenSet::new(&f.summary);
            let best = sets
                .iter()
                .map(|s| similarity(&own, s))
                .max()
                .unwrap_or(Similarity::ZERO);
            (best, f)
        })
        .collect();
    let by_recency =
        |a: &Forgotten, b: &Forgotten| b.recency().cmp(&a.recency()).then_with(|| a.id.cmp(&b.id));
    let resembling = scored.iter().any(|(s, _)| s.shared > 0);
    if resembling {
        scored.retain(|(s, _)| s.shared > 0);
        scored.sort_by(|(sa, a), (sb, b)| sb.cmp(sa).then_with(|| by_recency(a, b)));
    } else {
        scored.sort_by(|(_, a), (_, b)| by_recency(a, b));
    }
    let mut out = String::new();
    for (_, f) in scored.iter().take(max) {
        f.render(&mut out);
    }
    Ok(Text {
        text: out,
        truncated: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::ctx;
    use crate::sources::{Source, SourceKind, gather};
    use crate::state::{Entry, State};
    use crate::timestamp;

    fn entry(id: &str, summary: &str) -> Entry {
        let t = timestamp::parse("2026-11-01T00:00:00Z").unwrap();
        Entry::new(
            id.into(),
            summary.into(),
            crate::state::Strength::whole(3),
            5,
            t,
        )
    }

    fn archived(id: &str, summary: &str, removed: &str, reason: &str) -> String {
        serde_json::json!({
            "id": id, "summary": summary, "strength": 0,
            "created": "2026-11-01T00:00:00Z", "last_seen": "2026-11-02T00:00:00Z",
            "category": "patterns", "removed_at": removed, "reason": reason,
        })
        .to_string()
            + "\n"
    }

    #[test]
    fn an_archive_that_cannot_be_read_says_so_and_a_missing_one_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join(ARCHIVE_FILE);
        assert!(archive_text(&missing, &[], 5).unwrap().text.is_empty());
        // A directory where the file should be: it exists but cannot be read as one.
        std::fs::create_dir(&missing).unwrap();
        let err = archive_text(&missing, &[], 5).unwrap_err();
        assert!(
            matches!(&err, SourceError::Read { path, .. } if *path == missing),
            "{err:?}"
        );
        assert!(
            err.to_string()
                .starts_with(&format!("cannot read {}: ", missing.display())),
            "{err}"
        );
    }

    #[tokio::test]
    async fn archive_shows_what_resembles_the_present() {
        let dir = tempfile::tempdir().unwrap();
        let mut text = String::new();
        text += &archived(
            "p-backup-job-fails",
            "Backup job fails Mondays",
            "2026-11-10T00:00:00Z",
            "pruned",
        );
        text += &archived(
            "h-cat-food",
            "Cat food running low",
            "2026-11-21T00:00:00Z",
            "decayed",
        );
        text += "not json\n{\"id\": \"x\"}\n";
        text += &archived(
            "t-disk-full",
            "Disk almost full on server",
            "2026-11-15T00:00:00Z",
            "decayed",
        );
        // The same id removed again later: the later removal wins.
        text += &archived(
            "p-backup-job-fails",
            "Backup job fails on Mondays",
            "2026-11-20T00:00:00Z",
            "decayed",
        );
        text += &archived(
            "t-still-here",
            "Still remembered item",
            "2026-11-21T00:00:00Z",
            "budget",
        );
        std::fs::write(dir.path().join(ARCHIVE_FILE), text).unwrap();

        let mut state = State::default();
        state.patterns.push(entry(
            "p-backup-failed",
            "Backup failed again on Monday night",
        ));
        state
            .active_threads
            .push(entry("t-server", "Server disk usage rising"));
        state
            .active_threads
            .push(entry("t-still-here", "Still remembered item"));
        let source = |max: Option<usize>| {
            Source::from(SourceKind::Archive(ArchiveSettings {
                max_entries: max.unwrap_or(DEFAULT_ARCHIVE_ENTRIES),
            }))
        };
        let g = gather(&[source(None)], &ctx(&state, dir.path())).await;
        assert_eq!(
            g.texts[0].text,
            "- [t-disk-full] Disk almost full on server (removed 2026-11-15, decayed)\n\
             - [p-backup-job-fails] Backup job fails on Mondays (removed 2026-11-20, decayed)\n"
        );
        let g = gather(&[source(Some(1))], &ctx(&state, dir.path())).await;
        assert_eq!(g.texts[0].text.lines().count(), 1);

        // Nothing resembles: the most recently removed.
        let empty = State::default();
        let g = gather(&[source(Some(2))], &ctx(&empty, dir.path())).await;
        let t = &g.texts[0].text;
        assert!(
            t.starts_with("- [t-still-here]") && t.contains("[h-cat-food]"),
            "{t}"
        );

        // No archive: empty text, no failure.
        let none = tempfile::tempdir().unwrap();
        let g = gather(&[source(None)], &ctx(&state, none.path())).await;
        assert_eq!(g.texts[0].text, "");
        assert!(g.failures.is_empty());
    }
}
