//! The screen's quality on the public corpus (`tests/fixtures/screen/public/`, built by
//! `scripts/bench/screen-corpus.py`): per split (`dev`, tuned against; `blind`, never tuned
//! against) and per label, how many hostile texts are detected and how many benign ones
//! flagged. Prints a table and, with `--json FILE`, writes the numbers for
//! `scripts/bench/bench-report.py`. With `--misses`, prints the dev split's misses and false
//! alarms (never the blind split's: reading them would be tuning on it).
//!
//! Run: `cargo bench --bench screen_corpus -- [--misses] [--json FILE]`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use thinker::untrusted::screen::{ScreenContext, screen};

const HOSTILE: &str = include_str!("../tests/fixtures/screen/public/hostile.jsonl");
const BENIGN: &str = include_str!("../tests/fixtures/screen/public/benign.jsonl");

/// Labels of benign texts written to look like hostile ones (the look-alikes).
const LOOK_ALIKES: [&str; 12] = [
    "payment_reminder",
    "it_notice",
    "call_me",
    "security_advisory",
    "doc_about_injection",
    "newsletter",
    "calendar_invite",
    "instructions",
    "bank_notice",
    "colleague",
    "other_language",
    "spikee_document",
];

struct Item {
    id: String,
    split: String,
    label: String,
    text: String,
}

fn load(jsonl: &str, label_key: &str) -> Vec<Item> {
    jsonl
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| Item {
            id: v["id"].as_str().unwrap_or_default().to_string(),
            split: v["split"].as_str().unwrap_or_default().to_string(),
            label: v[label_key].as_str().unwrap_or_default().to_string(),
            text: v["text"].as_str().unwrap_or_default().to_string(),
        })
        .collect()
}

type Counts = BTreeMap<(String, String), (usize, usize)>;

fn pct(hit: usize, n: usize) -> f64 {
    if n == 0 {
        0.0
    } else {
        hit as f64 * 100.0 / n as f64
    }
}

#[expect(
    clippy::too_many_lines,
    reason = "one report: screens the corpus, then prints and writes every rate"
)]
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let misses = args.iter().any(|a| a == "--misses");
    let json_out = args
        .iter()
        .position(|a| a == "--json")
        .and_then(|i| args.get(i + 1));
    let ctx = ScreenContext::default();
    let mut hostile: Counts = BTreeMap::new();
    let mut benign: Counts = BTreeMap::new();
    let mut report = String::new();
    for item in load(HOSTILE, "kind") {
        let found = screen(&item.text, &ctx).detected();
        let e = hostile
            .entry((item.split.clone(), item.label.clone()))
            .or_default();
        e.1 += 1;
        e.0 += usize::from(found);
        if !found && misses && item.split == "dev" {
            let _ = writeln!(report, "  missed {} {:?}", item.id, short(&item.text));
        }
    }
    for item in load(BENIGN, "shape") {
        let s = screen(&item.text, &ctx);
        let e = benign
            .entry((item.split.clone(), item.label.clone()))
            .or_default();
        e.1 += 1;
        e.0 += usize::from(s.detected());
        if s.detected() && misses && item.split == "dev" {
            let why: Vec<String> = s
                .detections
                .iter()
                .map(|d| {
                    format!(
                        "{} {:.2} ({}) {:?}",
                        d.kind.name(),
                        d.score,
                        d.rule,
                        d.evidence
                    )
                })
                .collect();
            let _ = writeln!(report, "  false alarm {}: {}", item.id, why.join("; "));
        }
    }
    let mut out = String::new();
    let mut numbers = serde_json::Map::new();
    for split in ["dev", "blind"] {
        let sum = |c: &Counts, f: &dyn Fn(&str) -> bool| {
            c.iter()
                .filter(|((s, l), _)| s == split && f(l))
                .fold((0, 0), |a, (_, v)| (a.0 + v.0, a.1 + v.1))
        };
        let h = sum(&hostile, &|_| true);
        let b = sum(&benign, &|_| true);
        let la = sum(&benign, &|l| LOOK_ALIKES.contains(&l));
        let _ = writeln!(
            out,
            "{split}: hostile detected {}/{} = {:.1} %; benign flagged {}/{} = {:.1} % (look-alikes {}/{} = {:.1} %)",
            h.0,
            h.1,
            pct(h.0, h.1),
            b.0,
            b.1,
            pct(b.0, b.1),
            la.0,
            la.1,
            pct(la.0, la.1)
        );
        numbers.insert(
            format!("{split}_hostile_detected_pct"),
            pct(h.0, h.1).into(),
        );
        numbers.insert(format!("{split}_hostile"), h.1.into());
        numbers.insert(format!("{split}_benign_flagged_pct"), pct(b.0, b.1).into());
        numbers.insert(format!("{split}_benign"), b.1.into());
        numbers.insert(
            format!("{split}_look_alikes_flagged_pct"),
            pct(la.0, la.1).into(),
        );
        numbers.insert(format!("{split}_look_alikes"), la.1.into());
        for (name, counts) in [("hostile", &hostile), ("benign", &benign)] {
            for ((s, label), (hit, n)) in counts {
                if s == split {
                    let verb = if name == "hostile" {
                        "detected"
                    } else {
                        "flagged"
                    };
                    let _ = writeln!(
                        out,
                        "  {name:<7} {label:<28} {verb} {hit:>3}/{n:<3} {:>5.1} %",
                        pct(*hit, *n)
                    );
                    numbers.insert(format!("{split}_{name}_{label}_pct"), pct(*hit, *n).into());
                }
            }
        }
    }
    print!("{out}{report}");
    if let Some(path) = json_out {
        let json = serde_json::Value::Object(numbers).to_string();
        if let Err(e) = std::fs::write(path, json) {
            eprintln!("screen_corpus: cannot write {path}: {e}");
            std::process::exit(2);
        }
    }
}

fn short(text: &str) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    one.chars().take(220).collect()
}
