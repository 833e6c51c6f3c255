//! Parsing one component of a calendar (a piece: `super::stream`) into an [`Event`] or a
//! time zone's name: the `VEVENT`s' dates and times (`TZID`s as exporters write them),
//! durations, and `SUMMARY`/`LOCATION` cut to a few hundred characters when read.
//!
//! Must not: read a file, expand a recurrence, place a time in the user's zone, or quote
//! the parser's report of the text in an error (only its line number).

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, NaiveDateTime, TimeDelta, Utc};
use chrono_tz::Tz;
use icalendar::parser::{Component, Property};

use super::SUMMARY_CHARS;
use super::error::{EventError, EventName, StampError};
use crate::sources::text::one_line;

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

/// A piece's component ([`super::stream::Piece`]: its text, whose lines end in `\r\n`),
/// parsed; else the line of the file where the parser stopped (`first_line`: the piece's
/// first). Read with the parser's plain errors (its verbose ones allocate at every
/// alternative it tries, on every property), whose place gives the line; never the
/// parser's quote of the text.
pub(super) fn component(text: &str, first_line: u64) -> Result<Component<'_>, u64> {
    let mut roots = icalendar::parser::read_calendar_simple(text).map_err(|e| {
        let at = text.len().saturating_sub(e.input.len());
        let lines = text.get(..at).map_or(0, |t| t.matches('\n').count());
        first_line + lines as u64
    })?;
    if roots.is_empty() {
        return Err(first_line);
    }
    Ok(roots.swap_remove(0))
}

/// The event of a `VEVENT` piece (`text` from line `first_line` of the file), read with
/// the calendar's `zones`; `None` when it cannot be, with the warning why.
pub(super) fn event(
    text: &str,
    first_line: u64,
    zones: &HashMap<String, String>,
    warnings: &mut Vec<String>,
) -> Option<Event> {
    match component(text, first_line) {
        Ok(c) => match read_event(&c, zones, warnings) {
            Ok(e) => Some(e),
            Err(e) => {
                warnings.push(format!("an event skipped: {e}"));
                None
            }
        },
        Err(line) => {
            warnings.push(format!(
                "an event skipped: {}",
                EventError::Invalid { line }
            ));
            None
        }
    }
}

/// Whether a `VEVENT` piece's one occurrence surely ended days before `day`, read from
/// its text without the parser: it has no `RRULE` or `RDATE` of its own, and its
/// `DTSTART` — with its `DTEND` or `DURATION`, else a day — ends more than two days
/// before `day` by the date's digits alone (two days cover any zone and an all-day
/// event's last day). Such an event cannot be listed, so it need not be parsed: a
/// calendar's past costs a scan of its lines. When in doubt (a value that does not read,
/// a recurrence), false.
pub(super) fn ended_before(text: &str, day: NaiveDate) -> bool {
    let mut depth = 0usize;
    let (mut start, mut end) = (None, None);
    let mut length = TimeDelta::days(1);
    for line in text.split("\r\n") {
        let name_end = line.find([';', ':']).unwrap_or(line.len());
        let name = &line[..name_end];
        if name.eq_ignore_ascii_case("BEGIN") {
            depth += 1;
            continue;
        }
        if name.eq_ignore_ascii_case("END") {
            depth = depth.saturating_sub(1);
            continue;
        }
        if depth != 1 {
            continue;
        }
        let value = || value_of(&line[name_end..]);
        let date = || {
            let v = value()?;
            NaiveDate::parse_from_str(v.get(..8)?, "%Y%m%d").ok()
        };
        if name.eq_ignore_ascii_case("RRULE") || name.eq_ignore_ascii_case("RDATE") {
            return false;
        } else if name.eq_ignore_ascii_case("DTSTART") {
            match date() {
                Some(d) => start = Some(d),
                None => return false,
            }
        } else if name.eq_ignore_ascii_case("DTEND") {
            match date() {
                Some(d) => end = Some(d),
                None => return false,
            }
        } else if name.eq_ignore_ascii_case("DURATION") {
            match value().and_then(parse_duration) {
                Some(d) => length = length.max(d + TimeDelta::days(1)),
                None => return false,
            }
        }
    }
    let Some(start) = start else {
        return false;
    };
    let last = end.unwrap_or(start).max(start) + length;
    last + TimeDelta::days(2) < day
}

/// A property's value: what follows its first `:` outside a quoted parameter (`rest`:
/// the line from its parameters or separator on).
fn value_of(rest: &str) -> Option<&str> {
    let mut quoted = false;
    for (i, c) in rest.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ':' if !quoted => return Some(rest[i + 1..].trim()),
            _ => {}
        }
    }
    None
}

/// The `TZID` → IANA name of a `VTIMEZONE` piece (`text` from line `first_line`), when it
/// says one.
pub(super) fn timezone(text: &str, first_line: u64) -> Option<(String, String)> {
    let c = component(text, first_line).ok()?;
    timezone_locations(std::slice::from_ref(&c))
        .into_iter()
        .next()
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
    use crate::sources::ics::reading::Want;
    use crate::sources::ics::testing::{inline, now, vevent};
    use crate::sources::ics::text_occurrences;

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

    /// Table: which events are left unparsed as surely past (the window's first day is
    /// 2026-11-22). Each row names the wrong reading it catches.
    #[test]
    fn only_an_event_that_surely_ended_days_before_is_left_unparsed() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
        let piece = |lines: &str| format!("BEGIN:VEVENT\r\n{lines}\r\nEND:VEVENT\r\n");
        let cases = [
            ("DTSTART:20261110T090000Z\r\nDTEND:20261110T100000Z", true),
            ("DTSTART;VALUE=DATE:20261118", true),
            // Within two days (any zone, an all-day event's last day): parsed.
            ("DTSTART:20261119T230000Z", false),
            (
                "DTSTART;TZID=\"Pacific/Kiritimati:x\":20261119T230000",
                false,
            ),
            // It lasts into the window: by DTEND or DURATION.
            ("DTSTART:20261110T090000Z\r\nDTEND:20261123T090000Z", false),
            ("DTSTART:20261110T090000Z\r\nDURATION:P14D", false),
            // A recurrence may come back.
            ("DTSTART:20201110T090000Z\r\nRRULE:FREQ=YEARLY", false),
            ("DTSTART:20201110T090000Z\r\nRDATE:20261124T090000Z", false),
            // An alarm's own properties are not the event's.
            (
                "DTSTART:20201110T090000Z\r\nBEGIN:VALARM\r\nDURATION:P9999D\r\nEND:VALARM",
                true,
            ),
            // What does not read is parsed (and warned about).
            ("DTSTART:yesterday", false),
            ("DTSTART:20201110T090000Z\r\nDURATION:soon", false),
            ("SUMMARY:no start", false),
            ("DTSTART;TZID=Europe/Berlin:20201110T090000", true),
        ];
        for (lines, past) in cases {
            assert_eq!(ended_before(&piece(lines), day), past, "{lines}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Any bytes are a calendar or an error, never a panic.
        #[test]
        fn any_text_parses_or_is_refused(
            text in "(BEGIN:VCALENDAR\n|BEGIN:VEVENT\n|END:VEVENT\n|DTSTART:2026112[0-9]T1[0-9]0000Z?\n|RRULE:FREQ=DAILY\n|SUMMARY:[a-z;:,]{0,8}\n| [a-z]{0,3}\n|END:VCALENDAR\n|[A-Z;=:]{0,6}\n){0,12}",
        ) {
            let _ = text_occurrences(&text, Want { hours: 24, max_events: 5 }, now(), Zone::UTC);
        }
    }
}
