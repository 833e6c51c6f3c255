//! Spending is never under-counted: a call that timed out, and a call in flight when the
//! process is killed, are in `ledger.json` at their estimate.

use std::fs;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use thinker::thread::ThreadName::{Librarian, Oracle, Watcher};

use crate::support::{Tick, found, ok};

fn ledger(dir: &std::path::Path) -> Option<Value> {
    let text = fs::read_to_string(dir.join("ledger.json")).ok()?;
    serde_json::from_str(&text).ok()
}

/// Guards against a thread dropped at its timeout leaving its call out of the ledger
/// (the provider may well have billed it).
#[test]
fn a_call_that_timed_out_counts_its_estimate_in_the_ledger() {
    let mut tick = Tick::new()
        .thread(Watcher, "timeout_seconds = 1\nmax_tokens = 900")
        .respond(
            Watcher,
            ok(Watcher, &found("never seen", 5)).set_delay(Duration::from_secs(10)),
        )
        .answer(Librarian, &found("Memory notes mention the NAS twice", 5))
        .answer(Oracle, &found("Dentist appointment on Monday morning", 5));
    tick.run().expect_exit(3);
    let ledger = ledger(tick.dir()).expect("ledger.json");
    let local = &ledger["spent"]["local"];
    assert_eq!(local["calls"], 4, "{ledger}");
    // Three answered calls report 110 tokens each; the dropped one counts at least its
    // max_tokens.
    assert!(
        local["tokens"].as_u64().unwrap() >= 3 * 110 + 900,
        "{ledger}"
    );
}

/// Guards against a tick killed mid-call losing the spending of the calls it made.
#[test]
fn a_tick_killed_mid_call_has_already_counted_the_call() {
    let mut tick = Tick::new()
        .thread(Watcher, "max_tokens = 700")
        .respond(
            Watcher,
            ok(Watcher, &found("never seen", 5)).set_delay(Duration::from_secs(30)),
        )
        .answer(Librarian, &found("Memory notes mention the NAS twice", 5));
    let mut child = tick
        .command(&["tick"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait (bounded) until the watcher's request is at the server, held there.
    let started = Instant::now();
    while tick.requests(Watcher).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the watcher never called"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let ledger = ledger(tick.dir()).expect("ledger.json written before the call");
    let local = &ledger["spent"]["local"];
    assert!(local["tokens"].as_u64().unwrap() >= 700, "{ledger}");
    // Nothing was applied: the state was never written.
    assert!(!tick.dir().join("subconscious.json").exists());
}
