//! Builders shared by the tests: entries, answers and times for the library tests, and
//! [`Tick`], the one builder that runs the `thinker` binary in a temp home with its
//! expectations declared before the run (`support/tick.rs`), with the servers it talks to
//! (`support/rendezvous.rs`). Helpers only: no `#[test]` lives here.

mod rendezvous;
mod tick;

pub use rendezvous::{Event, read_model, rendezvous};
pub use tick::{Outcome, SEED, Sequence, Tick, completion, found, ids, nothing, ok, snapshot};

use chrono::{DateTime, TimeDelta, Utc};
use thinker::aggregate::{Settings, ThreadOutcome};
use thinker::answer::{Answer, Finding};
use thinker::state::{Entry, State};
use thinker::thread::{Kind, ThreadName};
use thinker::timestamp;

pub fn t(text: &str) -> DateTime<Utc> {
    timestamp::parse(text).unwrap()
}

pub const NOW: &str = "2026-11-22T10:05:00Z";

pub fn now() -> DateTime<Utc> {
    t(NOW)
}

pub fn minutes_ago(m: i64) -> DateTime<Utc> {
    now() - TimeDelta::minutes(m)
}

pub fn entry(id: &str, summary: &str, strength: u8) -> Entry {
    Entry {
        id: id.into(),
        summary: summary.into(),
        strength,
        created: minutes_ago(600),
        last_seen: minutes_ago(60),
        due: None,
        source: Some("watcher".into()),
        extra: serde_json::Map::new(),
    }
}

pub fn finding(summary: &str, importance: u8, kind: Kind) -> Finding {
    Finding {
        summary: summary.into(),
        importance,
        kind,
        due: None,
    }
}

pub fn answer(findings: Vec<Finding>) -> Answer {
    Answer {
        findings,
        ..Answer::default()
    }
}

/// Results where only `thread` answered `a` and the others answered nothing.
pub fn only(thread: ThreadName, a: Answer) -> [ThreadOutcome; 4] {
    let mut results = std::array::from_fn(|_| ThreadOutcome::Answered(Answer::default()));
    results[thread.index()] = ThreadOutcome::Answered(a);
    results
}

pub fn settings() -> Settings {
    Settings {
        token_budget: 100_000,
        ..Settings::default()
    }
}

pub fn state_with(active: Vec<Entry>, patterns: Vec<Entry>) -> State {
    State {
        active_threads: active,
        patterns,
        ..State::default()
    }
}

/// The base URL of a real server for an end-to-end test, from `var` (trailing `/` cut);
/// `None` when it is unset, said once per variable straight to the process's stderr
/// (past the test harness's capture), so a skipped real-server test is never silent.
pub fn real_server(var: &str, what: &str, how: &str) -> Option<String> {
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    match std::env::var(var) {
        Ok(url) if !url.trim().is_empty() => Some(url.trim().trim_end_matches('/').to_string()),
        _ => {
            let mut said = SAID
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if !said.iter().any(|v| v == var) {
                said.push(var.to_string());
                let _ = std::io::Write::write_all(
                    &mut std::io::stderr(),
                    format!(
                        "\n==================================================================\n\
                         SKIPPED: {what} ({var} not set)\n{how}\n\
                         ==================================================================\n"
                    )
                    .as_bytes(),
                );
            }
            None
        }
    }
}
