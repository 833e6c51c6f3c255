//! A closed stderr (`thinker tick 2>&1 | head -c 5`) never stops a tick half-way.

use std::process::{Command, Stdio};

use thinker::thread::ThreadName::Watcher;

use crate::support::{NOW, SEED, Tick, found};

/// Guards against tracing's write fallback (`eprintln!`) panicking with exit 101 when a
/// warning meets a closed stderr, after the ledger was written and before the state.
#[test]
fn a_warning_on_a_closed_stderr_does_not_stop_the_tick() {
    let mut tick = Tick::new()
        .state(SEED)
        .thread(
            Watcher,
            "[[threads.watcher.sources]]\nkind = \"command\"\ncommand = [\"/nonexistent/thinker-test\"]",
        )
        .answer(Watcher, &found("Disk almost full on host", 7));
    tick.mount();
    std::fs::write(tick.config_path(), tick.config_text()).unwrap();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("thinker"))
        .env_clear()
        .env("HOME", tick.dir().parent().unwrap())
        .env("TZ", "UTC")
        .args(["tick", "--now", NOW, "--config"])
        .arg(tick.config_path())
        .arg("--state")
        .arg(tick.dir())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the reading end before the tick writes anything: every write gets EPIPE.
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{status:?}");
    let state: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(tick.dir().join("subconscious.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(state["tick_count"], 5);
}
