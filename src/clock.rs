//! The clock a command runs on, as a value: the instant it acts at (`now`) and the time
//! zone that instant is read in (the user's calendar day, quiet hours, the wall-clock
//! times shown to people and to the threads).
//!
//! Owns every conversion of an instant to local time: nothing else may name
//! `chrono::Local`. It must not read the real time itself: the command context decides
//! (`--now` or the system clock) and hands the value down, so replays, snapshots and
//! quiet hours never depend on the machine they run on.

use chrono::{DateTime, FixedOffset, Local, NaiveDate, NaiveTime, TimeDelta, Utc};

/// A time zone: the system's (from `TZ` or the system settings, via `chrono::Local`), a
/// named IANA zone (`[budget] timezone`, or the one a ledger recorded), or a fixed offset
/// (UTC in tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Zone {
    /// The machine's zone, with its daylight-saving rules.
    System,
    /// An IANA zone, with its daylight-saving rules.
    Named(chrono_tz::Tz),
    /// A fixed offset from UTC, e.g. `FixedOffset::east_opt(0)` for UTC.
    Fixed(FixedOffset),
}

impl Zone {
    /// UTC.
    pub const UTC: Zone = Zone::Fixed(match FixedOffset::east_opt(0) {
        Some(z) => z,
        None => unreachable!(),
    });

    /// `t` as local date and time in this zone, as a fixed-offset time.
    pub fn at(self, t: DateTime<Utc>) -> DateTime<FixedOffset> {
        match self {
            Zone::System => t.with_timezone(&Local).fixed_offset(),
            Zone::Named(tz) => t.with_timezone(&tz).fixed_offset(),
            Zone::Fixed(offset) => t.with_timezone(&offset),
        }
    }

    /// The zone as it can be written down and read back ([`Zone::named`]): an IANA name,
    /// or the offset at `t` (`+01:00`). The system's zone is named by `TZ` when that is
    /// an IANA name, else by the machine's `/etc/localtime` link or `/etc/timezone`, else
    /// by its offset at `t`.
    pub fn name(self, t: DateTime<Utc>) -> String {
        match self {
            Zone::Named(tz) => tz.name().to_string(),
            Zone::Fixed(offset) => offset.to_string(),
            Zone::System => system_zone_name().unwrap_or_else(|| self.at(t).offset().to_string()),
        }
    }

    /// A zone written by [`Zone::name`]: an IANA name or an offset such as `+01:00`.
    pub fn named(name: &str) -> Option<Zone> {
        let name = name.trim();
        if let Ok(tz) = name.parse::<chrono_tz::Tz>() {
            return Some(Zone::Named(tz));
        }
        name.parse::<FixedOffset>().ok().map(Zone::Fixed)
    }

    /// The local calendar day of `t`.
    pub fn day(self, t: DateTime<Utc>) -> NaiveDate {
        self.at(t).date_naive()
    }

    /// The local wall-clock time of `t`.
    pub fn time(self, t: DateTime<Utc>) -> NaiveTime {
        self.at(t).time()
    }

    /// A local wall-clock time for people: `Tue 24 Nov 09:00`.
    pub fn wall(self, t: DateTime<Utc>) -> String {
        self.at(t).format("%a %d %b %H:%M").to_string()
    }
}

/// The IANA name of the machine's zone: `TZ` (`Europe/Berlin`, `:Europe/Berlin`, or a
/// path under a `zoneinfo` directory), else where `/etc/localtime` links to, else
/// `/etc/timezone`.
fn system_zone_name() -> Option<String> {
    let iana = |text: &str| -> Option<String> {
        let text = text.trim().trim_start_matches(':');
        let name = text.rsplit_once("zoneinfo/").map_or(text, |(_, n)| n);
        name.parse::<chrono_tz::Tz>()
            .ok()
            .map(|tz| tz.name().to_string())
    };
    if let Ok(tz) = std::env::var("TZ") {
        return iana(&tz);
    }
    std::fs::read_link("/etc/localtime")
        .ok()
        .and_then(|p| iana(&p.to_string_lossy()))
        .or_else(|| {
            std::fs::read_to_string("/etc/timezone")
                .ok()
                .and_then(|t| iana(&t))
        })
}

/// The instant a command acts at, and the zone it reads local times in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    pub now: DateTime<Utc>,
    pub zone: Zone,
}

impl Clock {
    pub fn new(now: DateTime<Utc>, zone: Zone) -> Clock {
        Clock { now, zone }
    }

    /// `now` read in UTC (tests and replays that must not depend on the machine).
    pub fn utc(now: DateTime<Utc>) -> Clock {
        Clock::new(now, Zone::UTC)
    }

    /// Today, in the clock's zone.
    pub fn today(&self) -> NaiveDate {
        self.zone.day(self.now)
    }

    /// A local wall-clock time for people (see [`Zone::wall`]).
    pub fn wall(&self, t: DateTime<Utc>) -> String {
        self.zone.wall(t)
    }
}

/// "just now", "12 min ago", "3 h ago", "2 days ago" (or "in …" for the future).
pub fn age(t: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let d = now - t;
    if d < TimeDelta::zero() {
        return format!("in {}", span(-d));
    }
    if d < TimeDelta::minutes(1) {
        return "just now".into();
    }
    format!("{} ago", span(d))
}

/// A duration for people: "45 s", "12 min", "3 h", "2 days".
pub fn span(d: TimeDelta) -> String {
    let s = d.num_seconds();
    match s {
        ..60 => format!("{s} s"),
        60..3600 => format!("{} min", s / 60),
        3600..172_800 => format!("{} h", s / 3600),
        _ => format!("{} days", s / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(text: &str) -> DateTime<Utc> {
        crate::timestamp::parse(text).unwrap()
    }

    #[test]
    fn a_zone_is_written_down_and_read_back() {
        let now = t("2026-07-01T12:00:00Z");
        let berlin = Zone::Named(chrono_tz::Europe::Berlin);
        assert_eq!(berlin.name(now), "Europe/Berlin");
        assert_eq!(Zone::named("Europe/Berlin"), Some(berlin));
        assert_eq!(berlin.at(now).offset().to_string(), "+02:00");
        let west = Zone::Fixed(FixedOffset::west_opt(5 * 3600).unwrap());
        assert_eq!(west.name(now), "-05:00");
        assert_eq!(Zone::named("-05:00"), Some(west));
        assert_eq!(Zone::named("Mars/Olympus"), None);
    }

    #[test]
    fn a_fixed_zone_moves_the_day_and_the_wall_clock() {
        let late = t("2026-11-22T03:30:00Z");
        let new_york = Zone::Fixed(FixedOffset::west_opt(5 * 3600).unwrap());
        assert_eq!(Zone::UTC.day(late).to_string(), "2026-11-22");
        assert_eq!(new_york.day(late).to_string(), "2026-11-21");
        assert_eq!(Zone::UTC.wall(late), "Sun 22 Nov 03:30");
        assert_eq!(new_york.wall(late), "Sat 21 Nov 22:30");
        assert_eq!(Clock::utc(late).today().to_string(), "2026-11-22");
    }
}
