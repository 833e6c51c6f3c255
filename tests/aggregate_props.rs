//! Property tests of the aggregator's invariants (SPEC §7): strengths stay in 0..=10,
//! caps and the budget of the memory hold, the bookkeeping stays within its bounds, ids
//! are unique, output is identical for identical input, no entry vanishes without an
//! archive line, the report counts what left the memory; decay by time: a pinned entry
//! is never charged before `due + grace`, twelve ticks in an hour charge what one tick an
//! hour later does, a long gap charges at most `max_decay_gap`; a screened thread
//! retires nothing.

use std::collections::HashSet;

use chrono::TimeDelta;
use proptest::prelude::*;
use thinker::aggregate::Skip;
use thinker::aggregate::{
    Caps, Decay, RemovalReason, Settings, ThreadError, ThreadOutcome, aggregate, prune,
};
use thinker::answer::{Answer, Finding, LinkProposal, Retire, RetireWhy, Seen};
use thinker::state::{Category, Entry, Link, LinkKind, State, Strength};

/// Ids the generated answers link (the generated states have `<prefix>gen-<n>`).
const LINKABLE: [&str; 8] = [
    "t-gen-0", "t-gen-1", "p-gen-0", "p-gen-1", "h-gen-0", "h-gen-1", "i-gen-0", "nope",
];
use thinker::thread::ThreadName;

use crate::support::now;

const WORDS: &[&str] = &[
    "disk", "full", "server", "backup", "invoice", "acme", "rent", "due", "meeting", "friday",
    "budget", "mail", "alice", "deploy", "failed", "night", "the", "of",
];

fn summary() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 1..6).prop_map(|w| w.join(" "))
}

/// (summary, strength in hundredths, importance, minutes since seen, age, due in
/// minutes from now (negative: past), tainted)
type Gen = (String, i64, u8, i64, i64, Option<i64>, bool);

fn entry() -> impl Strategy<Value = Gen> {
    (
        summary(),
        0i64..=1000,
        0u8..=10,
        0i64..10_000,
        0i64..10_000,
        prop::option::of(-1000i64..3000),
        any::<bool>(),
    )
}

fn build(cat: Category, n: usize, g: Gen) -> Entry {
    let (summary, strength, importance, seen, age, due, tainted) = g;
    let mut e = Entry::new(
        format!("{}gen-{n}", cat.id_prefix()),
        summary,
        Strength::from_hundredths(strength),
        importance,
        now() - TimeDelta::minutes(seen + age),
    );
    e.last_seen = now() - TimeDelta::minutes(seen);
    e.due = due.map(|m| now() + TimeDelta::minutes(m));
    e.tainted = tainted;
    e
}

fn state() -> impl Strategy<Value = State> {
    (
        prop::collection::vec(entry(), 0..8),
        prop::collection::vec(entry(), 0..8),
        prop::collection::vec(entry(), 0..8),
        prop::collection::vec(entry(), 0..5),
        0u8..=10,
        prop::option::of(0i64..600),
    )
        .prop_map(|(a, p, h, i, pressure, last)| {
            let mut s = State::default();
            for (cat, list) in Category::ALL.into_iter().zip([a, p, h, i]) {
                *s.entries_mut(cat) = list
                    .into_iter()
                    .enumerate()
                    .map(|(n, g)| build(cat, n, g))
                    .collect();
            }
            s.thread_state.watcher.novelty_pressure = pressure;
            s.last_tick = last.map(|m| now() - TimeDelta::minutes(m));
            s
        })
        .prop_flat_map(|s| {
            let n = s.entry_count().max(1);
            (
                Just(s),
                prop::collection::vec((0..n, 0..n, any::<bool>()), 0..12),
            )
        })
        .prop_map(|(mut s, pairs)| {
            // Links as a tick leaves them: symmetric, at most five an end.
            let ids: Vec<String> = s.all_entries().map(|(_, e)| e.id.clone()).collect();
            for (a, b, contradicts) in pairs {
                let (Some(a), Some(b)) = (ids.get(a), ids.get(b)) else {
                    continue;
                };
                let kind = if contradicts {
                    LinkKind::Contradicts
                } else {
                    LinkKind::Connects
                };
                let room = |s: &State, id: &str| {
                    s.all_entries()
                        .find(|(_, e)| e.id == id)
                        .is_some_and(|(_, e)| {
                            e.links.len() < 5
                                && !e
                                    .links
                                    .iter()
                                    .any(|l| l.id != id && (l.id == *a || l.id == *b))
                        })
                };
                if a == b || !room(&s, a) || !room(&s, b) {
                    continue;
                }
                for (end, other) in [(a, b), (b, a)] {
                    for cat in Category::ALL {
                        for e in s.entries_mut(cat).iter_mut().filter(|e| &e.id == end) {
                            e.links.push(Link {
                                id: other.clone(),
                                kind,
                            });
                        }
                    }
                }
            }
            s
        })
}

fn answer(thread: ThreadName) -> impl Strategy<Value = Answer> {
    (
        prop::collection::vec((summary(), 0u8..=10, 0usize..4), 0..10),
        prop::collection::vec(
            prop::sample::select(vec!["t-gen-0", "p-gen-1", "h-gen-2", "i-gen-0", "x-none"]),
            0..3,
        ),
        prop::option::of(summary()),
        any::<bool>(),
        (
            prop::collection::vec(prop::option::of(-600i64..3000), 10),
            prop::collection::vec(
                prop::sample::select(vec!["t-gen-1", "p-gen-0", "h-gen-1", "nope"]),
                0..3,
            ),
            any::<bool>(),
            prop::collection::vec(
                (
                    prop::sample::select(LINKABLE.to_vec()),
                    prop::sample::select(LINKABLE.to_vec()),
                    any::<bool>(),
                ),
                0..6,
            ),
        ),
    )
        .prop_map(
            move |(findings, reinforce, suggest, escalate, (dues, retire, screened, links))| {
                Answer {
                    links: links
                        .into_iter()
                        .map(|(a, b, contradicts)| LinkProposal {
                            a: a.to_string(),
                            b: b.to_string(),
                            kind: if contradicts {
                                LinkKind::Contradicts
                            } else {
                                LinkKind::Connects
                            },
                        })
                        .collect(),
                    findings: findings
                        .into_iter()
                        .zip(dues)
                        .map(|((summary, importance, k), due)| Finding {
                            summary,
                            importance,
                            kind: thread.kinds()[k % thread.kinds().len()],
                            due: due.map(|m| now() + TimeDelta::minutes(m)),
                            from: (k % 2 == 0).then(|| "inbox".to_string()),
                            refs: Vec::new(),
                        })
                        .collect(),
                    reinforce: reinforce.into_iter().map(str::to_string).collect(),
                    retire: retire
                        .into_iter()
                        .map(|id| Retire {
                            id: id.to_string(),
                            why: RetireWhy::Cancelled,
                        })
                        .collect(),
                    suggest: suggest.unwrap_or_default(),
                    escalate,
                    escalate_reason: String::new(),
                    seen: Seen {
                        sources: vec!["inbox".into()],
                        screened,
                    },
                }
            },
        )
}

fn result(thread: ThreadName) -> impl Strategy<Value = ThreadOutcome> {
    prop_oneof![
        6 => answer(thread).prop_map(ThreadOutcome::Answered),
        1 => Just(ThreadOutcome::Failed(ThreadError::Call(String::new()))),
        1 => Just(ThreadOutcome::Skipped(Skip::Disabled)),
    ]
}

fn results() -> impl Strategy<Value = [ThreadOutcome; 4]> {
    (
        result(ThreadName::Watcher),
        result(ThreadName::Librarian),
        result(ThreadName::Oracle),
        result(ThreadName::Dreamer),
    )
        .prop_map(|(a, b, c, d)| [a, b, c, d])
}

fn settings() -> impl Strategy<Value = Settings> {
    (
        0usize..7,
        0usize..7,
        0usize..7,
        0usize..5,
        150usize..3000,
        0.3f64..1.0,
        (0.2f64..24.0, 0i64..240, 0i64..24),
    )
        .prop_map(
            |(a, p, h, i, budget, threshold, (hours, gap, grace))| Settings {
                caps: Caps {
                    active_threads: a,
                    patterns: p,
                    hunches: h,
                    insights: i,
                },
                token_budget: budget,
                match_threshold: threshold,
                decay: Decay::hours(hours, hours * 6.0, hours * 2.0, hours * 6.0),
                max_decay_gap: TimeDelta::minutes(gap),
                due_grace: TimeDelta::hours(grace),
                ..Settings::default()
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn invariants_hold(state in state(), results in results(), settings in settings()) {
        let (next, report) = aggregate(&state, &results, &[], now(), &settings);

        // Same input, same output.
        let (again, report_again) = aggregate(&state, &results, &[], now(), &settings);
        prop_assert_eq!(&next, &again);
        prop_assert_eq!(&report, &report_again);

        if !report.applied {
            prop_assert_eq!(&next, &state);
            return Ok(());
        }

        for (cat, e) in next.all_entries() {
            prop_assert!(e.strength > Strength::ZERO && e.strength <= Strength::MAX, "{} has strength {}", e.id, e.strength);
            prop_assert!(e.id.starts_with(cat.id_prefix()));
            prop_assert!(e.importance <= 10 && e.sightings >= 1 && e.from.len() <= 5);
        }
        // A pinned entry is never charged: it keeps at least its strength.
        for (_, before) in state.all_entries().filter(|(_, e)| e.pinned(now(), settings.due_grace)) {
            if let Some((_, after)) = next.all_entries().find(|(_, e)| e.id == before.id) {
                prop_assert!(after.strength >= before.strength, "{} pinned but charged", before.id);
            }
        }
        // A long gap charges at most max_decay_gap's worth.
        for (cat, before) in state.all_entries() {
            if let Some((_, after)) = next.all_entries().find(|(_, e)| e.id == before.id) {
                let most = settings.max_decay_gap.num_seconds() * 100 / settings.decay.of(cat) + 1;
                prop_assert!(before.strength.hundredths() - after.strength.hundredths() <= most);
            }
        }
        // A screened thread retires nothing.
        let screened_retires = results.iter().filter_map(ThreadOutcome::answer).any(|a| a.seen.screened && !a.retire.is_empty());
        if screened_retires {
            prop_assert!(!report.retire_refused.is_empty());
        }
        for a in &report.removed {
            if let RemovalReason::Retired(_) = a.reason {
                let by_clean = results.iter().filter_map(ThreadOutcome::answer)
                    .any(|x| !x.seen.screened && x.retire.iter().any(|r| r.id == a.entry.id));
                prop_assert!(by_clean, "{} retired by a screened thread", a.entry.id);
            }
        }
        for cat in Category::ALL {
            prop_assert!(next.entries(cat).len() <= settings.caps.of(cat));
        }
        // The four categories fit the budget, or are empty; bookkeeping does not count.
        prop_assert!(
            next.entry_count() == 0 || prune::estimated_tokens(&next) <= settings.token_budget,
            "over budget: {} > {}", prune::estimated_tokens(&next), settings.token_budget
        );
        // Nothing is removed for the budget while the memory fits without it.
        if report.removed.iter().any(|a| a.reason == RemovalReason::Budget) {
            let mut with_last = next.clone();
            let last = report.removed.iter().rev().find(|a| a.reason == RemovalReason::Budget).unwrap();
            // The memory as the budget saw it: links to departed entries are dropped only
            // after the last removal.
            for u in report.unlinked.iter().filter(|u| u.why == "left") {
                for cat in Category::ALL {
                    if let Some(e) = with_last.entries_mut(cat).iter_mut().find(|e| e.id == u.a) {
                        e.links.push(Link { id: u.b.clone(), kind: u.kind });
                    }
                }
            }
            with_last.entries_mut(last.category).push(last.entry.clone());
            prop_assert!(prune::estimated_tokens(&with_last) > settings.token_budget, "removed {} for budget needlessly", last.entry.id);
        }
        prop_assert!(next.validate().is_ok(), "ids unique and valid");
        for thread in ThreadName::ALL {
            let ts = next.thread_state.get(thread);
            prop_assert!(ts.novelty_pressure <= 10);
            prop_assert!(ts.history.len() <= 3);
            prop_assert!(ts.last_findings.len() <= 3);
            for s in ts.last_findings.iter().chain(ts.history.iter().flatten()) {
                prop_assert!(s.split_whitespace().count() <= 20 && s.chars().count() <= 240);
            }
            prop_assert!(ts.focus_hint.split_whitespace().count() <= 120);
        }

        // The report counts the memory before and after and what left it.
        prop_assert_eq!(report.memory.before, state.entry_count());
        prop_assert_eq!(report.memory.after, next.entry_count());
        prop_assert!(report.memory.archived <= report.memory.before);
        prop_assert!(report.memory.archived <= report.removed.len());
        prop_assert_eq!(
            report.memory.archived,
            report.memory.decayed + report.memory.pruned + report.memory.budget
        );
        prop_assert_eq!(
            report.memory.before + report.added.len() - report.removed.len(),
            report.memory.after
        );
        prop_assert!(next.escalation_history.len() <= settings.escalation_history);

        // Nothing vanishes without an archive line; nothing archived stays.
        let kept: HashSet<&str> = next.all_entries().map(|(_, e)| e.id.as_str()).collect();
        let archived: HashSet<&str> = report.removed.iter().map(|a| a.entry.id.as_str()).collect();
        for (_, e) in state.all_entries() {
            prop_assert!(kept.contains(e.id.as_str()) || archived.contains(e.id.as_str()), "{} vanished", e.id);
        }
        for a in &report.removed {
            let still_there = next.all_entries().any(|(_, e)| e == &a.entry);
            prop_assert!(!still_there, "{} archived but kept", a.entry.id);
        }

        // Links (rule 12): symmetric, no dangling end, at most five an end, no self-link.
        let present: HashSet<&str> = next.all_entries().map(|(_, e)| e.id.as_str()).collect();
        for (_, e) in next.all_entries() {
            prop_assert!(e.links.len() <= 5, "{} has {} links", e.id, e.links.len());
            for l in &e.links {
                prop_assert!(l.id != e.id, "{} links itself", e.id);
                prop_assert!(present.contains(l.id.as_str()), "{} links {} which left", e.id, l.id);
                let back = next.all_entries().find(|(_, o)| o.id == l.id).map(|(_, o)| o);
                prop_assert!(
                    back.is_some_and(|o| o.links.iter().any(|x| x.id == e.id && x.kind == l.kind)),
                    "{} -> {} is not recorded on both ends", e.id, l.id
                );
            }
            let mut ids: Vec<&str> = e.links.iter().map(|l| l.id.as_str()).collect();
            ids.sort_unstable();
            ids.dedup();
            prop_assert_eq!(ids.len(), e.links.len(), "duplicate links on {}", e.id);
        }
        // Only the Librarian and the Dreamer link, never from screened text.
        for l in &report.linked {
            prop_assert!(l.thread.links());
            let screened = results[l.thread.index()].answer().is_some_and(|a| a.seen.screened);
            prop_assert!(!screened);
        }

        // What is written reads back identically.
        prop_assert_eq!(State::from_json(&next.to_json().unwrap()).unwrap(), next);
    }

    /// Decay by time: twelve ticks five minutes apart charge exactly what one tick an
    /// hour later does, whatever the entries and the decay settings.
    #[test]
    fn twelve_ticks_in_an_hour_charge_what_one_tick_does(
        state in state(),
        hours in 0.2f64..24.0,
        offset in 0i64..3600,
    ) {
        let settings = Settings {
            caps: Caps { active_threads: 100, patterns: 100, hunches: 100, insights: 100 },
            token_budget: 10_000_000,
            decay: Decay::hours(hours, hours * 3.0, hours / 2.0, hours * 7.0),
            ..Settings::default()
        };
        let quiet = || ThreadName::ALL.map(|_| ThreadOutcome::Answered(Answer::default()));
        let start = now() + TimeDelta::seconds(offset);
        let mut first = state.clone();
        // Near-duplicates merge on the first tick (rule 13) into the strongest of them,
        // each category decaying at its own pace: merged first, so that decay alone is
        // compared.
        thinker::aggregate::consolidate::apply(
            &mut first,
            start,
            &settings,
            &mut thinker::aggregate::Report::default(),
        );
        first.last_tick = Some(start);
        let mut many = first.clone();
        for k in 1..=12 {
            many = aggregate(&many, &quiet(), &[], start + TimeDelta::minutes(5 * k), &settings).0;
        }
        let (one, _) = aggregate(&first, &quiet(), &[], start + TimeDelta::minutes(60), &settings);
        let strengths = |s: &State| s.all_entries().map(|(_, e)| (e.id.clone(), e.strength)).collect::<Vec<_>>();
        prop_assert_eq!(strengths(&many), strengths(&one));
    }
}
