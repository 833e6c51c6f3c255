//! The `sample` source (SPEC §6): the Dreamer's "sample of everything" — a few lines of
//! what each of the other threads' sources sees, for unexpected connections.
//!
//! **What it reads.** The sources of the other threads (the config fills them in once
//! every thread is read: [`SampleSettings::with_sources`]), gathered again this tick,
//! except `archive` and other samples. A source that fails is left out.
//!
//! **How lines are drawn.** From each source's *world view* ([`super::world_view`]: the
//! system quantised, calendars without countdowns, mail without per-tick marks), the
//! [`SampleSettings::lines`] non-empty lines with the smallest content hash (FNV-1a), in
//! their original order. Deterministic and drawn by content, not by time or position:
//! the same world gives the same sample (so the quiet tick can skip the Dreamer), and
//! when something changes, the lines that changed are the only new candidates.
//!
//! **Layout**: `== NAME, KIND source ==` then its lines, one block per source, cut whole
//! at `max_bytes` (default [`DEFAULT_SAMPLE_MAX_BYTES`]). Not `(KIND)`: the screen reads
//! `(system)` as a fake turn, and a Dreamer screened by its own headers links and retires
//! nothing.
//!
//! Keys: `lines` (1..=50, default [`DEFAULT_SAMPLE_LINES`]), `max_bytes`. Must not: read
//! anything its sources would not, or run twice what one of them runs within a gather.

use std::future::Future;
use std::pin::Pin;

use serde::Deserialize;

use super::error::SourceError;
use super::settings::{self, SettingsError};
use super::{GatherContext, Source, SourceKind, Text, world_view};

/// The keys a `sample` source takes besides `kind` and `name`.
pub(super) const KEYS: &[&str] = &["lines", "max_bytes"];
/// Lines drawn from each source.
pub const DEFAULT_SAMPLE_LINES: usize = 5;
/// The sample's cap.
pub const DEFAULT_SAMPLE_MAX_BYTES: usize = 4000;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    lines: Option<toml::Value>,
    max_bytes: Option<toml::Value>,
}

/// A `sample` source, checked; its sources are the other threads'.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleSettings {
    lines: usize,
    max_bytes: usize,
    sources: Vec<Source>,
}

impl Default for SampleSettings {
    fn default() -> Self {
        SampleSettings {
            lines: DEFAULT_SAMPLE_LINES,
            max_bytes: DEFAULT_SAMPLE_MAX_BYTES,
            sources: Vec::new(),
        }
    }
}

impl SampleSettings {
    /// Checks the keys of a `sample` table (`kind` and `name` taken out).
    pub fn from_table(table: toml::Table) -> Result<SampleSettings, SettingsError> {
        let raw: Raw = settings::read("sample", KEYS, table)?;
        Ok(SampleSettings {
            lines: settings::count("lines", raw.lines.as_ref(), DEFAULT_SAMPLE_LINES, 1..=50)?,
            max_bytes: settings::count(
                "max_bytes",
                raw.max_bytes.as_ref(),
                DEFAULT_SAMPLE_MAX_BYTES,
                1..=10_000_000,
            )?,
            sources: Vec::new(),
        })
    }

    /// The sources it samples (the other threads').
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// Lines drawn from each source.
    pub fn lines(&self) -> usize {
        self.lines
    }

    /// These settings sampling `sources` (the other threads'), without archives and
    /// samples.
    #[must_use]
    pub fn with_sources(mut self, sources: &[Source]) -> SampleSettings {
        self.sources = sources
            .iter()
            .filter(|s| !matches!(s.kind, SourceKind::Archive(_) | SourceKind::Sample(_)))
            .cloned()
            .collect();
        self
    }
}

/// FNV-1a of a line: the draw's order.
fn hash(line: &str) -> u64 {
    line.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The `n` lines of `text` with the smallest hashes, in their order in `text`.
pub fn draw(text: &str, n: usize) -> Vec<&str> {
    let mut lines: Vec<(usize, &str)> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .collect();
    lines.sort_by_key(|(i, l)| (hash(l), *i));
    lines.truncate(n);
    lines.sort_by_key(|(i, _)| *i);
    lines.into_iter().map(|(_, l)| l).collect()
}

/// Gathers the sampled sources and draws from each.
pub(super) fn text<'a>(
    s: &'a SampleSettings,
    ctx: &'a GatherContext<'a>,
) -> Pin<Box<dyn Future<Output = Result<Text, SourceError>> + Send + 'a>> {
    Box::pin(async move {
        if s.sources.is_empty() {
            return Ok(Text {
                text: "(the other threads read nothing to sample)".into(),
                truncated: false,
            });
        }
        let gathered = super::gather(&s.sources, ctx).await;
        let mut out = String::new();
        let mut truncated = false;
        for t in &gathered.texts {
            let Some(world) = world_view(t.kind, &t.text) else {
                continue;
            };
            let lines = draw(&world, s.lines);
            if lines.is_empty() {
                continue;
            }
            let block = format!(
                "== {}, {} source ==\n{}\n\n",
                t.name,
                t.kind,
                lines.join("\n")
            );
            if out.len() + block.len() > s.max_bytes {
                truncated = true;
                break;
            }
            out.push_str(&block);
        }
        Ok(Text {
            text: out.trim_end().to_string(),
            truncated,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_draw_follows_the_content_not_the_order_or_the_time() {
        let text = "alpha\nbravo\ncharlie\ndelta\necho\nfoxtrot\n";
        let a = draw(text, 3);
        assert_eq!(a.len(), 3);
        // The same lines in another order: the same lines drawn (in their new order).
        let shuffled = "foxtrot\necho\ndelta\ncharlie\nbravo\nalpha\n";
        let mut b = draw(shuffled, 3);
        b.reverse();
        assert_eq!(a, b);
        // One line more: at most one line of the draw changes.
        let more = format!("{text}golf\n");
        let c = draw(&more, 3);
        assert!(a.iter().filter(|l| c.contains(l)).count() >= 2);
        assert!(draw("\n \n", 3).is_empty());
    }

    #[test]
    fn settings_are_checked() {
        let t = |text: &str| SampleSettings::from_table(text.parse::<toml::Table>().unwrap());
        assert_eq!(t("").unwrap().lines(), DEFAULT_SAMPLE_LINES);
        assert_eq!(t("lines = 2").unwrap().lines(), 2);
        assert!(t("lines = 0").is_err());
        assert!(
            t("sources = []")
                .unwrap_err()
                .to_string()
                .contains("sources")
        );
    }
}
