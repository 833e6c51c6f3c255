//! The `transcript` source (SPEC §6): the tail of the agent's conversation log.
//!
//! The last `max_bytes` (default [`DEFAULT_TRANSCRIPT_MAX_BYTES`]) of the file, starting
//! after a line end (unless the only line end lies in the second half: then at a char
//! boundary, so one huge line still shows its end). A missing file is a failure.
//!
//! Owns [`TranscriptSettings`] (the path resolved against the config file once,
//! `max_bytes` checked); must not read more than the tail it shows.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::Text;
use super::error::SourceError;
use super::read::{Tail, blocking, read_tail};
use super::settings::{self, MAX_BYTES_RANGE, Resolve, SettingsError};
use super::text::{cap_tail, sanitize};

/// Default cap of a `transcript` source.
pub const DEFAULT_TRANSCRIPT_MAX_BYTES: usize = 6000;

/// The keys a `transcript` source takes besides `kind` and `name`.
pub(super) const KEYS: &[&str] = &["path", "max_bytes"];

/// A `transcript` source as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    path: String,
    max_bytes: Option<toml::Value>,
}

/// A `transcript` source, checked: `path = "~/agent/transcript.log"`.
#[derive(Debug, Clone, PartialEq)]
pub struct TranscriptSettings {
    /// Absolute (resolved against the config file's directory).
    path: PathBuf,
    max_bytes: usize,
}

impl TranscriptSettings {
    /// Checks the keys of a `transcript` table (`kind` and `name` taken out).
    pub fn from_table(
        table: toml::Table,
        resolve: Resolve<'_>,
    ) -> Result<TranscriptSettings, SettingsError> {
        let raw: Raw = settings::read("transcript", KEYS, table)?;
        Ok(TranscriptSettings {
            path: resolve(&raw.path).map_err(|e| SettingsError::at("path", e.to_string()))?,
            max_bytes: settings::count(
                "max_bytes",
                raw.max_bytes.as_ref(),
                DEFAULT_TRANSCRIPT_MAX_BYTES,
                MAX_BYTES_RANGE,
            )?,
        })
    }

    /// The log file, resolved.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Reads the tail (at most `max_bytes`, and at most `cap`), on the blocking pool.
pub(super) async fn text(settings: &TranscriptSettings, cap: usize) -> Result<Text, SourceError> {
    let path = settings.path.clone();
    let max = settings.max_bytes.min(cap);
    blocking(move || transcript_text(&path, max)).await
}

/// Drops a partial first line (when a line end lies in the first half) or else a partial
/// first char.
pub(super) fn skip_partial_line(tail: &Tail) -> &[u8] {
    let b = &tail.bytes[..];
    if tail.at_line_start {
        return b;
    }
    match b.iter().position(|&c| c == b'\n') {
        Some(nl) if nl * 2 <= b.len() => &b[nl + 1..],
        _ => {
            let skip = b
                .iter()
                .take(3)
                .take_while(|&&c| (0x80..0xc0).contains(&c))
                .count();
            &b[skip..]
        }
    }
}

fn transcript_text(path: &Path, max: usize) -> Result<Text, SourceError> {
    let tail = read_tail(path, max).map_err(|source| SourceError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut text = sanitize(skip_partial_line(&tail));
    let cut = cap_tail(&mut text, max);
    Ok(Text {
        text,
        truncated: tail.cut || cut,
    })
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use super::*;
    use crate::sources::SourceKind;
    use crate::sources::testing::one;

    fn transcript(path: &str, max_bytes: Option<usize>) -> SourceKind {
        SourceKind::Transcript(TranscriptSettings {
            path: PathBuf::from(path),
            max_bytes: max_bytes.unwrap_or(DEFAULT_TRANSCRIPT_MAX_BYTES),
        })
    }

    #[tokio::test]
    async fn transcript_tail_starts_at_a_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.log");
        let lines = (0..100).fold(String::new(), |mut s, i| {
            let _ = writeln!(s, "line {i:03}");
            s
        });
        std::fs::write(&path, &lines).unwrap();
        let source = |max| transcript(&path.display().to_string(), Some(max));
        // 9 bytes a line; 40 bytes hold 4 whole lines and part of a fifth.
        let g = one(source(40)).await;
        let t = &g.texts[0];
        assert_eq!(t.text, "line 096\nline 097\nline 098\nline 099\n");
        assert!(t.truncated);
        // Exactly on a line boundary.
        let g = one(source(18)).await;
        assert_eq!(g.texts[0].text, "line 098\nline 099\n");
        // Whole file.
        let g = one(source(10_000)).await;
        assert_eq!(g.texts[0].text, lines);
        assert!(!g.texts[0].truncated);
        // Missing file.
        let g = one(transcript("/nonexistent/t.log", None)).await;
        assert!(g.failures[0].error.contains("/nonexistent/t.log"));
    }
}
