//! Escalation (SPEC §8): what happens once the aggregator has recorded an escalation as
//! `pending` — one call to the primary model for a structured decision, the action it
//! decides, and the outcome that replaces `pending` in `escalation_history`.
//!
//! The building blocks the tick's escalation phase (`crate::tick`) uses:
//! - [`plan`]: the work owed by the history and what a decision does (pure);
//! - [`decision`]: the words and schema of the primary model's question and the tolerant
//!   reader of its one decision; a `propose`, or any action it does not know, is only
//!   ever text for the user;
//! - [`outbound`]: the check of what leaves, holding a text that must be confirmed;
//! - [`notify::run_notifier`]: the `notify` action (and a `propose`, shown to the user
//!   through the notifier), its process group killed at the timeout;
//! - [`note::append_note`]: the `remember` action, a dated note appended to the memory
//!   directory;
//! - [`webhook`]: the built-in webhook notifier (`[escalation.webhook]`);
//! - [`held`]: the messages that wait for the user (held for confirmation, or
//!   undelivered), for `thinker held`, `release`, `discard` and the agent's block.
//!
//! Here: the outcome's excerpt of a model's text ([`excerpt`]), shared by `plan` and
//! `outbound`, so that neither imports the other's words back.
//!
//! Must not: decide what the memory becomes (that is [`crate::aggregate`]), execute
//! anything a model proposes, run a shell, or read the real clock (a
//! [`crate::clock::Clock`] is passed in).

pub mod decision;
pub mod held;
pub mod note;
pub mod notify;
pub mod outbound;
pub mod plan;
pub mod webhook;

use crate::untrusted;

/// Outcome texts keep this many characters of a message, a note or a reason.
pub const OUTCOME_EXCERPT_CHARS: usize = 160;

/// A short, one-line excerpt of a model's text for an outcome.
pub fn excerpt(text: &str) -> String {
    untrusted::excerpt(text, OUTCOME_EXCERPT_CHARS)
}
