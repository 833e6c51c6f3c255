//! Questions about time: "today", "tomorrow", "this week", "next week", "the weekend",
//! a weekday, "anything urgent", "what's due", "deadlines", "soon", "coming up". Such a
//! question asks for what is due in that window (and what is overdue), and "urgent" for
//! the important entries too, whatever their words. "Due", "soon", "upcoming" and
//! "coming up" reach `[recall] due_horizon_days` ahead (default
//! [`DEFAULT_DUE_HORIZON_DAYS`], counted in local days: an item due on the last day
//! counts whatever its hour).
//!
//! Pure: the question's words and the clock in, windows and entries out.

use chrono::{Datelike, NaiveDate, TimeDelta, Weekday};

use super::fields;
use crate::clock::Clock;
use crate::state::Entry;

/// Importance from which an entry counts as urgent without a due date.
pub const URGENT_IMPORTANCE: f64 = 8.0;
/// "Due", "soon", "coming up" reach this many local days ahead when the config does not
/// say (`[recall] due_horizon_days`). Three days, before issue 32, left "what's due?"
/// empty with items due in 3 days 16 hours and in 7 days.
pub const DEFAULT_DUE_HORIZON_DAYS: u32 = 7;
/// "Urgent" reaches this far ahead.
const URGENT: TimeDelta = TimeDelta::days(2);

/// A span of local days a question names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Window {
    Today,
    Tomorrow,
    ThisWeek,
    NextWeek,
    Weekend,
    Day(Weekday),
    /// "due", "deadline", "soon", "upcoming", "coming up": the horizon's days.
    Soon,
    /// "urgent", "asap": the next two days, and the important entries.
    Urgent,
}

/// What a question asks about time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeAsk {
    pub windows: Vec<Window>,
    /// How many local days ahead [`Window::Soon`] reaches (today is day 0).
    pub horizon_days: u32,
}

impl Default for TimeAsk {
    fn default() -> Self {
        TimeAsk {
            windows: Vec::new(),
            horizon_days: DEFAULT_DUE_HORIZON_DAYS,
        }
    }
}

/// The words of time (removed from the words a question is matched with; weekdays
/// stay, since summaries name them).
pub fn is_time_word(word: &str) -> bool {
    matches!(
        word,
        "today"
            | "tonight"
            | "tomorrow"
            | "tmrw"
            | "week"
            | "weekend"
            | "urgent"
            | "urgently"
            | "asap"
            | "due"
            | "overdue"
            | "deadline"
            | "deadlines"
            | "soon"
            | "upcoming"
            | "pressing"
    )
}

fn weekday(word: &str) -> Option<Weekday> {
    Some(match word {
        "monday" => Weekday::Mon,
        "tuesday" => Weekday::Tue,
        "wednesday" => Weekday::Wed,
        "thursday" => Weekday::Thu,
        "friday" => Weekday::Fri,
        "saturday" => Weekday::Sat,
        "sunday" => Weekday::Sun,
        _ => return None,
    })
}

/// The weekday's name as the words of a question write it.
pub fn weekday_word(day: Weekday) -> &'static str {
    match day {
        Weekday::Mon => "monday",
        Weekday::Tue => "tuesday",
        Weekday::Wed => "wednesday",
        Weekday::Thu => "thursday",
        Weekday::Fri => "friday",
        Weekday::Sat => "saturday",
        Weekday::Sun => "sunday",
    }
}

impl TimeAsk {
    /// The windows named by `words` (lowercase, in order); empty when none is.
    pub fn parse(words: &[String]) -> TimeAsk {
        let mut windows = Vec::new();
        let mut push = |w: Window| {
            if !windows.contains(&w) {
                windows.push(w);
            }
        };
        for (i, word) in words.iter().enumerate() {
            let before = i.checked_sub(1).map(|j| words[j].as_str());
            match word.as_str() {
                "today" | "tonight" => push(Window::Today),
                "tomorrow" | "tmrw" => push(Window::Tomorrow),
                "week" if before == Some("next") => push(Window::NextWeek),
                "week" => push(Window::ThisWeek),
                "weekend" => push(Window::Weekend),
                "urgent" | "urgently" | "asap" | "pressing" => push(Window::Urgent),
                "due" | "overdue" | "deadline" | "deadlines" | "soon" | "upcoming" => {
                    push(Window::Soon);
                }
                "up" if before == Some("coming") => push(Window::Soon),
                w => {
                    if let Some(day) = weekday(w) {
                        push(Window::Day(day));
                    }
                }
            }
        }
        TimeAsk {
            windows,
            horizon_days: DEFAULT_DUE_HORIZON_DAYS,
        }
    }

    /// The same question with "due" and "soon" reaching `days` ahead.
    #[must_use]
    pub fn with_horizon(mut self, days: u32) -> TimeAsk {
        self.horizon_days = days;
        self
    }

    pub fn is_empty(&self) -> bool {
        self.windows.is_empty()
    }

    /// Whether `entry` is in one of the windows: due in it, overdue, or (for "urgent")
    /// important.
    pub fn holds(&self, entry: &Entry, clock: &Clock) -> bool {
        self.windows
            .iter()
            .any(|w| in_window(*w, entry, clock, self.horizon_days))
    }
}

fn in_window(window: Window, entry: &Entry, clock: &Clock, horizon_days: u32) -> bool {
    let Some(due) = entry.due else {
        return window == Window::Urgent && fields::importance(entry) >= URGENT_IMPORTANCE;
    };
    let overdue = due < clock.now;
    let today = clock.today();
    let day = clock.zone.day(due);
    let (first, last): (NaiveDate, NaiveDate) = match window {
        Window::Today => (today, today),
        Window::Tomorrow => {
            let d = today + TimeDelta::days(1);
            return day == d;
        }
        Window::ThisWeek => {
            let left = 6 - i64::from(today.weekday().num_days_from_monday());
            (today, today + TimeDelta::days(left))
        }
        Window::NextWeek => {
            let monday =
                today + TimeDelta::days(7 - i64::from(today.weekday().num_days_from_monday()));
            return day >= monday && day <= monday + TimeDelta::days(6);
        }
        Window::Weekend => {
            let to_saturday = (i64::from(Weekday::Sat.num_days_from_monday())
                - i64::from(today.weekday().num_days_from_monday()))
            .rem_euclid(7);
            let saturday = if today.weekday() == Weekday::Sun {
                today - TimeDelta::days(1)
            } else {
                today + TimeDelta::days(to_saturday)
            };
            return day >= saturday && day <= saturday + TimeDelta::days(1);
        }
        Window::Day(wd) => {
            let ahead = (i64::from(wd.num_days_from_monday())
                - i64::from(today.weekday().num_days_from_monday()))
            .rem_euclid(7);
            return day == today + TimeDelta::days(ahead);
        }
        Window::Soon => return overdue || day <= today + TimeDelta::days(i64::from(horizon_days)),
        Window::Urgent => {
            return overdue
                || due - clock.now <= URGENT
                || fields::importance(entry) >= URGENT_IMPORTANCE;
        }
    };
    overdue || (day >= first && day <= last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Zone;

    fn words(text: &str) -> Vec<String> {
        super::super::words::raw_words(text)
    }

    #[test]
    fn windows_are_read_from_the_words() {
        for (text, want) in [
            ("what's on today?", vec![Window::Today]),
            ("anything tomorrow", vec![Window::Tomorrow]),
            ("what do I have this week", vec![Window::ThisWeek]),
            ("and next week?", vec![Window::NextWeek]),
            ("plans for the weekend", vec![Window::Weekend]),
            ("anything urgent?", vec![Window::Urgent]),
            ("what's due", vec![Window::Soon]),
            ("what's coming up", vec![Window::Soon]),
            ("anything coming up?", vec![Window::Soon]),
            ("on Friday", vec![Window::Day(Weekday::Fri)]),
            ("write a haiku about autumn leaves", vec![]),
        ] {
            assert_eq!(TimeAsk::parse(&words(text)).windows, want, "{text}");
        }
    }

    /// Sunday 2026-11-22, 10:00 UTC.
    fn clock() -> Clock {
        Clock::new(
            crate::timestamp::parse("2026-11-22T10:00:00Z").unwrap(),
            Zone::Fixed(chrono::FixedOffset::east_opt(3600).unwrap()),
        )
    }

    fn due(at: Option<&str>, importance: f64) -> Entry {
        let mut e: Entry = serde_json::from_value(serde_json::json!({
            "id": "t-x", "summary": "s", "strength": 4,
            "created": "2026-11-20T10:00:00Z", "last_seen": "2026-11-20T10:00:00Z",
            "importance": importance
        }))
        .unwrap();
        e.due = at.map(|t| crate::timestamp::parse(t).unwrap());
        e
    }

    /// Table: (window, due, importance, held).
    #[test]
    fn an_entry_is_in_a_window_by_its_local_due_day() {
        let c = clock();
        for (window, at, importance, want) in [
            (Window::Today, Some("2026-11-22T20:00:00Z"), 5.0, true),
            // 23:30 UTC is Monday 00:30 in UTC+1: tomorrow, not today.
            (Window::Today, Some("2026-11-22T23:30:00Z"), 5.0, false),
            (Window::Tomorrow, Some("2026-11-22T23:30:00Z"), 5.0, true),
            (Window::Today, Some("2026-11-21T09:00:00Z"), 5.0, true),
            (Window::ThisWeek, Some("2026-11-22T21:00:00Z"), 5.0, true),
            (Window::ThisWeek, Some("2026-11-24T09:00:00Z"), 5.0, false),
            (Window::NextWeek, Some("2026-11-24T09:00:00Z"), 5.0, true),
            (Window::Weekend, Some("2026-11-21T15:00:00Z"), 5.0, true),
            (
                Window::Day(Weekday::Tue),
                Some("2026-11-24T09:00:00Z"),
                5.0,
                true,
            ),
            (
                Window::Day(Weekday::Wed),
                Some("2026-11-24T09:00:00Z"),
                5.0,
                false,
            ),
            (Window::Soon, Some("2026-11-25T09:00:00Z"), 5.0, true),
            (Window::Soon, Some("2026-12-25T09:00:00Z"), 5.0, false),
            // Issue 32: 3 days 16 hours and 7 days ahead are due; the horizon ends with
            // the 7th local day (Sunday 29 November in UTC+1), whatever the hour.
            (Window::Soon, Some("2026-11-26T02:00:00Z"), 5.0, true),
            (Window::Soon, Some("2026-11-29T21:00:00Z"), 5.0, true),
            (Window::Soon, Some("2026-11-29T23:30:00Z"), 5.0, false),
            (Window::Urgent, Some("2026-12-25T09:00:00Z"), 9.0, true),
            (Window::Urgent, None, 9.0, true),
            (Window::Urgent, None, 5.0, false),
            (Window::Soon, None, 9.0, false),
        ] {
            let ask = TimeAsk {
                windows: vec![window],
                ..TimeAsk::default()
            };
            assert_eq!(
                ask.holds(&due(at, importance), &c),
                want,
                "{window:?} {at:?}"
            );
        }
    }
}
