//! Table tests and a property of rule 9 of SPEC §7 (the agent's feedback). Each test
//! names the wrong implementation it would catch.

use chrono::TimeDelta;
use proptest::prelude::*;
use thinker::aggregate::Skip;
use thinker::aggregate::feedback::{Judgement, MAX_REJECTED, REJECTED_FIELD, Verdict, remembered};
use thinker::aggregate::{Caps, RemovalReason, Settings, ThreadOutcome, aggregate};
use thinker::answer::Answer;
use thinker::state::State;
use thinker::thread::{Kind, ThreadName};

use crate::support::*;

fn verdict(id: &str, verdict: Judgement) -> Verdict {
    Verdict {
        at: minutes_ago(5),
        id: id.into(),
        verdict,
        note: None,
    }
}

fn quiet() -> [ThreadOutcome; 4] {
    std::array::from_fn(|_| ThreadOutcome::Answered(Answer::default()))
}

fn seed() -> State {
    state_with(
        vec![entry("t-disk-full", "Disk almost full on backup host", 4)],
        vec![entry("p-rent-due", "Rent due on the first", 1)],
    )
}

#[test]
fn used_reinforces_once_like_a_thread_would() {
    // Guards against a verdict reinforcing on top of a thread (+2 twice) or only decaying.
    for (also_thread, twice, expected) in [(false, false, 5), (true, false, 5), (false, true, 5)] {
        let mut verdicts = vec![verdict("t-disk-full", Judgement::Used)];
        if twice {
            verdicts.push(verdict("t-disk-full", Judgement::Used));
        }
        let a = Answer {
            reinforce: if also_thread {
                vec!["t-disk-full".into()]
            } else {
                vec![]
            },
            ..Answer::default()
        };
        let (next, report) = aggregate(
            &seed(),
            &only(ThreadName::Watcher, a),
            &verdicts,
            now(),
            &settings(),
        );
        assert_eq!(
            next.active_threads[0].strength,
            st(expected),
            "thread {also_thread}, twice {twice}"
        );
        assert_eq!(next.active_threads[0].last_seen, now());
        assert_eq!(report.feedback.used, ["t-disk-full"]);
    }
}

#[test]
fn used_saves_an_entry_at_strength_one_from_decay() {
    // Guards against applying the verdict after decay removed the entry.
    let (next, report) = aggregate(
        &seed(),
        &quiet(),
        &[verdict("p-rent-due", Judgement::Used)],
        now(),
        &settings(),
    );
    assert_eq!(next.patterns[0].strength, st(2));
    assert!(report.removed.is_empty());
}

#[test]
fn wrong_removes_archives_rejected_and_remembers_the_summary() {
    let (next, report) = aggregate(
        &seed(),
        &quiet(),
        &[verdict("t-disk-full", Judgement::Wrong)],
        now(),
        &settings(),
    );
    assert!(next.active_threads.is_empty());
    let rejected: Vec<_> = report
        .removed
        .iter()
        .filter(|a| a.reason == RemovalReason::Rejected)
        .collect();
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0].entry.id, "t-disk-full");
    assert_eq!(rejected[0].removed_at, now());
    assert_eq!(report.feedback.rejected, ["t-disk-full"]);
    // The agent's decision is not memory lost to the rules (only the decayed
    // p-rent-due counts there), so it never raises the warning.
    assert_eq!((report.memory.archived, report.memory.rejected), (1, 1));
    let kept = remembered(&next);
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].summary, "Disk almost full on backup host");
    assert_eq!(kept[0].rejected_at, now());
}

#[test]
fn a_rejected_summary_is_not_added_again_within_the_window_and_is_after() {
    // (hours since the rejection, whether a matching finding becomes an entry)
    let window = Settings::default().rejected_memory.num_hours();
    for (hours, added) in [
        (0, false),
        (1, false),
        (window - 1, false),
        (window, true),
        (window + 5, true),
    ] {
        let (rejected, _) = aggregate(
            &seed(),
            &quiet(),
            &[verdict("t-disk-full", Judgement::Wrong)],
            now(),
            &settings(),
        );
        let later = now() + TimeDelta::hours(hours);
        let a = answer(vec![finding(
            "disk almost full on the backup host again",
            8,
            Kind::Anomaly,
        )]);
        let (next, report) = aggregate(
            &rejected,
            &only(ThreadName::Watcher, a),
            &[],
            later,
            &settings(),
        );
        assert_eq!(
            next.active_threads.len(),
            usize::from(added),
            "{hours} h later"
        );
        assert_eq!(
            report.feedback.kept_out.is_empty(),
            added,
            "{hours} h later"
        );
        // Past the window the memory of it is forgotten too.
        assert_eq!(remembered(&next).is_empty(), added, "{hours} h later");
    }
}

#[test]
fn a_finding_of_the_same_tick_is_kept_out_but_an_unrelated_one_is_added() {
    // Guards against the rejection being remembered only after the tick's findings.
    let a = answer(vec![
        finding("Disk almost full on backup host", 9, Kind::Anomaly),
        finding("Invoice from ACME arrived", 5, Kind::Observation),
    ]);
    let (next, report) = aggregate(
        &seed(),
        &only(ThreadName::Watcher, a),
        &[verdict("t-disk-full", Judgement::Wrong)],
        now(),
        &settings(),
    );
    let summaries: Vec<&str> = next
        .active_threads
        .iter()
        .map(|e| e.summary.as_str())
        .collect();
    assert_eq!(summaries, ["Invoice from ACME arrived"]);
    assert_eq!(
        report.feedback.kept_out,
        ["Disk almost full on backup host"]
    );
}

#[test]
fn a_window_of_zero_keeps_nothing_out() {
    let zero = Settings {
        rejected_memory: TimeDelta::zero(),
        ..settings()
    };
    let a = answer(vec![finding(
        "Disk almost full on backup host",
        9,
        Kind::Anomaly,
    )]);
    let (next, _) = aggregate(
        &seed(),
        &only(ThreadName::Watcher, a),
        &[verdict("t-disk-full", Judgement::Wrong)],
        now(),
        &zero,
    );
    assert_eq!(next.active_threads.len(), 1);
    assert!(!next.extra.contains_key(REJECTED_FIELD));
}

#[test]
fn unknown_ids_are_dropped_and_reported() {
    let (next, report) = aggregate(
        &seed(),
        &quiet(),
        &[
            verdict("t-gone", Judgement::Used),
            verdict("p-never", Judgement::Wrong),
        ],
        now(),
        &settings(),
    );
    let unknown: Vec<(&str, Judgement)> = report
        .feedback
        .unknown
        .iter()
        .map(|u| (u.id.as_str(), u.verdict))
        .collect();
    assert_eq!(
        unknown,
        [("t-gone", Judgement::Used), ("p-never", Judgement::Wrong)]
    );
    assert_eq!(next.active_threads[0].strength, st(3));
    assert!(remembered(&next).is_empty());
}

#[test]
fn the_last_word_counts() {
    // wrong, then used: the agent changed its mind; used, then wrong: removed.
    for (words, removed) in [
        ([Judgement::Wrong, Judgement::Used], false),
        ([Judgement::Used, Judgement::Wrong], true),
    ] {
        let verdicts: Vec<Verdict> = words.iter().map(|w| verdict("t-disk-full", *w)).collect();
        let (next, _) = aggregate(&seed(), &quiet(), &verdicts, now(), &settings());
        assert_eq!(next.active_threads.is_empty(), removed, "{words:?}");
    }
}

#[test]
fn verdicts_wait_when_no_thread_answered() {
    // SPEC §4.6: nothing changes on such a tick, the agent's word included.
    let skipped: [ThreadOutcome; 4] =
        std::array::from_fn(|_| ThreadOutcome::Skipped(Skip::Disabled));
    let (next, report) = aggregate(
        &seed(),
        &skipped,
        &[verdict("t-disk-full", Judgement::Wrong)],
        now(),
        &settings(),
    );
    assert_eq!(next, seed());
    assert!(!report.applied && report.feedback.is_empty());
}

#[test]
fn the_rejected_memory_is_bounded() {
    let mut state = State::default();
    for n in 0..MAX_REJECTED + 5 {
        state
            .active_threads
            .push(entry(&format!("t-x{n}"), &format!("thing number{n}"), 5));
    }
    let verdicts: Vec<Verdict> = (0..MAX_REJECTED + 5)
        .map(|n| verdict(&format!("t-x{n}"), Judgement::Wrong))
        .collect();
    let roomy = Settings {
        caps: Caps {
            active_threads: 100,
            ..Caps::default()
        },
        token_budget: 1_000_000,
        ..settings()
    };
    let (next, _) = aggregate(&state, &quiet(), &verdicts, now(), &roomy);
    let kept = remembered(&next);
    assert_eq!(kept.len(), MAX_REJECTED);
    assert_eq!(
        kept[MAX_REJECTED - 1].id,
        format!("t-x{}", MAX_REJECTED + 4)
    );
}

#[test]
fn an_unreadable_rejected_field_is_dropped_not_fatal() {
    let mut state = seed();
    state.extra.insert(
        REJECTED_FIELD.into(),
        serde_json::json!([{"summary": 3}, "x"]),
    );
    let (next, _) = aggregate(&state, &quiet(), &[], now(), &settings());
    assert!(!next.extra.contains_key(REJECTED_FIELD));
}

proptest! {
    /// Whatever the verdicts: an entry marked wrong (last word) is gone and archived
    /// `rejected` exactly once, an entry marked used is never weakened, nothing else is
    /// archived as rejected, and the same input gives the same output.
    #[test]
    fn verdicts_do_what_they_say(words in prop::collection::vec((0usize..4, any::<bool>()), 0..8)) {
        let ids = ["t-disk-full", "p-rent-due", "t-gone", "p-other"];
        let verdicts: Vec<Verdict> = words
            .iter()
            .map(|(i, used)| verdict(ids[*i], if *used { Judgement::Used } else { Judgement::Wrong }))
            .collect();
        let (next, report) = aggregate(&seed(), &quiet(), &verdicts, now(), &settings());
        let (again, report_again) = aggregate(&seed(), &quiet(), &verdicts, now(), &settings());
        prop_assert_eq!(&next, &again);
        prop_assert_eq!(&report, &report_again);
        for id in ["t-disk-full", "p-rent-due"] {
            let last = verdicts.iter().rev().find(|v| v.id == id).map(|v| v.verdict);
            let present = next.all_entries().any(|(_, e)| e.id == id);
            let rejected = report
                .removed
                .iter()
                .filter(|a| a.entry.id == id && a.reason == RemovalReason::Rejected)
                .count();
            match last {
                Some(Judgement::Wrong) => {
                    prop_assert!(!present);
                    prop_assert_eq!(rejected, 1);
                }
                Some(Judgement::Used) => {
                    prop_assert!(present);
                    prop_assert!(report.reinforced.iter().any(|c| c.id == id));
                }
                None => prop_assert_eq!(rejected, 0),
            }
        }
        prop_assert!(remembered(&next).len() <= MAX_REJECTED);
    }
}
