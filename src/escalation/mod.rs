//! Escalation (SPEC §8): what the primary model is asked when the threads escalate, and
//! how its one structured decision is read.
//!
//! Owns the decision ([`decision`]): its schema, its tolerant reader and the escalation
//! prompt. It must not run anything a decision names: a `propose` (or any action it does
//! not know) is only ever text for the user. This slice does no I/O and is not wired into
//! the tick yet.

pub mod decision;
