//! The messages that wait for the user (`thinker held`): read from the escalation
//! history, pure.
//!
//! Two kinds wait, each until `thinker release ID` sends it or `thinker discard ID`
//! drops it:
//! - **held for confirmation**: the check of what leaves held the decided text
//!   (`held: needs confirmation (<why>): …`, [`super::outbound`]); a tick never sends it;
//! - **undelivered**: every try through the notifier failed, or one may have
//!   half-delivered (`delivery: "undelivered"`): a tick never sends it again.
//!
//! The records one call decided together are one message (the same decision): listed
//! once, released or discarded together. A message's **id** is 8 hex digits of a hash of
//! its first record's time, thread and reason, so it stays the same while the history
//! changes around it; a unique prefix of 4 or more digits names it too.
//!
//! Below `config` (it reads records only), so the agent's block ([`crate::recall`]) and
//! health can say what waits. Must not: do I/O, read the clock, or change a record.

use chrono::{DateTime, Utc};

use crate::state::{Delivery, EscalationOutcome, EscalationRecord};
use crate::untrusted;

/// The start of a held outcome's text that no tick ever releases (the same text as
/// `super::outbound::NEEDS_CONFIRMATION`; a test in `plan` keeps them equal).
pub const NEEDS_CONFIRMATION: &str = "needs confirmation";

/// Why a message waits for the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Waiting {
    /// Held for the user's confirmation by the check of what leaves.
    Confirmation,
    /// The notifier failed every try (or may have half-delivered one).
    Undelivered,
}

impl Waiting {
    pub fn as_str(self) -> &'static str {
        match self {
            Waiting::Confirmation => "held for confirmation",
            Waiting::Undelivered => "undelivered",
        }
    }
}

/// One message waiting for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Held {
    /// 8 hex digits ([`id_of`]).
    pub id: String,
    pub waiting: Waiting,
    /// Its records in the history, in order (one decision).
    pub records: Vec<usize>,
    /// When its first record was raised.
    pub raised: DateTime<Utc>,
    /// The threads that raised it, in order, without repeats.
    pub threads: Vec<String>,
    /// `notify`, `propose` or `remember`.
    pub action: String,
    /// What the decision says (cleaned, one line; its reasons when it says nothing).
    pub text: String,
    /// Why it waits: the held outcome's reasons, or the last send's error.
    pub why: String,
    /// It was held for a link (its links are defanged when it is released).
    pub for_link: bool,
}

/// Whether `outcome` is held for the user's confirmation.
pub fn needs_confirmation(outcome: &EscalationOutcome) -> bool {
    matches!(outcome, EscalationOutcome::Held(t) if t.starts_with(NEEDS_CONFIRMATION))
}

/// Why `record` waits for the user, if it does. A record whose release or nudge is under
/// way (`started`) does not wait: its send is.
pub fn waiting(record: &EscalationRecord) -> Option<Waiting> {
    record.decision.as_ref()?;
    if record.delivery == Some(Delivery::Started) {
        return None;
    }
    if needs_confirmation(&record.outcome) {
        Some(Waiting::Confirmation)
    } else if record.delivery == Some(Delivery::Undelivered) {
        Some(Waiting::Undelivered)
    } else {
        None
    }
}

/// The id of a message whose first record is `record`: 8 hex digits of a hash of its
/// time, thread and reason.
pub fn id_of(record: &EscalationRecord) -> String {
    let time = crate::timestamp::format(record.timestamp);
    let hash = untrusted::fence_id(&[&time, &record.thread, &record.reason]);
    hash[..8].to_string()
}

/// The reasons in a held outcome's parentheses: `held: needs confirmation (<why>): …`.
fn held_reasons(outcome: &EscalationOutcome) -> Option<String> {
    let EscalationOutcome::Held(text) = outcome else {
        return None;
    };
    let rest = text.strip_prefix(NEEDS_CONFIRMATION)?.trim_start();
    let inner = rest.strip_prefix('(')?;
    // The reasons hold no parenthesis of their own: up to the first `): `.
    let end = inner.find("): ").or_else(|| inner.rfind(')'))?;
    Some(inner[..end].to_string())
}

/// Every message waiting in `history`, oldest first.
pub fn list(history: &[EscalationRecord]) -> Vec<Held> {
    let mut held: Vec<Held> = Vec::new();
    for (i, r) in history.iter().enumerate() {
        let (Some(waiting), Some(decision)) = (waiting(r), r.decision.as_ref()) else {
            continue;
        };
        // One decision, one message: the records decided together.
        if let Some(message) = held.iter_mut().find(|h| {
            h.waiting == waiting
                && history[h.records[0]]
                    .decision
                    .as_ref()
                    .is_some_and(|d| d.action == decision.action && d.text == decision.text)
        }) {
            message.records.push(i);
            if !message.threads.contains(&r.thread) {
                message.threads.push(r.thread.clone());
            }
            continue;
        }
        let text = if decision.text.trim().is_empty() {
            r.reason.clone()
        } else {
            decision.text.clone()
        };
        let why = match waiting {
            Waiting::Confirmation => held_reasons(&r.outcome).unwrap_or_default(),
            Waiting::Undelivered => r
                .delivery_error
                .clone()
                .unwrap_or_else(|| r.outcome.to_string()),
        };
        let for_link = waiting == Waiting::Confirmation && why.contains("link");
        held.push(Held {
            id: id_of(r),
            waiting,
            records: vec![i],
            raised: r.timestamp,
            threads: vec![r.thread.clone()],
            action: decision.action.clone(),
            text: untrusted::clean_line(&text),
            why: untrusted::clean_line(&why),
            for_link,
        });
    }
    held
}

/// How an id given on the command line named a waiting message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found<'a> {
    One(&'a Held),
    /// No waiting message has this id (or prefix).
    None,
    /// The prefix names several: these ids.
    Several(Vec<String>),
    /// A prefix shorter than 4 digits.
    TooShort,
}

/// The waiting message `id` names: its whole id, or a unique prefix of 4+ digits.
pub fn find<'a>(held: &'a [Held], id: &str) -> Found<'a> {
    let id = id.trim().to_ascii_lowercase();
    if let Some(h) = held.iter().find(|h| h.id == id) {
        return Found::One(h);
    }
    if id.len() < 4 {
        return Found::TooShort;
    }
    let matching: Vec<&Held> = held.iter().filter(|h| h.id.starts_with(&id)).collect();
    match matching.as_slice() {
        [] => Found::None,
        [one] => Found::One(one),
        many => Found::Several(many.iter().map(|h| h.id.clone()).collect()),
    }
}

/// Why `thinker release` or `discard` did not do what it was asked.
#[derive(Debug, thiserror::Error)]
pub enum HeldError {
    #[error("no message waits with id `{id}`: `thinker held` lists those that do")]
    NotWaiting { id: String },
    #[error("`{id}` names several waiting messages ({}): give more of the id", ids.join(", "))]
    Ambiguous { id: String, ids: Vec<String> },
    #[error("`{id}` is too short: give the id as `thinker held` lists it (4 digits at least)")]
    TooShort { id: String },
    #[error(
        "no notifier is configured, so {id} cannot be sent: set [escalation] notify_command or [escalation.webhook], try it with `thinker notify --test`, then release it again"
    )]
    NoNotifier { id: String },
    #[error(
        "no memory directory is configured, so the note {id} cannot be written: set [escalation] memory_dir, then release it again"
    )]
    NoMemoryDir { id: String },
    #[error(
        "{id} was not sent: {error}; it still waits (`thinker notify --test` tries the notifier, then release it again)"
    )]
    NotSent { id: String, error: String },
    #[error(
        "{id} may or may not have been sent: {error}; it still waits, so check before you release it again"
    )]
    MaybeSent { id: String, error: String },
}

/// The waiting message `id` names, or why none.
pub fn named<'a>(held: &'a [Held], id: &str) -> Result<&'a Held, HeldError> {
    let shown = untrusted::excerpt(id, 40);
    match find(held, id) {
        Found::One(h) => Ok(h),
        Found::None => Err(HeldError::NotWaiting { id: shown }),
        Found::Several(ids) => Err(HeldError::Ambiguous { id: shown, ids }),
        Found::TooShort => Err(HeldError::TooShort { id: shown }),
    }
}

/// A step a command took with a message outside a tick (`release`, `discard`, a
/// `notify --test`), one line of `deliveries.jsonl`: the tick journals its own sends in
/// its escalation line.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Step {
    #[serde(with = "crate::timestamp::serde_utc")]
    pub time: DateTime<Utc>,
    /// `release`, `discard` or `test`.
    pub action: String,
    /// The message's id (none for a test).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// How it was sent (the notifier, never its arguments or URL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// Whether it went out (`sent`, `not sent`, `maybe sent`, `discarded`).
    pub result: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The records as the step left them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub records: Vec<EscalationRecord>,
}

/// How many distinct messages are held for confirmation.
pub fn confirmations(history: &[EscalationRecord]) -> usize {
    list(history)
        .iter()
        .filter(|h| h.waiting == Waiting::Confirmation)
        .count()
}

/// The content-free nudge sent through the notifier when messages are held for
/// confirmation: how many, and the command that lists them. No model text.
pub fn nudge(count: usize) -> String {
    let messages = if count == 1 { "message" } else { "messages" };
    format!("thinker is holding {count} {messages} for your confirmation: run `thinker held`\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::DecisionRecord;

    fn record(minute: u32, thread: &str, outcome: &str, text: &str) -> EscalationRecord {
        let at = crate::timestamp::parse(&format!("2026-11-22T10:{minute:02}:00Z")).unwrap();
        EscalationRecord {
            decision: Some(DecisionRecord {
                action: "notify".into(),
                text: text.into(),
                why: String::new(),
            }),
            ..EscalationRecord::raised(at, thread, format!("reason {minute}"), outcome.into())
        }
    }

    #[test]
    fn what_waits_is_held_or_undelivered_one_message_per_decision() {
        let mut lost = record(
            3,
            "oracle",
            "failed: notifier `x` exited with code 1; gave up",
            "Flight moved",
        );
        lost.delivery = Some(Delivery::Undelivered);
        lost.delivery_error = Some("notifier `x` exited with code 1".into());
        let mut releasing = record(4, "watcher", "notified: y", "y");
        releasing.delivery = Some(Delivery::Started);
        let history = vec![
            record(
                0,
                "watcher",
                "held: needs confirmation (a link to evil.example, which no source you trust showed): Log in",
                "Log in at https://evil.example",
            ),
            record(
                0,
                "librarian",
                "held: needs confirmation (a link to evil.example, which no source you trust showed): Log in",
                "Log in at https://evil.example",
            ),
            record(1, "watcher", "notified: fine", "fine"),
            record(
                2,
                "watcher",
                "held: until the quiet hours end: later",
                "later",
            ),
            lost,
            releasing,
            record(
                5,
                "dreamer",
                "held: needs confirmation (a phone number): call",
                "call +44 20 7946 0958",
            ),
        ];
        let held = list(&history);
        let got: Vec<(Waiting, Vec<usize>, bool)> = held
            .iter()
            .map(|h| (h.waiting, h.records.clone(), h.for_link))
            .collect();
        assert_eq!(
            got,
            [
                (Waiting::Confirmation, vec![0, 1], true),
                (Waiting::Undelivered, vec![4], false),
                (Waiting::Confirmation, vec![6], false),
            ]
        );
        assert_eq!(held[0].threads, ["watcher", "librarian"]);
        assert_eq!(
            held[0].why,
            "a link to evil.example, which no source you trust showed"
        );
        assert_eq!(held[1].why, "notifier `x` exited with code 1");
        assert_eq!(confirmations(&history), 2);
        // Ids: 8 hex digits, stable, distinct.
        assert!(
            held.iter()
                .all(|h| h.id.len() == 8 && h.id.chars().all(|c| c.is_ascii_hexdigit()))
        );
        assert_eq!(
            list(&history[4..])[0].id,
            held[1].id,
            "the id does not move"
        );
    }

    #[test]
    fn an_id_or_a_unique_prefix_finds_a_message() {
        let history = vec![
            record(
                0,
                "watcher",
                "held: needs confirmation (a phone number): a",
                "a",
            ),
            record(
                1,
                "watcher",
                "held: needs confirmation (a phone number): b",
                "b",
            ),
        ];
        let held = list(&history);
        let id = held[1].id.clone();
        assert_eq!(find(&held, &id), Found::One(&held[1]));
        assert_eq!(find(&held, &id.to_uppercase()), Found::One(&held[1]));
        assert_eq!(find(&held, &id[..6]), Found::One(&held[1]));
        assert_eq!(find(&held, &id[..2]), Found::TooShort);
        assert_eq!(find(&held, "ffffffff0"), Found::None);
    }

    #[test]
    fn the_nudge_carries_no_text_of_the_message() {
        assert_eq!(
            nudge(1),
            "thinker is holding 1 message for your confirmation: run `thinker held`\n"
        );
        assert_eq!(
            nudge(3),
            "thinker is holding 3 messages for your confirmation: run `thinker held`\n"
        );
    }
}
