//! Parsing a calendar's text into its [`Event`]s: unfolding (each logical line capped at
//! [`MAX_LINE_BYTES`]), nesting refused past [`MAX_NESTING`] (the parser recurses), the
//! `VEVENT`s' dates and times (`TZID`s as exporters write them), durations, and
//! `SUMMARY`/`LOCATION` cut to a few hundred characters when read.
//!
//! Must not: expand a recurrence, place a time in the user's zone, or quote the parser's
//! report of the file in an error (only its line number).

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeDelta, Utc};
use chrono_tz::Tz;
use icalendar::parser::{Component, Property};

use super::SUMMARY_CHARS;
use super::error::{CalendarError, EventError, EventName, StampError};
use crate::sources::text::one_line;

/// Components nested deeper than this (VCALENDAR > VEVENT > VALARM is 3) are refused.
pub const MAX_NESTING: usize = 8;
/// A `SUMMARY` or `LOCATION` is kept to this many characters when read (what cleaning
/// may take out, and the `…` of a longer one, still shows).
pub(super) const FIELD_READ_CHARS: usize = 4 * SUMMARY_CHARS;

/// A date or date-time as written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Stamp {
    /// `VALUE=DATE`: an all-day event's day.
    Date(NaiveDate),
    /// No zone: read in the user's zone.
    Floating(NaiveDateTime),
    /// `TZID=…`.
    Zoned(NaiveDateTime, Tz),
    /// `…Z`.
    Utc(DateTime<Utc>),
}

/// One `VEVENT`, its values read.
#[derive(Debug, Clone)]
pub(super) struct Event {
    pub(super) uid: Option<String>,
    pub(super) start: Stamp,
    pub(super) end: Option<Stamp>,
    pub(super) duration: Option<TimeDelta>,
    pub(super) summary: Arc<str>,
    pub(super) location: Arc<str>,
    pub(super) rrule: Option<String>,
    pub(super) rdates: Vec<Stamp>,
    pub(super) exdates: Vec<Stamp>,
    pub(super) recurrence_id: Option<Stamp>,
    pub(super) cancelled: bool,
}

/// The events of a calendar file, and warnings about events that cannot be read.
pub(super) fn parse_calendar(text: &str) -> Result<(Vec<Event>, Vec<String>), CalendarError> {
    parse_unfolded(&unfold_capped(text))
}

/// The longest logical line (a property with its folded continuations) kept when a
/// calendar is unfolded: the rest of a longer one is dropped before parsing, so a 15 MB
/// `SUMMARY` costs the parser nothing.
const MAX_LINE_BYTES: usize = 64 << 10;

/// `text` unfolded (RFC 5545 §3.1: a line break followed by a space or a tab joins the
/// lines; `\r\n` or `\n`), each logical line cut to [`MAX_LINE_BYTES`] on a char
/// boundary, lines ending in `\n`; a leading BOM dropped.
pub(super) fn unfold_capped(text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = String::with_capacity(text.len().min(1 << 20));
    let mut line_start = 0;
    for (i, physical) in text.split('\n').enumerate() {
        let physical = physical.strip_suffix('\r').unwrap_or(physical);
        let part = match physical.strip_prefix([' ', '\t']) {
            Some(rest) if i > 0 => rest,
            _ => {
                if i > 0 {
                    out.push('\n');
                }
                line_start = out.len();
                physical
            }
        };
        let room = MAX_LINE_BYTES.saturating_sub(out.len() - line_start);
        if room > 0 {
            out.push_str(&part[..part.floor_char_boundary(room.min(part.len()))]);
        }
    }
    out
}

/// The events of an unfolded calendar ([`unfold_capped`]).
pub(super) fn parse_unfolded(unfolded: &str) -> Result<(Vec<Event>, Vec<String>), CalendarError> {
    check_nesting(unfolded)?;
    if !unfolded
        .lines()
        .any(|l| l.trim_end().eq_ignore_ascii_case("BEGIN:VCALENDAR"))
    {
        return Err(CalendarError::NotICalendar);
    }
    let calendar = icalendar::parser::read_calendar(unfolded).map_err(|e| {
        // nom's report ("0: at line 4, in Satisfy: …") quotes the file: only its line.
        let line = e.split("at line ").nth(1).and_then(|rest| {
            rest.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse()
                .ok()
        });
        CalendarError::Invalid { line }
    })?;
    let zones = timezone_locations(&calendar.components);
    let mut events = Vec::new();
    let mut warnings = Vec::new();
    for c in &calendar.components {
        if !c.name.as_str().eq_ignore_ascii_case("VEVENT") {
            continue;
        }
        match read_event(c, &zones, &mut warnings) {
            Ok(e) => events.push(e),
            Err(e) => warnings.push(format!("an event skipped: {e}")),
        }
    }
    Ok((events, warnings))
}

/// Refuses components nested deeper than [`MAX_NESTING`]: the parser recurses.
fn check_nesting(text: &str) -> Result<(), CalendarError> {
    let mut depth = 0usize;
    for line in text.lines() {
        let upper = line.get(..6).map(str::to_ascii_uppercase);
        match upper.as_deref() {
            Some("BEGIN:") => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(CalendarError::TooDeep { max: MAX_NESTING });
                }
            }
            Some(s) if s.starts_with("END:") => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// `TZID` → IANA name, from the `X-LIC-LOCATION` of each `VTIMEZONE` (Thunderbird,
/// Google and Apple write it).
fn timezone_locations(components: &[Component<'_>]) -> HashMap<String, String> {
    components
        .iter()
        .filter(|c| c.name.as_str().eq_ignore_ascii_case("VTIMEZONE"))
        .filter_map(|c| {
            let id = prop(c, "TZID")?.val.as_str().to_string();
            let location = prop(c, "X-LIC-LOCATION")?.val.as_str().to_string();
            Some((id, location))
        })
        .collect()
}

fn prop<'c>(c: &'c Component<'_>, name: &str) -> Option<&'c Property<'c>> {
    c.properties
        .iter()
        .find(|p| p.name.as_str().eq_ignore_ascii_case(name))
}

fn props<'c>(c: &'c Component<'_>, name: &'c str) -> impl Iterator<Item = &'c Property<'c>> {
    c.properties
        .iter()
        .filter(move |p| p.name.as_str().eq_ignore_ascii_case(name))
}

fn param<'p>(p: &'p Property<'_>, key: &str) -> Option<&'p str> {
    p.params
        .iter()
        .find(|x| x.key.as_str().eq_ignore_ascii_case(key))
        .and_then(|x| x.val.as_ref())
        .map(|v| v.as_str().trim_matches('"'))
}

fn read_event(
    c: &Component<'_>,
    zones: &HashMap<String, String>,
    warnings: &mut Vec<String>,
) -> Result<Event, EventError> {
    let text = |name: &str| prop(c, name).map(|p| p.val.as_str().to_string());
    // Capped at read (a calendar bomb's title): only so much of a title is ever shown.
    let summary: Arc<str> = capped(&text("SUMMARY").unwrap_or_default(), FIELD_READ_CHARS).into();
    let what = EventName {
        title: Some(&summary)
            .filter(|s| !s.trim().is_empty())
            .map(|s| one_line(s, ' ', 60)),
    };
    let mut stamps = |name: &str| -> Vec<Stamp> {
        let mut out = Vec::new();
        for p in props(c, name) {
            match stamp_list(p, zones) {
                Ok(list) => out.extend(list),
                Err(e) => warnings.push(format!("{what}: {name} ignored: {e}")),
            }
        }
        out
    };
    let exdates = stamps("EXDATE");
    let rdates = stamps("RDATE");
    let one = |name: &'static str| -> Result<Option<Stamp>, EventError> {
        prop(c, name)
            .map(|p| {
                stamp_list(p, zones)?
                    .into_iter()
                    .next()
                    .ok_or(StampError::Empty)
            })
            .transpose()
            .map_err(|source| EventError::Stamp {
                event: what.clone(),
                property: name,
                source,
            })
    };
    let start = one("DTSTART")?.ok_or_else(|| EventError::NoStart {
        event: what.clone(),
    })?;
    let end = one("DTEND")?;
    let recurrence_id = one("RECURRENCE-ID")?;
    let duration = match text("DURATION") {
        None => None,
        Some(d) => Some(parse_duration(&d).ok_or_else(|| EventError::Duration {
            event: what.clone(),
            value: d.clone(),
        })?),
    };
    for p in props(c, "DTSTART").chain(props(c, "DTEND")) {
        if let Some(id) = param(p, "TZID")
            && zone_named(id, zones).is_none()
        {
            warnings.push(format!(
                "{what}: time zone `{}` is unknown: read in the user's zone",
                one_line(id, ' ', 60)
            ));
        }
    }
    Ok(Event {
        uid: text("UID"),
        start,
        end,
        duration,
        location: capped(&text("LOCATION").unwrap_or_default(), FIELD_READ_CHARS).into(),
        rrule: text("RRULE"),
        rdates,
        exdates,
        recurrence_id,
        cancelled: text("STATUS").is_some_and(|s| s.trim().eq_ignore_ascii_case("CANCELLED")),
        summary,
    })
}

/// The IANA zone a `TZID` names: itself, its `VTIMEZONE`'s `X-LIC-LOCATION`, or the
/// tail of a Thunderbird id (`/mozilla.org/20050126_1/Europe/Berlin`).
fn zone_named(id: &str, zones: &HashMap<String, String>) -> Option<Tz> {
    let id = id.trim();
    if let Ok(tz) = id.parse::<Tz>() {
        return Some(tz);
    }
    if let Some(tz) = zones.get(id).and_then(|l| l.trim().parse::<Tz>().ok()) {
        return Some(tz);
    }
    let parts: Vec<&str> = id.split('/').filter(|p| !p.is_empty()).collect();
    (1..=parts.len().min(3))
        .rev()
        .find_map(|n| parts[parts.len() - n..].join("/").parse::<Tz>().ok())
}

/// The values of a date or date-time property (`EXDATE` and `RDATE` may list several).
fn stamp_list(p: &Property<'_>, zones: &HashMap<String, String>) -> Result<Vec<Stamp>, StampError> {
    let date = param(p, "VALUE").is_some_and(|v| v.eq_ignore_ascii_case("DATE"));
    let zone = param(p, "TZID").and_then(|id| zone_named(id, zones));
    p.val
        .as_str()
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        // An RDATE period (`start/end`) counts by its start.
        .map(|v| v.split('/').next().unwrap_or(v))
        .map(|v| parse_stamp(v, date, zone).ok_or_else(|| StampError::NotATime { value: v.into() }))
        .collect()
}

pub(super) fn parse_stamp(value: &str, date: bool, zone: Option<Tz>) -> Option<Stamp> {
    if date || value.len() == 8 {
        return NaiveDate::parse_from_str(value.get(..8)?, "%Y%m%d")
            .ok()
            .map(Stamp::Date);
    }
    let (value, utc) = match value.strip_suffix(['Z', 'z']) {
        Some(v) => (v, true),
        None => (value, false),
    };
    let naive = NaiveDateTime::parse_from_str(value, "%Y%m%dT%H%M%S").ok()?;
    Some(match (utc, zone) {
        (true, _) => Stamp::Utc(naive.and_utc()),
        (false, Some(tz)) => Stamp::Zoned(naive, tz),
        (false, None) => Stamp::Floating(naive),
    })
}

/// The longest `DURATION` read: a century.
const MAX_DURATION_SECONDS: i64 = 100 * 366 * 86_400;

/// An iCalendar duration: `[+-]P[nW][nD][T[nH][nM][nS]]`, at most a century.
pub(super) fn parse_duration(text: &str) -> Option<TimeDelta> {
    let text = text.trim();
    let (negative, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let rest = rest.strip_prefix(['P', 'p'])?;
    let mut seconds: i64 = 0;
    let mut number: Option<i64> = None;
    let mut in_time = false;
    let mut any = false;
    for c in rest.chars() {
        match c.to_ascii_uppercase() {
            d @ '0'..='9' => {
                let digit = i64::from(d.to_digit(10)?);
                number = Some(number.unwrap_or(0).checked_mul(10)?.checked_add(digit)?);
            }
            'T' if !in_time && number.is_none() => in_time = true,
            unit => {
                let n = number.take()?;
                let scale = match (unit, in_time) {
                    ('W', false) => 604_800,
                    ('D', false) => 86_400,
                    ('H', true) => 3600,
                    ('M', true) => 60,
                    ('S', true) => 1,
                    _ => return None,
                };
                seconds = seconds.checked_add(n.checked_mul(scale)?)?;
                any = true;
            }
        }
    }
    // Past a century it is no event's length (and sums with it could overflow).
    if number.is_some() || !any || seconds > MAX_DURATION_SECONDS {
        return None;
    }
    TimeDelta::try_seconds(if negative { -seconds } else { seconds })
}

/// `text` cut to at most `max` characters.
fn capped(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => text[..at].to_string(),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::clock::Zone;
    use crate::sources::ics::Window;
    use crate::sources::ics::expand::{SOURCE_WORK, expand_all};
    use crate::sources::ics::testing::{inline, now, vevent};

    #[test]
    fn unfolding_joins_continuations_and_caps_long_lines() {
        assert_eq!(
            unfold_capped("\u{feff}A:1\r\nB:hello \r\n world\r\n\tagain\nC:3"),
            "A:1\nB:hello worldagain\nC:3"
        );
        assert_eq!(
            unfold_capped(" x\n"),
            " x\n",
            "a first line is not a continuation"
        );
        let long = format!("S:{}\n c\nE:1", "é".repeat(MAX_LINE_BYTES));
        let out = unfold_capped(&long);
        let first = out.lines().next().unwrap();
        assert!(
            first.len() <= MAX_LINE_BYTES && first.starts_with("S:é"),
            "{}",
            first.len()
        );
        assert!(out.ends_with("\nE:1"));
        // The same as the parser's own unfolding where no line is long.
        for text in [
            "1 hello world\r\n2 hello \r\n   world\r\n3 hello \r\n world\r\n4 hello world",
            "a\n b\n\tc\nd",
        ] {
            assert_eq!(
                unfold_capped(text),
                icalendar::parser::unfold(text).replace("\r\n", "\n")
            );
        }
    }

    #[test]
    fn tzids_are_found_the_ways_exporters_write_them() {
        let zones = HashMap::from([("Custom Berlin".to_string(), "Europe/Berlin".to_string())]);
        for (id, zone) in [
            ("America/New_York", Some(Tz::America__New_York)),
            ("\"Europe/Berlin\"", None),
            (
                "/mozilla.org/20050126_1/Europe/Berlin",
                Some(Tz::Europe__Berlin),
            ),
            (
                "/freeassociation.sourceforge.net/Tzfile/America/Argentina/Buenos_Aires",
                Some(Tz::America__Argentina__Buenos_Aires),
            ),
            ("Custom Berlin", Some(Tz::Europe__Berlin)),
            ("W. Europe Standard Time", None),
        ] {
            assert_eq!(zone_named(id, &zones), zone, "{id}");
        }
        // An unknown TZID is read in the user's zone, with a warning.
        let (lines, warnings) = inline(&vevent(
            "outlook",
            "DTSTART;TZID=W. Europe Standard Time:20261122T120000",
        ));
        assert_eq!(lines, ["- Sun 22 Nov 12:00 (in 1 h 55 min): outlook"]);
        assert!(
            warnings[0].contains("time zone `W. Europe Standard Time` is unknown"),
            "{warnings:?}"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Any bytes are a calendar or an error, never a panic.
        #[test]
        fn any_text_parses_or_is_refused(
            text in "(BEGIN:VCALENDAR\n|BEGIN:VEVENT\n|END:VEVENT\n|DTSTART:2026112[0-9]T1[0-9]0000Z?\n|RRULE:FREQ=DAILY\n|SUMMARY:[a-z;:,]{0,8}\n| [a-z]{0,3}\n|END:VCALENDAR\n|[A-Z;=:]{0,6}\n){0,12}",
        ) {
            if let Ok((events, mut warnings)) = parse_calendar(&text) {
                let mut budget = SOURCE_WORK;
                let _ = expand_all(&events, Window::ahead(now(), 24), Zone::UTC, 5, &mut budget, &mut warnings);
            }
        }
    }
}
