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
//! recurses). **Memory** (issue 22's calendar bomb: one 15 MB file peaked at 804 MB):
//! `SUMMARY` and `LOCATION` are cut to a few hundred characters when read, and an
//! event's occurrences share them; a file's text is dropped once parsed; the source
//! keeps only the `max_events` + 1 earliest occurrences across its files (counting the
//! others for "… and at least N more"), and reads at most [`SOURCE_BYTES`] of calendars
//! in all (a file past that is skipped with a warning).
//!
//! **Failures.** A file that cannot be read or parsed, or an event that cannot be
//! expanded, is skipped with a `warn` line on stderr (the file, an event's title cleaned
//! to one line, and what is wrong; never the parser's quote of the file); the other files
//! still show. Only when files were found and none could be read is it a source failure.
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
//! Owns [`IcsSettings`]; must not read the real clock (the window is `GatherContext::now`
//! in `GatherContext::zone`) nor name `chrono::Local`.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, TimeZone as _, Utc};
use chrono_tz::Tz;
use icalendar::parser::{Component, Property};
use rrule::{Frequency, RRule, RRuleSet, Unvalidated};
use serde::Deserialize;

use super::read::{blocking, read_head};
use super::settings::{self, MAX_BYTES_RANGE, Resolve, SettingsError};
use super::text::{cap_head, clean, one_line};
use super::{GatherContext, Text};
use crate::clock::Zone;

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

/// At most this many calendar files are read.
pub const MAX_FILES: usize = 20_000;
/// A larger calendar file is skipped.
pub const MAX_FILE_BYTES: usize = 16 << 20;
/// Components nested deeper than this (VCALENDAR > VEVENT > VALARM is 3) are refused.
pub const MAX_NESTING: usize = 8;
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
/// Longest summary shown, in characters.
pub const SUMMARY_CHARS: usize = 200;
/// Longest location shown, in characters.
pub const LOCATION_CHARS: usize = 120;
/// A `SUMMARY` or `LOCATION` is kept to this many characters when read (what cleaning
/// may take out, and the `…` of a longer one, still shows).
const FIELD_READ_CHARS: usize = 4 * SUMMARY_CHARS;
/// At most this many bytes of calendar files are read by one source, all files together
/// (a file past it is skipped with a warning).
pub const SOURCE_BYTES: usize = 64 << 20;

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
                    .map_err(|message| SettingsError::at(format!("paths[{i}]"), message))
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

/// Reads the calendars, on the blocking pool.
pub(super) async fn text(settings: &IcsSettings, ctx: &GatherContext<'_>) -> Result<Text, String> {
    let mut settings = settings.clone();
    settings.max_bytes = settings.max_bytes.min(ctx.max_bytes);
    let now = ctx.now;
    let zone = ctx.zone;
    blocking(move || calendar_text(&settings, now, zone)).await
}

/// The whole source: files found, parsed, expanded, listed.
fn calendar_text(settings: &IcsSettings, now: DateTime<Utc>, zone: Zone) -> Result<Text, String> {
    let files = calendar_files(&settings.paths)?;
    let window = Window::ahead(now, settings.hours());
    let mut budget = SOURCE_WORK;
    let mut bytes_left = SOURCE_BYTES;
    let mut all = Vec::new();
    let mut found_total = 0usize;
    let mut read_any = false;
    let mut first_error = None;
    for path in &files {
        // A panic in the parser or the rule expansion (a bug on hostile input) costs
        // that file, not the source.
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            file_occurrences(
                path,
                window,
                zone,
                settings.max_events,
                &mut budget,
                &mut bytes_left,
            )
        }))
        .unwrap_or_else(|_| Err("the calendar could not be read (the reader failed on it)".into()));
        match read {
            Ok((found, warnings)) => {
                read_any = true;
                found_total += found.len();
                all.extend(found);
                // Only the earliest can be listed: the source keeps no more than that,
                // whatever its files hold.
                keep_earliest(&mut all, settings.max_events + 1);
                for w in warnings {
                    warn(path, &w, true);
                }
            }
            Err(e) => {
                warn(path, &e, false);
                first_error.get_or_insert_with(|| format!("{}: {e}", path.display()));
            }
        }
    }
    if let (false, Some(e)) = (read_any, first_error) {
        return Err(format!(
            "no calendar file could be read: {}",
            one_line(&e, ' ', 300)
        ));
    }
    let more = found_total.saturating_sub(settings.max_events);
    let mut text = clean(&render(all, window, zone, settings.max_events, more));
    let truncated = cap_head(&mut text, settings.max_bytes, false);
    Ok(Text { text, truncated })
}

/// One calendar's text read, expanded and rendered as `calendar_text` does a file's,
/// without the file system and without the `catch_unwind` it puts around each file, so a
/// panic on hostile input fails the fuzz tests (`tests/proof_fuzz.rs`) instead of
/// quietly costing a file. Returns the listing and the warnings. Not part of the API.
#[doc(hidden)]
pub fn fuzz_calendar(
    text: &str,
    now: DateTime<Utc>,
    zone: Zone,
    hours: u32,
    max_events: usize,
) -> Result<(String, Vec<String>), String> {
    let window = Window::ahead(now, hours);
    let mut budget = SOURCE_WORK;
    let (events, mut warnings) = parse_calendar(text)?;
    let found = expand_all(
        &events,
        window,
        zone,
        max_events,
        &mut budget,
        &mut warnings,
    );
    let more = found.len().saturating_sub(max_events);
    Ok((
        clean(&render(found, window, zone, max_events, more)),
        warnings,
    ))
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

// --- Files ---------------------------------------------------------------------------

fn is_glob(path: &str) -> bool {
    path.contains(['*', '?', '['])
}

/// The calendar files of `paths`, sorted, deduplicated, at most [`MAX_FILES`].
fn calendar_files(paths: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for p in paths {
        let found: Vec<PathBuf> = if is_glob(p) {
            let matches = glob::glob(p)
                .map_err(|e| format!("`{p}` is not a valid glob: {e}: fix `paths`"))?;
            let found: Vec<PathBuf> = matches.filter_map(Result::ok).take(MAX_FILES).collect();
            if found.is_empty() {
                return Err(format!(
                    "`{p}` matches nothing: fix `paths`, or sync the calendar first (e.g. `vdirsyncer sync`)"
                ));
            }
            found
        } else {
            vec![PathBuf::from(p)]
        };
        for path in found {
            match std::fs::metadata(&path) {
                Ok(m) if m.is_dir() => vdir_files(&path, 1, &mut files)
                    .map_err(|e| format!("{}: cannot list the directory: {e}", path.display()))?,
                Ok(_) => files.push(path),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(format!(
                        "{} does not exist: fix `paths`, or sync the calendar first (e.g. `vdirsyncer sync`)",
                        path.display()
                    ));
                }
                Err(e) => return Err(format!("{}: {e}", path.display())),
            }
        }
    }
    files.sort();
    files.dedup();
    if files.len() > MAX_FILES {
        tracing::warn!(
            "calendar: {} files found, only the first {MAX_FILES} are read",
            files.len()
        );
        files.truncate(MAX_FILES);
    }
    Ok(files)
}

/// The `.ics` files of a vdir directory, and of its subdirectories `depth` levels down.
fn vdir_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() && depth > 0 => {
                // An unreadable calendar of several is skipped, not fatal.
                if let Err(e) = vdir_files(&path, depth - 1, out) {
                    tracing::warn!("calendar directory {} skipped: {e}", path.display());
                }
            }
            Ok(m) if m.is_file() && name.to_ascii_lowercase().ends_with(".ics") => out.push(path),
            _ => {}
        }
        if out.len() > MAX_FILES {
            break;
        }
    }
    Ok(())
}

/// The occurrences in one file, and warnings about events skipped.
fn file_occurrences(
    path: &Path,
    window: Window,
    zone: Zone,
    max_events: usize,
    budget: &mut usize,
    bytes_left: &mut usize,
) -> Result<(Vec<Occurrence>, Vec<String>), String> {
    let limit = MAX_FILE_BYTES.min(*bytes_left);
    let bytes = read_head(path, limit + 1).map_err(|e| e.to_string())?;
    if bytes.len() > limit {
        return Err(if limit < MAX_FILE_BYTES {
            format!(
                "the source's calendars passed {} MB in all: this one is not read",
                SOURCE_BYTES >> 20
            )
        } else {
            format!("larger than {} MB", MAX_FILE_BYTES >> 20)
        });
    }
    *bytes_left -= bytes.len();
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    // The file's text goes once unfolded (and its long lines cut): the parser works on
    // the smaller copy.
    let unfolded = unfold_capped(&text);
    drop(text);
    let (events, mut warnings) = parse_unfolded(&unfolded)?;
    drop(unfolded);
    let found = expand_all(&events, window, zone, max_events, budget, &mut warnings);
    Ok((found, warnings))
}

// --- Parsing -------------------------------------------------------------------------

/// A date or date-time as written.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Stamp {
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
struct Event {
    uid: Option<String>,
    start: Stamp,
    end: Option<Stamp>,
    duration: Option<TimeDelta>,
    summary: Arc<str>,
    location: Arc<str>,
    rrule: Option<String>,
    rdates: Vec<Stamp>,
    exdates: Vec<Stamp>,
    recurrence_id: Option<Stamp>,
    cancelled: bool,
}

/// The events of a calendar file, and warnings about events that cannot be read.
fn parse_calendar(text: &str) -> Result<(Vec<Event>, Vec<String>), String> {
    parse_unfolded(&unfold_capped(text))
}

/// The longest logical line (a property with its folded continuations) kept when a
/// calendar is unfolded: the rest of a longer one is dropped before parsing, so a 15 MB
/// `SUMMARY` costs the parser nothing (issue 22).
const MAX_LINE_BYTES: usize = 64 << 10;

/// `text` unfolded (RFC 5545 §3.1: a line break followed by a space or a tab joins the
/// lines; `\r\n` or `\n`), each logical line cut to [`MAX_LINE_BYTES`] on a char
/// boundary, lines ending in `\n`; a leading BOM dropped.
fn unfold_capped(text: &str) -> String {
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
fn parse_unfolded(unfolded: &str) -> Result<(Vec<Event>, Vec<String>), String> {
    check_nesting(unfolded)?;
    if !unfolded
        .lines()
        .any(|l| l.trim_end().eq_ignore_ascii_case("BEGIN:VCALENDAR"))
    {
        return Err("not an iCalendar file (no BEGIN:VCALENDAR)".into());
    }
    let calendar = icalendar::parser::read_calendar(unfolded).map_err(|e| {
        // nom's report ("0: at line 4, in Satisfy: …") quotes the file: only its line.
        let line = e
            .split("at line ")
            .nth(1)
            .map(|rest| rest.chars().take_while(char::is_ascii_digit).collect::<String>())
            .filter(|n| !n.is_empty());
        match line {
            Some(n) => format!(
                "not valid iCalendar (the parser stopped at line {n}, counting folded lines as one): fix or remove the file"
            ),
            None => "not valid iCalendar: fix or remove the file".to_string(),
        }
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
fn check_nesting(text: &str) -> Result<(), String> {
    let mut depth = 0usize;
    for line in text.lines() {
        let upper = line.get(..6).map(str::to_ascii_uppercase);
        match upper.as_deref() {
            Some("BEGIN:") => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(format!("components nested more than {MAX_NESTING} deep"));
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
) -> Result<Event, String> {
    let text = |name: &str| prop(c, name).map(|p| p.val.as_str().to_string());
    // Capped at read (issue 22's calendar bomb): only so much of a title is ever shown.
    let summary: Arc<str> = capped(&text("SUMMARY").unwrap_or_default(), FIELD_READ_CHARS).into();
    let what = if summary.trim().is_empty() {
        "an event without a title".to_string()
    } else {
        format!("event \"{}\"", one_line(&summary, ' ', 60))
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
    let one = |name: &str| -> Result<Option<Stamp>, String> {
        prop(c, name)
            .map(|p| {
                stamp_list(p, zones)?
                    .into_iter()
                    .next()
                    .ok_or_else(|| "empty".to_string())
            })
            .transpose()
            .map_err(|e| format!("{what}: {name}: {e}"))
    };
    let start = one("DTSTART")?.ok_or_else(|| format!("{what} has no DTSTART"))?;
    let end = one("DTEND")?;
    let recurrence_id = one("RECURRENCE-ID")?;
    let duration = match text("DURATION") {
        None => None,
        Some(d) => Some(parse_duration(&d).ok_or_else(|| {
            format!(
                "{what}: DURATION `{}` is not a duration",
                one_line(&d, ' ', 40)
            )
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
fn stamp_list(p: &Property<'_>, zones: &HashMap<String, String>) -> Result<Vec<Stamp>, String> {
    let date = param(p, "VALUE").is_some_and(|v| v.eq_ignore_ascii_case("DATE"));
    let zone = param(p, "TZID").and_then(|id| zone_named(id, zones));
    p.val
        .as_str()
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        // An RDATE period (`start/end`) counts by its start.
        .map(|v| v.split('/').next().unwrap_or(v))
        .map(|v| {
            parse_stamp(v, date, zone)
                .ok_or_else(|| format!("`{}` is not a date or time", one_line(v, ' ', 40)))
        })
        .collect()
}

fn parse_stamp(value: &str, date: bool, zone: Option<Tz>) -> Option<Stamp> {
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
fn parse_duration(text: &str) -> Option<TimeDelta> {
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

// --- Time ----------------------------------------------------------------------------

/// The window events are listed in: `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Window {
    start: DateTime<Utc>,
    end: DateTime<Utc>,
}

impl Window {
    fn ahead(now: DateTime<Utc>, hours: u32) -> Window {
        Window {
            start: now,
            end: now + TimeDelta::hours(i64::from(hours)),
        }
    }
}

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

// --- Expansion -----------------------------------------------------------------------

/// One occurrence of an event, ready to list.
#[derive(Debug, Clone, PartialEq)]
struct Occurrence {
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    /// An all-day occurrence: its first and last day (inclusive).
    days: Option<(NaiveDate, NaiveDate)>,
    /// Shared with its event's other occurrences (issue 22: an hourly event with a huge
    /// title kept a copy per occurrence).
    summary: Arc<str>,
    location: Arc<str>,
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

/// All occurrences of a file's events in the window; warnings for events skipped.
fn expand_all(
    events: &[Event],
    window: Window,
    zone: Zone,
    max_events: usize,
    budget: &mut usize,
    warnings: &mut Vec<String>,
) -> Vec<Occurrence> {
    // Overrides replace the occurrence their RECURRENCE-ID names.
    let mut overridden: HashMap<&str, Vec<Stamp>> = HashMap::new();
    for e in events {
        if let (Some(uid), Some(id)) = (&e.uid, e.recurrence_id) {
            overridden.entry(uid.as_str()).or_default().push(id);
        }
    }
    let mut out = Vec::new();
    for e in events.iter().filter(|e| !e.cancelled) {
        let replaced: &[Stamp] = match (&e.uid, e.recurrence_id) {
            (Some(uid), None) => overridden.get(uid.as_str()).map_or(&[], Vec::as_slice),
            _ => &[],
        };
        match occurrences(e, replaced, window, zone, max_events, budget) {
            Ok(found) => out.extend(found),
            Err(why) => warnings.push(format!(
                "event \"{}\" skipped: {why}",
                one_line(&e.summary, ' ', 60)
            )),
        }
    }
    out
}

/// The occurrences of one event in the window (at most `max` + 1), `replaced` ones left
/// out.
fn occurrences(
    e: &Event,
    replaced: &[Stamp],
    window: Window,
    zone: Zone,
    max: usize,
    budget: &mut usize,
) -> Result<Vec<Occurrence>, String> {
    let frame = Frame::of(e.start);
    let all_day = matches!(e.start, Stamp::Date(_));
    let length = length(e, zone);
    let reach = match length {
        Length::Days(d) => TimeDelta::days(d + 1),
        Length::Exact(d) => d + TimeDelta::days(1),
    };
    let dtstart = frame
        .at(e.start, zone)
        .ok_or("its start cannot be placed in its time zone")?;
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
            return Err(format!(
                "stopped after walking {MAX_WALK} occurrences (too many to expand)"
            ));
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
            out.push(Occurrence {
                start,
                end,
                days,
                summary: Arc::clone(&e.summary),
                location: Arc::clone(&e.location),
            });
            // One more than can be listed: the list then says there are more.
            if out.len() > max {
                break;
            }
        }
    }
    Ok(out)
}

fn spent() -> String {
    format!(
        "the calendar's recurrences took all {SOURCE_WORK} steps of expansion a source may take"
    )
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
) -> Result<Option<RRuleSet>, String> {
    // RFC 5545's rule text is ASCII; the `rrule` crate slices it by byte and panics on
    // a multi-byte character (`BYDAY=MO\u{fffd}`).
    if !rule.is_ascii() {
        return Err("RRULE cannot be read: it holds a character that is not ASCII".into());
    }
    let rule = until_in_frame(rule, frame, zone)?;
    let parsed: RRule<Unvalidated> = rule.parse().map_err(|e: rrule::RRuleError| {
        format!(
            "RRULE cannot be read: {}",
            one_line(&e.to_string(), ' ', 120)
        )
    })?;
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
        return Err(format!(
            "RRULE allows {per_period} occurrences a period (at most {MAX_PER_PERIOD} are expanded)"
        ));
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
                .ok_or("its start cannot be placed in its time zone")?
                .with_timezone(&frame.rrule_tz()),
            Frame::Wall | Frame::Utc => naive.and_utc().with_timezone(&rrule::Tz::UTC),
        };
    }
    let periods = (to - dtstart.with_timezone(&Utc)).num_seconds() / step;
    let work = periods.saturating_mul(i64::try_from(per_period).unwrap_or(i64::MAX));
    if work > MAX_RULE_WORK {
        return Err(format!(
            "RRULE needs {work} steps to reach the window (at most {MAX_RULE_WORK} are taken)"
        ));
    }
    // The periods are walked even where no occurrence falls: they count.
    match usize::try_from(work) {
        Ok(p) if p <= *budget => *budget -= p,
        Ok(_) => return Err(spent()),
        Err(_) => {}
    }
    let validated = parsed
        .validate(dtstart)
        .map_err(|e| format!("RRULE is not valid: {}", one_line(&e.to_string(), ' ', 120)))?;
    Ok(Some(RRuleSet::new(dtstart).limit().rrule(validated)))
}

/// The rule with its `UNTIL` written as a UTC time of the frame (the `rrule` crate reads
/// a zone-less `UNTIL` in the machine's zone, which no output may depend on).
fn until_in_frame(rule: &str, frame: Frame, zone: Zone) -> Result<String, String> {
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
        let stamp = parse_stamp(value, false, None).ok_or_else(|| {
            format!(
                "RRULE's UNTIL `{}` is not a date or time",
                one_line(value, ' ', 40)
            )
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
        let until = frame
            .at(stamp, zone)
            .ok_or("RRULE's UNTIL cannot be placed in its time zone")?;
        parts.push(format!(
            "UNTIL={}",
            until.with_timezone(&Utc).format("%Y%m%dT%H%M%SZ")
        ));
    }
    Ok(parts.join(";"))
}

// --- Listing -------------------------------------------------------------------------

/// The text of the source: a header and one line per occurrence.
/// `more`: the occurrences found past the `max_events` listed (the source keeps only the
/// earliest, so it counts them as it goes).
fn render(
    mut all: Vec<Occurrence>,
    window: Window,
    zone: Zone,
    max_events: usize,
    more: usize,
) -> String {
    all.sort_by(order);
    let hours = (window.end - window.start).num_hours();
    let span = format!(
        "from {} to {} ({hours} h, local time UTC{})",
        zone.wall(window.start),
        zone.wall(window.end),
        zone.at(window.start).format("%:z")
    );
    if all.is_empty() {
        return format!("No events {span}.\n");
    }
    let mut out = format!("Events {span}:\n");
    for o in all.iter().take(max_events) {
        out.push_str(&line(o, window.start, zone));
        out.push('\n');
    }
    if more > 0 {
        let _ = writeln!(out, "- … and at least {more} more");
    }
    out
}

/// The `keep` earliest of `all` (as listed: by start, end, then summary).
fn keep_earliest(all: &mut Vec<Occurrence>, keep: usize) {
    if all.len() > keep {
        all.sort_by(order);
        all.truncate(keep);
    }
}

fn order(a: &Occurrence, b: &Occurrence) -> std::cmp::Ordering {
    a.start
        .cmp(&b.start)
        .then(a.end.cmp(&b.end))
        .then_with(|| a.summary.cmp(&b.summary))
}

/// `text` cut to at most `max` characters.
fn capped(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => text[..at].to_string(),
        None => text.to_string(),
    }
}

fn line(o: &Occurrence, now: DateTime<Utc>, zone: Zone) -> String {
    let (when, away) = if let Some((first, last)) = o.days {
        all_day_when(o, first, last, now, zone)
    } else {
        timed_when(o, now, zone)
    };
    let summary = one_line(&o.summary, ' ', SUMMARY_CHARS);
    let summary = if summary.trim().is_empty() {
        "(no title)".to_string()
    } else {
        summary.trim().to_string()
    };
    let location = one_line(&o.location, ' ', LOCATION_CHARS);
    let location = location.trim();
    if location.is_empty() {
        format!("- {when} ({away}): {summary}")
    } else {
        format!("- {when} ({away}): {summary} — at {location}")
    }
}

/// "all day Tue 24 Nov" and "today", "tomorrow", "in 3 days", "now, until Thu 26 Nov".
fn all_day_when(
    o: &Occurrence,
    first: NaiveDate,
    last: NaiveDate,
    now: DateTime<Utc>,
    zone: Zone,
) -> (String, String) {
    let day = |d: NaiveDate| d.format("%a %d %b").to_string();
    let when = if first == last {
        format!("all day {}", day(first))
    } else {
        format!("all day {} – {}", day(first), day(last))
    };
    let away = if o.start > now {
        match (first - zone.day(now)).num_days() {
            ..=1 => "tomorrow".to_string(),
            n => format!("in {n} days"),
        }
    } else if first == last {
        "today".to_string()
    } else {
        format!("now, until {}", day(last))
    };
    (when, away)
}

/// "Sun 22 Nov 09:30–11:00" and "in 2 h 15 min" or "now, until 11:00".
fn timed_when(o: &Occurrence, now: DateTime<Utc>, zone: Zone) -> (String, String) {
    let same_day = |a: DateTime<Utc>, b: DateTime<Utc>| zone.day(a) == zone.day(b);
    let clock = |t: DateTime<Utc>| zone.at(t).format("%H:%M").to_string();
    let when = if o.end == o.start {
        zone.wall(o.start)
    } else if same_day(o.start, o.end) {
        format!("{}–{}", zone.wall(o.start), clock(o.end))
    } else {
        format!("{} – {}", zone.wall(o.start), zone.wall(o.end))
    };
    let away = if o.start < now || (o.start == now && o.end > now) {
        let until = if same_day(now, o.end) {
            clock(o.end)
        } else {
            zone.wall(o.end)
        };
        format!("now, until {until}")
    } else {
        until_text(o.start - now)
    };
    (when, away)
}

/// How far ahead a start is: "now", "in 40 min", "in 2 h 15 min", "in 1 day 4 h",
/// "in 5 days" (from three days on, to the nearest day).
fn until_text(d: TimeDelta) -> String {
    let minutes = d.num_minutes();
    let days = |n: i64| {
        if n == 1 {
            "1 day".to_string()
        } else {
            format!("{n} days")
        }
    };
    match minutes {
        ..1 => "now".to_string(),
        1..60 => format!("in {minutes} min"),
        60..1440 => match minutes % 60 {
            0 => format!("in {} h", minutes / 60),
            m => format!("in {} h {m} min", minutes / 60),
        },
        1440..4320 => match (minutes % 1440) / 60 {
            0 => format!("in {}", days(minutes / 1440)),
            h => format!("in {} {h} h", days(minutes / 1440)),
        },
        _ => format!("in {}", days((minutes + 720) / 1440)),
    }
}

/// What counts as a change of the calendar for the quiet tick (`crate::quiet`): the
/// events in the window (when, what, where), without the header's window and each
/// event's "(in 2 h 15 min)" / "(now, until 11:00)", which move with the clock alone. An
/// event entering or leaving the window is a change.
pub(crate) fn world(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("Events from ") && !l.starts_with("No events from "))
        .map(|line| {
            let Some(open) = line.find(" (in ").or_else(|| line.find(" (now, until ")) else {
                return line.to_string();
            };
            match line[open..].find("):") {
                Some(close) => format!("{}{}", &line[..open], &line[open + close + 1..]),
                None => line.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use chrono::FixedOffset;
    use proptest::prelude::*;

    use super::*;
    use crate::timestamp;

    fn fixture(rel: &str) -> String {
        format!("{}/tests/fixtures/ics/{rel}", env!("CARGO_MANIFEST_DIR"))
    }

    fn settings(paths: &[&str], hours: u32, max_events: usize) -> IcsSettings {
        IcsSettings {
            paths: paths.iter().map(|p| fixture(p)).collect(),
            hours: Some(hours),
            max_events,
            max_bytes: DEFAULT_ICS_MAX_BYTES,
        }
    }

    fn t(text: &str) -> DateTime<Utc> {
        timestamp::parse(text).unwrap()
    }

    fn now() -> DateTime<Utc> {
        t("2026-11-22T10:05:00Z")
    }

    fn east(hours: i32) -> Zone {
        Zone::Fixed(FixedOffset::east_opt(hours * 3600).unwrap())
    }

    /// The event lines (header left out) of these fixtures.
    fn events(paths: &[&str], hours: u32, zone: Zone) -> Vec<String> {
        let text = calendar_text(&settings(paths, hours, 50), now(), zone)
            .unwrap()
            .text;
        text.lines().skip(1).map(str::to_string).collect()
    }

    /// The lines of an inline calendar's events in the 24 h window, in UTC.
    fn inline(events: &str) -> (Vec<String>, Vec<String>) {
        let text = format!("BEGIN:VCALENDAR\nVERSION:2.0\n{events}\nEND:VCALENDAR\n");
        let (parsed, mut warnings) = parse_calendar(&text).unwrap();
        let mut budget = SOURCE_WORK;
        let window = Window::ahead(now(), 24);
        let found = expand_all(&parsed, window, Zone::UTC, 50, &mut budget, &mut warnings);
        let more = found.len().saturating_sub(50);
        let text = render(found, window, Zone::UTC, 50, more);
        (text.lines().skip(1).map(str::to_string).collect(), warnings)
    }

    fn vevent(summary: &str, lines: &str) -> String {
        format!("BEGIN:VEVENT\nUID:{summary}\nSUMMARY:{summary}\n{lines}\nEND:VEVENT")
    }

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
    fn settings_are_checked_and_defaulted() {
        let resolve = |p: &str| -> Result<PathBuf, String> {
            if p.starts_with('~') {
                Err(format!("`{p}` cannot expand"))
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

    #[test]
    fn a_vdir_is_read_one_level_deep_and_cancelled_events_stay_out() {
        assert_eq!(
            events(&["vdir"], 72, Zone::UTC),
            [
                "- Sun 22 Nov 09:30–11:00 (now, until 11:00): Design review — at Room 2.01",
                "- Mon 23 Nov 15:00–15:45 (in 1 day 4 h): Dentist — at Dr. Weber, Hauptstr. 5",
                "- Mon 23 Nov 18:30–19:30 (in 1 day 8 h): Gym",
                "- all day Tue 24 Nov – Thu 26 Nov (in 2 days): Family visit",
            ]
        );
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

    /// Regression (issue 22's probe): an hourly event with a huge SUMMARY kept a full
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
        let mut budget = SOURCE_WORK;
        let mut warnings = Vec::new();
        let found = expand_all(
            &events,
            Window::ahead(now(), 72),
            Zone::UTC,
            1000,
            &mut budget,
            &mut warnings,
        );
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
    fn hostile_rules_are_capped_and_the_rest_still_shows() {
        let mut budget = SOURCE_WORK;
        let mut bytes = SOURCE_BYTES;
        let (found, warnings) = file_occurrences(
            Path::new(&fixture("hostile/secondly.ics")),
            Window::ahead(now(), 72),
            Zone::UTC,
            50,
            &mut budget,
            &mut bytes,
        )
        .unwrap();
        let summaries: Vec<&str> = found.iter().map(|o| &*o.summary).collect();
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
            assert!(e.contains("took all 50000000 steps"), "{budget}: {e}");
        }
        assert_eq!(daily(9).unwrap().len(), 1);
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
        assert!(e.starts_with("no calendar file could be read: "), "{e}");
        assert!(
            e.ends_with("broken.ics: not valid iCalendar (the parser stopped at line 4, counting folded lines as one): fix or remove the file"),
            "{e}"
        );
        // Not a calendar at all; nested too deep for the parser's recursion.
        assert_eq!(
            parse_calendar("From: a@b\n\nhello").unwrap_err(),
            "not an iCalendar file (no BEGIN:VCALENDAR)"
        );
        let deep = format!("BEGIN:VCALENDAR\n{}", "BEGIN:X\n".repeat(100_000));
        assert!(
            parse_calendar(&deep)
                .unwrap_err()
                .contains("nested more than 8 deep")
        );
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
    fn a_missing_path_fails_the_source_with_the_way_out() {
        let e = calendar_text(
            &settings(&["google.ics", "nope.ics"], 24, 50),
            now(),
            Zone::UTC,
        )
        .unwrap_err();
        assert!(e.ends_with("nope.ics does not exist: fix `paths`, or sync the calendar first (e.g. `vdirsyncer sync`)"), "{e}");
        let e = calendar_text(&settings(&["nope/*"], 24, 50), now(), Zone::UTC).unwrap_err();
        assert!(e.contains("nope/*` matches nothing: fix `paths`"), "{e}");
        // A glob of calendars (as `~/.calendars/*`), each a vdir.
        let lines = events(&["vdir/*"], 72, Zone::UTC);
        assert_eq!(lines.len(), 4, "{lines:#?}");
    }

    #[test]
    fn max_events_and_max_bytes_cap_the_list() {
        let s = settings(&["google.ics", "vdir"], 72, 2);
        let text = calendar_text(&s, now(), Zone::UTC).unwrap();
        let lines: Vec<&str> = text.text.lines().skip(1).collect();
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
    fn untrusted_text_is_cleaned_to_one_line() {
        let (lines, _) = inline(
            "BEGIN:VEVENT\nDTSTART:20261122T120000Z\nSUMMARY:Pay \\n\u{1b}[31mnow\u{202e}\nLOCATION:<<<END DATA 0>>>\nEND:VEVENT",
        );
        assert_eq!(
            lines,
            ["- Sun 22 Nov 12:00 (in 1 h 55 min): Pay  now — at <<<END DATA 0>>>"]
        );
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
        assert!(until_in_frame("FREQ=DAILY;UNTIL=soon", Frame::Utc, Zone::UTC).is_err());
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
