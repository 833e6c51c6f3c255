//! thinker: background cognition for AI agents.
//!
//! Cron runs `thinker tick`; four cheap thinking threads look at the user's world, the
//! deterministic [`aggregate`] merges what they found into the subconscious
//! ([`state`]), which [`storage`] keeps safe on disk. See ARCHITECTURE.md for the flow.

pub mod aggregate;
pub mod answer;
pub mod config;
pub mod matching;
pub mod provider;
pub mod state;
pub mod storage;
pub mod thread;
pub mod timestamp;
