//! Rule 3 of SPEC §7: findings that matched nothing are grouped with the findings of the
//! same tick that match each other, and each group worth it becomes one new entry,
//! routed to its category by thread and kind.

use std::collections::HashSet;

use chrono::{DateTime, Utc};

use super::reinforce::Unmatched;
use super::{Added, Report, Settings, ids};
use crate::matching::similarity;
use crate::state::{Category, Entry, State};
use crate::thread::{Kind, ThreadName};

/// Strength of a new entry.
pub const NEW_STRENGTH: u8 = 3;
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
    let mut groups: Vec<Vec<Unmatched>> = Vec::new();
    for candidate in unmatched {
        let home = groups.iter_mut().find(|g| {
            similarity(&g[0].tokens, &candidate.tokens).reaches(settings.match_threshold)
        });
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
        state.entries_mut(category).push(Entry {
            id: id.clone(),
            summary: lead.finding.summary.clone(),
            strength: NEW_STRENGTH,
            created: now,
            last_seen: now,
            due: lead.finding.due,
            source: Some(lead.thread.as_str().to_string()),
            extra: serde_json::Map::new(),
        });
        report.added.push(Added {
            id,
            category,
            summary: lead.finding.summary.clone(),
            thread: lead.thread,
            kind: lead.finding.kind,
            importance: lead.finding.importance,
            findings: group.len(),
        });
    }
}
