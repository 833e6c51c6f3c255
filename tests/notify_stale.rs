//! The agent knows how old the memory is: on a state whose last applied tick is 5 days
//! old, the hook's block, `show --format prompt` and the MCP `recall` and `status` tools
//! start with one line that says so, and `doctor` warns; on a fresh state there is no
//! such line. Snapshots of each (insta).

use std::fmt::Write as _;

use serde_json::Value;

use crate::notify_retry::{session_start, tools};
use crate::support::Tick;

/// A memory with one urgent entry, last updated at `last_tick`.
fn memory(last_tick: &str) -> String {
    format!(
        r#"{{
  "version": 2, "tick_count": 40, "last_tick": "{last_tick}",
  "active_threads": [
    {{"id": "t-nas-disk-full", "summary": "NAS disk is 99% full; tonight's backups will fail",
     "strength": 7, "importance": 9, "created": "2026-11-17T09:00:00Z", "last_seen": "{last_tick}",
     "sightings": 3, "from": ["watcher/system"], "source": "watcher"}}
  ],
  "patterns": [], "hunches": [], "insights": [], "escalation_history": [], "thread_state": {{}}
}}"#
    )
}

/// The outputs an agent gets: `show --format prompt`, the hook's `SessionStart` context,
/// a `UserPromptSubmit` about backups, MCP `recall` and `status` (their text).
fn outputs(last_tick: &str) -> Vec<(&'static str, String)> {
    let mut tick = Tick::new().state(&memory(last_tick));
    let show = tick.thinker(&["show", "--format", "prompt"]);
    assert_eq!(show.code, Some(0), "{}", show.stderr);
    let start = session_start(&mut tick);
    let out = tick.thinker_with_stdin(
        &["hook", "claude-code"],
        br#"{"hook_event_name": "UserPromptSubmit", "session_id": "s-2", "prompt": "is the NAS disk full? will tonight's backups fail?"}"#,
    );
    let prompt: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
    let prompt = prompt["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let mcp = tools(tick.dir(), "2026-11-22T10:05:00Z");
    let recall = mcp
        .recall("is the NAS disk full? will tonight's backups fail?")
        .unwrap()
        .text;
    let nothing = mcp.recall("what is the capital of Peru?").unwrap().text;
    let status = mcp.status().text;
    vec![
        ("show --format prompt", show.stdout),
        ("hook SessionStart", start),
        ("hook UserPromptSubmit", prompt),
        ("mcp recall", recall),
        ("mcp recall (no match)", nothing),
        ("mcp status", status),
    ]
}

#[test]
fn a_memory_five_days_old_says_so_first_everywhere_the_agent_reads_it() {
    let line = "thinker last updated this memory 5 days ago: it may be out of date.\n";
    let all = outputs("2026-11-17T10:05:00Z");
    for (what, text) in &all {
        assert!(text.starts_with(line), "{what}: {text}");
        assert_eq!(text.matches(line).count(), 1, "{what}: once");
    }
    let mut joined = String::new();
    for (what, text) in &all {
        let _ = write!(joined, "==== {what}\n{text}\n");
    }
    insta::assert_snapshot!("stale_memory_everywhere", joined);
    // doctor warns.
    let mut tick = Tick::new().state(&memory("2026-11-17T10:05:00Z"));
    let doctor = tick.thinker(&["doctor", "--offline"]).stdout;
    let memory_line = doctor
        .lines()
        .find(|l| l.contains(" memory: "))
        .unwrap_or_else(|| panic!("{doctor}"));
    assert!(
        memory_line.starts_with("warn memory: last updated 5 days ago"),
        "{memory_line}"
    );
}

#[test]
fn a_fresh_memory_has_no_such_line() {
    for (what, text) in outputs("2026-11-22T10:00:00Z") {
        assert!(!text.contains("out of date"), "{what}: {text}");
        assert!(!text.is_empty(), "{what}: something was said");
    }
}
