//! The size budget and the memory (issue "Hardening", defect 1 and the large state of
//! defect 8): bookkeeping (thread state, escalation history, unknown fields) never pushes
//! an entry out, a tick that archives most of the memory says so, and an oversized state
//! is cut to the caps before anything is matched against it.

use serde_json::{Value, json};
use thinker::aggregate::{Caps, RemovalReason, Settings, ThreadError, ThreadOutcome, aggregate};
use thinker::answer::Answer;
use thinker::state::{Category, State};
use thinker::thread::ThreadName::{Dreamer, Librarian, Oracle, Watcher};
use thinker::thread::{Kind, ThreadName};

use crate::support::{SEED, Sequence, Tick, answer, entry, finding, found, now, ok, only, st};

/// The default `token_budget`, in estimated tokens (bytes / 4).
const BUDGET: usize = 5000;

/// The four categories of a written state, serialized as the file lays them out: what
/// the budget measures (SPEC §7.5). Computed here independently of the aggregator.
fn memory_tokens(state: &Value) -> usize {
    let memory = json!({
        "active_threads": state["active_threads"],
        "patterns": state["patterns"],
        "hunches": state["hunches"],
        "insights": state["insights"],
    });
    serde_json::to_string_pretty(&memory).unwrap().len() / 4
}

fn entry_count(state: &Value) -> usize {
    ["active_threads", "patterns", "hunches", "insights"]
        .iter()
        .map(|c| state[c].as_array().map_or(0, Vec::len))
        .sum()
}

fn budget_lines(archive: &[Value]) -> usize {
    archive.iter().filter(|l| l["reason"] == "budget").count()
}

/// A small deterministic generator (an LCG), so the "realistic" answers are the same on
/// every run.
struct Words(u64);

const VOCABULARY: &[&str] = &[
    "invoice",
    "acme",
    "overdue",
    "payment",
    "reminder",
    "backup",
    "nas",
    "failed",
    "night",
    "disk",
    "usage",
    "laptop",
    "percent",
    "alice",
    "budget",
    "review",
    "quarterly",
    "deploy",
    "pipeline",
    "flaky",
    "tests",
    "rent",
    "transfer",
    "december",
    "newsletter",
    "unread",
    "conference",
    "talk",
    "proposal",
    "deadline",
    "friday",
    "memory",
    "notes",
    "garden",
    "plan",
    "certificate",
    "expires",
    "server",
    "retro",
    "issue",
    "flight",
    "berlin",
    "seat",
    "library",
    "books",
    "monday",
    "report",
    "sunday",
    "tax",
    "documents",
    "bank",
    "statement",
    "password",
    "reused",
    "calendar",
    "meetings",
    "wednesday",
    "overlapping",
    "dentist",
    "appointment",
    "thursday",
    "morning",
    "mail",
    "thread",
    "customer",
    "support",
    "ticket",
    "priority",
    "release",
    "notes",
    "draft",
    "slides",
    "travel",
    "hotel",
    "booking",
    "visa",
    "renewal",
    "insurance",
    "policy",
    "car",
    "service",
    "kitchen",
    "repair",
    "plumber",
    "quote",
    "electricity",
    "bill",
    "higher",
    "than",
    "usual",
    "cloud",
    "storage",
    "quota",
    "photos",
    "sync",
    "stalled",
    "phone",
    "update",
    "pending",
    "battery",
    "health",
    "team",
    "lunch",
    "birthday",
    "gift",
    "mother",
    "weekend",
    "hiking",
    "weather",
    "rain",
    "forecast",
    "reading",
    "list",
    "article",
    "saved",
    "podcast",
    "episode",
    "language",
    "course",
    "lesson",
    "streak",
    "broken",
    "gym",
    "membership",
    "cancel",
    "subscription",
    "trial",
    "ends",
    "domain",
    "registration",
    "dns",
    "records",
    "mismatch",
    "vpn",
    "slow",
    "router",
    "firmware",
    "printer",
    "toner",
    "low",
    "contract",
    "signature",
    "missing",
    "lawyer",
]; // 160 words: random 15–20-word summaries rarely match each other.

impl Words {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next()).unwrap() % n
    }

    fn sentence(&mut self, from: usize, to: usize) -> String {
        let n = from + self.below(to - from + 1);
        (0..n)
            .map(|_| VOCABULARY[self.below(VOCABULARY.len())])
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Fifty ticks of ordinary answers: every thread, every tick, three findings of 15–20
/// words (importance 3–8; the first repeats one of the thread's findings of the tick
/// before, as models do) and a 12-word hint.
#[test]
fn fifty_realistic_ticks_never_archive_for_budget_while_the_memory_fits() {
    const TICKS: usize = 50;
    let mut words = Words(7);
    let mut tick = Tick::new().state(SEED);
    let mut previous: [Option<String>; 4] = [None, None, None, None];
    let mut responses: [Vec<wiremock::ResponseTemplate>; 4] = Default::default();
    for _ in 0..TICKS {
        for thread in ThreadName::ALL {
            let mut summaries: Vec<String> = (0..3).map(|_| words.sentence(15, 20)).collect();
            if let Some(again) = previous[thread.index()].take() {
                summaries[0] = again;
            }
            previous[thread.index()] = Some(summaries[1].clone());
            let findings: Vec<Value> = summaries
                .iter()
                .map(|s| json!({"summary": s, "importance": 3 + words.below(6)}))
                .collect();
            let answer = json!({"findings": findings, "reinforce": [],
                                "suggest": words.sentence(12, 12), "escalate": false});
            responses[thread.index()].push(ok(thread, &answer));
        }
    }
    for (thread, list) in ThreadName::ALL.into_iter().zip(responses) {
        tick = tick.respond(thread, Sequence::new(list));
    }

    let mut largest_file = 0;
    let mut archived = 0;
    for n in 1..=TICKS {
        let outcome = tick.run();
        outcome.expect_exit(0);
        let state = outcome.state();
        let file = std::fs::read_to_string(outcome.dir.join("subconscious.json")).unwrap();
        largest_file = largest_file.max(file.len());
        let archive = outcome.archive();
        let new_lines = &archive[archived..];
        archived = archive.len();
        let memory = memory_tokens(&state);
        assert!(
            memory <= BUDGET,
            "tick {n}: the memory is over the budget ({memory} tokens): the test needs smaller entries"
        );
        assert_eq!(
            budget_lines(new_lines),
            0,
            "tick {n}: entries archived for `budget` while the memory ({memory} tokens of {BUDGET}) fits; file {} bytes",
            file.len()
        );
        assert!(entry_count(&state) >= 10, "tick {n}: the memory emptied");
    }
    // The bookkeeping alone is larger than the whole budget: what the old rule measured.
    assert!(
        largest_file / 4 > BUDGET,
        "the state file stayed small ({largest_file} bytes): the test does not test the defect"
    );
}

/// Three ticks of four ordinary answers (three 20-word findings, a 12-word hint): the
/// thread state is past 8 KB, and no entry leaves for `budget`.
#[test]
fn thread_state_bulk_does_not_push_entries_out() {
    let twenty = |thread: &str, n: usize| {
        format!(
            "{thread} finding {n} about the quarterly budget review meeting that alice moved to friday afternoon again without telling the team"
        )
    };
    let mut tick = Tick::new().state(SEED);
    for thread in ThreadName::ALL {
        let findings: Vec<Value> = (0..3)
            .map(|n| json!({"summary": twenty(thread.as_str(), n), "importance": 2}))
            .collect();
        tick = tick.answer(
            thread,
            &json!({"findings": findings, "reinforce": ["t-acme-invoice-overdue", "p-backup-fails-mondays"],
                    "suggest": "look at the calendar for next week and the unread mail from alice",
                    "escalate": false}),
        );
    }
    tick.run().expect_exit(0);
    tick.run().expect_exit(0);
    let outcome = tick.run();
    outcome.expect_exit(0);
    let state = outcome.state();
    let thread_state = serde_json::to_string_pretty(&state["thread_state"]).unwrap();
    assert!(
        thread_state.len() > 8000,
        "thread state is {} bytes",
        thread_state.len()
    );
    assert_eq!(
        budget_lines(&outcome.archive()),
        0,
        "{:?}",
        outcome.archive()
    );
    assert_eq!(
        crate::support::ids(&state, "active_threads"),
        ["t-acme-invoice-overdue"]
    );
    assert_eq!(
        crate::support::ids(&state, "patterns"),
        ["p-backup-fails-mondays"]
    );
}

/// An 8 KB unknown field is kept on write (SPEC §2) and no longer counts: new findings
/// are remembered.
#[test]
fn a_large_unknown_field_is_kept_and_does_not_crowd_out_entries() {
    let mut seed: Value = serde_json::from_str(SEED).unwrap();
    let notes = "note ".repeat(1700); // 8.5 KB
    seed["owner_notes"] = Value::String(notes.clone());
    let mut tick = Tick::new()
        .state(&seed.to_string())
        .answer(Watcher, &found("disk on the nas is almost full", 6));
    let first = tick.run();
    first.expect_exit(0);
    let second = tick.run();
    second.expect_exit(0);
    let state = second.state();
    assert_eq!(state["owner_notes"], Value::String(notes));
    assert_eq!(budget_lines(&second.archive()), 0, "{:?}", second.archive());
    assert!(
        crate::support::ids(&state, "active_threads").contains(&"t-disk-nas-almost".to_string()),
        "{state}"
    );
}

/// Pruning and decay are bookkeeping (SPEC §7.5): a tick that archives most of the
/// memory prints nothing (cron would mail it: in a synthetic week, 8 healthy ticks did)
/// and the journal says what left, not a warning.
#[test]
fn archiving_most_of_the_memory_is_bookkeeping_not_a_warning() {
    let weak = r#"{
      "version": 2, "tick_count": 4, "last_tick": "2026-11-22T09:05:00Z",
      "active_threads": [
        {"id": "t-one", "summary": "first weak thing", "strength": 0.2,
         "created": "2026-11-21T08:00:00Z", "last_seen": "2026-11-21T08:00:00Z"},
        {"id": "t-two", "summary": "second weak thing", "strength": 0.2,
         "created": "2026-11-21T08:00:00Z", "last_seen": "2026-11-21T08:00:00Z"},
        {"id": "t-three", "summary": "third weak thing", "strength": 0.2,
         "created": "2026-11-21T08:00:00Z", "last_seen": "2026-11-21T08:00:00Z"}
      ],
      "patterns": [
        {"id": "p-strong", "summary": "a strong pattern", "strength": 8,
         "created": "2026-11-21T08:00:00Z", "last_seen": "2026-11-21T08:00:00Z"}
      ],
      "hunches": [], "insights": []
    }"#;
    let mut tick = Tick::new().state(weak);
    let outcome = tick.run();
    outcome.expect_exit(0);
    assert_eq!(outcome.archive().len(), 3);
    assert_eq!(outcome.stderr, "", "a healthy tick prints nothing");
    let journal = outcome.journal();
    let last = journal.last().unwrap();
    assert!(last.get("warnings").is_none(), "{last}");
    assert_eq!(
        last["aggregate"]["decayed"],
        json!(["t-one", "t-two", "t-three"])
    );
}

/// The report says how much of the memory a tick archived, for any reason.
#[test]
fn the_report_counts_the_memory_before_and_what_left() {
    let mut state = crate::support::fresh();
    state.active_threads = (0..4)
        .map(|i| entry(&format!("t-{i}"), &format!("topic{i} words here"), 1))
        .collect();
    state.patterns = vec![entry("p-keep", "kept pattern words", 6)];
    let a = answer(vec![finding(
        "something entirely new here",
        5,
        Kind::Anomaly,
    )]);
    let (next, report) = aggregate(
        &state,
        &only(Watcher, a),
        &[],
        now(),
        &crate::support::settings(),
    );
    assert_eq!(report.memory.before, 5);
    assert_eq!(report.memory.archived, 4);
    assert_eq!(report.memory.after, next.entry_count());
    assert_eq!(report.memory.after, 2);

    // An entry added and archived in the same tick was never part of the memory.
    let tiny = Settings {
        caps: Caps {
            active_threads: 0,
            ..Caps::default()
        },
        ..Settings::default()
    };
    let a = answer(vec![finding(
        "something entirely new here",
        5,
        Kind::Anomaly,
    )]);
    let mut two = State::default();
    two.patterns = vec![
        entry("p-a", "kept pattern words", 6),
        entry("p-b", "other pattern words", 6),
    ];
    let (_, report) = aggregate(&two, &only(Watcher, a), &[], now(), &tiny);
    assert_eq!(report.removed.len(), 1);
    assert_eq!((report.memory.before, report.memory.archived), (2, 0));
}

/// Thread state and escalation history of an older or hand-edited state are cut to their
/// bounds on the next write, so they cannot grow without end either.
#[test]
fn oversized_bookkeeping_is_cut_on_the_next_write() {
    let long_summary = "word ".repeat(500);
    let mut state = State::default();
    {
        let ts = state.thread_state.get_mut(Librarian);
        ts.last_findings = vec![long_summary.clone(); 50];
        ts.history = vec![vec![long_summary.clone(); 50]; 40];
    }
    state.escalation_history = vec![thinker::state::EscalationRecord::raised(
        now(),
        "oracle",
        long_summary.clone(),
        format!("dismissed: {long_summary}").into(),
    )];
    // Librarian fails: its own (oversized) state is left as it was by rule 6, and cut.
    // The watcher's hint is far longer than an answer can carry today.
    let long_hint = Answer {
        suggest: "hint ".repeat(2000),
        ..Answer::default()
    };
    let mut results = only(Watcher, long_hint);
    results[Librarian.index()] = ThreadOutcome::Failed(ThreadError::Call(String::new()));
    let (next, _) = aggregate(&state, &results, &[], now(), &Settings::default());
    let ts = next.thread_state.get(Librarian);
    assert_eq!(ts.last_findings.len(), 3);
    assert_eq!(ts.history.len(), 3);
    for summary in ts.last_findings.iter().chain(ts.history.iter().flatten()) {
        assert_eq!(summary.split(' ').count(), 20, "{summary}");
    }
    assert!(ts.history.iter().all(|h| h.len() <= 3));
    for thread in [Librarian, Oracle, Dreamer] {
        let hint = &next.thread_state.get(thread).focus_hint;
        assert_eq!(hint.split(' ').count(), 120, "{thread}");
        assert!(hint.len() <= 1440, "{thread}");
    }
    assert_eq!(next.thread_state.get(Watcher).focus_hint, "");
    let record = &next.escalation_history[0];
    assert!(record.reason.split(' ').count() <= 40, "{}", record.reason);
    assert!(record.outcome.to_string().starts_with("dismissed: "));
    assert!(record.outcome.to_string().len() <= 480);
}

/// A state far over the caps (30,000 entries) is cut to the caps first, weakest first, so
/// that matching works on at most the caps: a finding that matches an over-cap weak entry
/// no longer reinforces it. (Speed is measured in `benches/aggregate.rs`, not here.)
#[test]
fn a_huge_state_is_cut_to_the_caps_before_matching() {
    let mut entries = Vec::new();
    for i in 0..30_000 {
        entries.push(json!({
            "id": format!("h-bulk-{i}"), "summary": format!("bulk hunch number {i} about things"),
            "strength": 5 + i % 5, "created": "2026-11-20T08:00:00Z",
            "last_seen": "2026-11-21T08:00:00Z"
        }));
    }
    entries.push(json!({
        "id": "h-weak-dentist", "summary": "dentist appointment thursday morning", "strength": 1,
        "created": "2026-11-20T08:00:00Z", "last_seen": "2026-11-21T08:00:00Z"
    }));
    let mut seed: Value = serde_json::from_str(SEED).unwrap();
    seed["hunches"] = Value::Array(entries);
    let mut tick = Tick::new()
        .state(&seed.to_string())
        .answer(Dreamer, &found("dentist appointment thursday morning", 4))
        .answer(Oracle, &found("rent transfer due first of december", 5));
    let outcome = tick.run();
    outcome.expect_exit(0);
    let state = outcome.state();
    let hunches = crate::support::ids(&state, "hunches");
    assert_eq!(hunches.len(), 6, "{hunches:?}");
    let archive = outcome.archive();
    assert_eq!(archive.len(), 30_001 - 6 + 1);
    assert!(archive.iter().all(|l| l["reason"] == "pruned"));
    // The weak over-cap entry went first, before matching: not reinforced.
    assert_eq!(archive[0]["id"], "h-weak-dentist");
    assert_eq!(archive[0]["strength"], 1);
    let journal = outcome.journal();
    let aggregate = &journal[0]["aggregate"];
    assert!(
        !aggregate["reinforced"]
            .as_array()
            .unwrap()
            .iter()
            .any(|id| id == "h-weak-dentist"),
        "{aggregate}"
    );
    assert!(journal[0].get("warnings").is_none());
    assert_eq!(outcome.stderr, "");
}

/// The same, in the aggregator: caps apply to the loaded state first (archived as
/// `pruned`, weakest first), then the rules run on what is left.
#[test]
fn over_cap_entries_are_pruned_before_matching() {
    let mut state = State::default();
    state.patterns = vec![
        entry("p-strong", "strong pattern stays around", 9),
        entry("p-weak", "weekly report written sunday night", 2),
    ];
    let settings = Settings {
        caps: Caps {
            patterns: 1,
            ..Caps::default()
        },
        ..Settings::default()
    };
    let a = answer(vec![finding(
        "weekly report written sunday night",
        2,
        Kind::Pattern,
    )]);
    let (next, report) = aggregate(&state, &only(Librarian, a), &[], now(), &settings);
    assert!(report.reinforced.is_empty(), "{:?}", report.reinforced);
    assert_eq!(report.removed.len(), 1);
    assert_eq!(report.removed[0].entry.id, "p-weak");
    assert_eq!(report.removed[0].entry.strength, st(2));
    assert_eq!(report.removed[0].reason, RemovalReason::Pruned);
    assert_eq!(next.patterns[0].id, "p-strong");
    // No previous tick: nothing is charged.
    assert_eq!(next.patterns[0].strength, st(9));
    assert_eq!(next.entries(Category::Patterns).len(), 1);
}

/// Guards against a state loaded over its caps putting all of it into every prompt (a
/// 30,000-entry state made each prompt 2.8 MB): threads see at most the caps, the
/// strongest, as the aggregation will keep them.
#[test]
fn a_prompt_shows_at_most_the_caps_of_an_oversized_state() {
    let active: Vec<Value> = (0..24)
        .map(|i| {
            json!({"id": format!("t-item-{i}"), "summary": format!("Oversized item number{i} waits"),
                   "strength": f64::from(i) * 0.4 + 0.25, "created": "2026-11-21T08:00:00Z",
                   "last_seen": "2026-11-22T10:00:00Z"})
        })
        .collect();
    let state = json!({"version": 2, "tick_count": 4, "last_tick": "2026-11-22T10:00:00Z",
                       "active_threads": active, "patterns": [], "hunches": [], "insights": [],
                       "escalation_history": [], "thread_state": {}});
    let mut tick = Tick::new().state(&state.to_string());
    let out = tick.thinker(&["prompt", "watcher"]);
    out.expect_exit(0);
    let shown: Vec<i32> = (0..24)
        .filter(|i| {
            out.stdout.contains(&format!("t-item-{i} "))
                || out.stdout.contains(&format!("t-item-{i}]"))
        })
        .collect();
    // Strengths rise with i: the twenty strongest (the default cap) are 4..24.
    assert_eq!(shown, (4..24).collect::<Vec<_>>(), "{}", out.stdout);
}
