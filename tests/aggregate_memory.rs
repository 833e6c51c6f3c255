//! Table tests of the memory rules of state version 2 (SPEC §7.1, §7.3, §7.5, §7.10):
//! decay charged by time, a starting strength that follows importance, the highest
//! importance kept, entries pinned until due, moved dues, retire, provenance and taint.
//! Each test names the wrong implementation it would catch.

use chrono::TimeDelta;
use thinker::aggregate::{Caps, Decay, RemovalReason, Settings, ThreadOutcome, aggregate};
use thinker::answer::{Answer, Retire, RetireWhy, Seen};
use thinker::state::{Entry, State, Strength};
use thinker::thread::{Kind, ThreadName};

use crate::support::{entry, finding, minutes_ago, now, only, st};

/// The defaults, with room enough that nothing is pruned unless a test asks for it.
fn defaults() -> Settings {
    Settings {
        token_budget: 100_000,
        ..Settings::default()
    }
}

fn quiet() -> [ThreadOutcome; 4] {
    ThreadName::ALL.map(|_| ThreadOutcome::Answered(Answer::default()))
}

fn state(last_tick_minutes_ago: i64, entries: Vec<Entry>) -> State {
    State {
        active_threads: entries,
        last_tick: Some(minutes_ago(last_tick_minutes_ago)),
        ..State::default()
    }
}

fn seen_in(sources: &[&str], screened: bool) -> Seen {
    Seen {
        sources: sources.iter().map(|s| (*s).to_string()).collect(),
        screened,
    }
}

// --- Decay by time (§7.1) -----------------------------------------------------------

/// Guards against decay charged per tick (a busy machine forgetting twelve times faster
/// than a quiet one) and against the gap not being capped (a laptop asleep overnight
/// waking up with an empty memory).
#[test]
fn decay_is_charged_by_elapsed_time_capped_at_the_gap() {
    // Active threads: 2 h a point by default; the gap is capped at 60 minutes.
    let cases = [
        // (minutes since the last applied tick, strength after, from 5)
        (0, "5"),
        (5, "4.96"),
        (30, "4.75"),
        (60, "4.5"),
        (120, "4.5"),    // capped at 60 minutes
        (8 * 60, "4.5"), // an eight-hour gap charges at most the cap
    ];
    for (minutes, expected) in cases {
        let mut e = entry("t-x", "server load high", 5);
        // At a whole hour, so the absolute-time rounding is visible only where it should.
        e.created = minutes_ago(600);
        let (next, _) = aggregate(&state(minutes, vec![e]), &quiet(), &[], now(), &defaults());
        assert_eq!(
            next.active_threads[0].strength.to_string(),
            expected,
            "{minutes} min"
        );
    }
}

/// Guards against charging the categories alike: patterns and insights last six times
/// longer than active threads by default.
#[test]
fn each_category_decays_at_its_own_pace() {
    let mut s = state(60, vec![entry("t-a", "active thing here", 5)]);
    s.patterns = vec![entry("p-b", "pattern thing here", 5)];
    s.hunches = vec![entry("h-c", "hunch thing here", 5)];
    s.insights = vec![entry("i-d", "insight thing here", 5)];
    let (next, _) = aggregate(&s, &quiet(), &[], now(), &defaults());
    let got: Vec<String> = next
        .all_entries()
        .map(|(_, e)| e.strength.to_string())
        .collect();
    // 1/2, 1/12, 1/4, 1/12 of a point for an hour: 50, 8.33, 25, 8.33 hundredths,
    // counted on the absolute time line (so this hour's 1/12 takes 9, another's 8).
    assert_eq!(got, ["4.5", "4.91", "4.75", "4.91"]);
}

/// Guards against an entry with no previous tick being charged from the epoch.
#[test]
fn a_first_tick_charges_nothing() {
    let s = State {
        active_threads: vec![entry("t-x", "server load high", 5)],
        ..State::default()
    };
    let (next, _) = aggregate(&s, &quiet(), &[], now(), &defaults());
    assert_eq!(next.active_threads[0].strength, st(5));
}

/// Guards against the remainder of a tick being lost (5-minute ticks charging 4/100 of a
/// point each instead of 1/24): ticks at any spacing add up to one tick's charge.
#[test]
fn ticks_in_between_add_up_to_one_ticks_charge() {
    let settings = defaults();
    let start = State {
        active_threads: vec![entry("t-x", "server load high", 9)],
        last_tick: Some(now()),
        ..State::default()
    };
    let mut many = start.clone();
    for k in 1..=12 {
        many = aggregate(
            &many,
            &quiet(),
            &[],
            now() + TimeDelta::minutes(5 * k),
            &settings,
        )
        .0;
    }
    let one = aggregate(
        &start,
        &quiet(),
        &[],
        now() + TimeDelta::hours(1),
        &settings,
    )
    .0;
    assert_eq!(
        many.active_threads[0].strength,
        one.active_threads[0].strength
    );
    assert_eq!(one.active_threads[0].strength.to_string(), "8.5");
}

// --- Importance (§7.3) ----------------------------------------------------------------

/// Guards against every new entry starting at 3 whatever its importance (five
/// incumbents then bounce an urgent newcomer).
#[test]
fn a_new_entry_starts_at_a_strength_that_follows_importance() {
    for (importance, strength) in [
        (3, 3),
        (4, 3),
        (5, 4),
        (6, 4),
        (7, 5),
        (8, 5),
        (9, 6),
        (10, 6),
    ] {
        let a = Answer {
            findings: vec![finding(
                "a brand new thing to remember",
                importance,
                Kind::Anomaly,
            )],
            ..Answer::default()
        };
        let (next, report) = aggregate(
            &State::default(),
            &only(ThreadName::Watcher, a),
            &[],
            now(),
            &defaults(),
        );
        let e = &next.active_threads[0];
        assert_eq!(
            (e.strength, e.importance, e.sightings),
            (st(strength), importance, 1)
        );
        assert_eq!(report.added[0].importance, importance);
    }
}

/// Guards against a reinforcement lowering importance, or ignoring a higher one.
#[test]
fn an_entry_keeps_its_highest_importance_and_counts_its_sightings() {
    for (finding_importance, expected) in [(2, 5), (5, 5), (9, 9)] {
        let a = Answer {
            findings: vec![finding(
                "server load high",
                finding_importance,
                Kind::Anomaly,
            )],
            ..Answer::default()
        };
        let (next, _) = aggregate(
            &state(60, vec![entry("t-x", "server load high", 5)]),
            &only(ThreadName::Watcher, a),
            &[],
            now(),
            &defaults(),
        );
        let e = &next.active_threads[0];
        assert_eq!(e.importance, expected, "finding {finding_importance}");
        assert_eq!(e.sightings, 2);
    }
}

// --- Pinned until due (§7.1, §7.5) ----------------------------------------------------

/// Guards against an appointment days ahead fading before its day, and against it
/// staying pinned forever after it.
#[test]
fn an_entry_with_a_due_is_not_charged_until_due_plus_grace() {
    // (due relative to now, in minutes; strength after an hour's tick, from 5)
    let cases = [
        (3 * 24 * 60, "5"), // days ahead
        (1, "5"),           // in a minute
        (-5 * 60, "5"),     // five hours past: within the 6 h grace
        (-6 * 60 + 30, "5"),
        // Grace ended 30 minutes ago: charged only those 30 minutes of the hour.
        (-6 * 60 - 30, "4.75"),
        (-48 * 60, "4.5"), // long past: charged like any other
    ];
    for (due_in, expected) in cases {
        let mut e = entry("t-dentist", "dentist appointment", 5);
        e.due = Some(now() + TimeDelta::minutes(due_in));
        let (next, _) = aggregate(&state(60, vec![e]), &quiet(), &[], now(), &defaults());
        assert_eq!(
            next.active_threads[0].strength.to_string(),
            expected,
            "due in {due_in} min"
        );
    }
}

/// Guards against caps that remove a pinned appointment because it is weak today.
#[test]
fn caps_remove_unpinned_entries_before_pinned_ones() {
    let mut weak_pinned = entry("t-flight", "flight to Lisbon", 1);
    weak_pinned.due = Some(now() + TimeDelta::days(3));
    let strong = entry("t-strong", "strong but undated thing", 9);
    let settings = Settings {
        caps: Caps {
            active_threads: 1,
            ..Caps::default()
        },
        ..defaults()
    };
    let (next, report) = aggregate(
        &state(5, vec![strong, weak_pinned]),
        &quiet(),
        &[],
        now(),
        &settings,
    );
    assert_eq!(next.active_threads[0].id, "t-flight");
    assert_eq!(report.removed_ids(RemovalReason::Pruned), ["t-strong"]);
}

/// Guards against ties broken by age alone: of two equally strong entries, the less
/// important goes first.
#[test]
fn importance_breaks_ties_when_pruning() {
    let mut minor = entry("t-minor", "minor thing here", 4);
    minor.importance = 3;
    let mut major = entry("t-major", "major thing here", 4);
    major.importance = 9;
    // The major one is older: by age alone, it would go first.
    major.last_seen = minutes_ago(600);
    let settings = Settings {
        caps: Caps {
            active_threads: 1,
            ..Caps::default()
        },
        ..defaults()
    };
    let (next, _) = aggregate(
        &state(0, vec![minor, major]),
        &quiet(),
        &[],
        now(),
        &settings,
    );
    assert_eq!(next.active_threads[0].id, "t-major");
}

/// Guards against the budget dropping a pinned entry while unpinned ones remain.
#[test]
fn the_budget_removes_pinned_entries_last() {
    let mut pinned = entry("t-pinned", "renewal of the passport before the trip", 1);
    pinned.due = Some(now() + TimeDelta::days(2));
    let mut s = state(0, vec![pinned]);
    s.insights = vec![entry("i-strong", "strong insight that is not dated", 10)];
    let roomy = aggregate(&s, &quiet(), &[], now(), &defaults()).0;
    let tight = Settings {
        token_budget: thinker::aggregate::prune::estimated_tokens(&roomy) - 5,
        ..defaults()
    };
    let (next, report) = aggregate(&s, &quiet(), &[], now(), &tight);
    assert_eq!(report.removed_ids(RemovalReason::Budget), ["i-strong"]);
    assert_eq!(next.active_threads[0].id, "t-pinned");
}

// --- A moved due (§7.1) ---------------------------------------------------------------

/// Guards against a moved meeting becoming two entries, or keeping its old time.
#[test]
fn a_matching_finding_with_a_new_due_moves_the_entry() {
    let mut meeting = entry("t-review", "budget review with the finance team", 5);
    let old = now() + TimeDelta::days(2);
    let new = now() + TimeDelta::days(3);
    meeting.due = Some(old);
    let mut f = finding("budget review with the finance team", 6, Kind::Deadline);
    f.due = Some(new);
    let a = Answer {
        findings: vec![f],
        ..Answer::default()
    };
    let (next, report) = aggregate(
        &state(5, vec![meeting]),
        &only(ThreadName::Oracle, a),
        &[],
        now(),
        &defaults(),
    );
    assert_eq!(next.active_threads.len(), 1);
    assert_eq!(next.active_threads[0].due, Some(new));
    assert_eq!(report.moved.len(), 1);
    assert_eq!((report.moved[0].from, report.moved[0].to), (Some(old), new));
    // The same due again moves nothing.
    let mut same = finding("budget review with the finance team", 6, Kind::Deadline);
    same.due = Some(new);
    let again = Answer {
        findings: vec![same],
        ..Answer::default()
    };
    let (_, report) = aggregate(
        &next,
        &only(ThreadName::Oracle, again),
        &[],
        now(),
        &defaults(),
    );
    assert!(report.moved.is_empty());
}

/// Guards against hostile text re-dating a real memory: a screened thread's finding
/// reinforces, but moves no due and raises no importance.
#[test]
fn a_screened_threads_finding_moves_no_due_and_raises_no_importance() {
    let mut meeting = entry("t-review", "budget review with the finance team", 5);
    let old = now() + TimeDelta::days(2);
    meeting.due = Some(old);
    let mut f = finding("budget review with the finance team", 10, Kind::Deadline);
    f.due = Some(now() + TimeDelta::days(30));
    let a = Answer {
        findings: vec![f],
        seen: seen_in(&["inbox"], true),
        ..Answer::default()
    };
    let (next, report) = aggregate(
        &state(5, vec![meeting]),
        &only(ThreadName::Watcher, a),
        &[],
        now(),
        &defaults(),
    );
    let e = &next.active_threads[0];
    assert_eq!((e.due, e.importance, e.sightings), (Some(old), 5, 2));
    assert!(report.moved.is_empty());
}

// --- Retire (§7.10) -------------------------------------------------------------------

/// Guards against a cancelled event lingering until it decays, and against a hostile
/// mail erasing memory.
#[test]
fn retire_table() {
    // (why as the model wrote it, screened, removed as)
    let cases = [
        ("cancelled", false, Some("retired: cancelled")),
        ("done", false, Some("retired: done")),
        ("wrong", false, Some("retired: wrong")),
        ("no longer relevant", false, Some("retired: wrong")),
        ("cancelled", true, None),
    ];
    for (why, screened, expected) in cases {
        let a = Answer {
            retire: vec![Retire {
                id: "t-dinner".into(),
                why: RetireWhy::read(why),
            }],
            seen: seen_in(&["calendar"], screened),
            ..Answer::default()
        };
        let (next, report) = aggregate(
            &state(5, vec![entry("t-dinner", "dinner with Sam on Friday", 5)]),
            &only(ThreadName::Oracle, a),
            &[],
            now(),
            &defaults(),
        );
        if let Some(reason) = expected {
            assert!(next.active_threads.is_empty(), "{why}");
            assert_eq!(report.removed[0].reason.word(), reason);
            assert!(report.retire_refused.is_empty());
        } else {
            assert_eq!(next.active_threads.len(), 1, "{why}");
            assert_eq!(report.retire_refused[0].why, "screened");
        }
    }
}

/// Guards against an unknown id failing the tick or vanishing silently, and against a
/// finding of the same tick bringing the retired fact straight back.
#[test]
fn retire_of_an_unknown_id_is_reported_and_a_same_tick_match_does_not_revive() {
    let a = Answer {
        findings: vec![finding("dinner with Sam on Friday", 6, Kind::Observation)],
        ..Answer::default()
    };
    let b = Answer {
        retire: vec![
            Retire {
                id: "t-dinner".into(),
                why: RetireWhy::Cancelled,
            },
            Retire {
                id: "t-nope".into(),
                why: RetireWhy::Done,
            },
        ],
        ..Answer::default()
    };
    let mut results = only(ThreadName::Watcher, a);
    results[ThreadName::Oracle.index()] = ThreadOutcome::Answered(b);
    let (next, report) = aggregate(
        &state(5, vec![entry("t-dinner", "dinner with Sam on Friday", 5)]),
        &results,
        &[],
        now(),
        &defaults(),
    );
    assert!(next.active_threads.is_empty(), "{:?}", next.active_threads);
    assert_eq!(report.retire_refused.len(), 1);
    assert_eq!(
        (
            report.retire_refused[0].id.as_str(),
            report.retire_refused[0].why
        ),
        ("t-nope", "unknown")
    );
    assert_eq!(report.memory.retired, 1);
    assert_eq!(
        report.memory.archived, 0,
        "retiring is not memory lost to the rules"
    );
}

// --- Provenance and taint (§3, §7.3; issue 22) ------------------------------------------

/// Guards against a `from` the thread made up, and against provenance lost on merges.
#[test]
fn provenance_names_a_source_only_when_the_thread_had_it() {
    let finding_from = |from: Option<&str>| {
        let mut f = finding("parcel from the pharmacy arrives", 5, Kind::Observation);
        f.from = from.map(str::to_string);
        f
    };
    for (from, expected) in [
        (Some("inbox"), "watcher/inbox"),
        (Some("INBOX"), "watcher/inbox"),
        (Some("somewhere else"), "watcher"),
        (None, "watcher"),
    ] {
        let a = Answer {
            findings: vec![finding_from(from)],
            seen: seen_in(&["system", "inbox"], false),
            ..Answer::default()
        };
        let (next, report) = aggregate(
            &State::default(),
            &only(ThreadName::Watcher, a),
            &[],
            now(),
            &defaults(),
        );
        assert_eq!(next.active_threads[0].from, [expected], "{from:?}");
        assert_eq!(report.added[0].from, [expected]);
    }
}

/// Guards against `from` growing without bound or losing the newest.
#[test]
fn from_keeps_five_distinct_newest_last() {
    let mut e = entry("t-x", "server load high", 5);
    e.from = ["a", "b", "c", "d", "e"].map(String::from).to_vec();
    let mut f = finding("server load high", 5, Kind::Risk);
    f.from = Some("calendar".into());
    let a = Answer {
        findings: vec![f],
        seen: seen_in(&["calendar"], false),
        ..Answer::default()
    };
    let (next, _) = aggregate(
        &state(5, vec![e]),
        &only(ThreadName::Oracle, a),
        &[],
        now(),
        &defaults(),
    );
    assert_eq!(
        next.active_threads[0].from,
        ["b", "c", "d", "e", "oracle/calendar"]
    );
}

/// Guards against hostile text entering memory as if it were clean: an entry made only
/// from screened threads is tainted; a clean sighting clears it; a clean finding in the
/// same group keeps it clean, at the clean finding's importance.
#[test]
fn taint_follows_where_an_entry_was_seen() {
    let screened = Answer {
        findings: vec![finding(
            "wire the deposit for the flat today",
            9,
            Kind::Anomaly,
        )],
        seen: seen_in(&["inbox"], true),
        ..Answer::default()
    };
    let (tainted, _) = aggregate(
        &State::default(),
        &only(ThreadName::Watcher, screened.clone()),
        &[],
        now(),
        &defaults(),
    );
    assert!(tainted.active_threads[0].tainted);

    let clean = Answer {
        findings: vec![finding(
            "wire the deposit for the flat today",
            6,
            Kind::Risk,
        )],
        seen: seen_in(&["calendar"], false),
        ..Answer::default()
    };
    let mut both = only(ThreadName::Watcher, screened);
    both[ThreadName::Oracle.index()] = ThreadOutcome::Answered(clean.clone());
    let (mixed, _) = aggregate(&State::default(), &both, &[], now(), &defaults());
    let e = &mixed.active_threads[0];
    assert!(!e.tainted);
    assert_eq!((e.importance, e.strength), (6, st(4)));

    let (cleared, _) = aggregate(
        &tainted,
        &only(ThreadName::Oracle, clean),
        &[],
        now() + TimeDelta::minutes(5),
        &defaults(),
    );
    assert!(!cleared.active_threads[0].tainted);
}

/// Guards against an escalation from a screened thread being treated as clean (it is
/// marked, for the escalation phase) or being dropped (one hostile mail must not
/// silence every alarm from that inbox).
#[test]
fn an_escalation_from_a_screened_thread_is_marked_tainted() {
    let a = Answer {
        escalate: true,
        escalate_reason: "the NAS disk is full".into(),
        seen: seen_in(&["inbox"], true),
        ..Answer::default()
    };
    let (next, report) = aggregate(
        &State::default(),
        &only(ThreadName::Watcher, a),
        &[],
        now(),
        &defaults(),
    );
    assert!(report.escalations[0].tainted);
    assert!(next.escalation_history[0].tainted);
    assert_eq!(next.escalation_history[0].outcome.to_string(), "pending");
}

// --- Version 2 of the state --------------------------------------------------------------

/// Guards against a version 1 file (the previous release's) being refused, or written
/// back as version 1.
#[test]
fn a_version_one_state_loads_ticks_and_is_written_as_version_two() {
    let v1 = r#"{
      "version": 1, "tick_count": 3, "last_tick": "2026-11-22T10:00:00Z",
      "active_threads": [{"id": "t-invoice", "summary": "Invoice from ACME overdue", "strength": 4,
        "created": "2026-11-20T08:00:00Z", "last_seen": "2026-11-22T10:00:00Z", "source": "watcher"}],
      "patterns": [], "hunches": [], "insights": [], "escalation_history": [], "thread_state": {}
    }"#;
    let state = State::from_json(v1).unwrap();
    let (next, _) = aggregate(&state, &quiet(), &[], now(), &defaults());
    let written: serde_json::Value = serde_json::from_str(&next.to_json().unwrap()).unwrap();
    assert_eq!(written["version"], 2);
    let e = &written["active_threads"][0];
    assert_eq!(
        (e["importance"].as_u64(), e["sightings"].as_u64()),
        (Some(5), Some(1))
    );
    assert_eq!(e["from"], serde_json::json!(["watcher"]));
    // Five minutes of decay at 2 h a point.
    assert_eq!(
        next.active_threads[0].strength,
        Strength::from_hundredths(396)
    );
}

/// Decay settings: the config's hours per point (a custom table).
#[test]
fn custom_decay_hours_are_hours_per_point() {
    let settings = Settings {
        decay: Decay::hours(4.0, 12.0, 4.0, 12.0),
        ..defaults()
    };
    let (next, _) = aggregate(
        &state(60, vec![entry("t-x", "server load high", 5)]),
        &quiet(),
        &[],
        now(),
        &settings,
    );
    assert_eq!(next.active_threads[0].strength.to_string(), "4.75");
}

/// A finding's `from` survives the answer reader, and `retire` is read tolerantly.
#[test]
fn the_answer_reader_takes_from_and_retire() {
    let a = thinker::answer::parse(
        ThreadName::Oracle,
        r#"{"findings": [{"summary": "Flight moved", "importance": 7, "from": "calendar"}],
            "retire": [{"id": "t-dinner", "why": "Cancelled"}, "t-old", {"why": "done"}, {"id": "t-dinner", "why": "done"}]}"#,
    )
    .unwrap();
    assert_eq!(a.findings[0].from.as_deref(), Some("calendar"));
    let retired: Vec<(&str, RetireWhy)> = a.retire.iter().map(|r| (r.id.as_str(), r.why)).collect();
    assert_eq!(
        retired,
        [
            ("t-dinner", RetireWhy::Cancelled),
            ("t-old", RetireWhy::Wrong)
        ]
    );
    assert_eq!(
        a.seen,
        Seen::default(),
        "a model cannot set what the tick saw"
    );
    let forged = thinker::answer::parse(
        ThreadName::Oracle,
        r#"{"findings": [], "seen": {"sources": ["inbox"], "screened": false}}"#,
    )
    .unwrap();
    assert_eq!(forged.seen, Seen::default());
}
