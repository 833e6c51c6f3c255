//! The memory that holds up with a real model (docs/spec.md §7.2, §7.5, §7.13, §8): a
//! report's identity by its identifying words and the items it cites, the merge of
//! near-duplicates, pruning by value, and the told ledger. Table tests, then properties.

use chrono::TimeDelta;
use proptest::prelude::*;
use thinker::aggregate::{RemovalReason, Settings, ThreadOutcome, aggregate, prune};
use thinker::answer::{Answer, Finding, Seen};
use thinker::state::{Category, DecisionRecord, Entry, EscalationOutcome, State, Strength};
use thinker::thread::{Kind, ThreadName};

use crate::support::*;

fn cited(summary: &str, importance: u8, refs: &[&str]) -> Finding {
    Finding {
        refs: refs.iter().map(|r| (*r).to_string()).collect(),
        from: Some("inbox".into()),
        ..finding(summary, importance, Kind::Observation)
    }
}

fn seeing(findings: Vec<Finding>) -> Answer {
    Answer {
        findings,
        seen: Seen {
            sources: vec!["inbox".into()],
            screened: false,
        },
        ..Answer::default()
    }
}

fn with_refs(mut e: Entry, refs: &[&str]) -> Entry {
    e.refs = refs.iter().map(|r| (*r).to_string()).collect();
    e
}

// --- Rule 2: identity ------------------------------------------------------------------

#[test]
fn a_paraphrase_citing_the_entry_s_item_joins_it() {
    // Guards against matching by raw-token Jaccard only: 0.53 here, under 0.6.
    let state = state_with(
        vec![with_refs(
            entry(
                "t-tp1367-lisbon-flight",
                "TP1367 Lisbon flight Fri now departs 06:05 (was 09:40)",
                5,
            ),
            &["m3fq9k"],
        )],
        vec![],
    );
    let cases = [
        (
            "Flight TP1367 to Lisbon on Friday rescheduled: new departure 06:05 instead of 09:40",
            vec!["m3fq9k"],
        ),
        ("Reminder: Lisbon flt Fri leaves 6.05am", vec!["m3fq9k"]),
        (
            "Flight TP1367 to Lisbon on Friday rescheduled: new departure 06:05 instead of 09:40",
            vec![],
        ),
    ];
    for (summary, refs) in cases {
        let (next, report) = aggregate(
            &state,
            &only(ThreadName::Watcher, seeing(vec![cited(summary, 7, &refs)])),
            &[],
            now(),
            &settings(),
        );
        assert!(report.added.is_empty(), "{summary}: {:?}", report.added);
        assert_eq!(next.active_threads.len(), 1, "{summary}");
        assert_eq!(next.active_threads[0].sightings, 2, "{summary}");
        assert_eq!(next.active_threads[0].importance, 7);
    }
}

#[test]
fn two_facts_from_one_sender_stay_apart_even_citing_one_mail() {
    // Guards against "same reference → same entry" without a check of what it says.
    let state = state_with(
        vec![with_refs(
            entry(
                "t-acme-invoice-4411",
                "ACME invoice 4411 for €120 overdue",
                5,
            ),
            &["m3fq9k"],
        )],
        vec![],
    );
    for summary in [
        "ACME invoice 4412 for €80 overdue",
        "ACME bill of €80 due Friday",
        "School closed on Monday for staff training",
    ] {
        let (next, report) = aggregate(
            &state,
            &only(
                ThreadName::Watcher,
                seeing(vec![cited(summary, 6, &["m3fq9k"])]),
            ),
            &[],
            now(),
            &settings(),
        );
        assert_eq!(report.added.len(), 1, "{summary}");
        assert_eq!(next.active_threads.len(), 2, "{summary}");
        assert_eq!(next.active_threads[0].sightings, 1, "{summary}");
    }
}

#[test]
fn a_new_entry_keeps_the_references_of_its_findings() {
    let (next, _) = aggregate(
        &fresh(),
        &only(
            ThreadName::Watcher,
            seeing(vec![
                cited("Parcel from DHL needs a signature Thursday", 6, &["m3fq9k"]),
                cited(
                    "DHL parcel needs your signature on Thursday",
                    5,
                    &["e7h2kq"],
                ),
            ]),
        ),
        &[],
        now(),
        &settings(),
    );
    assert_eq!(next.active_threads.len(), 1);
    assert_eq!(next.active_threads[0].refs, ["m3fq9k", "e7h2kq"]);
}

// --- Rule 13: consolidation ------------------------------------------------------------

#[test]
fn an_entry_is_known_by_the_wordings_of_its_clean_reports() {
    // A model reported the parcel with two words in common with the next report; a
    // report in between said it with the sender, the code and the day.
    let parcel = || {
        with_refs(
            entry(
                "t-package-waiting-post",
                "Package waiting at the post office",
                5,
            ),
            &["msdd6o"],
        )
    };
    let between = "DHL parcel 00340434 waiting at the post office until Sat 28 Nov";
    let next_report = "Pick up the DHL package by Saturday";
    let tick = |state: &State, answer: Answer| {
        aggregate(
            state,
            &only(ThreadName::Watcher, answer),
            &[],
            now(),
            &settings(),
        )
    };
    // Without the report in between, the next one is a second fact.
    let (alone, _) = tick(
        &state_with(vec![parcel()], vec![]),
        seeing(vec![cited(next_report, 5, &["msdd6o"])]),
    );
    assert_eq!(alone.active_threads.len(), 2);
    // The report in between is kept as a wording of the entry...
    let (seen, report) = tick(
        &state_with(vec![parcel()], vec![]),
        seeing(vec![cited(between, 5, &["msdd6o"])]),
    );
    assert!(report.added.is_empty(), "{:?}", report.added);
    let e = &seen.active_threads[0];
    assert_eq!(e.said.len(), 1);
    assert_eq!(
        (e.said[0].text.as_str(), e.said[0].day),
        (between, now().date_naive())
    );
    // ...and the next report is then the same fact.
    let (next, report) = tick(&seen, seeing(vec![cited(next_report, 5, &["msdd6o"])]));
    assert!(report.added.is_empty(), "{:?}", report.added);
    assert_eq!(next.active_threads.len(), 1);
    assert_eq!(next.active_threads[0].sightings, 3);
    // A wording seen again, or the summary's own, is not kept twice.
    let (again, _) = tick(&next, seeing(vec![cited(between, 5, &["msdd6o"])]));
    assert_eq!(again.active_threads[0].said.len(), 2);
    // A report from screened text reinforces but adds no wording: hostile text must
    // not widen what a memory answers to.
    let mut screened = seeing(vec![cited(between, 5, &["msdd6o"])]);
    screened.seen.screened = true;
    let (hostile, _) = tick(&state_with(vec![parcel()], vec![]), screened);
    assert_eq!(hostile.active_threads[0].sightings, 2);
    assert!(hostile.active_threads[0].said.is_empty());
    // Nor does a report cut short: it says less than the summary.
    let (short, _) = tick(
        &state_with(vec![parcel()], vec![]),
        seeing(vec![cited("Package waiting at the", 5, &["msdd6o"])]),
    );
    assert_eq!(short.active_threads[0].sightings, 2);
    assert!(short.active_threads[0].said.is_empty());
    // Two entries merged: the survivor keeps the other's summary as a wording.
    let mut newer = with_refs(entry("t-dhl-parcel-00340434", between, 4), &["msdd6o"]);
    newer.created = minutes_ago(30);
    let mut older = parcel();
    older.created = minutes_ago(90);
    let (merged, report) = tick(&state_with(vec![older, newer], vec![]), Answer::default());
    assert_eq!(report.merged.len(), 1, "{report:?}");
    let said: Vec<&str> = merged.active_threads[0]
        .said
        .iter()
        .map(|w| w.text.as_str())
        .collect();
    assert_eq!(said, [between]);
}

#[test]
fn near_duplicates_in_memory_merge_into_the_older_with_the_union_of_both() {
    let mut old = with_refs(
        entry(
            "t-rent-950-unpaid",
            "Rent of £950 unpaid, landlord chasing",
            4,
        ),
        &["m1aaaa"],
    );
    old.created = minutes_ago(600);
    old.from = vec!["watcher/inbox".into()];
    old.importance = 6;
    old.sightings = 3;
    let mut dup = with_refs(
        entry(
            "p-landlord-chasing-unpaid",
            "Reminder: landlord chasing unpaid rent £950",
            7,
        ),
        &["m2bbbb"],
    );
    dup.created = minutes_ago(60);
    dup.from = vec!["librarian/memory".into()];
    dup.importance = 8;
    dup.sightings = 2;
    dup.due = Some(now() + TimeDelta::days(2));
    let state = state_with(vec![old], vec![dup]);
    let (next, report) = aggregate(
        &state,
        &only(ThreadName::Oracle, Answer::default()),
        &[],
        now(),
        &settings(),
    );
    assert_eq!(next.entry_count(), 1, "{report:?}");
    let e = &next.active_threads[0];
    assert_eq!(e.id, "t-rent-950-unpaid");
    assert_eq!(e.importance, 8);
    assert_eq!(e.sightings, 5);
    assert_eq!(e.from, ["watcher/inbox", "librarian/memory"]);
    assert_eq!(e.refs, ["m1aaaa", "m2bbbb"]);
    assert_eq!(e.due, Some(now() + TimeDelta::days(2)));
    assert_eq!(e.created, minutes_ago(600));
    // The other's summary says nothing the survivor's does not: no wording kept.
    assert!(e.said.is_empty(), "{:?}", e.said);
    assert!(e.strength >= Strength::whole(6));
    assert_eq!(report.merged.len(), 1);
    assert_eq!(report.merged[0].into, "t-rent-950-unpaid");
    let archived = &report.removed[0];
    assert_eq!(archived.reason, RemovalReason::Merged);
    assert_eq!(archived.entry.id, "p-landlord-chasing-unpaid");
    assert_eq!(report.memory.merged, 1);
    assert_eq!(report.memory.archived, 0);
}

#[test]
fn a_link_to_a_merged_entry_follows_it() {
    let mut a = entry(
        "t-rent-950-unpaid",
        "Rent of £950 unpaid, landlord chasing",
        4,
    );
    a.created = minutes_ago(700);
    let mut b = entry(
        "t-landlord-chasing-unpaid",
        "Landlord chasing unpaid rent £950",
        4,
    );
    b.links = vec![thinker::state::Link {
        id: "i-money-tight".into(),
        kind: thinker::state::LinkKind::Connects,
    }];
    let mut c = entry("i-money-tight", "Money is tight this month", 4);
    c.links = vec![thinker::state::Link {
        id: "t-landlord-chasing-unpaid".into(),
        kind: thinker::state::LinkKind::Connects,
    }];
    let mut state = state_with(vec![a, b], vec![]);
    state.insights.push(c);
    let (next, _) = aggregate(
        &state,
        &only(ThreadName::Oracle, Answer::default()),
        &[],
        now(),
        &settings(),
    );
    assert_eq!(next.insights[0].links[0].id, "t-rent-950-unpaid");
    assert_eq!(next.active_threads[0].links[0].id, "i-money-tight");
}

// --- Rule 5: pruning by value -------------------------------------------------------------

#[test]
fn an_important_newcomer_takes_the_place_of_reinforced_noise() {
    // Guards against pruning by strength: the noise is at 10 and seen 30 times.
    let mut s = Settings::default();
    s.caps.active_threads = 3;
    let noise = |i: usize| {
        let mut e = entry(
            &format!("t-weekly-digest-{i}"),
            &format!("Email digest number {i}"),
            10,
        );
        e.importance = 3;
        e.sightings = 30;
        e
    };
    let state = state_with(vec![noise(1), noise(2), noise(3)], vec![]);
    let (next, report) = aggregate(
        &state,
        &only(
            ThreadName::Watcher,
            seeing(vec![cited(
                "Energy direct debit €112 will bounce on 1 Dec",
                9,
                &[],
            )]),
        ),
        &[],
        now(),
        &s,
    );
    assert!(
        next.active_threads.iter().any(|e| e.importance == 9),
        "{report:?}"
    );
    assert_eq!(report.removed[0].entry.importance, 3);
}

// --- §8: the told ledger -----------------------------------------------------------------

fn escalating(summary: &str, reason: &str, refs: &[&str]) -> Answer {
    Answer {
        escalate: true,
        escalate_reason: reason.into(),
        ..seeing(vec![cited(summary, 9, refs)])
    }
}

/// The state after an escalation of the rent that was told to the user.
fn told_rent() -> State {
    let (mut next, _) = aggregate(
        &fresh(),
        &only(
            ThreadName::Watcher,
            escalating(
                "Rent of £950 unpaid, landlord chasing",
                "Rent £950 unpaid",
                &["m1aaaa"],
            ),
        ),
        &[],
        minutes_ago(180),
        &settings(),
    );
    let record = &mut next.escalation_history[0];
    record.outcome = EscalationOutcome::Notified("Your rent of £950 is unpaid".into());
    record.decision = Some(DecisionRecord {
        action: "notify".into(),
        text: "Your rent of £950 is unpaid.".into(),
        why: "urgent".into(),
    });
    next
}

#[test]
fn a_paraphrased_re_escalation_of_what_was_told_folds_without_a_record() {
    // Guards against a cooldown by reason text only: a paraphrase, another thread, a
    // clock stepped back, hours later, and with eleven other records in between.
    let base = told_rent();
    let cases: [(ThreadName, &str, &str, chrono::DateTime<chrono::Utc>); 4] = [
        (
            ThreadName::Watcher,
            "Landlord chasing unpaid rent £950",
            "Pay the rent today!",
            now(),
        ),
        (
            ThreadName::Oracle,
            "Unpaid rent of £950: landlord chasing",
            "Rent still unpaid",
            now(),
        ),
        (
            ThreadName::Watcher,
            "Reminder: rent £950 unpaid",
            "rent",
            minutes_ago(182),
        ),
        (
            ThreadName::Librarian,
            "Rent £950 outstanding, landlord chasing",
            "Landlord wants £950 rent",
            now() + TimeDelta::days(2),
        ),
    ];
    for (thread, summary, reason, at) in cases {
        let mut state = base.clone();
        for i in 0..11 {
            state
                .escalation_history
                .push(thinker::state::EscalationRecord::raised(
                    minutes_ago(170 - i),
                    "dreamer",
                    format!("an unrelated matter {i}"),
                    EscalationOutcome::Dismissed("no".into()),
                ));
        }
        let (next, report) = aggregate(
            &state,
            &only(thread, escalating(summary, reason, &["m1aaaa"])),
            &[],
            at,
            &settings(),
        );
        assert!(
            report.escalations.is_empty(),
            "{summary}: {:?}",
            report.escalations
        );
        assert_eq!(report.folded.len(), 1, "{summary}");
        assert_eq!(next.told.len(), 1);
        assert_eq!(next.told[0].folded, 1);
        assert_eq!(next.told[0].text, "Your rent of £950 is unpaid.");
    }
}

#[test]
fn a_reason_joining_a_told_matter_and_a_new_one_raises_only_the_new_one() {
    // Found on the harsh week: "Kestrel pitch brought forward…; Prescription ready…"
    // folded whole into the pitch's told matter, and the prescription was never told.
    let base = told_rent();
    let answer = Answer {
        escalate: true,
        escalate_reason: "Rent £950 unpaid, landlord chasing; Boiler leaking in the \
                          kitchen, engineer needed today"
            .into(),
        ..seeing(vec![
            cited("Rent of £950 unpaid, landlord chasing", 9, &["m1aaaa"]),
            cited(
                "Boiler leaking in the kitchen, engineer needed today",
                9,
                &["m3cccc"],
            ),
        ])
    };
    let (next, report) = aggregate(
        &base,
        &only(ThreadName::Watcher, answer.clone()),
        &[],
        now(),
        &settings(),
    );
    assert_eq!(report.folded.len(), 1, "{:?}", report.folded);
    assert_eq!(
        report.folded[0].reason,
        "Rent £950 unpaid, landlord chasing"
    );
    assert_eq!(report.escalations.len(), 1, "{:?}", report.escalations);
    let raised = &report.escalations[0];
    assert_eq!(
        raised.reason,
        "Boiler leaking in the kitchen, engineer needed today"
    );
    assert_eq!(raised.outcome, EscalationOutcome::Pending);
    let boiler = next
        .active_threads
        .iter()
        .find(|e| e.summary.starts_with("Boiler"))
        .map(|e| e.id.clone());
    assert_eq!(raised.entry, boiler);
    // Both parts told or on their way: the whole reason folds, part by part.
    let (_, again) = aggregate(
        &next,
        &only(ThreadName::Watcher, answer),
        &[],
        now() + TimeDelta::minutes(5),
        &settings(),
    );
    assert!(again.escalations.is_empty(), "{:?}", again.escalations);
    assert_eq!(again.folded.len(), 2);
}

#[test]
fn a_re_escalation_whose_due_moved_is_news() {
    for reason in ["Rent now due tomorrow", "Rent £950 unpaid"] {
        a_re_escalation_whose_due_moved_is_news_with(reason);
    }
}

/// The rent's due moves and it is escalated again with `reason` (the first time's reason
/// word for word too: the moved due makes it news however it reads).
fn a_re_escalation_whose_due_moved_is_news_with(reason: &str) {
    let mut state = told_rent();
    let (next, report) = {
        let a = Answer {
            findings: vec![Finding {
                due: Some(now() + TimeDelta::days(1)),
                ..cited("Rent of £950 unpaid, landlord chasing", 9, &["m1aaaa"])
            }],
            ..escalating("x", reason, &["m1aaaa"])
        };
        state.last_tick = Some(minutes_ago(5));
        aggregate(
            &state,
            &only(ThreadName::Watcher, a),
            &[],
            now(),
            &settings(),
        )
    };
    assert_eq!(report.escalations.len(), 1, "{reason}: {:?}", report.folded);
    assert_eq!(report.escalations[0].outcome, EscalationOutcome::Pending);
    assert_eq!(next.told.len(), 2);
}

#[test]
fn a_capped_or_failed_matter_was_never_told_and_is_raised_again() {
    for outcome in [
        EscalationOutcome::Capped("no calls left today".into()),
        EscalationOutcome::Failed("timeout".into()),
    ] {
        let mut state = told_rent();
        state.escalation_history[0].outcome = outcome.clone();
        state.escalation_history[0].decision = None;
        let (_, report) = aggregate(
            &state,
            &only(
                ThreadName::Watcher,
                escalating(
                    "Rent of £950 unpaid, landlord chasing",
                    "Rent unpaid",
                    &["m1aaaa"],
                ),
            ),
            &[],
            now(),
            &settings(),
        );
        assert_eq!(report.escalations.len(), 1, "{outcome}");
    }
}

/// A message whose first send failed is retried by later ticks: until it settles, its
/// matter is open, and a re-escalation (another thread, hours later) folds into it
/// rather than making a second message. Once given up for good it waits for `thinker
/// release`, and still folds; discarded, it told nobody and is raised again.
#[test]
fn a_message_still_being_sent_folds_its_repeats() {
    use thinker::state::Delivery;
    let again = || {
        only(
            ThreadName::Oracle,
            escalating(
                "Unpaid rent of £950: landlord chasing",
                "Rent still unpaid",
                &["m1aaaa"],
            ),
        )
    };
    for (delivery, folds) in [
        (Some(Delivery::Owed), true),
        (Some(Delivery::Undelivered), true),
        (None, false),
    ] {
        let mut state = told_rent();
        let record = &mut state.escalation_history[0];
        record.outcome = EscalationOutcome::Failed("notifier exited 1 (try 1 of 4)".into());
        record.delivery = delivery;
        let (next, report) = aggregate(&state, &again(), &[], now(), &settings());
        assert_eq!(
            report.escalations.is_empty(),
            folds,
            "{delivery:?}: {:?}",
            report.escalations
        );
        assert_eq!(report.folded.len(), usize::from(folds), "{delivery:?}");
        if folds {
            assert_eq!(
                next.told[0].outcome,
                EscalationOutcome::Pending,
                "still on its way"
            );
        }
    }
}

#[test]
fn a_pending_matter_folds_its_repeats_in_the_same_hour() {
    let (state, _) = aggregate(
        &fresh(),
        &only(
            ThreadName::Watcher,
            escalating("NAS disk 99% full, backups will fail", "NAS 99% full", &[]),
        ),
        &[],
        minutes_ago(5),
        &settings(),
    );
    let (next, report) = aggregate(
        &state,
        &only(
            ThreadName::Librarian,
            escalating(
                "Backups will fail tonight: NAS at 99%",
                "backups failing",
                &[],
            ),
        ),
        &[],
        now(),
        &settings(),
    );
    assert!(report.escalations.is_empty());
    assert_eq!(next.escalation_history.len(), 1);
}

// --- Properties ----------------------------------------------------------------------------

const WORDS: &[&str] = &[
    "rent", "invoice", "acme", "flight", "friday", "disk", "full", "backup", "dentist", "4411",
    "€120", "09:40", "12 Nov", "school", "closed", "parcel",
];

fn summary() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 1..6).prop_map(|w| w.join(" "))
}

fn gen_entry(cat: Category, n: usize) -> impl Strategy<Value = Entry> {
    (
        summary(),
        2u8..=10,
        0u8..=10,
        1u32..40,
        prop::collection::vec("[a-z][a-z2-7]{5}", 0..3),
    )
        .prop_map(move |(s, strength, importance, sightings, refs)| {
            let mut e = entry(&format!("{}gen-{n}", cat.id_prefix()), &s, strength);
            e.importance = importance;
            e.sightings = sightings;
            e.refs = refs;
            e
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// An importance-9 newcomer is never pruned while an unpinned entry of importance 3
    /// or less stays in its category, however strong and often seen that one is.
    #[test]
    fn an_important_newcomer_is_never_pruned_for_low_importance(
        incumbents in prop::collection::vec((1u8..=10, 0u8..=3, 1u32..100), 1..12),
        cap in 1usize..6,
        summary in "[a-z]{4,8} [a-z]{4,8} [0-9]{3}",
    ) {
        let mut s = Settings::default();
        s.caps.active_threads = cap;
        let active: Vec<Entry> = incumbents
            .iter()
            .enumerate()
            .map(|(i, (strength, importance, sightings))| {
                let mut e = entry(&format!("t-noise-{i}"), &format!("noise item {i} zz{i}"), *strength);
                e.importance = *importance;
                e.sightings = *sightings;
                e
            })
            .collect();
        let state = state_with(active, vec![]);
        let (next, _) = aggregate(
            &state,
            &only(ThreadName::Watcher, seeing(vec![cited(&summary, 9, &[])])),
            &[],
            now(),
            &s,
        );
        let newcomer = next.active_threads.iter().any(|e| e.importance == 9);
        let low_left = next.active_threads.iter().any(|e| e.importance <= 3 && !e.pinned(now(), s.due_grace));
        prop_assert!(newcomer || !low_left, "{:?}", next.active_threads);
    }

    /// A merge keeps the union of the provenance and references of what it merges
    /// (within their caps), and every entry that went is archived as merged into one
    /// that stays.
    #[test]
    fn a_merge_keeps_the_union_of_provenance(
        a in prop::collection::vec(gen_entry(Category::ActiveThreads, 0), 1..2),
        b in prop::collection::vec(gen_entry(Category::Patterns, 1), 1..2),
        froms in prop::collection::vec(prop::sample::select(&["watcher/inbox", "oracle", "librarian/memory", "dreamer"][..]), 0..3),
    ) {
        let mut left = a[0].clone();
        let mut right = b[0].clone();
        right.summary = left.summary.clone();
        left.from = froms.iter().take(1).map(|f| (*f).to_string()).collect();
        right.from = froms.iter().skip(1).map(|f| (*f).to_string()).collect();
        let state = state_with(vec![left.clone()], vec![right.clone()]);
        let (next, report) = aggregate(&state, &only(ThreadName::Oracle, Answer::default()), &[], now(), &settings());
        prop_assert_eq!(next.entry_count(), 1);
        let kept = next.all_entries().next().map_or_else(|| left.clone(), |(_, e)| e.clone());
        for f in left.from.iter().chain(&right.from) {
            prop_assert!(kept.from.contains(f), "{:?} lost {}", kept.from, f);
        }
        let mut refs: Vec<&String> = left.refs.iter().chain(&right.refs).collect();
        refs.dedup();
        for r in refs.iter().rev().take(thinker::state::MAX_REFS) {
            prop_assert!(kept.refs.contains(r), "{:?} lost {}", kept.refs, r);
        }
        prop_assert_eq!(report.merged.len(), 1, "{:?} {:?} {:?}", left, right, report.removed);
        prop_assert_eq!(&report.merged[0].into, &kept.id);
        prop_assert_eq!(kept.sightings, left.sightings + right.sightings);
        prop_assert_eq!(kept.importance, left.importance.max(right.importance));
    }

    /// Same input, same output, whatever the references and words.
    #[test]
    fn identity_rules_are_deterministic(
        active in prop::collection::vec(gen_entry(Category::ActiveThreads, 0), 0..6),
        findings in prop::collection::vec((summary(), 0u8..=10, prop::collection::vec("[a-z][a-z2-7]{5}", 0..2)), 0..6),
    ) {
        let mut active = active;
        for (i, e) in active.iter_mut().enumerate() {
            e.id = format!("t-gen-{i}");
        }
        let state = state_with(active, vec![]);
        let findings: Vec<Finding> = findings
            .iter()
            .map(|(s, imp, refs)| cited(s, *imp, &refs.iter().map(String::as_str).collect::<Vec<_>>()))
            .collect();
        let results: [ThreadOutcome; 4] = only(ThreadName::Watcher, seeing(findings));
        let one = aggregate(&state, &results, &[], now(), &settings());
        let two = aggregate(&state, &results, &[], now(), &settings());
        prop_assert_eq!(one.0.to_json().ok(), two.0.to_json().ok());
        prop_assert_eq!(format!("{:?}", one.1), format!("{:?}", two.1));
        // No two entries left that are one fact.
        let entries: Vec<&Entry> = one.0.all_entries().map(|(_, e)| e).collect();
        for (i, x) in entries.iter().enumerate() {
            for y in &entries[i + 1..] {
                let kx = thinker::aggregate::reinforce::entry_key(x);
                let ky = thinker::aggregate::reinforce::entry_key(y);
                let same = thinker::aggregate::identity::compare(&kx, &ky, thinker::recall::synonyms::Synonyms::builtin())
                    .same(settings().thresholds());
                prop_assert!(!same, "{} and {} are one fact", x.summary, y.summary);
            }
        }
    }
}

#[test]
fn prune_value_orders_noise_first() {
    let mut noise = entry("t-a", "digest", 10);
    noise.importance = 3;
    let mut fact = entry("t-b", "rent", 1);
    fact.importance = 5;
    fact.refs = vec!["m1aaaa".into()];
    assert!(prune::value(&noise) < prune::value(&fact));
    assert_eq!(
        prune::weakness(&noise, &fact, now(), TimeDelta::hours(6)),
        std::cmp::Ordering::Less
    );
}

#[test]
fn a_message_still_owed_is_never_pushed_out_of_the_history() {
    // Guards against the keep-the-newest-ten trim dropping a held or undelivered message
    // (its retry, its nudge and its place in `thinker held` would go with it).
    let mut state = fresh();
    let mut held = thinker::state::EscalationRecord::raised(
        minutes_ago(600),
        "watcher",
        "Parcel customs fee",
        EscalationOutcome::Held("needs confirmation (a payment or transfer request)".into()),
    );
    held.decision = Some(DecisionRecord {
        action: "notify".into(),
        text: "Pay the customs fee".into(),
        why: "parcel".into(),
    });
    let mut owed = thinker::state::EscalationRecord::raised(
        minutes_ago(590),
        "oracle",
        "Flight moved",
        EscalationOutcome::Notified("Your flight moved".into()),
    );
    owed.delivery = Some(thinker::state::Delivery::Owed);
    state.escalation_history = vec![held, owed];
    for i in 0..12 {
        state
            .escalation_history
            .push(thinker::state::EscalationRecord::raised(
                minutes_ago(500 - i),
                "dreamer",
                format!("an unrelated matter {i}"),
                EscalationOutcome::Dismissed("no".into()),
            ));
    }
    let (next, _) = aggregate(
        &state,
        &only(ThreadName::Oracle, Answer::default()),
        &[],
        now(),
        &settings(),
    );
    let h = &next.escalation_history;
    assert_eq!(h.len(), 10);
    assert_eq!(h[0].reason, "Parcel customs fee");
    assert_eq!(h[1].reason, "Flight moved");
    assert_eq!(
        h[2].reason, "an unrelated matter 4",
        "the oldest settled ones went"
    );
}
