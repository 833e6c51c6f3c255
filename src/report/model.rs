//! What a report shows, as plain data: the window, the ticks with what each did, every
//! entry's strength over time, the escalations. The caller (the `report` command, from a
//! replay of the journal) fills it; [`super::render`] draws it.
//!
//! Owns the model's types and the one derived view, [`days`]: the ticks and escalations
//! grouped by local calendar day in a zone passed in. Must not do I/O, read a clock or
//! know the journal's format.

use std::collections::BTreeMap;

use crate::state::Strength;
use chrono::{DateTime, NaiveDate, Utc};

use crate::clock::Zone;
use crate::state::{Category, EscalationOutcome};
use crate::thread::ThreadName;

/// Everything one report (or one side of a comparison) shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Model {
    /// The page's heading, e.g. `thinker: the last 7 days`.
    pub title: String,
    /// The span of time drawn; ticks and points outside it are clamped to its edges.
    pub window: Window,
    /// The settings this side was replayed with, as `KEY=VALUE` pairs (`--set`); empty
    /// for the current settings.
    pub settings: Vec<(String, String)>,
    /// Every tick in the window, in time order, with what it did.
    pub ticks: Vec<TickStats>,
    /// Every entry that lived in the window, in the order to draw them.
    pub entries: Vec<EntrySeries>,
    /// Every escalation raised in the window, in time order.
    pub escalations: Vec<EscalationMark>,
    /// Every link made between entries in the window, in time order (SPEC §7.12).
    pub links: Vec<LinkRow>,
    /// Lines for the reader about how the model was made (e.g. "ticks before … were
    /// journaled without answers: not replayed"), shown under the heading.
    pub notes: Vec<String>,
}

/// A span of time, `from` to `to` (inclusive).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Window {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
}

/// What one tick did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TickStats {
    pub time: DateTime<Utc>,
    /// Entries the tick added.
    pub added: u32,
    /// Entries the tick removed, by the reason they were archived with (`decayed`,
    /// `pruned`, `budget`, `rejected`, …).
    pub removed: BTreeMap<String, u32>,
    /// What the tick's calls used, by provider name.
    pub usage: BTreeMap<String, Usage>,
    /// Threads whose call or input failed.
    pub failed: Vec<ThreadName>,
    /// Threads that were skipped (cadence, quiet hours, unchanged, budget, breaker).
    pub skipped: Vec<ThreadName>,
}

/// Tokens and cost (USD).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Usage {
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost: f64,
}

impl Usage {
    /// Adds `other` to this; a non-finite cost counts as 0.
    pub fn add(&mut self, other: Usage) {
        self.tokens_in = self.tokens_in.saturating_add(other.tokens_in);
        self.tokens_out = self.tokens_out.saturating_add(other.tokens_out);
        if other.cost.is_finite() {
            self.cost += other.cost;
        }
    }

    /// Input and output tokens together.
    pub fn tokens(&self) -> u64 {
        self.tokens_in.saturating_add(self.tokens_out)
    }
}

/// One entry's life: its strength after each tick it was in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct EntrySeries {
    pub id: String,
    pub category: Category,
    pub summary: String,
    /// (tick time, strength 0–10 after it), in time order.
    pub points: Vec<(DateTime<Utc>, Strength)>,
    /// When and why it left memory; `None` while it is still there.
    pub left: Option<Departure>,
}

/// How an entry left memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Departure {
    pub time: DateTime<Utc>,
    /// The reason it was archived with (`decayed`, `pruned`, `budget`, `rejected`).
    pub reason: String,
}

/// One escalation record.
#[derive(Clone, Debug, PartialEq)]
pub struct EscalationMark {
    pub time: DateTime<Utc>,
    pub thread: String,
    pub reason: String,
    pub outcome: EscalationOutcome,
}

/// A link between two entries: when and by which thread it was made, and when it went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkRow {
    pub made: DateTime<Utc>,
    pub thread: String,
    pub a: String,
    pub b: String,
    /// `connects` or `contradicts`.
    pub kind: String,
    /// When it went, and why (`left`, `replaced`); `None` while it stands.
    pub gone: Option<(DateTime<Utc>, String)>,
}

/// One local calendar day: the sum of its ticks and escalations.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DayStats {
    pub day: NaiveDate,
    pub ticks: u32,
    pub added: u32,
    pub removed: BTreeMap<String, u32>,
    pub escalations: u32,
    pub usage: BTreeMap<String, Usage>,
    pub failed: BTreeMap<ThreadName, u32>,
    pub skipped: BTreeMap<ThreadName, u32>,
}

impl DayStats {
    /// Entries removed that day, whatever the reason.
    pub fn removed_total(&self) -> u32 {
        self.removed.values().copied().fold(0, u32::saturating_add)
    }

    /// What that day's calls used, all providers together.
    pub fn usage_total(&self) -> Usage {
        let mut total = Usage::default();
        for u in self.usage.values() {
            total.add(*u);
        }
        total
    }
}

/// The ticks and escalations of `model` grouped by their local day in `zone`, in day
/// order; a day with neither is absent.
pub fn days(model: &Model, zone: Zone) -> Vec<DayStats> {
    let mut by_day: BTreeMap<NaiveDate, DayStats> = BTreeMap::new();
    for tick in &model.ticks {
        let d = zone.day(tick.time);
        let stats = by_day.entry(d).or_insert_with(|| DayStats {
            day: d,
            ..DayStats::default()
        });
        stats.ticks += 1;
        stats.added = stats.added.saturating_add(tick.added);
        for (reason, n) in &tick.removed {
            let slot = stats.removed.entry(reason.clone()).or_default();
            *slot = slot.saturating_add(*n);
        }
        for (provider, usage) in &tick.usage {
            stats.usage.entry(provider.clone()).or_default().add(*usage);
        }
        for thread in &tick.failed {
            *stats.failed.entry(*thread).or_default() += 1;
        }
        for thread in &tick.skipped {
            *stats.skipped.entry(*thread).or_default() += 1;
        }
    }
    for mark in &model.escalations {
        let d = zone.day(mark.time);
        let stats = by_day.entry(d).or_insert_with(|| DayStats {
            day: d,
            ..DayStats::default()
        });
        stats.escalations += 1;
    }
    by_day.into_values().collect()
}
