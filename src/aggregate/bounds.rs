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

use crate::answer::{MAX_SUGGEST_WORDS, MAX_SUMMARY_CHARS, MAX_SUMMARY_WORDS, cut_words};
use crate::state::{EscalationOutcome, EscalationRecord, State, ThreadState};
use crate::thread::ThreadName;

/// How many summaries `last_findings` keeps.
pub const LAST_FINDINGS: usize = 3;
/// How many ticks `history` keeps.
pub const HISTORY_TICKS: usize = 3;
/// A focus hint (the other three threads' `suggest`, joined) keeps this many words…
pub const MAX_FOCUS_HINT_WORDS: usize = 3 * MAX_SUGGEST_WORDS;
/// …and this many characters: three `suggest`s' worth.
pub const MAX_FOCUS_HINT_CHARS: usize = 3 * 2 * MAX_SUMMARY_CHARS;
/// An escalation reason or outcome keeps this many words (as `escalate_reason` is read)…
pub const MAX_ESCALATION_WORDS: usize = MAX_SUGGEST_WORDS;
/// …and this many characters.
pub const MAX_ESCALATION_CHARS: usize = 2 * MAX_SUMMARY_CHARS;

/// A text's limits: at most this many words and characters.
#[derive(Clone, Copy)]
struct Limit {
    words: usize,
    chars: usize,
}

const SUMMARY: Limit = Limit {
    words: MAX_SUMMARY_WORDS,
    chars: MAX_SUMMARY_CHARS,
};
const FOCUS_HINT: Limit = Limit {
    words: MAX_FOCUS_HINT_WORDS,
    chars: MAX_FOCUS_HINT_CHARS,
};
const ESCALATION: Limit = Limit {
    words: MAX_ESCALATION_WORDS,
    chars: MAX_ESCALATION_CHARS,
};

/// Whether `text` is within `limit` (checked without allocating).
fn fits(text: &str, limit: Limit) -> bool {
    (text.len() <= limit.chars || text.chars().count() <= limit.chars)
        && text.split_whitespace().nth(limit.words).is_none()
}

/// Cuts `text` to `limit` (at a word when it can); a text within it is left as it is.
fn cut(text: &mut String, limit: Limit) {
    if fits(text, limit) {
        return;
    }
    *text = cut_words(text, limit.words, limit.chars);
}

/// A focus hint, cut at a word to [`MAX_FOCUS_HINT_WORDS`] and [`MAX_FOCUS_HINT_CHARS`].
pub fn focus_hint(text: &str) -> String {
    let mut text = text.to_string();
    cut(&mut text, FOCUS_HINT);
    text
}

fn summaries(list: &mut Vec<String>) {
    list.truncate(LAST_FINDINGS);
    for s in list {
        cut(s, SUMMARY);
    }
}

fn thread(ts: &mut ThreadState) {
    summaries(&mut ts.last_findings);
    let excess = ts.history.len().saturating_sub(HISTORY_TICKS);
    ts.history.drain(..excess);
    for tick in &mut ts.history {
        summaries(tick);
    }
    cut(&mut ts.focus_hint, FOCUS_HINT);
}

fn record(r: &mut EscalationRecord) {
    cut(&mut r.reason, ESCALATION);
    let mut outcome = r.outcome.to_string();
    cut(&mut outcome, ESCALATION);
    r.outcome = EscalationOutcome::parse(&outcome);
}

/// Cuts the thread state of all four threads and the escalation history to their bounds.
pub fn apply(state: &mut State) {
    for name in ThreadName::ALL {
        thread(state.thread_state.get_mut(name));
    }
    state.escalation_history.iter_mut().for_each(record);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_within_bounds_are_left_alone_and_longer_ones_cut_at_a_word() {
        let mut short = "a  short\tsummary".to_string();
        cut(&mut short, SUMMARY);
        assert_eq!(short, "a  short\tsummary");
        let mut long = "word ".repeat(30);
        cut(&mut long, SUMMARY);
        assert_eq!(long, "word ".repeat(20).trim_end());
        let mut wide = "é".repeat(300);
        cut(&mut wide, SUMMARY);
        assert_eq!(wide.chars().count(), MAX_SUMMARY_CHARS);
        // Cutting twice changes nothing more.
        let again = focus_hint(&focus_hint(&"hint; ".repeat(500)));
        assert_eq!(again, focus_hint(&"hint; ".repeat(500)));
        assert_eq!(again.split(' ').count(), MAX_FOCUS_HINT_WORDS);
    }

    #[test]
    fn bookkeeping_of_an_oversized_state_is_cut() {
        let mut state = State::default();
        let ts = state.thread_state.get_mut(ThreadName::Oracle);
        ts.last_findings = vec!["x".repeat(1000); 9];
        ts.history = vec![vec!["y ".repeat(100); 5]; 7];
        ts.extra
            .insert("mine".into(), serde_json::Value::String("z".repeat(5000)));
        apply(&mut state);
        let ts = state.thread_state.get(ThreadName::Oracle);
        assert_eq!(ts.last_findings, vec!["x".repeat(MAX_SUMMARY_CHARS); 3]);
        assert_eq!(ts.history.len(), HISTORY_TICKS);
        assert!(ts.history.iter().all(|h| h.len() == 3));
        // Unknown fields are the user's: untouched.
        assert_eq!(ts.extra["mine"].as_str().map(str::len), Some(5000));
    }
}
