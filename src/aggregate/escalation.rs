//! Rule 7 of SPEC §7: escalation records, the cooldown that suppresses repeats, and the
//! envelope handed to the primary model.
//!
//! A re-escalation of a matter the told ledger holds folds into it (docs/spec.md §7.7,
//! §8); a reason that joins matters with `; ` is read part by part, so a told matter
//! cannot carry an untold one away with it.
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

use super::identity::{Key, compare};
use super::{Report, Settings, ThreadOutcome, told};
use crate::answer::Answer;
use crate::recall::synonyms::Synonyms;
use crate::state::{Delivery, Entry, EscalationOutcome, EscalationRecord, State, Suppression};
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
        && same_reason(record, reason, now, settings)
}

/// Whether `reason`, raised at `now`, is the matter of `record`'s reason.
fn same_reason(
    record: &EscalationRecord,
    reason: &str,
    now: DateTime<Utc>,
    settings: &Settings,
) -> bool {
    compare(
        &Key::new(&record.reason, record.timestamp.date_naive(), []),
        &Key::new(reason, now.date_naive(), []),
        Synonyms::builtin(),
    )
    .same(settings.thresholds())
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
        && same_reason(record, reason, now, settings)
}

/// A re-escalation folded into the matter it repeats (docs/spec.md §8): no record, no
/// call, no share of the day's cap.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Folded {
    pub thread: ThreadName,
    pub reason: String,
    /// The entry the matter is about.
    pub entry: String,
    /// What became of the matter so far (`pending`, `notified: …`).
    pub outcome: String,
}

/// The entry an escalation of `thread` with `reason` is about: of the entries the
/// thread's findings added or were matched to this tick, the one the reason is most
/// about — compatible with it (a similarity of at least the threshold a shared reference
/// needs: the thread itself just reported it), the most similar first; else the entry
/// of the whole memory that is one fact with the reason; else the entry of the thread's
/// most important finding of importance [`URGENT_FINDING`] or more. None when the
/// escalation is about nothing remembered (then the per-thread cooldown of its reason's
/// text applies).
fn subject<'s>(
    state: &'s State,
    thread: ThreadName,
    answer: &Answer,
    reason: &str,
    now: DateTime<Utc>,
    settings: &Settings,
    report: &Report,
) -> Option<&'s Entry> {
    let touched: Vec<&str> = report
        .sightings
        .iter()
        .filter(|s| match &s.by {
            super::SightingBy::Matched { thread: t, .. } => *t == thread,
            _ => false,
        })
        .map(|s| s.id.as_str())
        .chain(
            report
                .added
                .iter()
                .filter(|a| a.thread == thread)
                .map(|a| a.id.as_str()),
        )
        .collect();
    // An entry merged into another this tick (rule 13) is that other now.
    let mut touched = touched;
    for m in &report.merged {
        if touched.contains(&m.id.as_str()) && !touched.contains(&m.into.as_str()) {
            touched.push(m.into.as_str());
        }
    }
    let refs: Vec<&str> = answer
        .findings
        .iter()
        .flat_map(|f| f.refs.iter().map(String::as_str))
        .collect();
    let key = Key::new(reason, now.date_naive(), refs);
    let synonyms = Synonyms::builtin();
    let best = |touched_only: bool| {
        state
            .all_entries()
            .map(|(_, e)| e)
            .filter(|e| touched.contains(&e.id.as_str()) == touched_only)
            .filter_map(|e| {
                let score = compare(&key, &super::reinforce::entry_key(e), synonyms);
                let fits = if touched_only {
                    !score.veto && score.similarity >= settings.ref_match_threshold
                } else {
                    score.same(settings.thresholds())
                };
                fits.then_some((score.rank(), e))
            })
            .max_by(|a, b| {
                a.0.partial_cmp(&b.0)
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then_with(|| b.1.id.cmp(&a.1.id))
            })
            .map(|(_, e)| e)
    };
    best(true).or_else(|| best(false)).or_else(|| {
        // A reason that says why rather than what ("Pay it today!"): the entry of the
        // thread's most important finding, when that finding is urgent enough to be
        // what it escalates.
        let lead = answer
            .findings
            .iter()
            .filter(|f| f.importance >= URGENT_FINDING)
            .max_by_key(|f| f.importance)?;
        let key = Key::new(
            &lead.summary,
            now.date_naive(),
            lead.refs.iter().map(String::as_str),
        );
        state
            .all_entries()
            .map(|(_, e)| e)
            .filter(|e| touched.contains(&e.id.as_str()))
            .find(|e| {
                compare(&key, &super::reinforce::entry_key(e), synonyms).same(settings.thresholds())
            })
    })
}

/// A finding at least this important is what its thread escalates, when the reason
/// names nothing remembered.
pub const URGENT_FINDING: u8 = 7;

pub fn record(
    state: &mut State,
    results: &[ThreadOutcome; 4],
    now: DateTime<Utc>,
    settings: &Settings,
    report: &mut Report,
) {
    told::sync(state);
    told::expire(state, now, settings);
    for thread in ThreadName::ALL {
        let Some(answer) = results[thread.index()].answer() else {
            continue;
        };
        if !answer.escalate {
            continue;
        }
        let mut reason = reason_of(answer);
        // A reason that joins matters with "; " is read part by part: the parts already
        // told (or on their way) fold, and only the rest is raised (§8).
        let parts: Vec<String> = reason
            .split("; ")
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect();
        if parts.len() > 1 {
            let mut left: Vec<String> = Vec::new();
            for part in parts {
                let about = subject(state, thread, answer, &part, now, settings, report).cloned();
                match matter_of(state, about.as_ref(), &part, now, settings) {
                    Some(i) => fold(state, i, thread, part, now, report),
                    None => left.push(part),
                }
            }
            if left.is_empty() {
                continue;
            }
            reason = left.join("; ");
        }
        let about = subject(state, thread, answer, &reason, now, settings, report).cloned();
        // The matter is already told, or on its way: folded, no record (§8).
        if let Some(i) = matter_of(state, about.as_ref(), &reason, now, settings) {
            fold(state, i, thread, reason, now, report);
            continue;
        }
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
        record.entry = about.as_ref().map(|e| e.id.clone());
        if let Some(entry) = &about
            && record.outcome == EscalationOutcome::Pending
        {
            state.told.push(told::open(&record, entry));
        }
        state.escalation_history.push(record.clone());
        report.escalations.push(record);
    }
    trim(&mut state.escalation_history, settings.escalation_history);
}

/// The told ledger's matter an escalation about `about` with `reason` repeats, if any
/// (§8): the entry's matter, else one its reason repeats. A matter of an entry whose due
/// has moved since makes this news, however its reason reads.
fn matter_of(
    state: &State,
    about: Option<&Entry>,
    reason: &str,
    now: DateTime<Utc>,
    settings: &Settings,
) -> Option<usize> {
    match about {
        Some(entry) if told::moved(state, entry) => told::find(state, entry, now, settings),
        Some(entry) => told::find(state, entry, now, settings)
            .or_else(|| told::find_reason(state, reason, now, settings)),
        None => told::find_reason(state, reason, now, settings),
    }
}

/// Folds a re-escalation into the told ledger's matter `i`: no record, no call.
fn fold(
    state: &mut State,
    i: usize,
    thread: ThreadName,
    reason: String,
    now: DateTime<Utc>,
    report: &mut Report,
) {
    let matter = &mut state.told[i];
    matter.folded = matter.folded.saturating_add(1);
    matter.last = matter.last.max(now);
    report.folded.push(Folded {
        thread,
        reason,
        entry: matter.entry.clone(),
        outcome: matter.outcome.to_string(),
    });
}

/// A record that still owes the user something: undecided, held (for quiet hours or for
/// the user's confirmation), or a send owed, under way or given up and waiting for
/// `thinker release`.
fn owes(record: &EscalationRecord) -> bool {
    matches!(
        record.outcome,
        EscalationOutcome::Pending | EscalationOutcome::Held(_)
    ) || matches!(
        record.delivery,
        Some(Delivery::Owed | Delivery::Undelivered | Delivery::Started)
    )
}

/// Keeps the newest `keep` records, but never lets one go that still owes the user
/// something ([`owes`]) while a settled one is older; past [`OWED_AT_MOST`] times
/// `keep`, the oldest go whatever they owe (a bound on the bookkeeping).
fn trim(history: &mut Vec<EscalationRecord>, keep: usize) {
    while history.len() > keep {
        match history.iter().position(|r| !owes(r)) {
            Some(i) => {
                history.remove(i);
            }
            None => break,
        }
    }
    let most = keep.saturating_mul(OWED_AT_MOST);
    let excess = history.len().saturating_sub(most);
    history.drain(..excess);
}

/// How many times the kept history may grow past its length while records still owe the
/// user something; past it the oldest go whatever they owe (a bound on the bookkeeping).
pub const OWED_AT_MOST: usize = 4;

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
