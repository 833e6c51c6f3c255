//! The tick in phases with typed outcomes (issue 8): each thread's journal record is built
//! last, from its outcome, so status, error and counts never disagree; escalation
//! outcomes are an enum in memory and exactly SPEC's text on disk.

use std::fs;
use std::time::Duration;

use serde_json::{Value, json};
use thinker::state::{EscalationOutcome, State, Suppression};
use thinker::thread::ThreadName::{Dreamer, Librarian, Oracle, Watcher};

use crate::support::{Tick, found, ok};

/// Guards against a journal line patched half-way: a thread dropped at its timeout
/// mid-call is recorded as failed with the timeout, and the line agrees with the exit
/// code, the state and its own totals.
#[test]
fn the_journal_line_says_what_happened_when_a_thread_times_out_mid_call() {
    let mut tick = Tick::new()
        .thread(Watcher, "timeout_seconds = 1")
        .respond(
            Watcher,
            ok(Watcher, &found("never seen", 5)).set_delay(Duration::from_secs(10)),
        )
        .answer(Oracle, &found("Dentist appointment on Monday morning", 5));
    let out = tick.run();
    out.expect_exit(3);
    let journal = out.journal();
    assert_eq!(journal.len(), 1);
    let line = &journal[0];
    assert_eq!(line["exit_code"], 3);
    assert_eq!(line["tick_count"], out.state()["tick_count"]);

    let watcher = out.thread(Watcher);
    assert_eq!(watcher["status"], "failed", "{watcher}");
    let error = watcher["error"].as_str().unwrap_or_default();
    assert!(error.starts_with("timed out after 1.0 s"), "{watcher}");
    assert!(watcher.get("skip").is_none(), "{watcher}");
    assert_eq!(
        (&watcher["findings"], &watcher["reinforce"]),
        (&json!(0), &json!(0))
    );
    assert_eq!(
        (&watcher["provider"], &watcher["model"]),
        (&json!("local"), &json!("watcher"))
    );

    let oracle = out.thread(Oracle);
    assert_eq!(oracle["status"], "answered", "{oracle}");
    assert!(oracle.get("error").is_none(), "{oracle}");
    assert_eq!(oracle["findings"], 1);
    for quiet in [Librarian, Dreamer] {
        assert_eq!(out.thread(quiet)["status"], "answered");
    }

    let threads = line["threads"].as_array().unwrap();
    let sum = |key: &str| {
        threads
            .iter()
            .map(|t| t[key].as_u64().unwrap())
            .sum::<u64>()
    };
    assert_eq!(line["tokens_in"].as_u64(), Some(sum("tokens_in")));
    assert_eq!(line["tokens_out"].as_u64(), Some(sum("tokens_out")));
}

/// Guards against the outcome enum rewriting history: every outcome an older (or newer)
/// version wrote, known or not, is written back exactly as read.
#[test]
fn escalation_outcomes_round_trip_through_a_tick_byte_for_byte() {
    let outcomes = [
        "suppressed: duplicate",
        "suppressed: dismissed recently",
        "suppressed: quiet hours",
        "notified: Disk almost full on nas",
        "remembered: appended to 2026-11-21.md",
        "dismissed: already handled",
        "proposed: restart the backup job",
        "held: quiet hours until 07:00",
        "capped: 5 escalation calls today",
        "failed: the primary model did not answer",
        "escalated (written by the prompt-driven original)",
        "notified:no space",
        "",
    ];
    let history: Vec<Value> = outcomes
        .iter()
        .enumerate()
        .map(|(i, outcome)| {
            json!({"timestamp": format!("2026-11-21T{:02}:00:00Z", i + 1), "thread": "watcher",
                   "reason": format!("reason {i}"), "outcome": outcome})
        })
        .collect();
    let seed = json!({"version": 1, "tick_count": 1, "escalation_history": history});
    let mut tick = Tick::new()
        .state(&seed.to_string())
        .config_extra("[memory]\nescalation_history = 20");
    let out = tick.run();
    out.expect_exit(0);
    let written: Vec<Value> = out.state()["escalation_history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["outcome"].clone())
        .collect();
    let expected: Vec<Value> = outcomes.iter().map(|o| json!(o)).collect();
    assert_eq!(written, expected);

    let state: State =
        serde_json::from_str(&fs::read_to_string(out.dir.join("subconscious.json")).unwrap())
            .unwrap();
    let read: Vec<&EscalationOutcome> = state
        .escalation_history
        .iter()
        .map(|r| &r.outcome)
        .collect();
    assert_eq!(
        read[0],
        &EscalationOutcome::Suppressed(Suppression::Duplicate)
    );
    assert_eq!(
        read[1],
        &EscalationOutcome::Suppressed(Suppression::DismissedRecently)
    );
    assert_eq!(
        read[3],
        &EscalationOutcome::Notified("Disk almost full on nas".into())
    );
    assert_eq!(
        read[10],
        &EscalationOutcome::Other("escalated (written by the prompt-driven original)".into())
    );
    assert_eq!(
        read[11],
        &EscalationOutcome::Other("notified:no space".into())
    );
}
