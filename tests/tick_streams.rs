//! A closed stderr (`thinker tick 2>&1 | head -c 5`) never stops a tick half-way.

use std::process::Stdio;

use thinker::thread::ThreadName::Watcher;

use crate::support::{SEED, Tick, found};

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
    let mut child = tick
        .command(&["tick"])
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
