//! Whether two summaries are one fact, measured on the paraphrase corpus
//! (`tests/fixtures/identity/`): per split (`tune`, tuned against; `blind`, written before
//! any tuning and never tuned against), the precision and recall of "same fact", for
//! today's identity (`aggregate::identity`) and, beside it, the raw-token Jaccard of rules
//! version 2 at its 0.6. With `--misses`, prints the tune split's errors (never the blind
//! split's: reading them would be tuning on it).
//!
//! Run: `cargo bench --bench identity -- [--misses] [--json FILE]` (the JSON is what
//! `scripts/bench/bench-report.py` renders).

use chrono::NaiveDate;
use thinker::aggregate::identity::{Key, Thresholds, compare};
use thinker::matching::matches;
use thinker::recall::synonyms::Synonyms;

const TUNE: &str = include_str!("../tests/fixtures/identity/tune.tsv");
const BLIND: &str = include_str!("../tests/fixtures/identity/blind.tsv");

struct Pair<'a> {
    same: bool,
    a: &'a str,
    b: &'a str,
}

fn pairs(text: &str) -> Vec<Pair<'_>> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut cols = l.split('\t');
            let (label, a, b) = (cols.next()?, cols.next()?, cols.next()?);
            Some(Pair {
                same: label == "same",
                a,
                b,
            })
        })
        .collect()
}

#[derive(Default)]
struct Counts {
    tp: usize,
    fp: usize,
    fn_: usize,
    tn: usize,
}

impl Counts {
    fn add(&mut self, truth: bool, said: bool) {
        match (truth, said) {
            (true, true) => self.tp += 1,
            (false, true) => self.fp += 1,
            (true, false) => self.fn_ += 1,
            (false, false) => self.tn += 1,
        }
    }
    fn json(&self, split: &str, matcher: &str) -> String {
        let p = self.tp as f64 / (self.tp + self.fp).max(1) as f64;
        let r = self.tp as f64 / (self.tp + self.fn_).max(1) as f64;
        format!(
            "{{\"split\": \"{split}\", \"matcher\": \"{matcher}\", \"precision\": {p:.4}, \"recall\": {r:.4}, \"tp\": {}, \"same\": {}, \"fp\": {}, \"different\": {}}}",
            self.tp,
            self.tp + self.fn_,
            self.fp,
            self.fp + self.tn
        )
    }

    fn row(&self, name: &str) -> String {
        let p = self.tp as f64 / (self.tp + self.fp).max(1) as f64;
        let r = self.tp as f64 / (self.tp + self.fn_).max(1) as f64;
        format!(
            "| {name} | {:.3} | {:.3} | {} of {} | {} of {} |",
            p,
            r,
            self.tp,
            self.tp + self.fn_,
            self.fp,
            self.fp + self.tn
        )
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let misses = args.iter().any(|a| a == "--misses");
    let json = args
        .iter()
        .position(|a| a == "--json")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let mut rows: Vec<String> = Vec::new();
    let anchor = NaiveDate::from_ymd_opt(2026, 11, 23).unwrap_or_default();
    let synonyms = Synonyms::builtin();
    let thresholds = Thresholds::default();
    println!("| split / matcher | precision | recall | same found | different merged |");
    println!("|---|---|---|---|---|");
    for (split, text) in [("tune", TUNE), ("blind", BLIND)] {
        let (mut new, mut old) = (Counts::default(), Counts::default());
        for pair in pairs(text) {
            let score = compare(
                &Key::new(pair.a, anchor, []),
                &Key::new(pair.b, anchor, []),
                synonyms,
            );
            let said = score.same(thresholds);
            new.add(pair.same, said);
            old.add(pair.same, matches(pair.a, pair.b, 0.6));
            if misses && split == "tune" && said != pair.same {
                eprintln!(
                    "{} {:.3}{} | {} | {}",
                    if pair.same { "MISSED" } else { "MERGED" },
                    score.similarity,
                    if score.veto { " veto" } else { "" },
                    pair.a,
                    pair.b
                );
            }
        }
        println!("{}", new.row(&format!("{split}: identity (rules 4)")));
        if misses && split == "tune" {
            sweep(text, anchor, synonyms);
        }
        println!(
            "{}",
            old.row(&format!("{split}: token Jaccard 0.6 (rules 2)"))
        );
        rows.push(new.json(split, "identity (rules 4)"));
        rows.push(old.json(split, "token Jaccard 0.6 (rules 2)"));
    }
    if let Some(path) = json {
        let text = format!("{{\"rows\": [{}]}}\n", rows.join(", "));
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("identity: cannot write {path}: {e}");
            std::process::exit(1);
        }
    }
}

/// The tune split's precision and recall at other thresholds and mixes (tuning aid).
fn sweep(text: &str, anchor: NaiveDate, synonyms: &Synonyms) {
    let scored: Vec<(bool, thinker::aggregate::identity::Score)> = pairs(text)
        .iter()
        .map(|p| {
            (
                p.same,
                compare(
                    &Key::new(p.a, anchor, []),
                    &Key::new(p.b, anchor, []),
                    synonyms,
                ),
            )
        })
        .collect();
    for lambda in [0.0, 1.0, 2.0, 3.0] {
        for mix in [0.0, 0.5] {
            for t in [0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7] {
                let mut c = Counts::default();
                for (truth, s) in &scored {
                    let j = s.shared / (s.union + lambda * s.swapped);
                    let sim = (1.0 - mix) * j + mix * s.overlap;
                    c.add(*truth, !s.veto && sim >= t);
                }
                eprintln!(
                    "{}",
                    c.row(&format!(
                        "swap penalty {lambda}, overlap {mix}, threshold {t}"
                    ))
                );
            }
        }
    }
}
