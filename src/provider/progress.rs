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
/// pacing, cleared when it goes on; the waits it finished are kept too, so that a caller
/// that drops the call (a thread timeout) can say what the time went to even when the
/// call had just been let through when its time ran out.
#[derive(Debug, Default)]
pub struct Progress(Mutex<Waits>);

#[derive(Debug, Default)]
struct Waits {
    now: Option<Waiting>,
    /// Finished waits and how long each took.
    done: Vec<(Waiting, std::time::Duration)>,
}

impl Waiting {
    fn since(&self) -> tokio::time::Instant {
        match self {
            Waiting::Slot { since, .. } | Waiting::Pacing { since, .. } => *since,
        }
    }

    /// The same wait (kind and provider), whenever it began.
    fn same_kind(&self, other: &Waiting) -> bool {
        match (self, other) {
            (Waiting::Slot { provider: a, .. }, Waiting::Slot { provider: b, .. })
            | (Waiting::Pacing { provider: a, .. }, Waiting::Pacing { provider: b, .. }) => a == b,
            _ => false,
        }
    }

    fn describe(&self, waited: std::time::Duration) -> String {
        match self {
            Waiting::Slot {
                provider,
                concurrency,
                ..
            } => format!(
                "waited {:.1} s for a free slot of provider `{provider}` (concurrency {concurrency}); \
                 raise its concurrency if the server has more slots, or the thread's timeout_seconds",
                waited.as_secs_f64()
            ),
            Waiting::Pacing {
                provider,
                requests_per_minute,
                ..
            } => format!(
                "waited {:.1} s for requests_per_minute pacing of provider `{provider}` \
                 ({requests_per_minute} a minute); raise requests_per_minute or the thread's timeout_seconds",
                waited.as_secs_f64()
            ),
        }
    }
}

impl Progress {
    pub(super) fn set(&self, waiting: Option<Waiting>) {
        let mut waits = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(finished) = waits.now.take() {
            let took = tokio::time::Instant::now().saturating_duration_since(finished.since());
            waits.done.push((finished, took));
        }
        waits.now = waiting;
    }

    /// What the call is waiting for now, if anything.
    pub fn waiting(&self) -> Option<Waiting> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .now
            .clone()
    }

    /// What the call waited for, said for a person: every kind of wait with its total
    /// time, the one under way included (`None`: it never waited; its time went to
    /// sending, reading, or backing off between retries).
    pub fn describe(&self) -> Option<String> {
        let now = tokio::time::Instant::now();
        let waits = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let mut totals: Vec<(Waiting, std::time::Duration)> = Vec::new();
        let current = waits
            .now
            .iter()
            .map(|w| (w.clone(), now.saturating_duration_since(w.since())));
        for (wait, took) in waits.done.iter().cloned().chain(current) {
            match totals.iter_mut().find(|(w, _)| w.same_kind(&wait)) {
                Some((_, total)) => *total += took,
                None => totals.push((wait, took)),
            }
        }
        if totals.is_empty() {
            return None;
        }
        Some(
            totals
                .iter()
                .map(|(w, took)| w.describe(*took))
                .collect::<Vec<_>>()
                .join("; it "),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot() -> Waiting {
        Waiting::Slot {
            provider: "local".into(),
            concurrency: 1,
            since: tokio::time::Instant::now(),
        }
    }

    fn pacing() -> Waiting {
        Waiting::Pacing {
            provider: "local".into(),
            requests_per_minute: 6,
            since: tokio::time::Instant::now(),
        }
    }

    /// Guards against a thread that timed out just after its slot was granted (the
    /// common case: all threads share one timeout) being reported as a bare "timed out".
    #[tokio::test]
    async fn a_finished_wait_is_still_described() {
        let progress = Progress::default();
        assert_eq!(progress.describe(), None, "never waited");
        progress.set(Some(slot()));
        progress.set(None);
        let said = progress.describe().unwrap();
        assert!(said.starts_with("waited "), "{said}");
        assert!(
            said.contains("for a free slot of provider `local`"),
            "{said}"
        );
        // Another kind is said too; waits of one kind are added into one.
        progress.set(Some(pacing()));
        progress.set(Some(slot()));
        let said = progress.describe().unwrap();
        assert_eq!(said.matches("free slot").count(), 1, "{said}");
        assert!(said.contains("; it waited "), "{said}");
        assert!(said.contains("requests_per_minute pacing"), "{said}");
        assert!(matches!(progress.waiting(), Some(Waiting::Slot { .. })));
    }
}
