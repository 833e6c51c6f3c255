//! Why the `ics` source could not use a calendar file ([`CalendarError`]: the file is
//! skipped with a warning, and fails the source only when no file could be read) or one
//! event of it ([`EventError`] while it is read, [`ExpandError`] while its recurrences
//! are expanded: the event is skipped with a warning), and why a date or time value
//! cannot be read ([`StampError`]).
//!
//! Owns what these failures say: never the parser's quote of the file, and values of it
//! only cleaned to one line and cut short. Must not import the rest of `ics` (the limits
//! a failure names are in its variant), so `super::super::error` can wrap a
//! [`CalendarError`] without a cycle.

use std::fmt;
use std::io;

use crate::sources::text::one_line;

/// Why one calendar file is not read.
#[derive(Debug, thiserror::Error)]
pub enum CalendarError {
    /// The file cannot be opened or read.
    #[error("{0}")]
    Read(#[source] io::Error),
    /// The source's calendars together passed `mb` MB before this one.
    #[error("the source's calendars passed {mb} MB in all: this one is not read")]
    SourceBytesSpent { mb: usize },
    /// The file alone is larger than `mb` MB.
    #[error("larger than {mb} MB")]
    TooLarge { mb: usize },
    /// Components nested deeper than `max` (the parser recurses).
    #[error("components nested more than {max} deep")]
    TooDeep { max: usize },
    #[error("not an iCalendar file (no BEGIN:VCALENDAR)")]
    NotICalendar,
    /// The parser stopped, at `line` when it said (folded lines counted as one).
    #[error("{}", match .line {
        Some(n) => format!("not valid iCalendar (the parser stopped at line {n}, counting folded lines as one): fix or remove the file"),
        None => "not valid iCalendar: fix or remove the file".to_string(),
    })]
    Invalid { line: Option<u64> },
    /// The reader panicked on the file (a bug on hostile input): the file is skipped.
    #[error("the calendar could not be read (the reader failed on it)")]
    ReaderFailed,
}

/// An event as a warning names it: by its title (already cut to one short line), or as
/// an event without one (`None`: its `SUMMARY` is missing or blank).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventName {
    pub title: Option<String>,
}

impl fmt::Display for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.title {
            Some(title) => write!(f, "event \"{title}\""),
            None => f.write_str("an event without a title"),
        }
    }
}

/// Why a date or date-time property's value cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StampError {
    /// The value (as written, cut to one short line) is neither.
    #[error("`{}` is not a date or time", one_line(.value, ' ', 40))]
    NotATime { value: String },
    /// The property holds no value.
    #[error("empty")]
    Empty,
}

/// Why one event of a calendar cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EventError {
    /// A date or time property (`DTSTART`, `DTEND`, `RECURRENCE-ID`) that cannot be read.
    #[error("{event}: {property}: {source}")]
    Stamp {
        event: EventName,
        property: &'static str,
        source: StampError,
    },
    #[error("{event} has no DTSTART")]
    NoStart { event: EventName },
    /// A `DURATION` that is not one (the value as written).
    #[error("{event}: DURATION `{}` is not a duration", one_line(.value, ' ', 40))]
    Duration { event: EventName, value: String },
    /// The parser stopped in the event, at `line` of the file (folded lines counted as
    /// one): the event is left out, the calendar's others are read.
    #[error(
        "the event at line {line} is not valid iCalendar (the parser stopped there, counting folded lines as one)"
    )]
    Invalid { line: u64 },
    /// The event's text passed `kb` KB: it is not parsed.
    #[error("the event at line {line} is larger than {kb} KB")]
    TooLarge { line: u64, kb: usize },
}

/// Why an event's occurrences cannot be expanded.
#[derive(Debug, thiserror::Error)]
pub enum ExpandError {
    #[error("its start cannot be placed in its time zone")]
    StartUnplaceable,
    /// More than `max` occurrences walked before the window was done.
    #[error("stopped after walking {max} occurrences (too many to expand)")]
    TooManyOccurrences { max: usize },
    /// The source's whole budget of `steps` is spent.
    #[error("the calendar's recurrences took all {steps} steps of expansion a source may take")]
    WorkSpent { steps: usize },
    /// RFC 5545's rule text is ASCII (the `rrule` crate slices it by byte).
    #[error("RRULE cannot be read: it holds a character that is not ASCII")]
    NotAscii,
    #[error("RRULE cannot be read: {}", one_line(&.source.to_string(), ' ', 120))]
    Unreadable { source: rrule::RRuleError },
    /// The rule's lists allow more than `max` occurrences in one period.
    #[error("RRULE allows {per_period} occurrences a period (at most {max} are expanded)")]
    TooManyPerPeriod { per_period: usize, max: usize },
    /// Reaching the window would take more than `max` steps.
    #[error("RRULE needs {work} steps to reach the window (at most {max} are taken)")]
    TooFar { work: i64, max: i64 },
    #[error("RRULE is not valid: {}", one_line(&.source.to_string(), ' ', 120))]
    Invalid { source: rrule::RRuleError },
    /// The `UNTIL` value as written.
    #[error("RRULE's UNTIL `{}` is not a date or time", one_line(.value, ' ', 40))]
    UntilNotATime { value: String },
    #[error("RRULE's UNTIL cannot be placed in its time zone")]
    UntilUnplaceable,
}
