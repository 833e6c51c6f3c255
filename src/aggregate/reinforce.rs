//! Rules 1 and 2 of SPEC §7: match findings and `reinforce` ids to existing entries, then
//! decay every entry and reinforce the ones seen again, in one step.
//!
//! Decay and reinforcement are applied together (`strength - 1 + 2`), never one after the
//! other, so a reinforced entry at strength 1 survives. Matching is done against the
//! entries as they were loaded (cut to the caps), before anything decays.

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::{
    Archived, RemovalReason, Report, Settings, Sighting, SightingBy, StrengthChange, ThreadOutcome,
    UnknownId,
};
use crate::answer::Finding;
use crate::matching::{Similarity, TokenSet, similarity};
use crate::state::{Category, MAX_STRENGTH, State};
use crate::thread::ThreadName;

/// A finding that matched no existing entry: a candidate for a new one.
#[derive(Clone, Debug)]
pub struct Unmatched {
    pub thread: ThreadName,
    pub finding: Finding,
    pub tokens: TokenSet,
}

/// The index in `existing` of the entry a finding with `tokens` matches best, if any:
/// highest similarity at or above the threshold; ties go to the earlier category, then
/// the smaller id.
pub fn best_match(
    tokens: &TokenSet,
    existing: &[(Category, &str, TokenSet)],
    threshold: f64,
) -> Option<usize> {
    let mut best: Option<(usize, Similarity)> = None;
    for (i, candidate) in existing.iter().enumerate() {
        let sim = similarity(tokens, &candidate.2);
        if !sim.reaches(threshold) {
            continue;
        }
        let better = match best {
            None => true,
            Some((b, bsim)) => {
                sim > bsim
                    || (sim == bsim && (candidate.0, candidate.1) < (existing[b].0, existing[b].1))
            }
        };
        if better {
            best = Some((i, sim));
        }
    }
    best.map(|(i, _)| i)
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
    let existing: Vec<(Category, &str, TokenSet)> = state
        .all_entries()
        .map(|(c, e)| (c, e.id.as_str(), TokenSet::new(&e.summary)))
        .collect();
    let by_id: HashMap<&str, usize> = existing
        .iter()
        .enumerate()
        .map(|(i, (_, id, _))| (*id, i))
        .collect();
    let mut seen = vec![false; existing.len()];
    let mut unmatched = Vec::new();
    for id in used {
        if let Some(&i) = by_id.get(id.as_str()) {
            seen[i] = true;
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
        for id in &answer.reinforce {
            match by_id.get(id.as_str()) {
                Some(&i) => {
                    seen[i] = true;
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
            let tokens = TokenSet::new(&finding.summary);
            match best_match(&tokens, &existing, settings.match_threshold) {
                Some(i) => {
                    seen[i] = true;
                    report.sightings.push(Sighting {
                        id: existing[i].1.to_string(),
                        by: SightingBy::Matched {
                            thread,
                            summary: finding.summary.clone(),
                            similarity: similarity(&tokens, &existing[i].2).value(),
                        },
                    });
                }
                None => unmatched.push(Unmatched {
                    thread,
                    finding: finding.clone(),
                    tokens,
                }),
            }
        }
    }

    drop(by_id);
    drop(existing);
    let mut index = 0;
    for cat in Category::ALL {
        let entries = std::mem::take(state.entries_mut(cat));
        let mut kept = Vec::with_capacity(entries.len());
        for mut entry in entries {
            let reinforced = seen[index];
            index += 1;
            let from = entry.strength;
            let to =
                (i16::from(from) - 1 + if reinforced { 2 } else { 0 }).min(i16::from(MAX_STRENGTH));
            if to <= 0 {
                report.removed.push(Archived {
                    entry,
                    category: cat,
                    removed_at: now,
                    reason: RemovalReason::Decayed,
                });
                continue;
            }
            entry.strength = to as u8;
            let change = StrengthChange {
                id: entry.id.clone(),
                category: cat,
                from,
                to: entry.strength,
            };
            if reinforced {
                entry.last_seen = now;
                report.reinforced.push(change);
            } else {
                report.weakened.push(change);
            }
            kept.push(entry);
        }
        *state.entries_mut(cat) = kept;
    }
    unmatched
}
