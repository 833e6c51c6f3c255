//! What a replay under other settings changed: the lives of entries (born, how long they
//! lasted, how they left), escalations raised and suppressed per local day (with the
//! daily cap and quiet hours of each side), and the final subconscious of each run.
//!
//! Pure: runs and settings in, a [`Diff`] out; rendering is `cmd::replay`'s.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, NaiveDate, TimeDelta, Utc};
use serde::Serialize;

use super::Run;
use crate::aggregate::RemovalReason;
use crate::clock::Zone;
use crate::config::EscalationConfig;
use crate::state::{Category, EscalationOutcome, State};
use crate::timestamp;

/// One stay of an entry in the memory.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Life {
    pub id: String,
    pub category: Category,
    pub summary: String,
    #[serde(with = "timestamp::serde_utc")]
    pub born: DateTime<Utc>,
    /// When and why it left; `None`: still there at the end.
    #[serde(with = "timestamp::serde_utc_opt")]
    pub left: Option<DateTime<Utc>>,
    pub reason: Option<RemovalReason>,
    /// Seconds from `born` to `left` (or to the end of the window).
    pub seconds: i64,
}

/// The lives of a run's entries: those of its starting state and those added, in order
/// of birth. `end` closes the lives still open.
pub fn lives(run: &Run, end: DateTime<Utc>) -> Vec<Life> {
    let mut done: Vec<Life> = Vec::new();
    let mut open: BTreeMap<String, Life> = BTreeMap::new();
    if let Some(start) = &run.start {
        for (category, e) in start.all_entries() {
            open.insert(
                e.id.clone(),
                Life {
                    id: e.id.clone(),
                    category,
                    summary: e.summary.clone(),
                    born: e.created,
                    left: None,
                    reason: None,
                    seconds: 0,
                },
            );
        }
    }
    for frame in &run.frames {
        // Removals first: an id freed this tick may be taken again by an addition.
        for archived in &frame.report.removed {
            let id = &archived.entry.id;
            let mut life = open.remove(id).unwrap_or_else(|| Life {
                id: id.clone(),
                category: archived.category,
                summary: archived.entry.summary.clone(),
                born: archived.entry.created,
                left: None,
                reason: None,
                seconds: 0,
            });
            life.left = Some(frame.time);
            life.reason = Some(archived.reason);
            done.push(life);
        }
        for added in &frame.report.added {
            // Added and removed in the same tick: its life is already done.
            if done
                .iter()
                .rev()
                .take(frame.report.removed.len())
                .any(|l| l.id == added.id && l.left == Some(frame.time) && l.born == frame.time)
            {
                continue;
            }
            open.insert(
                added.id.clone(),
                Life {
                    id: added.id.clone(),
                    category: added.category,
                    summary: added.summary.clone(),
                    born: frame.time,
                    left: None,
                    reason: None,
                    seconds: 0,
                },
            );
        }
    }
    done.extend(open.into_values());
    for life in &mut done {
        life.seconds = (life.left.unwrap_or(end) - life.born).num_seconds().max(0);
    }
    done.sort_by(|a, b| (a.born, &a.id).cmp(&(b.born, &b.id)));
    done
}

/// Escalations of one side on one local day.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DayEscalations {
    /// Raised for the primary model to decide.
    pub raised: usize,
    /// Suppressed without a call (a duplicate within the cooldown, dismissed recently).
    pub suppressed: usize,
    /// Calls the primary model would get (one per tick with something raised)…
    pub calls: usize,
    /// …of which over `daily_cap`.
    pub capped: usize,
    /// Raised during the escalation quiet hours: a notification would be held.
    pub in_quiet_hours: usize,
}

/// One side of the comparison, in sum.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Side {
    /// Entries that were in the memory at some point of the window.
    pub remembered: usize,
    pub at_end: usize,
    pub average_lifetime_seconds: i64,
    pub longest: Option<Life>,
    pub raised: usize,
    pub suppressed: usize,
    pub capped: usize,
    /// By reason: decayed, pruned, budget, rejected.
    pub left: BTreeMap<String, usize>,
}

/// An entry that lived under both settings, for a different time.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Changed {
    pub id: String,
    pub summary: String,
    pub current_seconds: i64,
    pub overridden_seconds: i64,
}

/// A day's escalations side by side.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Day {
    pub day: NaiveDate,
    pub current: DayEscalations,
    pub overridden: DayEscalations,
}

/// An entry of a final subconscious.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    pub category: Category,
    pub id: String,
    pub strength: crate::state::Strength,
    pub summary: String,
}

/// Everything the overrides changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diff {
    pub current: Side,
    pub overridden: Side,
    /// Entries remembered only with the overrides ("would have lived").
    pub only_overridden: Vec<Life>,
    /// Entries remembered only with the current settings ("would not have been").
    pub only_current: Vec<Life>,
    /// Entries under both whose time in memory differs, most changed first.
    pub changed: Vec<Changed>,
    pub days: Vec<Day>,
    pub final_current: Vec<Row>,
    pub final_overridden: Vec<Row>,
}

/// A side's numbers, its lives and its escalations per day.
pub fn side(
    run: &Run,
    end: DateTime<Utc>,
    escalation: &EscalationConfig,
    zone: Zone,
) -> (Side, Vec<Life>, BTreeMap<NaiveDate, DayEscalations>) {
    let lives = lives(run, end);
    let mut side = Side {
        remembered: lives.len(),
        at_end: run.end.as_ref().map_or(0, State::entry_count),
        ..Side::default()
    };
    if !lives.is_empty() {
        let total: i64 = lives.iter().map(|l| l.seconds).sum();
        side.average_lifetime_seconds = total / i64::try_from(lives.len()).unwrap_or(i64::MAX);
        side.longest = lives
            .iter()
            .max_by(|a, b| a.seconds.cmp(&b.seconds).then_with(|| b.born.cmp(&a.born)))
            .cloned();
    }
    for life in &lives {
        if let Some(reason) = life.reason {
            *side.left.entry(reason_word(reason).into()).or_default() += 1;
        }
    }
    let mut days: BTreeMap<NaiveDate, DayEscalations> = BTreeMap::new();
    for frame in &run.frames {
        let day = days.entry(zone.day(frame.time)).or_default();
        let mut raised = 0;
        for record in &frame.report.escalations {
            match record.outcome {
                EscalationOutcome::Suppressed(_) => day.suppressed += 1,
                _ => raised += 1,
            }
        }
        day.raised += raised;
        if raised > 0 {
            day.calls += 1;
            if day.calls > escalation.daily_cap as usize {
                day.capped += 1;
            }
            if escalation.is_quiet(zone.time(frame.time)) {
                day.in_quiet_hours += raised;
            }
        }
    }
    for d in days.values() {
        side.raised += d.raised;
        side.suppressed += d.suppressed;
        side.capped += d.capped;
    }
    (side, lives, days)
}

fn reason_word(reason: RemovalReason) -> &'static str {
    match reason {
        RemovalReason::Decayed => "decayed",
        RemovalReason::Pruned => "pruned",
        RemovalReason::Budget => "budget",
        RemovalReason::Rejected => "rejected",
        RemovalReason::Retired(_) => "retired",
        RemovalReason::Merged => "merged",
    }
}

/// The rows of a final state.
pub fn rows(state: Option<&State>) -> Vec<Row> {
    state.map_or_else(Vec::new, |s| {
        s.all_entries()
            .map(|(category, e)| Row {
                category,
                id: e.id.clone(),
                strength: e.strength,
                summary: e.summary.clone(),
            })
            .collect()
    })
}

/// Compares the current run with the overridden one over the same window.
pub fn diff(
    current: (&Run, &EscalationConfig),
    overridden: (&Run, &EscalationConfig),
    end: DateTime<Utc>,
    zone: Zone,
) -> Diff {
    let (cur, cur_lives, cur_days) = side(current.0, end, current.1, zone);
    let (ovr, ovr_lives, ovr_days) = side(overridden.0, end, overridden.1, zone);
    let total = |lives: &[Life]| -> BTreeMap<String, (i64, String)> {
        let mut by_id: BTreeMap<String, (i64, String)> = BTreeMap::new();
        for l in lives {
            let e = by_id.entry(l.id.clone()).or_insert((0, l.summary.clone()));
            e.0 += l.seconds;
        }
        by_id
    };
    let (cur_ids, ovr_ids) = (total(&cur_lives), total(&ovr_lives));
    let only = |lives: &[Life], other: &BTreeMap<String, (i64, String)>| -> Vec<Life> {
        lives
            .iter()
            .filter(|l| !other.contains_key(&l.id))
            .cloned()
            .collect()
    };
    let mut changed: Vec<Changed> = cur_ids
        .iter()
        .filter_map(|(id, (c, summary))| {
            let (o, _) = ovr_ids.get(id)?;
            (c != o).then(|| Changed {
                id: id.clone(),
                summary: summary.clone(),
                current_seconds: *c,
                overridden_seconds: *o,
            })
        })
        .collect();
    changed.sort_by(|a, b| {
        (b.overridden_seconds - b.current_seconds)
            .abs()
            .cmp(&(a.overridden_seconds - a.current_seconds).abs())
            .then_with(|| a.id.cmp(&b.id))
    });
    let all_days: BTreeSet<NaiveDate> = cur_days.keys().chain(ovr_days.keys()).copied().collect();
    let days = all_days
        .into_iter()
        .map(|day| Day {
            day,
            current: cur_days.get(&day).copied().unwrap_or_default(),
            overridden: ovr_days.get(&day).copied().unwrap_or_default(),
        })
        .collect();
    Diff {
        only_overridden: only(&ovr_lives, &cur_ids),
        only_current: only(&cur_lives, &ovr_ids),
        changed,
        days,
        final_current: rows(current.0.end.as_ref()),
        final_overridden: rows(overridden.0.end.as_ref()),
        current: cur,
        overridden: ovr,
    }
}

/// `seconds` for people: `3d 4h`, `2h 05m`, `12m`.
pub fn lifetime(seconds: i64) -> String {
    crate::clock::span(TimeDelta::seconds(seconds))
}
