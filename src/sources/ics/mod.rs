//! The `ics` source (SPEC §6): calendar events ahead, from `.ics` files and vdir
//! directories (as khal and vdirsyncer keep them).
//!
//! **Paths.** Each entry of `paths` is a file, a directory or a glob (`~` expanded and
//! relative paths resolved like every path key). A file is read whatever its name. A
//! directory is a vdir: its `*.ics` files, and those of its subdirectories one level down
//! (a vdirsyncer tree of several calendars: `~/.calendars/work/*.ics`); hidden entries
//! are skipped. A glob's matches are taken as files or directories the same way. A path
//! that does not exist, or a glob that matches nothing, fails the source with the way out:
//! an empty calendar would tell the thread "nothing planned", which is a claim. At most
//! [`MAX_FILES`] files (sorted by path) and [`MAX_FILE_BYTES`] a file are read.
//!
//! **Events.** Every `VEVENT` in the window `[now, now + hours)` — or in progress at
//! `now` — is listed, sorted by start (then end, then summary), at most `max_events`
//! (default [`DEFAULT_ICS_MAX_EVENTS`]); `hours` defaults to [`DEFAULT_ICS_HOURS`] (a
//! role's default may replace it: [`IcsSettings::with_default_hours`]). Time zones: a
//! `TZID` parameter naming an IANA zone (also as Thunderbird's `/mozilla.org/…/Europe/
//! Berlin` or through its `VTIMEZONE`'s `X-LIC-LOCATION`), UTC (`Z`), and floating times
//! (no zone) read in the user's zone; an unknown `TZID` (Outlook's `W. Europe Standard
//! Time`) is read as floating, with a warning. All-day events (`VALUE=DATE`) cover whole
//! local days in the user's zone. Recurrences: `RRULE` (expanded by the `rrule` crate),
//! `RDATE`, `EXDATE`, and overrides (`RECURRENCE-ID` in the same file: the override
//! replaces the occurrence it names; `RANGE=THISANDFUTURE` is read as that one
//! occurrence); `STATUS:CANCELLED` events and overrides are left out.
//!
//! **Hostile calendars cannot hang or swell a tick.** Before expanding a rule: the
//! occurrences one period can hold (the `BYHOUR`×`BYMINUTE`×`BYSECOND` lists × the days
//! of the period) are at most [`MAX_PER_PERIOD`]; a rule without `COUNT` of a fixed period
//! (secondly to weekly) starts at its last period before the window instead of at
//! `DTSTART` (a daily event from 1990 costs what one from last week does); the work to
//! the window's end (periods × what one period can hold, which is what the expansion's
//! time follows) is at most [`MAX_RULE_WORK`]; at most [`MAX_WALK`] occurrences are
//! walked per event and `max_events` (+ 1, to know there are more) kept; a source does at
//! most [`SOURCE_WORK`] in all (about a second). An event past these is skipped with a
//! warning. Parsing refuses components nested deeper than [`MAX_NESTING`] (the parser
//! recurses). **Time and memory** (a calendar bomb: one 15 MB file once peaked at 804
//! MB; a calendar of 5,000 past events once took 5.5 s to parse): a file is read as a
//! stream, twice (time zones and overrides first, then the events), and its components
//! are parsed one at a time, each at most [`MAX_COMPONENT_BYTES`], so the parse is
//! linear in the file and holds one component; each event is expanded as soon as it is
//! read; `SUMMARY` and `LOCATION` are cut to a few hundred characters when read, and an
//! event's occurrences share them; the source keeps only the `max_events` + 1 earliest
//! occurrences across its files (counting the others for "… and at least N more"), and
//! reads at most [`SOURCE_BYTES`] of calendars in all (a file past that is skipped with
//! a warning). **One reading a tick**: the threads of a tick whose `ics` sources name the
//! same `paths` (the watcher's 24 hours and the oracle's 72) share one reading of them
//! for all their windows ([`Calendars`]), instead of each reading the calendars at the
//! same time.
//!
//! **Failures.** A file that cannot be read, or whose structure is broken (a component
//! never closed, text outside any component), is skipped with a `warn` line on stderr;
//! an event the parser refuses, or that cannot be expanded, is skipped with a `warn` line
//! (the file, the event's line or title cleaned to one line, and what is wrong; never the
//! parser's quote of the file), and the file's other events still show. Only when files
//! were found and none could be read is it a source failure.
//!
//! **Layout** (times in the user's zone, `Zone::wall`):
//!
//! ```text
//! Events from Sun 22 Nov 10:05 to Mon 23 Nov 10:05 (24 h, local time UTC+01:00):
//! - all day Sun 22 Nov (today): Anna's birthday
//! - Sun 22 Nov 09:30–11:00 (now, until 11:00): Design review — at Room 4
//! - Sun 22 Nov 12:20–13:00 (in 2 h 15 min): Lunch with Ana — at Café Central
//! - Sun 22 Nov 22:00 – Mon 23 Nov 02:00 (in 11 h 55 min): Night shift
//! - all day Tue 24 Nov – Thu 26 Nov (in 2 days): Conference
//! - … and at least 3 more
//! ```
//!
//! or `No events from … to … (…)`. Summaries (at most [`SUMMARY_CHARS`] characters) and
//! locations (at most [`LOCATION_CHARS`]) are cleaned to one line; the whole text is
//! cleaned again and capped at `max_bytes` (default [`DEFAULT_ICS_MAX_BYTES`]).
//!
//! **Layout of the module.** This file holds the source's settings and its entry point;
//! `files` finds the calendars and reads each (two passes), `stream` unfolds a file's
//! lines and hands over its components one at a time, `parse` reads a component's event
//! or time zone, `expand` expands recurrences within the work budgets, `reading` keeps
//! what each window can list and shares a reading within a tick, `render` lists the
//! occurrences.
//!
//! Owns [`IcsSettings`]; must not read the real clock (the window is `GatherContext::now`
//! in `GatherContext::zone`) nor name `chrono::Local`.

pub(super) mod error;
mod expand;
mod files;
mod parse;
mod reading;
mod render;
mod stream;
#[cfg(test)]
mod testing;

use std::ops::RangeInclusive;
use std::path::Path;

use chrono::{DateTime, TimeDelta, Utc};
use serde::Deserialize;

use super::error::SourceError;
use super::read::blocking;
use super::settings::{self, MAX_BYTES_RANGE, Resolve, SettingsError};
use super::text::{cap_head, clean, one_line};
use super::{GatherContext, Text};
use crate::clock::Zone;
pub use error::{CalendarError, EventError, EventName, ExpandError, StampError};
pub use expand::{MAX_PER_PERIOD, MAX_RULE_WORK, MAX_WALK, SOURCE_WORK};
pub use files::{MAX_FILE_BYTES, MAX_FILES, SOURCE_BYTES};
use files::{calendar_files, read_calendar, read_file};
pub use reading::Calendars;
use reading::{Kept, Listing, Reading, Want};
use render::render;
pub(crate) use render::world;
pub use render::{LOCATION_CHARS, SUMMARY_CHARS};
pub use stream::{MAX_COMPONENT_BYTES, MAX_NESTING};

/// The window ahead of now, in hours, when neither the source nor its role says.
pub const DEFAULT_ICS_HOURS: u32 = 24;
/// The most events listed.
pub const DEFAULT_ICS_MAX_EVENTS: usize = 50;
/// Default cap of an `ics` source's text.
pub const DEFAULT_ICS_MAX_BYTES: usize = 6000;
/// `hours`: 1 hour to a year.
const HOURS_RANGE: RangeInclusive<usize> = 1..=8760;
/// `max_events`.
const MAX_EVENTS_RANGE: RangeInclusive<usize> = 1..=1000;
/// The keys an `ics` source takes besides `kind` and `name`.
pub(super) const KEYS: &[&str] = &["paths", "hours", "max_events", "max_bytes"];

/// An `ics` source as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    paths: Vec<String>,
    hours: Option<toml::Value>,
    max_events: Option<toml::Value>,
    max_bytes: Option<toml::Value>,
}

/// An `ics` source, checked: `paths = ["~/.calendars/*"]`, `hours = 72`.
#[derive(Debug, Clone, PartialEq)]
pub struct IcsSettings {
    /// Files, directories or globs, absolute.
    paths: Vec<String>,
    /// The window ahead, as given (`None`: the role's default, else
    /// [`DEFAULT_ICS_HOURS`]).
    hours: Option<u32>,
    max_events: usize,
    max_bytes: usize,
}

impl IcsSettings {
    /// Checks the keys of an `ics` table (`kind` and `name` taken out).
    pub fn from_table(
        table: toml::Table,
        resolve: Resolve<'_>,
    ) -> Result<IcsSettings, SettingsError> {
        let raw: Raw = settings::read("ics", KEYS, table)?;
        if raw.paths.is_empty() {
            return Err(SettingsError::at(
                "paths",
                "is empty: give at least one .ics file, vdir directory or glob (e.g. [\"~/.calendars/*\"])",
            ));
        }
        let paths = raw
            .paths
            .iter()
            .enumerate()
            .map(|(i, p)| {
                resolve(p)
                    .map(|p| p.to_string_lossy().into_owned())
                    .map_err(|e| SettingsError::at(format!("paths[{i}]"), e.to_string()))
            })
            .collect::<Result<_, _>>()?;
        let hours = match raw.hours {
            None => None,
            Some(v) => Some(settings::count("hours", Some(&v), 0, HOURS_RANGE)? as u32),
        };
        Ok(IcsSettings {
            paths,
            hours,
            max_events: settings::count(
                "max_events",
                raw.max_events.as_ref(),
                DEFAULT_ICS_MAX_EVENTS,
                MAX_EVENTS_RANGE,
            )?,
            max_bytes: settings::count(
                "max_bytes",
                raw.max_bytes.as_ref(),
                DEFAULT_ICS_MAX_BYTES,
                MAX_BYTES_RANGE,
            )?,
        })
    }

    /// The paths, resolved.
    pub fn paths(&self) -> &[String] {
        &self.paths
    }

    /// The window ahead in hours, as given in the config (`None`: not given).
    pub fn hours_given(&self) -> Option<u32> {
        self.hours
    }

    /// The window ahead in hours: as given, else [`DEFAULT_ICS_HOURS`].
    pub fn hours(&self) -> u32 {
        self.hours.unwrap_or(DEFAULT_ICS_HOURS)
    }

    /// These settings with `hours` (a role's default: 24 for the Watcher, 72 for the
    /// Oracle) unless the config gave one.
    #[must_use]
    pub fn with_default_hours(mut self, hours: u32) -> IcsSettings {
        self.hours = self.hours.or(Some(hours));
        self
    }
}

/// Reads the calendars, on the blocking pool: once for the tick when `calendars` plans
/// these paths (the threads share the reading), else alone.
pub(super) async fn text(
    settings: &IcsSettings,
    ctx: &GatherContext<'_>,
    calendars: Option<&Calendars>,
) -> Result<Text, SourceError> {
    let mut settings = settings.clone();
    settings.max_bytes = settings.max_bytes.min(ctx.max_bytes);
    let now = ctx.now;
    let zone = ctx.zone;
    let calendars = calendars.cloned();
    blocking(move || match calendars {
        Some(calendars) => shared_text(&settings, &calendars, now, zone),
        None => calendar_text(&settings, now, zone),
    })
    .await
}

/// The source's text from the tick's one reading of its paths (made now, for every
/// window planned, if it is the first to ask); alone when its paths were not planned
/// or the reading failed (the source then says its own error).
fn shared_text(
    settings: &IcsSettings,
    calendars: &Calendars,
    now: DateTime<Utc>,
    zone: Zone,
) -> Result<Text, SourceError> {
    let want = Want::of(settings);
    let Some(wants) = calendars.plan(&settings.paths, want) else {
        return calendar_text(settings, now, zone);
    };
    let listing = calendars.reading(&settings.paths, || {
        listing(&settings.paths, wants, now, zone).ok()
    });
    match listing.as_deref().and_then(|l| l.get(want, now)) {
        Some((window, kept)) => Ok(listed(settings, window, zone, kept)),
        None => calendar_text(settings, now, zone),
    }
}

/// The whole source alone: files found, read, expanded, listed.
fn calendar_text(
    settings: &IcsSettings,
    now: DateTime<Utc>,
    zone: Zone,
) -> Result<Text, SourceError> {
    let want = Want::of(settings);
    let listing = listing(&settings.paths, &[want], now, zone)?;
    let (_, window, kept) = listing
        .kept
        .into_iter()
        .next()
        .unwrap_or_else(|| (want, Window::ahead(now, want.hours), Kept::default()));
    Ok(listed(settings, window, zone, &kept))
}

/// The text of what a reading kept for one source: listed, cleaned, capped.
fn listed(settings: &IcsSettings, window: Window, zone: Zone, kept: &Kept) -> Text {
    let more = kept.found.saturating_sub(settings.max_events);
    let mut text = clean(&render(
        kept.occurrences.clone(),
        window,
        zone,
        settings.max_events,
        more,
    ));
    let truncated = cap_head(&mut text, settings.max_bytes, false);
    Text { text, truncated }
}

/// One reading of the calendars of `paths` for `wants`: files found, each read as a
/// stream, its events expanded and kept as each window can list them. A file that
/// cannot be read is skipped with a warning; only when files were found and none could
/// be read is it the source's failure.
fn listing(
    paths: &[String],
    wants: &[Want],
    now: DateTime<Utc>,
    zone: Zone,
) -> Result<Listing, SourceError> {
    let files = calendar_files(paths)?;
    let mut reading = Reading::new(wants, now, zone);
    let mut bytes_left = SOURCE_BYTES;
    let mut read_any = false;
    let mut first_error = None;
    for path in &files {
        // A panic in the parser or the rule expansion (a bug on hostile input) costs
        // that file, not the source.
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            read_file(path, &mut reading, &mut bytes_left)
        }))
        .unwrap_or(Err(CalendarError::ReaderFailed));
        match read {
            Ok(warnings) => {
                read_any = true;
                for w in warnings {
                    warn(path, &w, true);
                }
            }
            Err(e) => {
                warn(path, &e.to_string(), false);
                first_error.get_or_insert((path, e));
            }
        }
    }
    if let (false, Some((path, source))) = (read_any, first_error) {
        return Err(SourceError::NoCalendarReadable {
            path: path.clone(),
            source,
        });
    }
    Ok(Listing {
        now,
        kept: reading.finish(),
    })
}

/// One calendar's text read, expanded and rendered as `calendar_text` does a file's,
/// without the file system and without the `catch_unwind` it puts around each file, so a
/// panic on hostile input fails the fuzz tests (`tests/readers_fuzz.rs`) instead of
/// quietly costing a file. Returns the listing and the warnings. Not part of the API.
#[doc(hidden)]
pub fn fuzz_calendar(
    text: &str,
    now: DateTime<Utc>,
    zone: Zone,
    hours: u32,
    max_events: usize,
) -> Result<(String, Vec<String>), CalendarError> {
    let want = Want { hours, max_events };
    let (window, kept, warnings) = text_occurrences(text, want, now, zone)?;
    let more = kept.found.saturating_sub(max_events);
    Ok((
        clean(&render(kept.occurrences, window, zone, max_events, more)),
        warnings,
    ))
}

/// What one calendar's `text` holds for `want` (read as a file is), and the warnings.
fn text_occurrences(
    text: &str,
    want: Want,
    now: DateTime<Utc>,
    zone: Zone,
) -> Result<(Window, Kept, Vec<String>), CalendarError> {
    let mut reading = Reading::new(&[want], now, zone);
    let mut warnings = Vec::new();
    read_calendar(
        |_| -> std::io::Result<Box<dyn std::io::BufRead + '_>> { Ok(Box::new(text.as_bytes())) },
        &mut reading,
        &mut warnings,
    )?;
    let (_, window, kept) = reading.finish().pop().ok_or(CalendarError::ReaderFailed)?;
    Ok((window, kept, warnings))
}

/// A file skipped, or (`part`) an event of it.
fn warn(path: &Path, what: &str, part: bool) {
    let path = one_line(&path.to_string_lossy(), '?', 1000);
    let what = one_line(what, ' ', 300);
    if part {
        tracing::warn!("calendar file {path}: {what}");
    } else {
        tracing::warn!("calendar file {path} skipped: {what}");
    }
}

/// The window events are listed in: `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Window {
    pub(super) start: DateTime<Utc>,
    pub(super) end: DateTime<Utc>,
}

impl Window {
    fn ahead(now: DateTime<Utc>, hours: u32) -> Window {
        Window {
            start: now,
            end: now + TimeDelta::hours(i64::from(hours)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use super::*;
    use crate::sources::PathError;
    use crate::sources::ics::parse::{FIELD_READ_CHARS, parse_duration};
    use crate::sources::ics::render::until_text;
    use crate::sources::ics::testing::{
        east, events, inline, now, parse_calendar, settings, vevent,
    };

    #[test]
    fn settings_are_checked_and_defaulted() {
        let resolve = |p: &str| -> Result<PathBuf, PathError> {
            if p.starts_with('~') {
                Err(PathError::NoHome { path: p.into() })
            } else {
                Ok(Path::new("/etc/thinker").join(p))
            }
        };
        let read = |text: &str| IcsSettings::from_table(text.parse().unwrap(), &resolve);
        // (table, the field the error names; "" = accepted, "-" = the source as a whole)
        let cases: &[(&str, &str)] = &[
            ("paths = ['cal.ics']", ""),
            ("paths = ['~/.calendars/*']", "paths[0]"),
            (
                "paths = ['a.ics']\nhours = 8760\nmax_events = 1000\nmax_bytes = 10",
                "",
            ),
            ("paths = ['a.ics']\nhours = 0", "hours"),
            ("paths = ['a.ics']\nhours = 8761", "hours"),
            ("paths = ['a.ics']\nhours = 2.5", "hours"),
            ("paths = ['a.ics']\nmax_events = 0", "max_events"),
            ("paths = ['a.ics']\nmax_events = 1001", "max_events"),
            ("paths = ['a.ics']\nmax_bytes = 0", "max_bytes"),
            ("paths = ['a.ics']\nhour = 24", "hour"),
            ("paths = []", "paths"),
            ("hours = 24", "-"),
            ("paths = 'a.ics'", "-"),
        ];
        for (text, field) in cases {
            match (read(text), *field) {
                (Ok(_), "") => {}
                (Err(e), "-") => assert_eq!(e.field, None, "{text}: {e}"),
                (Err(e), f) if !f.is_empty() => {
                    assert_eq!(e.field.as_deref(), Some(f), "{text}: {e}");
                }
                (result, f) => panic!("{text}: expected {f:?}, got {result:?}"),
            }
        }
        let e = read("paths = ['a.ics']\nhour = 24").unwrap_err();
        assert_eq!(
            e.to_string(),
            "`hour`: unknown key `hour`: a ics source takes kind, name, paths, hours, max_events, max_bytes"
        );
        let s = read("paths = ['cal.ics', 'vdir']").unwrap();
        assert_eq!(s.paths(), ["/etc/thinker/cal.ics", "/etc/thinker/vdir"]);
        assert_eq!((s.hours_given(), s.hours()), (None, DEFAULT_ICS_HOURS));
        assert_eq!(s.clone().with_default_hours(72).hours(), 72);
        let s = read("paths = ['a.ics']\nhours = 12").unwrap();
        assert_eq!(s.with_default_hours(72).hours(), 12, "the config wins");
    }

    #[test]
    fn a_weekly_event_keeps_its_exception_and_its_override() {
        // Mon 23 is an EXDATE; Tue 24 09:30 Berlin was moved to 11:00 (RECURRENCE-ID).
        assert_eq!(
            events(&["google.ics"], 72, Zone::UTC),
            [
                "- Sun 22 Nov 16:00–17:00 (in 5 h 55 min): Deploy window, API v3",
                "- all day Tue 24 Nov (in 2 days): Anna's birthday",
                "- Tue 24 Nov 10:00–10:30 (in 1 day 23 h): Team sync (moved: release review) — at Room 4.12",
            ]
        );
        // A week on, the rule goes on as written (CET, 09:30 Berlin = 08:30 UTC).
        let later = events(&["google.ics"], 240, Zone::UTC);
        assert!(
            later.contains(
                &"- Mon 30 Nov 08:30–09:00 (in 8 days): Team sync — at Room 4.12".to_string()
            ),
            "{later:#?}"
        );
        assert!(
            later
                .iter()
                .any(|l| l.starts_with("- Tue 01 Dec 08:30–09:00")),
            "{later:#?}"
        );
        assert!(
            !later.iter().any(|l| l.contains("Mon 23 Nov 08:30")),
            "{later:#?}"
        );
        assert_eq!(
            later.iter().filter(|l| l.contains("Team sync")).count(),
            3,
            "{later:#?}"
        );
    }

    #[test]
    fn zones_are_honoured_and_shown_in_the_users_zone() {
        // 09:00 in New York (EST, -05:00) is 14:00 UTC, 15:00 at +01:00.
        assert_eq!(
            events(&["thunderbird.ics"], 30, east(1)),
            ["- Mon 23 Nov 15:00–16:00 (in 1 day 3 h): Call with the Boston office — at Zoom"]
        );
        assert_eq!(
            events(&["thunderbird.ics"], 72, Zone::UTC)[0],
            "- Mon 23 Nov 14:00–15:00 (in 1 day 3 h): Call with the Boston office — at Zoom"
        );
        // 10:30 in Berlin (CET, +01:00) is 04:30 in a -05:00 zone; floating times stay at
        // their wall-clock time in the user's zone, whatever it is.
        let new_york = events(&["vdir"], 72, east(-5));
        assert!(
            new_york.contains(
                &"- Sun 22 Nov 04:30–06:00 (now, until 06:00): Design review — at Room 2.01"
                    .to_string()
            ),
            "{new_york:#?}"
        );
        for zone in [Zone::UTC, east(1), east(-5)] {
            let lines = events(&["vdir"], 72, zone);
            assert!(
                lines
                    .iter()
                    .any(|l| l.starts_with("- Mon 23 Nov 15:00–15:45 (")
                        && l.ends_with("Dentist — at Dr. Weber, Hauptstr. 5")),
                "{lines:#?}"
            );
        }
        // The header names the zone.
        let text = calendar_text(&settings(&["thunderbird.ics"], 30, 50), now(), east(1)).unwrap();
        assert!(
            text.text.starts_with(
                "Events from Sun 22 Nov 11:05 to Mon 23 Nov 17:05 (30 h, local time UTC+01:00):\n"
            ),
            "{}",
            text.text
        );
        let text = calendar_text(&settings(&["thunderbird.ics"], 24, 50), now(), east(1)).unwrap();
        assert_eq!(
            text.text,
            "No events from Sun 22 Nov 11:05 to Mon 23 Nov 11:05 (24 h, local time UTC+01:00).\n"
        );
    }

    /// Regression: an hourly event with a huge SUMMARY kept a full
    /// copy of it per occurrence (a 15 MB file peaked at 804 MB; 100 files of 600 KB at
    /// 3.0 GB): the title is capped when read and shared by the occurrences, and the
    /// source keeps only the occurrences it can list, however many files it reads.
    #[test]
    fn a_calendar_bomb_is_capped_at_read_and_shared() {
        let huge = "A".repeat(2 << 20);
        let text = format!(
            "BEGIN:VCALENDAR\nVERSION:2.0\n{}\nEND:VCALENDAR\n",
            vevent(
                &huge,
                "DTSTART:20260101T000000Z\nDURATION:PT30M\nRRULE:FREQ=HOURLY\nLOCATION:Room"
            )
        );
        let (events, _) = parse_calendar(&text).unwrap();
        assert_eq!(events[0].summary.chars().count(), FIELD_READ_CHARS);
        let want = Want {
            hours: 72,
            max_events: 1000,
        };
        let mut reading = Reading::new(&[want], now(), Zone::UTC);
        let mut warnings = Vec::new();
        reading.expand(&events[0], &[], &mut warnings);
        let found = reading.finish().remove(0).2.occurrences;
        // Every hour of the window, and the one in progress at now.
        assert_eq!(found.len(), 73, "{warnings:?}");
        assert!(
            found
                .iter()
                .all(|o| Arc::ptr_eq(&o.summary, &events[0].summary)),
            "one copy of the title for all occurrences"
        );
        // Many files: the source keeps at most max_events + 1 and counts the rest (each
        // event found at most max_events + 1 times).
        let dir = tempfile::tempdir().unwrap();
        let small = text.replace(&huge, "Standup");
        for i in 0..30 {
            std::fs::write(dir.path().join(format!("{i}.ics")), &small).unwrap();
        }
        let settings = IcsSettings {
            paths: vec![dir.path().display().to_string()],
            hours: Some(24),
            max_events: 10,
            max_bytes: 100_000,
        };
        let listed = calendar_text(&settings, now(), Zone::UTC).unwrap();
        let events = listed
            .text
            .lines()
            .filter(|l| !l.starts_with("- …"))
            .count()
            - 1;
        assert_eq!(events, 10, "{}", listed.text);
        assert!(
            listed
                .text
                .contains(&format!("… and at least {} more", 30 * 11 - 10)),
            "{}",
            listed.text
        );
        // The bombs themselves (4 MB each, the title twice): the source reads at most
        // SOURCE_BYTES of calendars, here 15 of the 30 files.
        for i in 0..30 {
            std::fs::write(dir.path().join(format!("{i}.ics")), &text).unwrap();
        }
        let listed = calendar_text(&settings, now(), Zone::UTC).unwrap();
        assert!(
            listed
                .text
                .contains(&format!("… and at least {} more", 15 * 11 - 10)),
            "{}",
            listed.text
        );
    }

    #[test]
    fn a_malformed_file_is_skipped_and_the_others_still_show() {
        let text = calendar_text(
            &settings(&["broken.ics", "google.ics"], 72, 50),
            now(),
            Zone::UTC,
        )
        .unwrap();
        assert!(text.text.contains("Deploy window"), "{}", text.text);
        assert!(!text.text.contains("Never shown"), "{}", text.text);
        let e = calendar_text(&settings(&["broken.ics"], 72, 50), now(), Zone::UTC).unwrap_err();
        assert!(
            matches!(
                &e,
                SourceError::NoCalendarReadable {
                    source: CalendarError::Invalid { line: Some(4) },
                    ..
                }
            ),
            "{e:?}"
        );
        let e = e.to_string();
        assert!(e.starts_with("no calendar file could be read: "), "{e}");
        assert!(
            e.ends_with("broken.ics: not valid iCalendar (the parser stopped at line 4, counting folded lines as one): fix or remove the file"),
            "{e}"
        );
        // Not a calendar at all; nested too deep for the parser's recursion.
        assert_eq!(
            parse_calendar("From: a@b\n\nhello")
                .unwrap_err()
                .to_string(),
            "not an iCalendar file (no BEGIN:VCALENDAR)"
        );
        let deep = format!("BEGIN:VCALENDAR\n{}", "BEGIN:X\n".repeat(100_000));
        let e = parse_calendar(&deep).unwrap_err();
        assert!(matches!(e, CalendarError::TooDeep { max: 8 }), "{e:?}");
        assert!(e.to_string().contains("nested more than 8 deep"), "{e}");
        // An event without a start is skipped with a warning, not the file.
        let (lines, warnings) = inline(
            &[
                vevent("no start", "DURATION:PT1H"),
                vevent("ok", "DTSTART:20261122T120000Z"),
            ]
            .join("\n"),
        );
        assert_eq!(lines, ["- Sun 22 Nov 12:00 (in 1 h 55 min): ok"]);
        assert_eq!(
            warnings,
            ["an event skipped: event \"no start\" has no DTSTART"]
        );
    }

    #[test]
    fn max_events_and_max_bytes_cap_the_list() {
        let s = settings(&["google.ics", "vdir"], 72, 2);
        let text = calendar_text(&s, now(), Zone::UTC).unwrap();
        let lines: Vec<String> = text.text.lines().skip(1).map(testing::unlabelled).collect();
        assert_eq!(
            lines,
            [
                "- Sun 22 Nov 09:30–11:00 (now, until 11:00): Design review — at Room 2.01",
                "- Sun 22 Nov 16:00–17:00 (in 5 h 55 min): Deploy window, API v3",
                "- … and at least 5 more",
            ]
        );
        let mut s = settings(&["google.ics", "vdir"], 72, 50);
        s.max_bytes = 200;
        let text = calendar_text(&s, now(), Zone::UTC).unwrap();
        assert!(text.truncated && text.text.len() <= 200, "{text:?}");
        assert!(text.text.ends_with('\n'), "cut at a line end: {text:?}");
    }

    #[test]
    fn durations_and_distances_read_as_people_write_them() {
        for (text, seconds) in [
            ("PT1H30M", Some(5400)),
            ("P1D", Some(86_400)),
            ("P2W", Some(1_209_600)),
            ("-PT15M", Some(-900)),
            ("P1DT2H", Some(93_600)),
            ("PT", None),
            ("P1H", None),
            ("1H", None),
            ("PT5", None),
            ("P99999999999999999999D", None),
            ("P99999999999D", None),
            ("P36600D", Some(36_600 * 86_400)),
        ] {
            assert_eq!(
                parse_duration(text).map(|d| d.num_seconds()),
                seconds,
                "{text}"
            );
        }
        for (minutes, text) in [
            (0, "now"),
            (1, "in 1 min"),
            (59, "in 59 min"),
            (60, "in 1 h"),
            (135, "in 2 h 15 min"),
            (1439, "in 23 h 59 min"),
            (1440, "in 1 day"),
            (1440 + 4 * 60 + 10, "in 1 day 4 h"),
            (2 * 1440 + 60, "in 2 days 1 h"),
            (3 * 1440 + 719, "in 3 days"),
            (3 * 1440 + 720, "in 4 days"),
        ] {
            assert_eq!(until_text(TimeDelta::minutes(minutes)), text, "{minutes}");
        }
    }
}
