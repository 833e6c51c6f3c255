//! The one shape of a `journal.jsonl` line (SPEC §2), written by the tick and read back by
//! every reader ([`super::read`]): a tick's line ([`JournalLine`]) or an escalation
//! phase's line ([`EscalationLine`]), told apart by `threads` / `escalation` ([`Line`]).
//!
//! Serializes exactly as the tick has always written; reads lines of older versions too:
//! a field they lack takes its default (`rules` 1, no `state`, no `answer`, no `egress`…),
//! a number written as `null` (a non-finite cost) reads as 0, a status or a skip reason
//! this version does not know is kept as read ([`Status::Unknown`], [`SkipRecord::Other`]).
//! The aggregator's report-only fields (links, moves, refusals, screen detections) are
//! written and not read back: no reader needs them, and their types borrow static words.
//! Its feedback report is read back (rejected ids are removals).
//!
//! Plain data: must not do I/O, nor decide anything.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::aggregate::feedback::{FeedbackReport, Verdict};
use crate::aggregate::links::{LinkRefused, Linked, Unlinked};
use crate::aggregate::{self, DueMove, RetireRefused, Skip};
use crate::answer::{Answer, RetireWhy};
use crate::egress::Egress;
pub use crate::embeddings::EmbeddingsLine;
use crate::state::{DecisionRecord, EscalationRecord, State};
use crate::thread::ThreadName;
use crate::timestamp;
use crate::untrusted::guard::GuardRecord;

/// A number that may be written as `null` (a non-finite cost) or be missing: the default.
fn number<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

fn rules_v1() -> u32 {
    1
}

/// A thread's status as the journal writes it (`threads[].status`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    Answered,
    Failed,
    Skipped,
    /// A word this version does not know (a newer version's, a hand edit), kept as read;
    /// the empty word when a line has none.
    Unknown(String),
}

impl Default for Status {
    fn default() -> Self {
        Status::Unknown(String::new())
    }
}

impl Status {
    /// The word as written.
    pub fn as_str(&self) -> &str {
        match self {
            Status::Answered => "answered",
            Status::Failed => "failed",
            Status::Skipped => "skipped",
            Status::Unknown(word) => word,
        }
    }

    fn parse(word: String) -> Status {
        match word.as_str() {
            "answered" => Status::Answered,
            "failed" => Status::Failed,
            "skipped" => Status::Skipped,
            _ => Status::Unknown(word),
        }
    }
}

impl From<aggregate::Status> for Status {
    fn from(s: aggregate::Status) -> Status {
        match s {
            aggregate::Status::Answered => Status::Answered,
            aggregate::Status::Failed => Status::Failed,
            aggregate::Status::Skipped => Status::Skipped,
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Status {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Status {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Status::parse(
            Option::<String>::deserialize(d)?.unwrap_or_default(),
        ))
    }
}

/// Why a thread did not run, as its line says: one this version knows, or another
/// version's reason kept as read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SkipRecord {
    Known(Skip),
    Other {
        #[serde(default)]
        reason: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        every: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        window: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
}

impl SkipRecord {
    /// The reason's word: `disabled`, `cadence`, `quiet_hours`, `budget`, `breaker`,
    /// `unchanged`, or another version's.
    pub fn reason(&self) -> &str {
        match self {
            SkipRecord::Known(Skip::Disabled) => "disabled",
            SkipRecord::Known(Skip::Cadence { .. }) => "cadence",
            SkipRecord::Known(Skip::QuietHours { .. }) => "quiet_hours",
            SkipRecord::Known(Skip::Budget { .. }) => "budget",
            SkipRecord::Known(Skip::Breaker { .. }) => "breaker",
            SkipRecord::Known(Skip::Unchanged { .. }) => "unchanged",
            SkipRecord::Other { reason, .. } => reason,
        }
    }
}

impl std::fmt::Display for SkipRecord {
    /// As the tick says it ([`Skip`]'s words); another version's reason as [`Self::brief`].
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipRecord::Known(skip) => skip.fmt(f),
            SkipRecord::Other { .. } => f.write_str(&self.brief()),
        }
    }
}

impl SkipRecord {
    /// The reason's word and its detail, as `log` and the MCP status show it:
    /// `cadence (every 3 ticks)`, `quiet_hours 22-7`, `budget: daily_cost 1.00 spent`.
    pub fn brief(&self) -> String {
        use std::fmt::Write as _;
        let mut out = self.reason().to_string();
        let (every, window, detail) = match self {
            SkipRecord::Known(Skip::Cadence { every }) => (Some(u64::from(*every)), None, None),
            SkipRecord::Known(Skip::QuietHours { window }) => (None, Some(window), None),
            SkipRecord::Known(Skip::Budget { detail } | Skip::Breaker { detail }) => {
                (None, None, Some(detail))
            }
            SkipRecord::Known(Skip::Disabled | Skip::Unchanged { .. }) => (None, None, None),
            SkipRecord::Other {
                every,
                window,
                detail,
                ..
            } => (*every, window.as_ref(), detail.as_ref()),
        };
        let _ = match (every, window, detail) {
            (Some(n), _, _) => write!(out, " (every {n} ticks)"),
            (_, Some(w), _) => write!(out, " {w}"),
            (_, _, Some(d)) => write!(out, ": {d}"),
            _ => Ok(()),
        };
        out
    }
}

/// One model tried for a thread (or for an escalation).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AttemptRecord {
    /// `provider/model`.
    pub model: String,
    #[serde(deserialize_with = "number")]
    pub latency_ms: u64,
    #[serde(deserialize_with = "number")]
    pub tokens_in: u64,
    #[serde(deserialize_with = "number")]
    pub tokens_out: u64,
    #[serde(deserialize_with = "number")]
    pub cost: f64,
    #[serde(deserialize_with = "number")]
    pub tries: u32,
    /// Refused before any call (budget, breaker): not a call.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The reported usage was impossible; the bound was counted (see `provider`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub usage_clamped: bool,
    /// The response did not say what it used; the estimate was counted.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub usage_estimated: bool,
    /// What left the machine for this model (SPEC §9): the egress ledger; absent in
    /// lines of older versions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub egress: Option<Egress>,
}

/// A source a thread read, or failed to.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SourceRecord {
    pub name: String,
    pub kind: String,
    #[serde(deserialize_with = "number")]
    pub bytes: usize,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Its length before the tick's input budget cut it (`tick.max_input_bytes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_budget: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What the screen found in it (the prompt showed it neutralised); not read back.
    #[serde(skip_serializing_if = "Vec::is_empty", skip_deserializing)]
    pub detections: Vec<GuardRecord>,
}

/// What one thread did this tick.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadRecord {
    pub thread: ThreadName,
    #[serde(default)]
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip: Option<SkipRecord>,
    /// The provider and model that answered (or the last one tried).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, deserialize_with = "number")]
    pub latency_ms: u64,
    #[serde(default, deserialize_with = "number")]
    pub tokens_in: u64,
    #[serde(default, deserialize_with = "number")]
    pub tokens_out: u64,
    #[serde(default, deserialize_with = "number")]
    pub cost: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, deserialize_with = "number")]
    pub findings: usize,
    #[serde(default, deserialize_with = "number")]
    pub reinforce: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<AttemptRecord>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<SourceRecord>,
    /// What the screen found in its answer, and what the guard did with it; not read
    /// back.
    #[serde(skip_serializing_if = "Vec::is_empty", skip_deserializing)]
    pub guard: Vec<GuardRecord>,
    /// The answer as the aggregator took it (read, cleaned, guarded), compact: what
    /// `thinker replay` re-runs the aggregator on; absent in journals written before
    /// answers were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Answer>,
}

/// What the aggregator did, by id.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AggregateRecord {
    /// False when no thread answered: nothing changed.
    pub applied: bool,
    pub added: Vec<String>,
    pub reinforced: Vec<String>,
    /// Lost strength and stayed.
    pub weakened: Vec<String>,
    /// Removed at strength 0.
    pub decayed: Vec<String>,
    /// Removed over a category cap.
    pub pruned: Vec<String>,
    /// Removed to fit the state's size budget.
    pub budget: Vec<String>,
    /// Removed because a thread said they are no longer true (SPEC §7.10).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub retired: Vec<RetiredRecord>,
    /// Retires not carried out: unknown ids, or a thread whose sources carried a screen
    /// detection. Not read back (nor are the fields below).
    #[serde(skip_serializing_if = "Vec::is_empty", skip_deserializing)]
    pub retire_refused: Vec<RetireRefused>,
    /// Dues moved by a matching finding (from → to).
    #[serde(skip_serializing_if = "Vec::is_empty", skip_deserializing)]
    pub moved: Vec<DueMove>,
    /// Links made (rule 12), refused, and gone.
    #[serde(skip_serializing_if = "Vec::is_empty", skip_deserializing)]
    pub linked: Vec<Linked>,
    #[serde(skip_serializing_if = "Vec::is_empty", skip_deserializing)]
    pub links_refused: Vec<LinkRefused>,
    #[serde(skip_serializing_if = "Vec::is_empty", skip_deserializing)]
    pub unlinked: Vec<Unlinked>,
    /// Entries merged into another (rule 13): which into which.
    #[serde(skip_serializing_if = "Vec::is_empty", skip_deserializing)]
    pub merged: Vec<aggregate::consolidate::Merged>,
    /// Re-escalations folded into a matter already told or on its way (§8).
    #[serde(skip_serializing_if = "Vec::is_empty", skip_deserializing)]
    pub folded: Vec<aggregate::escalation::Folded>,
    /// What the agent's verdicts did (`feedback.jsonl`): used, rejected, unknown ids
    /// (dropped), findings kept out. Read back (but for the unknown ids): a rejected
    /// entry is a removal `log` counts.
    #[serde(skip_serializing_if = "FeedbackReport::is_empty")]
    pub feedback: FeedbackReport,
}

impl AggregateRecord {
    /// Entries removed this tick, whatever the reason: decayed, pruned, over the budget,
    /// retired by a thread, rejected by the agent (one line each in the archive).
    pub fn removed(&self) -> usize {
        self.decayed.len()
            + self.pruned.len()
            + self.budget.len()
            + self.retired.len()
            + self.feedback.rejected.len()
    }
}

/// An entry a thread retired, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RetiredRecord {
    pub id: String,
    pub why: RetireWhy,
}

/// A tick's line of `journal.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JournalLine {
    /// The tick's `now` (the clock, or `--now`).
    #[serde(with = "timestamp::serde_utc")]
    pub time: DateTime<Utc>,
    /// The version of the memory rules the aggregator applied
    /// ([`crate::aggregate::RULES`]); a line without it was written under version 1.
    /// `thinker replay` replays only lines of the rules it implements.
    #[serde(default = "rules_v1")]
    pub rules: u32,
    #[serde(default, deserialize_with = "number")]
    pub duration_ms: u64,
    /// The run number (`every = N` counts these).
    #[serde(default, deserialize_with = "number")]
    pub run: u64,
    /// The state's `tick_count` once this tick is written (unchanged when nothing was
    /// applied). The line is written before the state: a state whose `tick_count` is
    /// lower was killed or failed before it landed, and the line was not applied.
    #[serde(default, deserialize_with = "number")]
    pub tick_count: u64,
    #[serde(default, deserialize_with = "number")]
    pub exit_code: u8,
    pub threads: Vec<ThreadRecord>,
    #[serde(default)]
    pub aggregate: AggregateRecord,
    /// Escalation records raised this tick (pending, or suppressed as duplicates).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub escalations: Vec<EscalationRecord>,
    #[serde(default, deserialize_with = "number")]
    pub tokens_in: u64,
    #[serde(default, deserialize_with = "number")]
    pub tokens_out: u64,
    #[serde(default, deserialize_with = "number")]
    pub cost: f64,
    /// The agent's verdicts the tick took from `feedback.jsonl` (applied when the tick
    /// was), for `thinker replay`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verdicts: Vec<Verdict>,
    /// The digest ([`State::digest`]) of the state this tick leaves (before its
    /// escalation phase, whose line has its own): `thinker replay` checks against it.
    /// Always written; absent in older journals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// The state the tick started from, whole, when it is not the one thinker last wrote
    /// (the first tick, a state restored from `.bak` or edited by hand, a write that
    /// failed): where a replay can start or pick up again. Read as a state file is
    /// ([`State::from_json`]).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "base_state"
    )]
    pub base: Option<Box<State>>,
}

/// A recorded base state, loaded and checked as a state file is.
fn base_state<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Box<State>>, D::Error> {
    let Some(value) = Option::<serde_json::Value>::deserialize(d)? else {
        return Ok(None);
    };
    State::from_json(&value.to_string())
        .map(|state| Some(Box::new(state)))
        .map_err(|e| {
            serde::de::Error::custom(format!("its recorded base state does not load: {e}"))
        })
}

impl JournalLine {
    /// The line standing in for a tick whose own line is lost (torn, or in a removed
    /// file) when its escalation line is read: no threads, nothing applied.
    pub fn lost(time: DateTime<Utc>, run: u64) -> JournalLine {
        JournalLine {
            time,
            rules: rules_v1(),
            duration_ms: 0,
            run,
            tick_count: 0,
            exit_code: 0,
            threads: Vec::new(),
            aggregate: AggregateRecord::default(),
            escalations: Vec::new(),
            tokens_in: 0,
            tokens_out: 0,
            cost: 0.0,
            verdicts: Vec::new(),
            state: None,
            base: None,
        }
    }

    /// Whether every thread that answered has its answer recorded (what a replay needs).
    pub fn has_answers(&self) -> bool {
        self.threads
            .iter()
            .all(|t| t.status != Status::Answered || t.answer.is_some())
    }
}

/// The escalation work of a tick (SPEC §8): a line of its own, appended after the tick's
/// line once the escalation phase is done. The tick's line is written before the state
/// is committed and the escalation happens after (crash windows in ARCHITECTURE.md), so
/// the two cannot share a line without one of them risking its loss; readers join them
/// by `run` ([`super::read`]). Told apart from a tick's line by its `escalation` field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EscalationLine {
    #[serde(with = "timestamp::serde_utc")]
    pub time: DateTime<Utc>,
    #[serde(default, deserialize_with = "number")]
    pub run: u64,
    #[serde(default, deserialize_with = "number")]
    pub tick_count: u64,
    pub escalation: EscalationWork,
    /// The digest of the state as the escalation phase left it (always written; absent
    /// in older journals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
}

/// What the escalation phase did: the call (if one was made), the effects, the outcomes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EscalationWork {
    #[serde(deserialize_with = "number")]
    pub duration_ms: u64,
    /// The model that decided, else the last one asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The primary call's latency (all its retries and fallbacks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
    #[serde(deserialize_with = "number")]
    pub tokens_in: u64,
    #[serde(deserialize_with = "number")]
    pub tokens_out: u64,
    #[serde(deserialize_with = "number")]
    pub cost: f64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<AttemptRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<DecisionRecord>,
    /// Why the call, the notifier or the note failed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// Every record the phase touched, as it left them.
    pub records: Vec<EscalationRecord>,
}

/// The first word of an escalation record's outcome (`pending`, `suppressed`,
/// `notified`, `dismissed`…); `pending` when it has none.
pub fn outcome_word(record: &EscalationRecord) -> String {
    let text = record.outcome.to_string();
    match text.split([':', ' ']).next() {
        Some(word) if !word.is_empty() => word.to_string(),
        _ => "pending".to_string(),
    }
}

/// A line of the journal, as read: a tick's, an escalation phase's, or an embeddings
/// call's ([`EmbeddingsLine`]: egress only, written by `embeddings` outside any tick).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Line {
    Tick(Box<JournalLine>),
    Escalation(Box<EscalationLine>),
    Embeddings(Box<EmbeddingsLine>),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tick(text: &str) -> JournalLine {
        match serde_json::from_str::<Line>(text) {
            Ok(Line::Tick(line)) => *line,
            other => panic!("{text}: {other:?}"),
        }
    }

    /// Table: lines older versions wrote read into the one shape, with their defaults.
    #[test]
    fn older_lines_read_with_their_defaults() {
        let t = "\"time\":\"2026-11-21T08:00:00Z\"";
        // Before `rules`, `state`, answers and attempts: version 1, nothing to check.
        let v1 = tick(&format!(
            "{{{t},\"run\":3,\"threads\":[{{\"thread\":\"watcher\",\"status\":\"answered\",\"provider\":\"groq\",\"model\":\"m\",\"cost\":0.1}}]}}"
        ));
        assert_eq!(
            (v1.rules, v1.state.as_deref(), v1.base.is_none()),
            (1, None, true)
        );
        let w = &v1.threads[0];
        assert_eq!(
            (w.status.clone(), w.answer.is_none(), w.attempts.len()),
            (Status::Answered, true, 0)
        );
        assert!(!v1.has_answers());
        // A null cost (a non-finite one written), no exit code, no aggregate.
        let nulls = tick(&format!(
            "{{{t},\"cost\":null,\"threads\":[{{\"thread\":\"oracle\",\"status\":\"failed\",\"cost\":null,\"attempts\":[{{\"model\":\"a/b\",\"cost\":null}}]}}]}}"
        ));
        assert_eq!(
            (nulls.cost, nulls.exit_code, nulls.aggregate.applied),
            (0.0, 0, false)
        );
        assert!(nulls.threads[0].attempts[0].cost.abs() < f64::EPSILON);
        // A status and a skip reason of another version are kept as read.
        let newer = tick(&format!(
            "{{{t},\"threads\":[{{\"thread\":\"dreamer\",\"status\":\"napping\"}},{{\"thread\":\"oracle\",\"status\":\"skipped\",\"skip\":{{\"reason\":\"moon\",\"detail\":\"full\"}}}},{{\"thread\":\"watcher\",\"status\":\"skipped\",\"skip\":{{\"reason\":\"cadence\",\"every\":3}}}},{{\"thread\":\"librarian\"}}]}}"
        ));
        let th = &newer.threads;
        assert_eq!(th[0].status, Status::Unknown("napping".into()));
        assert_eq!(th[0].status.as_str(), "napping");
        let other = th[1].skip.as_ref().unwrap();
        assert_eq!(
            (other.reason(), other.brief()),
            ("moon", "moon: full".to_string())
        );
        let cadence = th[2].skip.as_ref().unwrap();
        assert_eq!(cadence, &SkipRecord::Known(Skip::Cadence { every: 3 }));
        assert_eq!(cadence.brief(), "cadence (every 3 ticks)");
        assert_eq!(cadence.to_string(), "runs every 3 ticks");
        assert_eq!(th[3].status, Status::default());
        // An escalation line of an older version: no state digest.
        let esc = r#"{"time":"2026-11-21T08:00:00Z","run":3,"escalation":{"records":[]}}"#;
        match serde_json::from_str::<Line>(esc).unwrap() {
            Line::Escalation(e) => assert_eq!((e.run, e.state), (3, None)),
            other => panic!("an escalation line read as {other:?}"),
        }
        // An embeddings call's line: egress only, with its defaults.
        let emb = r#"{"time":"2026-11-21T08:00:00Z","embeddings":{"model":"emb/m","egress":{"provider":"emb","bytes":12,"requests":1}}}"#;
        match serde_json::from_str::<Line>(emb).unwrap() {
            Line::Embeddings(e) => assert_eq!(
                (e.embeddings.purpose, e.embeddings.egress.bytes),
                (crate::embeddings::Purpose::Memory, 12)
            ),
            other => panic!("an embeddings line read as {other:?}"),
        }
        // Not a line: no threads, no escalation, no embeddings.
        assert!(serde_json::from_str::<Line>(&format!("{{{t}}}")).is_err());
    }

    /// Every status reads back as written.
    #[test]
    fn statuses_read_back_as_written() {
        for s in [
            Status::Answered,
            Status::Failed,
            Status::Skipped,
            Status::Unknown("later".into()),
        ] {
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(serde_json::from_str::<Status>(&json).unwrap(), s);
        }
        for s in [
            aggregate::Status::Answered,
            aggregate::Status::Failed,
            aggregate::Status::Skipped,
        ] {
            assert_eq!(
                serde_json::to_string(&Status::from(s)).unwrap(),
                serde_json::to_string(&s).unwrap()
            );
        }
    }

    fn skip() -> impl proptest::strategy::Strategy<Value = Option<SkipRecord>> {
        use proptest::prelude::*;
        prop_oneof![
            Just(None),
            Just(Some(SkipRecord::Known(Skip::Disabled))),
            (1u32..100).prop_map(|every| Some(SkipRecord::Known(Skip::Cadence { every }))),
            "[a-z: ]{0,12}".prop_map(|detail| Some(SkipRecord::Known(Skip::Budget { detail }))),
            (0u32..9, 0u32..9).prop_map(|(skipped, max_skipped)| Some(SkipRecord::Known(
                Skip::Unchanged {
                    skipped,
                    max_skipped
                }
            ))),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(64))]

        /// What the writer writes, the reader reads back unchanged (the fields it reads).
        #[test]
        fn a_written_line_reads_back_as_it_was(
            run in 0u64..u64::MAX,
            tick_count in 0u64..1000,
            exit_code in 0u8..3,
            cost in 0.0f64..10.0,
            tokens in 0u64..1_000_000,
            status in 0usize..3,
            skip in skip(),
            error in proptest::option::of("[ -~]{0,30}"),
            model in proptest::option::of("[a-z/.-]{1,20}"),
            latency in proptest::option::of(0u64..100_000),
            state in "[0-9a-f]{16}",
        ) {
            let time = timestamp::parse("2026-11-22T10:05:00Z").unwrap();
            let thread = ThreadRecord {
                thread: ThreadName::Oracle,
                status: [Status::Answered, Status::Failed, Status::Skipped][status].clone(),
                skip,
                provider: model.clone(),
                model: model.clone(),
                latency_ms: latency.unwrap_or_default(),
                tokens_in: tokens,
                tokens_out: tokens / 2,
                cost,
                error: error.clone(),
                findings: status,
                reinforce: 1,
                attempts: vec![AttemptRecord {
                    model: model.clone().unwrap_or_default(),
                    cost,
                    tries: 1,
                    error,
                    ..AttemptRecord::default()
                }],
                sources: vec![SourceRecord {
                    name: "disk".into(),
                    kind: "command".into(),
                    bytes: 12,
                    ..SourceRecord::default()
                }],
                guard: Vec::new(),
                answer: Some(Answer::default()),
            };
            let line = JournalLine {
                time,
                rules: aggregate::RULES,
                duration_ms: latency.unwrap_or(5),
                run,
                tick_count,
                exit_code,
                threads: vec![thread],
                aggregate: AggregateRecord {
                    applied: true,
                    added: vec!["a".into()],
                    retired: vec![RetiredRecord { id: "b".into(), why: RetireWhy::Done }],
                    ..AggregateRecord::default()
                },
                escalations: Vec::new(),
                tokens_in: tokens,
                tokens_out: tokens / 2,
                cost,
                verdicts: Vec::new(),
                state: Some(state.clone()),
                base: Some(Box::new(State::default())),
            };
            let text = serde_json::to_string(&line).unwrap();
            proptest::prop_assert_eq!(serde_json::from_str::<Line>(&text).unwrap(), Line::Tick(Box::new(line)));
            let esc = EscalationLine {
                time,
                run,
                tick_count,
                escalation: EscalationWork { latency_ms: latency, cost, ..EscalationWork::default() },
                state: Some(state),
            };
            let text = serde_json::to_string(&esc).unwrap();
            proptest::prop_assert_eq!(serde_json::from_str::<Line>(&text).unwrap(), Line::Escalation(Box::new(esc)));
        }
    }
}
