//! What the tests of the `ics` modules share: the fixtures' paths, the fixed now, zones,
//! and the lines of a calendar's events (from files, or from inline `VEVENT`s).

use chrono::{DateTime, FixedOffset, Utc};

use super::expand::{SOURCE_WORK, expand_all};
use super::parse::parse_calendar;
use super::render::render;
use super::{DEFAULT_ICS_MAX_BYTES, IcsSettings, Window, calendar_text};
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

/// The event lines (header left out) of these fixtures.
pub(super) fn events(paths: &[&str], hours: u32, zone: Zone) -> Vec<String> {
    let text = calendar_text(&settings(paths, hours, 50), now(), zone)
        .unwrap()
        .text;
    text.lines().skip(1).map(str::to_string).collect()
}

/// The lines of an inline calendar's events in the 24 h window, in UTC.
pub(super) fn inline(events: &str) -> (Vec<String>, Vec<String>) {
    let text = format!("BEGIN:VCALENDAR\nVERSION:2.0\n{events}\nEND:VCALENDAR\n");
    let (parsed, mut warnings) = parse_calendar(&text).unwrap();
    let mut budget = SOURCE_WORK;
    let window = Window::ahead(now(), 24);
    let found = expand_all(&parsed, window, Zone::UTC, 50, &mut budget, &mut warnings);
    let more = found.len().saturating_sub(50);
    let text = render(found, window, Zone::UTC, 50, more);
    (text.lines().skip(1).map(str::to_string).collect(), warnings)
}

pub(super) fn vevent(summary: &str, lines: &str) -> String {
    format!("BEGIN:VEVENT\nUID:{summary}\nSUMMARY:{summary}\n{lines}\nEND:VEVENT")
}
