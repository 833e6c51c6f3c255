//! Bounds on the bookkeeping of the state: thread state and escalation history.
//!
//! They do not count toward the token budget (SPEC §7.5: the budget measures the four
//! categories only), so they are bounded here on their own: summaries in
//! `last_findings` and `history` are cut as an answer's are (SPEC §5: 20 words, and
//! 240 characters), `last_findings` keeps 3 and `history` the last 3 ticks of 3, a
//! focus hint is cut to three `suggest`s' worth, escalation reasons and outcomes to one
//! `suggest`'s worth. Applied to the whole state on every applied tick, so an oversized
//! state written by an older version (or by hand) shrinks on the next write. Unknown
//! fields are kept as they are (SPEC §2) and not bounded: they are the user's.
//!
//! Pure: no I/O, no clock.

use super::threads::{HISTORY_TICKS, LAST_FINDINGS};
use crate::answer::{MAX_SUGGEST_WORDS, MAX_SUMMARY_CHARS, MAX_SUMMARY_WORDS, cut_words};
use crate::state::{EscalationRecord, State, ThreadState};
use crate::thread::ThreadName;

/// A focus hint (the other three threads' `suggest`, joined) keeps this many words…
pub const MAX_FOCUS_HINT_WORDS: usize = 3 * MAX_SUGGEST_WORDS;
/// …and this many characters: three `suggest`s' worth.
pub const MAX_FOCUS_HINT_CHARS: usize = 3 * 2 * MAX_SUMMARY_CHARS;
/// An escalation reason or outcome keeps this many words (as `escalate_reason` is read)…
pub const MAX_ESCALATION_WORDS: usize = MAX_SUGGEST_WORDS;
/// …and this many characters.
pub const MAX_ESCALATION_CHARS: usize = 2 * MAX_SUMMARY_CHARS;

/// A summary in `last_findings` or `history`, cut as an answer's summary is.
pub fn summary(text: &str) -> String {
    cut_words(text, MAX_SUMMARY_WORDS, MAX_SUMMARY_CHARS)
}

/// A focus hint, cut at a word.
pub fn focus_hint(text: &str) -> String {
    cut_words(text, MAX_FOCUS_HINT_WORDS, MAX_FOCUS_HINT_CHARS)
}

fn escalation_text(text: &str) -> String {
    cut_words(text, MAX_ESCALATION_WORDS, MAX_ESCALATION_CHARS)
}

fn cut_in_place(text: &mut String, cut: fn(&str) -> String) {
    *text = cut(text);
}

fn summaries(list: &mut Vec<String>) {
    list.truncate(LAST_FINDINGS);
    for s in list {
        cut_in_place(s, summary);
    }
}

fn thread(ts: &mut ThreadState) {
    summaries(&mut ts.last_findings);
    let excess = ts.history.len().saturating_sub(HISTORY_TICKS);
    ts.history.drain(..excess);
    for tick in &mut ts.history {
        summaries(tick);
    }
    cut_in_place(&mut ts.focus_hint, focus_hint);
}

fn record(r: &mut EscalationRecord) {
    cut_in_place(&mut r.reason, escalation_text);
    cut_in_place(&mut r.outcome, escalation_text);
}

/// Cuts the thread state of all four threads and the escalation history to their bounds.
pub fn apply(state: &mut State) {
    for name in ThreadName::ALL {
        thread(state.thread_state.get_mut(name));
    }
    state.escalation_history.iter_mut().for_each(record);
}
