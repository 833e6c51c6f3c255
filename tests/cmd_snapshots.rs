//! Snapshots of what people read from the commands: the dry-run account, the `-v`
//! account, the shape of `tick --json`, and the user-facing error messages (corrupt
//! state, bad config key, missing key variable, held lock). Volatile values (durations,
//! temp paths, the mock server's port) are normalised before the snapshot.

use std::fs::{self, File};

use serde_json::{Value, json};
use thinker::thread::ThreadName::{self, Dreamer, Oracle, Watcher};

use crate::support::{Outcome, SEED, Tick};

/// Durations (`0.0 s`, `12.3 s`) as `[time] s`; temp paths as `[home]`.
fn normalised(text: &str, tick: &Tick) -> String {
    let home = tick
        .config_path()
        .parent()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let text = text.replace(&home, "[home]");
    text.lines()
        .map(|line| {
            line.split("  ")
                .map(|part| match part.strip_suffix(" s") {
                    Some(n) if n.parse::<f64>().is_ok() && n.contains('.') => "[time] s",
                    _ => part,
                })
                .collect::<Vec<_>>()
                .join("  ")
        })
        .map(|line| line + "\n")
        .collect()
}

/// Every `*_ms` field set to a placeholder: durations vary from run to run.
fn without_durations(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if key.ends_with("_ms") {
                    *v = json!("[ms]");
                } else if key == "egress" {
                    // The bytes sent follow the prompts' length.
                    v["bytes"] = json!("[bytes]");
                } else {
                    without_durations(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(without_durations),
        _ => {}
    }
}

/// A tick where the watcher finds something, the oracle reinforces, the dreamer fails.
fn busy_tick() -> Tick {
    Tick::new()
        .state(SEED)
        .env("THINKER_LOG", "off")
        .answer(
            Watcher,
            &json!({"findings": [{"summary": "NAS disk is 99% full", "importance": 8, "kind": "anomaly"}],
                    "reinforce": [], "suggest": "watch the NAS", "escalate": true,
                    "escalate_reason": "The NAS will be full within the hour"}),
        )
        .answer(
            Oracle,
            &json!({"findings": [], "reinforce": ["t-acme-invoice-overdue"], "suggest": ""}),
        )
        .respond(
            Dreamer,
            wiremock::ResponseTemplate::new(500).set_body_string("model overloaded"),
        )
}

#[test]
fn dry_run_account() {
    let mut tick = busy_tick();
    let out = tick.run_with(&["--dry-run"]);
    out.expect_exit(3);
    insta::assert_snapshot!("dry_run_account", normalised(&out.stdout, &tick));
}

#[test]
fn verbose_account() {
    let mut tick = busy_tick();
    let out = tick.run_with(&["-v"]);
    out.expect_exit(3);
    assert_eq!(out.stdout, "", "the -v account goes to stderr");
    insta::assert_snapshot!("verbose_account", normalised(&out.stderr, &tick));
}

#[test]
fn tick_json_shape() {
    let mut tick = busy_tick();
    let out = tick.run_with(&["--json"]);
    out.expect_exit(3);
    let mut report: Value = serde_json::from_str(&out.stdout).unwrap();
    without_durations(&mut report);
    let text = normalised(&serde_json::to_string_pretty(&report).unwrap(), &tick);
    insta::assert_snapshot!("tick_json", text);
}

fn error_of(out: &Outcome, code: i32, tick: &Tick) -> String {
    out.expect_exit(code);
    assert_eq!(out.stdout, "", "errors go to stderr only");
    normalised(&out.stderr, tick)
}

#[test]
fn error_corrupt_state() {
    let mut tick = Tick::new()
        .state(&SEED.replace("\"strength\": 5", "\"strength\": \"high\""))
        .env("THINKER_LOG", "off");
    let out = tick.run();
    insta::assert_snapshot!("error_corrupt_state", error_of(&out, 1, &tick));
}

#[test]
fn error_bad_config_key() {
    // Its own config file, so the line in the message does not follow the harness's.
    let mut tick = Tick::new().bare().expect_exit(2).expect_stdout("");
    let config = tick.path("thinker.toml");
    fs::write(
        &config,
        "[providers.p]\nkind = \"ollama\"\n\n[memory]\nmatch_treshold = 0.5\n",
    )
    .unwrap();
    let out = tick.thinker(&["tick", "--now", "2026-11-22T10:05:00Z", "--config", &config]);
    let stderr = out
        .stderr
        .replace(&tick.home().display().to_string(), "[home]");
    insta::assert_snapshot!("error_bad_config_key", stderr);
}

#[test]
fn error_missing_key_variable() {
    let mut tick = Tick::new().state(SEED).env("THINKER_LOG", "off");
    for thread in ThreadName::ALL {
        tick = tick.expect(thread, 0);
    }
    let mut tick = tick.local("api_key_env = \"THINKER_TEST_UNSET_KEY\"");
    let out = tick.run_with(&["--dry-run"]);
    out.expect_exit(1);
    insta::assert_snapshot!("error_missing_key_variable", normalised(&out.stdout, &tick));
    tick.verify();
}

#[test]
fn error_held_lock() {
    let mut tick = Tick::new().state(SEED).env("THINKER_LOG", "off");
    let lock = File::create(tick.dir().join("subconscious.json.lock")).unwrap();
    lock.try_lock().unwrap();
    let out = tick.run();
    insta::assert_snapshot!("error_held_lock", error_of(&out, 75, &tick));
    drop(lock);
}

/// Regression (issue 8): `init` failing to write its config said "cannot read config".
#[test]
fn error_init_cannot_write() {
    let mut tick = Tick::new().bare().expect_exit(2);
    fs::write(tick.home().join("file"), "not a directory").unwrap();
    let (config, state) = (tick.path("file/config.toml"), tick.path("state"));
    let out = tick.thinker(&["init", "--config", &config, "--state", &state]);
    let stderr = out
        .stderr
        .replace(&tick.home().display().to_string(), "[home]");
    insta::assert_snapshot!("error_init_cannot_write", stderr);
    assert!(!tick.home().join("state").exists());
}

/// Issue 32: with no keys, every thread's primary model (`groq`, its key unset) fails and
/// its fallback (a local server that is not running) too. The account, cron's warning
/// line and the journal say both causes, the first first: the missing key was hidden
/// behind the fallback's `cannot connect`.
#[test]
fn a_failed_chain_shows_every_cause_in_order() {
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = dead.local_addr().unwrap().port();
    drop(dead);
    let mut tick = Tick::new()
        .state(SEED)
        .env_remove("GROQ_API_KEY")
        .provider("groq", "api_key_env = \"GROQ_API_KEY\"")
        .config_extra(&format!(
            "[providers.ollama]\nkind = \"ollama\"\nbase_url = \"http://127.0.0.1:{port}\"\nretries = 0\n"
        ));
    for thread in ThreadName::ALL {
        tick = tick
            .model(thread, "groq/llama-3.3-70b")
            .thread(thread, "fallback = [\"ollama/llama3.2\"]")
            .expect(thread, 0);
    }
    let out = tick.run_with(&["--dry-run", "-v"]);
    out.expect_exit(1);
    let account = normalised(&out.stdout, &tick)
        .replace(&port.to_string(), "PORT")
        .replace(" (os error 111)", "");
    insta::assert_snapshot!("dry_run_failed_chain", account);
    // Cron's line (stderr, at the default level): the key first, then the fallback.
    let tick_out = tick.run();
    tick_out.expect_exit(1);
    for thread in ThreadName::ALL {
        let line = tick_out
            .stderr
            .lines()
            .find(|l| l.contains("WARN") && l.contains(thread.as_str()))
            .unwrap_or_else(|| panic!("no warning for {thread}: {}", tick_out.stderr));
        let (key, fallback) = (line.find("GROQ_API_KEY"), line.find("ollama/llama3.2"));
        assert!(
            key.is_some() && fallback.is_some() && key < fallback,
            "{line}"
        );
        let error = tick_out.thread(thread)["error"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(error.starts_with("provider `groq`"), "{error}");
        assert!(
            error.contains(" → ollama/llama3.2: cannot connect"),
            "{error}"
        );
    }
    tick.verify();
}

/// A fallback that answers: the account still says why the models before it did not.
#[test]
fn an_answer_from_a_fallback_says_why_the_primary_did_not() {
    let mut tick = Tick::new()
        .state(SEED)
        .env("THINKER_LOG", "off")
        .env_remove("GROQ_API_KEY")
        .provider("groq", "api_key_env = \"GROQ_API_KEY\"")
        .model(Watcher, "groq/llama-3.3-70b")
        .thread(Watcher, "fallback = [\"local/watcher\"]");
    let out = tick.run_with(&["--dry-run"]);
    out.expect_exit(0);
    let watcher: Vec<&str> = out
        .stdout
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("watcher"))
        .take(2)
        .collect();
    assert!(
        watcher[0].contains("answered   local/watcher"),
        "{}",
        out.stdout
    );
    assert_eq!(
        watcher[1].trim(),
        "after provider `groq`: the environment variable `GROQ_API_KEY` that should hold its API key is not set"
    );
}
