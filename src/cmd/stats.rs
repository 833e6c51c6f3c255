//! `thinker stats [--since 7d] [--json]`: totals over the journal since a time — per
//! thread its ticks, answers, failures and skips by reason; per thread and model (the
//! escalation's model as thread `escalation`) the calls, failures, p50/p95 latency,
//! tokens and cost; tokens and cost per local day; what the subconscious held (entries
//! added, from the journal; removed by reason and their average lifetime, from
//! `archive.jsonl`; entries at strength 10, in the state now or when archived); the
//! escalations raised and their outcomes. Plain tables, or one JSON object.
//!
//! `--since` is read against the context's clock (`--now` in tests): `7d`, `24h`, `90m`,
//! `2w` before now, a date (that local day's midnight) or an instant. Reads only; works
//! without a config. Statistics (percentiles, grouping) are pure functions of the lines.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;

use crate::archive::Archived;
use crate::cli::StatsArgs;
use crate::clock::Clock;
use crate::cmd::shared::{dollars, local, ms_words, warn_skipped};
use crate::cmd::{Context, since_instant};
use crate::error::{EXIT_OK, Error, to_json_pretty};
use crate::journal::line::outcome_word;
use crate::journal::read::{self, Span, Tick, read_archive};
use crate::journal::{AttemptRecord, Status, ThreadRecord};
use crate::state::{Category, Strength};
use crate::storage::StateDir;
use crate::timestamp;
use crate::untrusted;

/// The value at quantile `q` (0..=1) of sorted `values`, by nearest rank.
pub fn percentile(sorted: &[u64], q: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted.get(rank.clamp(1, sorted.len()) - 1).copied()
}

#[derive(Debug, Default, Serialize)]
struct ThreadStats {
    thread: String,
    ticks: u64,
    answered: u64,
    failed: u64,
    skipped: u64,
    /// Skips by reason (`cadence`, `quiet_hours`, `budget`, `breaker`, `disabled`).
    skips: BTreeMap<String, u64>,
}

#[derive(Debug, Default, Serialize)]
struct ModelStats {
    thread: String,
    /// `provider/model`.
    model: String,
    calls: u64,
    failures: u64,
    p50_ms: Option<u64>,
    p95_ms: Option<u64>,
    tokens_in: u64,
    tokens_out: u64,
    cost: f64,
    #[serde(skip)]
    latencies: Vec<u64>,
}

#[derive(Debug, Default, Serialize)]
struct DayStats {
    day: String,
    ticks: u64,
    calls: u64,
    tokens_in: u64,
    tokens_out: u64,
    cost: f64,
}

#[derive(Debug, Default, Serialize)]
struct MemoryStats {
    /// Entries added (the journal's aggregate records).
    added: u64,
    /// Entries archived (`archive.jsonl`), and by reason.
    removed: u64,
    removed_by_reason: BTreeMap<String, u64>,
    /// Average of `removed_at − created` of the archived entries that have both.
    average_lifetime_hours: Option<f64>,
    /// Entries at strength 10: in the state now, and archived at 10.
    strength_10_now: u64,
    strength_10_archived: u64,
}

#[derive(Debug, Default, Serialize)]
struct EscalationStats {
    raised: u64,
    /// Outcomes by their first word (`notified`, `dismissed`, `suppressed`…).
    outcomes: BTreeMap<String, u64>,
}

#[derive(Debug, Default, Serialize)]
struct Stats {
    since: String,
    until: String,
    ticks: u64,
    threads: Vec<ThreadStats>,
    models: Vec<ModelStats>,
    days: Vec<DayStats>,
    memory: MemoryStats,
    escalations: EscalationStats,
}

pub fn run(ctx: &mut Context<'_>, args: &StatsArgs) -> Result<u8, Error> {
    let resolved = ctx.optional_config()?;
    let since = since_instant(args.since, &ctx.clock);
    let journal = read::lenient(&resolved.state_dir, Span::Since(since))?;
    warn_skipped(ctx, &journal.skipped, "journal")?;
    let (archived, skipped) = read_archive(&resolved.state_dir, since)?;
    warn_skipped(ctx, &skipped, "archive")?;
    let strength_10_now = match StateDir::at(&resolved.state_dir).load() {
        Ok(state) => Category::ALL
            .into_iter()
            .flat_map(|c| state.entries(c))
            .filter(|e| e.strength >= Strength::MAX)
            .count() as u64,
        Err(e) => {
            if !ctx.global.quiet {
                ctx.stderr(&format!(
                    "warning: entries at strength 10 now are not counted: {e}\n"
                ))?;
            }
            0
        }
    };
    let mut stats = compute(&journal.ticks, &archived, since, &ctx.clock);
    stats.memory.strength_10_now = strength_10_now;
    let text = if args.json {
        to_json_pretty(&stats, "the stats")?
    } else {
        render(&stats, &ctx.clock, since)
    };
    ctx.stdout(text.as_bytes())?;
    Ok(EXIT_OK)
}

/// The model of an attempt-less record (older lines): `provider/model`.
fn record_model(provider: Option<&String>, model: Option<&String>) -> String {
    match (provider, model) {
        (Some(p), Some(m)) => format!("{p}/{m}"),
        (None, Some(m)) => m.clone(),
        (Some(p), None) => p.clone(),
        (None, None) => "?".into(),
    }
}

fn count_attempt(
    models: &mut BTreeMap<(String, String), ModelStats>,
    thread: &str,
    a: &AttemptRecord,
) -> bool {
    if a.skipped {
        return false;
    }
    let m = models
        .entry((thread.to_string(), a.model.clone()))
        .or_insert_with(|| ModelStats {
            thread: thread.to_string(),
            model: a.model.clone(),
            ..ModelStats::default()
        });
    m.calls += 1;
    m.failures += u64::from(a.error.is_some());
    m.latencies.push(a.latency_ms);
    m.tokens_in = m.tokens_in.saturating_add(a.tokens_in);
    m.tokens_out = m.tokens_out.saturating_add(a.tokens_out);
    m.cost += a.cost;
    true
}

/// Counts one thread's record of a tick; returns the calls it made.
fn count_thread(
    threads: &mut BTreeMap<String, ThreadStats>,
    models: &mut BTreeMap<(String, String), ModelStats>,
    t: &ThreadRecord,
) -> u64 {
    let mut calls = 0;
    let name = t.thread.as_str();
    let s = threads
        .entry(name.to_string())
        .or_insert_with(|| ThreadStats {
            thread: name.to_string(),
            ..ThreadStats::default()
        });
    s.ticks += 1;
    match t.status {
        Status::Answered => s.answered += 1,
        Status::Failed => s.failed += 1,
        Status::Skipped => {
            s.skipped += 1;
            let reason = t.skip.as_ref().map_or("unknown", |k| k.reason());
            *s.skips.entry(reason.to_string()).or_default() += 1;
        }
        Status::Unknown(_) => {}
    }
    if t.attempts.is_empty() && t.status != Status::Skipped && t.model.is_some() {
        // A line without attempts (an older version): the record is one call.
        let a = AttemptRecord {
            model: record_model(t.provider.as_ref(), t.model.as_ref()),
            latency_ms: t.latency_ms,
            tokens_in: t.tokens_in,
            tokens_out: t.tokens_out,
            cost: t.cost,
            error: t.error.clone(),
            ..AttemptRecord::default()
        };
        calls += u64::from(count_attempt(models, name, &a));
    }
    for a in &t.attempts {
        calls += u64::from(count_attempt(models, name, a));
    }
    calls
}

/// What the archive says: entries removed, by reason, their lifetime, strength 10.
fn archive_stats(memory: &mut MemoryStats, archived: &[Archived]) {
    let mut lifetimes = Vec::new();
    for a in archived {
        memory.removed += 1;
        *memory
            .removed_by_reason
            .entry(untrusted::excerpt(&a.reason.word(), 30))
            .or_default() += 1;
        let created = a.entry.created;
        if created <= a.removed_at {
            lifetimes.push((a.removed_at - created).num_seconds() as f64 / 3600.0);
        }
        memory.strength_10_archived += u64::from(a.entry.strength >= Strength::MAX);
    }
    if !lifetimes.is_empty() {
        memory.average_lifetime_hours =
            Some(lifetimes.iter().sum::<f64>() / lifetimes.len() as f64);
    }
}

fn compute(ticks: &[Tick], archived: &[Archived], since: DateTime<Utc>, clock: &Clock) -> Stats {
    let mut threads: BTreeMap<String, ThreadStats> = BTreeMap::new();
    let mut models: BTreeMap<(String, String), ModelStats> = BTreeMap::new();
    let mut days: BTreeMap<NaiveDate, DayStats> = BTreeMap::new();
    let mut memory = MemoryStats::default();
    let mut escalations = EscalationStats::default();
    let mut ticks_seen = 0;
    for tick in ticks {
        let l = &tick.line;
        let day = days.entry(clock.zone.day(l.time)).or_default();
        let mut calls = 0u64;
        if !l.threads.is_empty() {
            ticks_seen += 1;
            day.ticks += 1;
        }
        for t in &l.threads {
            calls += count_thread(&mut threads, &mut models, t);
        }
        day.tokens_in = day.tokens_in.saturating_add(l.tokens_in);
        day.tokens_out = day.tokens_out.saturating_add(l.tokens_out);
        day.cost += l.cost;
        memory.added += l.aggregate.added.len() as u64;
        escalations.raised += l.escalations.len() as u64;
        let settled = tick.escalation.as_ref().map(|e| &e.escalation);
        if let Some(e) = settled {
            for a in &e.attempts {
                calls += u64::from(count_attempt(&mut models, "escalation", a));
            }
            day.tokens_in = day.tokens_in.saturating_add(e.tokens_in);
            day.tokens_out = day.tokens_out.saturating_add(e.tokens_out);
            day.cost += e.cost;
        }
        // Each record's latest word: the escalation line's, else the one it was raised with.
        let records = match settled {
            Some(e) if !e.records.is_empty() => &e.records,
            _ => &l.escalations,
        };
        for r in records {
            *escalations
                .outcomes
                .entry(untrusted::excerpt(&outcome_word(r), 30))
                .or_default() += 1;
        }
        day.calls += calls;
    }
    archive_stats(&mut memory, archived);
    let mut models: Vec<ModelStats> = models.into_values().collect();
    for m in &mut models {
        m.latencies.sort_unstable();
        m.p50_ms = percentile(&m.latencies, 0.5);
        m.p95_ms = percentile(&m.latencies, 0.95);
    }
    // Threads in their fixed order, then any other name a line carried.
    let mut thread_stats: Vec<ThreadStats> = threads.into_values().collect();
    let order = |name: &str| {
        crate::thread::ThreadName::ALL
            .iter()
            .position(|t| t.as_str() == name)
            .unwrap_or(usize::MAX)
    };
    thread_stats.sort_by(|a, b| {
        order(&a.thread)
            .cmp(&order(&b.thread))
            .then(a.thread.cmp(&b.thread))
    });
    models.sort_by(|a, b| {
        order(&a.thread)
            .cmp(&order(&b.thread))
            .then(a.thread.cmp(&b.thread))
            .then(a.model.cmp(&b.model))
    });
    Stats {
        since: timestamp::format(since),
        until: timestamp::format(clock.now),
        ticks: ticks_seen,
        threads: thread_stats,
        models,
        days: days
            .into_iter()
            .map(|(d, s)| DayStats {
                day: d.to_string(),
                ..s
            })
            .collect(),
        memory,
        escalations,
    }
}

fn ms(v: Option<u64>) -> String {
    v.map_or_else(|| "-".into(), ms_words)
}

fn counts(map: &BTreeMap<String, u64>) -> String {
    map.iter()
        .map(|(k, v)| format!("{} {v}", untrusted::clean_line(k)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn render(s: &Stats, clock: &Clock, since: DateTime<Utc>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Since {} ({}): {} ticks",
        local(clock, since),
        crate::clock::age(since, clock.now),
        s.ticks
    );
    let _ = writeln!(out, "\nThreads");
    let _ = writeln!(
        out,
        "  {:<10} {:>6} {:>9} {:>7} {:>8}  skips",
        "thread", "ticks", "answered", "failed", "skipped"
    );
    if s.threads.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    for t in &s.threads {
        let line = format!(
            "  {:<10} {:>6} {:>9} {:>7} {:>8}  {}",
            untrusted::excerpt(&t.thread, 10),
            t.ticks,
            t.answered,
            t.failed,
            t.skipped,
            counts(&t.skips)
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let _ = writeln!(out, "\nModels");
    let _ = writeln!(
        out,
        "  {:<10} {:<28} {:>5} {:>6} {:>8} {:>8} {:>10} {:>10} {:>9}",
        "thread", "model", "calls", "failed", "p50", "p95", "tokens in", "tokens out", "cost"
    );
    if s.models.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    for m in &s.models {
        let _ = writeln!(
            out,
            "  {:<10} {:<28} {:>5} {:>6} {:>8} {:>8} {:>10} {:>10} {:>9}",
            untrusted::excerpt(&m.thread, 10),
            untrusted::excerpt(&m.model, 28),
            m.calls,
            m.failures,
            ms(m.p50_ms),
            ms(m.p95_ms),
            m.tokens_in,
            m.tokens_out,
            dollars(m.cost)
        );
    }
    let _ = writeln!(out, "\nPer day");
    let _ = writeln!(
        out,
        "  {:<10} {:>6} {:>6} {:>10} {:>10} {:>9}",
        "day", "ticks", "calls", "tokens in", "tokens out", "cost"
    );
    if s.days.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    for d in &s.days {
        let _ = writeln!(
            out,
            "  {:<10} {:>6} {:>6} {:>10} {:>10} {:>9}",
            d.day,
            d.ticks,
            d.calls,
            d.tokens_in,
            d.tokens_out,
            dollars(d.cost)
        );
    }
    render_memory(&mut out, s);
    out
}

/// The memory and escalation sections.
fn render_memory(out: &mut String, s: &Stats) {
    let m = &s.memory;
    let _ = writeln!(out, "\nMemory");
    let by_reason = if m.removed_by_reason.is_empty() {
        String::new()
    } else {
        format!(" ({})", counts(&m.removed_by_reason))
    };
    let _ = writeln!(out, "  added {}, removed {}{by_reason}", m.added, m.removed);
    if let Some(h) = m.average_lifetime_hours {
        let life = if h < 48.0 {
            format!("{h:.1} h")
        } else {
            format!("{:.1} days", h / 24.0)
        };
        let _ = writeln!(out, "  average lifetime of a removed entry: {life}");
    }
    let _ = writeln!(
        out,
        "  at strength 10: {} now, {} when archived",
        m.strength_10_now, m.strength_10_archived
    );
    let e = &s.escalations;
    let _ = writeln!(out, "\nEscalations");
    let outcomes = if e.outcomes.is_empty() {
        String::new()
    } else {
        format!("; {}", counts(&e.outcomes))
    };
    let _ = writeln!(out, "  raised {}{outcomes}", e.raised);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Since;
    use crate::clock::Zone;
    use chrono::FixedOffset;

    /// Nearest rank: p50 of 1..=4 is 2, p95 of 20 values is the 19th.
    #[test]
    fn percentiles_by_nearest_rank() {
        let cases: &[(&[u64], f64, Option<u64>)] = &[
            (&[], 0.5, None),
            (&[7], 0.5, Some(7)),
            (&[7], 0.95, Some(7)),
            (&[1, 2, 3, 4], 0.5, Some(2)),
            (&[1, 2, 3, 4], 0.95, Some(4)),
            (&[1, 2, 3, 4], 0.0, Some(1)),
        ];
        for (values, q, want) in cases {
            assert_eq!(percentile(values, *q), *want, "{values:?} at {q}");
        }
        let twenty: Vec<u64> = (1..=20).collect();
        assert_eq!(percentile(&twenty, 0.95), Some(19));
    }

    #[test]
    fn since_is_read_on_the_clock_and_its_zone() {
        let now = timestamp::parse("2026-11-22T10:05:00Z").unwrap();
        let utc = Clock::utc(now);
        let ny = Clock::new(now, Zone::Fixed(FixedOffset::west_opt(5 * 3600).unwrap()));
        let at = |text: &str, clock: &Clock| {
            timestamp::format(since_instant(text.parse::<Since>().unwrap(), clock))
        };
        assert_eq!(at("7d", &utc), "2026-11-15T10:05:00Z");
        assert_eq!(at("24h", &utc), "2026-11-21T10:05:00Z");
        assert_eq!(at("90m", &utc), "2026-11-22T08:35:00Z");
        assert_eq!(at("2w", &utc), "2026-11-08T10:05:00Z");
        assert_eq!(at("2026-11-20", &utc), "2026-11-20T00:00:00Z");
        assert_eq!(at("2026-11-20", &ny), "2026-11-20T05:00:00Z");
        assert_eq!(at("2026-11-20T08:00:00+01:00", &ny), "2026-11-20T07:00:00Z");
        for bad in [
            "",
            "7",
            "d",
            "7y",
            "-7d",
            "yesterday",
            "2026-13-01",
            "99999999999999d",
        ] {
            assert!(bad.parse::<Since>().is_err(), "{bad}");
        }
    }
}
