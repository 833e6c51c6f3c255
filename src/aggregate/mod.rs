//! The aggregator of SPEC §7: state, the four thread results, `now` and settings in; the
//! new state and a report out. Its input per thread is a [`ThreadOutcome`] ([`outcome`]),
//! the same value the journal line is built from.
//!
//! Pure and deterministic: no I/O, no clock, no randomness, no model call. Same input,
//! same output. Each rule lives in its own file:
//! [`reinforce`] (matching, decay and reinforcement), [`add`] (same-tick grouping and
//! routing), [`ids`], [`prune`] (caps and the token budget of the memory), [`threads`]
//! (thread state), [`escalation`] (records, cooldown, the envelope), [`feedback`] (the
//! agent's verdicts, rule 9); [`bounds`] keeps the bookkeeping (thread state, escalation
//! history) within its own limits.
//!
//! Order of application (recorded in ARCHITECTURE.md): caps on the loaded state (so a
//! state far over them is cut before anything is matched against it), the agent's
//! verdicts (`wrong` removed, `used` marked seen), decay+reinforce, findings matching a
//! rejected summary dropped, add, thread state, escalation, bounds on the bookkeeping, tick metadata, then caps and
//! the budget of the memory last. The report counts how much of the memory the tick
//! archived ([`MemoryChange`]) and carries the warning when it was more than half.

pub mod add;
pub mod bounds;
pub mod escalation;
pub mod feedback;
pub mod ids;
pub mod outcome;
pub mod prune;
pub mod reinforce;
pub mod threads;

use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;

use crate::state::{Category, Entry, EscalationRecord, State};
use crate::thread::{Kind, ThreadName};
use crate::timestamp;

pub use outcome::{Status, ThreadError, ThreadOutcome};

/// Per-category entry caps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Caps {
    pub active_threads: usize,
    pub patterns: usize,
    pub hunches: usize,
    pub insights: usize,
}

impl Caps {
    pub fn of(&self, cat: Category) -> usize {
        match cat {
            Category::ActiveThreads => self.active_threads,
            Category::Patterns => self.patterns,
            Category::Hunches => self.hunches,
            Category::Insights => self.insights,
        }
    }
}

impl Default for Caps {
    fn default() -> Self {
        Caps {
            active_threads: 5,
            patterns: 5,
            hunches: 5,
            insights: 3,
        }
    }
}

/// The tunables of the rules; defaults are those of SPEC §7.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Jaccard similarity at or above which two summaries match.
    pub match_threshold: f64,
    pub caps: Caps,
    /// The state file's budget in estimated tokens (bytes / 4).
    pub token_budget: usize,
    /// A thread's repeated escalation within this window is suppressed.
    pub escalation_cooldown: TimeDelta,
    /// Escalation history keeps the newest this many records.
    pub escalation_history: usize,
    /// A new escalation whose reason matches one the primary model dismissed within
    /// this window is suppressed (`suppressed: dismissed recently`), without a call.
    pub dismiss_memory: TimeDelta,
    /// A new finding needs at least this importance to be remembered.
    pub min_importance: u8,
    /// A finding matching a summary the agent marked `wrong` within this window is not
    /// added again (rule 9).
    pub rejected_memory: TimeDelta,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            match_threshold: 0.6,
            caps: Caps::default(),
            token_budget: 2000,
            escalation_cooldown: TimeDelta::minutes(60),
            escalation_history: 10,
            dismiss_memory: TimeDelta::hours(24),
            min_importance: 3,
            rejected_memory: TimeDelta::hours(72),
        }
    }
}

/// Why an entry left the subconscious.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RemovalReason {
    Decayed,
    Pruned,
    Budget,
    /// The agent said it was wrong (`thinker feedback ID wrong`).
    Rejected,
}

/// An entry that was removed, exactly as it is appended to `archive.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Archived {
    #[serde(flatten)]
    pub entry: Entry,
    pub category: Category,
    #[serde(with = "timestamp::serde_utc")]
    pub removed_at: DateTime<Utc>,
    pub reason: RemovalReason,
}

/// A new entry.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Added {
    pub id: String,
    pub category: Category,
    pub summary: String,
    pub thread: ThreadName,
    pub kind: Kind,
    pub importance: u8,
    /// How many findings of this tick were merged into it.
    pub findings: usize,
}

/// A change of strength of an entry that stays.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StrengthChange {
    pub id: String,
    pub category: Category,
    pub from: u8,
    pub to: u8,
}

/// What happened to one thread's state.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ThreadChange {
    pub thread: ThreadName,
    pub status: Status,
    pub pressure_from: u8,
    pub pressure_to: u8,
    pub focus_hint: String,
}

/// A `reinforce` id that names no entry (reported, otherwise ignored).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UnknownId {
    pub thread: ThreadName,
    pub id: String,
}

/// Why an entry was seen again this tick (for `thinker explain`).
#[derive(Clone, Debug, PartialEq)]
pub enum SightingBy {
    /// The agent marked it `used`.
    Agent,
    /// A thread listed its id in `reinforce`.
    Listed { thread: ThreadName },
    /// A thread's finding matched it, with this similarity.
    Matched {
        thread: ThreadName,
        summary: String,
        similarity: f64,
    },
}

/// One reason an entry was reinforced this tick (an entry may be seen several times; it
/// is reinforced once).
#[derive(Clone, Debug, PartialEq)]
pub struct Sighting {
    pub id: String,
    pub by: SightingBy,
}

/// Everything the aggregator changed, for the journal, `--dry-run` and `--json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Report {
    /// False when no thread answered: the state was left exactly as it was (SPEC §4.6).
    pub applied: bool,
    pub added: Vec<Added>,
    pub reinforced: Vec<StrengthChange>,
    /// Entries that lost strength and stayed ("decayed" always means removed at 0).
    pub weakened: Vec<StrengthChange>,
    /// Entries removed this tick, each as archived.
    pub removed: Vec<Archived>,
    pub threads: Vec<ThreadChange>,
    pub unknown_reinforce: Vec<UnknownId>,
    /// Records added to the escalation history this tick (pending or suppressed).
    pub escalations: Vec<EscalationRecord>,
    /// `{"ESCALATE": true, "reason", "context", "subconscious"}` when an escalation is due.
    pub envelope: Option<escalation::Envelope>,
    /// How much of the memory this tick archived.
    pub memory: MemoryChange,
    /// What the agent's verdicts did (rule 9).
    #[serde(skip_serializing_if = "feedback::FeedbackReport::is_empty")]
    pub feedback: feedback::FeedbackReport,
    /// Why each reinforced entry was seen (`thinker explain`; not in `--json`).
    #[serde(skip)]
    pub sightings: Vec<Sighting>,
}

/// How much of the memory a tick archived. Entries added and archived in the same tick
/// were never part of the memory and do not count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MemoryChange {
    /// Entries in the memory (the four categories) when the tick began.
    pub before: usize,
    /// Entries in it after the tick.
    pub after: usize,
    /// Of the entries of `before`, how many the tick archived, for any reason…
    pub archived: usize,
    /// …of which decayed, pruned over a cap, or removed for the budget.
    pub decayed: usize,
    pub pruned: usize,
    pub budget: usize,
    /// Entries the agent rejected: not counted in `archived` (its own decision, not
    /// memory lost to the rules), so they never raise the warning.
    #[serde(skip_serializing_if = "is_zero")]
    pub rejected: usize,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl MemoryChange {
    /// The warning when the tick archived more than half of the memory: at least 2
    /// entries were in it and more than half of them were archived.
    pub fn warning(&self) -> Option<String> {
        if self.before < 2 || self.archived * 2 <= self.before {
            return None;
        }
        let reasons = [
            ("decayed", self.decayed),
            ("pruned over a cap", self.pruned),
            ("over the token budget", self.budget),
        ]
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(why, n)| format!("{why} {n}"))
        .collect::<Vec<_>>()
        .join(", ");
        Some(format!(
            "this tick archived {} of the {} entries in memory ({reasons}); they are in archive.jsonl. If the memory should keep more, raise [memory] token_budget or caps in the config",
            self.archived, self.before
        ))
    }
}

impl Report {
    pub fn removed_ids(&self, reason: RemovalReason) -> Vec<String> {
        self.removed
            .iter()
            .filter(|a| a.reason == reason)
            .map(|a| a.entry.id.clone())
            .collect()
    }
}

/// The state as the threads are shown it: cut to the caps, as the first step of
/// [`aggregate`] will cut it, so that a state loaded over its caps (hand-edited, or
/// written under larger caps) never puts more than the caps into a prompt. Borrowed when
/// nothing is over a cap.
pub fn as_seen<'a>(
    state: &'a State,
    now: DateTime<Utc>,
    settings: &Settings,
) -> std::borrow::Cow<'a, State> {
    let over = Category::ALL
        .into_iter()
        .any(|c| state.entries(c).len() > settings.caps.of(c));
    if !over {
        return std::borrow::Cow::Borrowed(state);
    }
    let mut seen = state.clone();
    prune::caps(&mut seen, now, settings, &mut Report::default());
    std::borrow::Cow::Owned(seen)
}

/// Applies one tick's thread results and the agent's verdicts (`feedback.jsonl`, in the
/// order written) to `state` at `now` (SPEC §7). When no thread answered nothing is
/// applied, verdicts included: they wait for the next tick that applies.
pub fn aggregate(
    state: &State,
    results: &[ThreadOutcome; 4],
    verdicts: &[feedback::Verdict],
    now: DateTime<Utc>,
    settings: &Settings,
) -> (State, Report) {
    let now = timestamp::truncate(now);
    let mut report = Report::default();
    if !results
        .iter()
        .any(|r| matches!(r, ThreadOutcome::Answered(_)))
    {
        report.threads = threads::unchanged(state, results);
        report.memory.before = state.entry_count();
        report.memory.after = report.memory.before;
        return (state.clone(), report);
    }
    report.applied = true;
    let mut next = state.clone();

    // A state over its caps is cut first, so that matching works on at most the caps.
    prune::caps(&mut next, now, settings, &mut report);
    let agent = feedback::apply(&mut next, verdicts, now, settings, &mut report);
    let unmatched = reinforce::apply(&mut next, results, &agent.used, now, settings, &mut report);
    let unmatched = feedback::screen(unmatched, &agent.rejected, settings, &mut report);
    add::apply(&mut next, unmatched, now, settings, &mut report);
    threads::apply(&mut next, results, &mut report);
    escalation::record(&mut next, results, now, settings, &mut report);
    bounds::apply(&mut next);
    next.last_tick = Some(now);
    next.tick_count = next.tick_count.saturating_add(1);
    let old_removed = report.removed.len();
    prune::apply(&mut next, now, settings, &mut report);
    report.envelope = escalation::envelope(&next, results, &report);
    report.memory = memory_change(state, &next, &report, old_removed);
    (next, report)
}

/// Counts what left the memory. Until the last prune only loaded entries can be removed;
/// the last prune may also remove entries added this tick, whose ids are those of
/// `report.added` (ids are unique within the state at that point).
fn memory_change(
    before: &State,
    after: &State,
    report: &Report,
    old_removed: usize,
) -> MemoryChange {
    let added: std::collections::HashSet<&str> =
        report.added.iter().map(|a| a.id.as_str()).collect();
    let mut change = MemoryChange {
        before: before.entry_count(),
        after: after.entry_count(),
        ..MemoryChange::default()
    };
    for (n, archived) in report.removed.iter().enumerate() {
        if n >= old_removed && added.contains(archived.entry.id.as_str()) {
            continue;
        }
        match archived.reason {
            RemovalReason::Rejected => {
                change.rejected += 1;
                continue;
            }
            RemovalReason::Decayed => change.decayed += 1,
            RemovalReason::Pruned => change.pruned += 1,
            RemovalReason::Budget => change.budget += 1,
        }
        change.archived += 1;
    }
    change
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warns_when_more_than_half_of_at_least_two_entries_left() {
        let change = |before, archived| MemoryChange {
            before,
            after: before - archived,
            archived,
            budget: archived,
            ..MemoryChange::default()
        };
        for (before, archived, warns) in [
            (0, 0, false),
            (1, 1, false),
            (2, 1, false),
            (2, 2, true),
            (3, 2, true),
            (4, 2, false),
            (18, 10, true),
        ] {
            assert_eq!(
                change(before, archived).warning().is_some(),
                warns,
                "{archived} of {before}"
            );
        }
        let text = change(3, 2).warning().unwrap_or_default();
        assert!(
            text.contains("2 of the 3 entries") && text.contains("over the token budget 2"),
            "{text}"
        );
    }
}
