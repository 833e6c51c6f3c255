//! Rule 13 of docs/spec.md §7: near-duplicates already in memory become one entry.
//!
//! A model that re-reports a fact in new words, or two threads that report it at once,
//! may have left two entries for one fact (under older rules, or where a report named
//! neither the other's item nor enough of its words). After the findings are added,
//! every pair of entries that [`super::identity`] says is one fact is merged, in a fixed
//! order: entries are taken in category order, then in their order within it, and each
//! is compared with the survivors before it. Of two entries, the one created first
//! survives (ties: the earlier category, then the smaller id), keeping its id, summary,
//! category and `source`; it takes the highest strength and importance of both, the sum
//! of their sightings, the union of their provenance and references (newest last,
//! within their caps), the other's summary and wordings among its own `said`, the
//! later `due`, the earlier `created` and the later `last_seen`; it stays tainted only
//! if both were; it takes the other's links, and every link to the other now points to
//! it. The other is archived (`merged`), the report says which into which, and the told
//! ledger's matters follow the survivor.
//!
//! Pure: no I/O, no clock.

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::identity::{self, Key, compare};
use super::reinforce::entry_key;
use super::{Archived, RemovalReason, Report, Settings, told};
use crate::recall::synonyms::Synonyms;
use crate::state::{Category, Entry, Link, MAX_LINKS, State};

/// One merge: `id` (of `category`) went into `into`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Merged {
    pub into: String,
    pub id: String,
    pub category: Category,
    /// Their similarity, and whether they shared a reference.
    pub similarity: f64,
    pub shared_ref: bool,
}

/// Merges the entries of `state` that are one fact, pass after pass until none is left
/// (a survivor's references grow with a merge, which may make it one fact with an entry
/// it was not before; every pass but the last removes an entry, so there are at most as
/// many passes as entries).
pub fn apply(state: &mut State, now: DateTime<Utc>, settings: &Settings, report: &mut Report) {
    let mut merged = false;
    while pass(state, now, settings, report) {
        merged = true;
    }
    if merged {
        one_sided_links_out(state);
    }
}

/// Drops every link its other end does not record back with the same kind (a survivor
/// keeps at most [`MAX_LINKS`] of the two entries' links: the ends of those it let go).
fn one_sided_links_out(state: &mut State) {
    let recorded: std::collections::HashSet<(String, String, crate::state::LinkKind)> = state
        .all_entries()
        .flat_map(|(_, e)| e.links.iter().map(|l| (e.id.clone(), l.id.clone(), l.kind)))
        .collect();
    for cat in Category::ALL {
        for entry in state.entries_mut(cat) {
            let own = entry.id.clone();
            entry
                .links
                .retain(|l| recorded.contains(&(l.id.clone(), own.clone(), l.kind)));
        }
    }
}

/// One pass; whether it merged anything.
fn pass(state: &mut State, now: DateTime<Utc>, settings: &Settings, report: &mut Report) -> bool {
    let synonyms = Synonyms::builtin();
    let mut all: Vec<(Category, Entry, Key)> = Vec::with_capacity(state.entry_count());
    for cat in Category::ALL {
        for entry in std::mem::take(state.entries_mut(cat)) {
            let key = entry_key(&entry);
            all.push((cat, entry, key));
        }
    }
    let mut kept: Vec<(Category, Entry, Key)> = Vec::with_capacity(all.len());
    let mut renamed: Vec<(String, String)> = Vec::new();
    for (cat, entry, key) in all {
        let found = kept.iter().position(|(_, _, k)| {
            let score = compare(k, &key, synonyms);
            score.same(settings.thresholds())
        });
        let Some(i) = found else {
            kept.push((cat, entry, key));
            continue;
        };
        let score = compare(&kept[i].2, &key, synonyms);
        let (kcat, kentry, _) = &mut kept[i];
        let first = (entry.created, cat, &entry.id) < (kentry.created, *kcat, &kentry.id);
        let (survivor_cat, mut survivor, other_cat, other) = if first {
            let old_cat = *kcat;
            let old = std::mem::replace(kentry, entry);
            *kcat = cat;
            (cat, kentry.clone(), old_cat, old)
        } else {
            (*kcat, kentry.clone(), cat, entry)
        };
        absorb(&mut survivor, &other);
        report.merged.push(Merged {
            into: survivor.id.clone(),
            id: other.id.clone(),
            category: other_cat,
            similarity: score.similarity,
            shared_ref: score.shared_ref,
        });
        renamed.push((other.id.clone(), survivor.id.clone()));
        report.removed.push(Archived {
            entry: other,
            category: other_cat,
            removed_at: now,
            reason: RemovalReason::Merged,
        });
        let key = entry_key(&survivor);
        kept[i] = (survivor_cat, survivor, key);
    }
    for (cat, entry, _) in kept {
        state.entries_mut(cat).push(entry);
    }
    for (from, into) in &renamed {
        relink(state, from, into);
        told::rekey(state, from, into);
    }
    !renamed.is_empty()
}

/// What `survivor` takes of `other` (see the module doc).
fn absorb(survivor: &mut Entry, other: &Entry) {
    survivor.strength = survivor.strength.max(other.strength);
    survivor.importance = survivor.importance.max(other.importance);
    survivor.sightings = survivor.sightings.saturating_add(other.sightings);
    for from in &other.from {
        if !survivor.from.contains(from) {
            survivor.add_from(from);
        }
    }
    for reference in &other.refs {
        if !survivor.refs.contains(reference) {
            survivor.add_ref(reference);
        }
    }
    let own = (survivor.summary.clone(), survivor.created.date_naive());
    let theirs = std::iter::once((other.summary.as_str(), other.created.date_naive()))
        .chain(other.said.iter().map(|s| (s.text.as_str(), s.day)));
    for (text, day) in theirs {
        if identity::adds_a_wording(&own.0, own.1, text, day) {
            survivor.add_said(text, day);
        }
    }
    survivor.due = match (survivor.due, other.due) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    survivor.created = survivor.created.min(other.created);
    survivor.last_seen = survivor.last_seen.max(other.last_seen);
    survivor.tainted = survivor.tainted && other.tainted;
    for link in &other.links {
        if link.id != survivor.id && !survivor.links.iter().any(|l| l.id == link.id) {
            survivor.links.push(link.clone());
        }
    }
    survivor.links.retain(|l| l.id != other.id);
    let excess = survivor.links.len().saturating_sub(MAX_LINKS);
    survivor.links.drain(..excess);
    for (k, v) in &other.extra {
        survivor.extra.entry(k.clone()).or_insert_with(|| v.clone());
    }
}

/// Every link to `from` now points to `into` (no self-links, no duplicates: an entry
/// that linked both keeps its link to `into`, whose kind `into` records back).
fn relink(state: &mut State, from: &str, into: &str) {
    for cat in Category::ALL {
        for entry in state.entries_mut(cat) {
            if !entry.links.iter().any(|l| l.id == from) {
                continue;
            }
            let own = entry.id.clone();
            let had_into = entry.links.iter().any(|l| l.id == into);
            let mut links: Vec<Link> = Vec::with_capacity(entry.links.len());
            for mut link in std::mem::take(&mut entry.links) {
                if link.id == from {
                    if had_into {
                        continue;
                    }
                    link.id = into.to_string();
                }
                if link.id != own && !links.iter().any(|l| l.id == link.id) {
                    links.push(link);
                }
            }
            entry.links = links;
        }
    }
}
