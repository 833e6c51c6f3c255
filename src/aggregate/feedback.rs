//! Rule 9 of SPEC §7: the agent's word on entries (`feedback.jsonl`, read by the tick and
//! handed in as [`Verdict`]s). An entry the agent `used` is reinforced this tick as if a
//! thread had seen it (through rule 1, so still at most once per tick); an entry marked
//! `wrong` is removed and archived (`rejected`), and for `rejected_memory` a finding
//! matching its summary is not added again ([`screen`]). Verdicts on ids not in the
//! memory are dropped and reported (journaled).
//!
//! Several verdicts on one id in one tick: the last one counts (the agent's latest
//! word). The rejected summaries live in the state's optional top-level `rejected`
//! field (`[{"id", "summary", "rejected_at"}]`), kept only within the window and at most
//! [`MAX_REJECTED`] of them, newest last; an unreadable item there is dropped.
//!
//! Pure, like every rule: no I/O, no clock (`now` comes in).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::identity::{Key, compare};
use super::reinforce::Unmatched;
use super::{Archived, RemovalReason, Report, Settings};
use crate::recall::synonyms::Synonyms;
use crate::state::{Category, State};
use crate::timestamp;

/// The state's top-level field holding the rejected summaries.
pub const REJECTED_FIELD: &str = "rejected";
/// At most this many rejected summaries are remembered (the newest).
pub const MAX_REJECTED: usize = 50;

/// What the agent said about an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Judgement {
    /// The entry helped: reinforce it once.
    Used,
    /// The entry is wrong: remove it, and keep its summary out for a while.
    Wrong,
}

impl Judgement {
    pub fn as_str(self) -> &'static str {
        match self {
            Judgement::Used => "used",
            Judgement::Wrong => "wrong",
        }
    }
}

/// One line of `feedback.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// When the agent said it.
    #[serde(with = "timestamp::serde_utc")]
    pub at: DateTime<Utc>,
    pub id: String,
    pub verdict: Judgement,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// An id longer than this is cut (thinker's ids are far shorter).
pub const MAX_ID_CHARS: usize = 200;
/// A note longer than this is cut, so a verdict is always one short line (well below
/// `PIPE_BUF`, which keeps concurrent appends whole).
pub const MAX_NOTE_CHARS: usize = 500;

impl Verdict {
    /// A verdict as an agent gives it (the command line, the MCP tool): the id and the
    /// note cleaned to one line and cut ([`MAX_ID_CHARS`], [`MAX_NOTE_CHARS`]); an empty
    /// note is none.
    pub fn new(at: DateTime<Utc>, id: &str, verdict: Judgement, note: Option<&str>) -> Verdict {
        let cut = |text: &str, max: usize| -> String {
            crate::untrusted::clean_line(text)
                .trim()
                .chars()
                .take(max)
                .collect()
        };
        Verdict {
            at,
            id: cut(id, MAX_ID_CHARS),
            verdict,
            note: note
                .map(|n| cut(n, MAX_NOTE_CHARS))
                .filter(|n| !n.is_empty()),
        }
    }
}

/// A summary the agent rejected, remembered for the window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rejected {
    pub id: String,
    pub summary: String,
    #[serde(with = "timestamp::serde_utc")]
    pub rejected_at: DateTime<Utc>,
}

/// A verdict whose id names no entry in the memory.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UnknownVerdict {
    pub id: String,
    pub verdict: Judgement,
}

/// What the agent's verdicts did this tick (read back from the journal but for
/// `unknown`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FeedbackReport {
    /// Ids reinforced because the agent used them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub used: Vec<String>,
    /// Ids removed because the agent said they were wrong (archived `rejected`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rejected: Vec<String>,
    /// Verdicts on ids not in the memory: dropped.
    #[serde(skip_serializing_if = "Vec::is_empty", skip_deserializing)]
    pub unknown: Vec<UnknownVerdict>,
    /// Summaries of findings not added because they match a rejected summary.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kept_out: Vec<String>,
}

impl FeedbackReport {
    pub fn is_empty(&self) -> bool {
        self.used.is_empty()
            && self.rejected.is_empty()
            && self.unknown.is_empty()
            && self.kept_out.is_empty()
    }
}

/// What [`apply`] hands to the next rules.
#[derive(Debug, Default)]
pub struct Applied {
    /// Ids the agent used: seen this tick (rule 1).
    pub used: Vec<String>,
    /// The rejected summaries still within the window, for [`screen`].
    pub rejected: Vec<Key>,
}

/// The rejected summaries the state remembers (unreadable items dropped).
pub fn remembered(state: &State) -> Vec<Rejected> {
    match state.extra.get(REJECTED_FIELD) {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|v| serde_json::from_value(v.clone()).ok())
            .collect(),
        _ => Vec::new(),
    }
}

/// The last verdict on each id, in the order of those last verdicts.
fn latest(verdicts: &[Verdict]) -> Vec<&Verdict> {
    let mut last: HashMap<&str, usize> = HashMap::new();
    for (i, v) in verdicts.iter().enumerate() {
        last.insert(v.id.as_str(), i);
    }
    let mut order: Vec<usize> = last.into_values().collect();
    order.sort_unstable();
    order.into_iter().map(|i| &verdicts[i]).collect()
}

/// Removes the entries marked `wrong` (archived `rejected`, their summaries remembered),
/// forgets rejected summaries past the window, and returns the ids marked `used` and
/// the summaries to keep out.
pub fn apply(
    state: &mut State,
    verdicts: &[Verdict],
    now: DateTime<Utc>,
    settings: &Settings,
    report: &mut Report,
) -> Applied {
    let window = settings.rejected_memory;
    let mut rejected: Vec<Rejected> = remembered(state)
        .into_iter()
        .filter(|r| r.rejected_at + window > now)
        .collect();
    let mut used = Vec::new();
    for verdict in latest(verdicts) {
        let found = Category::ALL.into_iter().find_map(|cat| {
            state
                .entries(cat)
                .iter()
                .position(|e| e.id == verdict.id)
                .map(|i| (cat, i))
        });
        let Some((category, index)) = found else {
            report.feedback.unknown.push(UnknownVerdict {
                id: verdict.id.clone(),
                verdict: verdict.verdict,
            });
            continue;
        };
        match verdict.verdict {
            Judgement::Used => {
                report.feedback.used.push(verdict.id.clone());
                used.push(verdict.id.clone());
            }
            Judgement::Wrong => {
                let entry = state.entries_mut(category).remove(index);
                report.feedback.rejected.push(entry.id.clone());
                if window > chrono::TimeDelta::zero() {
                    rejected.push(Rejected {
                        id: entry.id.clone(),
                        summary: entry.summary.clone(),
                        rejected_at: now,
                    });
                }
                report.removed.push(Archived {
                    entry,
                    category,
                    removed_at: now,
                    reason: RemovalReason::Rejected,
                });
            }
        }
    }
    let excess = rejected.len().saturating_sub(MAX_REJECTED);
    rejected.drain(..excess);
    let tokens = rejected
        .iter()
        .map(|r| Key::new(&r.summary, r.rejected_at.date_naive(), []))
        .collect();
    if rejected.is_empty() {
        state.extra.remove(REJECTED_FIELD);
    } else if let Ok(value) = serde_json::to_value(&rejected) {
        state.extra.insert(REJECTED_FIELD.to_string(), value);
    }
    Applied {
        used,
        rejected: tokens,
    }
}

/// Drops the findings that match a rejected summary (before same-tick grouping, so a
/// finding kept out never speaks for a group).
pub fn screen(
    unmatched: Vec<Unmatched>,
    rejected: &[Key],
    settings: &Settings,
    report: &mut Report,
) -> Vec<Unmatched> {
    if rejected.is_empty() {
        return unmatched;
    }
    unmatched
        .into_iter()
        .filter(|u| {
            let out = rejected
                .iter()
                .any(|r| compare(&u.key, r, Synonyms::builtin()).same(settings.thresholds()));
            if out {
                report.feedback.kept_out.push(u.finding.summary.clone());
            }
            !out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(id: &str, verdict: Judgement) -> Verdict {
        Verdict {
            at: DateTime::UNIX_EPOCH,
            id: id.into(),
            verdict,
            note: None,
        }
    }

    #[test]
    fn the_last_word_on_an_id_counts_in_the_order_of_those_words() {
        let vs = [
            verdict("a", Judgement::Wrong),
            verdict("b", Judgement::Used),
            verdict("a", Judgement::Used),
        ];
        let got: Vec<(&str, Judgement)> = latest(&vs)
            .iter()
            .map(|v| (v.id.as_str(), v.verdict))
            .collect();
        assert_eq!(got, [("b", Judgement::Used), ("a", Judgement::Used)]);
    }

    #[test]
    fn a_verdict_is_one_short_clean_line() {
        let long = "x\u{1b}[31m\ny ".repeat(400);
        let v = Verdict::new(DateTime::UNIX_EPOCH, &long, Judgement::Used, Some(&long));
        assert_eq!(v.id.chars().count(), MAX_ID_CHARS);
        assert_eq!(
            v.note.as_ref().map(|n| n.chars().count()),
            Some(MAX_NOTE_CHARS)
        );
        let line = serde_json::to_string(&v).unwrap();
        assert!(
            line.len() < 4096 && !line.contains("\\u001b") && !line.contains("\\n"),
            "{line}"
        );
        let blank = Verdict::new(DateTime::UNIX_EPOCH, "p-x", Judgement::Wrong, Some(" \t "));
        assert_eq!(blank.note, None);
    }

    #[test]
    fn a_feedback_line_reads_and_writes_the_same() {
        let line = r#"{"at":"2026-11-22T10:05:00Z","id":"p-x","verdict":"wrong","note":"no"}"#;
        let v: Verdict = serde_json::from_str(line).unwrap();
        assert_eq!(v.verdict, Judgement::Wrong);
        assert_eq!(serde_json::to_string(&v).unwrap(), line);
    }
}
