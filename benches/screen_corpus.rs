//! The screen's quality on its two measured corpora: per split (`dev` or `tune`, tuned
//! against; `blind`, never tuned against), how many hostile texts are detected (any
//! detection) and how many benign ones flagged.
//!
//! - The public corpus (`tests/fixtures/screen/public/`, built by
//!   `scripts/bench/screen-corpus.py`): per label.
//! - The multilingual corpus (`tests/fixtures/screen/lang/`, built by
//!   `scripts/bench/screen-lang-corpus.py`): per language, per kind and per benign shape.
//!
//! Prints tables and, with `--json FILE`, writes the numbers for
//! `scripts/bench/bench-report.py`. With `--misses`, prints the tuned splits' misses and
//! false alarms (never the blind splits': reading them would be tuning on them); with
//! `--no-blind`, not even the blind splits' rates.
//!
//! Run: `cargo bench --bench screen_corpus -- [--misses] [--no-blind] [--json FILE]`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use thinker::untrusted::screen::{ScreenContext, screen};

const HOSTILE: &str = include_str!("../tests/fixtures/screen/public/hostile.jsonl");
const BENIGN: &str = include_str!("../tests/fixtures/screen/public/benign.jsonl");
const LANG_HOSTILE: &str = include_str!("../tests/fixtures/screen/lang/hostile.jsonl");
const LANG_BENIGN: &str = include_str!("../tests/fixtures/screen/lang/benign.jsonl");

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
    lang: String,
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
            lang: v["lang"].as_str().unwrap_or_default().to_string(),
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
    // While tuning: not even the blind splits' rates are printed.
    let no_blind = args.iter().any(|a| a == "--no-blind");
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
        if no_blind && split == "blind" {
            continue;
        }
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
    let (lang_out, lang_report, lang_numbers) = multilingual(&ctx, misses, no_blind);
    numbers.insert("lang".to_string(), lang_numbers);
    print!("{out}{lang_out}{report}{lang_report}");
    if let Some(path) = json_out {
        let json = serde_json::Value::Object(numbers).to_string();
        if let Err(e) = std::fs::write(path, json) {
            eprintln!("screen_corpus: cannot write {path}: {e}");
            std::process::exit(2);
        }
    }
}

/// Hits and totals: hostile (detected) and benign (flagged).
#[derive(Default, Clone, Copy)]
struct Rate {
    detected: usize,
    hostile: usize,
    flagged: usize,
    benign: usize,
}

impl Rate {
    fn json(self) -> serde_json::Value {
        serde_json::json!({
            "hostile": self.hostile,
            "detected": self.detected,
            "benign": self.benign,
            "flagged": self.flagged,
        })
    }
}

/// The multilingual corpus: per split, overall, per language, per kind and per shape.
/// Returns the table, the tune split's misses and false alarms (with `misses`), and the
/// numbers as JSON (`{split: {all, lang: {..}, kind: {..}, shape: {..}}}`).
fn multilingual(
    ctx: &ScreenContext,
    misses: bool,
    no_blind: bool,
) -> (String, String, serde_json::Value) {
    // split -> (what, name) -> rate, where what is "all", "lang", "kind" or "shape".
    let mut rates: BTreeMap<String, BTreeMap<(&str, String), Rate>> = BTreeMap::new();
    let mut report = String::new();
    for item in load(LANG_HOSTILE, "kind") {
        let found = screen(&item.text, ctx).detected();
        let split = rates.entry(item.split.clone()).or_default();
        for key in [
            ("all", String::new()),
            ("lang", item.lang.clone()),
            ("kind", item.label.clone()),
        ] {
            let r = split.entry(key).or_default();
            r.hostile += 1;
            r.detected += usize::from(found);
        }
        if !found && misses && item.split == "tune" {
            let _ = writeln!(report, "  missed {} {:?}", item.id, short(&item.text));
        }
    }
    for item in load(LANG_BENIGN, "shape") {
        let s = screen(&item.text, ctx);
        let split = rates.entry(item.split.clone()).or_default();
        for key in [
            ("all", String::new()),
            ("lang", item.lang.clone()),
            ("shape", item.label.clone()),
        ] {
            let r = split.entry(key).or_default();
            r.benign += 1;
            r.flagged += usize::from(s.detected());
        }
        if s.detected() && misses && item.split == "tune" {
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
    let mut json = serde_json::Map::new();
    for split in ["tune", "blind"] {
        let Some(by) = rates.get(split).filter(|_| !(no_blind && split == "blind")) else {
            continue;
        };
        let all = by.get(&("all", String::new())).copied().unwrap_or_default();
        let _ = writeln!(
            out,
            "multilingual {split}: hostile detected {}/{} = {:.1} %; benign flagged {}/{} = {:.1} %",
            all.detected,
            all.hostile,
            pct(all.detected, all.hostile),
            all.flagged,
            all.benign,
            pct(all.flagged, all.benign)
        );
        let mut sections = serde_json::Map::new();
        sections.insert("all".to_string(), all.json());
        for what in ["lang", "kind", "shape"] {
            let mut section = serde_json::Map::new();
            for ((w, name), r) in by {
                if *w != what {
                    continue;
                }
                let _ = writeln!(
                    out,
                    "  {what:<5} {name:<14} detected {:>3}/{:<3} {:>5.1} %   flagged {:>2}/{:<3} {:>5.1} %",
                    r.detected,
                    r.hostile,
                    pct(r.detected, r.hostile),
                    r.flagged,
                    r.benign,
                    pct(r.flagged, r.benign)
                );
                section.insert(name.clone(), r.json());
            }
            sections.insert(what.to_string(), section.into());
        }
        json.insert(split.to_string(), sections.into());
    }
    (out, report, json.into())
}

fn short(text: &str) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    one.chars().take(220).collect()
}
