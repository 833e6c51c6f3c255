//! Overlap (issue 14): `thinker tick` processes started at once on one state directory,
//! two and ten at a time, with `thinker feedback` writers, a `thinker mcp` reader and
//! `thinker show --json` running alongside.
//!
//! The lock (`StateDir::lock`) is taken without waiting: one tick runs, the others exit 75
//! and touch nothing. The provider answers every call with a finding no other call
//! shares, so every tick that ran is an update that could be lost. What is checked: every
//! run exits 0 or 75 (at least one 0 per batch); every tick that exited 0 has its journal
//! line, and the applied lines' `tick_count`s follow each other with no gap or repeat (two
//! ticks running at once would both write the same one); the state's `tick_count` is the
//! seed's plus the ticks that exited 0; only those ticks called the provider. Alongside:
//! every `show --json` prints a state that validates, every MCP `subconscious` call
//! answers the memory block, and every verdict lands exactly once — in a tick's journal
//! line (`aggregate.feedback`) or still in `feedback.jsonl`.
//!
//! Every command is built before any process starts: building one writes the config
//! file, which running processes read.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use thinker::state::State;

use crate::storage_crash::Unique;
use crate::support::{SEED, Tick};

/// How long any one process may take before the test fails (never reached when well).
const PATIENCE: Duration = Duration::from_mins(1);

/// Waits for `child` (killing it after [`PATIENCE`]): its exit code and stderr.
fn finish(mut child: Child) -> (Option<i32>, String) {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if child.try_wait().unwrap().is_some() {
            let out = child.wait_with_output().unwrap();
            return (
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            );
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("a process did not finish within {PATIENCE:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn piped(mut cmd: Command) -> Child {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Starts every command of `batch` at once and waits for all: their exit codes.
fn at_once(batch: Vec<Command>) -> Vec<(Option<i32>, String)> {
    let children: Vec<Child> = batch.into_iter().map(piped).collect();
    children.into_iter().map(finish).collect()
}

/// The tick lines of the journal (not the escalation ones).
fn tick_lines(dir: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l.get("escalation").is_none())
        .collect()
}

/// Runs `batches` of ticks started at once; checks the exit codes and returns how many
/// ticks ran.
fn run_batches(batches: Vec<Vec<Command>>) -> u64 {
    let mut ran = 0;
    for batch in batches {
        let size = batch.len();
        let results = at_once(batch);
        let zeros = results.iter().filter(|(c, _)| *c == Some(0)).count();
        for (code, stderr) in &results {
            match code {
                Some(0) => {}
                Some(75) => assert!(
                    stderr.contains("another thinker tick holds the lock"),
                    "{stderr}"
                ),
                other => panic!("a tick of {size} at once exited {other:?}: {stderr}"),
            }
        }
        assert!(zeros >= 1, "of {size} ticks at once, none ran: {results:?}");
        ran += zeros as u64;
    }
    ran
}

/// Checks the journal and the state after `ran` ticks on [`SEED`] (tick_count 4).
fn check_serial(tick: &Tick, ran: u64) {
    let lines = tick_lines(tick.dir());
    assert_eq!(
        lines.len() as u64,
        ran,
        "one journal line per tick that ran"
    );
    let counts: Vec<u64> = lines
        .iter()
        .map(|l| l["tick_count"].as_u64().unwrap())
        .collect();
    let expected: Vec<u64> = (5..5 + ran).collect();
    assert_eq!(counts, expected, "no gap, no repeat");
    assert!(lines.iter().all(|l| l["aggregate"]["applied"] == true));
    let runs: std::collections::BTreeSet<u64> =
        lines.iter().map(|l| l["run"].as_u64().unwrap()).collect();
    assert_eq!(runs.len() as u64, ran, "each run once");
    let state = thinker::storage::StateDir::at(tick.dir()).load().unwrap();
    assert_eq!(state.tick_count, 4 + ran);
}

#[test]
fn two_and_ten_ticks_at_once_run_one_at_a_time_and_lose_no_update() {
    let answers = Unique::new(0);
    let mut tick = answers.mount(Tick::new().state(SEED));
    let batches: Vec<Vec<Command>> = [2, 2, 2, 2, 10, 10, 10]
        .iter()
        .map(|&n| (0..n).map(|_| tick.command(&["tick"])).collect())
        .collect();
    let ran = run_batches(batches);
    check_serial(&tick, ran);
    assert_eq!(
        answers.calls() as u64,
        4 * ran,
        "only the ticks that ran called the provider"
    );
}

/// A raw MCP client on the binary's stdio.
struct Mcp {
    child: Child,
    stdout: BufReader<std::process::ChildStdout>,
    next: u64,
}

impl Mcp {
    fn start(mut cmd: Command) -> Mcp {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut mcp = Mcp {
            child,
            stdout,
            next: 0,
        };
        let init = mcp.request(
            "initialize",
            &json!({"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "overlap", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "thinker", "{init}");
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: &Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        let answer: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON-RPC ({e}): {line:?}"));
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    fn close(mut self) -> Option<i32> {
        drop(self.child.stdin.take());
        finish(self.child).0
    }
}

/// Runs `show --json` until `stop` (or the commands run out): how many read a state.
fn show_in_a_loop(commands: Vec<Command>, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        let mut read = 0;
        for mut cmd in commands {
            if stop.load(Ordering::SeqCst) {
                break;
            }
            let out = cmd.stdin(Stdio::null()).output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text = String::from_utf8(out.stdout).unwrap();
            State::from_json(&text)
                .unwrap_or_else(|e| panic!("show --json printed no state ({e:?}): {text}"));
            read += 1;
        }
        read
    })
}

/// Calls the MCP tool `subconscious` until `stop`: how many answered the memory block,
/// and the server's exit code once its stdin is closed.
fn recall_in_a_loop(
    mut mcp: Mcp,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<(usize, Option<i32>)> {
    std::thread::spawn(move || {
        let mut read = 0;
        while !stop.load(Ordering::SeqCst) {
            let answer = mcp.request(
                "tools/call",
                &json!({"name": "subconscious", "arguments": {}}),
            );
            let result = &answer["result"];
            assert_eq!(result["isError"], false, "{answer}");
            let text = result["content"][0]["text"].as_str().unwrap_or_default();
            assert!(text.starts_with("<thinker-memory>"), "{answer}");
            read += 1;
        }
        (read, mcp.close())
    })
}

/// How many times each verdict's id is in the journal (`aggregate.feedback.unknown`) or
/// still in `feedback.jsonl`.
fn landed_verdicts(dir: &std::path::Path) -> BTreeMap<String, usize> {
    let mut landed: BTreeMap<String, usize> = BTreeMap::new();
    let pending: Vec<Value> = std::fs::read_to_string(dir.join("feedback.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let applied: Vec<Value> = tick_lines(dir)
        .iter()
        .flat_map(|l| {
            l["aggregate"]["feedback"]["unknown"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    for verdict in pending.iter().chain(&applied) {
        *landed
            .entry(verdict["id"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    landed
}

#[test]
fn feedback_writers_and_readers_alongside_overlapping_ticks_lose_nothing() {
    const WRITERS: usize = 3;
    const VERDICTS: usize = 12;
    let answers = Unique::new(0);
    let mut tick = answers.mount(Tick::new().state(SEED));
    // Every command first (building one writes the config).
    let writers: Vec<Vec<(String, Command)>> = (0..WRITERS)
        .map(|w| {
            (0..VERDICTS)
                .map(|v| {
                    let id = format!("x-writer{w}-verdict{v}");
                    let cmd = tick.command(&["feedback", &id, "used"]);
                    (id, cmd)
                })
                .collect()
        })
        .collect();
    let show_cmds: Vec<Command> = (0..400)
        .map(|_| tick.command(&["show", "--json"]))
        .collect();
    let batches: Vec<Vec<Command>> = (0..12)
        .map(|r| {
            (0..if r % 3 == 2 { 10 } else { 2 })
                .map(|_| tick.command(&["tick"]))
                .collect()
        })
        .collect();
    let settle = tick.command(&["tick"]);
    let mcp = Mcp::start(tick.command(&["mcp"]));

    let stop = Arc::new(AtomicBool::new(false));
    let writing: Vec<_> = writers
        .into_iter()
        .map(|cmds| {
            std::thread::spawn(move || {
                let mut ids = Vec::new();
                for (id, cmd) in cmds {
                    let (code, stderr) = finish(piped(cmd));
                    assert_eq!(code, Some(0), "feedback {id}: {stderr}");
                    ids.push(id);
                }
                ids
            })
        })
        .collect();
    let showing = show_in_a_loop(show_cmds, stop.clone());
    let recalling = recall_in_a_loop(mcp, stop.clone());

    let ran = run_batches(batches);
    let written: Vec<String> = writing
        .into_iter()
        .flat_map(|w| w.join().unwrap())
        .collect();
    stop.store(true, Ordering::SeqCst);
    let shown = showing.join().unwrap();
    let (recalled, mcp_exit) = recalling.join().unwrap();
    assert!(
        shown > 0 && recalled > 0,
        "the readers read: {shown}, {recalled}"
    );
    assert_eq!(mcp_exit, Some(0));
    // One more tick, alone, takes what was written after the last batch.
    let (code, stderr) = finish(piped(settle));
    assert_eq!(code, Some(0), "{stderr}");
    check_serial(&tick, ran + 1);

    // Each verdict exactly once: applied by a tick, or still waiting.
    let landed = landed_verdicts(tick.dir());
    for id in &written {
        assert_eq!(landed.get(id), Some(&1), "{id} should land exactly once");
    }
    assert_eq!(
        landed.len(),
        written.len(),
        "nothing else landed: {landed:?}"
    );
}
