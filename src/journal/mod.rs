//! The tick journal (`journal.jsonl`, SPEC §2): one line per tick with its time and
//! duration, per thread the provider, model, latency, tokens, cost, status and error,
//! what the aggregator did, the escalation, and the tick's warnings; each model's attempt
//! carries its egress record (what left the machine, [`crate::egress`]). The line is also the
//! `tick --json` report, minus the full aggregator report.
//!
//! Owns the journal's one line shape ([`mod@line`]), its reading back ([`read`]: lenient for
//! `log`, `stats`, `doctor`, the MCP status; strict for `replay`), and its files' names
//! and order, rotation included ([`files`]). Here: the writer's side. A thread's line
//! ([`ThreadRecord::of`]) is built once, after the thread is done, from its
//! [`ThreadOutcome`] (status, skip, error, counts) and its [`ThreadTrace`] (what it read,
//! which model it asked, what the calls used), so the two can never disagree.
//!
//! Builds values only: `storage` appends them; must not write, lock or rotate here.

pub mod files;
pub mod line;
pub mod read;

use crate::aggregate::{RemovalReason, Report, ThreadOutcome};
use crate::provider::Attempt;
use crate::thread::ThreadName;
use crate::untrusted::guard::GuardRecord;

pub use line::{
    AggregateRecord, AttemptRecord, EscalationLine, EscalationWork, JournalLine, Line,
    RetiredRecord, SkipRecord, SourceRecord, Status, ThreadRecord,
};

impl From<&Attempt> for AttemptRecord {
    fn from(a: &Attempt) -> Self {
        AttemptRecord {
            model: a.model.to_string(),
            latency_ms: crate::timestamp::millis(a.latency),
            tokens_in: a.tokens_in,
            tokens_out: a.tokens_out,
            cost: a.cost,
            tries: a.tries,
            skipped: a.skipped,
            error: a.error.clone(),
            usage_clamped: a.usage_clamped,
            usage_estimated: a.usage_estimated,
            egress: a.egress.clone(),
        }
    }
}

/// What a thread did on its way to its outcome, gathered as it goes: a thread dropped at
/// its timeout still says what it read and which model it was waiting for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThreadTrace {
    pub sources: Vec<SourceRecord>,
    /// The model that answered, else the last one tried, else the first one to be asked.
    pub provider: Option<String>,
    pub model: Option<String>,
    pub attempts: Vec<AttemptRecord>,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost: f64,
    pub latency_ms: u64,
    /// The quiet tick's fingerprint of what the thread saw (not journaled).
    pub fingerprint: Option<String>,
    /// What the screen found in its answer.
    pub guard: Vec<GuardRecord>,
    /// The sites its sources linked to (not journaled: the escalation phase's check of
    /// what leaves).
    pub links: Vec<crate::escalation::outbound::SourceSites>,
}

impl ThreadRecord {
    /// The thread's journal record: its status, skip, error and counts from `outcome`,
    /// the rest from `trace`.
    pub fn of(thread: ThreadName, outcome: &ThreadOutcome, trace: ThreadTrace) -> ThreadRecord {
        let answer = outcome.answer().cloned();
        let (skip, error, findings, reinforce) = match outcome {
            ThreadOutcome::Answered(a) => (None, None, a.findings.len(), a.reinforce.len()),
            ThreadOutcome::Failed(e) => (None, Some(e.to_string()), 0, 0),
            ThreadOutcome::Skipped(s) => (Some(s.clone()), None, 0, 0),
        };
        let ThreadTrace {
            sources,
            provider,
            model,
            attempts,
            tokens_in,
            tokens_out,
            cost,
            latency_ms,
            fingerprint: _,
            guard,
            links: _,
        } = trace;
        ThreadRecord {
            thread,
            status: outcome.status().into(),
            skip: skip.map(SkipRecord::Known),
            provider,
            model,
            latency_ms,
            tokens_in,
            tokens_out,
            cost,
            error,
            findings,
            reinforce,
            attempts,
            sources,
            guard,
            answer,
        }
    }
}

impl From<&Report> for AggregateRecord {
    fn from(r: &Report) -> Self {
        AggregateRecord {
            applied: r.applied,
            added: r.added.iter().map(|a| a.id.clone()).collect(),
            reinforced: r.reinforced.iter().map(|c| c.id.clone()).collect(),
            weakened: r.weakened.iter().map(|c| c.id.clone()).collect(),
            decayed: r.removed_ids(RemovalReason::Decayed),
            pruned: r.removed_ids(RemovalReason::Pruned),
            budget: r.removed_ids(RemovalReason::Budget),
            retired: r
                .removed
                .iter()
                .filter_map(|a| match a.reason {
                    RemovalReason::Retired(why) => Some(RetiredRecord {
                        id: a.entry.id.clone(),
                        why,
                    }),
                    _ => None,
                })
                .collect(),
            retire_refused: r.retire_refused.clone(),
            moved: r.moved.clone(),
            linked: r.linked.clone(),
            links_refused: r.links_refused.clone(),
            unlinked: r.unlinked.clone(),
            merged: r.merged.clone(),
            folded: r.folded.clone(),
            feedback: r.feedback.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aggregate::{Skip, ThreadError};
    use crate::answer::Answer;

    fn trace() -> ThreadTrace {
        ThreadTrace {
            provider: Some("local".into()),
            model: Some("watcher".into()),
            latency_ms: 1000,
            ..ThreadTrace::default()
        }
    }

    /// The record's status, skip, error and counts come from the outcome alone.
    #[test]
    fn a_record_says_what_its_outcome_says() {
        let timed_out = ThreadOutcome::Failed(ThreadError::TimedOut {
            seconds: 1.0,
            waiting: None,
        });
        let r = ThreadRecord::of(ThreadName::Watcher, &timed_out, trace());
        assert_eq!((r.status, r.skip.as_ref()), (Status::Failed, None));
        assert!(
            r.error
                .as_deref()
                .is_some_and(|e| e.starts_with("timed out after 1.0 s"))
        );
        assert_eq!((r.provider.as_deref(), r.latency_ms), (Some("local"), 1000));

        let skipped = ThreadOutcome::Skipped(Skip::Cadence { every: 2 });
        let r = ThreadRecord::of(ThreadName::Oracle, &skipped, ThreadTrace::default());
        assert_eq!(r.status, Status::Skipped);
        assert_eq!(r.skip, Some(SkipRecord::Known(Skip::Cadence { every: 2 })));
        assert_eq!(r.error, None);

        let answered = ThreadOutcome::Answered(Answer {
            reinforce: vec!["p-a".into(), "p-b".into()],
            ..Answer::default()
        });
        let r = ThreadRecord::of(ThreadName::Dreamer, &answered, trace());
        assert_eq!((r.status, r.error, r.skip), (Status::Answered, None, None));
        assert_eq!((r.findings, r.reinforce), (0, 2));
    }
}
