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
//! (`THINKER_CRASH_SEED`, printed) as fractions of a window of 1.2 × the quickest of
//! three whole ticks measured first, so a seed replays the same sequence of fractions
//! (the moments they hit in a tick still vary with the machine's load).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
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
            model == "watcher" && self.escalate_every > 0 && n.is_multiple_of(self.escalate_every);
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
fn feedback_files(dir: &Path) -> Vec<PathBuf> {
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

/// The state directory under fire, and what the loop learned about it.
struct Proof {
    seed: u64,
    rng: Rng,
    tick: Tick,
    dir: PathBuf,
    /// The notifier's file: one delivery id a line.
    out: PathBuf,
    /// The `--now` of the next run: 10 minutes after the previous one.
    step: i64,
    /// Unknown ids given one verdict each, to be found applied.
    tracked: Vec<String>,
    /// The runs (journal `run`) of processes that were killed.
    killed_runs: BTreeSet<u64>,
    tally: BTreeMap<&'static str, u64>,
    answers: Unique,
    decided: Arc<AtomicUsize>,
    _primary: (tokio::runtime::Runtime, MockServer),
}

/// What a run starts from.
struct Before {
    state: Value,
    files: Vec<Vec<u8>>,
}

impl Proof {
    /// Threads answering unique findings, the watcher escalating on every call, the
    /// primary model deciding `notify`, the notifier appending ids.
    fn start(seed: u64) -> Proof {
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
            format!(
                "#!/bin/sh\ngrep -o 'dlv-[0-9]* needs' | cut -d' ' -f1 >> '{}'\n",
                out.display()
            ),
        )
        .unwrap();
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
        let tick = tick.config_extra(&format!(
            "[journal]\nrotate = \"never\"\n\n[providers.primary]\nkind = \"anthropic\"\nbase_url = \"{}\"\napi_key_env = \"PRIMARY_KEY\"\nretries = 0\n\n[escalation]\nmodel = \"primary/claude-opus-5\"\nnotify_command = [\"{}\"]\nnotify_timeout_seconds = 10\ndaily_cap = 1000\n",
            primary.uri(),
            script.display()
        ));
        Proof {
            seed,
            rng: Rng(seed),
            dir: tick.dir().to_path_buf(),
            tick,
            out,
            step: 0,
            tracked: Vec::new(),
            killed_runs: BTreeSet::new(),
            tally: BTreeMap::new(),
            answers,
            decided,
            _primary: (rt, primary),
        }
    }

    fn next_now(&mut self) -> String {
        self.step += 1;
        thinker::timestamp::format(
            crate::support::now() + chrono::TimeDelta::minutes(10 * self.step),
        )
    }

    fn count(&mut self, what: &'static str) {
        *self.tally.entry(what).or_default() += 1;
    }

    /// A tick that is not killed: it must succeed. How long it took.
    fn whole_tick(&mut self) -> Duration {
        let now = self.next_now();
        self.tick.set_now(&now);
        let started = Instant::now();
        let run = self.tick.thinker(&["tick"]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        started.elapsed()
    }

    /// Verdicts for the next ticks: a tracked one every other run, and now and then one
    /// on an entry of the memory.
    fn give_verdicts(&mut self, i: u64) {
        if i.is_multiple_of(2) {
            let id = format!("x-verdict-{i}");
            let run = self.tick.thinker(&["feedback", &id, "used"]);
            assert_eq!(run.code, Some(0), "{}", run.stderr);
            self.tracked.push(id);
        }
        if i.is_multiple_of(5) {
            let memory = StateDir::at(&self.dir).load().unwrap();
            let ids: Vec<String> = memory
                .patterns
                .iter()
                .chain(&memory.active_threads)
                .map(|e| e.id.clone())
                .collect();
            if !ids.is_empty() {
                let pick = usize::try_from(self.rng.below(ids.len() as u64)).unwrap();
                let verdict = if i.is_multiple_of(10) {
                    "wrong"
                } else {
                    "used"
                };
                self.tick.thinker(&["feedback", &ids[pick], verdict]);
            }
        }
    }

    fn before(&self) -> Before {
        Before {
            state: serde_json::from_slice(&fs::read(self.dir.join("subconscious.json")).unwrap())
                .unwrap(),
            files: APPEND_ONLY
                .iter()
                .map(|n| fs::read(self.dir.join(n)).unwrap_or_default())
                .collect(),
        }
    }

    /// One tick killed after a delay drawn below `span` µs (or finished before it), and
    /// every check; whether it was killed.
    fn killed_tick(&mut self, i: u64, span: u64) -> bool {
        self.give_verdicts(i);
        let before = self.before();
        let now = self.next_now();
        self.tick.set_now(&now);
        // A fraction (in millionths) of the window: the same for a seed on any machine.
        let delay =
            Duration::from_micros(span.saturating_mul(self.rng.below(1_000_000)) / 1_000_000);
        let mut child = self
            .tick
            .command(&["tick"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill();
        let exit = child.wait().unwrap();
        let killed = exit.signal() == Some(9);
        if !killed {
            assert_eq!(exit.code(), Some(0), "run {i}: a whole tick failed");
        }
        self.count(if killed { "killed" } else { "finished" });
        let context = format!(
            "run {i}, seed {}, delay {delay:?}, killed {killed}",
            self.seed
        );
        self.check_state(&before, &now, &context);
        self.check_files(&before, killed, &context);
        killed
    }

    /// The state is whole, valid, and the one before the run or the one after it.
    fn check_state(&mut self, before: &Before, now: &str, context: &str) {
        let loaded = StateDir::at(&self.dir)
            .load()
            .unwrap_or_else(|e| panic!("the state does not load ({context}): {e}"));
        if self.dir.join("subconscious.json.bak").exists() {
            let bak = thinker::state::State::from_json(
                &fs::read_to_string(self.dir.join("subconscious.json.bak")).unwrap(),
            )
            .unwrap_or_else(|e| panic!("the .bak does not load ({context}): {e:?}"));
            assert!(bak.tick_count <= loaded.tick_count, "{context}");
        }
        let after: Value =
            serde_json::from_slice(&fs::read(self.dir.join("subconscious.json")).unwrap()).unwrap();
        let count = before.state["tick_count"].as_u64().unwrap();
        if loaded.tick_count == count {
            assert_eq!(
                without_escalations(&after),
                without_escalations(&before.state),
                "the state changed but not its tick_count ({context})"
            );
            self.count("state before");
        } else {
            assert_eq!(loaded.tick_count, count + 1, "{context}");
            assert_eq!(after["last_tick"], now, "{context}");
            assert!(
                applied_lines(&self.dir)
                    .iter()
                    .any(|l| l["tick_count"] == loaded.tick_count),
                "an applied tick without its journal line ({context})"
            );
            self.count("state after");
        }
    }

    /// The JSONL files grew by whole lines; nothing was delivered twice; the runs a
    /// killed process journaled are noted.
    fn check_files(&mut self, before: &Before, killed: bool, context: &str) {
        for (name, old) in APPEND_ONLY.iter().zip(&before.files) {
            let new = fs::read(self.dir.join(name)).unwrap_or_default();
            if check_appended(name, old, &new, killed, context) {
                self.count("torn lines");
            }
        }
        for file in feedback_files(&self.dir) {
            check_whole(&file, context);
        }
        if killed {
            let journal = fs::read(self.dir.join("journal.jsonl")).unwrap_or_default();
            let added = &journal[before.files[1].len().min(journal.len())..];
            for line in added.split(|&b| b == b'\n') {
                if let Ok(line) = serde_json::from_slice::<Value>(line)
                    && let Some(run) = line["run"].as_u64()
                {
                    self.killed_runs.insert(run);
                }
            }
        }
        let ids = delivered(&self.out);
        let unique: BTreeSet<&String> = ids.iter().collect();
        assert_eq!(
            unique.len(),
            ids.len(),
            "a notification delivered twice ({context}): {ids:?}"
        );
    }

    /// After the loop and two whole ticks: no applied tick missing from the journal, no
    /// verdict lost, nothing left owed, nothing delivered twice.
    fn check_settled(&mut self) {
        let seed = self.seed;
        let memory = StateDir::at(&self.dir).load().unwrap();
        let applied = applied_lines(&self.dir);
        // The landed line of each tick_count: the last one (a line whose state never
        // landed is followed by another with the same tick_count).
        let mut landed: BTreeMap<u64, &Value> = BTreeMap::new();
        for line in &applied {
            landed.insert(line["tick_count"].as_u64().unwrap(), line);
        }
        let counts: Vec<u64> = landed.keys().copied().collect();
        let expected: Vec<u64> = (5..=memory.tick_count).collect();
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
        let mut twice = 0;
        for id in &self.tracked {
            let runs = applied_by.get(id.as_str()).cloned().unwrap_or_default();
            assert!(
                !runs.is_empty(),
                "the verdict on {id} was lost (seed {seed})"
            );
            for earlier in &runs[..runs.len() - 1] {
                assert!(
                    self.killed_runs.contains(earlier),
                    "the verdict on {id} was applied again after run {earlier}, which was not killed (seed {seed})"
                );
            }
            twice += u64::from(runs.len() > 1);
        }
        self.tally.insert("verdicts applied twice", twice);
        assert!(
            feedback_files(&self.dir).is_empty(),
            "nothing left to consume: {:?}",
            feedback_files(&self.dir)
        );
        assert!(
            memory
                .escalation_history
                .iter()
                .all(|r| r.delivery != Some(thinker::state::Delivery::Started)),
            "no delivery left started"
        );
        let ids = delivered(&self.out);
        let unique: BTreeSet<&String> = ids.iter().collect();
        assert_eq!(
            unique.len(),
            ids.len(),
            "a notification delivered twice: {ids:?}"
        );
        // The journal reads back, torn lines or not.
        assert_eq!(self.tick.thinker(&["log", "--json"]).code, Some(0));
        self.tally.insert("deliveries", ids.len() as u64);
        self.tally
            .insert("decisions", self.decided.load(Ordering::SeqCst) as u64);
        self.tally
            .insert("thread calls", self.answers.calls() as u64);
    }
}

#[test]
fn ticks_killed_at_random_moments_never_corrupt_lose_or_repeat() {
    let seed = env_or("THINKER_CRASH_SEED", 0x5EED_2026);
    let max_kills = env_or("THINKER_CRASH_KILLS", 300);
    let max_time = Duration::from_secs(env_or("THINKER_CRASH_SECONDS", 60));
    let say = |text: String| {
        let _ = std::io::Write::write_all(&mut std::io::stderr(), text.as_bytes());
    };
    say(format!(
        "storage_crash: seed {seed} (THINKER_CRASH_SEED={seed} replays the delays)\n"
    ));
    let mut proof = Proof::start(seed);
    // A few whole ticks: they must work and notify, and they measure a tick.
    let mut took: Vec<Duration> = (0..3).map(|_| proof.whole_tick()).collect();
    took.sort();
    assert!(delivered(&proof.out).len() >= 3, "the whole ticks notify");
    // The quickest: a tick slowed by a busy machine would put most kills past the end.
    let span = u64::try_from(took[0].as_micros() * 6 / 5).unwrap_or(u64::MAX);

    let started = Instant::now();
    let (mut kills, mut runs) = (0, 0);
    while kills < max_kills && started.elapsed() < max_time {
        runs += 1;
        kills += u64::from(proof.killed_tick(runs, span));
    }
    // Two whole ticks settle what is owed (verdicts, interrupted deliveries).
    proof.whole_tick();
    proof.whole_tick();
    proof.check_settled();
    proof.tally.insert("kill window (us)", span);
    say(format!(
        "storage_crash: seed {seed}, {runs} runs in {:?}: {:?}\n",
        started.elapsed(),
        proof.tally
    ));
    assert!(kills > 0, "no run was killed: the delays are too long");
}
