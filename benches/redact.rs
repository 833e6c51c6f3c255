//! The redaction benchmark: the corpus `tests/fixtures/redact/{dev,heldout}.txt`
//! (mail, calendar entries and notes with personal data in the spellings people use,
//! marked `{{class|value}}`) through the redactor's first pass
//! (`thinker::untrusted::redact::spans`), per split:
//!
//! - the share of personal-data items replaced, per class (an item counts as replaced
//!   when the replacements cover every character of it);
//! - false replacements: replaced spans that touch no marked item (ordinary text), and
//!   how many documents without personal data were touched at all;
//! - `person` items (names no header gives) apart: the redactor does not claim them;
//!   `org` items (organisations a header names) are replaced by design and count as
//!   neither;
//! - the redactor's throughput over the whole corpus (`Redactor::redact`, best of 5),
//!   and again with the names the corpus's headers give learned (as a tick's redactor
//!   keeps them: every capitalized word is looked up among them).
//!
//! The dev split is what the redactor was tuned on; the held-out split was written after
//! the tuning and is only measured. `cargo bench --bench redact` prints a table; `--
//! --json PATH` also writes it as JSON (for `scripts/bench/bench.sh`); `-- --misses` lists what
//! was missed and falsely replaced. Not a criterion bench: one pass is the measurement.

use std::collections::BTreeMap;
use std::error::Error;
use std::fmt::Write as _;
use std::hint::black_box;
use std::ops::Range;
use std::time::Instant;

use thinker::untrusted::names::KnownNames;
use thinker::untrusted::redact::{Class, RedactionKey, Redactor, spans};

const SPLITS: [&str; 2] = ["dev", "heldout"];

/// One document of the corpus: its text (markup removed) and its marked items.
struct Doc {
    kind: String,
    title: String,
    text: String,
    items: Vec<(String, Range<usize>)>,
}

/// Reads a split: `=== kind: title` starts a document; `{{class|value}}` marks an item.
fn parse(source: &str) -> Result<Vec<Doc>, String> {
    let mut docs: Vec<Doc> = Vec::new();
    for (n, line) in source.lines().enumerate() {
        if let Some(head) = line.strip_prefix("=== ") {
            let (kind, title) = head.split_once(':').unwrap_or((head, ""));
            docs.push(Doc {
                kind: kind.trim().into(),
                title: title.trim().into(),
                text: String::new(),
                items: Vec::new(),
            });
            continue;
        }
        let Some(doc) = docs.last_mut() else {
            continue; // comments before the first document
        };
        let mut rest = line;
        while let Some(open) = rest.find("{{") {
            doc.text.push_str(&rest[..open]);
            let after = &rest[open + 2..];
            let close = after
                .find("}}")
                .ok_or_else(|| format!("line {}: `{{{{` without `}}}}`", n + 1))?;
            let (class, value) = after[..close]
                .split_once('|')
                .ok_or_else(|| format!("line {}: an item needs `class|value`", n + 1))?;
            let start = doc.text.len();
            doc.text.push_str(value);
            doc.items.push((class.into(), start..doc.text.len()));
            rest = &after[close + 2..];
        }
        doc.text.push_str(rest);
        doc.text.push('\n');
    }
    Ok(docs)
}

#[derive(Default)]
struct Tally {
    items: u64,
    replaced: u64,
}

#[derive(Default)]
struct SplitResult {
    docs: usize,
    words: usize,
    classes: BTreeMap<String, Tally>,
    false_spans: Vec<String>,
    misses: Vec<String>,
    benign_docs: usize,
    benign_touched: usize,
}

fn covered(range: &Range<usize>, found: &[(Range<usize>, Class)]) -> bool {
    range
        .clone()
        .all(|i| found.iter().any(|(f, _)| f.contains(&i)))
}

fn measure(docs: &[Doc]) -> SplitResult {
    let mut r = SplitResult {
        docs: docs.len(),
        ..SplitResult::default()
    };
    for doc in docs {
        r.words += doc.text.split_whitespace().count();
        let found = spans(&doc.text);
        for (class, range) in &doc.items {
            let t = r.classes.entry(class.clone()).or_default();
            t.items += 1;
            if covered(range, &found) {
                t.replaced += 1;
            } else if class != "org" && class != "person" {
                r.misses.push(format!(
                    "{} ({}): {class} {:?}",
                    doc.title,
                    doc.kind,
                    &doc.text[range.clone()]
                ));
            }
        }
        let mut touched = false;
        for (span, class) in &found {
            let on_item = doc
                .items
                .iter()
                .any(|(_, i)| i.start < span.end && span.start < i.end);
            if !on_item {
                touched = true;
                r.false_spans.push(format!(
                    "{} ({}): {class} {:?}",
                    doc.title,
                    doc.kind,
                    &doc.text[span.clone()]
                ));
            }
        }
        if doc.items.is_empty() {
            r.benign_docs += 1;
            r.benign_touched += usize::from(touched || !found.is_empty());
        }
    }
    r
}

#[expect(
    clippy::too_many_lines,
    reason = "the benchmark reads its corpus, runs and prints in one pass"
)]
fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let json_path = args
        .iter()
        .position(|a| a == "--json")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let misses = args.iter().any(|a| a == "--misses");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/redact");
    let mut out = String::new();
    let mut json_splits = Vec::new();
    let mut all_text = String::new();
    for split in SPLITS {
        let source = std::fs::read_to_string(format!("{dir}/{split}.txt"))?;
        let docs = parse(&source)?;
        for d in &docs {
            all_text.push_str(&d.text);
        }
        let r = measure(&docs);
        let personal: Vec<(&String, &Tally)> = r
            .classes
            .iter()
            .filter(|(c, _)| !matches!(c.as_str(), "person" | "org"))
            .collect();
        let items: u64 = personal.iter().map(|(_, t)| t.items).sum();
        let replaced: u64 = personal.iter().map(|(_, t)| t.replaced).sum();
        let share = |t: u64, n: u64| if n == 0 { 0.0 } else { t as f64 / n as f64 };
        let _ = writeln!(
            out,
            "{split}: {} documents, {} words; personal data replaced {replaced}/{items} ({:.1} %); false replacements {} ({:.2} per 1000 words); documents without personal data touched {}/{}",
            r.docs,
            r.words,
            100.0 * share(replaced, items),
            r.false_spans.len(),
            1000.0 * r.false_spans.len() as f64 / r.words.max(1) as f64,
            r.benign_touched,
            r.benign_docs
        );
        for (class, t) in &r.classes {
            let _ = writeln!(
                out,
                "  {class:<7} {:>4}/{:<4} {:>5.1} %",
                t.replaced,
                t.items,
                100.0 * share(t.replaced, t.items)
            );
        }
        if misses {
            for m in &r.misses {
                let _ = writeln!(out, "  missed: {m}");
            }
            for f in &r.false_spans {
                let _ = writeln!(out, "  false:  {f}");
            }
        }
        json_splits.push(serde_json::json!({
            "split": split,
            "documents": r.docs,
            "words": r.words,
            "items": items,
            "replaced": replaced,
            "classes": r.classes.iter().map(|(c, t)| serde_json::json!({
                "class": c, "items": t.items, "replaced": t.replaced,
            })).collect::<Vec<_>>(),
            "false_replacements": r.false_spans.len(),
            "false_examples": r.false_spans.iter().take(10).collect::<Vec<_>>(),
            "misses": r.misses,
            "benign_documents": r.benign_docs,
            "benign_touched": r.benign_touched,
        }));
    }
    let redactor = Redactor::new(&RedactionKey::from_bytes([9; 32]));
    // The first call builds the patterns (once per process: a tick pays it once).
    let t = Instant::now();
    black_box(redactor.redact(black_box(
        "From: A B <a@b.de>, +49 30 1234567, password: x1y2z3",
    )));
    let cold = t.elapsed().as_secs_f64();
    let mut best = f64::MAX;
    let loops: usize = std::env::var("REDACT_LOOPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    for _ in 0..loops {
        let t = Instant::now();
        black_box(redactor.redact(black_box(&all_text)));
        best = best.min(t.elapsed().as_secs_f64());
    }
    let mb_s = all_text.len() as f64 / best / 1e6;
    let _ = writeln!(
        out,
        "throughput: {} bytes in {:.2} ms ({mb_s:.1} MB/s, best of 5); the first call, which builds the patterns: {:.2} ms",
        all_text.len(),
        best * 1000.0,
        cold * 1000.0
    );
    // As a tick's redactor: the names the corpus's headers give learned and kept, so
    // every capitalized word is also looked up among them.
    let learned =
        Redactor::new(&RedactionKey::from_bytes([9; 32])).with_names(KnownNames::default());
    learned.learn(&all_text);
    let known = learned.names_to_keep([""]).map_or(0, |n| n.len());
    let mut names_best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        black_box(learned.redact(black_box(&all_text)));
        names_best = names_best.min(t.elapsed().as_secs_f64());
    }
    let _ = writeln!(
        out,
        "with {known} learned names: {:.2} ms ({:.1} MB/s, best of 5)",
        names_best * 1000.0,
        all_text.len() as f64 / names_best / 1e6
    );
    print!("{out}");
    if let Some(path) = json_path {
        let json = serde_json::json!({
            "splits": json_splits,
            "bytes": all_text.len(),
            "best_ms": best * 1000.0,
            "first_call_ms": cold * 1000.0,
            "mb_per_s": mb_s,
            "learned_names": known,
            "names_best_ms": names_best * 1000.0,
        });
        std::fs::write(path, serde_json::to_string_pretty(&json)?)?;
    }
    Ok(())
}
