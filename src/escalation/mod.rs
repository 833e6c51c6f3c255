//! Escalation (SPEC §8): what happens once the aggregator has recorded an escalation as
//! `pending` — one call to the primary model for a structured decision, the action it
//! decides, and the outcome that replaces `pending` in `escalation_history`.
//!
//! Built so far (building blocks, not yet wired into the tick):
//! - [`decision`]: what the primary model is asked (the escalation prompt, its schema)
//!   and the tolerant reader of its one decision; a `propose`, or any action it does not
//!   know, is only ever text for the user;
//! - [`notify::run_notifier`]: the `notify` action (and a `propose`, shown to the user
//!   through the notifier), its process group killed at the timeout;
//! - [`note::append_note`]: the `remember` action, a dated note appended to the memory
//!   directory.
//!
//! To come (issue 9): the call itself under the tick's lock, noise control (cooldown,
//! daily cap, quiet hours, retries, dismissed-recently suppression), the delivery intent
//! recorded before the notifier runs, and the second write of the outcome.
//!
//! Must not: decide what the memory becomes (that is [`crate::aggregate`]), execute
//! anything a model proposes, run a shell, or read the real clock (a
//! [`crate::clock::Clock`] is passed in).

pub mod decision;
pub mod note;
pub mod notify;
pub mod outbound;
pub mod plan;
