//! The aggregator of SPEC §7: state, the four thread results, `now` and settings in; the
//! new state and a report out. Its input per thread is a [`ThreadOutcome`] ([`outcome`]),
//! the same value the journal line is built from.
//!
//! Pure and deterministic: no I/O, no clock, no randomness, no model call. Same input,
//! same output. Each rule lives in its own file:
//! [`reinforce`] (matching, decay by time and reinforcement, importance, provenance,
//! moved dues), [`retire`] (rule 10), [`links`] (rule 12), [`add`] (same-tick grouping and routing), [`ids`],
//! [`prune`] (caps and the token budget of the memory, pinned entries last), [`threads`]
//! (thread state), [`escalation`] (records, cooldown, the envelope), [`feedback`] (the
//! agent's verdicts, rule 9); [`bounds`] keeps the bookkeeping (thread state, escalation
//! history) within its own limits.
//!
//! Order of application (recorded in ARCHITECTURE.md): caps on the loaded state (so a
//! state far over them is cut before anything is matched against it), the agent's
//! verdicts (`wrong` removed, `used` marked seen), decay+reinforce, retire, links,
//! findings matching a rejected summary dropped, add, thread state, escalation, bounds on
//! the bookkeeping, tick metadata, then caps and the budget of the memory, and last the
//! links whose other end left. The report
//! counts how much of the memory the tick archived ([`MemoryChange`]): ordinary
//! bookkeeping, journaled, never a warning (SPEC §7.5).

pub mod add;
pub mod bounds;
pub mod consolidate;
pub mod escalation;
pub mod feedback;
pub mod identity;
pub mod ids;
pub mod links;
pub mod outcome;
pub mod prune;
pub mod reinforce;
pub mod retire;
pub mod threads;
pub mod told;

use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;

use crate::state::{Category, EscalationRecord, State, Strength};
use crate::thread::{Kind, ThreadName};
use crate::timestamp;

pub use crate::archive::{Archived, RemovalReason};
pub use outcome::{Skip, Status, ThreadError, ThreadOutcome};

/// The version of the memory rules (SPEC §7) this aggregator implements: journaled with
/// every tick, so a replay never compares states made under other rules. Version 1 was
/// decay per tick, caps 5/5/5/3; version 2 is SPEC's state version 2 (decay by time,
/// importance, pinned dues, retire, provenance); version 3 matches by identity and
/// references, merges near-duplicates, prunes by value and keeps the told ledger;
/// version 4 also compares an entry by the other wordings of its fact (`said`)
/// (docs/spec.md §7, §8).
pub const RULES: u32 = 4;

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
            active_threads: 20,
            patterns: 8,
            hunches: 6,
            insights: 4,
        }
    }
}

/// How fast each category decays: seconds for one point of strength (SPEC §7.1,
/// `memory.decay_hours`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Decay {
    pub active_threads: i64,
    pub patterns: i64,
    pub hunches: i64,
    pub insights: i64,
}

impl Decay {
    /// Seconds per point of `cat` (at least 1).
    pub fn of(&self, cat: Category) -> i64 {
        match cat {
            Category::ActiveThreads => self.active_threads,
            Category::Patterns => self.patterns,
            Category::Hunches => self.hunches,
            Category::Insights => self.insights,
        }
        .max(1)
    }

    /// From hours per point.
    pub fn hours(active_threads: f64, patterns: f64, hunches: f64, insights: f64) -> Decay {
        let secs = |h: f64| ((h * 3600.0).round() as i64).max(1);
        Decay {
            active_threads: secs(active_threads),
            patterns: secs(patterns),
            hunches: secs(hunches),
            insights: secs(insights),
        }
    }
}

impl Default for Decay {
    fn default() -> Self {
        Decay::hours(2.0, 12.0, 4.0, 12.0)
    }
}

/// The tunables of the rules; defaults are those of SPEC §7.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The similarity at or above which two summaries without a shared reference are
    /// one fact (`memory.match_threshold`, [`identity`]).
    pub match_threshold: f64,
    /// The similarity a finding that cites an entry's item needs to be that entry.
    pub ref_match_threshold: f64,
    pub caps: Caps,
    /// Hours per point of strength, per category (decay is charged by time).
    pub decay: Decay,
    /// At most this much time is charged between two applied ticks: time in which
    /// thinker was not thinking does not erode the memory.
    pub max_decay_gap: TimeDelta,
    /// An entry with a `due` is pinned (not charged, pruned last) until this long after it.
    pub due_grace: TimeDelta,
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

impl Settings {
    /// The thresholds of [`identity::Score::same`].
    pub fn thresholds(&self) -> identity::Thresholds {
        identity::Thresholds {
            text: self.match_threshold,
            with_ref: self.ref_match_threshold,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            match_threshold: identity::DEFAULT_THRESHOLD,
            ref_match_threshold: identity::DEFAULT_REF_THRESHOLD,
            caps: Caps::default(),
            decay: Decay::default(),
            max_decay_gap: TimeDelta::minutes(60),
            due_grace: TimeDelta::hours(6),
            token_budget: 5000,
            escalation_cooldown: TimeDelta::minutes(60),
            escalation_history: 10,
            dismiss_memory: TimeDelta::hours(24),
            min_importance: 3,
            rejected_memory: TimeDelta::hours(72),
        }
    }
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
    /// Its provenance (`thread/source`), as the entry records it.
    pub from: Vec<String>,
}

/// A change of strength of an entry that stays.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StrengthChange {
    pub id: String,
    pub category: Category,
    pub from: Strength,
    pub to: Strength,
}

/// An entry's `due` moved by a matching finding that carried another (SPEC §7.1).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DueMove {
    pub id: String,
    pub thread: ThreadName,
    #[serde(with = "timestamp::serde_utc_opt")]
    pub from: Option<DateTime<Utc>>,
    #[serde(with = "timestamp::serde_utc")]
    pub to: DateTime<Utc>,
}

/// A `retire` the aggregator did not carry out (SPEC §7.10).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RetireRefused {
    pub thread: ThreadName,
    pub id: String,
    /// `unknown` (no such entry) or `screened` (the thread's sources carried a screen
    /// detection this tick: hostile text must not erase memory).
    pub why: &'static str,
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
    /// A thread's finding matched it, with this similarity and provenance.
    Matched {
        thread: ThreadName,
        summary: String,
        similarity: f64,
        from: String,
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
    /// Dues moved by a matching finding.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub moved: Vec<DueMove>,
    /// Retires not carried out (unknown ids, screened threads).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub retire_refused: Vec<RetireRefused>,
    /// Links made this tick (rule 12).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub linked: Vec<links::Linked>,
    /// Links not made, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub links_refused: Vec<links::LinkRefused>,
    /// Entries that were one fact with another, merged into it (rule 13).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub merged: Vec<consolidate::Merged>,
    /// Links that went: an end left the memory, or was pushed out past the cap.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unlinked: Vec<links::Unlinked>,
    /// Records added to the escalation history this tick (pending or suppressed).
    pub escalations: Vec<EscalationRecord>,
    /// Re-escalations of a matter already told or on its way, folded into it (§8).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub folded: Vec<escalation::Folded>,
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
    /// memory lost to the rules).
    #[serde(skip_serializing_if = "is_zero")]
    pub rejected: usize,
    /// Entries a thread retired: not counted in `archived` either (a decision about the
    /// world, not memory lost to the rules).
    #[serde(skip_serializing_if = "is_zero")]
    pub retired: usize,
    /// Entries merged into another (rule 13): nothing of them is lost.
    #[serde(skip_serializing_if = "is_zero")]
    pub merged: usize,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero(n: &usize) -> bool {
    *n == 0
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
    retire::apply(&mut next, results, now, &mut report);
    links::apply(&mut next, results, &mut report);
    let unmatched = feedback::screen(unmatched, &agent.rejected, settings, &mut report);
    add::apply(&mut next, unmatched, now, settings, &mut report);
    consolidate::apply(&mut next, now, settings, &mut report);
    threads::apply(&mut next, results, &mut report);
    escalation::record(&mut next, results, now, settings, &mut report);
    bounds::apply(&mut next);
    next.last_tick = Some(now);
    next.tick_count = next.tick_count.saturating_add(1);
    let old_removed = report.removed.len();
    prune::apply(&mut next, now, settings, &mut report);
    links::unlink_departed(&mut next, &mut report);
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
            RemovalReason::Retired(_) => {
                change.retired += 1;
                continue;
            }
            RemovalReason::Merged => {
                change.merged += 1;
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
