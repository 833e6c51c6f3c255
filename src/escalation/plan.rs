//! What escalation work a tick owes, and what a decision does to the records it covers
//! (SPEC §8): pure functions over the escalation history, the `[escalation]` config, the
//! calls made today and whether it is quiet hours. The tick's escalation phase carries
//! the plan out (the call, the notifier, the note, the writes).
//!
//! The life of a record: the aggregator raises it `pending` (or suppresses it). A tick
//! then either decides it in **one** call with every other record due (`pending`, or
//! `failed:` by a call that may be retried), or caps it (`capped:`, no call, when the
//! calls of the day are used up). A decision gives each record its outcome: `dismissed:`,
//! or an *effect* — a notification, a proposal shown through the notifier, a note — that
//! is recorded as started (`delivery: "started"`) in a write of its own before it runs,
//! and settled in the final write. A notification or proposal decided in quiet hours is
//! `held:` with its decision and released at the first tick after them. A record found
//! `started` was interrupted while its effect ran: it is marked `unconfirmed` and never
//! run again — no notification is ever delivered twice, at the price of one that a kill
//! may have lost.
//!
//! **A failed send is owed work** ([`send_failed`]): a notifier that reported it did not
//! deliver (a non-zero exit, a program not found, a refused connection, an HTTP error)
//! leaves the record `delivery: "owed"`, tried again [`backoff`] ticks later — 1, 2, 4…
//! — up to `escalation.delivery_attempts` sends in all; then, or at once when a send may
//! have half-delivered (a notifier killed at its timeout), it is `undelivered`: no tick
//! sends it again, the tick exits non-zero ([`gave_up`]), and it waits for `thinker
//! release` or `discard` ([`super::held`]). A record held for the user's confirmation
//! owes a content-free **nudge** ([`super::held::nudge`]) through the same machinery:
//! `owed` when held, sent once outside the quiet hours, retried and given up alike, its
//! outcome left as it is.
//!
//! Must not: do I/O, read the clock, or run anything.

use crate::config::EscalationConfig;
use crate::state::{DecisionRecord, Delivery, EscalationOutcome, EscalationRecord};
use crate::untrusted;

use super::decision::{Action, Decision};
pub use super::{OUTCOME_EXCERPT_CHARS, excerpt};
use super::{held, outbound};

/// The work a tick owes, as indices into the escalation history.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Records the primary model decides now, together, in one call.
    pub decide: Vec<usize>,
    /// Records due for a call when the day's calls are used up: `capped:`, no call.
    pub capped: Vec<usize>,
    /// Records due for a call that is not urgent when only the calls the day keeps for
    /// urgent escalations are left (`escalation.reserve`): `capped:`, no call.
    pub reserved: Vec<usize>,
    /// Held notifications and proposals whose quiet hours are over: delivered now.
    pub release: Vec<usize>,
    /// Effects recorded as started but never settled (a kill): never run again.
    pub interrupted: Vec<usize>,
    /// Failed sends whose next try is due (outside the quiet hours): sent again now.
    pub retry: Vec<usize>,
    /// Records held for confirmation whose nudge is due (outside the quiet hours).
    pub nudge: Vec<usize>,
}

impl Plan {
    pub fn is_empty(&self) -> bool {
        self.decide.is_empty()
            && self.capped.is_empty()
            && self.reserved.is_empty()
            && self.release.is_empty()
            && self.interrupted.is_empty()
            && self.retry.is_empty()
            && self.nudge.is_empty()
    }
}

/// How many ticks after its `sends`-th failed send a message is tried again: 1, 2, 4, 8…
pub fn backoff(sends: u32) -> u64 {
    1 << sends.saturating_sub(1).min(16)
}

/// Whether `record` owes a send due at `run` (the ledger's run of this tick): `owed` with
/// no `retry_run`, or one reached. A `retry_run` further ahead than any backoff can reach
/// is due too (the ledger was reset, and its runs counted from 1 again).
pub fn send_due(record: &EscalationRecord, run: u64, config: &EscalationConfig) -> bool {
    record.delivery == Some(Delivery::Owed)
        && record.retry_run.is_none_or(|at| {
            run >= at || at - run > backoff(config.delivery_attempts.saturating_add(1))
        })
}

/// Records held for confirmation whose nudge is due at `run`, outside the quiet hours.
pub fn nudges(
    history: &[EscalationRecord],
    run: u64,
    quiet: bool,
    config: &EscalationConfig,
) -> Vec<usize> {
    if quiet {
        return Vec::new();
    }
    history
        .iter()
        .enumerate()
        .filter(|(_, r)| held::needs_confirmation(&r.outcome) && send_due(r, run, config))
        .map(|(i, _)| i)
        .collect()
}

/// Records a failed send of `record` (its effect, or its nudge) at `run`: owed again
/// after [`backoff`] ticks while tries are left and nothing may have half-delivered, else
/// `undelivered`. A record that is not held for confirmation gets the outcome `failed:`
/// saying which. Returns whether it was given up.
pub fn send_failed(
    record: &mut EscalationRecord,
    error: &str,
    may_have_delivered: bool,
    run: u64,
    config: &EscalationConfig,
) -> bool {
    let error = untrusted::excerpt(error, OUTCOME_EXCERPT_CHARS);
    record.sends = record.sends.saturating_add(1);
    record.delivery_error = Some(error.clone());
    let max = config.delivery_attempts;
    let gave_up = may_have_delivered || record.sends >= max;
    let nudge = held::needs_confirmation(&record.outcome);
    let what = if nudge { "nudge" } else { "message" };
    if gave_up {
        record.delivery = Some(Delivery::Undelivered);
        record.retry_run = None;
    } else {
        record.delivery = Some(Delivery::Owed);
        record.retry_run = Some(run.saturating_add(backoff(record.sends)));
    }
    if !nudge {
        let next = if may_have_delivered {
            format!(
                "; it may have reached you, so no tick sends it again: `thinker held` lists it ({what} not delivered)"
            )
        } else if gave_up {
            format!(
                "; gave up after {} tries: `thinker held` lists it ({what} not delivered)",
                record.sends
            )
        } else {
            let ticks = backoff(record.sends);
            format!(
                " (try {} of {max}; tried again in {ticks} tick{})",
                record.sends,
                if ticks == 1 { "" } else { "s" }
            )
        };
        record.outcome = EscalationOutcome::Failed(format!("{error}{next}"));
    }
    gave_up
}

/// A send of `record` went out: nothing is owed any more.
pub fn send_succeeded(record: &mut EscalationRecord) {
    record.delivery = None;
    record.sends = 0;
    record.retry_run = None;
    record.delivery_error = None;
}

/// Whether any of `records` (those a tick touched) was given up: the tick then exits
/// non-zero, so a cron line that logs failures logs it. A tick never touches a record
/// given up before, so this is this tick's doing.
pub fn gave_up(records: &[EscalationRecord]) -> bool {
    records
        .iter()
        .any(|r| r.delivery == Some(Delivery::Undelivered))
}

/// A record the primary model still has to decide: new, or failed by a call and not yet
/// given up. A record with a decision or an effect under way is never decided again.
pub fn is_due(record: &EscalationRecord, max_attempts: u32) -> bool {
    if record.decision.is_some() || record.delivery.is_some() {
        return false;
    }
    match record.outcome {
        EscalationOutcome::Pending => true,
        EscalationOutcome::Failed(_) => record.attempts >= 1 && record.attempts < max_attempts,
        _ => false,
    }
}

/// The work owed by `history` at `run` (the ledger's run of this tick), given the calls
/// made today, whether now is in the escalation quiet hours, and which records are urgent
/// (`urgent(i)` for record `i`).
///
/// **The cap is spent by importance**: once the calls made today reach
/// `daily_cap - reserve` ([`reserve`]), only urgent records are decided; the others are
/// capped, so escalations raised by injected or unimportant findings early in the day can
/// never take the last calls from an urgent one.
pub fn plan(
    history: &[EscalationRecord],
    config: &EscalationConfig,
    (calls_today, run): (u32, u64),
    quiet: bool,
    urgent: &dyn Fn(usize) -> bool,
) -> Plan {
    let mut plan = Plan {
        nudge: nudges(history, run, quiet, config),
        ..Plan::default()
    };
    for (i, r) in history.iter().enumerate() {
        if r.delivery == Some(Delivery::Started) {
            plan.interrupted.push(i);
        } else if r.delivery == Some(Delivery::Owed) {
            if !quiet
                && r.decision.is_some()
                && !held::needs_confirmation(&r.outcome)
                && send_due(r, run, config)
            {
                plan.retry.push(i);
            }
        } else if is_due(r, config.max_attempts) {
            plan.decide.push(i);
        } else if !quiet
            && r.delivery.is_none()
            && matches!(r.outcome, EscalationOutcome::Held(_))
            && !outbound::needs_confirmation(&r.outcome)
            && r.decision.is_some()
        {
            plan.release.push(i);
        }
    }
    if calls_today >= config.daily_cap {
        plan.capped = std::mem::take(&mut plan.decide);
    } else if calls_today >= config.daily_cap - reserve(config) {
        let (urgent, other): (Vec<usize>, Vec<usize>) =
            plan.decide.iter().partition(|&&i| urgent(i));
        plan.decide = urgent;
        plan.reserved = other;
    }
    plan
}

/// What a decision does, for the records it covers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Nothing to run: the records get this outcome.
    Settled(EscalationOutcome),
    /// Run the notifier with `message`; `done` is the outcome once it ran.
    Notify {
        message: String,
        done: EscalationOutcome,
    },
    /// Append `text` to the memory directory; `done` is the outcome once it is written.
    Remember {
        text: String,
        done: EscalationOutcome,
    },
    /// Run the notifier with a content-free `message` for records held for confirmation
    /// ([`held::nudge`]); their outcome stays as it is.
    Nudge { message: String },
}

/// The text of a decision, else the reasons it covers (a `notify` with no text still
/// says something).
pub fn text_or_reasons(decision: &DecisionRecord, reasons: &[&str]) -> String {
    if decision.text.trim().is_empty() {
        reasons.join("; ")
    } else {
        decision.text.trim().to_string()
    }
}

/// The message the user receives for a `notify` or a `propose`: one line, the frame
/// first — who raised it, and for a proposal that nothing was run — then the text cleaned
/// to one line, so no text can add a line of its own (a forged `— thinker (…)` signature
/// or `Proposal …` header) or come before the frame; newline-terminated.
pub fn message(decision: &DecisionRecord, threads: &[&str], reasons: &[&str]) -> String {
    let text = untrusted::clean_line(&text_or_reasons(decision, reasons));
    let mut threads: Vec<&str> = threads.to_vec();
    threads.dedup();
    let from = threads.join(", ");
    if decision.action == Action::Propose.as_str() {
        format!("thinker ({from}) proposes (it ran nothing: yours to decide): {text}\n")
    } else {
        format!("thinker ({from}): {text}\n")
    }
}

/// What `decision` does to the records it covers (their threads and reasons given), now
/// or, for a notification or proposal in quiet hours, once they are over.
pub fn effect(
    decision: &DecisionRecord,
    threads: &[&str],
    reasons: &[&str],
    quiet: bool,
    config: &EscalationConfig,
) -> Effect {
    let action = match decision.action.as_str() {
        "notify" => Action::Notify,
        "remember" => Action::Remember,
        "dismiss" => Action::Dismiss,
        _ => Action::Propose,
    };
    let text = text_or_reasons(decision, reasons);
    match action {
        Action::Dismiss => {
            let why = [decision.why.trim(), decision.text.trim()]
                .into_iter()
                .find(|t| !t.is_empty())
                .unwrap_or("no reason given");
            Effect::Settled(EscalationOutcome::Dismissed(excerpt(why)))
        }
        Action::Remember => match &config.memory_dir {
            None => Effect::Settled(EscalationOutcome::Failed(
                "remember: no memory directory is configured (set [escalation] memory_dir)".into(),
            )),
            Some(_) => Effect::Remember {
                done: EscalationOutcome::Remembered(excerpt(&text)),
                text,
            },
        },
        Action::Notify | Action::Propose => {
            let done = if action == Action::Notify {
                EscalationOutcome::Notified(excerpt(&text))
            } else {
                EscalationOutcome::Proposed(excerpt(&text))
            };
            if !config.notifier().is_configured() {
                Effect::Settled(EscalationOutcome::Failed(format!(
                    "{}: no notifier is configured (set [escalation] notify_command or [escalation.webhook])",
                    action.as_str()
                )))
            } else if quiet {
                Effect::Settled(EscalationOutcome::Held(format!(
                    "until the quiet hours end: {}",
                    excerpt(&text)
                )))
            } else {
                Effect::Notify {
                    message: message(decision, threads, reasons),
                    done,
                }
            }
        }
    }
}

/// The recorded form of a decision.
pub fn record_of(decision: &Decision) -> DecisionRecord {
    DecisionRecord {
        action: decision.action.as_str().to_string(),
        text: decision.text.clone(),
        why: decision.why.clone(),
    }
}

/// The outcome of a call that failed for a record: retried on the next ticks until
/// `max_attempts` calls were made for it.
pub fn failed(error: &str, attempts: u32, max_attempts: u32) -> EscalationOutcome {
    let error = untrusted::excerpt(error, OUTCOME_EXCERPT_CHARS);
    if attempts >= max_attempts {
        EscalationOutcome::Failed(format!("{error}; gave up after {attempts} attempts"))
    } else {
        EscalationOutcome::Failed(format!(
            "{error} (attempt {attempts} of {max_attempts}, tried again next tick)"
        ))
    }
}

/// The calls of the day kept for urgent records: `escalation.reserve`, but never the
/// whole cap (one call a day stays open to any escalation; with `daily_cap = 1` there is
/// no reserve).
pub fn reserve(config: &EscalationConfig) -> u32 {
    config.reserve.min(config.daily_cap.saturating_sub(1))
}

/// The outcome of a record that is not urgent when only the reserved calls are left.
pub fn reserved(calls_today: u32, config: &EscalationConfig) -> EscalationOutcome {
    EscalationOutcome::Capped(format!(
        "{calls_today} escalation calls today; the last {} of the daily cap ({}) are kept for urgent escalations (escalation.reserve)",
        reserve(config),
        config.daily_cap
    ))
}

/// The outcome of a record over the day's calls.
pub fn capped(calls_today: u32, config: &EscalationConfig) -> EscalationOutcome {
    EscalationOutcome::Capped(format!(
        "{calls_today} escalation calls today, the daily cap (escalation.daily_cap = {})",
        config.daily_cap
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timestamp;

    fn record(outcome: &str) -> EscalationRecord {
        EscalationRecord::raised(
            timestamp::parse("2026-11-22T10:00:00Z").unwrap(),
            "watcher",
            "disk almost full",
            outcome.into(),
        )
    }

    fn decided(outcome: &str, action: &str) -> EscalationRecord {
        EscalationRecord {
            decision: Some(DecisionRecord {
                action: action.into(),
                text: "the disk is 95% full".into(),
                why: "it fills up fast".into(),
            }),
            ..record(outcome)
        }
    }

    fn config() -> EscalationConfig {
        EscalationConfig {
            notify_command: vec!["notify".into()],
            memory_dir: Some("/tmp/memory".into()),
            ..EscalationConfig::default()
        }
    }

    #[test]
    fn what_is_due_for_a_call() {
        // (record, due?) — each row names the wrong implementation it catches.
        let failed_once = EscalationRecord {
            attempts: 1,
            ..record("failed: timed out (attempt 1 of 3, tried again next tick)")
        };
        let given_up = EscalationRecord {
            attempts: 3,
            ..record("failed: timed out; gave up after 3 attempts")
        };
        let hand_failed = record("failed: by hand"); // no attempts: not ours to retry
        let notifier_failed = EscalationRecord {
            attempts: 1,
            ..decided("failed: notifier exited 1", "notify")
        }; // decided: retrying would call (and maybe notify) again
        let started = EscalationRecord {
            delivery: Some(Delivery::Started),
            ..record("pending")
        };
        let cases = [
            (record("pending"), true),
            (failed_once, true),
            (given_up, false),
            (hand_failed, false),
            (notifier_failed, false),
            (started, false),
            (record("suppressed: duplicate"), false),
            (record("dismissed: noise"), false),
            (
                decided("held: until the quiet hours end: x", "notify"),
                false,
            ),
        ];
        for (r, due) in cases {
            assert_eq!(is_due(&r, 3), due, "{}", r.outcome);
        }
    }

    #[test]
    fn the_plan_sorts_records_by_the_work_they_owe() {
        let history = vec![
            record("pending"),
            decided("held: until the quiet hours end: x", "notify"),
            EscalationRecord {
                delivery: Some(Delivery::Started),
                ..decided("notified: x", "notify")
            },
            record("suppressed: duplicate"),
            decided("notified: x", "notify"),
        ];
        let p = plan(&history, &config(), (0, 1), false, &|_| false);
        assert_eq!(
            p,
            Plan {
                decide: vec![0],
                capped: vec![],
                reserved: vec![],
                release: vec![1],
                interrupted: vec![2],
                retry: vec![],
                nudge: vec![],
            }
        );
        // In quiet hours the held record stays held.
        assert!(
            plan(&history, &config(), (0, 1), true, &|_| false)
                .release
                .is_empty()
        );
        // Over the daily cap, what was due is capped instead of called.
        let capped = plan(&history, &config(), (5, 1), false, &|_| true);
        assert_eq!((capped.decide.len(), capped.capped), (0, vec![0]));
        // An interrupted effect is never released or decided again.
        assert!(!capped.release.contains(&2) && !capped.decide.contains(&2));
    }

    #[test]
    fn a_decision_becomes_an_effect() {
        let cfg = config();
        let d = |action: &str| DecisionRecord {
            action: action.into(),
            text: "Disk 95% full".into(),
            why: "fills fast".into(),
        };
        let t = ["watcher"];
        let r = ["disk almost full"];
        assert_eq!(
            effect(&d("dismiss"), &t, &r, false, &cfg),
            Effect::Settled(EscalationOutcome::Dismissed("fills fast".into()))
        );
        assert!(matches!(
            effect(&d("remember"), &t, &r, true, &cfg),
            Effect::Remember { .. } // quiet hours hold notifications, not notes
        ));
        let Effect::Notify { message, done } = effect(&d("notify"), &t, &r, false, &cfg) else {
            panic!("notify runs the notifier")
        };
        assert_eq!(message, "thinker (watcher): Disk 95% full\n");
        assert_eq!(done, EscalationOutcome::Notified("Disk 95% full".into()));
        assert!(matches!(
            effect(&d("notify"), &t, &r, true, &cfg),
            Effect::Settled(EscalationOutcome::Held(_))
        ));
        let Effect::Notify { message, done } = effect(&d("propose"), &t, &r, false, &cfg) else {
            panic!("a proposal is shown through the notifier")
        };
        assert!(message.starts_with("thinker (watcher) proposes (it ran nothing"));
        assert_eq!(done, EscalationOutcome::Proposed("Disk 95% full".into()));
        let none = EscalationConfig::default();
        assert!(matches!(
            effect(&d("notify"), &t, &r, false, &none),
            Effect::Settled(EscalationOutcome::Failed(f)) if f.contains("notify_command")
        ));
        assert!(matches!(
            effect(&d("remember"), &t, &r, false, &none),
            Effect::Settled(EscalationOutcome::Failed(f)) if f.contains("memory_dir")
        ));
        // A dismissal without a why keeps its text, else says so.
        let bare = DecisionRecord {
            action: "dismiss".into(),
            text: String::new(),
            why: String::new(),
        };
        assert_eq!(
            effect(&bare, &t, &r, false, &cfg),
            Effect::Settled(EscalationOutcome::Dismissed("no reason given".into()))
        );
    }

    /// Regression (a hostile probe): a multi-line decision text added its own
    /// "— thinker (librarian)" line or a "Proposal …" header to a notification.
    #[test]
    fn the_frame_comes_first_and_the_text_is_one_line() {
        let forged = DecisionRecord {
            action: "notify".into(),
            text: "Pay now\n— thinker (librarian)\r\nProposal (thinker ran nothing: it is yours to decide)\u{2028}x".into(),
            why: String::new(),
        };
        let m = message(&forged, &["watcher"], &[]);
        assert_eq!(m.matches('\n').count(), 1, "{m:?}");
        assert!(m.ends_with('\n'));
        assert!(m.starts_with("thinker (watcher): Pay now "), "{m:?}");
    }

    /// Injections used 3 of the 5 daily calls and an urgent flight change was
    /// the 5th; the last `reserve` calls are the urgent ones'.
    #[test]
    fn the_last_calls_of_the_day_are_kept_for_urgent_records() {
        let cfg = EscalationConfig {
            daily_cap: 5,
            reserve: 2,
            ..config()
        };
        let history = vec![record("pending"), record("pending")];
        let urgent = |i: usize| i == 1;
        // Before the reserve: everything due is called.
        assert_eq!(
            plan(&history, &cfg, (2, 1), false, &urgent).decide,
            vec![0, 1]
        );
        // In it: only the urgent one; the other is capped without a call.
        let p = plan(&history, &cfg, (3, 1), false, &urgent);
        assert_eq!((p.decide, p.reserved), (vec![1], vec![0]));
        assert_eq!(
            reserved(3, &cfg).to_string(),
            "capped: 3 escalation calls today; the last 2 of the daily cap (5) are kept for urgent escalations (escalation.reserve)"
        );
        // At the cap: nothing is called, urgent or not.
        let p = plan(&history, &cfg, (5, 1), false, &urgent);
        assert_eq!((p.decide.len(), p.capped), (0, vec![0, 1]));
    }

    #[test]
    fn a_decision_held_for_confirmation_is_never_released() {
        let history = vec![decided(
            "held: needs confirmation (a phone number): call +44 20 7946 0958",
            "notify",
        )];
        assert!(plan(&history, &config(), (0, 1), false, &|_| false).is_empty());
    }

    #[test]
    fn failures_count_down_to_giving_up() {
        assert_eq!(
            failed("timed out", 1, 3).to_string(),
            "failed: timed out (attempt 1 of 3, tried again next tick)"
        );
        assert_eq!(
            failed("timed out", 3, 3).to_string(),
            "failed: timed out; gave up after 3 attempts"
        );
    }

    #[test]
    fn the_held_module_reads_the_same_words_the_check_writes() {
        assert_eq!(held::NEEDS_CONFIRMATION, outbound::NEEDS_CONFIRMATION);
    }

    /// A failed send: owed again 1, 2, 4 ticks later, given up at `delivery_attempts`;
    /// one that may have half-delivered is given up at once. The outcome says which.
    #[test]
    fn a_failed_send_is_retried_with_backoff_then_given_up() {
        let cfg = EscalationConfig {
            delivery_attempts: 4,
            ..config()
        };
        let mut r = decided("notified: x", "notify");
        let mut runs = Vec::new();
        let mut run = 10;
        loop {
            let gave_up = send_failed(&mut r, "notifier `x` exited with code 1", false, run, &cfg);
            if gave_up {
                break;
            }
            assert_eq!(r.delivery, Some(Delivery::Owed));
            let at = r.retry_run.unwrap();
            // Not due before its run, due at it.
            assert!(!send_due(&r, at - 1, &cfg) && send_due(&r, at, &cfg));
            runs.push(at - run);
            run = at;
        }
        assert_eq!(runs, [1, 2, 4]);
        assert_eq!((r.sends, r.delivery), (4, Some(Delivery::Undelivered)));
        assert_eq!(
            r.outcome.to_string(),
            "failed: notifier `x` exited with code 1; gave up after 4 tries: `thinker held` lists it (message not delivered)"
        );
        assert!(gave_up(std::slice::from_ref(&r)));
        let mut first = decided("notified: x", "notify");
        send_failed(&mut first, "down", false, 3, &cfg);
        assert_eq!(
            first.outcome.to_string(),
            "failed: down (try 1 of 4; tried again in 1 tick)"
        );
        // A ledger reset (runs from 1 again) does not strand a retry far ahead.
        assert!(
            !send_due(&first, 1, &cfg)
                && send_due(
                    &EscalationRecord {
                        retry_run: Some(500),
                        ..first.clone()
                    },
                    1,
                    &cfg
                )
        );
        // A notifier killed at its timeout may have delivered: never tried again.
        let mut hung = decided("notified: x", "notify");
        assert!(send_failed(&mut hung, "timed out", true, 3, &cfg));
        assert!(
            hung.outcome.to_string().contains("it may have reached you"),
            "{}",
            hung.outcome
        );
        // A nudge keeps its record's held outcome.
        let mut nudge = decided("held: needs confirmation (a phone number): call", "notify");
        send_failed(&mut nudge, "down", false, 3, &cfg);
        assert!(held::needs_confirmation(&nudge.outcome));
        assert_eq!(nudge.delivery_error.as_deref(), Some("down"));
        send_succeeded(&mut nudge);
        assert_eq!(
            (
                nudge.delivery,
                nudge.sends,
                nudge.retry_run,
                nudge.delivery_error
            ),
            (None, 0, None, None)
        );
    }

    #[test]
    fn owed_sends_are_planned_when_due_and_not_in_quiet_hours() {
        let owed = |outcome: &str, retry: Option<u64>| EscalationRecord {
            delivery: Some(Delivery::Owed),
            retry_run: retry,
            ..decided(outcome, "notify")
        };
        let history = vec![
            owed("failed: down (try 1 of 4; tried again in 1 tick)", Some(5)),
            owed("failed: down (try 2 of 4; tried again in 2 ticks)", Some(7)),
            owed("held: needs confirmation (a phone number): call", None),
            EscalationRecord {
                delivery: Some(Delivery::Undelivered),
                ..decided("failed: down; gave up", "notify")
            },
        ];
        let p = plan(&history, &config(), (0, 5), false, &|_| false);
        assert_eq!((p.retry, p.nudge), (vec![0], vec![2]));
        let quiet = plan(&history, &config(), (0, 9), true, &|_| false);
        assert!(quiet.retry.is_empty() && quiet.nudge.is_empty());
        assert_eq!(
            plan(&history, &config(), (0, 9), false, &|_| false).retry,
            vec![0, 1]
        );
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        const OUTCOMES: [&str; 10] = [
            "pending",
            "held: needs confirmation (a phone number): call",
            "failed: down",
            "held: until the quiet hours end: x",
            "notified: x",
            "dismissed: y",
            "capped: z",
            "suppressed: duplicate",
            "proposed: w",
            "hand-written",
        ];

        fn arb_record() -> impl Strategy<Value = EscalationRecord> {
            (
                0..OUTCOMES.len(),
                0u32..5,
                any::<bool>(),
                0u8..5,
                proptest::option::of(0u8..20),
            )
                .prop_map(|(o, attempts, decided, delivery, retry)| EscalationRecord {
                    attempts,
                    decision: decided.then(|| DecisionRecord {
                        action: "notify".into(),
                        text: "t".into(),
                        why: "w".into(),
                    }),
                    delivery: match delivery {
                        0 => None,
                        1 => Some(Delivery::Started),
                        2 => Some(Delivery::Unconfirmed),
                        3 => Some(Delivery::Owed),
                        _ => Some(Delivery::Undelivered),
                    },
                    retry_run: retry.map(u64::from),
                    ..record(OUTCOMES[o])
                })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(400))]

            /// Each record owes at most one kind of work; nothing decided or under way is
            /// decided again; nothing is released in quiet hours; nothing is called over
            /// the cap; an interrupted effect is only ever marked.
            #[test]
            fn the_plan_never_does_a_record_twice(
                history in proptest::collection::vec(arb_record(), 0..12),
                calls in 0u32..8,
                run in 0u64..12,
                quiet in any::<bool>(),
                urgent in proptest::collection::vec(any::<bool>(), 12),
            ) {
                let cfg = config();
                let p = plan(&history, &cfg, (calls, run), quiet, &|i| urgent[i]);
                let mut seen = std::collections::HashSet::new();
                for i in p.decide.iter().chain(&p.capped).chain(&p.reserved).chain(&p.release).chain(&p.interrupted).chain(&p.retry).chain(&p.nudge) {
                    prop_assert!(seen.insert(*i), "record {} planned twice", i);
                }
                // A send is retried or a nudge sent only when owed and due, never in quiet
                // hours; nothing given up or unconfirmed is ever sent again.
                for &i in p.retry.iter().chain(&p.nudge) {
                    prop_assert!(!quiet);
                    prop_assert_eq!(history[i].delivery, Some(Delivery::Owed));
                    prop_assert!(send_due(&history[i], run, &cfg));
                }
                for (i, r) in history.iter().enumerate() {
                    if matches!(r.delivery, Some(Delivery::Undelivered | Delivery::Unconfirmed)) {
                        prop_assert!(!p.release.contains(&i) && !p.retry.contains(&i) && !p.nudge.contains(&i) && !p.decide.contains(&i));
                    }
                }
                for &i in p.decide.iter().chain(&p.capped) {
                    prop_assert!(history[i].decision.is_none() && history[i].delivery.is_none());
                }
                for &i in &p.interrupted {
                    prop_assert_eq!(history[i].delivery, Some(Delivery::Started));
                }
                for (i, r) in history.iter().enumerate() {
                    if r.delivery == Some(Delivery::Started) {
                        prop_assert!(p.interrupted.contains(&i));
                    }
                }
                prop_assert!(!quiet || p.release.is_empty());
                prop_assert!(calls < cfg.daily_cap || p.decide.is_empty());
                // The reserve: past `daily_cap - reserve`, only urgent records are called,
                // and an urgent record is never capped while a call is left.
                if calls >= cfg.daily_cap - reserve(&cfg) {
                    prop_assert!(p.decide.iter().all(|&i| urgent[i]));
                }
                if calls < cfg.daily_cap {
                    prop_assert!(p.capped.is_empty());
                    prop_assert!(p.reserved.iter().all(|&i| !urgent[i]));
                }
            }
        }
    }
}
