//! Rule 3 of SPEC §7: findings that matched nothing are grouped with the findings of the
//! same tick that match each other, and each group worth it becomes one new entry,
//! routed to its category by thread and kind, starting at a strength that follows its
//! importance, with the provenance of every finding of its group. An entry made only of
//! findings from threads whose sources carried a screen detection is `tainted`; when a
//! clean finding is in the group, the entry's importance is the clean findings' highest
//! (hostile text cannot promote a fact that was also seen in clean text).

use std::collections::HashSet;

use chrono::{DateTime, Utc};

use super::identity::{self, compare};
use super::reinforce::Unmatched;
use super::{Added, Report, Settings, ids};
use crate::recall::synonyms::Synonyms;
use crate::state::{Category, Entry, State, Strength};
use crate::thread::{Kind, ThreadName};

/// Strength of a new entry of `importance` (SPEC §7.3): `3 + floor((importance - 3) / 2)`,
/// so importance 3–4 starts at 3, 5–6 at 4, 7–8 at 5, 9–10 at 6 (and below 3, which is
/// added only when `min_importance` allows it, at 3).
pub fn new_strength(importance: u8) -> Strength {
    Strength::whole(3 + importance.saturating_sub(3) / 2)
}
/// Dreamer findings of at least this importance are insights, below it hunches.
pub const INSIGHT_IMPORTANCE: u8 = 6;

/// Where a finding of `thread` with `kind` and `importance` is kept.
pub fn route(thread: ThreadName, kind: Kind, importance: u8) -> Category {
    match thread {
        ThreadName::Watcher if kind == Kind::Pattern => Category::Patterns,
        ThreadName::Librarian if !matches!(kind, Kind::Forgotten | Kind::Stale) => {
            Category::Patterns
        }
        ThreadName::Watcher | ThreadName::Librarian | ThreadName::Oracle => Category::ActiveThreads,
        ThreadName::Dreamer if importance < INSIGHT_IMPORTANCE => Category::Hunches,
        ThreadName::Dreamer => Category::Insights,
    }
}

/// Groups `unmatched` (in thread order, then answer order) and adds each group whose
/// highest importance reaches the threshold.
pub fn apply(
    state: &mut State,
    unmatched: Vec<Unmatched>,
    now: DateTime<Utc>,
    settings: &Settings,
    report: &mut Report,
) {
    let synonyms = Synonyms::builtin();
    let mut groups: Vec<Vec<Unmatched>> = Vec::new();
    for candidate in unmatched {
        let home = groups
            .iter_mut()
            .find(|g| compare(&g[0].key, &candidate.key, synonyms).same(settings.thresholds()));
        match home {
            Some(group) => group.push(candidate),
            None => groups.push(vec![candidate]),
        }
    }

    let mut taken: HashSet<String> = state.all_entries().map(|(_, e)| e.id.clone()).collect();
    for group in groups {
        // The most important finding speaks for the group; ties go to the earliest.
        let mut lead = &group[0];
        for member in &group[1..] {
            if member.finding.importance > lead.finding.importance {
                lead = member;
            }
        }
        if lead.finding.importance < settings.min_importance {
            continue;
        }
        let category = route(lead.thread, lead.finding.kind, lead.finding.importance);
        let id = ids::make_id(category, &lead.finding.summary, &taken);
        taken.insert(id.clone());
        let tainted = group.iter().all(|m| m.screened);
        let importance = if tainted {
            lead.finding.importance
        } else {
            group
                .iter()
                .filter(|m| !m.screened)
                .map(|m| m.finding.importance)
                .max()
                .unwrap_or(lead.finding.importance)
        };
        let mut entry = Entry::new(
            id.clone(),
            lead.finding.summary.clone(),
            new_strength(importance),
            importance,
            now,
        );
        entry.due = lead
            .finding
            .due
            .or_else(|| group.iter().find_map(|m| m.finding.due));
        entry.source = Some(lead.thread.as_str().to_string());
        entry.tainted = tainted;
        for member in &group {
            entry.add_from(&member.provenance);
            for reference in &member.finding.refs {
                entry.add_ref(reference);
            }
            // The group's other clean wordings of the fact (docs/spec.md §7.2).
            let day = now.date_naive();
            if !member.screened
                && identity::adds_a_wording(&entry.summary, day, &member.finding.summary, day)
            {
                entry.add_said(&member.finding.summary, day);
            }
        }
        let from = entry.from.clone();
        state.entries_mut(category).push(entry);
        report.added.push(Added {
            id,
            category,
            summary: lead.finding.summary.clone(),
            thread: lead.thread,
            kind: lead.finding.kind,
            importance,
            findings: group.len(),
            from,
        });
    }
}
