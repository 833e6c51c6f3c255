//! Rule 7 of SPEC §7: escalation records, the cooldown that suppresses repeats, and the
//! envelope handed to the primary model.
//!
//! A reason matching one the primary model dismissed within `dismiss_memory` (SPEC §8) is
//! suppressed here too (`suppressed: dismissed recently`), so no call is made for it.
//!
//! Decisions recorded in ARCHITECTURE.md: only a record that was not itself suppressed
//! starts a cooldown (so a lasting problem is raised again once per cooldown, not never);
//! a suppressed repeat replaces the previous suppressed record of the same thread and
//! reason rather than piling up, so repeats cannot push the original out of the
//! 10-record history and reopen the cooldown early.
//!
//! An escalation of a thread whose sources carried a screen detection this tick is
//! marked `tainted`: the escalation phase decides it last when calls are
//! short and never remembers it. It is not suppressed: one hostile mail in an inbox
//! must not silence every real alarm raised from that inbox.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{Report, Settings, ThreadOutcome};
use crate::answer::Answer;
use crate::matching::matches;
use crate::state::{Entry, EscalationOutcome, EscalationRecord, State, Suppression};
use crate::thread::{Kind, ThreadName};

/// The reason of an escalation: the thread's, else its most important finding.
pub fn reason_of(answer: &Answer) -> String {
    if !answer.escalate_reason.trim().is_empty() {
        return answer.escalate_reason.trim().to_string();
    }
    answer
        .findings
        .iter()
        .max_by_key(|f| f.importance)
        .map_or_else(|| "no reason given".to_string(), |f| f.summary.clone())
}

fn is_repeat(
    record: &EscalationRecord,
    thread: ThreadName,
    reason: &str,
    now: DateTime<Utc>,
    settings: &Settings,
) -> bool {
    record.thread == thread.as_str()
        && record.timestamp <= now
        && now - record.timestamp < settings.escalation_cooldown
        && matches(&record.reason, reason, settings.match_threshold)
}

/// The primary model dismissed `record` within the dismiss memory, and `reason` matches
/// it (any thread: the model judged the matter, not the thread).
fn was_dismissed_recently(
    record: &EscalationRecord,
    reason: &str,
    now: DateTime<Utc>,
    settings: &Settings,
) -> bool {
    matches!(record.outcome, EscalationOutcome::Dismissed(_))
        && record.timestamp <= now
        && now - record.timestamp < settings.dismiss_memory
        && matches(&record.reason, reason, settings.match_threshold)
}

pub fn record(
    state: &mut State,
    results: &[ThreadOutcome; 4],
    now: DateTime<Utc>,
    settings: &Settings,
    report: &mut Report,
) {
    for thread in ThreadName::ALL {
        let Some(answer) = results[thread.index()].answer() else {
            continue;
        };
        if !answer.escalate {
            continue;
        }
        let reason = reason_of(answer);
        let history = &mut state.escalation_history;
        let repeat = history
            .iter()
            .any(|r| !r.outcome.is_duplicate() && is_repeat(r, thread, &reason, now, settings));
        let previous_repeat = history.iter().rposition(|r| {
            r.outcome.is_duplicate() && is_repeat(r, thread, &reason, now, settings)
        });
        if let (true, Some(pos)) = (repeat, previous_repeat) {
            history.remove(pos);
        }
        let dismissed = history
            .iter()
            .any(|r| was_dismissed_recently(r, &reason, now, settings));
        let outcome = if repeat {
            EscalationOutcome::Suppressed(Suppression::Duplicate)
        } else if dismissed {
            EscalationOutcome::Suppressed(Suppression::DismissedRecently)
        } else {
            EscalationOutcome::Pending
        };
        let mut record = EscalationRecord::raised(now, thread.as_str(), reason, outcome);
        record.tainted = answer.seen.screened;
        history.push(record.clone());
        report.escalations.push(record);
    }
    let history = &mut state.escalation_history;
    let excess = history.len().saturating_sub(settings.escalation_history);
    history.drain(..excess);
}

/// The envelope of the original design, `{"ESCALATE": true, "reason", "context",
/// "subconscious"}`, handed to the primary model and printed by `tick --json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Envelope {
    #[serde(rename = "ESCALATE")]
    pub escalate: bool,
    /// `thread: reason` of every pending escalation, joined by "; ".
    pub reason: String,
    pub context: Context,
    pub subconscious: Subconscious,
}

/// What lies behind an escalation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Context {
    pub escalations: Vec<Raised>,
    /// The findings of the escalating threads this tick.
    pub findings: Vec<ContextFinding>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Raised {
    pub thread: String,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ContextFinding {
    pub thread: ThreadName,
    pub summary: String,
    pub importance: u8,
    pub kind: Kind,
}

/// The four categories of the new state.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Subconscious {
    pub active_threads: Vec<Entry>,
    pub patterns: Vec<Entry>,
    pub hunches: Vec<Entry>,
    pub insights: Vec<Entry>,
}

/// The envelope when at least one escalation of this tick is pending.
pub fn envelope(state: &State, results: &[ThreadOutcome; 4], report: &Report) -> Option<Envelope> {
    let pending: Vec<&EscalationRecord> = report
        .escalations
        .iter()
        .filter(|r| r.outcome == EscalationOutcome::Pending)
        .collect();
    if pending.is_empty() {
        return None;
    }
    let reason = pending
        .iter()
        .map(|r| format!("{}: {}", r.thread, r.reason))
        .collect::<Vec<_>>()
        .join("; ");
    let mut findings = Vec::new();
    for r in &pending {
        let Ok(thread) = r.thread.parse::<ThreadName>() else {
            continue;
        };
        if let Some(answer) = results[thread.index()].answer() {
            findings.extend(answer.findings.iter().map(|f| ContextFinding {
                thread,
                summary: f.summary.clone(),
                importance: f.importance,
                kind: f.kind,
            }));
        }
    }
    Some(Envelope {
        escalate: true,
        reason,
        context: Context {
            escalations: pending
                .iter()
                .map(|r| Raised {
                    thread: r.thread.clone(),
                    reason: r.reason.clone(),
                })
                .collect(),
            findings,
        },
        subconscious: Subconscious {
            active_threads: state.active_threads.clone(),
            patterns: state.patterns.clone(),
            hunches: state.hunches.clone(),
            insights: state.insights.clone(),
        },
    })
}
