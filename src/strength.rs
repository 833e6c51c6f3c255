//! An entry's strength (SPEC §3, §7.1): a number from 0 to 10 with at most two decimals,
//! kept as whole hundredths so that decay charged by time adds up exactly (no float
//! drift between a replay and the tick it replays).
//!
//! Owns the arithmetic (saturating, clamped to 0..=10), reading a strength leniently (a
//! whole number as version 1 wrote it, or a number with decimals, rounded to the
//! hundredth) and writing it the way the state file shows it: `4` or `3.47`. Readers for
//! people show it rounded ([`Strength::rounded`]). Must not know about decay rules: the
//! aggregator decides how much to charge.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Hundredths in one point of strength.
pub const SCALE: i64 = 100;

/// A strength in hundredths of a point, 0..=1000.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Strength(u16);

impl Strength {
    /// The highest strength (10).
    pub const MAX: Strength = Strength(1000);
    pub const ZERO: Strength = Strength(0);

    /// A whole strength (clamped to 10).
    pub const fn whole(points: u8) -> Strength {
        let h = points as u16 * 100;
        if h > 1000 {
            Strength(1000)
        } else {
            Strength(h)
        }
    }

    /// A strength from hundredths, clamped to 0..=10.
    pub fn from_hundredths(h: i64) -> Strength {
        Strength(h.clamp(0, 1000) as u16)
    }

    pub fn hundredths(self) -> i64 {
        i64::from(self.0)
    }

    /// As a number (for JSON output and charts).
    pub fn as_f64(self) -> f64 {
        f64::from(self.0) / 100.0
    }

    /// Rounded to a whole point, halves up: what people are shown.
    pub fn rounded(self) -> u8 {
        ((self.0 + 50) / 100) as u8
    }

    /// Reads a number of points: `None` unless it is finite and within 0..=10 (rounded
    /// to the hundredth).
    pub fn from_points(value: f64) -> Option<Strength> {
        if !value.is_finite() || !(0.0..=10.0).contains(&value) {
            return None;
        }
        Some(Strength::from_hundredths((value * 100.0).round() as i64))
    }
}

impl fmt::Display for Strength {
    /// `4`, `3.5`, `3.47`; a width and alignment (`{:>4}`) pad it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (whole, frac) = (self.0 / 100, self.0 % 100);
        let text = match frac {
            0 => format!("{whole}"),
            n if n % 10 == 0 => format!("{whole}.{}", n / 10),
            n => format!("{whole}.{n:02}"),
        };
        f.pad(&text)
    }
}

impl Serialize for Strength {
    /// A whole strength as an integer (as version 1 wrote it), else a number with at
    /// most two decimals.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_multiple_of(100) {
            s.serialize_u64(u64::from(self.0 / 100))
        } else {
            s.serialize_f64(self.as_f64())
        }
    }
}

impl<'de> Deserialize<'de> for Strength {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = serde_json::Number::deserialize(d)?;
        n.as_f64().and_then(Strength::from_points).ok_or_else(|| {
            serde::de::Error::custom(format!("strength must be a number from 0 to 10, found {n}"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_as_the_file_shows_it_and_read_back() {
        for (h, text) in [
            (0, "0"),
            (400, "4"),
            (350, "3.5"),
            (347, "3.47"),
            (1000, "10"),
            (5, "0.05"),
        ] {
            let s = Strength::from_hundredths(h);
            assert_eq!(s.to_string(), text);
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, text);
            assert_eq!(serde_json::from_str::<Strength>(&json).unwrap(), s);
        }
    }

    #[test]
    fn reading_rounds_to_the_hundredth_and_refuses_out_of_range() {
        assert_eq!(
            serde_json::from_str::<Strength>("3.456").unwrap(),
            Strength(346)
        );
        assert_eq!(
            serde_json::from_str::<Strength>("7").unwrap(),
            Strength(700)
        );
        for bad in ["-0.5", "10.01", "14"] {
            let err = serde_json::from_str::<Strength>(bad)
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("strength must be a number from 0 to 10"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn rounded_halves_up_and_arithmetic_is_clamped() {
        assert_eq!(Strength(349).rounded(), 3);
        assert_eq!(Strength(350).rounded(), 4);
        assert_eq!(Strength::from_hundredths(-20), Strength::ZERO);
        assert_eq!(Strength::from_hundredths(1200), Strength::MAX);
        assert_eq!(Strength::whole(12), Strength::MAX);
    }
}
