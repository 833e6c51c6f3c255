//! Crash safety (issue 14): real `thinker tick` processes, with escalation and a notifier,
//! killed with SIGKILL at random moments, hundreds of times, and the state directory
//! checked after every kill.
//!
//! What is provable from outside, and checked after every run (killed or not):
//! - `subconscious.json` loads and validates through the library's loader
//!   ([`StateDir::load`]), and so does its `.bak`;
//! - it is the state before the run or a state the run could leave: either its
//!   `tick_count` is the previous one and nothing but `escalation_history` changed (a tick
//!   that had not committed yet, or the escalation phase's own writes), or its `tick_count`
//!   is the next one, its `last_tick` is this run's `--now`, and the journal holds an
//!   applied line with that `tick_count` (every applied tick is in the journal). A mix of
//!   two states would fail one of these;
//! - `archive.jsonl` and `journal.jsonl` only grow: what was there before the run is a
//!   prefix of what is there after (nothing is written over), every line the run added is
//!   whole JSON except an unterminated last one of a killed run, and an append after such
//!   a torn line starts on a new line;
//! - the lines of `feedback.jsonl` and of the consumed files a killed tick left are whole
//!   JSON, except an unterminated last one;
//! - the notifier (a script appending the delivery's unique id to a file) never received
//!   an id twice: delivery is at most once (ARCHITECTURE.md, "Escalation: at most once").
//!
//! Between runs, `thinker feedback` adds verdicts: on unknown ids unique to each (tracked)
//! and on entries of the state (`used`, `wrong`). After the loop, two runs that are not
//! killed settle what is owed, and then: every tracked verdict was applied by a tick
//! whose state landed (never lost); one applied by two landed ticks only when the first
//! of them was killed (a kill between the commit and the removal of the consumed file,
//! which ARCHITECTURE.md calls harmless); nothing is left to consume; the applied ticks'
//! `tick_count`s are every number from the seed's to the state's, with no gap; no record
//! is left `delivery: started`.
//!
//! Bounded: 300 kills or 60 s, whichever comes first (`THINKER_CRASH_KILLS`,
//! `THINKER_CRASH_SECONDS` raise them). The kill delays come from a seeded generator
//! (`THINKER_CRASH_SEED`, printed), as fractions of a measured tick, so a seed replays
//! the same sequence of delays.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use thinker::storage::StateDir;
use thinker::thread::ThreadName;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::escalation_tick::{decision, tool_use};
use crate::support::{SEED, Tick, completion};

/// Answers every thread's call with one finding no other call shares, so every call is
/// an update that can be lost; the watcher escalates (a unique reason) on every
/// `escalate_every`-th of its calls (0: never).
#[derive(Clone)]
pub(crate) struct Unique {
    calls: Arc<AtomicUsize>,
    escalate_every: usize,
}

impl Unique {
    pub(crate) fn new(escalate_every: usize) -> Unique {
        Unique {
            calls: Arc::new(AtomicUsize::new(0)),
            escalate_every,
        }
    }

    /// Calls answered so far.
    pub(crate) fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    /// A `Tick` whose four threads are answered by this responder.
    pub(crate) fn mount(&self, mut tick: Tick) -> Tick {
        for thread in ThreadName::ALL {
            tick = tick.respond(thread, self.clone());
        }
        tick
    }
}

impl Respond for Unique {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let n = self.calls.fetch_add(1, Ordering::SeqCst) + 1;
        let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
        let model = body["model"].as_str().unwrap_or("watcher").to_string();
        let escalate =
            model == "watcher" && self.escalate_every > 0 && n % self.escalate_every == 0;
        // Words no other call uses: no two findings match (SPEC §7.2).
        let answer = json!({
            "findings": [{"summary": format!("sighting{n} alpha{n} bravo{n} charlie{n}"), "importance": 6}],
            "reinforce": [], "suggest": "",
            "escalate": escalate,
            "escalate_reason": format!("alarm{n} urgent{n} raised{n}"),
        });
        ResponseTemplate::new(200).set_body_json(completion(&model, &answer, 100, 10))
    }
}

/// The primary model: decides `notify` with a text carrying a unique delivery id
/// (`dlv-<n>`) on every call.
struct Decisions(Arc<AtomicUsize>);

impl Respond for Decisions {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let n = self.0.fetch_add(1, Ordering::SeqCst) + 1;
        tool_use(&decision(
            "notify",
            &format!("dlv-{n} needs your attention"),
            "it matters",
        ))
    }
}

/// A small deterministic generator (splitmix64): the kill delays of a seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
}

fn env_or(var: &str, default: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// The JSONL files that only ever grow.
const APPEND_ONLY: [&str; 2] = ["archive.jsonl", "journal.jsonl"];

/// Checks that `after` only appended to `before`, and that what it appended is whole
/// lines (an unterminated last one allowed when `killed`); returns whether it ends torn.
fn check_appended(name: &str, before: &[u8], after: &[u8], killed: bool, context: &str) -> bool {
    assert!(
        after.starts_with(before),
        "{name}: earlier bytes were written over ({context})"
    );
    let mut added = &after[before.len()..];
    if added.is_empty() {
        return !after.is_empty() && !after.ends_with(b"\n");
    }
    if !before.is_empty() && !before.ends_with(b"\n") {
        assert_eq!(
            added[0], b'\n',
            "{name}: an append glued onto a torn line ({context})"
        );
        added = &added[1..];
    }
    let torn = !added.is_empty() && !added.ends_with(b"\n");
    let mut lines: Vec<&[u8]> = added.split(|&b| b == b'\n').collect();
    lines.pop(); // after the last '\n': empty, or the torn piece
    for line in lines {
        assert!(
            serde_json::from_slice::<Value>(line).is_ok(),
            "{name}: a line the run wrote is not JSON ({context}): {:?}",
            String::from_utf8_lossy(line)
        );
    }
    assert!(
        !torn || killed,
        "{name}: a run that was not killed left a torn line ({context})"
    );
    torn
}

/// Every line but an unterminated last one parses as JSON.
fn check_whole(path: &Path, context: &str) {
    let Ok(bytes) = fs::read(path) else { return };
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    lines.pop();
    for line in lines.into_iter().filter(|l| !l.is_empty()) {
        assert!(
            serde_json::from_slice::<Value>(line).is_ok(),
            "{}: a whole line is not JSON ({context}): {:?}",
            path.display(),
            String::from_utf8_lossy(line)
        );
    }
}

/// The state without what the escalation phase may change on its own.
fn without_escalations(state: &Value) -> Value {
    let mut state = state.clone();
    if let Some(map) = state.as_object_mut() {
        map.remove("escalation_history");
    }
    state
}

/// The lines of the journal that are a tick's (not an escalation's) and applied.
fn applied_lines(dir: &Path) -> Vec<Value> {
    fs::read_to_string(dir.join("journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l.get("escalation").is_none() && l["aggregate"]["applied"] == true)
        .collect()
}

/// The pending feedback files: `feedback.jsonl` and `feedback.jsonl.consumed-*`.
fn feedback_files(dir: &Path) -> Vec<std::path::PathBuf> {
    fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("feedback.jsonl"))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn delivered(out: &Path) -> Vec<String> {
    fs::read_to_string(out)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn ticks_killed_at_random_moments_never_corrupt_lose_or_repeat() {
    let seed = env_or("THINKER_CRASH_SEED", 0x5EED_2026);
    let max_kills = env_or("THINKER_CRASH_KILLS", 300);
    let max_time = Duration::from_secs(env_or("THINKER_CRASH_SECONDS", 60));
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!("proof_crash: seed {seed} (THINKER_CRASH_SEED={seed} replays the delays)\n")
            .as_bytes(),
    );
    let mut rng = Rng(seed);

    // The primary model and the notifier.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let primary = rt.block_on(MockServer::start());
    let decided = Arc::new(AtomicUsize::new(0));
    rt.block_on(
        Mock::given(method("POST"))
            .and(path("/v1/messages"))
            .respond_with(Decisions(decided.clone()))
            .mount(&primary),
    );
    let answers = Unique::new(1);
    let tick = answers
        .mount(Tick::new().state(SEED))
        .env("PRIMARY_KEY", "sk-ant-test-0123456789");
    let out = tick.home().join("delivered.txt");
    let script = tick.home().join("notify.sh");
    fs::write(
        &script,
        format!("#!/bin/sh\ngrep -o 'dlv-[0-9]*' >> '{}'\n", out.display()),
    )
    .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let mut tick = tick.config_extra(&format!(
        "[journal]\nrotate = \"never\"\n\n[providers.primary]\nkind = \"anthropic\"\nbase_url = \"{}\"\napi_key_env = \"PRIMARY_KEY\"\nretries = 0\n\n[escalation]\nmodel = \"primary/claude-opus-5\"\nnotify_command = [\"{}\"]\nnotify_timeout_seconds = 10\ndaily_cap = 1000\n",
        primary.uri(),
        script.display()
    ));
    let dir = tick.dir().to_path_buf();
    let store = StateDir::at(&dir);
    let base = crate::support::now();
    let mut step = 0i64;
    let mut now = || {
        step += 1;
        thinker::timestamp::format(base + chrono::TimeDelta::minutes(10 * step))
    };

    // A few whole ticks: they must work, and they measure how long one takes.
    let mut took = Vec::new();
    for _ in 0..3 {
        tick.set_now(&now());
        let started = Instant::now();
        let run = tick.thinker(&["tick"]);
        took.push(started.elapsed());
        assert_eq!(run.code, Some(0), "{}", run.stderr);
    }
    took.sort();
    let span = u64::try_from(took[1].as_micros() * 6 / 5).unwrap_or(u64::MAX);
    assert!(
        delivered(&out).len() >= 3,
        "the whole ticks notify: {:?}",
        delivered(&out)
    );

    let mut tracked: Vec<String> = Vec::new(); // unknown ids, one verdict each
    let mut killed_runs: BTreeSet<u64> = BTreeSet::new();
    let mut stats: BTreeMap<&str, u64> = BTreeMap::new();
    let started = Instant::now();
    let mut kills = 0;
    let mut i = 0u64;
    while kills < max_kills && started.elapsed() < max_time {
        i += 1;
        // Verdicts for the next ticks: a tracked one, and now and then on the memory.
        if i % 2 == 0 {
            let id = format!("x-verdict-{i}");
            let run = tick.thinker(&["feedback", &id, "used"]);
            assert_eq!(run.code, Some(0), "{}", run.stderr);
            tracked.push(id);
        }
        if i % 5 == 0 {
            let state = store.load().unwrap();
            let ids: Vec<String> = state
                .patterns
                .iter()
                .chain(&state.active_threads)
                .map(|e| e.id.clone())
                .collect();
            if !ids.is_empty() {
                let pick = usize::try_from(rng.below(ids.len() as u64)).unwrap();
                let verdict = if i % 10 == 0 { "wrong" } else { "used" };
                tick.thinker(&["feedback", &ids[pick], verdict]);
            }
        }

        let before_state: Value =
            serde_json::from_slice(&fs::read(dir.join("subconscious.json")).unwrap()).unwrap();
        let before_count = before_state["tick_count"].as_u64().unwrap();
        let before: Vec<Vec<u8>> = APPEND_ONLY
            .iter()
            .map(|n| fs::read(dir.join(n)).unwrap_or_default())
            .collect();
        let journal_lines = before[1].split(|&b| b == b'\n').count();
        let this_now = now();
        tick.set_now(&this_now);
        let delay = Duration::from_micros(rng.below(span));
        let mut child = tick
            .command(&["tick"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill();
        let status = child.wait().unwrap();
        let killed = status.signal() == Some(9);
        if killed {
            kills += 1;
        } else {
            assert_eq!(status.code(), Some(0), "run {i}: a whole tick failed");
        }
        *stats
            .entry(if killed { "killed" } else { "finished" })
            .or_default() += 1;
        let context = format!("run {i}, seed {seed}, delay {delay:?}, killed {killed}");

        // The state: whole, valid, and the one before or one after this run.
        let state = store
            .load()
            .unwrap_or_else(|e| panic!("the state does not load ({context}): {e}"));
        if dir.join("subconscious.json.bak").exists() {
            let bak = thinker::state::State::from_json(
                &fs::read_to_string(dir.join("subconscious.json.bak")).unwrap(),
            )
            .unwrap_or_else(|e| panic!("the .bak does not load ({context}): {e:?}"));
            assert!(bak.tick_count <= state.tick_count, "{context}");
        }
        let after: Value =
            serde_json::from_slice(&fs::read(dir.join("subconscious.json")).unwrap()).unwrap();
        if state.tick_count == before_count {
            assert_eq!(
                without_escalations(&after),
                without_escalations(&before_state),
                "the state changed but not its tick_count ({context})"
            );
            *stats.entry("state before").or_default() += 1;
        } else {
            assert_eq!(state.tick_count, before_count + 1, "{context}");
            assert_eq!(after["last_tick"], this_now.as_str(), "{context}");
            assert!(
                applied_lines(&dir)
                    .iter()
                    .any(|l| l["tick_count"] == state.tick_count),
                "an applied tick without its journal line ({context})"
            );
            *stats.entry("state after").or_default() += 1;
        }

        // The append-only files.
        for (name, old) in APPEND_ONLY.iter().zip(&before) {
            let new = fs::read(dir.join(name)).unwrap_or_default();
            if check_appended(name, old, &new, killed, &context) {
                *stats.entry("torn lines").or_default() += 1;
            }
        }
        for file in feedback_files(&dir) {
            check_whole(&file, &context);
        }
        // The runs this process journaled.
        let journal = fs::read_to_string(dir.join("journal.jsonl")).unwrap_or_default();
        for line in journal.split('\n').skip(journal_lines - 1) {
            if let Ok(line) = serde_json::from_str::<Value>(line) {
                if killed && let Some(run) = line["run"].as_u64() {
                    killed_runs.insert(run);
                }
            }
        }

        // At most once.
        let ids = delivered(&out);
        let unique: BTreeSet<&String> = ids.iter().collect();
        assert_eq!(
            unique.len(),
            ids.len(),
            "a notification delivered twice ({context}): {ids:?}"
        );
    }

    // Two whole ticks settle what is owed (verdicts, interrupted deliveries).
    for _ in 0..2 {
        tick.set_now(&now());
        let run = tick.thinker(&["tick"]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
    }
    let state = store.load().unwrap();
    let applied = applied_lines(&dir);
    // The landed line of each tick_count: the last one (a line whose state never landed
    // is followed by another with the same tick_count).
    let mut landed: BTreeMap<u64, &Value> = BTreeMap::new();
    for line in &applied {
        landed.insert(line["tick_count"].as_u64().unwrap(), line);
    }
    let counts: Vec<u64> = landed.keys().copied().collect();
    let expected: Vec<u64> = (5..=state.tick_count).collect();
    assert_eq!(
        counts, expected,
        "every applied tick is in the journal, no gap"
    );

    // Verdicts: never lost; applied twice only after a killed tick that landed.
    let mut applied_by: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for line in landed.values() {
        for unknown in line["aggregate"]["feedback"]["unknown"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if let Some(id) = unknown["id"].as_str() {
                applied_by
                    .entry(id)
                    .or_default()
                    .push(line["run"].as_u64().unwrap());
            }
        }
    }
    for id in &tracked {
        let runs = applied_by.get(id.as_str()).cloned().unwrap_or_default();
        assert!(
            !runs.is_empty(),
            "the verdict on {id} was lost (seed {seed})"
        );
        for earlier in &runs[..runs.len() - 1] {
            assert!(
                killed_runs.contains(earlier),
                "the verdict on {id} was applied again after run {earlier}, which was not killed (seed {seed})"
            );
        }
        if runs.len() > 1 {
            *stats.entry("verdicts applied twice").or_default() += 1;
        }
    }
    assert!(
        feedback_files(&dir).is_empty(),
        "nothing left to consume: {:?}",
        feedback_files(&dir)
    );
    assert!(
        state
            .escalation_history
            .iter()
            .all(|r| r.delivery != Some(thinker::state::Delivery::Started)),
        "no delivery left started"
    );
    let ids = delivered(&out);
    let unique: BTreeSet<&String> = ids.iter().collect();
    assert_eq!(
        unique.len(),
        ids.len(),
        "a notification delivered twice: {ids:?}"
    );
    stats.insert("deliveries", ids.len() as u64);
    stats.insert("decisions", decided.load(Ordering::SeqCst) as u64);
    stats.insert("thread calls", answers.calls() as u64);
    stats.insert("kill window (us)", span);
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!(
            "proof_crash: seed {seed}, {i} runs in {:?}: {stats:?}\n",
            started.elapsed()
        )
        .as_bytes(),
    );
    assert!(kills > 0, "no run was killed: the delays are too long");
}
