//! `thinker explain ID`: the life of one entry, read off a replay of the journal — the
//! finding it came from, every time it was seen again (by which thread, from which
//! finding, or by the agent's word), its strength tick by tick, and how it left.
//!
//! Pure: frames and the journal in, a [`Life`] out; rendering is `cmd::explain`'s.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::{Frame, Journal, Run};
use crate::aggregate::{RemovalReason, SightingBy};
use crate::state::Category;
use crate::thread::{Kind, ThreadName};
use crate::timestamp;

/// Where an entry came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Origin {
    #[serde(with = "timestamp::serde_utc")]
    pub time: DateTime<Utc>,
    pub run: u64,
    pub category: Category,
    pub thread: ThreadName,
    pub kind: Kind,
    pub summary: String,
    pub importance: u8,
    /// Findings of that tick merged into it (1: only its own).
    pub findings: usize,
    /// Provenance: `thread/source` of those findings.
    pub from: Vec<String>,
}

/// Why an entry was seen again.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "by", rename_all = "lowercase")]
pub enum Seen {
    /// The agent said it was used (`thinker feedback ID used`).
    Agent,
    /// A thread listed its id in `reinforce`.
    Thread { thread: ThreadName },
    /// A thread's finding matched its summary.
    Finding {
        thread: ThreadName,
        summary: String,
        similarity: f64,
        /// `thread/source` or the thread.
        from: String,
    },
}

/// One tick in the entry's life.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Step {
    #[serde(with = "timestamp::serde_utc")]
    pub time: DateTime<Utc>,
    pub run: u64,
    /// Its strength after the tick (on the tick it left: its strength when it left).
    pub strength: crate::state::Strength,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub seen: Vec<Seen>,
    /// Links made to it this tick (SPEC §7.12): the other end, the kind, by which thread.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub linked: Vec<LinkEvent>,
    /// Links of it that went this tick: the other end, the kind, why (`left`, `replaced`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unlinked: Vec<LinkEvent>,
    /// Its `due` moved this tick (SPEC §7.1), to this.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "timestamp::serde_utc_opt"
    )]
    pub due_moved_to: Option<DateTime<Utc>>,
}

/// A link made or gone, seen from one end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LinkEvent {
    pub other: String,
    pub kind: crate::state::LinkKind,
    /// The thread that made it (made), or why it went (gone).
    pub by: String,
}

/// What the entry is now, when it is still in memory at the end of the replay.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Now {
    pub strength: crate::state::Strength,
    pub importance: u8,
    pub sightings: u32,
    pub from: Vec<String>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "timestamp::serde_utc_opt"
    )]
    pub due: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub tainted: bool,
}

/// How it left.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Departure {
    #[serde(with = "timestamp::serde_utc")]
    pub time: DateTime<Utc>,
    pub run: u64,
    pub reason: RemovalReason,
    pub strength: crate::state::Strength,
    /// The agent's note, when it was rejected with one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The entry it was merged into (rule 13).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub into: Option<String>,
}

/// One stay of the entry (an id can be taken again after it left).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Life {
    pub id: String,
    pub summary: String,
    /// `None`: it was already there when the replay started.
    pub origin: Option<Origin>,
    pub steps: Vec<Step>,
    pub departure: Option<Departure>,
    /// Still in memory at the end: what it is now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub now: Option<Now>,
}

/// The lives of `id` in `run` (empty: the journal never had it).
pub fn explain(id: &str, run: &Run, journal: &Journal) -> Vec<Life> {
    let mut lives: Vec<Life> = Vec::new();
    let mut open: Option<Life> = run.start.as_ref().and_then(|s| {
        s.all_entries()
            .find(|(_, e)| e.id == id)
            .map(|(_, e)| Life {
                id: id.to_string(),
                summary: e.summary.clone(),
                origin: None,
                steps: Vec::new(),
                departure: None,
                now: None,
            })
    });
    for frame in &run.frames {
        if let Some(archived) = frame.report.removed.iter().find(|a| a.entry.id == id) {
            let mut life = open.take().unwrap_or_else(|| Life {
                id: id.to_string(),
                summary: archived.entry.summary.clone(),
                origin: origin(frame, id),
                steps: Vec::new(),
                departure: None,
                now: None,
            });
            life.steps.push(step(frame, id, archived.entry.strength));
            life.departure = Some(Departure {
                time: frame.time,
                run: frame.run,
                reason: archived.reason,
                strength: archived.entry.strength,
                note: note(frame, id, journal),
                into: frame
                    .report
                    .merged
                    .iter()
                    .find(|m| m.id == id)
                    .map(|m| m.into.clone()),
            });
            lives.push(life);
            // Added again in the same tick under the freed id: a new life.
            if frame.report.added.iter().any(|a| a.id == id) && archived.entry.created != frame.time
            {
                open = new_life(frame, id);
            }
            continue;
        }
        if open.is_none() {
            open = new_life(frame, id).or_else(|| already_there(frame, id, journal));
        }
        if let Some(life) = open.as_mut() {
            let strength = frame
                .points
                .iter()
                .find(|p| p.id == id)
                .map_or(crate::state::Strength::ZERO, |p| p.strength);
            life.steps.push(step(frame, id, strength));
        }
    }
    if let Some(mut life) = open {
        life.now = run.end.as_ref().and_then(|s| {
            s.all_entries().find(|(_, e)| e.id == id).map(|(_, e)| Now {
                strength: e.strength,
                importance: e.importance,
                sightings: e.sightings,
                from: e.from.clone(),
                due: e.due,
                tainted: e.tainted,
            })
        });
        lives.push(life);
    }
    lives
}

fn new_life(frame: &Frame, id: &str) -> Option<Life> {
    let added = frame.report.added.iter().find(|a| a.id == id)?;
    Some(Life {
        id: id.to_string(),
        summary: added.summary.clone(),
        origin: origin(frame, id),
        steps: Vec::new(),
        departure: None,
        now: None,
    })
}

/// A life that began before the replay's first tick: the entry is in the state the
/// journal recorded as this tick's start (its `base`).
fn already_there(frame: &Frame, id: &str, journal: &Journal) -> Option<Life> {
    frame.points.iter().find(|p| p.id == id)?;
    let base = journal.ticks.get(frame.tick)?.line.base.as_deref()?;
    let (_, e) = base.all_entries().find(|(_, e)| e.id == id)?;
    Some(Life {
        id: id.to_string(),
        summary: e.summary.clone(),
        origin: None,
        steps: Vec::new(),
        departure: None,
        now: None,
    })
}

fn origin(frame: &Frame, id: &str) -> Option<Origin> {
    let added = frame.report.added.iter().find(|a| a.id == id)?;
    Some(Origin {
        time: frame.time,
        run: frame.run,
        category: added.category,
        thread: added.thread,
        kind: added.kind,
        summary: added.summary.clone(),
        importance: added.importance,
        findings: added.findings,
        from: added.from.clone(),
    })
}

fn step(frame: &Frame, id: &str, strength: crate::state::Strength) -> Step {
    let seen = frame
        .report
        .sightings
        .iter()
        .filter(|s| s.id == id)
        .map(|s| match &s.by {
            SightingBy::Agent => Seen::Agent,
            SightingBy::Listed { thread } => Seen::Thread { thread: *thread },
            SightingBy::Matched {
                thread,
                summary,
                similarity,
                from,
            } => Seen::Finding {
                thread: *thread,
                summary: summary.clone(),
                similarity: (similarity * 100.0).round() / 100.0,
                from: from.clone(),
            },
        })
        .collect();
    Step {
        time: frame.time,
        run: frame.run,
        strength,
        seen,
        due_moved_to: frame.report.moved.iter().find(|m| m.id == id).map(|m| m.to),
        linked: frame
            .report
            .linked
            .iter()
            .filter_map(|l| {
                let other = other_end(&l.a, &l.b, id)?;
                Some(LinkEvent {
                    other: other.to_string(),
                    kind: l.kind,
                    by: l.thread.as_str().to_string(),
                })
            })
            .collect(),
        unlinked: frame
            .report
            .unlinked
            .iter()
            .filter_map(|l| {
                let other = other_end(&l.a, &l.b, id)?;
                Some(LinkEvent {
                    other: other.to_string(),
                    kind: l.kind,
                    by: l.why.to_string(),
                })
            })
            .collect(),
    }
}

/// The end of a link `a`–`b` that is not `id` (None: `id` is neither).
fn other_end<'a>(a: &'a str, b: &'a str, id: &str) -> Option<&'a str> {
    if a == id {
        Some(b)
    } else if b == id {
        Some(a)
    } else {
        None
    }
}

/// The agent's note on a rejection, from the verdicts the tick took.
fn note(frame: &Frame, id: &str, journal: &Journal) -> Option<String> {
    journal
        .ticks
        .get(frame.tick)?
        .line
        .verdicts
        .iter()
        .rev()
        .find(|v| v.id == id)
        .and_then(|v| v.note.clone())
}
