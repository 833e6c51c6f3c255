//! `thinker log [-n N] [--thread T] [--json]`: the recent ticks, one line each, the newest
//! last — local time (the context's [`crate::clock::Clock`]), duration, each thread's
//! status, entries added / reinforced / removed, escalations with their outcome (from the
//! tick's escalation line, joined by run) and cost; with `--thread`, that thread's part
//! of each tick (model, latency, tokens, cost, error or skip reason). Reads the journal
//! and its rotated files ([`crate::journal::read::lenient`]); works without a config.
//!
//! Text read from the journal is printed cleaned to one line (it may hold a model's or a
//! server's words). Colour only on a terminal without `NO_COLOR` (or `--color always`).
//! Reads only; must not take the lock or rotate.

use std::fmt::Write as _;

use serde::Serialize;

use crate::cli::LogArgs;
use crate::clock::Clock;
use crate::cmd::Context;
use crate::cmd::shared::{dollars, local, ms_words, warn_skipped};
use crate::error::{EXIT_OK, Error, to_json_pretty};
use crate::journal::line::outcome_word;
use crate::journal::read::{self, Lenient as Journal, Span, Tick};
use crate::journal::{Status, ThreadRecord};
use crate::state::EscalationRecord;
use crate::thread::ThreadName;
use crate::timestamp;
use crate::untrusted;

pub(crate) use crate::paint::Painter;
use crate::paint::{DIM, GREEN, RED, YELLOW};

pub fn run(ctx: &mut Context<'_>, args: &LogArgs) -> Result<u8, Error> {
    let resolved = ctx.optional_config()?;
    let mut journal = read::lenient(&resolved.state_dir, Span::Last(args.count))?;
    let keep = journal.ticks.len().saturating_sub(args.count);
    journal.ticks.drain(..keep);
    warn_skipped(ctx, &journal.skipped, "journal")?;
    if args.json {
        let view: Vec<TickView> = journal
            .ticks
            .iter()
            .map(|t| TickView::of(t, args.thread))
            .collect();
        let text = to_json_pretty(&view, "the log")?;
        ctx.stdout(text.as_bytes())?;
        return Ok(EXIT_OK);
    }
    let painter = Painter {
        color: ctx.use_color(args.color),
    };
    let text = if journal.ticks.is_empty() {
        format!(
            "no ticks in the journal yet ({})\n",
            resolved
                .state_dir
                .join(crate::storage::JOURNAL_FILE)
                .display()
        )
    } else if let Some(thread) = args.thread {
        render_thread(&journal, thread, &ctx.clock, painter)
    } else {
        render(&journal, &ctx.clock, painter)
    };
    ctx.stdout(text.as_bytes())?;
    Ok(EXIT_OK)
}

fn status_cell(p: Painter, t: Option<&ThreadRecord>, width: usize) -> String {
    match t.map(|t| &t.status) {
        Some(Status::Answered) => p.cell(GREEN, "ok", width),
        Some(Status::Failed) => p.cell(RED, "failed", width),
        Some(Status::Skipped) => p.cell(DIM, "skip", width),
        Some(Status::Unknown(other)) => p.cell("", &untrusted::excerpt(other, width), width),
        None => p.cell(DIM, "-", width),
    }
}

/// `watcher notified, oracle suppressed`: the escalation line's records, else the records
/// the tick raised.
fn escalations(tick: &Tick) -> String {
    let records = match &tick.escalation {
        Some(e) if !e.escalation.records.is_empty() => &e.escalation.records,
        _ => &tick.line.escalations,
    };
    let mut parts: Vec<String> = records
        .iter()
        .map(|r| {
            // A decision held for the user's word says so: it is never sent.
            let word = if r
                .outcome
                .to_string()
                .starts_with("held: needs confirmation")
            {
                "held: needs confirmation".to_string()
            } else {
                outcome_word(r)
            };
            format!(
                "{} {}",
                untrusted::excerpt(&r.thread, 20),
                untrusted::excerpt(&word, 30)
            )
        })
        .collect();
    if tick
        .escalation
        .as_ref()
        .is_some_and(|e| !e.escalation.errors.is_empty())
    {
        parts.push("(errors: see --json)".into());
    }
    parts.join(", ")
}

fn thread_of(tick: &Tick, thread: ThreadName) -> Option<&ThreadRecord> {
    tick.line.threads.iter().find(|t| t.thread == thread)
}

/// One line a tick.
fn render(journal: &Journal, clock: &Clock, p: Painter) -> String {
    let mut out = String::new();
    let mut header = format!("{:<16}  {:>5}  {:>7}  ", "time", "run", "took");
    for thread in ThreadName::ALL {
        let _ = write!(header, "{:<9} ", thread.as_str());
    }
    let _ = write!(
        header,
        " {:>4} {:>4} {:>4}  {:>9}  escalations",
        "+add", "~re", "-rm", "cost"
    );
    let _ = writeln!(out, "{}", p.bold(&header));
    for tick in &journal.ticks {
        let l = &tick.line;
        let _ = write!(
            out,
            "{:<16}  {:>5}  {:>7}  ",
            local(clock, l.time),
            l.run,
            ms_words(l.duration_ms)
        );
        for thread in ThreadName::ALL {
            let _ = write!(out, "{} ", status_cell(p, thread_of(tick, thread), 9));
        }
        let a = &l.aggregate;
        let mem = format!(
            " {:>4} {:>4} {:>4}",
            format!("+{}", a.added.len()),
            format!("~{}", a.reinforced.len()),
            format!("-{}", a.removed())
        );
        let mem = if a.applied || l.threads.is_empty() {
            mem
        } else {
            p.cell(DIM, &mem, 0)
        };
        let esc = escalations(tick);
        let esc = if esc.is_empty() {
            esc
        } else {
            p.cell(YELLOW, &esc, 0)
        };
        let line = format!("{mem}  {:>9}  {esc}", dollars(tick.cost()));
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

/// `--thread`: that thread's part of each tick.
fn render_thread(journal: &Journal, thread: ThreadName, clock: &Clock, p: Painter) -> String {
    let mut out = String::new();
    let header = format!(
        "{:<16}  {:>5}  {:<9} {:<28} {:>7}  {:>13}  {:>9}  note",
        "time",
        "run",
        thread.as_str(),
        "model",
        "latency",
        "tokens in/out",
        "cost"
    );
    let _ = writeln!(out, "{}", p.bold(&header));
    for tick in &journal.ticks {
        let t = thread_of(tick, thread);
        let (model, latency, tokens, cost, note) = match t {
            None => Default::default(),
            Some(t) if t.status == Status::Skipped => (
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                note(t),
            ),
            Some(t) => (
                t.attempts
                    .last()
                    .map(|a| a.model.clone())
                    .or_else(|| match (&t.provider, &t.model) {
                        (Some(p), Some(m)) => Some(format!("{p}/{m}")),
                        _ => None,
                    })
                    .map(|m| untrusted::excerpt(&m, 27))
                    .unwrap_or_default(),
                ms_words(t.latency_ms),
                format!("{}/{}", t.tokens_in, t.tokens_out),
                dollars(t.cost),
                note(t),
            ),
        };
        let line = format!(
            "{:<16}  {:>5}  {} {model:<28} {latency:>7}  {tokens:>13}  {cost:>9}  {note}",
            local(clock, tick.line.time),
            tick.line.run,
            status_cell(p, t, 9),
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

fn note(t: &ThreadRecord) -> String {
    match t.status {
        Status::Answered => format!(
            "{} finding{}, {} reinforced",
            t.findings,
            if t.findings == 1 { "" } else { "s" },
            t.reinforce
        ),
        Status::Skipped => t
            .skip
            .as_ref()
            .map(|s| untrusted::excerpt(&s.brief(), 100))
            .unwrap_or_default(),
        _ => t
            .error
            .as_deref()
            .map(|e| untrusted::excerpt(e, 100))
            .unwrap_or_default(),
    }
}

/// A tick in `log --json`.
#[derive(Debug, Serialize)]
struct TickView {
    time: String,
    run: u64,
    tick_count: u64,
    duration_ms: u64,
    exit_code: u8,
    threads: Vec<ThreadView>,
    added: usize,
    reinforced: usize,
    removed: usize,
    /// Records raised by the tick.
    escalations: Vec<RecordView>,
    /// The escalation phase, when it had work.
    escalation: Option<EscalationView>,
    /// The tick's cost and its escalation's.
    cost: f64,
}

#[derive(Debug, Serialize)]
struct ThreadView {
    thread: String,
    status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    skip: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    latency_ms: u64,
    tokens_in: u64,
    tokens_out: u64,
    cost: f64,
    findings: usize,
    reinforce: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Debug, Serialize)]
struct RecordView {
    thread: String,
    reason: String,
    outcome: String,
}

#[derive(Debug, Serialize)]
struct EscalationView {
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    decision: Option<String>,
    tokens_in: u64,
    tokens_out: u64,
    cost: f64,
    records: Vec<RecordView>,
    errors: Vec<String>,
}

fn record_view(r: &EscalationRecord) -> RecordView {
    RecordView {
        thread: untrusted::clean_line(&r.thread),
        reason: untrusted::clean_line(&r.reason),
        outcome: untrusted::clean_line(&r.outcome.to_string()),
    }
}

impl TickView {
    fn of(tick: &Tick, only: Option<ThreadName>) -> TickView {
        let l = &tick.line;
        TickView {
            time: timestamp::format(l.time),
            run: l.run,
            tick_count: l.tick_count,
            duration_ms: l.duration_ms,
            exit_code: l.exit_code,
            threads: l
                .threads
                .iter()
                .filter(|t| only.is_none_or(|o| t.thread == o))
                .map(|t| ThreadView {
                    thread: untrusted::clean_line(t.thread.as_str()),
                    status: untrusted::clean_line(t.status.as_str()),
                    skip: t.skip.as_ref().map(|s| untrusted::clean_line(s.reason())),
                    model: t.attempts.last().map(|a| untrusted::clean_line(&a.model)),
                    latency_ms: t.latency_ms,
                    tokens_in: t.tokens_in,
                    tokens_out: t.tokens_out,
                    cost: t.cost,
                    findings: t.findings,
                    reinforce: t.reinforce,
                    error: t.error.as_deref().map(untrusted::clean_line),
                })
                .collect(),
            added: l.aggregate.added.len(),
            reinforced: l.aggregate.reinforced.len(),
            removed: l.aggregate.removed(),
            escalations: l.escalations.iter().map(record_view).collect(),
            escalation: tick.escalation.as_ref().map(|e| {
                let e = &e.escalation;
                EscalationView {
                    model: match (&e.provider, &e.model) {
                        (Some(p), Some(m)) => Some(untrusted::clean_line(&format!("{p}/{m}"))),
                        _ => None,
                    },
                    decision: e
                        .decision
                        .as_ref()
                        .map(|d| untrusted::clean_line(&d.action)),
                    tokens_in: e.tokens_in,
                    tokens_out: e.tokens_out,
                    cost: e.cost,
                    records: e.records.iter().map(record_view).collect(),
                    errors: e.errors.iter().map(|x| untrusted::clean_line(x)).collect(),
                }
            }),
            cost: tick.cost(),
        }
    }
}
