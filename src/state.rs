//! The subconscious: the state model of SPEC §3 and its validation.
//!
//! Owns the serde shape of `subconscious.json` (version 2), reading a version 1 file (or
//! a version-less one, written by the original prompt-driven aggregator) and upgrading it
//! in memory (importance 5, sightings 1, `from` = its source), keeping unknown fields
//! through a load and save, and naming the field and the problem when a file does not
//! validate. Text written by models is cleaned when a state is read (an older version may
//! have stored control, escape, bidi or zero-width characters); unknown fields are not
//! touched. It does no I/O: `storage` reads and writes the bytes.

use std::collections::HashSet;
use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

pub use crate::strength::Strength;
use crate::thread::ThreadName;
use crate::timestamp::{serde_utc, serde_utc_opt};
use crate::untrusted;

/// The state format this binary writes (it reads this one and version 1).
pub const STATE_VERSION: u64 = 2;
/// The importance a version 1 entry is read with (it kept none).
pub const V1_IMPORTANCE: u8 = 5;
/// `from` keeps at most this many distinct provenances, newest last.
pub const MAX_FROM: usize = 5;
/// An entry keeps at most this many links, newest last (SPEC §7.12).
pub const MAX_LINKS: usize = 5;
/// An entry keeps at most this many references, newest last (docs/spec.md §3).
pub const MAX_REFS: usize = 8;
/// An entry keeps at most this many other wordings of its fact, newest last
/// (docs/spec.md §7.2).
pub const MAX_SAID: usize = 4;

/// Another wording a thread reported an entry's fact in, and the day it was said (what
/// its relative days — `tomorrow`, `Saturday` — are read against).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Said {
    pub text: String,
    pub day: chrono::NaiveDate,
}

/// How two entries are linked (SPEC §7.12).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkKind {
    Connects,
    Contradicts,
}

impl LinkKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LinkKind::Connects => "connects",
            LinkKind::Contradicts => "contradicts",
        }
    }

    /// Reads a model's word: `contradicts` (or `contradiction`), else `connects`.
    pub fn read(text: &str) -> Option<LinkKind> {
        match text.trim().to_ascii_lowercase().as_str() {
            "contradicts" | "contradiction" | "contradict" => Some(LinkKind::Contradicts),
            "connects" | "connection" | "connect" | "supports" => Some(LinkKind::Connects),
            _ => None,
        }
    }
}

/// One end's record of a link: the other entry and the kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    pub id: String,
    pub kind: LinkKind,
}
/// Novelty pressure of a thread is capped here.
pub const MAX_PRESSURE: u8 = 10;

/// The four memory categories, in the order ties are broken (SPEC §7.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    ActiveThreads,
    Patterns,
    Hunches,
    Insights,
}

impl Category {
    pub const ALL: [Category; 4] = [
        Category::ActiveThreads,
        Category::Patterns,
        Category::Hunches,
        Category::Insights,
    ];

    /// The field name in `subconscious.json`.
    pub fn key(self) -> &'static str {
        match self {
            Category::ActiveThreads => "active_threads",
            Category::Patterns => "patterns",
            Category::Hunches => "hunches",
            Category::Insights => "insights",
        }
    }

    /// The id prefix of entries in this category (SPEC §7.4).
    pub fn id_prefix(self) -> &'static str {
        match self {
            Category::ActiveThreads => "t-",
            Category::Patterns => "p-",
            Category::Hunches => "h-",
            Category::Insights => "i-",
        }
    }

    /// A heading for people.
    pub fn title(self) -> &'static str {
        match self {
            Category::ActiveThreads => "Active threads",
            Category::Patterns => "Patterns",
            Category::Hunches => "Hunches",
            Category::Insights => "Insights",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// One remembered item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub id: String,
    pub summary: String,
    pub strength: Strength,
    /// The highest importance of the findings that added or reinforced it (0..=10).
    #[serde(default = "v1_importance", deserialize_with = "de_importance")]
    pub importance: u8,
    #[serde(with = "serde_utc")]
    pub created: DateTime<Utc>,
    #[serde(with = "serde_utc")]
    pub last_seen: DateTime<Utc>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "serde_utc_opt"
    )]
    pub due: Option<DateTime<Utc>>,
    /// The ticks that added or reinforced it.
    #[serde(default = "one")]
    pub sightings: u32,
    /// Provenance: `thread/source` (or the thread alone) of the findings that added or
    /// reinforced it, distinct, newest last, at most [`MAX_FROM`].
    #[serde(default, deserialize_with = "null_as_default")]
    pub from: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Made only from text that carried a screen detection: never escalated,
    /// never remembered, shown to the agent as coming from untrusted text. Cleared when
    /// a thread whose sources were clean sees it again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tainted: bool,
    /// Links to other entries (SPEC §7.12), newest last, at most [`MAX_LINKS`]; both ends
    /// record a link.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub links: Vec<Link>,
    /// The references of the items it was seen in (`sources::refs`), distinct, newest
    /// last, at most [`MAX_REFS`]: what says a later report is about the same item.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub refs: Vec<String>,
    /// The other wordings clean reports of its fact were made in, distinct, newest last,
    /// at most [`MAX_SAID`]: a later report is compared with each of them as with its
    /// summary (docs/spec.md §7.2).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub said: Vec<Said>,
    /// Fields this version does not know; written back unchanged.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Entry {
    /// A new entry seen once, at `now`.
    pub fn new(
        id: String,
        summary: String,
        strength: Strength,
        importance: u8,
        now: DateTime<Utc>,
    ) -> Entry {
        Entry {
            id,
            summary,
            strength,
            importance,
            created: now,
            last_seen: now,
            due: None,
            sightings: 1,
            from: Vec::new(),
            source: None,
            tainted: false,
            links: Vec::new(),
            refs: Vec::new(),
            said: Vec::new(),
            extra: Map::new(),
        }
    }

    /// Adds another wording of its fact, said on `day` (newest last, at most
    /// [`MAX_SAID`]); nothing when it is the summary or a wording it has, whatever the
    /// case and spacing.
    pub fn add_said(&mut self, text: &str, day: chrono::NaiveDate) {
        let norm = |t: &str| {
            t.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase()
        };
        let n = norm(text);
        if n.is_empty() || n == norm(&self.summary) || self.said.iter().any(|s| norm(&s.text) == n)
        {
            return;
        }
        self.said.push(Said {
            text: text.to_string(),
            day,
        });
        if self.said.len() > MAX_SAID {
            let excess = self.said.len() - MAX_SAID;
            self.said.drain(..excess);
        }
    }

    /// The ids this entry contradicts.
    pub fn contradicts(&self) -> impl Iterator<Item = &str> {
        self.links
            .iter()
            .filter(|l| l.kind == LinkKind::Contradicts)
            .map(|l| l.id.as_str())
    }

    /// Adds a provenance to `from`: moved to the end when already there, the oldest
    /// dropped past [`MAX_FROM`].
    pub fn add_from(&mut self, provenance: &str) {
        self.from.retain(|f| f != provenance);
        self.from.push(provenance.to_string());
        if self.from.len() > MAX_FROM {
            let excess = self.from.len() - MAX_FROM;
            self.from.drain(..excess);
        }
    }

    /// Adds a reference it was seen in (newest last, at most [`MAX_REFS`]).
    pub fn add_ref(&mut self, reference: &str) {
        self.refs.retain(|r| r != reference);
        self.refs.push(reference.to_string());
        if self.refs.len() > MAX_REFS {
            let excess = self.refs.len() - MAX_REFS;
            self.refs.drain(..excess);
        }
    }

    /// Whether the entry is pinned at `now`: it has a `due` and `now` is before
    /// `due + grace` (SPEC §7.1): not charged decay, pruned last.
    pub fn pinned(&self, now: DateTime<Utc>, grace: chrono::TimeDelta) -> bool {
        self.due
            .and_then(|due| due.checked_add_signed(grace))
            .is_some_and(|until| now < until)
    }
}

fn v1_importance() -> u8 {
    V1_IMPORTANCE
}

fn one() -> u32 {
    1
}

/// What a thread remembers between ticks.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ThreadState {
    #[serde(default, deserialize_with = "null_as_default")]
    pub last_findings: Vec<String>,
    #[serde(default, deserialize_with = "de_pressure")]
    pub novelty_pressure: u8,
    #[serde(default, deserialize_with = "null_as_default")]
    pub focus_hint: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub history: Vec<Vec<String>>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The state of all four threads; unknown keys (another version's threads) are kept.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ThreadStates {
    #[serde(default)]
    pub watcher: ThreadState,
    #[serde(default)]
    pub librarian: ThreadState,
    #[serde(default)]
    pub oracle: ThreadState,
    #[serde(default)]
    pub dreamer: ThreadState,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ThreadStates {
    pub fn get(&self, thread: ThreadName) -> &ThreadState {
        match thread {
            ThreadName::Watcher => &self.watcher,
            ThreadName::Librarian => &self.librarian,
            ThreadName::Oracle => &self.oracle,
            ThreadName::Dreamer => &self.dreamer,
        }
    }

    pub fn get_mut(&mut self, thread: ThreadName) -> &mut ThreadState {
        match thread {
            ThreadName::Watcher => &mut self.watcher,
            ThreadName::Librarian => &mut self.librarian,
            ThreadName::Oracle => &mut self.oracle,
            ThreadName::Dreamer => &mut self.dreamer,
        }
    }
}

/// One escalation: raised by a thread, then decided (or suppressed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EscalationRecord {
    #[serde(with = "serde_utc")]
    pub timestamp: DateTime<Utc>,
    pub thread: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub reason: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub outcome: EscalationOutcome,
    /// Calls to the primary model that failed for it (retried up to `max_attempts`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attempts: u32,
    /// The primary model's decision, once made (kept so a held notification can be
    /// delivered later and the threads see why something was dismissed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<DecisionRecord>,
    /// Where the send this record owes stands: the effect of its decision (a
    /// notification, a proposal, a note), or — for a record held for the user's
    /// confirmation — the content-free nudge that says one is waiting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery: Option<Delivery>,
    /// Sends of what it owes that failed (the notifier reported it did not deliver),
    /// counted up to `escalation.delivery_attempts`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub sends: u32,
    /// The ledger's run (`runs`) from which an `owed` send is tried again; none: at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_run: Option<u64>,
    /// Why its last send failed (cleaned, short); cleared when one succeeds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery_error: Option<String>,
    /// Raised by a thread whose sources carried a screen detection that tick:
    /// decided last when calls are short, never remembered.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tainted: bool,
    /// The memory entry the escalation is about, when the aggregator found it: the key
    /// of the told ledger ([`Told`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl EscalationRecord {
    /// A record as the aggregator raises it: nothing decided yet.
    pub fn raised(
        timestamp: DateTime<Utc>,
        thread: impl Into<String>,
        reason: impl Into<String>,
        outcome: EscalationOutcome,
    ) -> EscalationRecord {
        EscalationRecord {
            timestamp,
            thread: thread.into(),
            reason: reason.into(),
            outcome,
            attempts: 0,
            decision: None,
            delivery: None,
            sends: 0,
            retry_run: None,
            delivery_error: None,
            tainted: false,
            entry: None,
            extra: Map::new(),
        }
    }
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The primary model's decision on an escalation, as recorded (SPEC §8).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionRecord {
    /// `notify`, `remember`, `dismiss` or `propose`.
    pub action: String,
    /// The message, the note or the proposal.
    #[serde(default)]
    pub text: String,
    #[serde(default)]
    pub why: String,
}

/// Where a record's send stands (the effect of its decision, or the nudge of a record
/// held for confirmation), recorded around each run of the notifier (or the note's
/// append), so that a kill between the two never runs it twice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Delivery {
    /// Written just before the send runs; replaced once it has run.
    Started,
    /// A tick found `started`: it was interrupted while the send ran. It may or may
    /// not have reached the user; it is never run again by a tick.
    Unconfirmed,
    /// A send is owed: not tried yet (a nudge), or tried and reported undelivered, so
    /// tried again from `retry_run`.
    Owed,
    /// Every try failed, or one may have half-delivered (a notifier killed at its
    /// timeout): no tick sends it again; it waits for `thinker release` or `discard`.
    Undelivered,
}

/// The text of [`EscalationOutcome::Pending`].
pub const OUTCOME_PENDING: &str = "pending";
/// The text of [`EscalationOutcome::Suppressed`] with [`Suppression::Duplicate`].
pub const OUTCOME_SUPPRESSED: &str = "suppressed: duplicate";

/// What became of an escalation (SPEC §8), written in the file exactly as SPEC writes it:
/// `pending`, or one of the prefixes `notified: `, `remembered: `, `dismissed: `,
/// `proposed: `, `held: `, `capped: `, `failed: `, `suppressed: ` and its text. Any other
/// string (hand-written, an older or newer version) is kept as it is ([`Self::Other`]),
/// so every file round-trips byte for byte: `parse(s).to_string() == s`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EscalationOutcome {
    /// Waits for the primary model.
    Pending,
    Notified(String),
    Remembered(String),
    Dismissed(String),
    Proposed(String),
    Held(String),
    Capped(String),
    Failed(String),
    Suppressed(Suppression),
    /// A string that is none of the above, kept as read.
    Other(String),
}

/// Why an escalation was suppressed without a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Suppression {
    /// It repeats a recent escalation of the same thread (`suppressed: duplicate`).
    Duplicate,
    /// It matches a reason the primary model dismissed recently
    /// (`suppressed: dismissed recently`).
    DismissedRecently,

    /// Any other text after `suppressed: `.
    Other(String),
}

/// Builds an [`EscalationOutcome`] from the text after its prefix.
type Arm = fn(String) -> EscalationOutcome;

impl EscalationOutcome {
    /// The prefixes of SPEC §8 that carry a text, with their arms.
    const PREFIXED: [(&'static str, Arm); 7] = [
        ("notified: ", EscalationOutcome::Notified),
        ("remembered: ", EscalationOutcome::Remembered),
        ("dismissed: ", EscalationOutcome::Dismissed),
        ("proposed: ", EscalationOutcome::Proposed),
        ("held: ", EscalationOutcome::Held),
        ("capped: ", EscalationOutcome::Capped),
        ("failed: ", EscalationOutcome::Failed),
    ];

    /// Reads the text of the file; never fails (see [`Self::Other`]).
    pub fn parse(text: &str) -> EscalationOutcome {
        if text == OUTCOME_PENDING {
            return EscalationOutcome::Pending;
        }
        if let Some(why) = text.strip_prefix("suppressed: ") {
            return EscalationOutcome::Suppressed(match why {
                "duplicate" => Suppression::Duplicate,
                "dismissed recently" => Suppression::DismissedRecently,
                other => Suppression::Other(other.to_string()),
            });
        }
        for (prefix, arm) in Self::PREFIXED {
            if let Some(rest) = text.strip_prefix(prefix) {
                return arm(rest.to_string());
            }
        }
        EscalationOutcome::Other(text.to_string())
    }

    /// A duplicate of a recent escalation (the aggregator's cooldown).
    pub fn is_duplicate(&self) -> bool {
        matches!(self, EscalationOutcome::Suppressed(Suppression::Duplicate))
    }
}

impl Default for EscalationOutcome {
    /// A record without an outcome (`null` or missing) reads as the empty string.
    fn default() -> Self {
        EscalationOutcome::Other(String::new())
    }
}

impl fmt::Display for EscalationOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (prefix, text) = match self {
            EscalationOutcome::Pending => return f.write_str(OUTCOME_PENDING),
            EscalationOutcome::Notified(t) => ("notified: ", t.as_str()),
            EscalationOutcome::Remembered(t) => ("remembered: ", t.as_str()),
            EscalationOutcome::Dismissed(t) => ("dismissed: ", t.as_str()),
            EscalationOutcome::Proposed(t) => ("proposed: ", t.as_str()),
            EscalationOutcome::Held(t) => ("held: ", t.as_str()),
            EscalationOutcome::Capped(t) => ("capped: ", t.as_str()),
            EscalationOutcome::Failed(t) => ("failed: ", t.as_str()),
            EscalationOutcome::Suppressed(why) => (
                "suppressed: ",
                match why {
                    Suppression::Duplicate => "duplicate",
                    Suppression::DismissedRecently => "dismissed recently",
                    Suppression::Other(t) => t.as_str(),
                },
            ),
            EscalationOutcome::Other(t) => ("", t.as_str()),
        };
        write!(f, "{prefix}{text}")
    }
}

impl From<&str> for EscalationOutcome {
    fn from(text: &str) -> Self {
        EscalationOutcome::parse(text)
    }
}

impl From<String> for EscalationOutcome {
    fn from(text: String) -> Self {
        EscalationOutcome::parse(&text)
    }
}

/// Compares with the text as written in the file.
impl PartialEq<&str> for EscalationOutcome {
    fn eq(&self, text: &&str) -> bool {
        *self == EscalationOutcome::parse(text)
    }
}

impl Serialize for EscalationOutcome {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for EscalationOutcome {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(EscalationOutcome::parse(&String::deserialize(d)?))
    }
}

/// `subconscious.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    #[serde(default = "default_version")]
    pub version: u64,
    #[serde(default)]
    pub tick_count: u64,
    #[serde(default, with = "serde_utc_opt")]
    pub last_tick: Option<DateTime<Utc>>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub active_threads: Vec<Entry>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub patterns: Vec<Entry>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub hunches: Vec<Entry>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub insights: Vec<Entry>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub escalation_history: Vec<EscalationRecord>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub thread_state: ThreadStates,
    /// What reached the user, or is on its way, per memory entry (docs/spec.md §8): kept
    /// as long as the fact is relevant, not for the last few escalations.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub told: Vec<Told>,
    /// Fields this version does not know; written back unchanged.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One matter of the told ledger (docs/spec.md §8): an escalation about a memory entry,
/// from the tick that raised it to what became of it, and the re-escalations folded
/// into it since.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Told {
    /// The entry it is about (its id follows the entry through a merge).
    pub entry: String,
    /// The entry's summary when it was raised: what a later report is compared with once
    /// the entry has left the memory.
    pub summary: String,
    /// The entry's references then.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "null_as_default"
    )]
    pub refs: Vec<String>,
    /// The entry's due then: a due that moves since is news, told again.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "serde_utc_opt"
    )]
    pub due: Option<DateTime<Utc>>,
    /// The escalation record it began with (its time and thread: how it is found in
    /// the history until that record is settled).
    #[serde(with = "serde_utc")]
    pub raised: DateTime<Utc>,
    pub thread: String,
    /// The reason it was raised with: a later reason that is one fact with it is the
    /// same matter, whichever entry it is about.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// What became of it, as the history record says once settled (`pending` until).
    #[serde(default, deserialize_with = "null_as_default")]
    pub outcome: EscalationOutcome,
    /// What the user was told (the decision's text), when something was.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Re-escalations of the same matter folded into it, and the last one's time.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub folded: u32,
    #[serde(with = "serde_utc")]
    pub last: DateTime<Utc>,
}

/// A file without `version` is the original aggregator's: version 1.
fn default_version() -> u64 {
    1
}

impl Default for State {
    fn default() -> Self {
        State {
            version: STATE_VERSION,
            tick_count: 0,
            last_tick: None,
            active_threads: Vec::new(),
            patterns: Vec::new(),
            hunches: Vec::new(),
            insights: Vec::new(),
            escalation_history: Vec::new(),
            thread_state: ThreadStates::default(),
            told: Vec::new(),
            extra: Map::new(),
        }
    }
}

/// Why a state text was refused. `Display` names the field (as a path like
/// `patterns[2].strength`) or the line and the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateProblem {
    #[error("it is not valid JSON: {0}")]
    Syntax(String),
    #[error("{path}: {message}")]
    Field { path: String, message: String },
    #[error(
        "it was written by a newer thinker (state version {found}; this thinker reads version {STATE_VERSION}): upgrade thinker"
    )]
    FutureVersion { found: u64 },
    #[error("version: {found} is not a state version (expected {STATE_VERSION})")]
    BadVersion { found: u64 },
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
}

impl State {
    /// Reads and validates a state text.
    pub fn from_json(text: &str) -> Result<State, StateProblem> {
        // Syntax first, so that truncated files report the line, not a field.
        let value: Value =
            serde_json::from_str(text).map_err(|e| StateProblem::Syntax(e.to_string()))?;
        if !value.is_object() {
            return Err(StateProblem::Field {
                path: "(top level)".into(),
                message: "expected a JSON object".into(),
            });
        }
        if let Some(v) = value.get("version") {
            match v.as_u64() {
                Some(found) if found > STATE_VERSION => {
                    return Err(StateProblem::FutureVersion { found });
                }
                Some(0) => return Err(StateProblem::BadVersion { found: 0 }),
                _ => {}
            }
        }
        let mut state: State = serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            StateProblem::Field {
                path: if path == "." {
                    "(top level)".into()
                } else {
                    path
                },
                message: e.into_inner().to_string(),
            }
        })?;
        state.validate()?;
        state.clean_text();
        state.upgrade();
        Ok(state)
    }

    /// Brings a version 1 state to version 2 in memory (it is written as version 2 by
    /// the next write): every entry's `importance` and `sightings` were defaulted when
    /// read (5 and 1), and its `from` becomes its `source` when known.
    fn upgrade(&mut self) {
        if self.version >= STATE_VERSION {
            return;
        }
        for cat in Category::ALL {
            for e in self.entries_mut(cat) {
                if e.from.is_empty()
                    && let Some(source) = &e.source
                    && !source.is_empty()
                {
                    e.from = vec![source.clone()];
                }
            }
        }
        self.version = STATE_VERSION;
    }

    /// Cleans every text a model wrote ([`untrusted::clean_line`]), so a file written by
    /// an older version is written back clean and never feeds control, escape, bidi or
    /// zero-width characters to the aggregator, a prompt or a terminal. An id is cleaned
    /// only when its clean form is non-empty and not taken. Unknown fields stay as
    /// they are.
    fn clean_text(&mut self) {
        let clean = |s: &mut String| *s = untrusted::clean_line(s);
        let mut ids: HashSet<String> = self.all_entries().map(|(_, e)| e.id.clone()).collect();
        for cat in Category::ALL {
            for e in self.entries_mut(cat) {
                let id = untrusted::clean_line(&e.id).trim().to_string();
                if id != e.id && !id.is_empty() && !ids.contains(&id) {
                    ids.insert(id.clone());
                    e.id = id;
                }
                clean(&mut e.summary);
                e.said.iter_mut().for_each(|s| clean(&mut s.text));
                if let Some(source) = &mut e.source {
                    clean(source);
                }
            }
        }
        for thread in ThreadName::ALL {
            let ts = self.thread_state.get_mut(thread);
            ts.last_findings.iter_mut().for_each(clean);
            ts.history.iter_mut().flatten().for_each(clean);
            clean(&mut ts.focus_hint);
        }
        for r in &mut self.escalation_history {
            clean(&mut r.thread);
            clean(&mut r.reason);
            let mut outcome = r.outcome.to_string();
            clean(&mut outcome);
            r.outcome = EscalationOutcome::parse(&outcome);
            if let Some(d) = &mut r.decision {
                clean(&mut d.action);
                d.text = untrusted::clean(&d.text);
                clean(&mut d.why);
            }
        }
    }

    /// Serializes the state the way it is written to disk (pretty, newline-terminated).
    /// It should never fail (every map key is a string), but if it did, the caller gets
    /// the error rather than empty text that would replace a memory with nothing.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        Ok(text)
    }

    /// A short digest of the state as it is written ([`State::to_json`]). The journal
    /// records it after every tick, so that `thinker replay` can check that it reproduces
    /// each state exactly; the ledger keeps the last one written, so that a tick can tell
    /// a state changed outside thinker (and journal it whole). Not a security hash.
    pub fn digest(&self) -> String {
        self.to_json()
            .map(|text| untrusted::fence_id(&[&text]))
            .unwrap_or_default()
    }

    /// Checks what serde cannot: unique ids, ranges.
    pub fn validate(&self) -> Result<(), StateProblem> {
        let mut seen = HashSet::new();
        for cat in Category::ALL {
            for (i, e) in self.entries(cat).iter().enumerate() {
                let path = format!("{}[{i}]", cat.key());
                if e.id.trim().is_empty() {
                    return Err(StateProblem::Invalid {
                        path: format!("{path}.id"),
                        message: "an entry needs a non-empty id".into(),
                    });
                }
                if !seen.insert(e.id.as_str()) {
                    return Err(StateProblem::Invalid {
                        path: format!("{path}.id"),
                        message: format!("id `{}` is used twice; ids must be unique", e.id),
                    });
                }
            }
        }
        Ok(())
    }

    pub fn entries(&self, cat: Category) -> &Vec<Entry> {
        match cat {
            Category::ActiveThreads => &self.active_threads,
            Category::Patterns => &self.patterns,
            Category::Hunches => &self.hunches,
            Category::Insights => &self.insights,
        }
    }

    pub fn entries_mut(&mut self, cat: Category) -> &mut Vec<Entry> {
        match cat {
            Category::ActiveThreads => &mut self.active_threads,
            Category::Patterns => &mut self.patterns,
            Category::Hunches => &mut self.hunches,
            Category::Insights => &mut self.insights,
        }
    }

    /// Every entry with its category, in category order then file order.
    pub fn all_entries(&self) -> impl Iterator<Item = (Category, &Entry)> {
        Category::ALL
            .into_iter()
            .flat_map(move |c| self.entries(c).iter().map(move |e| (c, e)))
    }

    /// Number of entries over all categories.
    pub fn entry_count(&self) -> usize {
        Category::ALL.iter().map(|c| self.entries(*c).len()).sum()
    }
}

fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

fn de_bounded<'de, D: Deserializer<'de>>(d: D, max: u8, what: &str) -> Result<u8, D::Error> {
    let n = serde_json::Number::deserialize(d)?;
    let value = n.as_f64().unwrap_or(f64::NAN);
    if value.fract() == 0.0 && (0.0..=f64::from(max)).contains(&value) {
        Ok(value as u8)
    } else {
        Err(serde::de::Error::custom(format!(
            "{what} must be a whole number from 0 to {max}, found {n}"
        )))
    }
}

fn de_importance<'de, D: Deserializer<'de>>(d: D) -> Result<u8, D::Error> {
    de_bounded(d, 10, "importance")
}

fn de_pressure<'de, D: Deserializer<'de>>(d: D) -> Result<u8, D::Error> {
    Option::<Value>::deserialize(d).and_then(|v| match v {
        None | Some(Value::Null) => Ok(0),
        Some(v) => {
            de_bounded(v, MAX_PRESSURE, "novelty_pressure").map_err(serde::de::Error::custom)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (fuzz): serde_json's default float reading is off by one unit in the
    /// last place for some numbers, so an unknown field's float changed at each write;
    /// `float_roundtrip` reads them exactly.
    #[test]
    fn an_unknown_fields_float_survives_a_write_and_a_read() {
        let text = r#"{"x-extra": [4.375445840377278e+204, 0.1, 5e-324]}"#;
        let state = State::from_json(text).unwrap();
        let again = State::from_json(&state.to_json().unwrap()).unwrap();
        assert_eq!(again, state);
        assert_eq!(
            again.extra["x-extra"][0].as_f64(),
            Some(4.375_445_840_377_278e204)
        );
    }

    /// `said` keeps distinct wordings other than the summary, newest last, at most
    /// [`MAX_SAID`]; it is read, cleaned and written back, and a file without it reads.
    #[test]
    fn said_keeps_distinct_wordings_within_its_cap_and_round_trips() {
        let day = chrono::NaiveDate::from_ymd_opt(2026, 11, 23).unwrap();
        let now = "2026-11-23T10:00:00Z".parse().unwrap();
        let mut e = Entry::new(
            "t-a".into(),
            "Rent unpaid".into(),
            Strength::whole(3),
            5,
            now,
        );
        e.add_said(" rent  UNPAID ", day);
        assert!(e.said.is_empty(), "the summary is not another wording");
        for i in 0..=MAX_SAID {
            e.add_said(&format!("Rent of £950 unpaid ({i})"), day);
            e.add_said(&format!("rent of £950 unpaid ({i})"), day);
        }
        let texts: Vec<&str> = e.said.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(texts.len(), MAX_SAID);
        assert_eq!(texts[0], "Rent of £950 unpaid (1)");
        assert_eq!(
            texts[MAX_SAID - 1],
            format!("Rent of £950 unpaid ({MAX_SAID})")
        );
        let text = r#"{"patterns": [{"id": "p-1", "summary": "s", "strength": 3,
            "created": "2026-11-22T10:05:00Z", "last_seen": "2026-11-22T10:05:00Z",
            "said": [{"text": "s\u200b again", "day": "2026-11-22"}]}]}"#;
        let state = State::from_json(text).unwrap();
        assert_eq!(state.patterns[0].said[0].text, "s again");
        assert_eq!(State::from_json(&state.to_json().unwrap()).unwrap(), state);
        let without = State::from_json(&text.replace(r#""said""#, r#""x-said""#)).unwrap();
        assert!(without.patterns[0].said.is_empty());
    }

    /// Regression (fuzz): a time that read as past 9999 in UTC was written `+10000-…`,
    /// and the state the tick wrote never loaded again; it is refused, naming the field.
    #[test]
    fn a_time_past_9999_is_refused_not_written_unreadable() {
        let text = r#"{"patterns": [{"id": "p-1", "summary": "s", "strength": 3,
            "created": "2026-11-22T10:05:00Z", "last_seen": "9999-12-31T23:59:59-01:00"}]}"#;
        let err = State::from_json(text).unwrap_err();
        assert!(
            err.to_string().starts_with("patterns[0].last_seen: "),
            "{err}"
        );
        let ok = text.replace("-01:00", "Z");
        let state = State::from_json(&ok).unwrap();
        assert_eq!(State::from_json(&state.to_json().unwrap()).unwrap(), state);
    }

    #[test]
    fn escalation_outcomes_read_and_write_spec_text() {
        let cases = [
            ("pending", EscalationOutcome::Pending),
            (
                "suppressed: duplicate",
                EscalationOutcome::Suppressed(Suppression::Duplicate),
            ),
            (
                "suppressed: dismissed recently",
                EscalationOutcome::Suppressed(Suppression::DismissedRecently),
            ),
            (
                "suppressed: cap",
                EscalationOutcome::Suppressed(Suppression::Other("cap".into())),
            ),
            ("notified: sent", EscalationOutcome::Notified("sent".into())),
            ("remembered: a", EscalationOutcome::Remembered("a".into())),
            ("dismissed: b", EscalationOutcome::Dismissed("b".into())),
            ("proposed: c", EscalationOutcome::Proposed("c".into())),
            ("held: d", EscalationOutcome::Held("d".into())),
            ("capped: e", EscalationOutcome::Capped("e".into())),
            ("failed: f", EscalationOutcome::Failed("f".into())),
            ("Pending", EscalationOutcome::Other("Pending".into())),
            ("notified:x", EscalationOutcome::Other("notified:x".into())),
            ("", EscalationOutcome::Other(String::new())),
        ];
        for (text, outcome) in cases {
            assert_eq!(EscalationOutcome::parse(text), outcome, "{text}");
            assert_eq!(outcome.to_string(), text);
            let json = serde_json::to_string(&outcome).unwrap();
            assert_eq!(json, serde_json::to_string(text).unwrap());
        }
    }

    #[test]
    fn any_escalation_outcome_text_round_trips() {
        for text in [
            "suppressed: ",
            "suppressed:  duplicate",
            "pending ",
            "held: ",
            "notified: notified: twice",
            "\u{2028}",
        ] {
            assert_eq!(EscalationOutcome::parse(text).to_string(), text);
        }
    }

    const SEED: &str = r#"{
      "tick_count": 3,
      "last_tick": "2026-11-22T10:05:00Z",
      "active_threads": [{"id": "t-invoice-overdue", "summary": "Invoice overdue", "strength": 4,
                          "created": "2026-11-20T08:00:00Z", "last_seen": "2026-11-22T10:05:00Z",
                          "mood": "tense"}],
      "patterns": [], "hunches": [], "insights": [],
      "escalation_history": [],
      "thread_state": {"watcher": {"last_findings": ["x"], "novelty_pressure": 2, "focus_hint": "", "history": [["x"]]}},
      "owner": "ada"
    }"#;

    #[test]
    fn versionless_file_reads_as_version_one_upgraded_and_keeps_unknown_fields() {
        let s = State::from_json(SEED).unwrap();
        assert_eq!(s.version, 2);
        let e = &s.active_threads[0];
        assert_eq!(e.extra["mood"], "tense");
        assert_eq!((e.importance, e.sightings), (5, 1));
        assert_eq!(e.strength, Strength::whole(4));
        let back: Value = serde_json::from_str(&s.to_json().unwrap()).unwrap();
        assert_eq!(back["owner"], "ada");
        assert_eq!(back["active_threads"][0]["mood"], "tense");
        assert_eq!(back["active_threads"][0]["importance"], 5);
        assert_eq!(back["version"], 2);
        assert_eq!(State::from_json(&s.to_json().unwrap()).unwrap(), s);
    }

    #[test]
    fn text_models_wrote_is_cleaned_on_load_and_unknown_fields_are_not() {
        let dirty = r"a\u202eb\u001b[31mc\u200bd\u0085e\nf";
        let text = SEED
            .replace("\"Invoice overdue\"", &format!("\"{dirty}\""))
            .replace("\"mood\": \"tense\"", &format!("\"mood\": \"{dirty}\""))
            .replace(
                "\"focus_hint\": \"\"",
                &format!("\"focus_hint\": \"{dirty}\""),
            )
            .replace("[\"x\"]", &format!("[\"{dirty}\"]"))
            .replace(
                "\"id\": \"t-invoice-overdue\"",
                "\"id\": \"t-invoice\\u200b-overdue\"",
            );
        let s = State::from_json(&text).unwrap();
        let e = &s.active_threads[0];
        assert_eq!(e.summary, "abcd e f");
        assert_eq!(e.id, "t-invoice-overdue");
        let w = &s.thread_state.watcher;
        assert_eq!(w.focus_hint, "abcd e f");
        assert_eq!(w.last_findings, ["abcd e f"]);
        assert_eq!(w.history, [["abcd e f"]]);
        assert_eq!(e.extra["mood"], "a\u{202e}b\u{1b}[31mc\u{200b}d\u{85}e\nf");
    }

    #[test]
    fn an_id_whose_clean_form_is_taken_stays_as_it_was() {
        let text = SEED.replace("\"patterns\": []", r#""patterns": [{"id": "t-invoice-overdue\u200b", "summary": "s", "strength": 1, "created": "2026-11-20T08:00:00Z", "last_seen": "2026-11-20T08:00:00Z"}]"#);
        let s = State::from_json(&text).unwrap();
        assert_eq!(s.active_threads[0].id, "t-invoice-overdue");
        assert_eq!(s.patterns[0].id, "t-invoice-overdue\u{200b}");
    }

    #[test]
    fn wrong_typed_field_is_named() {
        let text = SEED.replace("\"strength\": 4", "\"strength\": \"strong\"");
        let err = State::from_json(&text).unwrap_err().to_string();
        assert!(err.contains("active_threads[0].strength"), "{err}");
    }

    #[test]
    fn out_of_range_strength_is_refused() {
        let text = SEED.replace("\"strength\": 4", "\"strength\": 14");
        let err = State::from_json(&text).unwrap_err().to_string();
        assert!(
            err.contains("strength must be a number from 0 to 10"),
            "{err}"
        );
    }

    #[test]
    fn a_version_one_file_is_upgraded_with_its_source_as_provenance() {
        let text = SEED
            .replace("\"tick_count\": 3", "\"version\": 1, \"tick_count\": 3")
            .replace(
                "\"strength\": 4,",
                "\"strength\": 4, \"source\": \"oracle\",",
            );
        let s = State::from_json(&text).unwrap();
        assert_eq!(s.version, 2);
        assert_eq!(s.active_threads[0].from, ["oracle"]);
        let again = State::from_json(&s.to_json().unwrap()).unwrap();
        assert_eq!(again, s);
    }

    #[test]
    fn a_version_two_entry_keeps_its_decimals_and_provenance() {
        let text = SEED
            .replace("\"tick_count\": 3", "\"version\": 2, \"tick_count\": 3")
            .replace(
                "\"strength\": 4,",
                "\"strength\": 3.47, \"importance\": 9, \"sightings\": 4, \"from\": [\"watcher/inbox\"],",
            );
        let s = State::from_json(&text).unwrap();
        let e = &s.active_threads[0];
        assert_eq!(
            (e.strength.to_string(), e.importance, e.sightings),
            ("3.47".into(), 9, 4)
        );
        assert_eq!(e.from, ["watcher/inbox"]);
        let back: Value = serde_json::from_str(&s.to_json().unwrap()).unwrap();
        assert_eq!(back["active_threads"][0]["strength"], 3.47);
    }

    #[test]
    fn future_version_is_refused_with_upgrade_hint() {
        let err = State::from_json(r#"{"version": 3}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("newer thinker") && err.contains("upgrade"),
            "{err}"
        );
    }

    #[test]
    fn duplicate_ids_are_refused() {
        let text = SEED.replace("\"patterns\": []", r#""patterns": [{"id": "t-invoice-overdue", "summary": "s", "strength": 1, "created": "2026-11-20T08:00:00Z", "last_seen": "2026-11-20T08:00:00Z"}]"#);
        let err = State::from_json(&text).unwrap_err().to_string();
        assert!(
            err.contains("patterns[0].id") && err.contains("used twice"),
            "{err}"
        );
    }

    #[test]
    fn truncated_text_reports_syntax() {
        let err = State::from_json(&SEED[..100]).unwrap_err();
        assert!(matches!(err, StateProblem::Syntax(_)), "{err}");
    }
}
