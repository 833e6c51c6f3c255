//! Aggregating a full state (every cap full, thread histories and escalation history
//! full) with four answers of 10 findings each. Target: under 100 µs per aggregation.
//!
//! The same with links: every entry at its 5 links and the Librarian and the
//! Dreamer proposing 3 each, which must cost within 10 % of the state without them.
//!
//! And a state of 30,000 entries (far over the caps: an older version's, a hand-edited
//! one, caps lowered in the config), which must be cut to the caps well inside a tick.

#![expect(
    clippy::cast_possible_wrap,
    reason = "small loop indices and counts become i64 minutes and offsets"
)]

use std::hint::black_box;

use chrono::{TimeDelta, Utc};
use criterion::{Criterion, criterion_group, criterion_main};
use thinker::aggregate::{Settings, ThreadOutcome, aggregate};
use thinker::answer::{Answer, Finding};
use thinker::state::{
    Category, Entry, EscalationRecord, Link, LinkKind, MAX_LINKS, State, Strength,
};
use thinker::thread::ThreadName;

const TOPICS: &[&str] = &[
    "invoice from acme overdue since tuesday",
    "backup job on nas failed again overnight",
    "dentist appointment thursday morning nine",
    "disk usage on laptop above ninety percent",
    "alice asked about quarterly budget review",
    "deploy pipeline flaky on integration tests",
    "rent transfer due first of december",
    "unread newsletter pile growing every week",
    "conference talk proposal deadline friday",
    "memory notes mention unfinished garden plan",
    "server certificate expires in twelve days",
    "team retro keeps raising the same issue",
    "flight to berlin needs seat selection",
    "library books due back next monday",
    "weekly report usually written sunday night",
    "tax documents missing the bank statement",
    "password manager flagged a reused password",
    "calendar shows two overlapping meetings wednesday",
];

fn full_state(now: chrono::DateTime<Utc>) -> State {
    let mut s = State::default();
    let mut n = 0;
    let caps = Settings::default().caps;
    for cat in Category::ALL {
        let cap = caps.of(cat);
        for i in 0..cap {
            let summary = TOPICS[n % TOPICS.len()].to_string();
            let mut e = Entry::new(
                format!(
                    "{}{}-{i}",
                    cat.id_prefix(),
                    summary.split(' ').next().unwrap_or("x")
                ),
                summary,
                Strength::from_hundredths((n % 9 + 1) as i64 * 100 - 37),
                (n % 10) as u8,
                now - TimeDelta::hours(n as i64 + 5),
            );
            e.last_seen = now - TimeDelta::minutes(n as i64 * 7);
            e.source = Some("watcher".into());
            e.from = vec!["watcher/inbox".into(), "oracle/calendar".into()];
            e.sightings = n as u32 % 7 + 1;
            s.entries_mut(cat).push(e);
            n += 1;
        }
    }
    for t in ThreadName::ALL {
        let ts = s.thread_state.get_mut(t);
        ts.last_findings = TOPICS[..3].iter().map(|x| (*x).to_string()).collect();
        ts.history = vec![ts.last_findings.clone(); 3];
        ts.focus_hint = "look at the calendar; check mail".into();
        ts.novelty_pressure = 2;
    }
    s.escalation_history = (0..10)
        .map(|i| {
            EscalationRecord::raised(
                now - TimeDelta::minutes(i * 30),
                "watcher",
                TOPICS[i as usize],
                "dismissed".into(),
            )
        })
        .collect();
    s
}

fn answers() -> [ThreadOutcome; 4] {
    ThreadName::ALL.map(|t| {
        let findings = (0..10)
            .map(|i| {
                // Half repeat what is known (reinforce), half are new.
                let base = TOPICS[(i * 3 + t.index()) % TOPICS.len()];
                let summary = if i % 2 == 0 {
                    base.to_string()
                } else {
                    format!("{base} new angle {i} {t}")
                };
                Finding {
                    summary,
                    importance: (i % 10) as u8,
                    kind: t.kinds()[i % t.kinds().len()],
                    due: None,
                    from: Some("inbox".into()),
                    refs: Vec::new(),
                }
            })
            .collect();
        ThreadOutcome::Answered(Answer {
            findings,
            reinforce: vec!["t-invoice-0".into()],
            suggest: format!("{t} suggests a look at the budget"),
            escalate: t == ThreadName::Watcher,
            escalate_reason: "disk usage on laptop above ninety percent".into(),
            seen: thinker::answer::Seen {
                sources: vec!["inbox".into(), "calendar".into()],
                screened: false,
            },
            ..Answer::default()
        })
    })
}

fn bench(c: &mut Criterion) {
    let now = thinker::timestamp::parse("2026-11-22T10:05:00Z").unwrap_or_else(Utc::now);
    let state = full_state(now);
    let results = answers();
    // The memory of a full state is ~1,100 tokens: a budget of 800 makes the budget
    // pruning run too.
    let settings = Settings {
        token_budget: 800,
        ..Settings::default()
    };
    c.bench_function("aggregate full state, 4x10 findings", |b| {
        b.iter(|| aggregate(black_box(&state), black_box(&results), &[], now, &settings));
    });
}

/// `full_state` with every entry linked to the next `MAX_LINKS` entries (both ends
/// recorded, so each holds at most its cap), and answers where the Librarian and the
/// Dreamer each propose 3 links.
fn linked(now: chrono::DateTime<Utc>) -> (State, [ThreadOutcome; 4]) {
    let mut state = full_state(now);
    let ids: Vec<String> = state.all_entries().map(|(_, e)| e.id.clone()).collect();
    let n = ids.len();
    for cat in Category::ALL {
        for e in state.entries_mut(cat) {
            let i = ids.iter().position(|id| *id == e.id).unwrap_or(0);
            e.links = (1..=MAX_LINKS)
                .map(|k| Link {
                    id: ids[(i + k * 3) % n].clone(),
                    kind: if k % 2 == 0 {
                        LinkKind::Contradicts
                    } else {
                        LinkKind::Connects
                    },
                })
                .collect();
        }
    }
    let mut results = answers();
    for t in [ThreadName::Librarian, ThreadName::Dreamer] {
        if let ThreadOutcome::Answered(a) = &mut results[t.index()] {
            a.links = (0..3)
                .map(|k| thinker::answer::LinkProposal {
                    a: ids[k * 2 + t.index()].clone(),
                    b: ids[(k * 7 + 11) % n].clone(),
                    kind: LinkKind::Contradicts,
                })
                .collect();
        }
    }
    (state, results)
}

fn bench_links(c: &mut Criterion) {
    let now = thinker::timestamp::parse("2026-11-22T10:05:00Z").unwrap_or_else(Utc::now);
    let (state, results) = linked(now);
    let settings = Settings {
        token_budget: 800,
        ..Settings::default()
    };
    c.bench_function("aggregate full state with links, 4x10 findings", |b| {
        b.iter(|| aggregate(black_box(&state), black_box(&results), &[], now, &settings));
    });
}

/// 30,000 entries spread over the four categories, varied strengths and times.
fn huge_state(now: chrono::DateTime<Utc>) -> State {
    let mut s = full_state(now);
    for n in 0..30_000usize {
        let cat = Category::ALL[n % 4];
        let summary = format!("{} item {n}", TOPICS[n % TOPICS.len()]);
        let mut e = Entry::new(
            format!("{}bulk-{n}", cat.id_prefix()),
            summary,
            Strength::whole((n % 10 + 1) as u8),
            (n % 11) as u8,
            now - TimeDelta::minutes((n % 997) as i64 + 60),
        );
        e.last_seen = now - TimeDelta::minutes((n % 89) as i64);
        s.entries_mut(cat).push(e);
    }
    s
}

fn bench_huge(c: &mut Criterion) {
    let now = thinker::timestamp::parse("2026-11-22T10:05:00Z").unwrap_or_else(Utc::now);
    let state = huge_state(now);
    let results = answers();
    let settings = Settings::default();
    let mut group = c.benchmark_group("huge");
    group.sample_size(10);
    group.bench_function("aggregate 30000-entry state, 4x10 findings", |b| {
        b.iter(|| aggregate(black_box(&state), black_box(&results), &[], now, &settings));
    });
    group.finish();
}

criterion_group!(benches, bench, bench_links, bench_huge);
criterion_main!(benches);
