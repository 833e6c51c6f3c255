//! `thinker report --html`'s page (`thinker::report`): its snapshot on a small model, the
//! rules it keeps whatever the model (self-contained, escaped, local days in the zone
//! passed in, small at 10,000 ticks, downsampling that keeps the shape), and the page as
//! a real browser draws it (headless Chromium: `THINKER_CHROMIUM` or `/usr/bin/chromium`;
//! `#[ignore]`d, run with `--ignored`).
//!
//! `THINKER_REPORT_SCREENSHOT=docs/report.png cargo test --test integration
//! report_html::in_chromium -- --ignored` also writes the screenshot the README shows.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use chrono::{DateTime, FixedOffset, TimeDelta, Utc};
use proptest::prelude::*;
use thinker::clock::Zone;
use thinker::report::{
    self, Departure, EntrySeries, EscalationMark, LinkRow, Model, TickStats, Usage, Window,
};
use thinker::state::{Category, EscalationOutcome, Strength};
use thinker::thread::ThreadName;

use crate::support::t;

const HOSTILE: &str = "</title><script>alert(1)</script><img src=x onerror=alert(2)>";

/// Lines that a page must never contain: anything that loads or runs.
const FORBIDDEN: [&str; 6] = ["http://", "https://", "<script", "@import", "url(", "<img"];

fn zone(hours_east: i32) -> Zone {
    Zone::Fixed(FixedOffset::east_opt(hours_east * 3600).unwrap())
}

fn usage(tokens_in: u64, tokens_out: u64, cost: f64) -> Usage {
    Usage {
        tokens_in,
        tokens_out,
        cost,
    }
}

/// A tiny deterministic generator (no randomness in tests).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

const SUMMARIES: [(&str, Category); 14] = [
    (
        "Dentist appointment Thursday 14:00: reschedule or keep?",
        Category::ActiveThreads,
    ),
    (
        "Quarterly report draft due Friday, section 3 still empty",
        Category::ActiveThreads,
    ),
    (
        "Disk on /var above 90 % most evenings after the backup",
        Category::Patterns,
    ),
    (
        "User reviews pull requests late in the evening",
        Category::Patterns,
    ),
    (
        "Build times doubled since the dependency upgrade",
        Category::Hunches,
    ),
    (
        "Mail from the landlord about the heating, unanswered",
        Category::ActiveThreads,
    ),
    (
        "Tests flaky on Mondays: the cache is cold after the weekend",
        Category::Hunches,
    ),
    (
        "The deploy script is run by hand before every release",
        Category::Insights,
    ),
    (
        "Standup notes mention the migration three days in a row",
        Category::Patterns,
    ),
    (
        "Calendar: flight to Lisbon on the 28th, no hotel booked",
        Category::ActiveThreads,
    ),
    (
        "Memory pressure peaks when the browser has 60+ tabs",
        Category::Insights,
    ),
    (
        "A library the project uses was archived upstream",
        Category::Hunches,
    ),
    (HOSTILE, Category::Insights),
    (
        "Two invoices from the same vendor with different amounts",
        Category::Hunches,
    ),
];

/// The fixture's calls, failures and skips: two providers (one free), the dreamer
/// failing now and then, the oracle skipped three ticks in four.
fn calls(stats: &mut [TickStats]) {
    for (k, tick) in stats.iter_mut().enumerate() {
        let busy = k % 48 > 4 && k % 48 < 36;
        tick.usage.insert(
            "groq".into(),
            usage(if busy { 2400 } else { 1200 }, 180, 0.000_21),
        );
        if k % 3 == 0 {
            tick.usage.insert("ollama".into(), usage(900, 120, 0.0));
        }
        if k % 17 == 5 {
            tick.failed.push(ThreadName::Dreamer);
        }
        if k % 29 == 11 {
            tick.failed.push(ThreadName::Watcher);
        }
        if k % 4 != 0 {
            tick.skipped.push(ThreadName::Oracle);
        }
    }
}

/// The browser's fixture: four days of half-hourly ticks, fourteen entries that are
/// added, reinforced, decay and leave, escalations with every kind of outcome, two
/// providers, failures and skips.
fn fixture() -> Model {
    let start = t("2026-11-16T06:00:00Z");
    let ticks = 4 * 48;
    let at = |k: i64| start + TimeDelta::minutes(30 * k);
    let mut rng = Lcg(7);
    let mut stats: Vec<TickStats> = (0..ticks)
        .map(|k| TickStats {
            time: at(k),
            ..TickStats::default()
        })
        .collect();
    let mut entries = Vec::new();
    for (i, (summary, category)) in SUMMARIES.iter().enumerate() {
        let born = (i64::try_from(i).unwrap() * 13 + rng.next(10).cast_signed()) % (ticks - 20);
        let mut strength: i32 = 4 + rng.next(5) as i32;
        let mut points = Vec::new();
        let mut left = None;
        stats[born as usize].added += 1;
        for k in born..ticks {
            if k > born && (k - born) % 8 == 0 {
                strength -= 1;
            }
            if rng.next(22) == 0 {
                strength = (strength + 2).min(10);
            }
            if i == 3 && k == born + 60 {
                left = Some(Departure {
                    time: at(k),
                    reason: "pruned".into(),
                });
            }
            if i == 7 && k == born + 30 {
                left = Some(Departure {
                    time: at(k),
                    reason: "rejected".into(),
                });
            }
            if strength <= 0 {
                left = Some(Departure {
                    time: at(k),
                    reason: "decayed".into(),
                });
            }
            if let Some(d) = &left {
                *stats[k as usize]
                    .removed
                    .entry(d.reason.clone())
                    .or_default() += 1;
                break;
            }
            points.push((at(k), Strength::whole(strength as u8)));
        }
        entries.push(EntrySeries {
            id: format!("{}-{}", &category.key()[..1], i + 1),
            category: *category,
            summary: (*summary).to_string(),
            points,
            left,
        });
    }
    calls(&mut stats);
    let outcomes = [
        "notified: the dentist moved to 15:00",
        "suppressed: duplicate",
        "dismissed: not urgent",
        "remembered: noted in today's memory file",
        "held: quiet hours",
        "notified: flight without a hotel",
        "failed: the primary model timed out",
        "proposed: book the hotel near the venue",
        "pending",
    ];
    let escalations = outcomes
        .iter()
        .enumerate()
        .map(|(i, outcome)| EscalationMark {
            time: at(9 + i64::try_from(i).unwrap() * 20),
            thread: ThreadName::ALL[i % 4].to_string(),
            reason: format!("{} needs the user", SUMMARIES[i].0),
            outcome: EscalationOutcome::parse(outcome),
        })
        .collect();
    Model {
        title: "thinker: four days of the subconscious".into(),
        window: Window {
            from: at(0),
            to: at(ticks - 1),
        },
        settings: Vec::new(),
        ticks: stats,
        entries,
        escalations,
        links: Vec::new(),
        notes: Vec::new(),
    }
}

/// The snapshot's model: three ticks over two local days, two entries (one left),
/// one escalation, one failure, one skip.
fn small() -> Model {
    let t0 = t("2026-11-21T22:00:00Z");
    let t1 = t("2026-11-21T23:30:00Z");
    let t2 = t("2026-11-22T01:00:00Z");
    let mut removed = BTreeMap::new();
    removed.insert("decayed".to_string(), 1);
    let mut u = BTreeMap::new();
    u.insert("groq".to_string(), usage(1500, 200, 0.0003));
    Model {
        title: "thinker: a small window".into(),
        window: Window { from: t0, to: t2 },
        settings: vec![("memory.match_threshold".into(), "0.5".into())],
        ticks: vec![
            TickStats {
                time: t0,
                added: 2,
                usage: u.clone(),
                ..TickStats::default()
            },
            TickStats {
                time: t1,
                usage: u.clone(),
                failed: vec![ThreadName::Dreamer],
                skipped: vec![ThreadName::Oracle],
                ..TickStats::default()
            },
            TickStats {
                time: t2,
                removed,
                usage: u,
                ..TickStats::default()
            },
        ],
        entries: vec![
            EntrySeries {
                id: "a-1".into(),
                category: Category::ActiveThreads,
                summary: "Dentist Thursday 14:00".into(),
                points: vec![
                    (t0, Strength::whole(6)),
                    (t1, Strength::whole(8)),
                    (t2, Strength::whole(7)),
                ],
                left: None,
            },
            EntrySeries {
                id: "h-2".into(),
                category: Category::Hunches,
                summary: "Build times doubled".into(),
                points: vec![(t0, Strength::whole(2)), (t1, Strength::whole(1))],
                left: Some(Departure {
                    time: t2,
                    reason: "decayed".into(),
                }),
            },
        ],
        escalations: vec![EscalationMark {
            time: t1,
            thread: "watcher".into(),
            reason: "the dentist moved".into(),
            outcome: EscalationOutcome::parse("notified: the dentist moved to 15:00"),
        }],
        links: vec![LinkRow {
            made: t1,
            thread: "dreamer".into(),
            a: "a-1".into(),
            b: "h-2".into(),
            kind: "contradicts".into(),
            gone: Some((t2, "left".into())),
        }],
        notes: vec!["ticks before 2026-11-21 were journaled without answers".into()],
    }
}

fn assert_self_contained(html: &str) {
    for bad in FORBIDDEN {
        assert!(!html.contains(bad), "the page contains {bad:?}");
    }
}

#[test]
fn snapshot_of_a_small_model() {
    // UTC+1: the tick at 23:30Z is on the 22nd there, so the days are the 21st and 22nd.
    let html = report::render(&small(), zone(1));
    insta::assert_snapshot!("report_small", html);
}

#[test]
fn the_same_model_gives_the_same_bytes() {
    let model = fixture();
    assert_eq!(
        report::render(&model, zone(0)),
        report::render(&model, zone(0))
    );
}

#[test]
fn nothing_loads_or_runs_whatever_the_model() {
    let mut empty = small();
    empty.ticks.clear();
    empty.entries.clear();
    empty.escalations.clear();
    let mut one = small();
    one.ticks.truncate(1);
    one.window.to = one.window.from;
    for entry in &mut one.entries {
        entry.points.truncate(1);
        entry.left = None;
    }
    for html in [
        report::render(&fixture(), zone(0)),
        report::render(&empty, zone(0)),
        report::render(&one, zone(-5)),
        report::render_pair(&fixture(), &small(), zone(0)),
    ] {
        assert_self_contained(&html);
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("Content-Security-Policy"));
    }
}

#[test]
fn hostile_text_is_escaped_everywhere() {
    let mut model = small();
    model.title = HOSTILE.into();
    model.settings = vec![(HOSTILE.into(), HOSTILE.into())];
    model.notes = vec![HOSTILE.into()];
    model.entries[0].summary = HOSTILE.into();
    model.entries[0].id = HOSTILE.into();
    model.entries[1].left = Some(Departure {
        time: model.window.to,
        reason: HOSTILE.into(),
    });
    model.escalations[0].reason = HOSTILE.into();
    model.escalations[0].thread = HOSTILE.into();
    model.escalations[0].outcome = EscalationOutcome::parse(&format!("notified: {HOSTILE}"));
    model.ticks[0]
        .usage
        .insert(HOSTILE.into(), usage(1, 1, 0.0));
    model.ticks[0].removed.insert(HOSTILE.into(), 1);
    for html in [
        report::render(&model, zone(0)),
        report::render_pair(&small(), &model, zone(0)),
    ] {
        assert_self_contained(&html);
        assert!(!html.contains("</title><script"));
        assert!(html.contains("&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
        // Only the page's own <title> and the charts' titles close a title.
        assert_eq!(
            html.matches("<title>").count(),
            html.matches("</title>").count()
        );
    }
}

#[test]
fn a_page_without_ticks_says_so() {
    let mut model = small();
    model.ticks.clear();
    model.entries.clear();
    model.escalations.clear();
    let html = report::render(&model, zone(0));
    assert!(html.contains("No ticks in this window: nothing to draw."));
    assert!(html.contains("No escalation in this window."));
    assert!(html.contains("No call was made in this window."));
    assert!(!html.contains("<polyline"));
    for heading in HEADINGS {
        assert!(html.contains(&format!("<h2>{heading}</h2>")), "{heading}");
    }
}

#[test]
fn one_tick_draws_each_entry_as_a_visible_dash() {
    let mut model = small();
    model.ticks.truncate(1);
    model.window.to = model.window.from;
    for entry in &mut model.entries {
        entry.points.truncate(1);
        entry.left = None;
    }
    let html = report::render(&model, zone(0));
    assert_eq!(html.matches("<polyline").count(), 2);
    // A single point is drawn in the middle of an hour-wide frame, as a 1-unit dash.
    assert!(
        html.contains(r#"<polyline points="516,100 517,100"/>"#),
        "{html}"
    );
}

/// A day as the test expects it: date, ticks, escalations.
type Day = (&'static str, u32, u32);

#[test]
fn days_are_local_days_of_the_zone_passed_in() {
    // Ticks at 22:00Z, 23:30Z, 01:00Z; the escalation at 23:30Z.
    let cases: [(i32, &[Day]); 3] = [
        (0, &[("2026-11-21", 2, 1), ("2026-11-22", 1, 0)]),
        (1, &[("2026-11-21", 1, 0), ("2026-11-22", 2, 1)]),
        (-5, &[("2026-11-21", 3, 1)]),
    ];
    for (hours, want) in cases {
        let days = report::days(&small(), zone(hours));
        let got: Vec<(String, u32, u32)> = days
            .iter()
            .map(|d| (d.day.to_string(), d.ticks, d.escalations))
            .collect();
        let want: Vec<(String, u32, u32)> = want
            .iter()
            .map(|(d, n, e)| ((*d).to_string(), *n, *e))
            .collect();
        assert_eq!(got, want, "UTC{hours:+}");
    }
    let days = report::days(&small(), zone(1));
    assert_eq!(days[1].removed.get("decayed"), Some(&1));
    assert_eq!(days[1].failed.get(&ThreadName::Dreamer), Some(&1));
    assert_eq!(days[1].usage_total(), usage(3000, 400, 0.0006));
}

#[test]
fn side_by_side_shows_both_settings_and_the_change() {
    let current = fixture();
    let mut other = fixture();
    other.settings = vec![("memory.min_importance".into(), "3".into())];
    other.entries.truncate(10);
    other.escalations.truncate(4);
    let html = report::render_pair(&current, &other, zone(0));
    assert!(html.contains("<code>memory.min_importance=3</code>"));
    assert!(html.contains("<th class=\"n\">Current settings</th><th class=\"n\">With overrides</th><th class=\"n\">change</th>"));
    assert!(html.contains("<tr><td>entries that lived</td><td class=\"n\">14</td><td class=\"n\">10</td><td class=\"n down\">−4</td></tr>"), "{html}");
    assert!(html.contains("<tr><td>escalations</td><td class=\"n\">9</td><td class=\"n\">4</td><td class=\"n down\">−5</td></tr>"));
    assert_eq!(html.matches("<polyline").count(), 24);
    assert_eq!(html.matches("<div class=\"pair\">").count(), 5);
}

/// A model of `ticks` ticks at `minutes` apart with entries living ~100 ticks each.
fn big(ticks: i64, minutes: i64) -> Model {
    let start = t("2026-01-01T00:00:00Z");
    let at = |k: i64| start + TimeDelta::minutes(minutes * k);
    let mut rng = Lcg(11);
    let mut entries = Vec::new();
    let mut stats: Vec<TickStats> = (0..ticks)
        .map(|k| TickStats {
            time: at(k),
            added: 0,
            usage: [("groq".to_string(), usage(2400, 200, 0.0002))].into(),
            skipped: if k % 3 == 0 {
                vec![ThreadName::Oracle]
            } else {
                vec![]
            },
            ..TickStats::default()
        })
        .collect();
    let mut id = 0;
    for k in (0..ticks).step_by(5) {
        id += 1;
        let life = 40 + rng.next(120).cast_signed();
        let end = (k + life).min(ticks);
        let mut s: i32 = 8;
        let points = (k..end)
            .map(|j| {
                if (j - k) % 12 == 11 {
                    s = (s - 1).max(1);
                }
                if rng.next(20) == 0 {
                    s = (s + 2).min(10);
                }
                (at(j), Strength::whole(s as u8))
            })
            .collect();
        stats[k as usize].added += 1;
        let left = (end < ticks).then(|| Departure {
            time: at(end),
            reason: "decayed".into(),
        });
        if end < ticks {
            *stats[end as usize]
                .removed
                .entry("decayed".into())
                .or_default() += 1;
        }
        entries.push(EntrySeries {
            id: format!("p-{id}"),
            category: Category::ALL[id % 4],
            summary: format!("Entry {id}: {}", SUMMARIES[id % 12].0),
            points,
            left,
        });
    }
    let escalations = (0..ticks)
        .step_by(40)
        .map(|k| EscalationMark {
            time: at(k),
            thread: "watcher".into(),
            reason: format!("reason {k}"),
            outcome: EscalationOutcome::parse(if k % 80 == 0 {
                "notified: yes"
            } else {
                "suppressed: duplicate"
            }),
        })
        .collect();
    Model {
        title: "big".into(),
        window: Window {
            from: at(0),
            to: at(ticks - 1),
        },
        ticks: stats,
        entries,
        escalations,
        ..Model::default()
    }
}

#[test]
fn ten_thousand_ticks_make_a_small_page() {
    let model = big(10_000, 30);
    let html = report::render(&model, zone(0));
    let points: usize = model.entries.iter().map(|e| e.points.len()).sum();
    let drawn = html.matches(',').count();
    eprintln!(
        "10,000 ticks, {} entries, {points} points, {} escalations: {} bytes of HTML",
        model.entries.len(),
        model.escalations.len(),
        html.len()
    );
    assert_eq!(html.matches("<polyline").count(), model.entries.len());
    assert!(drawn < points / 4, "{drawn} drawn of {points} points");
    assert!(html.len() < 2_000_000, "{} bytes", html.len());
    assert_self_contained(&html);
}

/// First point, last point, lowest and highest strength.
type Shape = (
    Option<(f64, Strength)>,
    Option<(f64, Strength)>,
    Strength,
    Strength,
);

#[test]
fn long_text_is_cut_and_wraps() {
    let mut model = small();
    let long = "x".repeat(5000);
    model.entries[0].summary.clone_from(&long);
    model.escalations[0].reason.clone_from(&long);
    let html = report::render(&model, zone(0));
    // Hover text at most 300 characters, a table cell at most 480; nothing unbroken longer.
    let longest_run = html.split(|c: char| c != 'x').map(str::len).max().unwrap();
    assert!((300..=480).contains(&longest_run), "{longest_run}");
    assert!(html.contains("x…"));
    assert!(html.contains("td.text{max-width:520px;overflow-wrap:anywhere}"));
}

proptest! {
    /// Whatever text a model carries, the page gets no element from it: no script, every
    /// `<title>` closed once, one line per entry.
    #[test]
    fn any_text_stays_text(
        texts in proptest::collection::vec("[<>&\"' /=a-z()é\u{202e}\u{1b}\n]{0,40}", 8),
        strengths in proptest::collection::vec(0u8..=10, 1..6),
    ) {
        let mut model = small();
        model.title.clone_from(&texts[0]);
        model.entries[0].summary.clone_from(&texts[1]);
        model.entries[1].id.clone_from(&texts[2]);
        model.escalations[0].reason.clone_from(&texts[3]);
        model.escalations[0].thread.clone_from(&texts[4]);
        model.settings = vec![(texts[5].clone(), texts[6].clone())];
        model.notes = vec![texts[7].clone()];
        let start = model.window.from;
        model.entries[0].points = strengths
            .iter()
            .enumerate()
            .map(|(i, s)| {
                (
                    start + TimeDelta::minutes(i64::try_from(i).unwrap() * 30),
                    Strength::whole(*s),
                )
            })
            .collect();
        let html = report::render(&model, zone(0));
        prop_assert!(!html.contains("<script"));
        prop_assert!(!html.contains('\u{1b}'), "an escape character");
        prop_assert!(!html.contains('\u{202e}'), "a bidi override");
        prop_assert_eq!(html.matches("<title>").count(), html.matches("</title>").count());
        prop_assert_eq!(html.matches("<polyline").count(), 2);
        prop_assert_eq!(html.matches("<g ").count(), html.matches("</g>").count());
    }
}

/// Every entry's strength as a chart reader would see it: the points' strengths at
/// each x, first and last.
fn shape(points: &[(f64, Strength)]) -> Shape {
    let min = points.iter().map(|p| p.1).min().unwrap_or(Strength::ZERO);
    let max = points.iter().map(|p| p.1).max().unwrap_or(Strength::ZERO);
    (points.first().copied(), points.last().copied(), min, max)
}

proptest! {
    /// Downsampling keeps the first and last point, the lowest and highest strength,
    /// time order, and at most four points per pixel column.
    #[test]
    fn downsampling_keeps_the_shape(
        steps in proptest::collection::vec((1i64..600, 0i64..=1000), 0..400),
        hours in 1i64..2000,
    ) {
        let start = t("2026-01-01T00:00:00Z");
        let mut at = start;
        let points: Vec<(DateTime<Utc>, Strength)> = steps
            .iter()
            .map(|(dt, s)| {
                at += TimeDelta::minutes(*dt);
                (at, Strength::from_hundredths(*s))
            })
            .collect();
        let window = Window { from: start, to: start + TimeDelta::hours(hours) };
        let frame = report::Frame::new(window);
        let kept = report::downsample(frame, &points);
        let all: Vec<(f64, Strength)> = points.iter().map(|(t, s)| (frame.x(*t), *s)).collect();
        let (first, last, min, max) = shape(&all);
        let (kfirst, klast, kmin, kmax) = shape(&kept);
        prop_assert_eq!(first, kfirst);
        prop_assert_eq!(last, klast);
        prop_assert_eq!((min, max), (kmin, kmax));
        prop_assert!(kept.windows(2).all(|w| w[0].0 <= w[1].0));
        let mut per_column: BTreeMap<i64, usize> = BTreeMap::new();
        for (x, _) in &kept {
            *per_column.entry(x.round() as i64).or_default() += 1;
        }
        prop_assert!(per_column.values().all(|n| *n <= 4));
    }
}

/// The page's section headings, as the browser must show them.
pub(crate) const HEADINGS: [&str; 6] = [
    "Summary",
    "Strength over time",
    "Additions and removals per day",
    "Escalations",
    "Tokens and cost per day",
    "Thread failures and skips",
];

/// The browser of the tests marked `#[ignore = "needs Chromium: …"]`: `THINKER_CHROMIUM`,
/// else `/usr/bin/chromium`; neither fails the test, loudly (it runs only when asked).
#[track_caller]
pub(crate) fn chromium() -> PathBuf {
    if let Some(path) = std::env::var_os("THINKER_CHROMIUM").filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    let default = Path::new("/usr/bin/chromium");
    assert!(
        default.exists(),
        "THINKER_CHROMIUM is not set and there is no /usr/bin/chromium, and this #[ignore]d \
         test needs a browser: apt-get install chromium, or \
         export THINKER_CHROMIUM=$(scripts/ci/e2e-chromium.sh build) \
         (`cargo test` alone passes without it: README, \"Component tests\")"
    );
    default.to_path_buf()
}

/// Runs headless Chromium on `page` with `extra` flags; returns (stdout, stderr).
pub(crate) fn run_chromium(
    browser: &Path,
    profile: &Path,
    page: &Path,
    extra: &[String],
) -> (String, String) {
    // Output goes to files (no pipe to fill), and a browser that hangs is killed after
    // CHROMIUM_LIMIT so the suite ends; either way the test fails with what it logged.
    let out_path = profile.with_extension("stdout");
    let err_path = profile.with_extension("stderr");
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > CHROMIUM_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let stdout = String::from_utf8_lossy(&std::fs::read(&out_path).unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&std::fs::read(&err_path).unwrap()).into_owned();
    let Some(status) = status else {
        panic!("chromium did not finish within {CHROMIUM_LIMIT:?}: killed\n{stderr}");
    };
    assert!(status.success(), "chromium failed: {status:?}\n{stderr}");
    (stdout, stderr)
}

/// How long one headless run may take before it counts as hung (it takes ~2 s).
const CHROMIUM_LIMIT: std::time::Duration = std::time::Duration::from_mins(3);

/// What Chromium logs for a page's console messages and uncaught errors: with
/// `--enable-logging=stderr --v=0`, each console message (`console.log`/`error`, an
/// uncaught exception, a Content-Security-Policy refusal, a failed load) is one line
/// `[pid:tid:time:INFO:CONSOLE:1] "…", source: file:///… (1)` (older versions:
/// `CONSOLE(1)`); the page must produce none. "Uncaught" and "Refused to" are matched
/// too in case a version logs them without the tag. The test proves the check on two
/// pages that must trip it.
pub(crate) fn console_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains("CONSOLE") || l.contains("Uncaught") || l.contains("Refused to"))
        .collect()
}

#[test]
#[ignore = "needs Chromium: THINKER_CHROMIUM, else /usr/bin/chromium"]
fn in_chromium() {
    let browser = chromium();
    let dir = tempfile::tempdir().unwrap();
    let model = fixture();
    let page = dir.path().join("report.html");
    std::fs::write(&page, report::render(&model, zone(1))).unwrap();

    // The DOM as the browser parsed it: one polyline per entry, the headings, and the
    // hostile summary as text (no element made of it).
    let (dom, stderr) = run_chromium(
        &browser,
        &dir.path().join("p1"),
        &page,
        &["--dump-dom".into()],
    );
    assert_eq!(
        dom.matches("<polyline").count(),
        model.entries.len(),
        "{dom}"
    );
    assert_eq!(
        dom.matches("<g class=\"marker").count(),
        model.escalations.len()
    );
    for heading in HEADINGS {
        assert!(
            dom.contains(&format!("<h2>{heading}</h2>")),
            "{heading} missing"
        );
    }
    assert!(!dom.contains("<script"));
    assert!(!dom.contains("<img"));
    assert!(dom.contains("&lt;/title&gt;&lt;script&gt;alert(1)"));
    assert!(console_lines(&stderr).is_empty(), "console: {stderr}");

    // The picture: not blank, several colours (lines, bars, markers).
    let png_path = dir.path().join("report.png");
    let (_, stderr) = run_chromium(
        &browser,
        &dir.path().join("p2"),
        &page,
        &[
            format!("--screenshot={}", png_path.display()),
            "--window-size=1280,2000".into(),
        ],
    );
    assert!(console_lines(&stderr).is_empty(), "console: {stderr}");
    let (width, height, pixels) = decode(&png_path);
    assert_eq!((width, height), (1280, 2000));
    let non_white = pixels
        .iter()
        .filter(|p| p[0] < 245 || p[1] < 245 || p[2] < 245)
        .count();
    let colours: std::collections::BTreeSet<[u8; 3]> = pixels.iter().copied().collect();
    assert!(
        non_white > pixels.len() / 50,
        "only {non_white} non-white pixels"
    );
    assert!(colours.len() > 50, "only {} colours", colours.len());
    // The categories' colours are on the page (the lines and their legend).
    for rgb in [
        [0x00, 0x72, 0xb2],
        [0x00, 0x9e, 0x73],
        [0xe6, 0x9f, 0x00],
        [0xcc, 0x79, 0xa7],
    ] {
        assert!(colours.contains(&rgb), "no pixel of {rgb:?}");
    }
    if let Some(keep) = std::env::var_os("THINKER_REPORT_SCREENSHOT") {
        std::fs::copy(&png_path, keep).unwrap();
    }

    console_check_and_policy(&browser, dir.path());
}

/// The console check is real, and the page's policy is in force: a page with a
/// throwing script trips the check, and a script and an image slipped into the report
/// are refused (and the refusals logged).
fn console_check_and_policy(browser: &Path, dir: &Path) {
    // The console check is real: a page with a failing script is caught by it.
    let bad = dir.join("bad.html");
    std::fs::write(
        &bad,
        "<!DOCTYPE html><p>x</p><script>throw new Error('boom')</script>",
    )
    .unwrap();
    let (_, stderr) = run_chromium(browser, &dir.join("p3"), &bad, &["--dump-dom".into()]);
    assert!(
        console_lines(&stderr).iter().any(|l| l.contains("boom")),
        "a thrown error did not reach the log: {stderr}"
    );
    // The page's Content-Security-Policy is in force: a script or an image slipped
    // into it is refused, and the refusal is logged.
    let html = report::render(&small(), zone(0)).replace(
        "</body>",
        "<img src=\"https://example.invalid/x.png\"><script>throw new Error('ran')</script></body>",
    );
    let slipped = dir.join("slipped.html");
    std::fs::write(&slipped, html).unwrap();
    let (dom, stderr) = run_chromium(browser, &dir.join("p4"), &slipped, &["--dump-dom".into()]);
    let console = console_lines(&stderr);
    assert!(
        console
            .iter()
            .any(|l| l.contains("Content Security Policy") && l.contains("script")),
        "the inline script was not refused: {stderr}"
    );
    assert!(
        console
            .iter()
            .any(|l| l.contains("Content Security Policy") && l.contains("example.invalid")),
        "the image was not refused: {stderr}"
    );
    assert!(
        !console.iter().any(|l| l.contains("Uncaught Error: ran")),
        "the script ran: {stderr}"
    );
    assert!(dom.contains("<h2>Strength over time</h2>"));
}

/// The screenshot's pixels as RGB.
pub(crate) fn decode(path: &Path) -> (u32, u32, Vec<[u8; 3]>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let pixels = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|c| [c[0], c[1], c[2]])
        .collect();
    (info.width, info.height, pixels)
}
