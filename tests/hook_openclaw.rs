//! The OpenClaw plugin of `examples/openclaw/thinker-recall`, run by node
//! (`tests/openclaw/host.mjs`, a stand-in for OpenClaw's plugin host: it loads the
//! plugin as OpenClaw does and fires `before_prompt_build`) against the real binary: a
//! matching prompt gets exactly what `show --format prompt --for` prints as
//! `prependContext`, an unrelated one nothing, and a missing binary nothing but a
//! warning. Needs node: ignored unless run with `--ignored` (`.ci/run` does
//! when node is there; `THINKER_NODE` names another one).

use std::process::Command;

use serde_json::Value;

use crate::support::{NOW, Tick};

const STATE: &str = r#"{
  "version": 1, "tick_count": 4, "last_tick": "2026-11-22T10:00:00Z",
  "active_threads": [
    {"id": "t-acme-invoice-overdue", "summary": "ACME invoice 4411 is 14 days overdue", "strength": 5,
     "created": "2026-11-21T08:00:00Z", "last_seen": "2026-11-22T10:00:00Z", "source": "watcher"},
    {"id": "t-dentist-weber", "summary": "Dentist appointment with Dr. Weber Tuesday 9:00",
     "strength": 6, "created": "2026-11-21T08:00:00Z", "last_seen": "2026-11-22T10:00:00Z",
     "due": "2026-11-24T09:00:00Z", "source": "oracle"}
  ],
  "patterns": [], "hunches": [], "insights": [], "escalation_history": [], "thread_state": {}
}"#;

fn node() -> String {
    std::env::var("THINKER_NODE").unwrap_or_else(|_| "node".into())
}

/// The hook's results for `prompts`, one JSON value per prompt.
fn host(tick: &mut Tick, options: &Value, prompts: &[&str]) -> Vec<Value> {
    let thinker = tick.command(&["show"]);
    let dir = format!(
        "{}/examples/openclaw/thinker-recall",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut node = Command::new(node());
    node.arg(format!(
        "{}/tests/openclaw/host.mjs",
        env!("CARGO_MANIFEST_DIR")
    ))
    .arg(&dir)
    .arg(options.to_string())
    .args(prompts);
    for (var, value) in thinker.get_envs() {
        match value {
            Some(v) => node.env(var, v),
            None => node.env_remove(var),
        };
    }
    let out = node.output().unwrap_or_else(|e| {
        panic!(
            "cannot run {} ({e}): install nodejs",
            node.get_program().to_string_lossy()
        )
    });
    assert!(
        out.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
#[ignore = "needs node >= 18: THINKER_NODE, else node on PATH"]
fn the_openclaw_plugin_prepends_what_show_for_prints() {
    let mut tick = Tick::new().state(STATE);
    let thinker = tick.command(&["show"]);
    let options = serde_json::json!({
        "command": thinker.get_program().to_string_lossy(),
        "config": tick.config_path().to_string_lossy(),
        "state": tick.dir().to_string_lossy(),
        "now": NOW,
    });
    let matching = "what about the invoice?";
    let results = host(
        &mut tick,
        &options,
        &[
            matching,
            "write a haiku about autumn leaves",
            "messages:dentist",
        ],
    );
    let shown = tick.thinker(&["show", "--format", "prompt", "--for", matching]);
    shown.expect_exit(0);
    assert!(
        shown.stdout.contains("[t-acme-invoice-overdue]"),
        "{}",
        shown.stdout
    );
    assert_eq!(
        results[0]["result"]["prependContext"],
        shown.stdout.as_str()
    );
    assert_eq!(results[1]["result"], Value::Null, "unrelated: nothing");
    let dentist = results[2]["result"]["prependContext"].as_str().unwrap();
    assert!(dentist.contains("[t-dentist-weber]"), "{dentist}");
    assert_eq!(results[2]["warnings"], serde_json::json!([]));

    // thinker missing: nothing added, one warning, the agent goes on.
    let broken = serde_json::json!({"command": "/nonexistent/thinker"});
    let results = host(&mut tick, &broken, &[matching]);
    assert_eq!(results[0]["result"], Value::Null);
    assert!(
        results[0]["warnings"][0]
            .as_str()
            .is_some_and(|w| w.contains("thinker-recall")),
        "{}",
        results[0]
    );
}
