//! Builders shared by the tests: entries, answers and times for the library tests, and
//! [`Tick`], the one builder that runs the `thinker` binary in a temp home with its
//! expectations declared before the run (`support/tick.rs`), with the servers it talks to
//! (`support/rendezvous.rs`). Helpers only: no `#[test]` lives here.

mod rendezvous;
mod tick;

pub use rendezvous::{Event, read_model, rendezvous};
pub use tick::{Outcome, SEED, Sequence, Tick, completion, found, ids, nothing, ok, snapshot};

use chrono::{DateTime, TimeDelta, Utc};
use thinker::aggregate::{Decay, Settings, ThreadOutcome};
use thinker::answer::{Answer, Finding};
use thinker::state::{Entry, State, Strength};
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

/// An entry of importance 5, seen once an hour ago by the Watcher.
pub fn entry(id: &str, summary: &str, strength: u8) -> Entry {
    let mut e = Entry::new(
        id.into(),
        summary.into(),
        Strength::whole(strength),
        5,
        minutes_ago(600),
    );
    e.last_seen = minutes_ago(60);
    e.source = Some("watcher".into());
    e.from = vec!["watcher".into()];
    e
}

pub fn finding(summary: &str, importance: u8, kind: Kind) -> Finding {
    Finding {
        summary: summary.into(),
        importance,
        kind,
        due: None,
        from: None,
        refs: Vec::new(),
    }
}

/// A whole strength.
pub fn st(points: u8) -> Strength {
    Strength::whole(points)
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

/// The rules' settings for table tests: every category decays one point an hour, and
/// [`state_with`]'s previous tick was an hour ago, so a tick charges exactly 1 point
/// (the rules of decay by time have tests of their own with the defaults).
pub fn settings() -> Settings {
    Settings {
        token_budget: 100_000,
        decay: Decay::hours(1.0, 1.0, 1.0, 1.0),
        ..Settings::default()
    }
}

/// An empty state whose last applied tick was an hour before [`now`].
pub fn fresh() -> State {
    state_with(Vec::new(), Vec::new())
}

/// A state whose last applied tick was an hour before [`now`].
pub fn state_with(active: Vec<Entry>, patterns: Vec<Entry>) -> State {
    State {
        active_threads: active,
        patterns,
        last_tick: Some(minutes_ago(60)),
        ..State::default()
    }
}

/// What a test marked `#[ignore = "needs …"]` needs, from `var`: the base URL of a real
/// server (trailing `/` cut) or the path of a component. Such a test runs only when asked
/// (`cargo test -- --ignored`, as `.ci/run` does once it has brought the component up), so
/// an unset `var` then fails it, loudly, with `how` to set it: never a silent pass.
#[track_caller]
pub fn component(var: &str, how: &str) -> String {
    match std::env::var(var) {
        Ok(value) if !value.trim().is_empty() => value.trim().trim_end_matches('/').to_string(),
        _ => panic!(
            "{var} is not set, and this #[ignore]d test needs it: {how} \
             (`cargo test` alone passes without it: README, \"Component tests\")"
        ),
    }
}

/// A provider's settings with the defaults of a provider table that sets only what it
/// must (no key, local, no budgets or prices, 10 s timeout, no retry), for tests that
/// build one in code: each sets what it is about with `..provider(…)`.
pub fn provider(
    name: &str,
    kind: thinker::config::ProviderKind,
    base_url: &str,
) -> thinker::config::ProviderConfig {
    thinker::config::ProviderConfig {
        name: name.into(),
        kind,
        base_url: base_url.into(),
        api_key_env: None,
        timeout: std::time::Duration::from_secs(10),
        retries: 0,
        retry_max_wait: std::time::Duration::from_millis(20),
        requests_per_minute: None,
        concurrency: None,
        structured_output: thinker::config::StructuredOutput::Auto,
        price_in: 0.0,
        price_out: 0.0,
        daily_tokens: None,
        daily_cost: None,
        replay_dir: None,
        anthropic_version: "2023-06-01".into(),
        max_response_bytes: thinker::config::DEFAULT_MAX_RESPONSE_BYTES,
        breaker: thinker::provider::config::BreakerSettings::default(),
        redact: false,
        local: true,
        trusted: false,
        tls: thinker::config::TlsSettings::default(),
    }
}
