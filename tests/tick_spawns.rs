//! A tick starts no process of its own: the demo (`examples/demo/thinker.toml`: the
//! `system`, `files` and `archive` sources, the `replay` provider) ticks without one, and
//! the `system` source still reports the disks with no program to run.
//!
//! How "no process" is seen without strace: the binary runs with a `PATH` holding no
//! program at all, and once it has exited it is held unreaped (`waitid` with `WNOWAIT`)
//! while its `/proc/PID/stat` is read. Every child a process reaps adds its page faults to
//! the parent's `cminflt`/`cmajflt` (a child that only forked and failed to exec adds a
//! few too), and the binary reaps what it starts: zero means no child was ever reaped.

#![cfg(target_os = "linux")]

use std::fs;
use std::path::Path;

use rustix::process::{Pid, WaitId, WaitIdOptions};

use crate::support::Tick;

/// The demo, copied to `to` (its paths are relative to its config).
fn copy_demo(to: &Path) {
    fn copy(from: &Path, to: &Path) {
        fs::create_dir_all(to).unwrap();
        for entry in fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name();
            if name == "state" {
                continue;
            }
            if entry.file_type().unwrap().is_dir() {
                copy(&entry.path(), &to.join(&name));
            } else {
                fs::copy(entry.path(), to.join(&name)).unwrap();
            }
        }
    }
    copy(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo"),
        to,
    );
}

/// What a finished run left: its exit code, stdout, and the page faults of the children
/// it reaped (`cminflt + cmajflt` from `/proc/PID/stat`, read before it is reaped).
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    children_faults: u64,
}

fn run_held_at_exit(mut command: std::process::Command) -> Run {
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = Pid::from_raw(i32::try_from(child.id()).unwrap()).unwrap();
    // Its output is read beside the wait: a full pipe must not hold it.
    let read = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            pipe.read_to_string(&mut text).unwrap();
            text
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    // Exited, and left a zombie (`WNOWAIT`): nothing reaps it before `child.wait()`.
    rustix::process::waitid(
        WaitId::Pid(pid),
        WaitIdOptions::EXITED | WaitIdOptions::NOWAIT,
    )
    .unwrap();
    let stat = fs::read_to_string(format!("/proc/{}/stat", pid.as_raw_pid())).unwrap();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    // Fields 3 (state) onwards: cminflt is field 11, cmajflt field 13.
    assert_eq!(fields[0], "Z", "not held as a zombie: {stat}");
    let field = |n: usize| fields[n - 3].parse::<u64>().unwrap();
    let children_faults = field(11) + field(13);
    let status = child.wait().unwrap();
    Run {
        code: status.code(),
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
        children_faults,
    }
}

/// A `Tick` with the demo in its home and a `PATH` of one empty directory.
fn demo() -> (Tick, String, String) {
    let tick = Tick::new().bare();
    copy_demo(&tick.home().join("demo"));
    let empty = tick.home().join("no-programs");
    fs::create_dir(&empty).unwrap();
    let config = tick.path("demo/thinker.toml");
    let state = tick.path("state");
    let tick = tick.env("PATH", &empty.to_string_lossy());
    (tick, config, state)
}

#[test]
fn a_demo_tick_starts_no_process() {
    let (mut tick, config, state) = demo();
    let now = "2026-11-22T10:05:00Z";
    let run = run_held_at_exit(
        tick.command(&["tick", "--config", &config, "--state", &state, "--now", now]),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.children_faults, 0,
        "the tick reaped a child process (its page faults were added to the tick's)"
    );
    // The tick did its work: the Watcher answered, its `system` source read.
    let journal = fs::read_to_string(Path::new(&state).join("journal.jsonl")).unwrap();
    let line: serde_json::Value = serde_json::from_str(journal.lines().next().unwrap()).unwrap();
    let watcher = &line["threads"][0];
    assert_eq!(watcher["thread"], "watcher", "{line}");
    assert_eq!(watcher["status"], "answered", "{line}");
    let system = &watcher["sources"][0];
    assert_eq!(system["name"], "system", "{line}");
    assert!(system["bytes"].as_u64().unwrap() > 0, "{line}");
    assert!(system.get("error").is_none(), "{line}");
}

#[test]
fn the_system_source_reports_the_disks_with_no_program_to_run() {
    let (mut tick, config, state) = demo();
    let run = run_held_at_exit(
        tick.command(&["prompt", "watcher", "--config", &config, "--state", &state]),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.children_faults, 0, "the prompt reaped a child process");
    let system = run
        .stdout
        .split("source=\"system\"")
        .nth(1)
        .and_then(|s| s.split("<<<END DATA").next())
        .unwrap_or_else(|| panic!("no system source in the prompt:\n{}", run.stdout));
    assert!(system.contains("\ndisk / "), "{system}");
    assert!(system.contains("% used ("), "{system}");
    assert!(
        system.contains("load ") && system.contains("memory "),
        "{system}"
    );
}
