//! Rule 6 of SPEC §7: each thread's memory of itself.
//!
//! A thread that answered gets its `last_findings` (up to 3, most important first), a
//! history of its last 3 ticks, and novelty pressure (0 when it found anything, else +1,
//! capped). A failed or skipped thread keeps those as they were. Every thread, failed or
//! not, gets its focus hint from the `suggest` of the other three (cut by [`bounds`]).

use super::bounds::{self, HISTORY_TICKS, LAST_FINDINGS};
use super::{Report, ThreadChange, ThreadOutcome};
use crate::state::{MAX_PRESSURE, State};
use crate::thread::ThreadName;

/// The focus hint of `thread`: the other threads' suggestions, in thread order, cut to
/// [`bounds::MAX_FOCUS_HINT_WORDS`] words.
pub fn focus_hint(thread: ThreadName, results: &[ThreadOutcome; 4]) -> String {
    let joined = ThreadName::ALL
        .iter()
        .filter(|other| **other != thread)
        .filter_map(|other| results[other.index()].answer())
        .map(|a| a.suggest.trim())
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    bounds::focus_hint(&joined)
}

/// The report's thread lines for a tick that changed nothing.
pub fn unchanged(state: &State, results: &[ThreadOutcome; 4]) -> Vec<ThreadChange> {
    ThreadName::ALL
        .iter()
        .map(|&thread| {
            let ts = state.thread_state.get(thread);
            ThreadChange {
                thread,
                status: results[thread.index()].status(),
                pressure_from: ts.novelty_pressure,
                pressure_to: ts.novelty_pressure,
                focus_hint: ts.focus_hint.clone(),
            }
        })
        .collect()
}

pub fn apply(state: &mut State, results: &[ThreadOutcome; 4], report: &mut Report) {
    for thread in ThreadName::ALL {
        let result = &results[thread.index()];
        let hint = focus_hint(thread, results);
        let ts = state.thread_state.get_mut(thread);
        let pressure_from = ts.novelty_pressure;
        if let Some(answer) = result.answer() {
            let mut ranked: Vec<_> = answer.findings.iter().collect();
            // Stable: equal importance keeps answer order.
            ranked.sort_by_key(|f| std::cmp::Reverse(f.importance));
            ts.last_findings = ranked
                .iter()
                .take(LAST_FINDINGS)
                .map(|f| f.summary.clone())
                .collect();
            ts.history.push(ts.last_findings.clone());
            let excess = ts.history.len().saturating_sub(HISTORY_TICKS);
            ts.history.drain(..excess);
            ts.novelty_pressure = if answer.found_anything() {
                0
            } else {
                ts.novelty_pressure.saturating_add(1).min(MAX_PRESSURE)
            };
        }
        ts.focus_hint.clone_from(&hint);
        report.threads.push(ThreadChange {
            thread,
            status: result.status(),
            pressure_from,
            pressure_to: ts.novelty_pressure,
            focus_hint: hint,
        });
    }
}
