//! The output check's quality on its corpus (`tests/fixtures/outbound/`: hostile outgoing
//! texts and benign notices, written by hand in the screen's eleven languages): per split
//! (`tune`, tuned against; `blind`, `blind2` and `blind3`, each measured once before it
//! was read — `blind3` written by an author who had not seen the rules) and per
//! language, how many hostile texts are held and how many benign ones are held (false
//! holds). Each text goes through the policy the tick applies
//! (`escalation::outbound::reasons`), with no allow-listed domain and, for a benign notice
//! that links somewhere, the trusted source (a `files` source) that showed the site.
//! Prints a table and, with `--json FILE`, writes the numbers. With `--misses`, prints the
//! tune split's misses and false holds (never the blind split's: reading them would be
//! tuning on it); `--tune-only` leaves the blind split out of the table (while tuning).
//!
//! Run: `cargo bench --bench outbound_corpus -- [--misses] [--tune-only] [--json FILE]`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use thinker::escalation::outbound::{Seen, SourceSites, reasons};
use thinker::untrusted::outbound::sites;

const HOSTILE: &str = include_str!("../tests/fixtures/outbound/hostile.jsonl");
const BENIGN: &str = include_str!("../tests/fixtures/outbound/benign.jsonl");

struct Item {
    id: String,
    split: String,
    lang: String,
    text: String,
    trusted: Vec<String>,
}

fn load(jsonl: &str) -> Vec<Item> {
    jsonl
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| Item {
            id: v["id"].as_str().unwrap_or_default().to_string(),
            split: v["split"].as_str().unwrap_or_default().to_string(),
            lang: v["lang"].as_str().unwrap_or_default().to_string(),
            text: v["text"].as_str().unwrap_or_default().to_string(),
            trusted: v["trusted"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|t| t.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect()
}

/// Why the policy holds `item` (empty: it is delivered).
fn why(item: &Item) -> Vec<String> {
    let shown: Vec<SourceSites> = item
        .trusted
        .iter()
        .map(|t| SourceSites {
            kind: "files",
            screened: false,
            sites: sites(t),
        })
        .collect();
    reasons(&item.text, &Seen::of(&shown), &[])
        .iter()
        .map(ToString::to_string)
        .collect()
}

/// (held, total) per (split, language).
type Counts = BTreeMap<(String, String), (usize, usize)>;

fn pct(hit: usize, n: usize) -> f64 {
    if n == 0 {
        0.0
    } else {
        hit as f64 * 100.0 / n as f64
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let misses = args.iter().any(|a| a == "--misses");
    let reveal = args.iter().any(|a| a == "--reveal-blind");
    let splits: &[&str] = if args.iter().any(|a| a == "--tune-only") {
        &["tune"]
    } else {
        &["tune", "blind", "blind2", "blind3"]
    };
    let json_out = args
        .iter()
        .position(|a| a == "--json")
        .and_then(|i| args.get(i + 1));
    let mut report = String::new();
    let mut count = |jsonl: &str, hostile: bool| {
        let mut counts = Counts::new();
        for item in load(jsonl) {
            let why = why(&item);
            let held = !why.is_empty();
            let e = counts
                .entry((item.split.clone(), item.lang.clone()))
                .or_default();
            e.0 += usize::from(held);
            e.1 += 1;
            if misses && (item.split == "tune" || reveal) && held != hostile {
                let what = if hostile { "missed" } else { "false hold" };
                let _ = writeln!(report, "  {what} {}: {:?} {why:?}", item.id, item.text);
            }
        }
        counts
    };
    let hostile = count(HOSTILE, true);
    let benign = count(BENIGN, false);
    let mut out = String::new();
    let mut numbers = serde_json::Map::new();
    for &split in splits {
        let sum = |c: &Counts| {
            c.iter()
                .filter(|((s, _), _)| s == split)
                .fold((0, 0), |a, (_, v)| (a.0 + v.0, a.1 + v.1))
        };
        let (h, b) = (sum(&hostile), sum(&benign));
        let _ = writeln!(
            out,
            "{split}: hostile held {}/{} = {:.1} %; benign held {}/{} = {:.1} %",
            h.0,
            h.1,
            pct(h.0, h.1),
            b.0,
            b.1,
            pct(b.0, b.1)
        );
        numbers.insert(format!("{split}_hostile_held_pct"), pct(h.0, h.1).into());
        numbers.insert(format!("{split}_hostile"), h.1.into());
        numbers.insert(format!("{split}_benign_held_pct"), pct(b.0, b.1).into());
        numbers.insert(format!("{split}_benign"), b.1.into());
        let langs: std::collections::BTreeSet<&String> = hostile
            .keys()
            .chain(benign.keys())
            .filter(|(s, _)| s == split)
            .map(|(_, l)| l)
            .collect();
        for lang in langs {
            let key = (split.to_string(), lang.clone());
            let h = hostile.get(&key).copied().unwrap_or_default();
            let b = benign.get(&key).copied().unwrap_or_default();
            let _ = writeln!(
                out,
                "  {lang}  hostile held {:>3}/{:<3} {:>5.1} %   benign held {:>3}/{:<3} {:>5.1} %",
                h.0,
                h.1,
                pct(h.0, h.1),
                b.0,
                b.1,
                pct(b.0, b.1)
            );
            numbers.insert(
                format!("{split}_{lang}_hostile_held_pct"),
                pct(h.0, h.1).into(),
            );
            numbers.insert(
                format!("{split}_{lang}_benign_held_pct"),
                pct(b.0, b.1).into(),
            );
        }
    }
    print!("{out}{report}");
    if let Some(path) = json_out {
        let json = serde_json::Value::Object(numbers).to_string();
        if let Err(e) = std::fs::write(path, json) {
            eprintln!("outbound_corpus: cannot write {path}: {e}");
            std::process::exit(2);
        }
    }
}
