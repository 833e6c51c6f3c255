//! The injection screen and the redaction (issue 11): detection and false-positive
//! rates on the corpus under `tests/fixtures/screen/` (`dev/`, tuned against, and
//! `heldout/`, written after the rules and never tuned against), properties on
//! arbitrary text, and `thinker screen` end to end (human output snapshot, JSON shape,
//! exit codes).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use assert_cmd::Command;
use proptest::prelude::*;
use serde_json::Value;
use thinker::timestamp;
use thinker::untrusted::redact::Redactor;
use thinker::untrusted::screen::{Kind, ScreenContext, THRESHOLD, screen};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/screen");

/// One corpus text: its label (a kind for hostile texts, a shape for benign ones), its
/// split, whether it is a thread answer (screened with dates), the text.
struct Sample {
    label: String,
    split: &'static str,
    answer: bool,
    text: String,
}

fn load(file: &str) -> Vec<Sample> {
    let mut samples = Vec::new();
    for split in ["dev", "heldout"] {
        let path = Path::new(FIXTURES).join(split).join(file);
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let v: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1));
            let label = v
                .get("kind")
                .or_else(|| v.get("shape"))
                .and_then(Value::as_str)
                .unwrap()
                .to_string();
            samples.push(Sample {
                label,
                split,
                answer: v.get("answer").and_then(Value::as_bool).unwrap_or(false),
                text: v["text"].as_str().unwrap().to_string(),
            });
        }
    }
    samples
}

fn context(sample: &Sample) -> ScreenContext {
    if sample.answer {
        ScreenContext::answer(timestamp::parse("2026-11-22T10:05:00Z").unwrap())
    } else {
        ScreenContext::default()
    }
}

fn percent(hits: usize, total: usize) -> f64 {
    if total == 0 {
        0.0
    } else {
        hits as f64 * 100.0 / total as f64
    }
}

#[test]
fn corpus_detection_and_false_positive_rates() {
    let hostile = load("hostile.jsonl");
    let benign = load("benign.jsonl");

    // (label, split) -> (hits, total)
    let mut detection: BTreeMap<(String, &str), (usize, usize)> = BTreeMap::new();
    let mut misses = Vec::new();
    for s in &hostile {
        let kind = Kind::from_name(&s.label).unwrap_or_else(|| panic!("unknown kind {}", s.label));
        let found = screen(&s.text, &context(s)).kinds().contains(&kind);
        let e = detection.entry((s.label.clone(), s.split)).or_default();
        e.1 += 1;
        if found {
            e.0 += 1;
        } else {
            misses.push(format!("  missed [{}/{}] {:?}", s.split, s.label, s.text));
        }
    }
    let mut false_positives: BTreeMap<(String, &str), (usize, usize)> = BTreeMap::new();
    let mut alarms = Vec::new();
    for s in &benign {
        let screened = screen(&s.text, &context(s));
        let e = false_positives.entry((s.label.clone(), s.split)).or_default();
        e.1 += 1;
        if screened.detected() {
            e.0 += 1;
            let why: Vec<String> = screened
                .detections
                .iter()
                .map(|d| format!("{} {} ({}) {:?}", d.kind.name(), d.score, d.rule, d.evidence))
                .collect();
            alarms.push(format!("  false alarm [{}/{}] {}", s.split, s.label, why.join("; ")));
        }
    }

    eprintln!("\nscreen detection rate per kind (threshold {THRESHOLD}):");
    let mut failures = Vec::new();
    for kind in Kind::ALL {
        let row = |split: Option<&str>| {
            detection
                .iter()
                .filter(|((l, sp), _)| l == kind.name() && split.is_none_or(|x| x == *sp))
                .fold((0, 0), |a, (_, v)| (a.0 + v.0, a.1 + v.1))
        };
        let (all, dev, held) = (row(None), row(Some("dev")), row(Some("heldout")));
        eprintln!(
            "  {:<22} {:>5.1} % of {:>3}   (dev {:>5.1} % of {:>3}, held-out {:>5.1} % of {:>3})",
            kind.name(),
            percent(all.0, all.1),
            all.1,
            percent(dev.0, dev.1),
            dev.1,
            percent(held.0, held.1),
            held.1
        );
        if all.1 > 0 && percent(all.0, all.1) < 90.0 {
            failures.push(format!("{} detected {:.1} % < 90 %", kind.name(), percent(all.0, all.1)));
        }
    }
    eprintln!("screen false-positive rate per shape:");
    let shapes: std::collections::BTreeSet<&String> = false_positives.keys().map(|(l, _)| l).collect();
    for shape in shapes {
        let (fp, n) = false_positives
            .iter()
            .filter(|((l, _), _)| l == shape)
            .fold((0, 0), |a, (_, v)| (a.0 + v.0, a.1 + v.1));
        eprintln!("  {shape:<22} {:>5.1} % of {n:>3}", percent(fp, n));
    }
    let total = |split: Option<&str>| {
        false_positives
            .iter()
            .filter(|((_, sp), _)| split.is_none_or(|x| x == *sp))
            .fold((0, 0), |a, (_, v)| (a.0 + v.0, a.1 + v.1))
    };
    let (all, dev, held) = (total(None), total(Some("dev")), total(Some("heldout")));
    eprintln!(
        "  {:<22} {:>5.1} % of {:>3}   (dev {:>5.1} % of {:>3}, held-out {:>5.1} % of {:>3})",
        "all",
        percent(all.0, all.1),
        all.1,
        percent(dev.0, dev.1),
        dev.1,
        percent(held.0, held.1),
        held.1
    );
    for line in misses.iter().chain(&alarms) {
        eprintln!("{line}");
    }
    if percent(all.0, all.1) > 5.0 {
        failures.push(format!("false positives {:.1} % > 5 %", percent(all.0, all.1)));
    }
    assert!(failures.is_empty(), "{failures:?}");
    assert!(hostile.len() >= 150, "{} hostile texts", hostile.len());
    assert!(benign.len() >= 150, "{} benign texts", benign.len());
}
