//! Throughput of the injection screen on mail-sized texts: every text of the screen
//! corpus (`tests/fixtures/screen/`, hostile and benign) padded to a few kilobytes with
//! ordinary mail prose, screened one mail at a time; and one long (64 KiB) benign mail.
//! The redactor on the same mails. Criterion reports bytes per second.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use thinker::untrusted::redact::{RedactionKey, Redactor};
use thinker::untrusted::screen::{ScreenContext, screen};

const CORPUS: [&str; 4] = [
    include_str!("../tests/fixtures/screen/dev/hostile.jsonl"),
    include_str!("../tests/fixtures/screen/dev/benign.jsonl"),
    include_str!("../tests/fixtures/screen/heldout/hostile.jsonl"),
    include_str!("../tests/fixtures/screen/heldout/benign.jsonl"),
];

const PROSE: &str = "Hi all,\n\nfollowing up on Tuesday's call: the vendor confirmed the delivery \
for the second week of December, and the budget review moves to Thursday. Please send your \
comments on the draft by Friday noon; Maria will merge them into the final version. The \
office is closed on the 24th. Thanks again for the quick turnaround on the numbers.\n\n";

/// Every corpus text inside ~3 KB of ordinary prose: a mail-sized text each.
fn mails() -> Vec<String> {
    CORPUS
        .iter()
        .flat_map(|file| file.lines())
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|v| v["text"].as_str().map(str::to_string))
        .map(|text| format!("{}{text}\n\n{}", PROSE.repeat(4), PROSE.repeat(4)))
        .collect()
}

fn bench(c: &mut Criterion) {
    let mails = mails();
    let bytes: usize = mails.iter().map(String::len).sum();
    let ctx = ScreenContext::default();
    let mut group = c.benchmark_group("screen");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function(
        format!("{} mails, {} KiB", mails.len(), bytes / 1024),
        |b| {
            b.iter(|| {
                for mail in &mails {
                    black_box(screen(black_box(mail), &ctx));
                }
            });
        },
    );
    let long = PROSE.repeat(65_536 / PROSE.len() + 1);
    group.throughput(Throughput::Bytes(long.len() as u64));
    group.bench_function("one 64 KiB mail", |b| {
        b.iter(|| black_box(screen(black_box(&long), &ctx)));
    });
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("redact the mails", |b| {
        b.iter(|| {
            let r = Redactor::new(&RedactionKey::from_bytes([1; 32]));
            for mail in &mails {
                black_box(r.redact(black_box(mail)));
            }
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
