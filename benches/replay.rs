//! Replay speed: a journal of 10,000 ticks — four answers each, drawn from a
//! small world so that entries match, decay and get pruned; an agent's verdict now and
//! then; each line with its state's digest, as `thinker tick` writes it — read and
//! replayed with the recorded settings (checked against every digest), then with an
//! override beside it, as `thinker replay --set` does. Prints ticks per second.
//!
//! `cargo bench --bench replay` (`-- --ticks N` for another size, `-- --json FILE` to also
//! write the figures as JSON, for `scripts/bench/bench.sh`).

use std::fmt::Write as _;
use std::time::Instant;

use chrono::TimeDelta;
use serde_json::{Value, json};
use thinker::aggregate::feedback::{Judgement, Verdict};
use thinker::aggregate::{Settings, ThreadOutcome, aggregate};
use thinker::answer::{Answer, Finding};
use thinker::replay::{self, Follow, Keep};
use thinker::state::State;
use thinker::thread::ThreadName;
use thinker::timestamp;

const TOPICS: &[&str] = &[
    "invoice from acme overdue since tuesday",
    "invoice from acme overdue since monday",
    "backup job on nas failed again overnight",
    "backup job on nas failed again today",
    "dentist appointment thursday morning nine",
    "disk usage on laptop above ninety percent",
    "alice asked about quarterly budget review",
    "deploy pipeline flaky on integration tests",
    "rent transfer due first of december",
    "conference talk proposal deadline friday",
    "server certificate expires in twelve days",
    "flight to berlin needs seat selection",
];

fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn answer(thread: ThreadName, n: u64) -> Answer {
    let r = mix(n * 4 + thread.index() as u64);
    Answer {
        findings: (0..r % 3)
            .map(|k| {
                let pick = mix(r + k);
                Finding {
                    summary: TOPICS[(pick % TOPICS.len() as u64) as usize].to_string(),
                    importance: (1 + (pick >> 8) % 9) as u8,
                    kind: thread.default_kind(),
                    due: None,
                    from: None,
                    refs: Vec::new(),
                }
            })
            .collect(),
        escalate: thread == ThreadName::Watcher && n % 23 == 5,
        escalate_reason: if thread == ThreadName::Watcher && n % 23 == 5 {
            TOPICS[(r % 4) as usize].to_string()
        } else {
            String::new()
        },
        ..Answer::default()
    }
}

/// Writes a journal of `ticks` ticks to `dir`, as the tick writes it.
fn journal(dir: &std::path::Path, ticks: u64) -> usize {
    let settings = Settings::default();
    let start = timestamp::parse("2026-01-01T00:00:00Z").unwrap_or_default();
    let mut state = State::default();
    let mut text = String::new();
    for n in 1..=ticks {
        let now = start + TimeDelta::minutes(5 * n.cast_signed());
        let results = ThreadName::ALL.map(|t| ThreadOutcome::Answered(answer(t, n)));
        let verdicts: Vec<Verdict> = if n % 50 == 0 {
            state
                .all_entries()
                .next()
                .map(|(_, e)| Verdict::new(now, &e.id, Judgement::Used, None))
                .into_iter()
                .collect()
        } else {
            Vec::new()
        };
        let (next, _) = aggregate(&state, &results, &verdicts, now, &settings);
        let threads: Vec<Value> = ThreadName::ALL
            .iter()
            .zip(&results)
            .map(|(t, r)| {
                json!({"thread": t, "status": "answered", "provider": "groq",
                       "tokens_in": 900, "tokens_out": 60, "cost": 0.0002,
                       "answer": r.answer()})
            })
            .collect();
        let mut line = json!({
            "time": timestamp::format(now), "rules": thinker::aggregate::RULES, "duration_ms": 900, "run": n,
            "tick_count": next.tick_count, "exit_code": 0, "threads": threads,
            "aggregate": {"applied": true}, "tokens_in": 3600, "tokens_out": 240,
            "cost": 0.0008, "verdicts": verdicts, "state": next.digest(),
        });
        if n == 1 {
            line["base"] = serde_json::to_value(&state).unwrap_or_default();
        }
        let _ = writeln!(text, "{line}");
        state = next;
    }
    let bytes = text.len();
    std::fs::write(dir.join("journal.jsonl"), text).unwrap_or_default();
    bytes
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let ticks = args
        .iter()
        .position(|a| a == "--ticks")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000u64);
    let Ok(dir) = tempfile::tempdir() else {
        eprintln!("cannot make a temp dir");
        return;
    };
    let bytes = journal(dir.path(), ticks);
    println!(
        "journal: {ticks} ticks, {:.1} MiB ({} bytes a tick)",
        bytes as f64 / f64::from(1 << 20),
        bytes / ticks as usize
    );
    let json_out = args
        .iter()
        .position(|a| a == "--json")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let mut rows: Vec<Value> = Vec::new();
    let settings = Settings::default();
    let other = Settings {
        match_threshold: 0.5,
        ..Settings::default()
    };
    for (what, keep, overridden) in [
        ("read + replay, checked", Keep::Nothing, None),
        ("read + replay, checked, with frames", Keep::Frames, None),
        (
            "read + replay + --set beside it",
            Keep::Frames,
            Some(&other),
        ),
    ] {
        let mut best = f64::MAX;
        for _ in 0..3 {
            let started = Instant::now();
            let Ok(journal) = thinker::journal::read::strict(dir.path()) else {
                eprintln!("cannot read the journal");
                return;
            };
            let r = replay::replay(&journal, None, &settings, overridden, keep);
            let secs = started.elapsed().as_secs_f64();
            assert!(r.check.faithful(), "{:?}", r.check.first_mismatch);
            assert_eq!(r.current.ticks as u64, ticks);
            best = best.min(secs);
        }
        println!(
            "{what:<40} {:>8.1} ms  {:>9.0} ticks/s",
            best * 1000.0,
            ticks as f64 / best
        );
        rows.push(json!({"what": what, "ms": best * 1000.0, "ticks_per_s": ticks as f64 / best}));
    }
    // The engine alone, the journal already read.
    let Ok(journal) = thinker::journal::read::strict(dir.path()) else {
        return;
    };
    let started = Instant::now();
    let run = replay::run(
        &journal.ticks,
        0,
        None,
        &settings,
        Follow::Own,
        Keep::Nothing,
    );
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{:<40} {:>8.1} ms  {:>9.0} ticks/s",
        "aggregator alone (no check, no read)",
        secs * 1000.0,
        run.ticks as f64 / secs
    );
    rows.push(
        json!({"what": "aggregator alone (no check, no read)", "ms": secs * 1000.0,
                     "ticks_per_s": run.ticks as f64 / secs}),
    );
    if let Some(path) = json_out {
        let doc = json!({"ticks": ticks, "journal_bytes": bytes, "rows": rows});
        if let Err(e) = std::fs::write(&path, doc.to_string()) {
            eprintln!("cannot write {path}: {e}");
        }
    }
}
