//! The four thinking threads and the kinds of finding each may report (SPEC §5).
//!
//! Owns the fixed order watcher, librarian, oracle, dreamer that every rule of the
//! aggregator iterates in, and the per-thread kind vocabulary with its default.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One of the four thinking threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThreadName {
    Watcher,
    Librarian,
    Oracle,
    Dreamer,
}

impl ThreadName {
    /// All threads in the order the aggregator processes them.
    pub const ALL: [ThreadName; 4] = [
        ThreadName::Watcher,
        ThreadName::Librarian,
        ThreadName::Oracle,
        ThreadName::Dreamer,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ThreadName::Watcher => "watcher",
            ThreadName::Librarian => "librarian",
            ThreadName::Oracle => "oracle",
            ThreadName::Dreamer => "dreamer",
        }
    }

    /// Position in [`ThreadName::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The kinds this thread may report; the first is its default.
    pub fn kinds(self) -> &'static [Kind] {
        match self {
            ThreadName::Watcher => &[Kind::Observation, Kind::Anomaly, Kind::Pattern],
            ThreadName::Librarian => &[
                Kind::Pattern,
                Kind::Connection,
                Kind::Forgotten,
                Kind::Stale,
            ],
            ThreadName::Oracle => &[Kind::Anticipation, Kind::Deadline, Kind::Risk],
            ThreadName::Dreamer => &[
                Kind::Idea,
                Kind::Connection,
                Kind::Question,
                Kind::Challenge,
            ],
        }
    }

    /// The kind a finding takes when its kind is missing or not one of [`Self::kinds`].
    pub fn default_kind(self) -> Kind {
        self.kinds()[0]
    }

    /// Whether the thread may link entries (SPEC §7.12): the Librarian and the Dreamer.
    pub fn links(self) -> bool {
        matches!(self, ThreadName::Librarian | ThreadName::Dreamer)
    }
}

impl fmt::Display for ThreadName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The name given is not one of the four threads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown thread `{0}`: expected one of watcher, librarian, oracle, dreamer")]
pub struct UnknownThread(pub String);

impl FromStr for ThreadName {
    type Err = UnknownThread;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "watcher" => Ok(ThreadName::Watcher),
            "librarian" => Ok(ThreadName::Librarian),
            "oracle" => Ok(ThreadName::Oracle),
            "dreamer" => Ok(ThreadName::Dreamer),
            _ => Err(UnknownThread(s.to_string())),
        }
    }
}

/// What a finding is, as the thread labelled it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Observation,
    Anomaly,
    Pattern,
    Connection,
    Forgotten,
    Stale,
    Anticipation,
    Deadline,
    Risk,
    Idea,
    Question,
    Challenge,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Observation => "observation",
            Kind::Anomaly => "anomaly",
            Kind::Pattern => "pattern",
            Kind::Connection => "connection",
            Kind::Forgotten => "forgotten",
            Kind::Stale => "stale",
            Kind::Anticipation => "anticipation",
            Kind::Deadline => "deadline",
            Kind::Risk => "risk",
            Kind::Idea => "idea",
            Kind::Question => "question",
            Kind::Challenge => "challenge",
        }
    }

    /// Reads a kind the way a thread may have written it (any case, surrounding space),
    /// and only if `thread` may use it.
    pub fn parse_for(thread: ThreadName, text: &str) -> Option<Kind> {
        let wanted = text.trim().to_ascii_lowercase();
        thread
            .kinds()
            .iter()
            .copied()
            .find(|k| k.as_str() == wanted)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_scoped_to_their_thread() {
        assert_eq!(
            Kind::parse_for(ThreadName::Watcher, " Anomaly "),
            Some(Kind::Anomaly)
        );
        assert_eq!(Kind::parse_for(ThreadName::Watcher, "idea"), None);
        assert_eq!(
            Kind::parse_for(ThreadName::Dreamer, "connection"),
            Some(Kind::Connection)
        );
        assert_eq!(ThreadName::Oracle.default_kind(), Kind::Anticipation);
    }

    #[test]
    fn thread_names_parse_and_reject() {
        assert_eq!("Oracle".parse::<ThreadName>(), Ok(ThreadName::Oracle));
        assert!(
            "seer"
                .parse::<ThreadName>()
                .unwrap_err()
                .to_string()
                .contains("seer")
        );
    }
}
