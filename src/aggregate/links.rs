//! Rule 12 of SPEC §7: links between memories. A non-failed Librarian or Dreamer answer
//! may link two existing entries, `connects` or `contradicts`; both ends record the link
//! (`{"id": other, "kind"}`), newest last, at most [`MAX_LINKS`] an end (the oldest
//! dropped), one link per pair (a new kind replaces the old). No self-links. Linking
//! does not reinforce.
//!
//! Refused, and reported: links in any other thread's answer (`thread`), links of a
//! thread whose sources carried a screen detection this tick (`screened`: hostile text
//! must not tie a forged entry to a real one), a link to an id that is not in memory
//! (`unknown`) or to itself (`self`). A link goes when either end leaves the memory, for
//! any reason ([`unlink_departed`], run after every removal of the tick).
//!
//! Pure: no I/O, no clock. Applied after retire and before new entries are added: a
//! thread can only link the entries it was shown.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::{Report, ThreadOutcome};
use crate::state::{Category, Link, LinkKind, MAX_LINKS, State};
use crate::thread::ThreadName;

/// A link made this tick.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Linked {
    pub thread: ThreadName,
    pub a: String,
    pub b: String,
    pub kind: LinkKind,
}

/// A link not made, and why: `thread`, `screened`, `unknown`, `self`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LinkRefused {
    pub thread: ThreadName,
    pub a: String,
    pub b: String,
    pub why: &'static str,
}

/// A link that went this tick: one of its ends left the memory (or was pushed out by
/// newer links of the other end).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unlinked {
    pub a: String,
    pub b: String,
    pub kind: LinkKind,
    /// `left` (an end left the memory) or `replaced` (an end had more than the cap).
    pub why: &'static str,
}

/// Where each id lives: (category, index).
fn index(state: &State) -> HashMap<String, (Category, usize)> {
    Category::ALL
        .into_iter()
        .flat_map(|cat| {
            state
                .entries(cat)
                .iter()
                .enumerate()
                .map(move |(i, e)| (e.id.clone(), (cat, i)))
        })
        .collect()
}

/// Records `kind` from `from` to `to` on `from`'s end; returns the link it pushed out
/// past the cap, if any.
fn record(state: &mut State, at: (Category, usize), to: &str, kind: LinkKind) -> Option<Link> {
    let entry = &mut state.entries_mut(at.0)[at.1];
    entry.links.retain(|l| l.id != to);
    entry.links.push(Link {
        id: to.to_string(),
        kind,
    });
    (entry.links.len() > MAX_LINKS).then(|| entry.links.remove(0))
}

/// Applies the links of the answers (Librarian, then Dreamer, in answer order: later is
/// newer).
pub fn apply(state: &mut State, results: &[ThreadOutcome; 4], report: &mut Report) {
    // Most ticks link nothing: no index is built for them.
    if results
        .iter()
        .filter_map(ThreadOutcome::answer)
        .all(|a| a.links.is_empty())
    {
        return;
    }
    // Linking moves no entry: the places stay true for the whole rule.
    let at = index(state);
    for thread in ThreadName::ALL {
        let Some(answer) = results[thread.index()].answer() else {
            continue;
        };
        if answer.links.is_empty() {
            continue;
        }
        for proposal in &answer.links {
            let refuse = |why| LinkRefused {
                thread,
                a: proposal.a.clone(),
                b: proposal.b.clone(),
                why,
            };
            let why = if !thread.links() {
                Some("thread")
            } else if answer.seen.screened {
                Some("screened")
            } else if proposal.a == proposal.b {
                Some("self")
            } else if !at.contains_key(&proposal.a) || !at.contains_key(&proposal.b) {
                Some("unknown")
            } else {
                None
            };
            if let Some(why) = why {
                report.links_refused.push(refuse(why));
                continue;
            }
            let (ia, ib) = (at[&proposal.a], at[&proposal.b]);
            for (end, other, place) in [
                (&proposal.a, &proposal.b, ia),
                (&proposal.b, &proposal.a, ib),
            ] {
                if let Some(out) = record(state, place, other, proposal.kind) {
                    // The pushed-out link goes from the other end too.
                    if let Some(&there) = at.get(&out.id) {
                        state.entries_mut(there.0)[there.1]
                            .links
                            .retain(|l| &l.id != end);
                    }
                    report.unlinked.push(Unlinked {
                        a: end.clone(),
                        b: out.id,
                        kind: out.kind,
                        why: "replaced",
                    });
                }
            }
            report.linked.push(Linked {
                thread,
                a: proposal.a.clone(),
                b: proposal.b.clone(),
                kind: proposal.kind,
            });
        }
    }
}

/// Drops every link whose other end is no longer in memory (reported once per pair).
pub fn unlink_departed(state: &mut State, report: &mut Report) {
    if state.all_entries().all(|(_, e)| e.links.is_empty()) {
        return;
    }
    // Most ticks remove nothing linked: find the entries to fix without copying an id.
    let to_fix: Vec<(Category, usize)> = {
        let ids: HashSet<&str> = state.all_entries().map(|(_, e)| e.id.as_str()).collect();
        Category::ALL
            .into_iter()
            .flat_map(|cat| {
                state
                    .entries(cat)
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| e.links.iter().any(|l| !ids.contains(l.id.as_str())))
                    .map(move |(i, _)| (cat, i))
            })
            .collect()
    };
    if to_fix.is_empty() {
        return;
    }
    let present: HashSet<String> = state.all_entries().map(|(_, e)| e.id.clone()).collect();
    let mut said: HashSet<(String, String)> = HashSet::new();
    for (cat, i) in to_fix {
        let entry = &mut state.entries_mut(cat)[i];
        let id = entry.id.clone();
        entry.links.retain(|l| {
            if present.contains(&l.id) {
                return true;
            }
            let pair = if id < l.id {
                (id.clone(), l.id.clone())
            } else {
                (l.id.clone(), id.clone())
            };
            if said.insert(pair) {
                report.unlinked.push(Unlinked {
                    a: id.clone(),
                    b: l.id.clone(),
                    kind: l.kind,
                    why: "left",
                });
            }
            false
        });
    }
}
