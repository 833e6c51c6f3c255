//! The tick journal (`journal.jsonl`, SPEC §2): one line per tick with its time and
//! duration, per thread the provider, model, latency, tokens, cost, status and error,
//! what the aggregator did, the escalation, and the tick's warnings; each model's attempt
//! carries its egress record (what left the machine, [`crate::egress`]). The line is also the
//! `tick --json` report, minus the full aggregator report.
//!
//! A thread's line ([`ThreadRecord::of`]) is built once, after the thread is done, from
//! its [`ThreadOutcome`] (status, skip, error, counts) and its [`ThreadTrace`] (what it
//! read, which model it asked, what the calls used), so the two can never disagree.
//! Builds values only: `storage` appends them.

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::aggregate::Skip;
use crate::aggregate::feedback::{FeedbackReport, Verdict};
use crate::aggregate::{DueMove, RemovalReason, Report, RetireRefused, Status, ThreadOutcome};
use crate::answer::Answer;
use crate::answer::RetireWhy;
use crate::egress::Egress;
use crate::provider::Attempt;
use crate::state::{DecisionRecord, EscalationRecord, State};
use crate::thread::ThreadName;
use crate::timestamp;
use crate::untrusted::guard::GuardRecord;

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
    /// What left the machine for this model (SPEC §9): the egress ledger.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub egress: Option<Egress>,
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
            egress: a.egress.clone(),
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
    /// Its length before the tick's input budget cut it (`tick.max_input_bytes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_budget: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What the screen found in it (the prompt showed it neutralised).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub detections: Vec<GuardRecord>,
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
    /// What the screen found in its answer, and what the guard did with it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub guard: Vec<GuardRecord>,
    /// The answer as the aggregator took it (read, cleaned, guarded), compact: what
    /// `thinker replay` re-runs the aggregator on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<Answer>,
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
            status: outcome.status(),
            skip,
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
    /// Removed because a thread said they are no longer true (SPEC §7.10).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub retired: Vec<RetiredRecord>,
    /// Retires not carried out: unknown ids, or a thread whose sources carried a screen
    /// detection.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub retire_refused: Vec<RetireRefused>,
    /// Dues moved by a matching finding (from → to).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub moved: Vec<DueMove>,
    /// Links made (rule 12), refused, and gone.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub linked: Vec<crate::aggregate::links::Linked>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub links_refused: Vec<crate::aggregate::links::LinkRefused>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unlinked: Vec<crate::aggregate::links::Unlinked>,
    /// What the agent's verdicts did (`feedback.jsonl`): used, rejected, unknown ids
    /// (dropped), findings kept out.
    #[serde(skip_serializing_if = "FeedbackReport::is_empty")]
    pub feedback: FeedbackReport,
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
            feedback: r.feedback.clone(),
        }
    }
}

/// An entry a thread retired, and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RetiredRecord {
    pub id: String,
    pub why: RetireWhy,
}

/// One line of `journal.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JournalLine {
    /// The tick's `now` (the clock, or `--now`).
    #[serde(with = "timestamp::serde_utc")]
    pub time: DateTime<Utc>,
    /// The version of the memory rules the aggregator applied
    /// ([`crate::aggregate::RULES`]); a line without it was written under version 1.
    /// `thinker replay` replays only lines of the rules it implements.
    pub rules: u32,
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
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost: f64,
    /// The agent's verdicts the tick took from `feedback.jsonl` (applied when the tick
    /// was), for `thinker replay`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub verdicts: Vec<Verdict>,
    /// The digest ([`State::digest`]) of the state this tick leaves (before its
    /// escalation phase, whose line has its own): `thinker replay` checks against it.
    pub state: String,
    /// The state the tick started from, whole, when it is not the one thinker last wrote
    /// (the first tick, a state restored from `.bak` or edited by hand, a write that
    /// failed): where a replay can start or pick up again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<Box<State>>,
}

/// The escalation work of a tick (SPEC §8): a line of its own, appended after the tick's
/// line once the escalation phase is done. The tick's line is written before the state
/// is committed and the escalation happens after (crash windows in ARCHITECTURE.md), so
/// the two cannot share a line without one of them risking its loss; readers join them
/// by `run`. Told apart from a tick's line by its `escalation` field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EscalationLine {
    #[serde(with = "timestamp::serde_utc")]
    pub time: DateTime<Utc>,
    pub run: u64,
    pub tick_count: u64,
    pub escalation: EscalationWork,
    /// The digest of the state as the escalation phase left it.
    pub state: String,
}

/// What the escalation phase did: the call (if one was made), the effects, the outcomes.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EscalationWork {
    pub duration_ms: u64,
    /// The model that decided, else the last one asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The primary call's latency (all its retries and fallbacks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost: f64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<AttemptRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<DecisionRecord>,
    /// Why the call, the notifier or the note failed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// Every record the phase touched, as it left them.
    pub records: Vec<EscalationRecord>,
}

pub fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aggregate::ThreadError;
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
        assert_eq!(r.skip, Some(Skip::Cadence { every: 2 }));
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
