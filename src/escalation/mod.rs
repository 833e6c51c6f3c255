//! Escalation (SPEC §8): what happens once the aggregator has recorded an escalation as
//! `pending` — one call to the primary model for a structured decision, the action it
//! decides, and the outcome that replaces `pending` in `escalation_history`.
//!
//! Built so far (building blocks, not yet wired into the tick): the effects of the two
//! actions that reach the outside world — [`notify::run_notifier`] (the `notify` action
//! and a `propose`, shown to the user through the notifier) and [`note::append_note`]
//! (the `remember` action). The decision call, noise control (cooldown, daily cap, quiet
//! hours, retries, dismissed-recently suppression) and the second write are to come.
//!
//! Must not: decide what the memory becomes (that is [`crate::aggregate`]), execute
//! anything a model proposes, run a shell, or read the real clock (a
//! [`crate::clock::Clock`] is passed in).

// pub mod decision; (the structured decision; added in its own change)
pub mod note;
pub mod notify;
