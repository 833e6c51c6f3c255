//! The told ledger (docs/spec.md §8): what reached the user, or is on its way, keyed by
//! the memory entry it is about — not by the wording of a reason, and not in the
//! ten-record escalation history.
//!
//! Each tick, before new escalations are raised:
//! - [`sync`] copies into each matter the outcome its history record has reached (the
//!   escalation phase settles records after the aggregator; a record is settled before
//!   ten newer ones can push it out of the history, as at most four are raised a tick);
//!   a record whose message is still owed (retried, or given up and waiting for
//!   `thinker release`) is not settled: its matter stays open;
//! - [`expire`] lets a matter go once its fact no longer matters: its entry has left the
//!   memory, its due (if any) is `due_grace` past, and nothing was folded into it for
//!   [`RELEVANT_FOR`]. At most [`MAX_TOLD`] are kept, the stalest dropped first.
//!
//! Then [`find`] answers whether an escalation about an entry is already told or on its
//! way: the matter of that entry, or of an entry that cites one of its references, or
//! whose summary is the same fact. A matter counts while it is pending, decided to be
//! told (notified, held for quiet hours or confirmation, proposed, remembered) or
//! dismissed within `dismiss_memory`; a matter that failed, was capped or was
//! suppressed told nobody anything and does not count. A matter whose entry's `due` has
//! moved since is news: it does not count either, and the new record's prompt shows what
//! was told (the escalation prompt's "already told" section).
//!
//! Pure: no I/O, no clock.

use chrono::{DateTime, TimeDelta, Utc};

use super::Settings;
use super::identity::{Key, compare};
use crate::recall::synonyms::Synonyms;
use crate::state::{Delivery, Entry, EscalationOutcome, EscalationRecord, State, Told};

/// A matter whose entry has left the memory is kept at least this long after the last
/// escalation of it.
pub const RELEVANT_FOR: TimeDelta = TimeDelta::days(7);
/// At most this many matters are kept.
pub const MAX_TOLD: usize = 200;
/// What the user was told is kept to this many characters.
pub const TOLD_TEXT_CHARS: usize = 200;

/// Copies each open matter's outcome (and what the user was told) from its history
/// record, once that record is settled.
pub fn sync(state: &mut State) {
    let history = &state.escalation_history;
    for told in &mut state.told {
        if !is_open(&told.outcome) {
            continue;
        }
        let Some(record) = history
            .iter()
            .find(|r| r.timestamp == told.raised && r.thread == told.thread)
        else {
            continue;
        };
        // A send still owed (retried, or given up and waiting for `thinker release`) is
        // on its way: the matter stays open until it settles, so a re-escalation folds
        // into it rather than making a second message.
        if sending(record) {
            continue;
        }
        told.outcome = record.outcome.clone();
        if let Some(decision) = &record.decision
            && told.text.is_empty()
            && matches!(
                record.outcome,
                EscalationOutcome::Notified(_)
                    | EscalationOutcome::Held(_)
                    | EscalationOutcome::Proposed(_)
                    | EscalationOutcome::Remembered(_)
            )
        {
            told.text = crate::untrusted::excerpt(&decision.text, TOLD_TEXT_CHARS);
        }
    }
}

/// A record whose message is still owed to the user: a send under way, to be tried
/// again, or given up and waiting for `thinker release` or `discard`.
fn sending(record: &EscalationRecord) -> bool {
    matches!(
        record.delivery,
        Some(Delivery::Started | Delivery::Owed | Delivery::Undelivered)
    )
}

/// Still waiting for its outcome.
fn is_open(outcome: &EscalationOutcome) -> bool {
    matches!(outcome, EscalationOutcome::Pending)
}

/// Drops the matters that no longer matter (see the module doc).
pub fn expire(state: &mut State, now: DateTime<Utc>, settings: &Settings) {
    let in_memory: std::collections::HashSet<String> =
        state.all_entries().map(|(_, e)| e.id.clone()).collect();
    state.told.retain(|t| {
        in_memory.contains(&t.entry)
            || is_open(&t.outcome)
            || t.due
                .and_then(|d| d.checked_add_signed(settings.due_grace))
                .is_some_and(|until| now < until)
            || now.signed_duration_since(t.last) < RELEVANT_FOR
    });
    if state.told.len() > MAX_TOLD {
        state.told.sort_by_key(|t| std::cmp::Reverse(t.last));
        state.told.truncate(MAX_TOLD);
        state.told.sort_by_key(|t| t.raised);
    }
}

/// Whether a matter with `outcome` keeps a new escalation of its entry from being
/// raised at `now`.
fn counts(told: &Told, now: DateTime<Utc>, settings: &Settings) -> bool {
    match &told.outcome {
        EscalationOutcome::Pending
        | EscalationOutcome::Notified(_)
        | EscalationOutcome::Held(_)
        | EscalationOutcome::Proposed(_)
        | EscalationOutcome::Remembered(_) => true,
        EscalationOutcome::Dismissed(_) => {
            now.signed_duration_since(told.raised) < settings.dismiss_memory
        }
        EscalationOutcome::Capped(_)
        | EscalationOutcome::Failed(_)
        | EscalationOutcome::Suppressed(_)
        | EscalationOutcome::Other(_) => false,
    }
}

/// Whether `told` is about `entry` (whose key is `key`): its id, a reference they share
/// and a compatible summary, or the same fact in other words.
fn is_about(told: &Told, entry: &Entry, key: &Key, settings: &Settings) -> bool {
    if told.entry == entry.id {
        return true;
    }
    let theirs = Key::new(
        &told.summary,
        told.raised.date_naive(),
        told.refs.iter().map(String::as_str),
    );
    compare(&theirs, key, Synonyms::builtin()).same(settings.thresholds())
}

/// The matter that keeps a new escalation about `entry` from being raised, if any: one
/// that still counts (told within its relevance, or pending) and whose `due` has not moved since.
pub fn find(
    state: &State,
    entry: &Entry,
    now: DateTime<Utc>,
    settings: &Settings,
) -> Option<usize> {
    let key = super::reinforce::entry_key(entry);
    state.told.iter().position(|t| {
        counts(t, now, settings) && t.due == entry.due && is_about(t, entry, &key, settings)
    })
}

/// Whether a matter of `entry` was told with another `due` than the entry has now: a new
/// escalation of it is news (docs/spec.md §8).
pub fn moved(state: &State, entry: &Entry) -> bool {
    state
        .told
        .iter()
        .any(|t| t.entry == entry.id && t.due != entry.due)
}

/// The matter a new escalation's `reason` repeats, if any: one that counts and whose
/// own reason is one fact with it (docs/spec.md §8) — so a repeat about a second entry
/// of the same fact (one no rule could tell was the same) is not told twice.
pub fn find_reason(
    state: &State,
    reason: &str,
    now: DateTime<Utc>,
    settings: &Settings,
) -> Option<usize> {
    let key = Key::new(reason, now.date_naive(), []);
    state.told.iter().position(|t| {
        counts(t, now, settings)
            && !t.reason.is_empty()
            && same_fact(&t.reason, t.raised, &key, settings)
    })
}

/// The matter whose message to the user says what `text` would say again, if any: one
/// notified (or held, or proposed) within its relevance, whose text is the same fact
/// as `text` in other words or the same. The primary model decides from the reasons it
/// is shown, and a reason in new words about a fact whose entry was another still reads
/// as news to it; the message it writes then repeats what the user was told (docs/spec.md
/// §8). Pure: what the escalation phase asks before delivering.
pub fn already_told(
    state: &State,
    text: &str,
    now: DateTime<Utc>,
    settings: &Settings,
) -> Option<usize> {
    let key = Key::new(text, now.date_naive(), []);
    state.told.iter().position(|t| {
        !t.text.is_empty()
            && matches!(
                t.outcome,
                EscalationOutcome::Notified(_)
                    | EscalationOutcome::Held(_)
                    | EscalationOutcome::Proposed(_)
            )
            && counts(t, now, settings)
            && same_fact(&t.text, t.raised, &key, settings)
    })
}

/// The matters opened for the history records at `records` were answered by a message
/// that says again what matter `by` told ([`already_told`]). Those about the same fact
/// as that message — their entry's summary is one fact with it, or their entry is
/// `by`'s — take its outcome and text, so the next escalation about their entries folds
/// before any call. The others stay as their records settle (`suppressed: already
/// told`, which counts for nothing): the message did not speak of their fact, so it is
/// still untold (a reason joining two facts, of which the primary model wrote only the
/// told one).
pub fn told_by(state: &mut State, records: &[usize], by: usize, settings: &Settings) {
    let Some(told) = state.told.get(by) else {
        return;
    };
    let (outcome, text) = (told.outcome.clone(), told.text.clone());
    let (told_entry, said) = (
        told.entry.clone(),
        Key::new(&told.text, told.raised.date_naive(), []),
    );
    let keys: Vec<(DateTime<Utc>, String)> = records
        .iter()
        .filter_map(|&i| state.escalation_history.get(i))
        .map(|r| (r.timestamp, r.thread.clone()))
        .collect();
    for matter in &mut state.told {
        if is_open(&matter.outcome)
            && keys
                .iter()
                .any(|(at, thread)| matter.raised == *at && matter.thread == *thread)
            && (matter.entry == told_entry
                || same_fact(&matter.summary, matter.raised, &said, settings))
        {
            matter.outcome = outcome.clone();
            matter.text.clone_from(&text);
        }
    }
}

/// Whether `text`, written at `at`, states the fact `key` does (rule 2 of docs/spec.md
/// §7, without references).
fn same_fact(text: &str, at: DateTime<Utc>, key: &Key, settings: &Settings) -> bool {
    compare(
        &Key::new(text, at.date_naive(), []),
        key,
        Synonyms::builtin(),
    )
    .same(settings.thresholds())
}

/// A new matter for `record`, about `entry`.
pub fn open(record: &EscalationRecord, entry: &Entry) -> Told {
    Told {
        entry: entry.id.clone(),
        summary: entry.summary.clone(),
        refs: entry.refs.clone(),
        due: entry.due,
        raised: record.timestamp,
        thread: record.thread.clone(),
        reason: record.reason.clone(),
        outcome: record.outcome.clone(),
        text: String::new(),
        folded: 0,
        last: record.timestamp,
    }
}

/// The matters of `from` now belong to `into` (a merge).
pub fn rekey(state: &mut State, from: &str, into: &str) {
    for told in &mut state.told {
        if told.entry == from {
            told.entry = into.to_string();
        }
    }
    for record in &mut state.escalation_history {
        if record.entry.as_deref() == Some(from) {
            record.entry = Some(into.to_string());
        }
    }
}
