//! Table tests for every rule of SPEC §7. Each test names the wrong implementation it
//! would catch.

use chrono::TimeDelta;
use thinker::aggregate::Skip;
use thinker::aggregate::{RemovalReason, ThreadError, ThreadOutcome, aggregate, prune};
use thinker::answer::Answer;
use thinker::state::{Category, EscalationRecord, OUTCOME_PENDING, OUTCOME_SUPPRESSED, State};
use thinker::thread::{Kind, ThreadName};

use crate::support::*;

fn ids(entries: &[thinker::state::Entry]) -> Vec<&str> {
    entries.iter().map(|e| e.id.as_str()).collect()
}

// --- Rule 1: decay and reinforce ------------------------------------------------------

#[test]
fn reinforced_strength_one_entry_survives() {
    // Guards against applying decay before reinforcement (1 -> 0 -> removed).
    let state = state_with(vec![entry("t-disk-full", "Disk almost full", 1)], vec![]);
    let a = Answer {
        reinforce: vec!["t-disk-full".into()],
        ..Answer::default()
    };
    let (next, report) = aggregate(
        &state,
        &only(ThreadName::Watcher, a),
        &[],
        now(),
        &settings(),
    );
    assert_eq!(next.active_threads[0].strength, st(2));
    assert_eq!(next.active_threads[0].last_seen, now());
    assert!(report.removed.is_empty());
}

#[test]
fn decay_table() {
    // (strength, reinforced) -> strength after, None when removed
    let cases = [
        (1, false, None),
        (2, false, Some(1)),
        (10, false, Some(9)),
        (0, true, Some(1)),
        (1, true, Some(2)),
        (9, true, Some(10)),
        (10, true, Some(10)), // capped, not 11
    ];
    for (from, reinforced, expected) in cases {
        let state = state_with(vec![entry("t-x", "server load high", from)], vec![]);
        let a = Answer {
            reinforce: if reinforced {
                vec!["t-x".into()]
            } else {
                vec![]
            },
            ..Answer::default()
        };
        let (next, report) = aggregate(
            &state,
            &only(ThreadName::Oracle, a),
            &[],
            now(),
            &settings(),
        );
        let got = next.active_threads.first().map(|e| e.strength.rounded());
        assert_eq!(got, expected, "strength {from}, reinforced {reinforced}");
        if expected.is_none() {
            assert_eq!(report.removed[0].reason, RemovalReason::Decayed);
            assert_eq!(report.removed[0].removed_at, now());
        }
    }
}

#[test]
fn unreinforced_entry_keeps_its_last_seen() {
    let state = state_with(vec![entry("t-x", "server load high", 5)], vec![]);
    let (next, _) = aggregate(
        &state,
        &only(ThreadName::Watcher, Answer::default()),
        &[],
        now(),
        &settings(),
    );
    assert_eq!(next.active_threads[0].last_seen, minutes_ago(60));
}

#[test]
fn an_entry_is_reinforced_at_most_once_per_tick() {
    // Guards against +2 per mention: id from one thread, a matching finding from another.
    let state = state_with(
        vec![entry("t-disk-full", "Disk almost full on server", 5)],
        vec![],
    );
    let mut results = only(
        ThreadName::Watcher,
        Answer {
            reinforce: vec!["t-disk-full".into()],
            ..Answer::default()
        },
    );
    results[ThreadName::Oracle.index()] = ThreadOutcome::Answered(answer(vec![finding(
        "Disk almost full on the server",
        7,
        Kind::Risk,
    )]));
    let (next, report) = aggregate(&state, &results, &[], now(), &settings());
    assert_eq!(next.active_threads[0].strength, st(6));
    assert_eq!(report.reinforced.len(), 1);
}

#[test]
fn unknown_reinforce_ids_are_reported_and_ignored() {
    let state = state_with(vec![entry("t-x", "server load high", 5)], vec![]);
    let a = Answer {
        reinforce: vec!["t-nope".into()],
        ..Answer::default()
    };
    let (next, report) = aggregate(
        &state,
        &only(ThreadName::Librarian, a),
        &[],
        now(),
        &settings(),
    );
    assert_eq!(next.active_threads[0].strength, st(4));
    assert_eq!(report.unknown_reinforce[0].id, "t-nope");
}

// --- Rule 2: matching ----------------------------------------------------------------

#[test]
fn matching_finding_reinforces_instead_of_duplicating() {
    let state = state_with(
        vec![entry(
            "t-invoice-acme-overdue",
            "Invoice from ACME is overdue",
            4,
        )],
        vec![],
    );
    let a = answer(vec![finding(
        "The ACME invoice is overdue",
        6,
        Kind::Observation,
    )]);
    let (next, report) = aggregate(
        &state,
        &only(ThreadName::Watcher, a),
        &[],
        now(),
        &settings(),
    );
    assert_eq!(ids(&next.active_threads), vec!["t-invoice-acme-overdue"]);
    assert_eq!(next.active_threads[0].strength, st(5));
    assert!(report.added.is_empty());
}

#[test]
fn low_importance_finding_still_reinforces() {
    let state = state_with(vec![entry("t-x", "backup failed last night", 4)], vec![]);
    let a = answer(vec![finding(
        "Backup failed last night",
        0,
        Kind::Observation,
    )]);
    let (next, _) = aggregate(
        &state,
        &only(ThreadName::Watcher, a),
        &[],
        now(),
        &settings(),
    );
    assert_eq!(next.active_threads[0].strength, st(5));
}

#[test]
fn stop_words_and_case_do_not_count() {
    let state = state_with(vec![entry("t-x", "disk full", 4)], vec![]);
    let a = answer(vec![finding("The DISK is FULL!", 5, Kind::Observation)]);
    let (next, report) = aggregate(
        &state,
        &only(ThreadName::Watcher, a),
        &[],
        now(),
        &settings(),
    );
    assert!(report.added.is_empty());
    assert_eq!(next.active_threads[0].strength, st(5));
}

#[test]
fn below_threshold_is_a_new_entry() {
    // "disk full server" vs "disk full laptop battery": 2 shared of 5 = 0.4.
    let state = state_with(vec![entry("t-x", "disk full server", 4)], vec![]);
    let a = answer(vec![finding(
        "disk full laptop battery",
        5,
        Kind::Observation,
    )]);
    let (next, report) = aggregate(
        &state,
        &only(ThreadName::Watcher, a),
        &[],
        now(),
        &settings(),
    );
    assert_eq!(report.added.len(), 1);
    assert_eq!(next.active_threads.len(), 2);
    assert_eq!(next.active_threads[0].strength, st(3));
}

#[test]
fn threshold_is_configurable() {
    let state = state_with(vec![entry("t-x", "disk full server", 4)], vec![]);
    let a = answer(vec![finding(
        "disk full laptop battery",
        5,
        Kind::Observation,
    )]);
    let loose = thinker::aggregate::Settings {
        match_threshold: 0.4,
        ..settings()
    };
    let (_, report) = aggregate(&state, &only(ThreadName::Watcher, a), &[], now(), &loose);
    assert!(report.added.is_empty());
}

#[test]
fn best_match_wins_over_first_match() {
    // Guards against taking the first entry that is one fact with the finding: the
    // first only cites the same mail and says something compatible, the second says
    // the same thing (docs/spec.md §7.2).
    let mut cited = entry("t-a", "Letter from ACME about the account", 4);
    cited.refs = vec!["m1aaaa".into()];
    let state = state_with(
        vec![cited],
        vec![entry("p-b", "ACME invoice 4411 overdue", 4)],
    );
    let a = answer(vec![thinker::answer::Finding {
        refs: vec!["m1aaaa".into()],
        ..finding(
            "ACME invoice 4411 overdue, please pay",
            5,
            Kind::Observation,
        )
    }]);
    let (_, report) = aggregate(
        &state,
        &only(ThreadName::Watcher, a),
        &[],
        now(),
        &settings(),
    );
    let matched: Vec<&str> = report
        .sightings
        .iter()
        .filter(|s| matches!(s.by, thinker::aggregate::SightingBy::Matched { .. }))
        .map(|s| s.id.as_str())
        .collect();
    assert_eq!(matched, ["p-b"], "the exact match is the one seen again");
}

#[test]
fn ties_go_to_the_earlier_category_then_the_smaller_id() {
    // Two bills that stay apart (their numbers differ) and a finding that could be
    // either: a tie.
    let state = state_with(
        vec![entry("t-z", "rent due monday 4411", 4)],
        vec![entry("p-a", "rent due monday 4412", 4)],
    );
    let a = answer(vec![finding("Rent due Monday", 5, Kind::Observation)]);
    let (next, _) = aggregate(
        &state,
        &only(ThreadName::Watcher, a),
        &[],
        now(),
        &settings(),
    );
    assert_eq!(next.active_threads[0].strength, st(5));
    assert_eq!(next.patterns[0].strength, st(3));

    let mut state = fresh();
    state.hunches = vec![
        entry("h-b", "rent due monday 4411", 4),
        entry("h-a", "rent due monday 4412", 4),
    ];
    let a = answer(vec![finding("Rent due Monday", 5, Kind::Idea)]);
    let (next, _) = aggregate(
        &state,
        &only(ThreadName::Dreamer, a),
        &[],
        now(),
        &settings(),
    );
    let a_entry = next.hunches.iter().find(|e| e.id == "h-a").unwrap();
    let b_entry = next.hunches.iter().find(|e| e.id == "h-b").unwrap();
    assert_eq!((a_entry.strength, b_entry.strength), (st(5), st(3)));
}

// --- Rule 3: add ---------------------------------------------------------------------

#[test]
fn new_entries_need_importance_three() {
    let a = answer(vec![
        finding("printer toner low", 2, Kind::Observation),
        finding("server certificate expires soon", 3, Kind::Observation),
    ]);
    let (next, report) = aggregate(
        &State::default(),
        &only(ThreadName::Watcher, a),
        &[],
        now(),
        &settings(),
    );
    assert_eq!(
        ids(&next.active_threads),
        vec!["t-server-certificate-expires"]
    );
    let e = &next.active_threads[0];
    assert_eq!((e.strength, e.created, e.last_seen), (st(3), now(), now()));
    assert_eq!(e.source.as_deref(), Some("watcher"));
    assert_eq!(report.added[0].findings, 1);
}

#[test]
fn same_tick_findings_that_match_become_one_entry() {
    // Guards against one entry per thread for the same thing.
    let mut results = only(
        ThreadName::Watcher,
        answer(vec![finding(
            "Backup job failed on nas",
            4,
            Kind::Observation,
        )]),
    );
    results[ThreadName::Librarian.index()] = ThreadOutcome::Answered(answer(vec![finding(
        "backup job failed again on nas",
        8,
        Kind::Pattern,
    )]));
    let (next, report) = aggregate(&State::default(), &results, &[], now(), &settings());
    assert_eq!(report.added.len(), 1);
    assert_eq!(report.added[0].findings, 2);
    // The most important finding speaks: librarian's summary, routed as a pattern.
    assert_eq!(next.patterns[0].summary, "backup job failed again on nas");
    assert_eq!(next.patterns[0].source.as_deref(), Some("librarian"));
    assert!(next.active_threads.is_empty());
}

#[test]
fn group_is_added_when_any_member_is_important() {
    let a = answer(vec![
        finding("laptop fan loud today", 1, Kind::Observation),
        finding("Laptop fan very loud today", 6, Kind::Anomaly),
    ]);
    let (next, _) = aggregate(
        &State::default(),
        &only(ThreadName::Watcher, a),
        &[],
        now(),
        &settings(),
    );
    assert_eq!(next.active_threads.len(), 1);
    assert_eq!(next.active_threads[0].summary, "Laptop fan very loud today");
}

#[test]
fn equal_importance_ties_go_to_the_earliest_finding() {
    let mut results = only(
        ThreadName::Watcher,
        answer(vec![finding("rent due monday", 5, Kind::Observation)]),
    );
    results[ThreadName::Oracle.index()] = ThreadOutcome::Answered(answer(vec![finding(
        "rent due on monday",
        5,
        Kind::Deadline,
    )]));
    let (next, _) = aggregate(&State::default(), &results, &[], now(), &settings());
    assert_eq!(next.active_threads[0].summary, "rent due monday");
    assert_eq!(next.active_threads[0].source.as_deref(), Some("watcher"));
}

#[test]
fn findings_join_the_group_whose_first_finding_they_match() {
    // A~B and B~C but not A~C: C starts its own group (not transitive).
    let (ta, tb, tc) = (
        "kiwi lemon mango",
        "kiwi lemon mango papaya",
        "lemon mango papaya",
    );
    let key = |t: &str| thinker::aggregate::identity::Key::new(t, now().date_naive(), []);
    let same = |x: &str, y: &str| {
        thinker::aggregate::identity::compare(
            &key(x),
            &key(y),
            thinker::recall::synonyms::Synonyms::builtin(),
        )
        .same(settings().thresholds())
    };
    assert!(same(ta, tb) && same(tb, tc) && !same(ta, tc));
    let a = answer(vec![
        finding(ta, 5, Kind::Observation),
        finding(tb, 5, Kind::Observation),
        finding(tc, 5, Kind::Observation),
    ]);
    let (_, report) = aggregate(
        &State::default(),
        &only(ThreadName::Watcher, a),
        &[],
        now(),
        &settings(),
    );
    let sizes: Vec<usize> = report.added.iter().map(|a| a.findings).collect();
    assert_eq!(sizes, vec![2, 1]);
}

#[test]
fn routing_table() {
    let cases = [
        (
            ThreadName::Watcher,
            Kind::Observation,
            5,
            Category::ActiveThreads,
        ),
        (
            ThreadName::Watcher,
            Kind::Anomaly,
            5,
            Category::ActiveThreads,
        ),
        (ThreadName::Watcher, Kind::Pattern, 5, Category::Patterns),
        (ThreadName::Librarian, Kind::Pattern, 5, Category::Patterns),
        (
            ThreadName::Librarian,
            Kind::Connection,
            5,
            Category::Patterns,
        ),
        (
            ThreadName::Librarian,
            Kind::Forgotten,
            5,
            Category::ActiveThreads,
        ),
        (
            ThreadName::Librarian,
            Kind::Stale,
            5,
            Category::ActiveThreads,
        ),
        (
            ThreadName::Oracle,
            Kind::Anticipation,
            5,
            Category::ActiveThreads,
        ),
        (ThreadName::Oracle, Kind::Risk, 9, Category::ActiveThreads),
        (ThreadName::Dreamer, Kind::Idea, 5, Category::Hunches),
        (ThreadName::Dreamer, Kind::Question, 6, Category::Insights),
    ];
    for (thread, kind, importance, category) in cases {
        let a = answer(vec![finding(
            "quarterly taxes prepared early",
            importance,
            kind,
        )]);
        let (next, report) =
            aggregate(&State::default(), &only(thread, a), &[], now(), &settings());
        assert_eq!(
            report.added[0].category, category,
            "{thread} {kind} {importance}"
        );
        assert_eq!(next.entries(category).len(), 1);
        assert!(
            next.entries(category)[0]
                .id
                .starts_with(category.id_prefix())
        );
    }
}

#[test]
fn oracle_keeps_due() {
    let mut f = finding("Dentist appointment tomorrow morning", 6, Kind::Deadline);
    f.due = Some(t("2026-11-23T09:00:00Z"));
    let (next, _) = aggregate(
        &State::default(),
        &only(ThreadName::Oracle, answer(vec![f])),
        &[],
        now(),
        &settings(),
    );
    assert_eq!(next.active_threads[0].due, Some(t("2026-11-23T09:00:00Z")));
}

// --- Rule 4: ids ---------------------------------------------------------------------

#[test]
fn ids_are_unique_across_the_state() {
    let strict = thinker::aggregate::Settings {
        match_threshold: 1.0,
        ..settings()
    };
    let state = state_with(vec![entry("t-disk-full-now", "disk full now", 5)], vec![]);
    let a = answer(vec![
        finding("Disk full now 101", 5, Kind::Observation),
        finding("disk full now 102", 5, Kind::Observation),
        finding("It is.", 5, Kind::Observation),
    ]);
    let (next, _) = aggregate(&state, &only(ThreadName::Watcher, a), &[], now(), &strict);
    assert_eq!(
        ids(&next.active_threads),
        vec![
            "t-disk-full-now",
            "t-disk-full-now-2",
            "t-disk-full-now-3",
            "t-entry"
        ]
    );
}

// --- Rule 5: caps and budget ---------------------------------------------------------

#[test]
fn over_cap_the_weakest_goes_with_the_documented_tie_breaks() {
    let mut weak_old = entry("t-old", "alpha one", 4);
    weak_old.last_seen = minutes_ago(500);
    let mut weak_created = entry("t-created", "beta two", 4);
    weak_created.created = minutes_ago(9000);
    let larger_id = entry("t-zz", "gamma three", 4);
    let smaller_id = entry("t-aa", "delta four", 4);
    let strong = entry("t-strong", "epsilon five", 9);
    let state = state_with(
        vec![strong, smaller_id, larger_id, weak_created, weak_old],
        vec![],
    );
    let caps = |n| thinker::aggregate::Settings {
        caps: thinker::aggregate::Caps {
            active_threads: n,
            ..Default::default()
        },
        ..settings()
    };
    let order = ["t-old", "t-created", "t-zz", "t-aa", "t-strong"];
    for keep in (0..5).rev() {
        let (next, report) = aggregate(
            &state,
            &only(ThreadName::Watcher, Answer::default()),
            &[],
            now(),
            &caps(keep),
        );
        let removed: Vec<&str> = report.removed.iter().map(|a| a.entry.id.as_str()).collect();
        assert_eq!(removed, order[..5 - keep].to_vec(), "cap {keep}");
        assert!(
            report
                .removed
                .iter()
                .all(|a| a.reason == RemovalReason::Pruned)
        );
        assert_eq!(next.active_threads.len(), keep);
    }
}

#[test]
fn new_entries_compete_for_the_cap() {
    let state = state_with(
        (0..5)
            .map(|i| entry(&format!("t-{i}"), &format!("topic{i} words"), 2))
            .collect(),
        vec![],
    );
    let a = answer(vec![finding(
        "completely unrelated new thing",
        9,
        Kind::Anomaly,
    )]);
    let five = thinker::aggregate::Settings {
        caps: thinker::aggregate::Caps {
            active_threads: 5,
            ..thinker::aggregate::Caps::default()
        },
        ..settings()
    };
    let (next, report) = aggregate(&state, &only(ThreadName::Watcher, a), &[], now(), &five);
    assert_eq!(next.active_threads.len(), 5);
    // Importance 9 starts at strength 6: it bounces a weaker incumbent, not itself.
    assert!(
        next.active_threads
            .iter()
            .any(|e| e.id == "t-completely-unrelated-new")
    );
    assert_eq!(report.removed_ids(RemovalReason::Pruned).len(), 1);
}

#[test]
fn over_budget_the_globally_weakest_go() {
    let mut state = fresh();
    state.active_threads = vec![entry("t-a", "strong active entry words", 8)];
    state.patterns = vec![entry("p-b", "weak pattern entry words", 2)];
    state.insights = vec![entry("i-c", "medium insight entry words", 5)];
    let results = only(ThreadName::Watcher, Answer::default());
    let (roomy, _) = aggregate(&state, &results, &[], now(), &settings());
    // Just under what the tick's result needs: one entry must go, the weakest of all.
    let tight = thinker::aggregate::Settings {
        token_budget: prune::estimated_tokens(&roomy) - 5,
        ..settings()
    };
    let (next, report) = aggregate(&state, &results, &[], now(), &tight);
    assert_eq!(report.removed_ids(RemovalReason::Budget), vec!["p-b"]);
    assert!(prune::estimated_tokens(&next) <= tight.token_budget);
    assert_eq!(next.active_threads.len() + next.insights.len(), 2);
}

#[test]
fn the_budget_counts_the_four_categories_only() {
    let mut state = fresh();
    state.active_threads = vec![entry("t-a", "strong active entry words", 8)];
    state.patterns = vec![entry("p-b", "weak pattern entry words", 2)];
    let results = only(ThreadName::Watcher, Answer::default());
    let (roomy, _) = aggregate(&state, &results, &[], now(), &settings());
    let exact = thinker::aggregate::Settings {
        token_budget: prune::estimated_tokens(&roomy),
        ..settings()
    };
    // Bookkeeping and unknown fields far larger than the budget push nothing out.
    let mut bulky = state.clone();
    for thread in ThreadName::ALL {
        let ts = bulky.thread_state.get_mut(thread);
        ts.last_findings = vec!["twenty words of a finding summary ".repeat(4); 3];
        ts.history = vec![ts.last_findings.clone(); 3];
    }
    bulky
        .extra
        .insert("notes".into(), "kept but not counted ".repeat(1000).into());
    let (next, report) = aggregate(&bulky, &results, &[], now(), &exact);
    assert!(report.removed.is_empty(), "{:?}", report.removed);
    assert_eq!(next.entry_count(), 2);
    assert!(next.to_json().unwrap().len() / 4 > 4 * exact.token_budget);
    // One token less and the weakest goes.
    let tight = thinker::aggregate::Settings {
        token_budget: exact.token_budget - 1,
        ..settings()
    };
    let (_, report) = aggregate(&bulky, &results, &[], now(), &tight);
    assert_eq!(report.removed_ids(RemovalReason::Budget), vec!["p-b"]);
}

// --- Rule 6: thread state ------------------------------------------------------------

#[test]
fn last_findings_are_the_three_most_important_in_answer_order_on_ties() {
    let a = answer(vec![
        finding("one", 2, Kind::Observation),
        finding("two", 7, Kind::Observation),
        finding("three", 2, Kind::Observation),
        finding("four", 9, Kind::Observation),
    ]);
    let (next, _) = aggregate(
        &State::default(),
        &only(ThreadName::Watcher, a),
        &[],
        now(),
        &settings(),
    );
    assert_eq!(
        next.thread_state.watcher.last_findings,
        vec!["four", "two", "one"]
    );
    assert_eq!(
        next.thread_state.watcher.history,
        vec![vec!["four", "two", "one"]]
    );
}

#[test]
fn history_keeps_three_ticks() {
    let mut state = fresh();
    state.thread_state.oracle.history = vec![vec!["a".into()], vec!["b".into()], vec!["c".into()]];
    let a = answer(vec![finding("d", 1, Kind::Risk)]);
    let (next, _) = aggregate(
        &state,
        &only(ThreadName::Oracle, a),
        &[],
        now(),
        &settings(),
    );
    assert_eq!(
        next.thread_state.oracle.history,
        vec![vec!["b"], vec!["c"], vec!["d"]]
    );
}

#[test]
fn pressure_rises_on_empty_answers_resets_on_findings_and_caps() {
    let mut state = fresh();
    state.thread_state.watcher.novelty_pressure = 4;
    state.thread_state.librarian.novelty_pressure = 10;
    state.thread_state.oracle.novelty_pressure = 4;
    state.thread_state.dreamer.novelty_pressure = 4;
    let results = [
        ThreadOutcome::Answered(Answer::default()),
        ThreadOutcome::Answered(Answer::default()),
        ThreadOutcome::Answered(answer(vec![finding("x y", 1, Kind::Risk)])),
        ThreadOutcome::Answered(Answer {
            reinforce: vec!["h-gone".into()],
            ..Answer::default()
        }),
    ];
    let (next, _) = aggregate(&state, &results, &[], now(), &settings());
    let p: Vec<u8> = ThreadName::ALL
        .iter()
        .map(|t| next.thread_state.get(*t).novelty_pressure)
        .collect();
    assert_eq!(p, vec![5, 10, 0, 0]);
}

#[test]
fn failed_and_skipped_threads_keep_their_state() {
    // Guards against bumping the novelty pressure of a thread that never answered.
    let mut state = fresh();
    for t in ThreadName::ALL {
        let ts = state.thread_state.get_mut(t);
        ts.novelty_pressure = 3;
        ts.last_findings = vec!["before".into()];
        ts.history = vec![vec!["before".into()]];
    }
    let results = [
        ThreadOutcome::Failed(ThreadError::Call(String::new())),
        ThreadOutcome::Skipped(Skip::Disabled),
        ThreadOutcome::Answered(Answer::default()),
        ThreadOutcome::Failed(ThreadError::Call(String::new())),
    ];
    let (next, _) = aggregate(&state, &results, &[], now(), &settings());
    for t in [
        ThreadName::Watcher,
        ThreadName::Librarian,
        ThreadName::Dreamer,
    ] {
        let ts = next.thread_state.get(t);
        assert_eq!(ts.novelty_pressure, 3, "{t}");
        assert_eq!(ts.last_findings, vec!["before"], "{t}");
        assert_eq!(ts.history.len(), 1, "{t}");
    }
    assert_eq!(next.thread_state.oracle.novelty_pressure, 4);
}

#[test]
fn focus_hints_come_from_the_other_three_in_thread_order() {
    let say = |s: &str| {
        ThreadOutcome::Answered(Answer {
            suggest: s.into(),
            ..Answer::default()
        })
    };
    let mut state = fresh();
    state.thread_state.dreamer.focus_hint = "stale hint".into();
    let results = [
        say("look at mail"),
        say(""),
        say("check the calendar"),
        ThreadOutcome::Failed(ThreadError::Call(String::new())),
    ];
    let (next, _) = aggregate(&state, &results, &[], now(), &settings());
    assert_eq!(next.thread_state.watcher.focus_hint, "check the calendar");
    assert_eq!(
        next.thread_state.librarian.focus_hint,
        "look at mail; check the calendar"
    );
    assert_eq!(next.thread_state.oracle.focus_hint, "look at mail");
    // A failed thread still gets its hint from the others.
    assert_eq!(
        next.thread_state.dreamer.focus_hint,
        "look at mail; check the calendar"
    );
}

// --- Rule 7: escalation --------------------------------------------------------------

fn escalating(reason: &str) -> Answer {
    Answer {
        findings: vec![finding("Disk almost full on nas", 9, Kind::Anomaly)],
        escalate: true,
        escalate_reason: reason.into(),
        ..Answer::default()
    }
}

fn record(thread: &str, reason: &str, minutes: i64, outcome: &str) -> EscalationRecord {
    EscalationRecord::raised(minutes_ago(minutes), thread, reason, outcome.into())
}

#[test]
fn escalation_adds_a_pending_record_and_the_envelope() {
    let (next, report) = aggregate(
        &State::default(),
        &only(
            ThreadName::Watcher,
            escalating("Disk on nas will be full within hours"),
        ),
        &[],
        now(),
        &settings(),
    );
    assert_eq!(next.escalation_history.len(), 1);
    assert_eq!(next.escalation_history[0].outcome, OUTCOME_PENDING);
    assert_eq!(next.escalation_history[0].timestamp, now());
    let env = serde_json::to_value(report.envelope.unwrap()).unwrap();
    assert_eq!(env["ESCALATE"], true);
    assert_eq!(
        env["reason"],
        "watcher: Disk on nas will be full within hours"
    );
    assert_eq!(
        env["context"]["findings"][0]["summary"],
        "Disk almost full on nas"
    );
    assert_eq!(
        env["subconscious"]["active_threads"][0]["summary"],
        "Disk almost full on nas"
    );
}

#[test]
fn repeated_escalation_within_cooldown_is_suppressed() {
    let cases = [
        // (existing thread, minutes ago, reason, expected outcome)
        (
            "watcher",
            30,
            "Disk on nas will be full within hours",
            OUTCOME_SUPPRESSED,
        ),
        (
            "watcher",
            30,
            "Disk on NAS will be FULL within hours!",
            OUTCOME_SUPPRESSED,
        ),
        (
            "watcher",
            61,
            "Disk on nas will be full within hours",
            OUTCOME_PENDING,
        ),
        (
            "oracle",
            30,
            "Disk on nas will be full within hours",
            OUTCOME_PENDING,
        ),
        (
            "watcher",
            30,
            "Unusual login from new country",
            OUTCOME_PENDING,
        ),
    ];
    for (thread, minutes, reason, expected) in cases {
        let mut state = fresh();
        state.escalation_history = vec![record(thread, reason, minutes, OUTCOME_PENDING)];
        let (next, report) = aggregate(
            &state,
            &only(
                ThreadName::Watcher,
                escalating("Disk on nas will be full within hours"),
            ),
            &[],
            now(),
            &settings(),
        );
        let last = next.escalation_history.last().unwrap();
        assert_eq!(last.outcome, expected, "{thread} {minutes} {reason}");
        assert_eq!(report.envelope.is_some(), expected == OUTCOME_PENDING);
    }
}

#[test]
fn suppressed_repeats_do_not_pile_up_or_reopen_the_cooldown() {
    let mut state = fresh();
    state.escalation_history = vec![record("watcher", "disk nas full", 20, OUTCOME_PENDING)];
    for i in 0..12 {
        let at = now() + TimeDelta::minutes(i);
        let (next, _) = aggregate(
            &state,
            &only(ThreadName::Watcher, escalating("disk nas full")),
            &[],
            at,
            &settings(),
        );
        state = next;
    }
    assert_eq!(state.escalation_history.len(), 2);
    assert_eq!(state.escalation_history[0].outcome, OUTCOME_PENDING);
    assert_eq!(state.escalation_history[1].outcome, OUTCOME_SUPPRESSED);
}

#[test]
fn history_keeps_the_newest_ten() {
    let mut state = fresh();
    state.escalation_history = (0..10)
        .map(|i| {
            record(
                "oracle",
                &format!("reason number {i} unique{i}"),
                300 - i,
                "notified",
            )
        })
        .collect();
    let (next, _) = aggregate(
        &state,
        &only(ThreadName::Watcher, escalating("brand new reason")),
        &[],
        now(),
        &settings(),
    );
    assert_eq!(next.escalation_history.len(), 10);
    assert_eq!(next.escalation_history[0].reason, "reason number 1 unique1");
    assert_eq!(next.escalation_history[9].reason, "brand new reason");
}

#[test]
fn failed_threads_cannot_escalate_and_missing_reason_falls_back() {
    let mut a = escalating("");
    a.escalate_reason.clear();
    let results = [
        ThreadOutcome::Failed(ThreadError::Call(String::new())),
        ThreadOutcome::Skipped(Skip::Disabled),
        ThreadOutcome::Answered(a),
        ThreadOutcome::Failed(ThreadError::Call(String::new())),
    ];
    let (next, _) = aggregate(&State::default(), &results, &[], now(), &settings());
    assert_eq!(next.escalation_history.len(), 1);
    assert_eq!(next.escalation_history[0].thread, "oracle");
    assert_eq!(next.escalation_history[0].reason, "Disk almost full on nas");
}

// --- Rule 8 and SPEC §4.6 ------------------------------------------------------------

#[test]
fn tick_metadata_advances() {
    let mut state = fresh();
    state.tick_count = 41;
    let (next, _) = aggregate(
        &state,
        &only(ThreadName::Dreamer, Answer::default()),
        &[],
        now(),
        &settings(),
    );
    assert_eq!((next.tick_count, next.last_tick), (42, Some(now())));
}

#[test]
fn nothing_answered_nothing_changes() {
    // Guards against an outage (or a night of quiet hours) eroding the memory.
    let mut state = state_with(vec![entry("t-x", "server load high", 1)], vec![]);
    state.tick_count = 7;
    state.thread_state.watcher.novelty_pressure = 2;
    state.thread_state.watcher.focus_hint = "kept".into();
    for results in [
        [
            ThreadOutcome::Failed(ThreadError::Call(String::new())),
            ThreadOutcome::Failed(ThreadError::Call(String::new())),
            ThreadOutcome::Failed(ThreadError::Call(String::new())),
            ThreadOutcome::Failed(ThreadError::Call(String::new())),
        ],
        [
            ThreadOutcome::Skipped(Skip::Disabled),
            ThreadOutcome::Skipped(Skip::Disabled),
            ThreadOutcome::Skipped(Skip::Disabled),
            ThreadOutcome::Skipped(Skip::Disabled),
        ],
        [
            ThreadOutcome::Failed(ThreadError::Call(String::new())),
            ThreadOutcome::Skipped(Skip::Disabled),
            ThreadOutcome::Failed(ThreadError::Call(String::new())),
            ThreadOutcome::Skipped(Skip::Disabled),
        ],
    ] {
        let (next, report) = aggregate(&state, &results, &[], now(), &settings());
        assert_eq!(next, state);
        assert!(!report.applied);
        assert!(report.removed.is_empty());
    }
}
