//! Replay: the journal's recorded ticks re-run through the aggregator, to check
//! that the recorded states are reproduced exactly and to see what other settings would
//! have made of the same history — without calling a model or writing a file.
//!
//! Owns: following the journal's chain of states ([`run`]: start from a recorded `base`,
//! apply each tick's recorded answers and verdicts with [`aggregate::aggregate`], apply
//! the escalation phase's recorded records, check each result against the digest the
//! tick recorded), the frames `explain` and `report` are drawn from, and the comparison
//! of two runs ([`diff`]). Reading the journal is [`crate::journal::read::strict`]; `--set` is [`overrides`];
//! one entry's life is [`explain`].
//!
//! Must not: write, lock or touch the state directory; call a provider; read the clock
//! (every instant comes from the journal); decide anything the aggregator decides.

pub mod diff;
pub mod explain;
pub mod overrides;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::aggregate::{self, Report, Settings, Skip, ThreadError, ThreadOutcome};
use crate::state::{Category, EscalationRecord, State};
use crate::thread::ThreadName;
use crate::timestamp;

/// The journal as a replay reads it: strictly ([`crate::journal::read::strict`]).
pub use crate::journal::read::{Stop, Strict as Journal, Tick};
use crate::journal::{JournalLine, Status};

/// One entry's strength after a tick.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Point {
    pub id: String,
    pub category: Category,
    pub strength: crate::state::Strength,
}

/// What a replayed tick did.
#[derive(Clone, Debug)]
pub struct Frame {
    pub time: DateTime<Utc>,
    pub run: u64,
    /// The aggregator's report for the tick (with why each entry was seen again).
    pub report: Report,
    /// Every entry after the tick, in state order.
    pub points: Vec<Point>,
    /// Escalation records the tick's escalation phase left (its decisions, deliveries).
    pub settled: Vec<EscalationRecord>,
    /// The recorded tick (index into the journal's ticks).
    pub tick: usize,
    /// The whole state after the tick, when asked for ([`Keep::States`]).
    pub state: Option<State>,
}

/// What a run keeps of each tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Nothing but the end state and the check.
    Nothing,
    /// A [`Frame`] per tick (for the comparison, `explain`, `report`).
    Frames,
    /// Frames with the whole state after each tick (tests, tools).
    States,
}

/// A recorded digest the replay did not reproduce.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    pub run: u64,
    #[serde(with = "timestamp::serde_utc")]
    pub time: DateTime<Utc>,
    /// `tick` (after the aggregator) or `escalation` (after the escalation phase).
    pub phase: &'static str,
    pub recorded: String,
    pub replayed: String,
}

/// How faithful the replay was to what was recorded.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Check {
    /// Recorded states compared (a tick and its escalation phase each count).
    pub checked: usize,
    pub reproduced: usize,
    /// Ticks that could not be replayed (no answers recorded, no state to start from).
    pub not_replayed: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_mismatch: Option<Mismatch>,
}

impl Check {
    pub fn faithful(&self) -> bool {
        self.first_mismatch.is_none()
    }

    fn add(&mut self, other: &Check) {
        self.checked += other.checked;
        self.reproduced += other.reproduced;
        self.not_replayed += other.not_replayed;
        if self.first_mismatch.is_none() {
            self.first_mismatch.clone_from(&other.first_mismatch);
        }
    }
}

/// How a run treats the journal's recorded states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Follow {
    /// The settings the journal was recorded with: pick up every recorded base (a state
    /// changed outside thinker) and check every digest.
    Recorded,
    /// Other settings: a base is used only to start; the run keeps its own states and
    /// nothing is checked.
    Own,
}

/// A replayed stretch of the journal.
#[derive(Clone, Debug, Default)]
pub struct Run {
    /// Frames, one per replayed tick (empty unless asked for).
    pub frames: Vec<Frame>,
    /// The state the run started from (`None`: it started at a recorded base).
    pub start: Option<State>,
    /// The state it ended with (`None`: nothing could be replayed).
    pub end: Option<State>,
    pub check: Check,
    /// What people should know: where the replay started, gaps, states picked up.
    pub notes: Vec<String>,
    /// Ticks replayed.
    pub ticks: usize,
}

/// The recorded outcomes of a tick's threads, as the aggregator takes them (a failure's
/// or skip's detail does not matter to it: only answers do).
fn outcomes(tick: &Tick) -> [ThreadOutcome; 4] {
    ThreadName::ALL.map(
        |name| match tick.line.threads.iter().find(|t| t.thread == name) {
            Some(t) => match (&t.answer, &t.status) {
                (Some(answer), _) => ThreadOutcome::Answered(answer.clone()),
                (None, Status::Failed) => {
                    ThreadOutcome::Failed(ThreadError::Call(t.error.clone().unwrap_or_default()))
                }
                (None, _) => ThreadOutcome::Skipped(Skip::Disabled),
            },
            None => ThreadOutcome::Skipped(Skip::Disabled),
        },
    )
}

/// Applies the escalation phase's records (as it left them) to the history: each
/// replaces the record of the same instant and thread. Returns those applied.
fn settle(state: &mut State, records: &[EscalationRecord]) -> Vec<EscalationRecord> {
    let mut applied = Vec::new();
    for record in records {
        if let Some(mine) = state
            .escalation_history
            .iter_mut()
            .find(|r| r.timestamp == record.timestamp && r.thread == record.thread)
        {
            mine.clone_from(record);
            applied.push(record.clone());
        }
    }
    applied
}

/// Entries of `state` as points.
pub fn points(state: &State) -> Vec<Point> {
    state
        .all_entries()
        .map(|(category, e)| Point {
            id: e.id.clone(),
            category,
            strength: e.strength,
        })
        .collect()
}

/// Re-runs `ticks` (indices `offset..` of the journal) from `start` with `settings`.
pub fn run(
    ticks: &[Tick],
    offset: usize,
    start: Option<State>,
    settings: &Settings,
    follow: Follow,
    keep: Keep,
) -> Run {
    let mut out = Run {
        start: start.clone(),
        ..Run::default()
    };
    let mut current = start;
    let mut gap_noted = false;
    for (i, tick) in ticks.iter().enumerate() {
        let line = &tick.line;
        let when = format!("run {} ({})", line.run, timestamp::format(line.time));
        if let Some(base) = tick.line.base.as_deref() {
            match &current {
                None => {
                    if out.ticks > 0 || gap_noted {
                        out.notes.push(format!(
                            "picked up again at {when}, from the state recorded there"
                        ));
                    }
                    current = Some(base.clone());
                }
                Some(mine) if follow == Follow::Recorded && mine.digest() != base.digest() => {
                    out.notes.push(format!(
                        "the state was changed outside thinker before {when} (restored, edited, or a write failed): the replay follows the state recorded there"
                    ));
                    current = Some(base.clone());
                }
                Some(_) => {}
            }
        }
        if let Some(why) = unreplayable(tick, &when) {
            if !gap_noted {
                out.notes.push(why);
                gap_noted = true;
            }
            out.check.not_replayed += 1;
            if follow == Follow::Recorded {
                current = None;
            }
            continue;
        }
        let Some(state) = current.take() else {
            if !gap_noted {
                out.notes.push(format!(
                    "{when}: the state it started from is not in the journal (older files removed?): not replayed until a tick that records its starting state"
                ));
                gap_noted = true;
            }
            out.check.not_replayed += 1;
            continue;
        };
        gap_noted = false;
        let results = outcomes(tick);
        let (mut next, report) =
            aggregate::aggregate(&state, &results, &line.verdicts, line.time, settings);
        if !report.applied {
            next = state;
        }
        if follow == Follow::Recorded {
            verify(&mut out.check, line.state.as_deref(), &next, line, "tick");
        }
        let settled = match &tick.escalation {
            Some(esc) => {
                let applied = settle(&mut next, &esc.escalation.records);
                if follow == Follow::Recorded {
                    verify(
                        &mut out.check,
                        esc.state.as_deref(),
                        &next,
                        line,
                        "escalation",
                    );
                }
                applied
            }
            None => Vec::new(),
        };
        out.ticks += 1;
        if keep != Keep::Nothing {
            out.frames.push(Frame {
                state: (keep == Keep::States).then(|| next.clone()),
                time: line.time,
                run: line.run,
                points: points(&next),
                report,
                settled,
                tick: offset + i,
            });
        }
        current = Some(next);
    }
    out.end = current;
    out
}

/// Why a recorded tick cannot be replayed, if it cannot: it was recorded under other
/// memory rules, or before answers were recorded.
fn unreplayable(tick: &Tick, when: &str) -> Option<String> {
    let rules = tick.line.rules;
    if rules != aggregate::RULES {
        return Some(format!(
            "{when} was recorded under version {rules} of the memory rules (this thinker applies version {}): not replayed until a tick of version {} that records its starting state",
            aggregate::RULES,
            aggregate::RULES
        ));
    }
    (!tick.line.has_answers()).then(|| format!(
        "{when} has no recorded answers (a journal written before thinker recorded them): not replayed until a tick that records its starting state"
    ))
}

fn verify(
    check: &mut Check,
    recorded: Option<&str>,
    state: &State,
    line: &JournalLine,
    phase: &'static str,
) {
    let Some(recorded) = recorded else {
        return;
    };
    check.checked += 1;
    let replayed = state.digest();
    if replayed == recorded {
        check.reproduced += 1;
    } else if check.first_mismatch.is_none() {
        check.first_mismatch = Some(Mismatch {
            run: line.run,
            time: line.time,
            phase,
            recorded: recorded.to_string(),
            replayed,
        });
    }
}

/// The replay of a window of the journal: first with the recorded settings (checked),
/// then, when asked, with other settings from the same starting state.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The window's first tick (index into the journal's ticks).
    pub first: usize,
    pub current: Run,
    pub overridden: Option<Run>,
    /// The faithfulness check over the whole journal read (the window and before it).
    pub check: Check,
}

/// Replays the journal's ticks at or after `since` (all when `None`): the ticks before
/// it are replayed only to find the window's starting state.
pub fn replay(
    journal: &Journal,
    since: Option<DateTime<Utc>>,
    current: &Settings,
    overridden: Option<&Settings>,
    keep: Keep,
) -> Replay {
    let first = since.map_or(0, |since| {
        journal
            .ticks
            .iter()
            .position(|t| t.line.time >= since)
            .unwrap_or(journal.ticks.len())
    });
    let (before, window) = journal.ticks.split_at(first);
    let lead = run(before, 0, None, current, Follow::Recorded, Keep::Nothing);
    let start = lead.end.clone();
    let mut current_run = run(
        window,
        first,
        start.clone(),
        current,
        Follow::Recorded,
        keep,
    );
    let mut check = lead.check.clone();
    check.add(&current_run.check);
    let mut notes = lead.notes;
    notes.append(&mut current_run.notes);
    current_run.notes = notes;
    let overridden =
        overridden.map(|settings| run(window, first, start, settings, Follow::Own, keep));
    Replay {
        first,
        current: current_run,
        overridden,
        check,
    }
}
