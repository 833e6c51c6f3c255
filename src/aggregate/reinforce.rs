//! Rules 1 and 2 of SPEC §7: match findings and `reinforce` ids to existing entries, then
//! decay every entry by the time since the last applied tick and reinforce the ones seen
//! again, in one step.
//!
//! Decay is charged by time ([`charge`]): `elapsed / decay_hours(category)`, `elapsed`
//! capped at `max_decay_gap`, nothing for a pinned entry (a `due` not yet `grace` past),
//! in whole hundredths counted on the absolute time line, so that twelve ticks in an
//! hour charge exactly what one tick an hour later does. Decay and reinforcement are
//! applied together (`strength - charge + 2`), never one after the other, so a reinforced
//! entry near 0 survives. Matching is done against the entries as they were loaded (cut
//! to the caps), before anything decays. A matching finding also raises the entry's
//! importance, adds its provenance to `from` and may move its `due`; a finding of a
//! thread whose sources carried a screen detection reinforces but changes neither
//! importance nor `due` (hostile text must not re-date or promote a real memory), and
//! only a clean sighting clears an entry's taint.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::identity::{Key, Score, adds_a_wording, compare};
use super::{
    Archived, DueMove, RemovalReason, Report, Settings, Sighting, SightingBy, StrengthChange,
    ThreadOutcome, UnknownId,
};
use crate::answer::Finding;
use crate::recall::synonyms::Synonyms;
use crate::state::{Category, Entry, State, Strength};
use crate::strength::SCALE;
use crate::thread::ThreadName;

/// A finding that matched no existing entry: a candidate for a new one.
#[derive(Clone, Debug)]
pub struct Unmatched {
    pub thread: ThreadName,
    pub finding: Finding,
    /// What identifies its fact ([`super::identity`]).
    pub key: Key,
    /// `thread/source` or the thread ([`crate::answer::Seen::provenance`]).
    pub provenance: String,
    /// The thread's sources carried a screen detection this tick.
    pub screened: bool,
}

/// The key of an entry: its summary read against its creation day, with its references
/// and the other wordings it was reported in, each read against the day it was said.
pub fn entry_key(entry: &Entry) -> Key {
    Key::new(
        &entry.summary,
        entry.created.date_naive(),
        entry.refs.iter().map(String::as_str),
    )
    .with_said(entry.said.iter().map(|s| (s.text.as_str(), s.day)))
}

/// The index in `existing` of the entry a finding with `key` is (docs/spec.md §7.2), with
/// its score: of the entries it is the same fact as, the highest [`Score::rank`] (its
/// similarity, more when it cites an item of the entry); ties go to the earlier
/// category, then the smaller id.
pub fn best_match(
    key: &Key,
    existing: &[(Category, &str, Key)],
    settings: &Settings,
) -> Option<(usize, Score)> {
    let synonyms = Synonyms::builtin();
    let mut best: Option<(usize, Score)> = None;
    for (i, candidate) in existing.iter().enumerate() {
        let score = compare(key, &candidate.2, synonyms);
        if !score.same(settings.thresholds()) {
            continue;
        }
        let better = match best {
            None => true,
            Some((b, bscore)) => match score.rank().total_cmp(&bscore.rank()) {
                std::cmp::Ordering::Greater => true,
                std::cmp::Ordering::Less => false,
                std::cmp::Ordering::Equal => {
                    (candidate.0, candidate.1) < (existing[b].0, existing[b].1)
                }
            },
        };
        if better {
            best = Some((i, score));
        }
    }
    best
}

/// The strength (in hundredths) an entry of `cat` is charged at `now`, the previous
/// applied tick having been at `last_tick` (SPEC §7.1). Counted on the absolute time
/// line — `floor(t · 100 / period)` at both ends — so that the charges of ticks in
/// between add up to exactly the charge of one tick over the whole stretch.
pub fn charge(
    entry: &Entry,
    cat: Category,
    last_tick: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
    settings: &Settings,
) -> i64 {
    let Some(last) = last_tick else {
        return 0;
    };
    let mut from = now
        .checked_sub_signed(settings.max_decay_gap)
        .map_or(last, |earliest| last.max(earliest));
    if let Some(until) = entry
        .due
        .and_then(|due| due.checked_add_signed(settings.due_grace))
    {
        if now < until {
            return 0;
        }
        from = from.max(until);
    }
    if from >= now {
        return 0;
    }
    let period = i128::from(settings.decay.of(cat));
    let at = |t: DateTime<Utc>| (i128::from(t.timestamp()) * i128::from(SCALE)).div_euclid(period);
    i64::try_from(at(now) - at(from)).unwrap_or(i64::MAX)
}

/// What the tick saw of one existing entry.
#[derive(Clone, Debug, Default)]
struct Seen {
    reinforced: bool,
    /// Seen by a thread whose sources carried no detection.
    clean: bool,
    /// The highest importance of the clean findings that matched it.
    importance: u8,
    /// Provenance of the findings that matched it, in thread and answer order.
    from: Vec<String>,
    /// The references those findings cited.
    refs: Vec<String>,
    /// The wordings of the clean findings that matched it.
    said: Vec<String>,
    /// The `due` of the most important clean matching finding that carried one (ties:
    /// the earliest), with its importance and thread.
    due: Option<(u8, DateTime<Utc>, ThreadName)>,
}

/// Marks what was seen again (by a thread, or `used` by the agent: rule 9), decays and
/// reinforces every entry, removes entries that reach 0 (archived as `decayed`), and
/// returns the findings that matched nothing.
pub fn apply(
    state: &mut State,
    results: &[ThreadOutcome; 4],
    used: &[String],
    now: DateTime<Utc>,
    settings: &Settings,
    report: &mut Report,
) -> Vec<Unmatched> {
    let existing: Vec<(Category, &str, Key)> = state
        .all_entries()
        .map(|(c, e)| (c, e.id.as_str(), entry_key(e)))
        .collect();
    let by_id: HashMap<&str, usize> = existing
        .iter()
        .enumerate()
        .map(|(i, (_, id, _))| (*id, i))
        .collect();
    let mut seen = vec![Seen::default(); existing.len()];
    let unmatched = mark(
        &mut seen, &existing, &by_id, results, used, now, settings, report,
    );
    drop(by_id);
    drop(existing);
    settle(state, &mut seen, now, settings, report);
    unmatched
}

/// Marks every entry the agent used or a thread saw again (by id or by a matching
/// finding) and returns the findings that matched nothing.
#[expect(
    clippy::too_many_arguments,
    reason = "the rule's inputs, each used once: bundling them would only rename them"
)]
fn mark(
    seen: &mut [Seen],
    existing: &[(Category, &str, Key)],
    by_id: &HashMap<&str, usize>,
    results: &[ThreadOutcome; 4],
    used: &[String],
    now: DateTime<Utc>,
    settings: &Settings,
    report: &mut Report,
) -> Vec<Unmatched> {
    let mut unmatched = Vec::new();
    for id in used {
        if let Some(&i) = by_id.get(id.as_str()) {
            seen[i].reinforced = true;
            report.sightings.push(Sighting {
                id: id.clone(),
                by: SightingBy::Agent,
            });
        }
    }

    for thread in ThreadName::ALL {
        let Some(answer) = results[thread.index()].answer() else {
            continue;
        };
        let screened = answer.seen.screened;
        // Only a clean source showing the fact again clears a taint: never a bare id,
        // nor a thread that read no source (docs/spec.md §7.1).
        let clean = !screened && !answer.seen.sources.is_empty();
        for id in &answer.reinforce {
            match by_id.get(id.as_str()) {
                Some(&i) => {
                    seen[i].reinforced = true;
                    report.sightings.push(Sighting {
                        id: id.clone(),
                        by: SightingBy::Listed { thread },
                    });
                }
                None => report.unknown_reinforce.push(UnknownId {
                    thread,
                    id: id.clone(),
                }),
            }
        }
        for finding in &answer.findings {
            let key = Key::new(
                &finding.summary,
                now.date_naive(),
                finding.refs.iter().map(String::as_str),
            );
            let provenance = answer.seen.provenance(thread, finding.from.as_deref());
            match best_match(&key, existing, settings) {
                Some((i, score)) => {
                    let s = &mut seen[i];
                    s.reinforced = true;
                    if !s.from.contains(&provenance) {
                        s.from.push(provenance.clone());
                    }
                    for r in &finding.refs {
                        if !s.refs.contains(r) {
                            s.refs.push(r.clone());
                        }
                    }
                    s.clean |= clean;
                    if !screened {
                        s.said.push(finding.summary.clone());
                        s.importance = s.importance.max(finding.importance);
                        if let Some(due) = finding.due
                            && s.due.is_none_or(|(imp, _, _)| finding.importance > imp)
                        {
                            s.due = Some((finding.importance, due, thread));
                        }
                    }
                    report.sightings.push(Sighting {
                        id: existing[i].1.to_string(),
                        by: SightingBy::Matched {
                            thread,
                            summary: finding.summary.clone(),
                            similarity: score.similarity,
                            from: provenance,
                        },
                    });
                }
                None => unmatched.push(Unmatched {
                    thread,
                    finding: finding.clone(),
                    key,
                    provenance,
                    screened,
                }),
            }
        }
    }

    unmatched
}

/// Decays every entry by time and reinforces the ones seen, removing those at 0.
fn settle(
    state: &mut State,
    seen: &mut [Seen],
    now: DateTime<Utc>,
    settings: &Settings,
    report: &mut Report,
) {
    let last_tick = state.last_tick;
    let mut index = 0;
    for cat in Category::ALL {
        let entries = std::mem::take(state.entries_mut(cat));
        let mut kept = Vec::with_capacity(entries.len());
        for mut entry in entries {
            let s = std::mem::take(&mut seen[index]);
            index += 1;
            let from = entry.strength;
            let charged = charge(&entry, cat, last_tick, now, settings);
            let to = from.hundredths() - charged + if s.reinforced { 2 * SCALE } else { 0 };
            if to <= 0 {
                report.removed.push(Archived {
                    entry,
                    category: cat,
                    removed_at: now,
                    reason: RemovalReason::Decayed,
                });
                continue;
            }
            entry.strength = Strength::from_hundredths(to);
            let change = StrengthChange {
                id: entry.id.clone(),
                category: cat,
                from,
                to: entry.strength,
            };
            if s.reinforced {
                see_again(&mut entry, &s, now, report);
                report.reinforced.push(change);
            } else if change.from != change.to {
                report.weakened.push(change);
            }
            kept.push(entry);
        }
        *state.entries_mut(cat) = kept;
    }
}

/// What a sighting does besides strength: `last_seen`, `sightings`, importance, `from`,
/// a moved `due`, the taint cleared by a clean sighting.
fn see_again(entry: &mut Entry, seen: &Seen, now: DateTime<Utc>, report: &mut Report) {
    entry.last_seen = now;
    entry.sightings = entry.sightings.saturating_add(1);
    entry.importance = entry.importance.max(seen.importance);
    for provenance in &seen.from {
        entry.add_from(provenance);
    }
    for reference in &seen.refs {
        entry.add_ref(reference);
    }
    for text in &seen.said {
        let day = now.date_naive();
        if adds_a_wording(&entry.summary, entry.created.date_naive(), text, day) {
            entry.add_said(text, day);
        }
    }
    if seen.clean {
        entry.tainted = false;
    }
    if let Some((_, due, thread)) = seen.due
        && entry.due != Some(due)
    {
        report.moved.push(DueMove {
            id: entry.id.clone(),
            thread,
            from: entry.due,
            to: due,
        });
        entry.due = Some(due);
    }
}
