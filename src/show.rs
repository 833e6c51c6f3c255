//! `thinker show`: the subconscious rendered for a person — categories with strength
//! bars, ages, due dates, thread state and escalation history.
//!
//! Pure rendering: state, the clock (`now` and the time zone) and a colour switch in,
//! text out. Text that came from
//! models or mail is shown cleaned ([`clean`]: no escape sequences, control, bidi or
//! zero-width characters), so a hostile summary cannot drive the terminal or hide or
//! reorder what is printed — even from a state file an older version wrote.

use std::fmt::Write;

use chrono::{DateTime, Utc};

use crate::aggregate::Caps;
use crate::clock::{Clock, age, span};
use crate::state::{Category, Entry, MAX_PRESSURE, State};
use crate::thread::ThreadName;
use crate::untrusted;

use crate::paint::{BOLD, DIM, GREEN, Painter, RED, YELLOW};

/// Text from a state file made safe to print on one line: escape sequences removed
/// whole, line breaks and tabs as spaces, other control characters (C0, C1), bidi and
/// zero-width characters removed ([`untrusted::clean_line`]).
pub fn clean(text: &str) -> String {
    untrusted::clean_line(text)
}

/// A strength or pressure as a bar: filled in green (7+), yellow (4–6) or dim.
fn bar(p: Painter, value: u8, max: u8) -> String {
    let filled = "█".repeat(usize::from(value.min(max)));
    let empty = "░".repeat(usize::from(max.saturating_sub(value)));
    let code = match value {
        7.. => GREEN,
        4..=6 => YELLOW,
        _ => DIM,
    };
    format!("{}{}", p.paint(code, &filled), p.paint(DIM, &empty))
}

fn due_text(due: DateTime<Utc>, clock: &Clock) -> String {
    let now = clock.now;
    if due < now {
        format!("overdue by {} ({})", span(now - due), clock.wall(due))
    } else {
        format!("due in {} ({})", span(due - now), clock.wall(due))
    }
}

fn entry_lines(out: &mut String, p: Painter, e: &Entry, clock: &Clock) {
    let now = clock.now;
    let _ = writeln!(
        out,
        "  {} {:>2}  {}",
        bar(p, e.strength.rounded(), 10),
        e.strength.rounded(),
        clean(&e.summary)
    );
    let mut meta = vec![clean(&e.id)];
    if e.from.is_empty() {
        if let Some(src) = &e.source {
            meta.push(clean(src));
        }
    } else {
        meta.push(clean(&e.from.join(", ")));
    }
    meta.push(format!("importance {}", e.importance));
    if e.sightings > 1 {
        meta.push(format!("seen in {} ticks", e.sightings));
    }
    if e.tainted {
        meta.push("from untrusted text".to_string());
    }
    for link in &e.links {
        meta.push(format!("{} [{}]", link.kind.as_str(), clean(&link.id)));
    }
    meta.push(format!("seen {}", age(e.last_seen, now)));
    meta.push(format!("added {}", age(e.created, now)));
    let mut line = meta.join(" · ");
    if let Some(due) = e.due {
        let text = due_text(due, clock);
        let code = if due < now { RED } else { YELLOW };
        let _ = write!(line, " · {}", p.paint(code, &text));
    }
    let _ = writeln!(out, "                 {}", p.paint(DIM, &line));
}

/// Renders the subconscious for a person: ages against the clock's `now`, wall-clock
/// times in its zone.
pub fn render(state: &State, caps: &Caps, clock: &Clock, color: bool) -> String {
    let now = clock.now;
    let p = Painter { color };
    let mut out = String::new();
    let last = state.last_tick.map_or_else(
        || "no tick yet".to_string(),
        |t| format!("last tick {} ({})", age(t, now), clock.wall(t)),
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
            entry_lines(&mut out, p, e, clock);
        }
    }

    let _ = writeln!(out, "\n{}", p.paint(BOLD, "Threads"));
    for thread in ThreadName::ALL {
        let ts = state.thread_state.get(thread);
        let _ = writeln!(
            out,
            "  {:<10} pressure {} {}",
            thread.as_str(),
            bar(p, ts.novelty_pressure, MAX_PRESSURE),
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
        let mut outcome = clean(&r.outcome.to_string());
        if r.delivery == Some(crate::state::Delivery::Unconfirmed) {
            outcome.push_str(" (unconfirmed: the tick was interrupted while it ran)");
        } else if r.delivery == Some(crate::state::Delivery::Started) {
            outcome.push_str(" (under way)");
        }
        let code = if outcome.starts_with("suppressed") {
            DIM
        } else {
            YELLOW
        };
        let _ = writeln!(
            out,
            "  {}  {:<9} {}  {}",
            clock.wall(r.timestamp),
            clean(&r.thread),
            p.paint(code, &outcome),
            clean(&r.reason)
        );
        if let Some(why) = r
            .decision
            .as_ref()
            .map(|d| clean(d.why.trim()))
            .filter(|w| !w.is_empty() && !outcome.contains(w.as_str()))
        {
            let _ = writeln!(out, "             {}", p.paint(DIM, &format!("why: {why}")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dirty_state_prints_no_control_bidi_or_zero_width_character() {
        let now = crate::timestamp::parse("2026-11-22T10:05:00Z").unwrap();
        let dirty = "pay\u{202e}exe.txt \x1b[31mred\x1b[0m \u{9b}2J\u{85}z\u{200b}w\u{2066}\nnext";
        let mut state = State::default();
        let mut entry = Entry::new(
            format!("p-{dirty}"),
            dirty.into(),
            crate::state::Strength::whole(3),
            5,
            now,
        );
        entry.source = Some(dirty.into());
        state.patterns.push(entry);
        state.thread_state.watcher.focus_hint = dirty.into();
        state.thread_state.watcher.last_findings = vec![dirty.into()];
        state
            .escalation_history
            .push(crate::state::EscalationRecord::raised(
                now,
                dirty,
                dirty,
                dirty.into(),
            ));
        let text = render(&state, &Caps::default(), &Clock::utc(now), false);
        let bad: Vec<char> = text
            .chars()
            .filter(|&c| (c.is_control() && c != '\n') || untrusted::is_invisible(c))
            .collect();
        assert!(bad.is_empty(), "{bad:?} in\n{text}");
        assert!(!text.contains("[31m") && !text.contains("2J"), "{text}");
        assert!(text.contains("payexe.txt red  zw next"), "{text}");
    }
}
