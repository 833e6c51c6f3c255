//! Untrusted numbers, paths and files at the edges of a tick: config values out of range
//! (exit 2 naming the key and its line), configs under which a tick would do nothing,
//! `~` paths without a home, and hostile `ledger.json` files (a clear error or a safe
//! read, never a panic or a wrapped sum). The real binary, loopback only.

use std::fs;
use std::path::Path;

use crate::support::{SEED, Tick, nothing};
use serde_json::{Value, json};
use thinker::thread::ThreadName::{self, Watcher};
use wiremock::ResponseTemplate;

/// The 1-based line of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

/// Runs `thinker tick` on `tick`'s config and checks it is refused with exit 2, naming
/// `key` and the line of `needle`.
#[track_caller]
fn refused(mut tick: Tick, key: &str, needle: &str) {
    let line = line_of(&tick.config_text(), needle);
    let out = tick.run();
    out.expect_exit(2);
    assert!(
        out.stderr.contains(&format!("`{key}`")) && out.stderr.contains(&format!("line {line}")),
        "want `{key}` and line {line}:\n{}",
        out.stderr
    );
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    assert_eq!(tick.all_requests(), 0, "a refused config calls no model");
}

#[test]
fn a_cooldown_too_large_for_a_time_span_is_exit_2_not_a_panic() {
    // Regression: TimeDelta::minutes panicked (exit 101).
    refused(
        Tick::new().config_extra("[memory]\nescalation_cooldown_minutes = 153722867280912930"),
        "memory.escalation_cooldown_minutes",
        "escalation_cooldown_minutes",
    );
}

#[test]
fn out_of_range_numbers_are_refused_with_key_and_line() {
    // Regression: each of these was taken (clamped, or silently replaced by a default).
    refused(
        Tick::new().provider("other", "requests_per_minute = 1\ndaily_cost = 1e300"),
        "providers.other.daily_cost",
        "daily_cost = 1e300",
    );
    refused(
        Tick::new().local("timeout_seconds = 5\nrequests_per_minute = 1000000"),
        "providers.local.requests_per_minute",
        "requests_per_minute = 1000000",
    );
    refused(
        Tick::new().thread(Watcher, "every = 0"),
        "threads.watcher.every",
        "every = 0",
    );
    refused(
        Tick::new().config_extra("[providers.spare]\nkind = \"ollama\"\nretries = 11"),
        "providers.spare.retries",
        "retries = 11",
    );
    refused(
        Tick::new().thread(Watcher, "max_tokens = 3"),
        "threads.watcher.max_tokens",
        "max_tokens = 3",
    );
    refused(
        Tick::new().thread(
            Watcher,
            "[[threads.watcher.sources]]\nkind = \"command\"\ncommand = [\"true\"]\ntimeout_seconds = nan",
        ),
        "threads.watcher.sources[0].timeout_seconds",
        "timeout_seconds = nan",
    );
    refused(
        Tick::new().thread(
            Watcher,
            "[[threads.watcher.sources]]\nkind = \"transcript\"\npath = \"/x\"\nmax_bytes = -5",
        ),
        "threads.watcher.sources[0].max_bytes",
        "max_bytes = -5",
    );
    // Issue 8: a negative source timeout was once taken as "use the default".
    refused(
        Tick::new().thread(
            Watcher,
            "[[threads.watcher.sources]]\nkind = \"command\"\ncommand = [\"true\"]\ntimeout_seconds = -3",
        ),
        "threads.watcher.sources[0].timeout_seconds",
        "timeout_seconds = -3",
    );
    refused(
        Tick::new().thread(
            Watcher,
            "[[threads.watcher.sources]]\nkind = \"files\"\npaths = [\"/x\"]\nmax_bytes = 0",
        ),
        "threads.watcher.sources[0].max_bytes",
        "max_bytes = 0",
    );
    refused(
        Tick::new().tick_table("deadline_seconds = 60\nthread_timeout_seconds = inf"),
        "tick.thread_timeout_seconds",
        "thread_timeout_seconds = inf",
    );
    refused(
        Tick::new().config_extra("[budget]\ndaily_cost = -inf"),
        "budget.daily_cost",
        "daily_cost = -inf",
    );
}

/// A bare [`Tick`] whose temp home holds `config.toml` with `text`, and that file's path.
fn config_dir(text: &str) -> (Tick, String) {
    let tick = Tick::new().bare();
    let config = tick.path("config.toml");
    fs::write(&config, text).unwrap();
    (tick, config)
}

#[test]
fn an_empty_config_is_exit_2_saying_no_thread_would_run() {
    // Regression: `--config /dev/null` ran a tick that did nothing and said nothing.
    let mut tick = Tick::new().bare();
    let state = tick.path("state");
    let out = tick.thinker(&["tick", "--config", "/dev/null", "--state", &state]);
    let stderr = out.stderr;
    assert_eq!(out.code, Some(2), "{stderr}");
    assert!(
        stderr.contains("/dev/null defines no threads") && stderr.contains("thinker init"),
        "{stderr}"
    );
    assert!(!Path::new(&state).exists(), "nothing is created");

    let (mut tick, config) = config_dir(
        "[providers.p]\nkind = \"ollama\"\n[threads.watcher]\nmodel = \"p/m\"\nenabled = false\n",
    );
    let out = tick.thinker(&["tick", "--dry-run", "--config", &config]);
    let stderr = out.stderr;
    assert_eq!(out.code, Some(2), "{stderr}");
    assert!(stderr.contains("every thread is disabled"), "{stderr}");
}

/// No directory under `dir` (recursively) is named starting with `~`.
fn no_tilde_dir(dir: &Path) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        assert!(
            !p.file_name().unwrap().to_string_lossy().starts_with('~'),
            "a literal ~ path was created: {}",
            p.display()
        );
        if p.is_dir() {
            no_tilde_dir(&p);
        }
    }
}

#[test]
fn a_tilde_path_without_home_is_exit_2_naming_the_key() {
    // Regression: with HOME unset, `~/x` became a literal `~` directory beside the config.
    let (tick, config) = config_dir("# state\n[state]\ndir = \"~/thinker-state\"\n");
    let mut tick = tick.env_remove("HOME").in_home();
    let out = tick.thinker(&["tick", "--config", &config]);
    let stderr = out.stderr;
    assert_eq!(out.code, Some(2), "{stderr}");
    assert!(
        stderr.contains("`state.dir`") && stderr.contains("line 3") && stderr.contains("HOME"),
        "{stderr}"
    );
    no_tilde_dir(tick.home());

    // An empty HOME is no home either; `show` reads the config the same way.
    let mut tick = tick.env("HOME", "");
    let out = tick.thinker(&["show", "--config", &config]);
    assert_eq!(out.code, Some(2));
    no_tilde_dir(tick.home());
}

#[test]
fn a_tilde_user_path_that_cannot_expand_is_exit_2_naming_the_key() {
    // Regression: `~someone/x` became a literal `~someone` directory beside the config.
    let (tick, config) = config_dir(
        "[providers.p]\nkind = \"ollama\"\n[threads.watcher]\nmodel = \"p/m\"\n[[threads.watcher.sources]]\nkind = \"transcript\"\npath = \"~no-such-user-here/log.txt\"\n",
    );
    let mut tick = tick.in_home();
    let out = tick.thinker(&["tick", "--config", &config]);
    let stderr = out.stderr;
    assert_eq!(out.code, Some(2), "{stderr}");
    assert!(
        stderr.contains("threads.watcher.sources[0].path")
            && stderr.contains("line 7")
            && stderr.contains("full path"),
        "{stderr}"
    );
    no_tilde_dir(tick.home());
}

#[test]
fn without_home_the_default_paths_are_exit_2_with_the_way_out() {
    let mut tick = Tick::new().bare().env_remove("HOME").in_home();
    let out = tick.thinker(&["show"]);
    let stderr = out.stderr;
    assert_eq!(out.code, Some(2), "{stderr}");
    assert!(stderr.contains("set $HOME"), "{stderr}");
    no_tilde_dir(tick.home());
}

/// A tick whose state directory holds `ledger` as `ledger.json`.
fn with_ledger(ledger: &str) -> Tick {
    let tick = Tick::new().state(SEED);
    let dir = tick.config_path().parent().unwrap().join("state");
    fs::write(dir.join("ledger.json"), ledger).unwrap();
    tick
}

#[test]
fn a_ledger_with_huge_spending_stops_the_budget_without_a_wrap() {
    // Regression: u64::MAX tokens in the ledger overflowed the budget sums (a panic in
    // debug builds; in release a wrap back under the limit).
    let ledger = json!({"runs": 3, "day": "2026-11-22",
        "spent": {"local": {"tokens": u64::MAX, "cost": 0.5, "calls": u64::MAX},
                  "other": {"tokens": u64::MAX, "cost": 1e300, "calls": 1}}});
    let mut tick =
        with_ledger(&ledger.to_string()).config_extra("[budget]\ndaily_tokens = 1000000");
    for thread in ThreadName::ALL {
        tick = tick.expect(thread, 0);
    }
    let out = tick.run();
    out.expect_exit(0);
    for thread in ThreadName::ALL {
        assert_eq!(out.thread(thread)["skip"]["reason"], "budget");
    }
    let written: Value =
        serde_json::from_str(&fs::read_to_string(out.dir.join("ledger.json")).unwrap()).unwrap();
    assert_eq!(written["spent"]["local"]["tokens"], u64::MAX);
    assert_eq!(written["runs"], 4);
    tick.verify();
}

#[test]
fn a_ledger_at_the_last_run_number_does_not_wrap() {
    // Regression: `runs + 1` overflowed (a panic in debug builds, run 0 in release).
    let ledger = json!({"runs": u64::MAX, "day": "2026-11-22", "spent": {}});
    let mut tick = with_ledger(&ledger.to_string());
    let out = tick.run();
    out.expect_exit(0);
    assert_eq!(out.journal()[0]["run"], u64::MAX);
}

#[test]
fn a_hostile_ledger_is_exit_1_naming_it_and_the_way_out() {
    // Regression (the first): a negative cost was read and handed spent budget back.
    for ledger in [
        r#"{"day": "2026-11-22", "spent": {"local": {"tokens": 1, "cost": -1e300}}}"#,
        r#"{"day": "2026-11-22", "spent": {"local": {"tokens": -1}}}"#,
        r#"{"day": "2026-11-22", "spent": {"local": {"tokens": 1e999}}}"#,
        r#"{"day": "2026-11-22", "spent": {"local": {"tokens": "many"}}}"#,
        r#"{"runs": 1.5}"#,
        r#"{"escalations": -2}"#,
        "[1, 2]",
    ] {
        let mut tick = with_ledger(ledger).config_extra("[budget]\ndaily_cost = 0.01");
        for thread in ThreadName::ALL {
            tick = tick.expect(thread, 0);
        }
        let out = tick.run();
        out.expect_exit(1);
        assert!(
            out.stderr.contains("ledger.json") && out.stderr.contains("delete it"),
            "{ledger}: {}",
            out.stderr
        );
        assert_eq!(
            fs::read_to_string(out.dir.join("subconscious.json")).unwrap(),
            SEED
        );
        tick.verify();
    }
}

#[test]
fn a_provider_reporting_huge_usage_cannot_wrap_the_journal_totals() {
    // Regression: u64::MAX prompt tokens from one thread overflowed the journal's sums.
    // (The provider layer may clamp what it believes; the sums must hold either way.)
    let body = json!({
        "id": "x", "object": "chat.completion", "model": "watcher",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": nothing().to_string()}}],
        "usage": {"prompt_tokens": u64::MAX, "completion_tokens": u64::MAX,
                  "total_tokens": u64::MAX}
    });
    let mut tick = Tick::new()
        .state(SEED)
        .respond(Watcher, ResponseTemplate::new(200).set_body_json(body))
        .config_extra("[budget]\ndaily_tokens = 100000");
    let out = tick.run();
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    assert!(matches!(out.code, Some(0 | 3)), "{out:?}");
    let line = &out.journal()[0];
    let sum = |field: &str| {
        line["threads"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t[field].as_u64().unwrap_or(0))
            .fold(0u64, u64::saturating_add)
    };
    assert_eq!(line["tokens_in"].as_u64(), Some(sum("tokens_in")), "{line}");
    assert_eq!(
        line["tokens_out"].as_u64(),
        Some(sum("tokens_out")),
        "{line}"
    );
    assert!(line["cost"].as_f64().is_some_and(f64::is_finite), "{line}");
    // Whatever was recorded, the next tick is held to `daily_tokens`.
    let spent = sum("tokens_in").saturating_add(sum("tokens_out"));
    let again = tick.run();
    assert_eq!(line["threads"][0]["status"], "answered", "{line}");
    if spent > 100_000 {
        again.expect_exit(0);
        for thread in ThreadName::ALL {
            assert_eq!(again.thread(thread)["skip"]["reason"], "budget", "{thread}");
        }
    }
}
