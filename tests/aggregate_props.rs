//! Property tests of the aggregator's invariants (SPEC §7): strengths stay in 0..=10,
//! caps and the budget of the memory hold, the bookkeeping stays within its bounds, ids
//! are unique, output is identical for identical input, no entry vanishes without an
//! archive line, the report counts what left the memory.

use std::collections::HashSet;

use chrono::TimeDelta;
use proptest::prelude::*;
use thinker::aggregate::{Caps, Settings, ThreadError, ThreadOutcome, aggregate, prune};
use thinker::answer::{Answer, Finding};
use thinker::budget::Skip;
use thinker::state::{Category, Entry, State};
use thinker::thread::ThreadName;

use crate::support::now;

const WORDS: &[&str] = &[
    "disk", "full", "server", "backup", "invoice", "acme", "rent", "due", "meeting", "friday",
    "budget", "mail", "alice", "deploy", "failed", "night", "the", "of",
];

fn summary() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 1..6).prop_map(|w| w.join(" "))
}

fn entry() -> impl Strategy<Value = (String, u8, i64, i64)> {
    (summary(), 0u8..=10, 0i64..10_000, 0i64..10_000)
}

fn state() -> impl Strategy<Value = State> {
    (
        prop::collection::vec(entry(), 0..8),
        prop::collection::vec(entry(), 0..8),
        prop::collection::vec(entry(), 0..8),
        prop::collection::vec(entry(), 0..5),
        0u8..=10,
    )
        .prop_map(|(a, p, h, i, pressure)| {
            let mut s = State::default();
            for (cat, list) in Category::ALL.into_iter().zip([a, p, h, i]) {
                *s.entries_mut(cat) = list
                    .into_iter()
                    .enumerate()
                    .map(|(n, (summary, strength, seen, age))| Entry {
                        id: format!("{}gen-{n}", cat.id_prefix()),
                        summary,
                        strength,
                        created: now() - TimeDelta::minutes(seen + age),
                        last_seen: now() - TimeDelta::minutes(seen),
                        due: None,
                        source: None,
                        extra: serde_json::Map::new(),
                    })
                    .collect();
            }
            s.thread_state.watcher.novelty_pressure = pressure;
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
    )
        .prop_map(move |(findings, reinforce, suggest, escalate)| Answer {
            findings: findings
                .into_iter()
                .map(|(summary, importance, k)| Finding {
                    summary,
                    importance,
                    kind: thread.kinds()[k % thread.kinds().len()],
                    due: None,
                })
                .collect(),
            reinforce: reinforce.into_iter().map(str::to_string).collect(),
            suggest: suggest.unwrap_or_default(),
            escalate,
            escalate_reason: String::new(),
        })
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
    )
        .prop_map(|(a, p, h, i, budget, threshold)| Settings {
            caps: Caps {
                active_threads: a,
                patterns: p,
                hunches: h,
                insights: i,
            },
            token_budget: budget,
            match_threshold: threshold,
            ..Settings::default()
        })
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
            prop_assert!((1..=10).contains(&e.strength), "{} has strength {}", e.id, e.strength);
            prop_assert!(e.id.starts_with(cat.id_prefix()));
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
        if report.removed.iter().any(|a| a.reason == thinker::aggregate::RemovalReason::Budget) {
            let mut with_last = next.clone();
            let last = report.removed.iter().rev().find(|a| a.reason == thinker::aggregate::RemovalReason::Budget).unwrap();
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

        // What is written reads back identically.
        prop_assert_eq!(State::from_json(&next.to_json().unwrap()).unwrap(), next);
    }
}
