//! Rule 5 of SPEC §7: category caps, then the token budget of the memory.
//!
//! Weakest first: unpinned entries before pinned ones (a `due` not yet `due_grace` past),
//! then the lowest [`value`] — an entry's right to stay: its importance first, then the
//! evidence that it is real (sightings, references) — then lowest strength (which
//! follows how recently it was seen), then older `last_seen`, then older `created`, then
//! the larger id. So noise goes first (seen once, low importance, no reference), and an
//! important newcomer never loses its place to an unpinned incumbent of much lower
//! importance, however often that one was reinforced (docs/spec.md §7.5). The budget
//! measures the memory — the four categories, serialized exactly as `State::to_json`
//! lays them out, each entry without its `said` (bytes / 4) — and nothing else: thread
//! state, escalation history and unknown top-level fields are bounded on their own
//! ([`super::bounds`]) and can never push an entry out. The size is computed once and
//! updated per removal rather than re-serialized.
//!
//! Both steps sort once (O(n log n)), so a state far over its caps (an older version's,
//! a hand-edited one, caps lowered in the config) is cut in milliseconds; the aggregator
//! also runs [`caps`] first, before matching, so the rules work on at most the caps.

use std::cmp::{Ordering, Reverse};

use chrono::{DateTime, TimeDelta, Utc};
use serde::Serialize;

use super::{Archived, RemovalReason, Report, Settings};
use crate::state::{Category, Entry, State};

/// Bytes per estimated token.
pub const BYTES_PER_TOKEN: usize = 4;

/// An entry's right to stay, in quarter points: four for each point of importance, one
/// for each sighting after the first (at most four), two for citing the items it came
/// from. Importance dominates: an entry two points more important is worth more than
/// any evidence can make up for.
pub fn value(e: &Entry) -> u32 {
    4 * u32::from(e.importance)
        + e.sightings.saturating_sub(1).min(4)
        + if e.refs.is_empty() { 0 } else { 2 }
}

/// Orders entries weakest first at `now`: unpinned before pinned, then [`value`],
/// strength, `last_seen`, `created`, the larger id first.
pub fn weakness(a: &Entry, b: &Entry, now: DateTime<Utc>, grace: TimeDelta) -> Ordering {
    let key = |e: &Entry| {
        (
            e.pinned(now, grace),
            value(e),
            e.strength,
            e.last_seen,
            e.created,
        )
    };
    key(a)
        .cmp(&key(b))
        .then_with(|| Reverse(&a.id).cmp(&Reverse(&b.id)))
}

/// Counts the bytes written, and the newlines among them.
#[derive(Default)]
struct Counter {
    bytes: usize,
    newlines: usize,
}

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes += buf.len();
        self.newlines += buf.split(|b| *b == b'\n').count() - 1;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The memory: the four categories, as the budget measures them.
#[derive(Serialize)]
struct Memory<'a> {
    active_threads: &'a [Entry],
    patterns: &'a [Entry],
    hunches: &'a [Entry],
    insights: &'a [Entry],
}

impl Memory<'_> {
    fn empty() -> Memory<'static> {
        Memory {
            active_threads: &[],
            patterns: &[],
            hunches: &[],
            insights: &[],
        }
    }
}

/// Bytes the memory takes pretty-printed (as `serde_json::to_string_pretty` writes it).
fn memory_bytes(memory: &Memory) -> usize {
    let mut c = Counter::default();
    // Writing to a counter cannot fail.
    let _ = serde_json::to_writer_pretty(&mut c, memory);
    c.bytes
}

/// Bytes an entry takes inside a category array, one level below the top (as in both
/// the memory and the state file), without its `said`: the other wordings of its fact
/// are the matcher's bookkeeping, shown to no model and bounded on their own
/// ([`crate::state::MAX_SAID`]), so they never push an entry out.
fn entry_bytes(entry: &Entry) -> usize {
    if !entry.said.is_empty() {
        let mut bare = entry.clone();
        bare.said.clear();
        return entry_bytes(&bare);
    }
    let mut c = Counter::default();
    let _ = serde_json::to_writer_pretty(&mut c, entry);
    // Nested two levels deeper than standalone: 4 more spaces after every newline,
    // plus the newline, indentation and comma that separate array items.
    c.bytes + 4 * c.newlines + 6
}

/// [`entry_bytes`] without serialising the links (five links an entry doubled
/// the cost of sizing a memory at its caps) nor cloning: the entry is serialised with
/// its links and `said` taken out and put back, and the links' part is counted from
/// its fixed shape.
fn entry_bytes_quick(entry: &mut Entry) -> usize {
    let links = std::mem::take(&mut entry.links);
    let said = std::mem::take(&mut entry.said);
    let mut c = Counter::default();
    let _ = serde_json::to_writer_pretty(&mut c, &*entry);
    entry.links = links;
    entry.said = said;
    let (bytes, newlines) = if entry.links.is_empty() {
        (0, 0)
    } else {
        links_part(&entry.links)
    };
    (c.bytes + bytes) + 4 * (c.newlines + newlines) + 6
}

/// Bytes and newlines of a non-empty `"links"` field inside an entry serialised alone
/// (never its first field, so it opens with a comma):
/// `,⏎··"links": [⏎····{⏎······"id": ID,⏎······"kind": KIND⏎····},…⏎··]`.
fn links_part(links: &[crate::state::Link]) -> (usize, usize) {
    let mut bytes = ",\n  \"links\": [".len() + "\n  ]".len();
    let mut newlines = 2;
    for (i, link) in links.iter().enumerate() {
        bytes += usize::from(i > 0)
            + "\n    {".len()
            + "\n      \"id\": ".len()
            + json_string_len(&link.id)
            + ",\n      \"kind\": ".len()
            + link.kind.as_str().len()
            + 2
            + "\n    }".len();
        newlines += 4;
    }
    (bytes, newlines)
}

/// The length of `text` as serde_json writes it: quoted, `"` `\` and control characters
/// escaped (`\n`-style where there is one, else `\u00XX`), everything else as is.
fn json_string_len(text: &str) -> usize {
    2 + text
        .bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum::<usize>()
}

/// The exact size of the memory, kept per category so a removal is a subtraction.
#[derive(Debug)]
struct SizedMemory {
    /// Size with every category empty (`[]`).
    base: usize,
    /// Per category: the number of entries and the sum of their sizes.
    count: [usize; 4],
    bytes: [usize; 4],
}

impl SizedMemory {
    #[cfg(test)]
    fn new(state: &State) -> SizedMemory {
        SizedMemory::of(
            &Category::ALL.map(|cat| state.entries(cat).iter().map(entry_bytes).collect()),
        )
    }

    /// From each category's entry sizes.
    fn of(sizes: &[Vec<usize>; 4]) -> SizedMemory {
        SizedMemory {
            base: memory_bytes(&Memory::empty()),
            count: sizes.each_ref().map(Vec::len),
            bytes: sizes.each_ref().map(|s| s.iter().sum()),
        }
    }

    fn remove(&mut self, cat: usize, bytes: usize) {
        self.count[cat] -= 1;
        self.bytes[cat] -= bytes;
    }

    fn total(&self) -> usize {
        self.base
            + (0..4)
                .filter(|&i| self.count[i] > 0)
                // "[]" becomes "[\n    …\n  ]": 2 more bytes beyond the items.
                .map(|i| self.bytes[i] + 2)
                .sum::<usize>()
    }

    fn tokens(&self) -> usize {
        self.total() / BYTES_PER_TOKEN
    }
}

/// The estimated token count of the memory (the four categories), as the budget
/// measures it.
pub fn estimated_tokens(state: &State) -> usize {
    SizedMemory::of(&Category::ALL.map(|cat| state.entries(cat).iter().map(entry_bytes).collect()))
        .tokens()
}

/// Removes the entries at `doomed` (indices into the category, weakest first) and
/// archives them in that order with `reason`.
fn remove_all(
    state: &mut State,
    cat: Category,
    doomed: &[usize],
    reason: RemovalReason,
    now: DateTime<Utc>,
    report: &mut Report,
) {
    if doomed.is_empty() {
        return;
    }
    let mut slots: Vec<Option<Entry>> = std::mem::take(state.entries_mut(cat))
        .into_iter()
        .map(Some)
        .collect();
    for &i in doomed {
        if let Some(entry) = slots.get_mut(i).and_then(Option::take) {
            report.removed.push(Archived {
                entry,
                category: cat,
                removed_at: now,
                reason,
            });
        }
    }
    *state.entries_mut(cat) = slots.into_iter().flatten().collect();
}

/// Cuts every category to its cap, weakest first (archived as `pruned`).
pub fn caps(state: &mut State, now: DateTime<Utc>, settings: &Settings, report: &mut Report) {
    for cat in Category::ALL {
        let entries = state.entries(cat);
        let Some(excess) = entries.len().checked_sub(settings.caps.of(cat)) else {
            continue;
        };
        if excess == 0 {
            continue;
        }
        let mut order: Vec<usize> = (0..entries.len()).collect();
        // Stable: of equals (only possible with duplicate ids), the first goes first.
        order.sort_by(|&a, &b| weakness(&entries[a], &entries[b], now, settings.due_grace));
        order.truncate(excess);
        remove_all(state, cat, &order, RemovalReason::Pruned, now, report);
    }
}

/// Removes the globally weakest entries (archived as `budget`) until the memory fits the
/// token budget, or no entry is left.
pub fn budget(state: &mut State, now: DateTime<Utc>, settings: &Settings, report: &mut Report) {
    // Each entry sized once; a removal subtracts its size.
    let entry_sizes: [Vec<usize>; 4] = Category::ALL.map(|cat| {
        state
            .entries_mut(cat)
            .iter_mut()
            .map(entry_bytes_quick)
            .collect()
    });
    let mut sized = SizedMemory::of(&entry_sizes);
    if sized.tokens() <= settings.token_budget {
        return;
    }
    // Every entry, weakest first; of equals, the earlier category, then file order.
    let mut order: Vec<(usize, usize)> = Category::ALL
        .into_iter()
        .enumerate()
        .flat_map(|(ci, cat)| (0..state.entries(cat).len()).map(move |i| (ci, i)))
        .collect();
    let entry = |(ci, i): (usize, usize)| &state.entries(Category::ALL[ci])[i];
    order.sort_by(|&a, &b| weakness(entry(a), entry(b), now, settings.due_grace));
    let mut doomed = Vec::new();
    for at in order {
        if sized.tokens() <= settings.token_budget {
            break;
        }
        sized.remove(at.0, entry_sizes[at.0][at.1]);
        doomed.push(at);
    }
    // Archived in removal order (weakest first), whatever the category.
    let mut slots: [Vec<Option<Entry>>; 4] = Category::ALL.map(|cat| {
        std::mem::take(state.entries_mut(cat))
            .into_iter()
            .map(Some)
            .collect()
    });
    for (ci, i) in doomed {
        if let Some(entry) = slots[ci].get_mut(i).and_then(Option::take) {
            report.removed.push(Archived {
                entry,
                category: Category::ALL[ci],
                removed_at: now,
                reason: RemovalReason::Budget,
            });
        }
    }
    for (cat, list) in Category::ALL.into_iter().zip(slots) {
        *state.entries_mut(cat) = list.into_iter().flatten().collect();
    }
}

/// Rule 5: caps, then the budget.
pub fn apply(state: &mut State, now: DateTime<Utc>, settings: &Settings, report: &mut Report) {
    caps(state, now, settings, report);
    budget(state, now, settings, report);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timestamp;

    fn entry(id: &str, strength: u8) -> Entry {
        let t = timestamp::parse("2026-11-22T10:00:00Z").unwrap();
        let mut e = Entry::new(
            id.into(),
            format!("summary of {id} with \"quotes\" and ünïcode"),
            crate::state::Strength::whole(strength),
            5,
            t,
        );
        e.source = Some("watcher".into());
        e.from = vec!["watcher/inbox".into()];
        e.strength = crate::state::Strength::from_hundredths(i64::from(strength) * 100 - 37);
        e
    }

    fn written_memory(state: &State) -> usize {
        let mut v: serde_json::Value = serde_json::from_str(&state.to_json().unwrap()).unwrap();
        for cat in ["active_threads", "patterns", "hunches", "insights"] {
            for e in v[cat].as_array_mut().into_iter().flatten() {
                e.as_object_mut().map(|o| o.remove("said"));
            }
        }
        let memory = serde_json::json!({
            "active_threads": v["active_threads"], "patterns": v["patterns"],
            "hunches": v["hunches"], "insights": v["insights"],
        });
        serde_json::to_string_pretty(&memory).unwrap().len()
    }

    #[test]
    fn size_estimate_is_exact() {
        let mut state = State::default();
        assert_eq!(SizedMemory::new(&state).total(), written_memory(&state));
        state.patterns.push(entry("p-a", 3));
        state.patterns.push(entry("p-b", 4));
        state.insights.push(entry("i-c", 5));
        state.insights[0]
            .extra
            .insert("note".into(), serde_json::json!({"deep": [1, 2]}));
        // Bookkeeping does not count: an entry's other wordings, the thread state.
        let day = chrono::NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
        state.patterns[1].add_said(&"z".repeat(5_000), day);
        state.thread_state.watcher.focus_hint = "x".repeat(10_000);
        state
            .extra
            .insert("notes".into(), "y".repeat(10_000).into());
        let sized = SizedMemory::new(&state);
        assert_eq!(sized.total(), written_memory(&state));
        assert_eq!(estimated_tokens(&state), written_memory(&state) / 4);
        let mut quick = state.patterns[1].clone();
        assert_eq!(
            entry_bytes_quick(&mut quick),
            entry_bytes(&state.patterns[1])
        );
        assert_eq!(quick, state.patterns[1]);
    }

    /// The links' part is counted, not serialised: it must be what serde_json writes,
    /// whatever the ids hold.
    #[test]
    fn a_quick_size_with_links_is_exact() {
        use crate::state::{Link, LinkKind};
        for id in [
            "i-x",
            "p-with \"quotes\" and \\",
            "h-ctrl\u{1}\n\t\u{8}\u{c}\r",
            "t-ünïcödé ✓",
        ] {
            let mut e = entry("p-a", 3);
            for (k, kind) in [
                LinkKind::Connects,
                LinkKind::Contradicts,
                LinkKind::Connects,
            ]
            .into_iter()
            .enumerate()
            {
                e.links.push(Link {
                    id: format!("{id}{k}"),
                    kind,
                });
                e.extra
                    .insert("later".into(), serde_json::json!([1, {"a": "b"}]));
                let full = entry_bytes(&e);
                assert_eq!(
                    entry_bytes_quick(&mut e.clone()),
                    full,
                    "{id} with {} links",
                    k + 1
                );
            }
        }
    }

    #[test]
    fn removals_keep_the_size_exact() {
        let mut state = State {
            patterns: (0..4).map(|i| entry(&format!("p-{i}"), 3)).collect(),
            hunches: vec![entry("h-x", 2)],
            ..State::default()
        };
        let mut sized = SizedMemory::new(&state);
        for cat in [Category::Hunches, Category::Patterns, Category::Patterns] {
            let gone = state.entries_mut(cat).remove(0);
            sized.remove(
                Category::ALL.iter().position(|c| *c == cat).unwrap(),
                entry_bytes(&gone),
            );
            assert_eq!(sized.total(), written_memory(&state));
        }
    }
}
