//! The readable account of a tick: what each thread did (a failed one: every model it
//! tried, in order, each with its error; an answer from a fallback: why the models before
//! it did not answer) and what the aggregator changed
//! (added, reinforced, weakened (shown as "Decayed"), removed, pressure and hints,
//! escalations raised, and what the escalation phase did or, in a dry run, the prompt it
//! would send). Printed by
//! `thinker tick --dry-run` ("would …") and by `thinker tick -v`. Pure rendering.

use std::fmt::Write;

use crate::aggregate::{RemovalReason, Report};
use crate::journal::{Status, ThreadRecord};
use crate::show::clean;
use crate::state::EscalationOutcome;
use crate::tick::{TickReport, attempt_error};
use crate::timestamp;

/// Renders `tick` for a person; `dry_run` phrases changes as what would happen.
pub fn render(tick: &TickReport) -> String {
    let dry = tick.dry_run;
    let mut out = String::new();
    let j = &tick.journal;
    let _ = writeln!(
        out,
        "{} at {} (run {}){}",
        if dry { "Dry run" } else { "Tick" },
        timestamp::format(j.time),
        j.run,
        if dry {
            ": nothing was written, no escalation was sent"
        } else {
            ""
        }
    );
    threads(&mut out, &j.threads);
    let r = &tick.report;
    if r.applied {
        changes(&mut out, r, dry);
        thread_state(&mut out, r);
        escalations(&mut out, r, dry);
    } else {
        let _ = writeln!(
            out,
            "\nNo thread answered: the subconscious {} unchanged (no decay, no tick count).",
            if dry { "would stay" } else { "stays" }
        );
    }
    escalation_work(&mut out, tick);
    out
}

/// What the escalation phase did (a tick), or the prompt it would send (a dry run).
fn escalation_work(out: &mut String, tick: &TickReport) {
    if let Some(prompt) = &tick.escalation_prompt {
        let _ = writeln!(
            out,
            "\nEscalation prompt (would be sent to the primary model; nothing was called)\n{}",
            prompt.trim_end()
        );
    }
    let Some(line) = &tick.escalation else {
        return;
    };
    let w = &line.escalation;
    let _ = writeln!(out, "\nEscalation work");
    if let (Some(provider), Some(model)) = (&w.provider, &w.model) {
        let _ = writeln!(
            out,
            "  call       {provider}/{model}  {:.1} s  {}+{} tokens  ${:.4}",
            w.latency_ms.unwrap_or(0) as f64 / 1000.0,
            w.tokens_in,
            w.tokens_out,
            w.cost
        );
    }
    if let Some(d) = &w.decision {
        let _ = writeln!(
            out,
            "  decided    {}: {} (why: {})",
            clean(&d.action),
            clean(&d.text),
            clean(&d.why)
        );
    }
    for e in &w.errors {
        let _ = writeln!(out, "  error      {}", clean(e));
    }
    for r in &w.records {
        let _ = writeln!(
            out,
            "  ! {}: {} → {}",
            clean(&r.thread),
            clean(&r.reason),
            clean(&r.outcome.to_string())
        );
    }
}

/// A heading: "Would add" in a dry run, "Added" after a real tick.
fn heading(dry: bool, verb: &str, done: &str) -> String {
    if dry {
        format!("Would {verb}")
    } else {
        done.to_string()
    }
}

/// What each thread did, and its failed sources.
fn threads(out: &mut String, threads: &[ThreadRecord]) {
    let _ = writeln!(out, "\nThreads");
    for t in threads {
        let line = match t.status {
            Status::Skipped => format!(
                "skipped    {}",
                t.skip
                    .as_ref()
                    .map_or_else(String::new, ToString::to_string)
            ),
            Status::Failed => format!("failed     {}", failure(t)),
            Status::Answered => format!(
                "answered   {}/{}  {:.1} s  {}+{} tokens  ${:.4}  {} findings, {} reinforced",
                t.provider.as_deref().unwrap_or("?"),
                t.model.as_deref().unwrap_or("?"),
                t.latency_ms as f64 / 1000.0,
                t.tokens_in,
                t.tokens_out,
                t.cost,
                t.findings,
                t.reinforce
            ),
            Status::Unknown(ref word) => clean(word),
        };
        let _ = writeln!(out, "  {:<10} {line}", t.thread.as_str());
        if t.status == Status::Answered {
            // A fallback answered: what the models before it said (a missing key on
            // the primary model must not go unnoticed).
            for a in &t.attempts {
                if let Some(e) = &a.error {
                    let _ = writeln!(out, "{:24}after {}", "", clean(&attempt_error(&a.model, e)));
                }
            }
        }
        for s in t.sources.iter().filter(|s| s.error.is_some()) {
            let _ = writeln!(
                out,
                "             source {} failed: {}",
                clean(&s.name),
                clean(s.error.as_deref().unwrap_or(""))
            );
        }
    }
}

/// Why a thread failed: with more than one model tried, each model's error in the order
/// they were tried, one a line (`→` before each fallback), so the first cause is not
/// hidden behind the last fallback's; else its error.
fn failure(t: &ThreadRecord) -> String {
    let tried: Vec<String> = t
        .attempts
        .iter()
        .filter_map(|a| Some(clean(&attempt_error(&a.model, a.error.as_deref()?))))
        .collect();
    if tried.len() < 2 {
        return clean(t.error.as_deref().unwrap_or("unknown error"));
    }
    tried.join(&format!("\n{:24}→ ", ""))
}

/// Added, reinforced, decayed, archived entries, and reinforcements of unknown ids.
fn changes(out: &mut String, r: &Report, dry: bool) {
    if !r.added.is_empty() {
        let _ = writeln!(out, "\n{}", heading(dry, "add", "Added"));
        for a in &r.added {
            let _ = writeln!(
                out,
                "  + {} ({}, from {} {}, importance {}): {}",
                a.id,
                a.category,
                a.thread,
                a.kind,
                a.importance,
                clean(&a.summary)
            );
        }
    }
    if !r.reinforced.is_empty() {
        let _ = writeln!(out, "\n{}", heading(dry, "reinforce", "Reinforced"));
        for c in &r.reinforced {
            let _ = writeln!(out, "  ↑ {} {} → {}", c.id, c.from, c.to);
        }
    }
    if !r.weakened.is_empty() {
        let _ = writeln!(out, "\n{}", heading(dry, "decay", "Decayed"));
        for c in &r.weakened {
            let _ = writeln!(out, "  ↓ {} {} → {}", c.id, c.from, c.to);
        }
    }
    if !r.removed.is_empty() {
        let _ = writeln!(out, "\n{}", heading(dry, "archive", "Archived"));
        for a in &r.removed {
            let why = match a.reason {
                RemovalReason::Decayed => "decayed to 0",
                RemovalReason::Pruned => "over the category cap",
                RemovalReason::Budget => "over the size budget",
                RemovalReason::Rejected => "rejected by the agent",
                RemovalReason::Retired(_) => "retired by a thread",
                RemovalReason::Merged => "merged into one fact with another",
            };
            let _ = writeln!(
                out,
                "  − {} ({why}): {}",
                a.entry.id,
                clean(&a.entry.summary)
            );
        }
    }
    for u in &r.unknown_reinforce {
        let _ = writeln!(
            out,
            "\n  ({} asked to reinforce {}, which does not exist)",
            u.thread,
            clean(&u.id)
        );
    }
}

/// Each thread's novelty pressure and focus hint after the tick.
fn thread_state(out: &mut String, r: &Report) {
    let _ = writeln!(out, "\nThread state");
    for t in &r.threads {
        let pressure = if t.pressure_from == t.pressure_to {
            format!("pressure {}", t.pressure_to)
        } else {
            format!("pressure {} → {}", t.pressure_from, t.pressure_to)
        };
        let hint = if t.focus_hint.is_empty() {
            String::new()
        } else {
            format!(", hint: {}", clean(&t.focus_hint))
        };
        let _ = writeln!(out, "  {:<10} {pressure}{hint}", t.thread.as_str());
    }
}

/// The escalations recorded (or suppressed) this tick.
fn escalations(out: &mut String, r: &Report, dry: bool) {
    if r.escalations.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n{}",
        heading(dry, "record escalations", "Escalations")
    );
    for e in &r.escalations {
        let outcome = e.outcome.to_string();
        let note = if e.outcome == EscalationOutcome::Pending {
            if dry { "would be escalated" } else { "raised" }
        } else {
            outcome.as_str()
        };
        let _ = writeln!(
            out,
            "  ! {}: {} ({note})",
            clean(&e.thread),
            clean(&e.reason)
        );
    }
}
