//! Recurrence expansion: an event's occurrences in the window, from `DTSTART`, `RRULE`
//! (by the `rrule` crate), `RDATE`, `EXDATE` and overrides (`RECURRENCE-ID`), each placed
//! in time ([`Frame`]: wall-clock, an IANA zone, or UTC; a time a clock change skips or
//! repeats read as RFC 5545 says), and the work budgets that keep a hostile calendar
//! from hanging or swelling a tick: [`MAX_PER_PERIOD`] occurrences a period,
//! [`MAX_RULE_WORK`] to reach the window (a rule without `COUNT` of a fixed period starts
//! at its last period before the window), [`MAX_WALK`] occurrences walked per event, and
//! [`SOURCE_WORK`] for the whole source; an event past them is skipped with a warning.
//!
//! Must not: read a file, name `chrono::Local` or the machine's zone (the `rrule` crate
//! would read a zone-less `UNTIL` in it: [`until_in_frame`] writes it in UTC first).

use std::collections::HashSet;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, TimeZone as _, Utc};
use chrono_tz::Tz;
use rrule::{Frequency, RRule, RRuleSet, Unvalidated};

use super::Window;
use super::error::ExpandError;
use super::parse::{Event, Stamp, parse_stamp};
use crate::clock::Zone;

/// The most occurrences one period of a rule may hold.
pub const MAX_PER_PERIOD: usize = 10_000;
/// The most work a rule may take to reach the window's end: its periods × the
/// occurrences one period can hold (about 30 ns each).
pub const MAX_RULE_WORK: i64 = 5_000_000;
/// The most occurrences walked for one event.
pub const MAX_WALK: usize = 20_000;
/// The most work (as [`MAX_RULE_WORK`], and one for each occurrence walked) for all
/// events of a source: about a second.
pub const SOURCE_WORK: usize = 50_000_000;

/// A local wall-clock time in `zone` as an instant. A time skipped by a clock change is
/// read with the offset before it (RFC 5545: 02:30 on a spring-forward night is 03:30);
/// a repeated one is the first.
fn resolve_local(zone: Zone, naive: NaiveDateTime) -> DateTime<Utc> {
    let offset =
        |t: DateTime<Utc>| TimeDelta::seconds(i64::from(zone.at(t).offset().local_minus_utc()));
    let guess = naive.and_utc();
    let first = guess - offset(guess);
    let second = guess - offset(first);
    let exact = |t: DateTime<Utc>| zone.at(t).naive_local() == naive;
    match (exact(first), exact(second)) {
        (true, true) => first.min(second),
        (true, false) => first,
        (false, true) => second,
        (false, false) => first.max(second),
    }
}

/// A wall-clock time in an IANA zone as an instant (gaps and repeats as
/// [`resolve_local`]).
fn resolve_tz(tz: Tz, naive: NaiveDateTime) -> Option<DateTime<Utc>> {
    tz.from_local_datetime(&naive)
        .earliest()
        .or_else(|| {
            tz.from_local_datetime(&(naive + TimeDelta::hours(1)))
                .earliest()
        })
        .map(|t| t.with_timezone(&Utc))
}

/// Local midnight of `day` in `zone`.
fn midnight(zone: Zone, day: NaiveDate) -> DateTime<Utc> {
    resolve_local(zone, day.and_time(NaiveTime::MIN))
}

/// The instant a value stands for (a date: its local midnight).
fn instant(stamp: Stamp, zone: Zone) -> Option<DateTime<Utc>> {
    match stamp {
        Stamp::Date(d) => Some(midnight(zone, d)),
        Stamp::Floating(n) => Some(resolve_local(zone, n)),
        Stamp::Zoned(n, tz) => resolve_tz(tz, n),
        Stamp::Utc(t) => Some(t),
    }
}

/// How a recurrence is expanded: wall-clock values (dates and floating times, as if in
/// UTC, each occurrence then read in the user's zone), in an IANA zone, or in UTC.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Frame {
    Wall,
    Zoned(Tz),
    Utc,
}

impl Frame {
    fn of(start: Stamp) -> Frame {
        match start {
            Stamp::Date(_) | Stamp::Floating(_) => Frame::Wall,
            Stamp::Zoned(_, tz) => Frame::Zoned(tz),
            Stamp::Utc(_) => Frame::Utc,
        }
    }

    fn rrule_tz(self) -> rrule::Tz {
        match self {
            Frame::Wall | Frame::Utc => rrule::Tz::UTC,
            Frame::Zoned(tz) => rrule::Tz::Tz(tz),
        }
    }

    /// A value (DTSTART, EXDATE, RECURRENCE-ID, UNTIL) in this frame.
    fn at(self, stamp: Stamp, zone: Zone) -> Option<DateTime<rrule::Tz>> {
        let utc = match self {
            Frame::Wall => match stamp {
                Stamp::Date(d) => d.and_time(NaiveTime::MIN).and_utc(),
                Stamp::Floating(n) | Stamp::Zoned(n, _) => n.and_utc(),
                Stamp::Utc(t) => zone.at(t).naive_local().and_utc(),
            },
            Frame::Zoned(tz) => match stamp {
                Stamp::Date(d) => resolve_tz(tz, d.and_time(NaiveTime::MIN))?,
                Stamp::Floating(n) => resolve_tz(tz, n)?,
                Stamp::Zoned(n, other) => resolve_tz(other, n)?,
                Stamp::Utc(t) => t,
            },
            Frame::Utc => match stamp {
                Stamp::Date(d) => d.and_time(NaiveTime::MIN).and_utc(),
                Stamp::Floating(n) => n.and_utc(),
                Stamp::Zoned(n, tz) => resolve_tz(tz, n)?,
                Stamp::Utc(t) => t,
            },
        };
        Some(utc.with_timezone(&self.rrule_tz()))
    }

    /// An occurrence's real start: for an all-day event also its day.
    fn real(
        self,
        occurrence: DateTime<rrule::Tz>,
        all_day: bool,
        zone: Zone,
    ) -> (DateTime<Utc>, Option<NaiveDate>) {
        match self {
            Frame::Wall => {
                let naive = occurrence.naive_utc();
                if all_day {
                    (midnight(zone, naive.date()), Some(naive.date()))
                } else {
                    (resolve_local(zone, naive), None)
                }
            }
            Frame::Zoned(_) | Frame::Utc => (occurrence.with_timezone(&Utc), None),
        }
    }
}

/// One occurrence of an event, ready to list.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Occurrence {
    pub(super) start: DateTime<Utc>,
    pub(super) end: DateTime<Utc>,
    /// An all-day occurrence: its first and last day (inclusive).
    pub(super) days: Option<(NaiveDate, NaiveDate)>,
    /// Shared with its event's other occurrences (an hourly event with a huge title once
    /// kept a copy per occurrence).
    pub(super) summary: Arc<str>,
    pub(super) location: Arc<str>,
    /// Its reference ([`crate::sources::refs`]): of its event's `UID` (else its title),
    /// and, for one occurrence of a recurring event, the instant it was scheduled for —
    /// so a moved single event keeps its reference, and each occurrence has its own.
    pub(super) reference: String,
}

/// How long each occurrence lasts.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Length {
    Days(i64),
    Exact(TimeDelta),
}

fn length(e: &Event, zone: Zone) -> Length {
    match e.start {
        Stamp::Date(start) => {
            let days = match (e.end, e.duration) {
                (Some(Stamp::Date(end)), _) => (end - start).num_days(),
                (_, Some(d)) => (d + TimeDelta::days(1) - TimeDelta::seconds(1)).num_days(),
                _ => 1,
            };
            Length::Days(days.clamp(1, 3660))
        }
        start => {
            let exact = match (e.end, e.duration) {
                (Some(end), _) => match (instant(start, zone), instant(end, zone)) {
                    (Some(s), Some(e)) => e - s,
                    _ => TimeDelta::zero(),
                },
                (None, Some(d)) => d,
                (None, None) => TimeDelta::zero(),
            };
            Length::Exact(exact.clamp(TimeDelta::zero(), TimeDelta::days(3660)))
        }
    }
}

/// A stamp as a key: what names the occurrence an override replaces, whatever the zone.
fn stamp_key(stamp: Stamp) -> String {
    format!("{stamp:?}")
}

/// The occurrences of one event in the window (at most `max` + 1), `replaced` ones left
/// out.
pub(super) fn occurrences(
    e: &Event,
    replaced: &[Stamp],
    window: Window,
    zone: Zone,
    max: usize,
    budget: &mut usize,
) -> Result<Vec<Occurrence>, ExpandError> {
    let frame = Frame::of(e.start);
    let all_day = matches!(e.start, Stamp::Date(_));
    let length = length(e, zone);
    let reach = match length {
        Length::Days(d) => TimeDelta::days(d + 1),
        Length::Exact(d) => d + TimeDelta::days(1),
    };
    let dtstart = frame
        .at(e.start, zone)
        .ok_or(ExpandError::StartUnplaceable)?;
    let mut set = match (&e.rrule, e.recurrence_id) {
        (Some(rule), None) => match rule_set(rule, dtstart, frame, window, reach, zone, budget)? {
            Some(set) => set,
            None => return Ok(Vec::new()),
        },
        _ => RRuleSet::new(dtstart).limit().rdate(dtstart),
    };
    if e.recurrence_id.is_none() {
        for r in &e.rdates {
            if let Some(t) = frame.at(*r, zone) {
                set = set.rdate(t);
            }
        }
    }
    let excluded: HashSet<i64> = e
        .exdates
        .iter()
        .chain(replaced)
        .filter_map(|s| frame.at(*s, zone))
        .map(|t| t.timestamp())
        .collect();
    let mut out = Vec::new();
    let mut walked = 0usize;
    for occurrence in &set {
        walked += 1;
        if walked > MAX_WALK {
            return Err(ExpandError::TooManyOccurrences { max: MAX_WALK });
        }
        if *budget == 0 {
            return Err(spent());
        }
        *budget -= 1;
        let (start, day) = frame.real(occurrence, all_day, zone);
        if start >= window.end {
            break;
        }
        if excluded.contains(&occurrence.timestamp()) {
            continue;
        }
        let (end, days) = match (length, day) {
            (Length::Days(n), Some(first)) => {
                let after = first + TimeDelta::days(n);
                (
                    midnight(zone, after),
                    Some((first, after - TimeDelta::days(1))),
                )
            }
            (Length::Days(n), None) => (start + TimeDelta::days(n), None),
            (Length::Exact(d), _) => (start + d, None),
        };
        let in_window = if start >= window.start {
            true
        } else {
            end > window.start
        };
        if in_window {
            let name = e.uid.as_deref().unwrap_or(&e.summary);
            let key = match (&e.rrule, e.recurrence_id) {
                (_, Some(id)) => match frame.at(id, zone) {
                    Some(t) => format!("{name}|{}", t.timestamp()),
                    None => format!("{name}|{}", stamp_key(id)),
                },
                (Some(_), None) => format!("{name}|{}", occurrence.timestamp()),
                (None, None) => name.to_string(),
            };
            out.push(Occurrence {
                start,
                end,
                days,
                summary: Arc::clone(&e.summary),
                location: Arc::clone(&e.location),
                reference: crate::sources::refs::reference('e', &key),
            });
            // One more than can be listed: the list then says there are more.
            if out.len() > max {
                break;
            }
        }
    }
    Ok(out)
}

fn spent() -> ExpandError {
    ExpandError::WorkSpent { steps: SOURCE_WORK }
}

/// The seconds of one period of `freq` (months and years at their shortest).
fn period_seconds(freq: Frequency) -> i64 {
    match freq {
        Frequency::Secondly => 1,
        Frequency::Minutely => 60,
        Frequency::Hourly => 3600,
        Frequency::Daily => 86_400,
        Frequency::Weekly => 604_800,
        Frequency::Monthly => 28 * 86_400,
        Frequency::Yearly => 365 * 86_400,
    }
}

/// An `RRULE`'s set, checked against the caps; `None`: it ends before the window.
fn rule_set(
    rule: &str,
    dtstart: DateTime<rrule::Tz>,
    frame: Frame,
    window: Window,
    reach: TimeDelta,
    zone: Zone,
    budget: &mut usize,
) -> Result<Option<RRuleSet>, ExpandError> {
    // RFC 5545's rule text is ASCII; the `rrule` crate slices it by byte and panics on
    // a multi-byte character (`BYDAY=MO\u{fffd}`).
    if !rule.is_ascii() {
        return Err(ExpandError::NotAscii);
    }
    let rule = until_in_frame(rule, frame, zone)?;
    let parsed: RRule<Unvalidated> = rule
        .parse()
        .map_err(|source| ExpandError::Unreadable { source })?;
    let freq = parsed.get_freq();
    let lists = [
        parsed.get_by_hour().len(),
        parsed.get_by_minute().len(),
        parsed.get_by_second().len(),
    ];
    let days = match freq {
        Frequency::Yearly => 366,
        Frequency::Monthly => 31,
        Frequency::Weekly => 7,
        _ => 1,
    };
    let per_period = lists
        .iter()
        .fold(days, |n: usize, l| n.saturating_mul((*l).max(1)));
    if per_period > MAX_PER_PERIOD {
        return Err(ExpandError::TooManyPerPeriod {
            per_period,
            max: MAX_PER_PERIOD,
        });
    }
    // Loose bounds in the frame's terms: a wall-clock frame is off by the zone's offset.
    let from = window.start - reach - TimeDelta::days(1);
    let to = window.end + TimeDelta::days(1);
    if let Some(until) = parsed.get_until()
        && until.with_timezone(&Utc) < from
    {
        return Ok(None);
    }
    let step = period_seconds(freq).saturating_mul(i64::from(parsed.get_interval().max(1)));
    let mut dtstart = dtstart;
    let fixed_period = !matches!(freq, Frequency::Monthly | Frequency::Yearly);
    if parsed.get_count().is_none() && fixed_period && dtstart.with_timezone(&Utc) < from {
        // Start at the last whole step before the window, in wall-clock terms (so the
        // time of day and the weekday stay).
        let behind = (from - dtstart.with_timezone(&Utc)).num_seconds() / step;
        let naive = dtstart.naive_local() + TimeDelta::seconds(behind * step);
        dtstart = match frame {
            Frame::Zoned(tz) => resolve_tz(tz, naive)
                .ok_or(ExpandError::StartUnplaceable)?
                .with_timezone(&frame.rrule_tz()),
            Frame::Wall | Frame::Utc => naive.and_utc().with_timezone(&rrule::Tz::UTC),
        };
    }
    let periods = (to - dtstart.with_timezone(&Utc)).num_seconds() / step;
    let work = periods.saturating_mul(i64::try_from(per_period).unwrap_or(i64::MAX));
    if work > MAX_RULE_WORK {
        return Err(ExpandError::TooFar {
            work,
            max: MAX_RULE_WORK,
        });
    }
    // The periods are walked even where no occurrence falls: they count.
    match usize::try_from(work) {
        Ok(p) if p <= *budget => *budget -= p,
        Ok(_) => return Err(spent()),
        Err(_) => {}
    }
    let validated = parsed
        .validate(dtstart)
        .map_err(|source| ExpandError::Invalid { source })?;
    Ok(Some(RRuleSet::new(dtstart).limit().rrule(validated)))
}

/// The rule with its `UNTIL` written as a UTC time of the frame (the `rrule` crate reads
/// a zone-less `UNTIL` in the machine's zone, which no output may depend on).
fn until_in_frame(rule: &str, frame: Frame, zone: Zone) -> Result<String, ExpandError> {
    let mut parts = Vec::new();
    for part in rule.trim().split(';').filter(|p| !p.is_empty()) {
        let Some((key, value)) = part.split_once('=') else {
            parts.push(part.to_string());
            continue;
        };
        if !key.trim().eq_ignore_ascii_case("UNTIL") {
            parts.push(part.to_string());
            continue;
        }
        let value = value.trim();
        let stamp = parse_stamp(value, false, None).ok_or_else(|| ExpandError::UntilNotATime {
            value: value.into(),
        })?;
        // A date includes its whole day.
        let stamp = match stamp {
            Stamp::Date(d) => Stamp::Floating(d.and_hms_opt(23, 59, 59).unwrap_or_default()),
            other => other,
        };
        let stamp = match (stamp, frame) {
            (Stamp::Floating(n), Frame::Zoned(tz)) => Stamp::Zoned(n, tz),
            (other, _) => other,
        };
        let until = frame.at(stamp, zone).ok_or(ExpandError::UntilUnplaceable)?;
        parts.push(format!(
            "UNTIL={}",
            until.with_timezone(&Utc).format("%Y%m%dT%H%M%SZ")
        ));
    }
    Ok(parts.join(";"))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use chrono::FixedOffset;
    use proptest::prelude::*;

    use super::*;
    use crate::sources::ics::files::{SOURCE_BYTES, read_file};
    use crate::sources::ics::parse::parse_duration;
    use crate::sources::ics::reading::{Reading, Want};
    use crate::sources::ics::testing::{east, fixture, inline, now, parse_calendar, vevent};

    /// Regression (fuzz): the `rrule` crate panicked on a rule holding a multi-byte
    /// character (the file was then lost whole to the `catch_unwind`); the event is
    /// skipped with a warning and the others still show.
    #[test]
    fn a_rule_that_is_not_ascii_skips_its_event() {
        let (lines, warnings) = inline(&format!(
            "{}\n{}",
            vevent(
                "Broken",
                "DTSTART:20261122T110000Z\nRRULE:FREQ=DAILY;BYDAY=MO\u{fffd}"
            ),
            vevent("Fine", "DTSTART:20261122T120000Z"),
        ));
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].ends_with(": Fine"), "{lines:?}");
        assert!(warnings[0].contains("not ASCII"), "{warnings:?}");
    }

    #[test]
    fn the_window_holds_what_starts_in_it_and_what_is_in_progress() {
        let (lines, warnings) = inline(
            &[
                vevent(
                    "starts now",
                    "DTSTART:20261122T100500Z\nDTEND:20261122T103500Z",
                ),
                vevent(
                    "ended now",
                    "DTSTART:20261122T090500Z\nDTEND:20261122T100500Z",
                ),
                vevent("in progress", "DTSTART:20261122T090000Z\nDURATION:PT2H"),
                vevent("a moment now", "DTSTART:20261122T100500Z"),
                vevent("at the end", "DTSTART:20261123T100500Z\nDURATION:PT1H"),
                vevent(
                    "just before the end",
                    "DTSTART:20261123T100400Z\nDURATION:PT1H",
                ),
                vevent("yesterday", "DTSTART;VALUE=DATE:20261121"),
                vevent("today", "DTSTART;VALUE=DATE:20261122"),
                vevent(
                    "tomorrow",
                    "DTSTART;VALUE=DATE:20261123\nDTEND;VALUE=DATE:20261124",
                ),
                vevent(
                    "since yesterday",
                    "DTSTART;VALUE=DATE:20261121\nDTEND;VALUE=DATE:20261124",
                ),
                vevent(
                    "overnight",
                    "DTSTART:20261121T220000Z\nDTEND:20261123T020000Z",
                ),
            ]
            .join("\n"),
        );
        assert_eq!(
            lines,
            [
                "- all day Sat 21 Nov – Mon 23 Nov (now, until Mon 23 Nov): since yesterday",
                "- Sat 21 Nov 22:00 – Mon 23 Nov 02:00 (now, until Mon 23 Nov 02:00): overnight",
                "- all day Sun 22 Nov (today): today",
                "- Sun 22 Nov 09:00–11:00 (now, until 11:00): in progress",
                "- Sun 22 Nov 10:05 (now): a moment now",
                "- Sun 22 Nov 10:05–10:35 (now, until 10:35): starts now",
                "- all day Mon 23 Nov (tomorrow): tomorrow",
                "- Mon 23 Nov 10:04–11:04 (in 23 h 59 min): just before the end",
            ]
        );
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn hostile_rules_are_capped_and_the_rest_still_shows() {
        let want = Want {
            hours: 72,
            max_events: 50,
        };
        let mut reading = Reading::new(&[want], now(), Zone::UTC);
        let mut bytes = SOURCE_BYTES;
        let warnings = read_file(
            Path::new(&fixture("hostile/secondly.ics")),
            &mut reading,
            &mut bytes,
        )
        .unwrap();
        let budget = reading.budget_left();
        let kept = reading.finish().remove(0).2;
        let summaries: Vec<&str> = kept.occurrences.iter().map(|o| &*o.summary).collect();
        assert_eq!(summaries, ["Ordinary meeting"]);
        let skipped: Vec<(&str, &str)> = warnings
            .iter()
            .map(|w| {
                let (event, why) = w.split_once(" skipped: ").unwrap();
                (event, why.split(" (").next().unwrap())
            })
            .collect();
        assert_eq!(
            skipped,
            [
                (
                    "event \"Every second since 1970\"",
                    "stopped after walking 20000 occurrences"
                ),
                (
                    "event \"Every second since 2000, a billion times\"",
                    "RRULE needs 849002700 steps to reach the window"
                ),
                (
                    "event \"Every second of every day of the year\"",
                    "RRULE allows 527040 occurrences a period"
                ),
                (
                    "event \"Every hour since 2020, ten million times\"",
                    "stopped after walking 20000 occurrences"
                ),
            ]
        );
        // Each stopped within its own cap: the rest of the source's budget is left.
        assert!(SOURCE_WORK - budget < 1_000_000, "{}", SOURCE_WORK - budget);

        // An event that recurs every minute since 1970 (no COUNT) starts near the
        // window and is listed, at most `max_events` of it.
        let (lines, warnings) = inline(&vevent(
            "every minute",
            "DTSTART:19700101T000000Z\nRRULE:FREQ=MINUTELY",
        ));
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(lines.len(), 51, "50 and a line saying there are more");
        assert_eq!(lines[0], "- Sun 22 Nov 10:05 (now): every minute");
        assert_eq!(lines[1], "- Sun 22 Nov 10:06 (in 1 min): every minute");
        // A spent budget stops expanding, it does not hang.
        let (events, _) = parse_calendar(&format!(
            "BEGIN:VCALENDAR\n{}\nEND:VCALENDAR",
            vevent("daily", "DTSTART:20261101T090000Z\nRRULE:FREQ=DAILY")
        ))
        .unwrap();
        // Its 4 periods to the window, then 5 occurrences (the 5th past the window).
        let daily = |budget: usize| {
            let mut left = budget;
            occurrences(
                &events[0],
                &[],
                Window::ahead(now(), 24),
                Zone::UTC,
                50,
                &mut left,
            )
        };
        for budget in [3, 8] {
            let e = daily(budget).unwrap_err();
            assert!(
                matches!(e, ExpandError::WorkSpent { steps: SOURCE_WORK }),
                "{budget}: {e:?}"
            );
            assert!(e.to_string().contains("took all 50000000 steps"), "{e}");
        }
        assert_eq!(daily(9).unwrap().len(), 1);
    }

    #[test]
    fn until_is_written_in_the_frame_so_no_machine_zone_is_read() {
        let berlin = Frame::Zoned(Tz::Europe__Berlin);
        assert_eq!(
            until_in_frame(
                "FREQ=WEEKLY;UNTIL=20261231T093000;BYDAY=MO",
                berlin,
                Zone::UTC
            )
            .unwrap(),
            "FREQ=WEEKLY;UNTIL=20261231T083000Z;BYDAY=MO"
        );
        assert_eq!(
            until_in_frame("FREQ=DAILY;until=20261231", Frame::Wall, east(5)).unwrap(),
            "FREQ=DAILY;UNTIL=20261231T235959Z"
        );
        assert_eq!(
            until_in_frame("FREQ=DAILY;UNTIL=20261231T120000Z", Frame::Utc, east(5)).unwrap(),
            "FREQ=DAILY;UNTIL=20261231T120000Z"
        );
        assert!(matches!(
            until_in_frame("FREQ=DAILY;UNTIL=soon", Frame::Utc, Zone::UTC),
            Err(ExpandError::UntilNotATime { value }) if value == "soon"
        ));
        // An event whose rule ended long ago costs nothing and shows nothing.
        let (lines, warnings) = inline(&vevent(
            "old",
            "DTSTART:20000101T090000Z\nRRULE:FREQ=SECONDLY;UNTIL=20000102T000000Z",
        ));
        assert!(
            lines.is_empty() && warnings.is_empty(),
            "{lines:?} {warnings:?}"
        );
    }

    /// A rule from parts, some of them out of range.
    fn any_rule() -> impl Strategy<Value = String> {
        let freq = prop::sample::select(vec![
            "SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY",
        ]);
        let part = prop_oneof![
            (0u32..2000).prop_map(|n| format!("INTERVAL={n}")),
            (0u32..100_000).prop_map(|n| format!("COUNT={n}")),
            (-400i32..400).prop_map(|n| format!("BYSETPOS={n}")),
            (-40i32..40).prop_map(|n| format!("BYMONTHDAY={n},1")),
            (-60i32..60).prop_map(|n| format!("BYWEEKNO={n}")),
            (-400i32..400).prop_map(|n| format!("BYYEARDAY={n}")),
            (0u32..14).prop_map(|n| format!("BYMONTH={n}")),
            (0u32..30).prop_map(|n| format!("BYHOUR={n},3")),
            (-6i32..6).prop_map(|n| format!("BYDAY={n}MO,TU")),
            Just("UNTIL=20261123T000000Z".to_string()),
            Just("UNTIL=19991231".to_string()),
            Just("WKST=SU".to_string()),
            Just("X-NAME=1".to_string()),
        ];
        (freq, prop::collection::vec(part, 0..5))
            .prop_map(|(f, parts)| format!("FREQ={f};{}", parts.join(";")))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever a rule says, expanding it ends, within the caps, without a panic.
        #[test]
        fn any_rule_expands_within_the_caps(
            rule in any_rule(),
            start in prop::sample::select(vec![
                "DTSTART:20261122T100500Z",
                "DTSTART:19700101T000000Z",
                "DTSTART;VALUE=DATE:20200229",
                "DTSTART;TZID=Europe/Berlin:20260329T023000",
                "DTSTART:20261101T093000",
            ]),
        ) {
            let (lines, _) = inline(&vevent("r", &format!("{start}\nRRULE:{rule}")));
            prop_assert!(lines.len() <= 51);
        }

        /// Any value is read or refused, never a panic.
        #[test]
        fn any_value_is_read_or_refused(value in "[0-9TZPWDHMS+-]{0,20}|\\PC{0,20}") {
            let _ = parse_stamp(&value, false, None);
            let _ = parse_stamp(&value, true, Some(Tz::Europe__Berlin));
            let _ = parse_duration(&value);
            let _ = until_in_frame(&format!("FREQ=DAILY;UNTIL={value}"), Frame::Wall, east(14));
        }

        /// A wall-clock time read in a fixed zone comes back as the same wall-clock time.
        #[test]
        fn local_times_round_trip(
            offset_minutes in -14 * 60..=14 * 60i32,
            seconds in 0i64..4_000_000_000,
        ) {
            let zone = Zone::Fixed(FixedOffset::east_opt(offset_minutes * 60).unwrap());
            let naive = DateTime::from_timestamp(seconds, 0).unwrap().naive_utc();
            let t = resolve_local(zone, naive);
            prop_assert_eq!(zone.at(t).naive_local(), naive);
        }
    }
}
