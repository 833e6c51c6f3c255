//! What the tests of the `ics` modules share: the fixtures' paths, the fixed now, zones,
//! and the lines of a calendar's events (from files, or from inline `VEVENT`s).

use std::collections::HashMap;

use chrono::{DateTime, FixedOffset, Utc};

use super::error::CalendarError;
use super::parse::{self, Event};
use super::reading::Want;
use super::render::render;
use super::stream::pieces;
use super::{DEFAULT_ICS_MAX_BYTES, IcsSettings, calendar_text, text_occurrences};
use crate::clock::Zone;
use crate::timestamp;

pub(super) fn fixture(rel: &str) -> String {
    format!("{}/tests/fixtures/ics/{rel}", env!("CARGO_MANIFEST_DIR"))
}

pub(super) fn settings(paths: &[&str], hours: u32, max_events: usize) -> IcsSettings {
    IcsSettings {
        paths: paths.iter().map(|p| fixture(p)).collect(),
        hours: Some(hours),
        max_events,
        max_bytes: DEFAULT_ICS_MAX_BYTES,
    }
}

pub(super) fn t(text: &str) -> DateTime<Utc> {
    timestamp::parse(text).unwrap()
}

pub(super) fn now() -> DateTime<Utc> {
    t("2026-11-22T10:05:00Z")
}

pub(super) fn east(hours: i32) -> Zone {
    Zone::Fixed(FixedOffset::east_opt(hours * 3600).unwrap())
}

/// The event lines (header left out) of these fixtures, each without its `[e…]` label
/// (the labels have tests of their own in `render`).
pub(super) fn events(paths: &[&str], hours: u32, zone: Zone) -> Vec<String> {
    let text = calendar_text(&settings(paths, hours, 50), now(), zone)
        .unwrap()
        .text;
    text.lines().skip(1).map(unlabelled).collect()
}

/// An event line without its `[e…]` label: `- [e4mh3w] Sun…` is `- Sun…`.
pub(super) fn unlabelled(line: &str) -> String {
    match line.strip_prefix("- [") {
        Some(rest) if rest.starts_with('e') && rest.find("] ") == Some(6) => {
            format!("- {}", &rest[8..])
        }
        _ => line.to_string(),
    }
}

/// The `[e…]` label of an event line.
pub(super) fn label_of(line: &str) -> &str {
    line.get(2..10).unwrap_or_default()
}

/// The lines of an inline calendar's events in the 24 h window, in UTC (read as a file
/// is).
pub(super) fn inline(events: &str) -> (Vec<String>, Vec<String>) {
    let text = format!("BEGIN:VCALENDAR\nVERSION:2.0\n{events}\nEND:VCALENDAR\n");
    let want = Want {
        hours: 24,
        max_events: 50,
    };
    let (window, kept, warnings) = text_occurrences(&text, want, now(), Zone::UTC).unwrap();
    let more = kept.found.saturating_sub(50);
    let text = render(kept.occurrences, window, Zone::UTC, 50, more);
    (text.lines().skip(1).map(unlabelled).collect(), warnings)
}

/// Like [`inline`], with the labels left on.
pub(super) fn inline_labelled(events: &str) -> Vec<String> {
    let text = format!("BEGIN:VCALENDAR\nVERSION:2.0\n{events}\nEND:VCALENDAR\n");
    let want = Want {
        hours: 24,
        max_events: 50,
    };
    let (window, kept, _) = text_occurrences(&text, want, now(), Zone::UTC).unwrap();
    let text = render(kept.occurrences, window, Zone::UTC, 50, 0);
    text.lines().skip(1).map(str::to_string).collect()
}

/// Every event of a calendar's text, overrides too, as read (with its time zones), and
/// the warnings.
pub(super) fn parse_calendar(text: &str) -> Result<(Vec<Event>, Vec<String>), CalendarError> {
    let mut zones = HashMap::new();
    let mut events = Vec::new();
    pieces(text.as_bytes(), |p| match p.name {
        "VTIMEZONE" => zones.extend(parse::timezone(p.text, p.line)),
        "VEVENT" if !p.oversized => events.push((p.text.to_string(), p.line)),
        _ => {}
    })?;
    let mut warnings = Vec::new();
    let events = events
        .iter()
        .filter_map(|(text, line)| parse::event(text, *line, &zones, &mut warnings))
        .collect();
    Ok((events, warnings))
}

pub(super) fn vevent(summary: &str, lines: &str) -> String {
    format!("BEGIN:VEVENT\nUID:{summary}\nSUMMARY:{summary}\n{lines}\nEND:VEVENT")
}
