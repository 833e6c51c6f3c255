//! The tick journal (`journal.jsonl`, SPEC §2): one line per tick with its time and
//! duration, per thread the provider, model, latency, tokens, cost, status and error,
//! what the aggregator did, the escalation, and the tick's warnings. The line is also the
//! `tick --json` report, minus the full aggregator report.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::aggregate::{RemovalReason, Report};
use crate::budget::Skip;
use crate::provider::Attempt;
use crate::state::EscalationRecord;
use crate::thread::ThreadName;
use crate::timestamp;

/// How a thread took part in a tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Answered,
    Failed,
    Skipped,
}

/// One model tried for a thread.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AttemptRecord {
    pub model: String,
    pub latency_ms: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost: f64,
    pub tries: u32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The reported usage was impossible; the bound was counted (see `provider`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub usage_clamped: bool,
    /// The response did not say what it used; the estimate was counted.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub usage_estimated: bool,
}

impl From<&Attempt> for AttemptRecord {
    fn from(a: &Attempt) -> Self {
        AttemptRecord {
            model: a.model.to_string(),
            latency_ms: millis(a.latency),
            tokens_in: a.tokens_in,
            tokens_out: a.tokens_out,
            cost: a.cost,
            tries: a.tries,
            skipped: a.skipped,
            error: a.error.clone(),
            usage_clamped: a.usage_clamped,
            usage_estimated: a.usage_estimated,
        }
    }
}

/// A source a thread read, or failed to.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SourceRecord {
    pub name: String,
    pub kind: String,
    pub bytes: usize,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What one thread did this tick.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ThreadRecord {
    pub thread: ThreadName,
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip: Option<Skip>,
    /// The provider and model that answered (or the last one tried).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub latency_ms: u64,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub findings: usize,
    pub reinforce: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<AttemptRecord>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<SourceRecord>,
}

impl ThreadRecord {
    /// A thread that did not run.
    pub fn skipped(thread: ThreadName, skip: Skip) -> ThreadRecord {
        ThreadRecord {
            skip: Some(skip),
            ..ThreadRecord::new(thread, Status::Skipped)
        }
    }

    /// A record with nothing filled in yet but the thread and its status.
    pub fn new(thread: ThreadName, status: Status) -> ThreadRecord {
        ThreadRecord {
            thread,
            status,
            skip: None,
            provider: None,
            model: None,
            latency_ms: 0,
            tokens_in: 0,
            tokens_out: 0,
            cost: 0.0,
            error: None,
            findings: 0,
            reinforce: 0,
            attempts: Vec::new(),
            sources: Vec::new(),
        }
    }
}

/// What the aggregator did, by id.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AggregateRecord {
    /// False when no thread answered: nothing changed.
    pub applied: bool,
    pub added: Vec<String>,
    pub reinforced: Vec<String>,
    /// Lost strength and stayed.
    pub weakened: Vec<String>,
    /// Removed at strength 0.
    pub decayed: Vec<String>,
    /// Removed over a category cap.
    pub pruned: Vec<String>,
    /// Removed to fit the state's size budget.
    pub budget: Vec<String>,
}

impl From<&Report> for AggregateRecord {
    fn from(r: &Report) -> Self {
        AggregateRecord {
            applied: r.applied,
            added: r.added.iter().map(|a| a.id.clone()).collect(),
            reinforced: r.reinforced.iter().map(|c| c.id.clone()).collect(),
            weakened: r.decayed.iter().map(|c| c.id.clone()).collect(),
            decayed: r.removed_ids(RemovalReason::Decayed),
            pruned: r.removed_ids(RemovalReason::Pruned),
            budget: r.removed_ids(RemovalReason::Budget),
        }
    }
}

/// One line of `journal.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JournalLine {
    /// The tick's `now` (the clock, or `--now`).
    #[serde(with = "timestamp::serde_utc")]
    pub time: DateTime<Utc>,
    pub duration_ms: u64,
    /// The run number (`every = N` counts these).
    pub run: u64,
    /// The state's `tick_count` once this tick is written (unchanged when nothing was
    /// applied). The line is written before the state: a state whose `tick_count` is
    /// lower was killed or failed before it landed, and the line was not applied.
    pub tick_count: u64,
    pub exit_code: u8,
    pub threads: Vec<ThreadRecord>,
    pub aggregate: AggregateRecord,
    /// Escalation records raised this tick (pending, or suppressed as duplicates).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub escalations: Vec<EscalationRecord>,
    /// What the tick also printed as warnings (e.g. it archived most of the memory).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost: f64,
}

pub fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
