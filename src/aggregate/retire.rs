//! Rule 10 of SPEC §7: a thread says an entry is no longer true (`cancelled`, `done`,
//! `wrong`); it is removed and archived `retired: <why>`.
//!
//! Applied after decay and reinforcement (a finding of the same tick that matched the
//! entry was consumed by it, so the retired fact does not come back as a new entry in
//! the same tick), and before new entries are added. Never on the word of a thread whose
//! sources carried a screen detection this tick: hostile text must not be able to erase
//! memory; the refusal is reported (and journaled), as is an id that names no entry.

use chrono::{DateTime, Utc};

use super::{Archived, RemovalReason, Report, RetireRefused, ThreadOutcome};
use crate::state::{Category, State};
use crate::thread::ThreadName;

/// Removes the entries the answers retire.
pub fn apply(
    state: &mut State,
    results: &[ThreadOutcome; 4],
    now: DateTime<Utc>,
    report: &mut Report,
) {
    for thread in ThreadName::ALL {
        let Some(answer) = results[thread.index()].answer() else {
            continue;
        };
        for retire in &answer.retire {
            if answer.seen.screened {
                report.retire_refused.push(RetireRefused {
                    thread,
                    id: retire.id.clone(),
                    why: "screened",
                });
                continue;
            }
            let found = Category::ALL.into_iter().find_map(|cat| {
                state
                    .entries(cat)
                    .iter()
                    .position(|e| e.id == retire.id)
                    .map(|i| (cat, i))
            });
            match found {
                Some((cat, i)) => {
                    let entry = state.entries_mut(cat).remove(i);
                    report.removed.push(Archived {
                        entry,
                        category: cat,
                        removed_at: now,
                        reason: RemovalReason::Retired(retire.why),
                    });
                }
                // Removed earlier in this tick (decayed, or retired by another thread):
                // nothing to say.
                None if report.removed.iter().any(|a| a.entry.id == retire.id) => {}
                None => report.retire_refused.push(RetireRefused {
                    thread,
                    id: retire.id.clone(),
                    why: "unknown",
                }),
            }
        }
    }
}
