//! Rule 5 of SPEC §7: category caps, then the token budget of the whole state file.
//!
//! Weakest first: lowest strength, then older `last_seen`, then older `created`, then
//! the larger id. The budget is measured on the state exactly as `State::to_json` writes
//! it (bytes / 4), computed once and updated per removal rather than re-serialized.

use std::cmp::{Ordering, Reverse};

use chrono::{DateTime, Utc};

use super::{Archived, RemovalReason, Report, Settings};
use crate::state::{Category, Entry, State};

/// Bytes per estimated token.
pub const BYTES_PER_TOKEN: usize = 4;

/// Orders entries weakest first.
pub fn weakness(a: &Entry, b: &Entry) -> Ordering {
    (a.strength, a.last_seen, a.created, Reverse(&a.id)).cmp(&(
        b.strength,
        b.last_seen,
        b.created,
        Reverse(&b.id),
    ))
}

/// Counts bytes instead of storing them.
struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Counts the bytes of `value` pretty-printed, and the newlines among them.
struct LineCounter {
    bytes: usize,
    newlines: usize,
}

impl std::io::Write for LineCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes += buf.len();
        self.newlines += buf.split(|b| *b == b'\n').count() - 1;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Bytes an entry takes inside a category array of the pretty-printed state.
fn entry_bytes(entry: &Entry) -> usize {
    let mut c = LineCounter {
        bytes: 0,
        newlines: 0,
    };
    // Writing to a counter cannot fail.
    let _ = serde_json::to_writer_pretty(&mut c, entry);
    // Nested two levels deeper than standalone: 4 more spaces after every newline,
    // plus the newline, indentation and comma that separate array items.
    c.bytes + 4 * c.newlines + 6
}

/// The exact size of `State::to_json(state)`, computed category by category.
#[derive(Debug)]
struct SizedState {
    /// Size with every category empty (`[]`).
    base: usize,
    /// Per category, the size of each entry in file order.
    entries: [Vec<usize>; 4],
}

impl SizedState {
    fn new(state: &mut State) -> SizedState {
        let entries = Category::ALL.map(|c| state.entries(c).iter().map(entry_bytes).collect());
        // Measure the rest with the categories taken out (and put back): no clone.
        let taken = Category::ALL.map(|c| std::mem::take(state.entries_mut(c)));
        let mut counter = Counter(0);
        let _ = serde_json::to_writer_pretty(&mut counter, &*state);
        for (c, list) in Category::ALL.into_iter().zip(taken) {
            *state.entries_mut(c) = list;
        }
        SizedState {
            base: counter.0 + 1, // `State::to_json` ends with a newline
            entries,
        }
    }

    fn total(&self) -> usize {
        self.base
            + self
                .entries
                .iter()
                .filter(|sizes| !sizes.is_empty())
                // "[]" becomes "[\n    …\n  ]": 2 more bytes beyond the items.
                .map(|sizes| sizes.iter().sum::<usize>() + 2)
                .sum::<usize>()
    }
}

/// The estimated token count of the state as written.
pub fn estimated_tokens(state: &State) -> usize {
    SizedState::new(&mut state.clone()).total() / BYTES_PER_TOKEN
}

fn remove(
    state: &mut State,
    cat: Category,
    index: usize,
    reason: RemovalReason,
    now: DateTime<Utc>,
    report: &mut Report,
) {
    let entry = state.entries_mut(cat).remove(index);
    report.removed.push(Archived {
        entry,
        category: cat,
        removed_at: now,
        reason,
    });
}

fn weakest(entries: &[Entry]) -> Option<usize> {
    entries
        .iter()
        .enumerate()
        .min_by(|a, b| weakness(a.1, b.1))
        .map(|(i, _)| i)
}

pub fn apply(state: &mut State, now: DateTime<Utc>, settings: &Settings, report: &mut Report) {
    for cat in Category::ALL {
        while state.entries(cat).len() > settings.caps.of(cat) {
            let Some(i) = weakest(state.entries(cat)) else {
                break;
            };
            remove(state, cat, i, RemovalReason::Pruned, now, report);
        }
    }

    let mut sized = SizedState::new(state);
    while sized.total() / BYTES_PER_TOKEN > settings.token_budget {
        let candidate = Category::ALL
            .iter()
            .enumerate()
            .filter_map(|(ci, &cat)| {
                weakest(state.entries(cat)).map(|i| (ci, cat, i, &state.entries(cat)[i]))
            })
            .min_by(|a, b| weakness(a.3, b.3));
        let Some((ci, cat, i, _)) = candidate else {
            break;
        };
        sized.entries[ci].remove(i);
        remove(state, cat, i, RemovalReason::Budget, now, report);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timestamp;

    fn entry(id: &str, strength: u8) -> Entry {
        let t = timestamp::parse("2026-11-22T10:00:00Z").unwrap();
        Entry {
            id: id.into(),
            summary: format!("summary of {id} with \"quotes\" and ünïcode"),
            strength,
            created: t,
            last_seen: t,
            due: None,
            source: Some("watcher".into()),
            extra: serde_json::Map::new(),
        }
    }

    #[test]
    fn size_estimate_is_exact() {
        let mut state = State::default();
        assert_eq!(SizedState::new(&mut state).total(), state.to_json().len());
        state.patterns.push(entry("p-a", 3));
        state.patterns.push(entry("p-b", 4));
        state.insights.push(entry("i-c", 5));
        state.insights[0]
            .extra
            .insert("note".into(), serde_json::json!({"deep": [1, 2]}));
        assert_eq!(
            SizedState::new(&mut state.clone()).total(),
            state.to_json().len()
        );
        assert_eq!(estimated_tokens(&state), state.to_json().len() / 4);
    }
}
