//! Scale: 10,000 simulated ticks through the aggregator (`thinker::aggregate::aggregate`,
//! the library, no process, no I/O but `/proc/self/status`), four threads answering
//! scripted findings every tick, five minutes apart. Shows that time per tick, state size
//! (bytes of `State::to_json`, what the tick writes) and memory (the process's resident
//! set) stay flat as the ticks pile up: printed at ticks 1, 100, 1000, 5000 and 10000.
//!
//! The answers are a deterministic drifting world (a fixed xorshift seed, no `rand`):
//! each thread reports 0–5 findings a tick drawn from topics that live for a few hours
//! and then fade, so some findings repeat (reinforce), most are new for a while; now and
//! then a thread reinforces a remembered id or raises an escalation. Each tick's state is
//! written and read back (`to_json` → `from_json`), as the real tick does, so nothing
//! that lives only in memory can hide growth.
//!
//! Time is the mean and the 99th percentile over the ticks since the previous row.
//! `cargo bench --bench scale` prints a table; `-- --ticks N` runs N ticks (checkpoints
//! past N are left out); `-- --json PATH` also writes the rows as JSON (for
//! `scripts/bench/bench.sh`). Not a criterion bench: one long run is the measurement.

use std::error::Error;
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use chrono::{DateTime, TimeDelta, Utc};
use thinker::aggregate::{Settings, ThreadOutcome, aggregate};
use thinker::answer::{Answer, Finding};
use thinker::state::{Category, State};
use thinker::thread::ThreadName;

const CHECKPOINTS: [usize; 5] = [1, 100, 1000, 5000, 10_000];

const SUBJECTS: &[&str] = &[
    "backup job",
    "invoice from acme",
    "dentist appointment",
    "laptop disk",
    "quarterly budget",
    "deploy pipeline",
    "rent transfer",
    "newsletter pile",
    "talk proposal",
    "garden plan",
    "server certificate",
    "team retro",
    "berlin flight",
    "library books",
    "weekly report",
    "tax documents",
    "password manager",
    "wednesday meetings",
    "printer toner",
    "home router",
];
const STATES: &[&str] = &[
    "failed again overnight",
    "due before friday",
    "moved to thursday morning",
    "above ninety percent",
    "waiting on alice",
    "flaky on integration tests",
    "needs a decision today",
    "growing every week",
    "mentioned in three mails",
    "still unanswered",
];
const DETAILS: &[&str] = &[
    "check the logs",
    "ask bob",
    "see the calendar",
    "compare with last month",
    "maybe related to the update",
    "noticed twice",
    "low priority",
    "after the holidays",
];

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A topic of the drifting world: topics live ~4 hours (48 ticks), a tick sees the
/// current ones and, less often, older ones.
fn topic(rng: &mut Rng, tick: usize) -> String {
    let era = tick / 48 + rng.below(3);
    let n = era * 7 + rng.below(4);
    let mut text = format!(
        "{} {}",
        SUBJECTS[n % SUBJECTS.len()],
        STATES[(n / SUBJECTS.len()) % STATES.len()]
    );
    // One finding in three words it differently: new words, so it may not match.
    if rng.below(3) == 0 {
        let _ = write!(text, ", {}", DETAILS[rng.below(DETAILS.len())]);
    }
    text
}

fn answers(rng: &mut Rng, tick: usize, state: &State) -> [ThreadOutcome; 4] {
    ThreadName::ALL.map(|t| {
        let findings = (0..rng.below(6))
            .map(|_| Finding {
                summary: topic(rng, tick),
                importance: rng.below(11) as u8,
                kind: t.kinds()[rng.below(t.kinds().len())],
                due: None,
                from: None,
                refs: Vec::new(),
            })
            .collect();
        let remembered: Vec<&str> = Category::ALL
            .into_iter()
            .flat_map(|c| state.entries(c).iter().map(|e| e.id.as_str()))
            .collect();
        let reinforce = if !remembered.is_empty() && rng.below(4) == 0 {
            vec![remembered[rng.below(remembered.len())].to_string()]
        } else {
            Vec::new()
        };
        let escalate = rng.below(50) == 0;
        ThreadOutcome::Answered(Answer {
            findings,
            reinforce,
            suggest: format!("{t} suggests looking at the {}", topic(rng, tick)),
            escalate,
            escalate_reason: if escalate {
                topic(rng, tick)
            } else {
                String::new()
            },
            ..Answer::default()
        })
    })
}

/// `VmRSS` and `VmHWM` of this process, in KiB (0 where `/proc` is not there).
fn memory_kib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

struct Row {
    tick: usize,
    /// Mean and 99th percentile of the aggregation times since the previous checkpoint
    /// (a max would show the scheduler's preemptions on a loaded machine, not the rules).
    mean_aggregate: Duration,
    p99_aggregate: Duration,
    /// Mean write + read back (`to_json` + `from_json`) since the previous checkpoint.
    mean_roundtrip: Duration,
    state_bytes: usize,
    max_state_bytes: usize,
    entries: usize,
    rss_kib: u64,
    hwm_kib: u64,
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let ticks: usize = value("--ticks").map_or(Ok(10_000), |v| v.parse())?;
    let json_path = value("--json");

    let start: DateTime<Utc> = "2026-11-22T00:00:00Z".parse()?;
    let settings = Settings::default();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut state = State::default();
    let mut rows = Vec::new();
    let mut took_window: Vec<Duration> = Vec::new();
    let mut sum_rt = Duration::ZERO;
    let mut max_bytes = 0usize;

    let mut now = start;
    for tick in 1..=ticks {
        now += TimeDelta::minutes(5);
        let results = answers(&mut rng, tick, &state);
        let began = Instant::now();
        let (next, report) = aggregate(&state, &results, &[], now, &settings);
        let took = began.elapsed();
        black_box(&report);
        let began = Instant::now();
        let text = next.to_json()?;
        state = State::from_json(&text)?;
        sum_rt += began.elapsed();
        took_window.push(took);
        max_bytes = max_bytes.max(text.len());
        if CHECKPOINTS.contains(&tick) {
            let (rss_kib, hwm_kib) = memory_kib();
            let window = u32::try_from(took_window.len())?;
            took_window.sort_unstable();
            let p99 = took_window[(took_window.len() * 99).div_ceil(100) - 1];
            rows.push(Row {
                tick,
                mean_aggregate: took_window.iter().sum::<Duration>() / window,
                p99_aggregate: p99,
                mean_roundtrip: sum_rt / window,
                state_bytes: text.len(),
                max_state_bytes: max_bytes,
                entries: state.entry_count(),
                rss_kib,
                hwm_kib,
            });
            took_window.clear();
            sum_rt = Duration::ZERO;
        }
    }

    println!("{ticks} simulated ticks through the aggregator, 4 threads, 0-5 findings each");
    println!(
        "{:>6} {:>14} {:>12} {:>14} {:>12} {:>14} {:>8} {:>9} {:>9}",
        "tick",
        "aggregate µs",
        "p99 µs",
        "write+read µs",
        "state B",
        "max state B",
        "entries",
        "RSS KiB",
        "HWM KiB"
    );
    let mut json = Vec::new();
    for r in &rows {
        println!(
            "{:>6} {:>14.1} {:>12.1} {:>14.1} {:>12} {:>14} {:>8} {:>9} {:>9}",
            r.tick,
            micros(r.mean_aggregate),
            micros(r.p99_aggregate),
            micros(r.mean_roundtrip),
            r.state_bytes,
            r.max_state_bytes,
            r.entries,
            r.rss_kib,
            r.hwm_kib
        );
        json.push(serde_json::json!({
            "tick": r.tick,
            "mean_aggregate_us": micros(r.mean_aggregate),
            "p99_aggregate_us": micros(r.p99_aggregate),
            "mean_roundtrip_us": micros(r.mean_roundtrip),
            "state_bytes": r.state_bytes,
            "max_state_bytes": r.max_state_bytes,
            "entries": r.entries,
            "rss_kib": r.rss_kib,
            "hwm_kib": r.hwm_kib,
        }));
    }
    if let Some(path) = json_path {
        let doc = serde_json::json!({ "ticks": ticks, "rows": json });
        std::fs::write(&path, serde_json::to_string_pretty(&doc)?)
            .map_err(|e| format!("cannot write the results to {path}: {e}"))?;
    }
    Ok(())
}
