//! `thinker show`: the subconscious rendered for a person — categories with strength
//! bars, ages, due dates, thread state and escalation history.
//!
//! Pure rendering: state, `now` and a colour switch in, text out. Text that came from
//! models or mail is shown with control characters removed, so a hostile summary cannot
//! drive the terminal.

use std::fmt::Write;

use chrono::{DateTime, Local, TimeDelta, Utc};

use crate::aggregate::Caps;
use crate::state::{Category, Entry, MAX_PRESSURE, MAX_STRENGTH, State};
use crate::thread::ThreadName;

const RESET: &str = "\x1b[0m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const GREEN: &str = "\x1b[32m";
const YELLOW: &str = "\x1b[33m";
const RED: &str = "\x1b[31m";

/// Replaces control characters (escape sequences, newlines) with spaces.
pub fn clean(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// "just now", "12 min ago", "3 h ago", "2 days ago" (or "in …" for the future).
pub fn age(t: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let d = now - t;
    if d < TimeDelta::zero() {
        return format!("in {}", span(-d));
    }
    if d < TimeDelta::minutes(1) {
        return "just now".into();
    }
    format!("{} ago", span(d))
}

/// A duration for people: "45 s", "12 min", "3 h", "2 days".
pub fn span(d: TimeDelta) -> String {
    let s = d.num_seconds();
    match s {
        ..60 => format!("{s} s"),
        60..3600 => format!("{} min", s / 60),
        3600..172_800 => format!("{} h", s / 3600),
        _ => format!("{} days", s / 86_400),
    }
}

/// A local wall-clock time: `Tue 24 Nov 09:00`.
pub fn local(t: DateTime<Utc>) -> String {
    t.with_timezone(&Local).format("%a %d %b %H:%M").to_string()
}

struct Painter {
    color: bool,
}

impl Painter {
    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("{code}{text}{RESET}")
        } else {
            text.to_string()
        }
    }

    fn bar(&self, value: u8, max: u8) -> String {
        let filled = "█".repeat(usize::from(value.min(max)));
        let empty = "░".repeat(usize::from(max.saturating_sub(value)));
        let code = match value {
            7.. => GREEN,
            4..=6 => YELLOW,
            _ => DIM,
        };
        format!("{}{}", self.paint(code, &filled), self.paint(DIM, &empty))
    }
}

fn due_text(due: DateTime<Utc>, now: DateTime<Utc>) -> String {
    if due < now {
        format!("overdue by {} ({})", span(now - due), local(due))
    } else {
        format!("due in {} ({})", span(due - now), local(due))
    }
}

fn entry_lines(out: &mut String, p: &Painter, e: &Entry, now: DateTime<Utc>) {
    let _ = writeln!(
        out,
        "  {} {:>2}  {}",
        p.bar(e.strength, MAX_STRENGTH),
        e.strength,
        clean(&e.summary)
    );
    let mut meta = vec![clean(&e.id)];
    if let Some(src) = &e.source {
        meta.push(clean(src));
    }
    meta.push(format!("seen {}", age(e.last_seen, now)));
    meta.push(format!("added {}", age(e.created, now)));
    let mut line = meta.join(" · ");
    if let Some(due) = e.due {
        let text = due_text(due, now);
        let code = if due < now { RED } else { YELLOW };
        let _ = write!(line, " · {}", p.paint(code, &text));
    }
    let _ = writeln!(out, "                 {}", p.paint(DIM, &line));
}

/// Renders the subconscious for a person.
pub fn render(state: &State, caps: &Caps, now: DateTime<Utc>, color: bool) -> String {
    let p = Painter { color };
    let mut out = String::new();
    let last = state.last_tick.map_or_else(
        || "no tick yet".to_string(),
        |t| format!("last tick {} ({})", age(t, now), local(t)),
    );
    let _ = writeln!(
        out,
        "{} — tick {}, {last}",
        p.paint(BOLD, "Subconscious"),
        state.tick_count
    );

    for cat in Category::ALL {
        let entries = state.entries(cat);
        let _ = writeln!(
            out,
            "\n{} ({}/{})",
            p.paint(BOLD, cat.title()),
            entries.len(),
            caps.of(cat)
        );
        if entries.is_empty() {
            let _ = writeln!(out, "  {}", p.paint(DIM, "(none)"));
        }
        let mut sorted: Vec<&Entry> = entries.iter().collect();
        sorted.sort_by(|a, b| {
            b.strength
                .cmp(&a.strength)
                .then(b.last_seen.cmp(&a.last_seen))
        });
        for e in sorted {
            entry_lines(&mut out, &p, e, now);
        }
    }

    let _ = writeln!(out, "\n{}", p.paint(BOLD, "Threads"));
    for thread in ThreadName::ALL {
        let ts = state.thread_state.get(thread);
        let _ = writeln!(
            out,
            "  {:<10} pressure {} {}",
            thread.as_str(),
            p.bar(ts.novelty_pressure, MAX_PRESSURE),
            ts.novelty_pressure
        );
        if !ts.focus_hint.is_empty() {
            let _ = writeln!(out, "             focus: {}", clean(&ts.focus_hint));
        }
        if !ts.last_findings.is_empty() {
            let last = ts
                .last_findings
                .iter()
                .map(|s| clean(s))
                .collect::<Vec<_>>()
                .join(" · ");
            let _ = writeln!(out, "             last:  {last}");
        }
    }

    let _ = writeln!(out, "\n{}", p.paint(BOLD, "Escalations"));
    if state.escalation_history.is_empty() {
        let _ = writeln!(out, "  {}", p.paint(DIM, "(none)"));
    }
    for r in state.escalation_history.iter().rev() {
        let outcome = clean(&r.outcome);
        let code = if outcome.starts_with("suppressed") {
            DIM
        } else {
            YELLOW
        };
        let _ = writeln!(
            out,
            "  {}  {:<9} {}  {}",
            local(r.timestamp),
            clean(&r.thread),
            p.paint(code, &outcome),
            clean(&r.reason)
        );
    }
    out
}
