//! `thinker doctor` through the binary: a healthy setup offline and online
//! (the provider a loopback wiremock server), a broken config, a missing key variable, a
//! lock held by another process, a corrupt journal line, an open breaker (and one a new key
//! closed, as the tick does), a failing
//! thread, `--json`. Times in the snapshots are normalised (`N ms`), and the temp home is
//! `[HOME]`; `--now` is fixed by the harness.

use std::fs;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use serde_json::Value;
use thinker::thread::ThreadName::Watcher;
use wiremock::ResponseTemplate;

use crate::support::{SEED, Tick};

/// `text` with the temp home as `[HOME]`, every `<digits> ms` as `N ms` and the egress
/// line's sizes (they follow the prompts' length) as `N KB`.
fn normalised(text: &str, tick: &Tick) -> String {
    let text = text.replace(&tick.home().display().to_string(), "[HOME]");
    let text = regex::Regex::new(r"\d+(?:\.\d)? (?:B|KB|MB) to")
        .unwrap()
        .replace_all(&text, "N KB to")
        .into_owned();
    let mut out = String::new();
    let mut digits = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        if !digits.is_empty() {
            let rest: String = chars.clone().take(2).collect();
            if c == ' ' && rest == "ms" {
                out.push('N');
            } else {
                out.push_str(&digits);
            }
            digits.clear();
        }
        out.push(c);
    }
    out + &digits
}

/// The line of check `name` (the text after the level word).
fn line<'a>(stdout: &'a str, name: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| {
            l.get(5..)
                .is_some_and(|rest| rest.starts_with(&format!("{name}:")))
        })
        .unwrap_or_else(|| panic!("no `{name}` line in\n{stdout}"))
}

/// A setup with a state and one tick in its journal.
fn healthy() -> Tick {
    let mut tick = Tick::new().state(SEED);
    tick.run().expect_exit(0);
    tick
}

#[test]
fn healthy_offline_is_all_ok_or_warn_and_calls_nothing() {
    let mut tick = healthy();
    let before = tick.all_requests();
    let out = tick.thinker(&["doctor", "--offline"]);
    out.expect_exit(0);
    assert_eq!(tick.all_requests(), before, "--offline sent a request");
    assert!(
        !out.stdout.lines().any(|l| l.starts_with("FAIL")),
        "{}",
        out.stdout
    );
    insta::assert_snapshot!("doctor_offline", normalised(&out.stdout, &tick));
}

#[test]
fn healthy_online_asks_each_provider_for_one_token_without_a_schema() {
    let mut tick = healthy();
    let before = tick.requests(Watcher).len();
    let out = tick.thinker(&["doctor"]);
    out.expect_exit(0);
    assert!(
        line(&out.stdout, "provider local")
            .starts_with("ok   provider local: local/watcher answered in"),
        "{}",
        out.stdout
    );
    let requests = tick.requests(Watcher);
    assert_eq!(requests.len(), before + 1);
    let body: Value = serde_json::from_slice(&requests[before].body).unwrap();
    assert_eq!(body["max_tokens"], 1, "{body}");
    assert!(body.get("response_format").is_none(), "{body}");
    insta::assert_snapshot!("doctor_online", normalised(&out.stdout, &tick));
}

#[test]
fn a_broken_config_is_a_fail_line_naming_the_key_and_its_line() {
    let mut tick = Tick::new()
        .state(SEED)
        .config_extra("[memory]\nmatch_threshold = 7")
        .expect_exit(1);
    let out = tick.thinker(&["doctor", "--offline"]);
    let config = line(&out.stdout, "config");
    assert!(config.starts_with("FAIL"), "{config}");
    assert!(config.contains("memory.match_threshold"), "{config}");
    assert!(config.contains("line "), "{config}");
    // The checks that need no config still run.
    assert!(
        line(&out.stdout, "state").starts_with("ok"),
        "{}",
        out.stdout
    );
    assert!(
        line(&out.stdout, "lock").starts_with("ok"),
        "{}",
        out.stdout
    );
    insta::assert_snapshot!("doctor_broken_config", normalised(&out.stdout, &tick));
}

#[test]
fn a_missing_key_variable_fails_and_a_set_one_is_never_printed() {
    let mut tick = Tick::new()
        .state(SEED)
        .local("api_key_env = \"THINKER_TEST_KEY\"")
        .expect_exit(1);
    let out = tick.thinker(&["doctor"]);
    let key = line(&out.stdout, "key local");
    assert!(
        key.starts_with("FAIL") && key.contains("THINKER_TEST_KEY is not set"),
        "{key}"
    );
    let provider = line(&out.stdout, "provider local");
    assert!(
        provider.starts_with("FAIL") && provider.contains("not called"),
        "{provider}"
    );
    assert_eq!(tick.all_requests(), 0, "a call was sent without its key");

    let secret = "sk-doctor-secret-0123456789";
    let mut tick = Tick::new()
        .state(SEED)
        .local("api_key_env = \"THINKER_TEST_KEY\"")
        .env("THINKER_TEST_KEY", secret)
        .expect_exit(0);
    for args in [&["doctor"][..], &["doctor", "--json"]] {
        let out = tick.thinker(args);
        assert!(!out.stdout.contains(secret) && !out.stderr.contains(secret));
    }
    let out = tick.thinker(&["doctor"]);
    assert!(line(&out.stdout, "key local").contains("THINKER_TEST_KEY is set"));
}

#[test]
fn a_lock_held_by_another_process_is_a_warning_never_a_wait() {
    let mut tick = Tick::new().state(SEED).expect_exit(0);
    let lock = tick.dir().join("subconscious.json.lock");
    // `flock` holds the lock (flock(2), as the tick's) until killed; it says when it has it.
    // `--no-fork`: the process killed is the one holding it.
    let mut holder = Command::new("flock")
        .args(["-x", "--no-fork"])
        .arg(&lock)
        .args(["-c", "echo locked; exec sleep 600"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(holder.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first.trim(), "locked");
    let out = tick.thinker(&["doctor", "--offline"]);
    holder.kill().unwrap();
    holder.wait().unwrap();
    let lock_line = line(&out.stdout, "lock");
    assert!(lock_line.starts_with("warn"), "{lock_line}");
    assert!(lock_line.contains("fuser"), "{lock_line}");
    // Released: free again.
    let out = tick.thinker(&["doctor", "--offline"]);
    assert!(
        line(&out.stdout, "lock").starts_with("ok"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_corrupt_journal_line_is_a_warning_and_the_rest_is_read() {
    let mut tick = healthy();
    let journal = tick.dir().join("journal.jsonl");
    let mut text = fs::read_to_string(&journal).unwrap();
    text.push_str("{\"time\": \"torn\n");
    fs::write(&journal, text).unwrap();
    let out = tick.thinker(&["doctor", "--offline"]);
    out.expect_exit(0);
    let warn = line(&out.stdout, "journal");
    assert!(warn.starts_with("warn"), "{warn}");
    assert!(warn.contains("journal.jsonl line 2"), "{warn}");
    assert!(
        line(&out.stdout, "last tick").contains("run 1"),
        "{}",
        out.stdout
    );
}

#[test]
fn an_open_breaker_fails_with_until_when_and_what_to_fix() {
    let mut tick = Tick::new()
        .state(SEED)
        .local("api_key_env = \"THINKER_TEST_KEY\"")
        .env("THINKER_TEST_KEY", "k")
        .expect_exit(1);
    // Opened against this config and key "k" (a breaker kept for another key is stale:
    // the next tick closes it).
    fs::write(tick.config_path(), tick.config_text()).unwrap();
    let config = thinker::config::Config::load(&tick.config_path()).unwrap();
    // Keyed with the state's secret, as the tick keys it.
    let secret = thinker::untrusted::redact::RedactionKey::from_bytes([5; 32]);
    fs::create_dir_all(tick.dir()).unwrap();
    fs::write(tick.dir().join("redaction.key"), secret.to_hex()).unwrap();
    let fingerprint = thinker::provider::config::fingerprint(
        &config.providers["local"],
        Some("k"),
        Some(&secret),
    )
    .written()
    .to_string();
    fs::write(
        tick.dir().join("ledger.json"),
        r#"{"runs": 7, "day": "2026-11-22", "spent": {"local": {"tokens": 1200, "cost": 0.25, "calls": 3}},
            "breakers": {"local": {"failures": 3, "opened": "2026-11-22T09:00:00Z", "reason": "HTTP 401", "fingerprint": "FP"}}}"#
            .replace("FP", &fingerprint),
    )
    .unwrap();
    let out = tick.thinker(&["doctor", "--offline"]);
    let breaker = line(&out.stdout, "breaker local");
    assert_eq!(
        breaker,
        "FAIL breaker local: open since Sun 22 Nov 09:00 (HTTP 401): not called until Sun 22 Nov 15:00; fix `THINKER_TEST_KEY` (a new key or config closes it)"
    );
    assert!(
        line(&out.stdout, "budget today").contains("1200 tokens"),
        "{}",
        out.stdout
    );
}

#[test]
fn three_failed_calls_in_a_row_fail_the_thread() {
    let mut tick = Tick::new()
        .state(SEED)
        .respond(Watcher, ResponseTemplate::new(500));
    for _ in 0..3 {
        tick.run();
    }
    let out = tick.thinker(&["doctor", "--offline"]);
    out.expect_exit(1);
    let thread = line(&out.stdout, "thread watcher");
    assert!(
        thread.starts_with("FAIL") && thread.contains("last 3 calls"),
        "{thread}"
    );
    assert!(!out.stdout.contains("thread oracle"), "{}", out.stdout);
}

#[test]
fn json_lists_every_check_with_its_level() {
    let mut tick = healthy().expect_exit(0);
    let out = tick.thinker(&["doctor", "--offline", "--json"]);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let checks = report["checks"].as_array().unwrap();
    assert_eq!(checks[0]["check"], "config");
    assert_eq!(checks[0]["level"], "ok");
    assert_eq!(report["fail"], 0);
    let n = report["ok"].as_u64().unwrap() + report["warn"].as_u64().unwrap();
    assert_eq!(n, checks.len() as u64);
}

/// Regression: after the user changes a refused key, the tick closes the breaker (the key
/// it counted against is gone), and `doctor` says so instead of `FAIL … fix` the key.
#[test]
fn a_new_key_closes_the_breaker_for_doctor_as_for_the_tick() {
    let mut tick = Tick::new()
        .state(SEED)
        .local("api_key_env = \"LOCAL_KEY\"\nbreaker_failures = 1")
        .env("LOCAL_KEY", "sk-revoked-0123456789");
    for thread in thinker::thread::ThreadName::ALL {
        tick = tick.respond(
            thread,
            ResponseTemplate::new(401).set_body_string("{\"error\": \"invalid api key\"}"),
        );
    }
    tick.run().expect_exit(1);
    let out = tick.thinker(&["doctor", "--offline"]);
    out.expect_exit(1);
    assert!(
        line(&out.stdout, "breaker local").starts_with("FAIL breaker local: open since"),
        "{}",
        out.stdout
    );
    // The user fixes the key: doctor sees what the next tick will.
    let mut tick = tick.env("LOCAL_KEY", "sk-fresh-9876543210");
    let out = tick.thinker(&["doctor", "--offline"]);
    assert_eq!(
        line(&out.stdout, "breaker local"),
        "ok   breaker local: was open (the key was refused (HTTP 401/403)), counted against another key or config: the next tick calls it again",
        "{}",
        out.stdout
    );
    out.expect_exit(0);
    // And the tick does call it.
    let before = tick.all_requests();
    tick.set_now("2026-11-22T10:10:00Z");
    tick.run().expect_exit(1);
    assert!(tick.all_requests() > before, "the tick did not call it");
}
