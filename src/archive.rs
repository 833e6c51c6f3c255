//! The archive (`archive.jsonl`, SPEC §2): every entry that left the subconscious, one
//! line each, appended by the tick before the state that no longer holds it.
//!
//! Owns the one shape of an archive line ([`Archived`]: the entry as it was, its
//! category, when and why it left — [`RemovalReason`]), written by the tick and read
//! back by `stats` ([`crate::journal::read::read_archive`]), the `archive` source and
//! recall (its tail). A line that does not read as one (torn by a kill, corrupt,
//! hand-written) is passed over. Plain data: must not do I/O (`storage` appends), nor
//! decide what is removed (the aggregator).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::answer::RetireWhy;
use crate::state::{Category, Entry};
use crate::timestamp;

/// Why an entry left the subconscious, written as SPEC §2 spells it in `archive.jsonl`:
/// `decayed`, `pruned`, `budget`, `rejected`, `retired: <why>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RemovalReason {
    Decayed,
    Pruned,
    Budget,
    /// The agent said it was wrong (`thinker feedback ID wrong`).
    Rejected,
    /// A thread said it is no longer true (rule 10).
    Retired(RetireWhy),
    /// It was one fact with another entry, which took it in (rule 13).
    Merged,
}

impl RemovalReason {
    /// The word of the archive and the journal.
    pub fn word(self) -> std::borrow::Cow<'static, str> {
        match self {
            RemovalReason::Decayed => "decayed".into(),
            RemovalReason::Pruned => "pruned".into(),
            RemovalReason::Budget => "budget".into(),
            RemovalReason::Rejected => "rejected".into(),
            RemovalReason::Retired(why) => format!("retired: {}", why.as_str()).into(),
            RemovalReason::Merged => "merged".into(),
        }
    }

    /// Reads [`Self::word`] back; `None` for any other text.
    pub fn parse(word: &str) -> Option<RemovalReason> {
        Some(match word {
            "decayed" => RemovalReason::Decayed,
            "pruned" => RemovalReason::Pruned,
            "budget" => RemovalReason::Budget,
            "rejected" => RemovalReason::Rejected,
            "merged" => RemovalReason::Merged,
            other => {
                let why = other.strip_prefix("retired: ")?;
                RemovalReason::Retired(
                    [RetireWhy::Cancelled, RetireWhy::Done, RetireWhy::Wrong]
                        .into_iter()
                        .find(|w| w.as_str() == why)?,
                )
            }
        })
    }
}

impl Serialize for RemovalReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.word())
    }
}

impl<'de> Deserialize<'de> for RemovalReason {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let word = String::deserialize(d)?;
        RemovalReason::parse(&word)
            .ok_or_else(|| serde::de::Error::custom(format!("`{word}` is not a removal reason")))
    }
}

/// An entry that was removed, exactly as it is appended to `archive.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Archived {
    #[serde(flatten)]
    pub entry: Entry,
    pub category: Category,
    #[serde(with = "timestamp::serde_utc")]
    pub removed_at: DateTime<Utc>,
    pub reason: RemovalReason,
}

impl Archived {
    /// One line of the archive, or `None` when it does not read as one.
    pub fn parse(line: &[u8]) -> Option<Archived> {
        serde_json::from_slice(line).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every reason reads back as written; other words do not read.
    #[test]
    fn reasons_read_back_as_written() {
        for reason in [
            RemovalReason::Decayed,
            RemovalReason::Pruned,
            RemovalReason::Budget,
            RemovalReason::Rejected,
            RemovalReason::Retired(RetireWhy::Cancelled),
            RemovalReason::Retired(RetireWhy::Done),
            RemovalReason::Retired(RetireWhy::Wrong),
        ] {
            assert_eq!(RemovalReason::parse(&reason.word()), Some(reason));
        }
        assert_eq!(RemovalReason::parse("retired: bored"), None);
        assert_eq!(RemovalReason::parse(""), None);
    }
}
