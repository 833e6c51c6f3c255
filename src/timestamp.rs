//! Timestamps on disk and on the wire: written as RFC 3339 UTC with a `Z` and whole
//! seconds (SPEC §3), read leniently (any offset, fractional seconds, a missing offset
//! taken as UTC, a bare date taken as midnight UTC).

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, SecondsFormat, Timelike, Utc};
use serde::{Deserialize, Deserializer, Serializer};

/// Formats `t` the way every file of thinker stores time: `2026-11-22T10:05:00Z`.
pub fn format(t: DateTime<Utc>) -> String {
    let mut buf = [0u8; 20];
    match write_compact(t, &mut buf) {
        Some(s) => s.to_string(),
        None => t.to_rfc3339_opts(SecondsFormat::Secs, true),
    }
}

/// Writes `YYYY-MM-DDTHH:MM:SSZ` into `buf` without allocating (years 0 to 9999; `None`
/// otherwise). Serialization of every timestamp goes through here: it is on the
/// aggregator's hot path.
fn write_compact(t: DateTime<Utc>, buf: &mut [u8; 20]) -> Option<&str> {
    let year = u32::try_from(t.year()).ok().filter(|y| *y <= 9999)?;
    let digits = |buf: &mut [u8; 20], at: usize, value: u32, width: usize| {
        let mut v = value;
        for i in (0..width).rev() {
            buf[at + i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    digits(buf, 0, year, 4);
    buf[4] = b'-';
    digits(buf, 5, t.month(), 2);
    buf[7] = b'-';
    digits(buf, 8, t.day(), 2);
    buf[10] = b'T';
    digits(buf, 11, t.hour(), 2);
    buf[13] = b':';
    digits(buf, 14, t.minute(), 2);
    buf[16] = b':';
    digits(buf, 17, t.second(), 2);
    buf[19] = b'Z';
    std::str::from_utf8(buf).ok()
}

/// Drops sub-second precision, so that a time survives a write and a read unchanged.
pub fn truncate(t: DateTime<Utc>) -> DateTime<Utc> {
    t.with_nanosecond(0).unwrap_or(t)
}

/// Reads an ISO-8601 / RFC 3339 instant leniently; `None` when it is not a time at all,
/// or when it falls outside the years 0 to 9999 in UTC (`9999-12-31T23:59:59-01:00`):
/// such an instant is written `+10000-…`, which no reader takes back, so a state holding
/// one (a model's `due`) would never load again.
pub fn parse(text: &str) -> Option<DateTime<Utc>> {
    parse_any(text).filter(|t| (0..=9999).contains(&t.year()))
}

fn parse_any(text: &str) -> Option<DateTime<Utc>> {
    let s = text.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(truncate(t.with_timezone(&Utc)));
    }
    // `2026-11-22 10:05:00+00:00` and similar space-separated forms.
    if let Ok(t) = DateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.f%:z") {
        return Some(truncate(t.with_timezone(&Utc)));
    }
    for fmt in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
    ] {
        if let Ok(t) = NaiveDateTime::parse_from_str(s, fmt) {
            return Some(truncate(t.and_utc()));
        }
    }
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc())
}

/// Serde adapter for `DateTime<Utc>` fields.
pub mod serde_utc {
    use super::{DateTime, Deserialize, Deserializer, Serializer, Utc};

    pub fn serialize<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
        let mut buf = [0u8; 20];
        match super::write_compact(*t, &mut buf) {
            Some(text) => s.serialize_str(text),
            None => s.serialize_str(&super::format(*t)),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        let text = String::deserialize(d)?;
        super::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "`{text}` is not an ISO-8601 time (expected e.g. 2026-11-22T10:05:00Z)"
            ))
        })
    }
}

/// Serde adapter for `Option<DateTime<Utc>>` fields (null or absent is `None`).
pub mod serde_utc_opt {
    use super::{DateTime, Deserialize, Deserializer, Serializer, Utc};

    pub fn serialize<S: Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_str(&super::format(*t)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
        match Option::<String>::deserialize(d)? {
            None => Ok(None),
            Some(text) if text.trim().is_empty() => Ok(None),
            Some(text) => super::parse(&text).map(Some).ok_or_else(|| {
                serde::de::Error::custom(format!(
                    "`{text}` is not an ISO-8601 time (expected e.g. 2026-11-22T10:05:00Z)"
                ))
            }),
        }
    }
}

/// A duration in whole milliseconds, as the journal and `doctor` count them (saturating:
/// a duration past `u64::MAX` ms reads as that).
pub fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_whole_seconds_with_z() {
        let t = parse("2026-11-22T11:05:00.123+01:00").unwrap();
        assert_eq!(format(t), "2026-11-22T10:05:00Z");
    }

    #[test]
    fn compact_writer_agrees_with_chrono() {
        for text in [
            "0001-01-01T00:00:00Z",
            "2026-02-28T23:59:59Z",
            "9999-12-31T23:59:59Z",
        ] {
            let t = parse(text).unwrap();
            assert_eq!(format(t), t.to_rfc3339_opts(SecondsFormat::Secs, true));
        }
    }

    #[test]
    fn reads_lenient_forms() {
        assert_eq!(
            format(parse("2026-11-22T10:05:00").unwrap()),
            "2026-11-22T10:05:00Z"
        );
        assert_eq!(
            format(parse("2026-11-22 10:05").unwrap()),
            "2026-11-22T10:05:00Z"
        );
        assert_eq!(format(parse("2026-11-23").unwrap()), "2026-11-23T00:00:00Z");
        assert!(parse("next tuesday").is_none());
    }

    /// Regression (fuzz): an instant that reads but lies past 9999 (or before year 0) in
    /// UTC was written `+10000-…` (`-0001-…`), which no reader took back.
    #[test]
    fn refuses_what_it_could_not_write_back() {
        for text in [
            "9999-12-31T23:59:59-01:00",
            "0000-01-01T00:00:00+01:00",
            "+10000-01-01T00:00:00Z",
        ] {
            assert_eq!(parse(text), None, "{text}");
        }
        for text in ["9999-12-31T23:59:59Z", "0000-01-01T00:00:00Z"] {
            let t = parse(text).unwrap();
            assert_eq!(parse(&format(t)), Some(t), "{text}");
        }
    }
}
