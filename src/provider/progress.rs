//! What a call is waiting for ([`Waiting`]: a free `concurrency` slot or
//! `requests_per_minute` pacing), shared with its caller through [`Progress`], so a caller
//! that gives up on a call (a thread timeout) can say what the time went to.
//!
//! Must not: wait itself or read the wall clock (only tokio's `Instant`, which tests can
//! pause).

use std::sync::{Mutex, PoisonError};

/// What a call is waiting for before its next request can be sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Waiting {
    /// All of the provider's `concurrency` slots are taken.
    Slot {
        provider: String,
        concurrency: u32,
        since: tokio::time::Instant,
    },
    /// The provider's `requests_per_minute` spacing.
    Pacing {
        provider: String,
        requests_per_minute: u32,
        since: tokio::time::Instant,
    },
}

/// Where a call is, shared with whoever runs it: set while it waits for a slot or for
/// pacing, cleared when it goes on. A caller that drops the call (a thread timeout) reads
/// it to say what the time went to.
#[derive(Debug, Default)]
pub struct Progress(Mutex<Option<Waiting>>);

impl Progress {
    pub(super) fn set(&self, waiting: Option<Waiting>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = waiting;
    }

    /// What the call is waiting for now, if anything.
    pub fn waiting(&self) -> Option<Waiting> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// What the call is waiting for now, said for a person (`None`: not waiting; it was
    /// sending, reading, or backing off between retries).
    pub fn describe(&self) -> Option<String> {
        let now = tokio::time::Instant::now();
        self.waiting().map(|w| match w {
            Waiting::Slot {
                provider,
                concurrency,
                since,
            } => format!(
                "waited {:.1} s for a free slot of provider `{provider}` (concurrency {concurrency}); \
                 raise its concurrency if the server has more slots, or the thread's timeout_seconds",
                now.saturating_duration_since(since).as_secs_f64()
            ),
            Waiting::Pacing {
                provider,
                requests_per_minute,
                since,
            } => format!(
                "waited {:.1} s for requests_per_minute pacing of provider `{provider}` \
                 ({requests_per_minute} a minute); raise requests_per_minute or the thread's timeout_seconds",
                now.saturating_duration_since(since).as_secs_f64()
            ),
        })
    }
}
