//! What one thread did in a tick ([`ThreadOutcome`]) and why one did not run ([`Skip`]):
//! the one model of a thread's status, read by the aggregator (only the answer counts),
//! by the journal (its line is built from it, last) and by the exit code.
//!
//! Plain data: it does no I/O and decides nothing. The tick produces it; a thread that
//! ran out of time is [`ThreadError::TimedOut`], never a half-filled record.

use serde::{Deserialize, Serialize};

use crate::answer::Answer;

/// Why a thread does not run this tick.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum Skip {
    /// Not configured, or `enabled = false`.
    Disabled,
    /// `every = N`: runs on every Nth tick.
    Cadence { every: u32 },
    /// Inside one of its quiet hours.
    QuietHours { window: String },
    /// Its budget (or the total) for today is spent.
    Budget { detail: String },
    /// Every model's provider has its circuit breaker open (SPEC §9).
    Breaker { detail: String },
    /// Its sources are unchanged since its last call (SPEC §6 `skip_unchanged`): the
    /// `skipped`th tick in a row; it is called again after `max_skipped`.
    Unchanged { skipped: u32, max_skipped: u32 },
}

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Skip::Disabled => f.write_str("disabled"),
            Skip::Cadence { every } => write!(f, "runs every {every} ticks"),
            Skip::QuietHours { window } => write!(f, "quiet hours {window}"),
            Skip::Budget { detail } => write!(f, "over budget: {detail}"),
            Skip::Breaker { detail } => f.write_str(detail),
            Skip::Unchanged {
                skipped,
                max_skipped,
            } => write!(
                f,
                "unchanged since its last call ({skipped} of at most {max_skipped} ticks skipped)"
            ),
        }
    }
}

/// How one thread took part in a tick.
#[derive(Clone, Debug, PartialEq)]
pub enum ThreadOutcome {
    /// It answered; the answer was read.
    Answered(Answer),
    /// It ran and failed (its input, every model of its chain, its time): contributes
    /// nothing.
    Failed(ThreadError),
    /// It did not run (disabled, cadence, quiet hours, budget): neither failed nor empty.
    Skipped(Skip),
}

impl ThreadOutcome {
    pub fn answer(&self) -> Option<&Answer> {
        match self {
            ThreadOutcome::Answered(a) => Some(a),
            _ => None,
        }
    }

    /// The word the journal and the report write for it.
    pub fn status(&self) -> Status {
        match self {
            ThreadOutcome::Answered(_) => Status::Answered,
            ThreadOutcome::Failed(_) => Status::Failed,
            ThreadOutcome::Skipped(_) => Status::Skipped,
        }
    }
}

/// The status of a [`ThreadOutcome`] as written in the journal (`threads[].status`) and
/// in `tick --json` (`report.threads[].status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Answered,
    Failed,
    Skipped,
}

/// Why a thread that ran contributed nothing. The text is the journal's `error`.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ThreadError {
    /// Its prompt could not be built (e.g. a template in `prompts_dir`).
    #[error("{0}")]
    Input(String),
    /// Every model of its chain failed, or none answered readably.
    #[error("{0}")]
    Call(String),
    /// The thread's `timeout_seconds`, or the tick's deadline, ran out; `waiting` says
    /// what the call was waiting for then, if anything.
    #[error(
        "timed out after {seconds:.1} s (the thread's timeout_seconds, or the tick's deadline_seconds){}",
        .waiting.as_ref().map(|w| format!("; it {w}")).unwrap_or_default()
    )]
    TimedOut {
        seconds: f64,
        waiting: Option<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_says_how_long_and_what_it_waited_for() {
        let plain = ThreadError::TimedOut {
            seconds: 1.0,
            waiting: None,
        };
        assert_eq!(
            plain.to_string(),
            "timed out after 1.0 s (the thread's timeout_seconds, or the tick's deadline_seconds)"
        );
        let waiting = ThreadError::TimedOut {
            seconds: 2.5,
            waiting: Some("waited 2.5 s for a free slot".into()),
        };
        assert!(
            waiting
                .to_string()
                .ends_with("deadline_seconds); it waited 2.5 s for a free slot")
        );
    }
}
