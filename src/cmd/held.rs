//! `thinker held`, `thinker release ID`, `thinker discard ID`: the messages that wait for
//! the user ([`crate::escalation::held`]) — held for confirmation by the check of what
//! leaves, or undelivered (every try failed, or one may have half-delivered).
//!
//! `held` lists them (read-only, no lock): id, why each waits, who raised it, what it
//! says — its links defanged ([`crate::untrusted::links`]) when it was held for a link.
//! `release` sends one now, through the configured notifier (a `remember` as its note),
//! whatever the quiet hours, its links defanged when it was held for a link; `discard`
//! drops one for good (`dismissed: discarded by you …`, which also keeps a matching
//! reason from being raised again for a while, as any dismissal does).
//!
//! Both take the tick lock (exit 75 while a tick runs) and change only the message's
//! records, the way a tick would: `release` writes them `delivery: "started"` before the
//! notifier runs and settles them after, so a kill never sends it twice (the next tick
//! marks it `unconfirmed`); a send that certainly failed leaves the message waiting as it
//! was, one that may have half-delivered leaves it undelivered. Each step is one line of
//! `deliveries.jsonl` ([`crate::escalation::held::Step`]).
//!
//! Must not: send anything but the message named, or the records of another.

use std::fmt::Write as _;

use serde::Serialize;

use crate::cli::HeldArgs;
use crate::cmd::Context;
use crate::error::{EXIT_OK, Error, to_json_pretty};
use crate::escalation::held::{self, Held, HeldError, Step, Waiting};
use crate::escalation::plan::{self, Effect};
use crate::escalation::{note, notify};
use crate::state::{DecisionRecord, Delivery, EscalationOutcome, EscalationRecord, State};
use crate::storage::{DELIVERIES_FILE, StateDir};
use crate::untrusted::{self, links};

/// A waiting message as `held --json` lists it.
#[derive(Debug, Serialize)]
struct Listed<'a> {
    id: &'a str,
    /// `held for confirmation` or `undelivered`.
    waiting: &'static str,
    raised: String,
    threads: &'a [String],
    action: &'a str,
    /// What it says, its links defanged when it was held for a link.
    text: String,
    why: &'a str,
    for_link: bool,
}

/// The text of `h` as shown: its links defanged when it was held for a link.
fn shown(h: &Held) -> String {
    if h.for_link {
        links::defang(&h.text)
    } else {
        h.text.clone()
    }
}

/// `thinker held [--json]`.
pub fn list(ctx: &mut Context<'_>, args: &HeldArgs) -> Result<u8, Error> {
    let resolved = ctx.optional_config()?;
    let state = StateDir::at(&resolved.state_dir).load()?;
    let waiting = held::list(&state.escalation_history);
    if args.json {
        let listed: Vec<Listed<'_>> = waiting
            .iter()
            .map(|h| Listed {
                id: &h.id,
                waiting: h.waiting.as_str(),
                raised: crate::timestamp::format(h.raised),
                threads: &h.threads,
                action: &h.action,
                text: shown(h),
                why: &h.why,
                for_link: h.for_link,
            })
            .collect();
        let text = to_json_pretty(&listed, "the waiting messages")?;
        ctx.stdout(text.as_bytes())?;
        return Ok(EXIT_OK);
    }
    if waiting.is_empty() {
        ctx.stdout(
            b"Nothing waits for you: no message is held for your confirmation or undelivered.\n",
        )?;
        return Ok(EXIT_OK);
    }
    let mut out = String::new();
    for h in &waiting {
        let why = match h.waiting {
            Waiting::Confirmation => format!("held for your confirmation: {}", h.why),
            Waiting::Undelivered => format!("undelivered: {}", h.why),
        };
        let _ = write!(
            out,
            "{}  {} by {}, {} ({})\n  why:  {why}\n  says: {}\n",
            h.id,
            h.action,
            h.threads.join(", "),
            crate::clock::age(h.raised, ctx.clock.now),
            ctx.clock.wall(h.raised),
            shown(h)
        );
    }
    out.push_str(
        "`thinker release ID` sends one now (its links defanged when it was held for a link); `thinker discard ID` drops it.\n",
    );
    ctx.stdout(out.as_bytes())?;
    Ok(EXIT_OK)
}

/// What a release sends.
enum Send {
    /// Through the notifier.
    Message(String),
    /// Appended to the memory directory.
    Note { text: String, attribution: String },
}

/// The threads and reasons of `records`, threads without repeats.
fn who_and_why(state: &State, records: &[usize]) -> (Vec<String>, Vec<String>) {
    let mut threads: Vec<String> = Vec::new();
    let mut reasons = Vec::new();
    for &i in records {
        let r = &state.escalation_history[i];
        if !threads.contains(&r.thread) {
            threads.push(r.thread.clone());
        }
        reasons.push(r.reason.clone());
    }
    (threads, reasons)
}

/// The message `h` as it goes out now (links defanged when it was held for a link), and
/// its records' outcome once it has.
fn what_to_send(
    state: &State,
    h: &Held,
    config: &crate::config::EscalationConfig,
) -> Result<(Send, EscalationOutcome), HeldError> {
    let not_waiting = || HeldError::NotWaiting { id: h.id.clone() };
    let decision = state.escalation_history[h.records[0]]
        .decision
        .clone()
        .ok_or_else(not_waiting)?;
    let (threads, reasons) = who_and_why(state, &h.records);
    let threads: Vec<&str> = threads.iter().map(String::as_str).collect();
    let reasons: Vec<&str> = reasons.iter().map(String::as_str).collect();
    let decision = if h.for_link {
        DecisionRecord {
            text: links::defang(&plan::text_or_reasons(&decision, &reasons)),
            ..decision
        }
    } else {
        decision
    };
    let released =
        |done: EscalationOutcome| EscalationOutcome::parse(&format!("{done} (released by you)"));
    match plan::effect(&decision, &threads, &reasons, false, config) {
        Effect::Notify { message, done } => Ok((Send::Message(message), released(done))),
        Effect::Remember { text, done } => Ok((
            Send::Note {
                text,
                attribution: format!(
                    "thinker ({} escalation, released by you)",
                    threads.join(", ")
                ),
            },
            released(done),
        )),
        Effect::Settled(EscalationOutcome::Failed(_)) if decision.action == "remember" => {
            Err(HeldError::NoMemoryDir { id: h.id.clone() })
        }
        Effect::Settled(EscalationOutcome::Failed(_)) => {
            Err(HeldError::NoNotifier { id: h.id.clone() })
        }
        Effect::Settled(_) | Effect::Nudge { .. } => Err(not_waiting()),
    }
}

/// The records `h` names, as they stand.
fn records_of(state: &State, h: &Held) -> Vec<EscalationRecord> {
    h.records
        .iter()
        .map(|&i| state.escalation_history[i].clone())
        .collect()
}

/// Opens the state under the tick lock and finds the message `id` names.
fn open(
    id: &str,
    state_dir: &std::path::Path,
) -> Result<(StateDir, crate::storage::Lock, State, Held), Error> {
    let dir = StateDir::at(state_dir);
    if !dir.has_state() {
        return Err(HeldError::NotWaiting {
            id: untrusted::excerpt(id, 40),
        }
        .into());
    }
    let lock = dir.lock()?;
    let state = dir.load()?;
    let waiting = held::list(&state.escalation_history);
    let h = held::named(&waiting, id)?.clone();
    Ok((dir, lock, state, h))
}

/// `thinker release ID`.
pub fn release(ctx: &mut Context<'_>, id: &str) -> Result<u8, Error> {
    let resolved = ctx.required_config()?;
    let config = &resolved.config.escalation;
    let (dir, _lock, mut state, h) = open(id, &resolved.state_dir)?;
    let (send, done) = what_to_send(&state, &h, config)?;
    let before = records_of(&state, &h);
    for &i in &h.records {
        let r = &mut state.escalation_history[i];
        r.outcome = done.clone();
        r.delivery = Some(Delivery::Started);
    }
    // The intent first: a kill from here on never sends it twice.
    dir.save(&state)?;
    let notifier = config.notifier();
    let result = match &send {
        Send::Message(message) => {
            crate::runtime::block_on(notify::deliver(&notifier, message, config.notify_timeout))?
                .map(|sent| format!("{} ({})", sent.via, sent.said))
                .map_err(|e| (e.may_have_delivered(), e.to_string()))
        }
        Send::Note { text, attribution } => match &config.memory_dir {
            None => Err((false, "no memory directory is configured".to_string())),
            Some(memory) => note::append_note(memory, &ctx.clock, attribution, text)
                .map(|path| format!("a note in {}", path.display()))
                .map_err(|e| (false, e.to_string())),
        },
    };
    let (step_result, error, outcome) = match result {
        Ok(via) => {
            for &i in &h.records {
                plan::send_succeeded(&mut state.escalation_history[i]);
            }
            (("sent", Some(via)), None, Ok(()))
        }
        Err((true, error)) => {
            for &i in &h.records {
                let r = &mut state.escalation_history[i];
                r.delivery = Some(Delivery::Undelivered);
                r.delivery_error = Some(untrusted::excerpt(&error, plan::OUTCOME_EXCERPT_CHARS));
                r.outcome = EscalationOutcome::Failed(format!(
                    "{}; it may have reached you (released by you)",
                    untrusted::excerpt(&error, plan::OUTCOME_EXCERPT_CHARS)
                ));
            }
            (
                ("maybe sent", None),
                Some(error.clone()),
                Err(HeldError::MaybeSent {
                    id: h.id.clone(),
                    error,
                }),
            )
        }
        Err((false, error)) => {
            // It did not go out: the message waits as it was.
            for (&i, was) in h.records.iter().zip(&before) {
                let r = &mut state.escalation_history[i];
                *r = was.clone();
                r.delivery_error = Some(untrusted::excerpt(&error, plan::OUTCOME_EXCERPT_CHARS));
            }
            (
                ("not sent", None),
                Some(error.clone()),
                Err(HeldError::NotSent {
                    id: h.id.clone(),
                    error,
                }),
            )
        }
    };
    dir.save(&state)?;
    let ((result, via), records) = (step_result, records_of(&state, &h));
    dir.append_lines(
        DELIVERIES_FILE,
        &[Step {
            time: ctx.clock.now,
            action: "release".into(),
            id: Some(h.id.clone()),
            via: via.clone().or_else(|| Some(notifier.describe())),
            result: result.into(),
            error,
            records,
        }],
    )?;
    outcome?;
    let said = match &send {
        Send::Message(message) => message.trim_end().to_string(),
        Send::Note { text, .. } => untrusted::excerpt(text, 200),
    };
    ctx.stdout(
        format!(
            "sent {} through {}:\n  {said}\n",
            h.id,
            via.unwrap_or_default()
        )
        .as_bytes(),
    )?;
    Ok(EXIT_OK)
}

/// `thinker discard ID`.
pub fn discard(ctx: &mut Context<'_>, id: &str) -> Result<u8, Error> {
    let resolved = ctx.optional_config()?;
    let (dir, _lock, mut state, h) = open(id, &resolved.state_dir)?;
    for &i in &h.records {
        let r = &mut state.escalation_history[i];
        r.outcome = EscalationOutcome::Dismissed(format!(
            "discarded by you (thinker discard): {}",
            plan::excerpt(&h.text)
        ));
        plan::send_succeeded(r);
    }
    dir.save(&state)?;
    dir.append_lines(
        DELIVERIES_FILE,
        &[Step {
            time: ctx.clock.now,
            action: "discard".into(),
            id: Some(h.id.clone()),
            via: None,
            result: "discarded".into(),
            error: None,
            records: records_of(&state, &h),
        }],
    )?;
    ctx.stdout(format!("discarded {}: it will never be sent.\n", h.id).as_bytes())?;
    Ok(EXIT_OK)
}
