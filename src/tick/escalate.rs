//! The escalation phase of a tick (SPEC §4.7, §8): after the tick's state is committed,
//! under the same lock, the work [`plan`] says is owed — interrupted effects marked,
//! records over the daily cap capped, **one** call to the primary model for every record
//! due, held notifications released — then the effects, then the outcomes written.
//!
//! The writes, in order: the day's call counted in the ledger before the call (a kill
//! mid-call never lets the cap be passed); the effects recorded as `started` in the state
//! before any of them runs (a kill mid-effect never runs it again: see
//! [`crate::escalation::plan`]); the state with the outcomes; the ledger with the call's
//! spending; the escalation's journal line. A phase with nothing owed writes nothing.
//!
//! The sends it owes besides a new decision's: failed ones whose retry is due, held
//! notifications whose quiet hours are over, and the content-free nudge of records held
//! for confirmation (one nudge for all that owe one). A send that reported it did not
//! deliver is logged at `info` while tries are left (a healthy tick writes nothing to
//! stderr); one given up is a warning naming the message's id and the way out, and makes
//! the tick exit non-zero ([`crate::escalation::plan::gave_up`]).
//!
//! Must not: decide what the memory becomes, or change anything of the state but
//! `escalation_history`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use crate::aggregate::{ThreadOutcome, told};
use crate::answer::Finding;
use crate::budget::Budget;
use crate::clock::Clock;
use crate::config::EscalationConfig;
use crate::egress::{Outgoing, Public};
use crate::error::Error;
use crate::escalation::decision::{self, Decision, parse_decision};
use crate::escalation::outbound::{self, Seen};
use crate::escalation::plan::{self, Effect, Plan};
use crate::escalation::{held, note, notify};
use crate::journal::{AttemptRecord, EscalationLine, EscalationWork};
use crate::ledger::{self, Ledger};
use crate::privacy::Withheld;
use crate::privacy::policy::Policy;
use crate::prompt::Prompts;
use crate::provider::{CallError, CallRequest, Progress, Providers};
use crate::state::{Delivery, EscalationOutcome, EscalationRecord, State, Suppression};
use crate::storage::{JOURNAL_FILE, StateDir, StorageError};
use crate::thread::ThreadName;
use crate::timestamp::millis;
use crate::untrusted::guard;

/// How many settled records the primary model is shown as recent outcomes.
const RECENT_OUTCOMES: usize = 10;

/// How the primary call ended.
enum Called {
    Decided(Decision),
    /// The daily budget refused every model: no request was made.
    OverBudget(String),
    Failed(String),
}

/// What the escalation phase works with.
pub(super) struct Escalation<'a> {
    pub config: &'a EscalationConfig,
    pub dir: &'a StateDir,
    pub budget: &'a Budget,
    pub providers: &'a Providers,
    pub prompts: &'a Prompts,
    /// What the primary model may see of private text (SPEC §9).
    pub privacy: &'a Policy,
    pub clock: Clock,
    pub run: u64,
    /// The ledger as the tick wrote it (runs and spending before this phase).
    pub ledger: &'a Ledger,
    /// Calls to the primary model today; shared with the budget's write-ahead.
    pub calls_today: &'a AtomicU32,
    /// Per thread: its sources carried a screen detection this tick.
    pub screened: [bool; 4],
    /// The sites this tick's sources showed (the check of what leaves).
    pub links: &'a Seen,
    /// The memory's settings: when two messages say one thing (the told ledger).
    pub memory: &'a crate::aggregate::Settings,
}

/// The text after `suppressed: ` of a message that says again what the user was told.
pub const ALREADY_TOLD: &str = "already told";

/// A failed write of this phase: the tick itself is already in place.
fn after_tick(e: StorageError) -> Error {
    Error::Storage(e.after(crate::storage::Aftermath::TickWritten))
}

impl Escalation<'_> {
    fn quiet(&self) -> bool {
        self.config.is_quiet(self.clock.zone.time(self.clock.now))
    }

    /// The plan for `state` now.
    pub fn plan(&self, state: &State, outcomes: &[ThreadOutcome; 4]) -> Plan {
        let history = &state.escalation_history;
        plan::plan(
            history,
            self.config,
            (self.calls_today.load(Ordering::SeqCst), self.run),
            self.quiet(),
            &|i| self.urgent(&history[i], outcomes),
        )
    }

    /// Whether `record` is urgent (it may take the day's reserved calls): raised this
    /// tick by a thread whose sources carried no screen detection and whose answer has a
    /// finding of at least `urgent_importance`. A record raised by an earlier tick (a
    /// call retried) is not: what made it urgent is not recorded.
    fn urgent(&self, record: &EscalationRecord, outcomes: &[ThreadOutcome; 4]) -> bool {
        let Ok(thread) = record.thread.parse::<ThreadName>() else {
            return false;
        };
        record.timestamp == self.clock.now
            && !record.tainted
            && !self.screened[thread.index()]
            && outcomes[thread.index()].answer().is_some_and(|a| {
                a.findings
                    .iter()
                    .any(|f| f.importance >= self.config.urgent_importance)
            })
    }

    /// The prompt the primary model would be sent for the records `due` of `state`.
    pub fn prompt(
        &self,
        state: &State,
        due: &[usize],
        outcomes: &[ThreadOutcome; 4],
    ) -> Result<String, crate::prompt::PromptError> {
        let history = &state.escalation_history;
        let escalations: Vec<EscalationRecord> = due.iter().map(|&i| history[i].clone()).collect();
        let findings = findings_behind(&escalations, outcomes, self.clock);
        let recent: Vec<EscalationRecord> = history
            .iter()
            .enumerate()
            .filter(|(i, r)| !due.contains(i) && r.outcome != EscalationOutcome::Pending)
            .map(|(_, r)| r.clone())
            .rev()
            .take(RECENT_OUTCOMES)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        self.prompts
            .escalation_prompt(&escalations, &findings, state, &recent, &self.clock)
    }

    /// The escalation prompt for a primary model that may not see private text, when
    /// there is some to withhold: reasons, findings, memory and outcomes written from
    /// private text left out ([`Policy::public_escalation`]), saying so.
    fn public_prompt(
        &self,
        state: &State,
        due: &[usize],
        outcomes: &[ThreadOutcome; 4],
    ) -> Result<Option<Public>, crate::prompt::PromptError> {
        if !self.privacy.withholds_escalation() {
            return Ok(None);
        }
        let (public, due, outcomes, items) = self.privacy.public_escalation(state, due, outcomes);
        if items == 0 {
            return Ok(None);
        }
        let withheld = Withheld {
            sources: Vec::new(),
            items,
        };
        let prompt = self.prompt(&public, &due, &outcomes)?;
        Ok(Some(Public {
            prompt: withheld.insert_note(&prompt),
            sources: Vec::new(),
            withheld,
        }))
    }

    /// Does the owed work on the committed `state`; returns the journal line written, or
    /// `None` when nothing was owed (and nothing written).
    pub async fn settle(
        &self,
        mut state: State,
        outcomes: &[ThreadOutcome; 4],
    ) -> Result<Option<EscalationLine>, Error> {
        let started = Instant::now();
        let plan = self.plan(&state, outcomes);
        if plan.is_empty() {
            return Ok(None);
        }
        let quiet = self.quiet();
        let mut work = EscalationWork::default();
        let mut touched: Vec<usize> = Vec::new();
        let history = &mut state.escalation_history;
        for &i in &plan.interrupted {
            tracing::warn!(
                thread = %history[i].thread,
                "an escalation's effect was interrupted by a kill or crash; it is not run again (it may or may not have reached you): {}",
                history[i].outcome
            );
            history[i].delivery = Some(Delivery::Unconfirmed);
        }
        touched.extend(&plan.interrupted);
        let calls = self.calls_today.load(Ordering::SeqCst);
        for &i in &plan.capped {
            history[i].outcome = plan::capped(calls, self.config);
        }
        touched.extend(&plan.capped);
        for &i in &plan.reserved {
            tracing::info!(
                thread = %history[i].thread,
                "escalation not called: the day's last calls are kept for urgent escalations (escalation.reserve)"
            );
            history[i].outcome = plan::reserved(calls, self.config);
        }
        touched.extend(&plan.reserved);
        // Effects to run: (records, effect).
        let mut effects: Vec<(Vec<usize>, Effect)> = Vec::new();
        if !plan.decide.is_empty() {
            touched.extend(&plan.decide);
            if let Some(effect) = self
                .decide(&mut state, &plan.decide, outcomes, quiet, &mut work)
                .await?
            {
                effects.push((plan.decide.clone(), effect));
            }
        }
        effects.extend(released(&state, &plan.release, self.config));
        touched.extend(&plan.release);
        effects.extend(released(&state, &plan.retry, self.config));
        touched.extend(&plan.retry);
        // The nudge: for every record held for confirmation that owes one, those held
        // by this tick's decision included; it counts every message held.
        let nudged = plan::nudges(&state.escalation_history, self.run, quiet, self.config);
        if !nudged.is_empty() && self.config.notifier().is_configured() {
            let count = held::confirmations(&state.escalation_history);
            touched.extend(&nudged);
            effects.push((
                nudged,
                Effect::Nudge {
                    message: held::nudge(count),
                },
            ));
        }
        self.run_effects(&mut state, &effects, &mut work).await?;
        touched.sort_unstable();
        touched.dedup();
        work.records = touched
            .iter()
            .map(|&i| state.escalation_history[i].clone())
            .collect();
        self.dir
            .stage(&state)
            .and_then(|s| self.dir.commit_staged(s))
            .map_err(after_tick)?;
        let digest = state.digest();
        self.dir
            .write_ledger(&Ledger {
                runs: self.run,
                spent: self.budget.spent(),
                breakers: self.budget.breaker_states(),
                escalations: self.calls_today.load(Ordering::SeqCst),
                state: Some(digest.clone()),
                ..self.ledger.clone()
            })
            .map_err(after_tick)?;
        work.duration_ms = millis(started.elapsed());
        let line = EscalationLine {
            time: self.clock.now,
            run: self.run,
            tick_count: state.tick_count,
            escalation: work,
            state: Some(digest),
        };
        self.dir
            .append_lines(JOURNAL_FILE, std::slice::from_ref(&line))
            .map_err(after_tick)?;
        Ok(Some(line))
    }

    /// One call for the records `due`; their outcomes set unless the decision has an
    /// effect to run (returned).
    #[expect(
        clippy::too_many_lines,
        reason = "one decision call and each of its effects, in order"
    )]
    async fn decide(
        &self,
        state: &mut State,
        due: &[usize],
        outcomes: &[ThreadOutcome; 4],
        quiet: bool,
        work: &mut EscalationWork,
    ) -> Result<Option<Effect>, Error> {
        let max = self.config.max_attempts;
        if self.config.models.is_empty() {
            let why = "no primary model is configured: set [escalation] model (and fallback)";
            tracing::warn!("escalation not decided: {why}");
            for &i in due {
                let r = &mut state.escalation_history[i];
                r.attempts = max;
                r.outcome = EscalationOutcome::Failed(why.into());
            }
            work.errors.push(why.into());
            return Ok(None);
        }
        let prompts = self
            .prompt(state, due, outcomes)
            .and_then(|p| Ok((p, self.public_prompt(state, due, outcomes)?)));
        let prompt = match prompts {
            Ok(prompt) => prompt,
            Err(e) => {
                let why = format!("the escalation prompt does not render: {e}");
                self.fail(state, due, &why, work);
                return Ok(None);
            }
        };
        // Counted before the call, written ahead: a kill mid-call never passes the cap.
        let calls = self
            .calls_today
            .fetch_add(1, Ordering::SeqCst)
            .saturating_add(1);
        self.dir
            .write_ledger_ahead(&Ledger {
                runs: self.run,
                spent: self.budget.spent(),
                escalations: calls,
                ..self.ledger.clone()
            })
            .map_err(after_tick)?;
        let decision = match self.call(prompt, work).await {
            Called::Decided(decision) => decision,
            Called::OverBudget(why) => {
                for &i in due {
                    state.escalation_history[i].outcome =
                        EscalationOutcome::Capped(plan::excerpt(&why));
                }
                work.errors.push(why);
                return Ok(None);
            }
            Called::Failed(why) => {
                self.fail(state, due, &why, work);
                return Ok(None);
            }
        };
        let record = plan::record_of(&decision);
        work.decision = Some(record.clone());
        let (threads, reasons) = who_and_why(state, due);
        let threads: Vec<&str> = threads.iter().map(String::as_str).collect();
        let reasons: Vec<&str> = reasons.iter().map(String::as_str).collect();
        // The guard: a message carrying an injection is never delivered; the check of
        // what leaves: one that asks to pay, carries a number or a link no trusted source
        // showed is held for the user's confirmation, never sent.
        // What the user was told is not sent again (§8): a message saying what a matter
        // of the told ledger said is settled `suppressed: already told`, folded into it.
        let told_before = (record.action == "notify")
            .then(|| told::already_told(state, &record.text, self.clock.now, self.memory))
            .flatten();
        let screened = guard::message(&record.text);
        let tainted = due.iter().any(|&i| state.escalation_history[i].tainted);
        let held = outbound::hold(
            &record,
            &plan::text_or_reasons(&record, &reasons),
            self.links,
            &self.config.trusted_domains,
            tainted,
        );
        // A text both screened and held is held: the reasons tell the user what it asks
        // of them (a payment, a login), and it is never sent either way.
        let notifier = self.config.notifier();
        let effect = if let Some(i) = told_before {
            told::told_by(state, due, i, self.memory);
            let matter = &mut state.told[i];
            matter.folded = matter.folded.saturating_add(1);
            matter.last = matter.last.max(self.clock.now);
            tracing::info!(
                "the primary model's notify says again what the user was told ({}): not sent (suppressed: already told)",
                matter.entry
            );
            Effect::Settled(EscalationOutcome::Suppressed(Suppression::Other(
                ALREADY_TOLD.into(),
            )))
        } else if let Some((outcome, why)) = &held {
            let why: Vec<&str> = why.iter().map(outbound::Reason::kind).collect();
            // With a notifier, the nudge tells the user; without, only this line can.
            if notifier.is_configured() {
                tracing::info!(
                    "the primary model's {} is held for your confirmation ({}): `thinker held` lists it",
                    record.action,
                    why.join("; ")
                );
            } else {
                tracing::warn!(
                    "the primary model's {} is held for your confirmation ({}): `thinker held` lists it; it is never sent unless you release it",
                    record.action,
                    why.join("; ")
                );
            }
            Effect::Settled(outcome.clone())
        } else if screened.is_empty() {
            plan::effect(&record, &threads, &reasons, quiet, self.config)
        } else {
            tracing::warn!(
                "the primary model's {} carries {} suspicious span(s): not delivered (suppressed: screened)",
                record.action,
                screened.len()
            );
            work.errors.push(format!(
                "the decision's text was screened ({}): not delivered",
                screened
                    .iter()
                    .map(|r| r.kind)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            Effect::Settled(EscalationOutcome::Suppressed(Suppression::Other(
                "screened".into(),
            )))
        };
        for &i in due {
            let r = &mut state.escalation_history[i];
            r.decision = Some(record.clone());
            if let Effect::Settled(outcome) = &effect {
                r.outcome = outcome.clone();
                // Held for confirmation: a nudge is owed (sent in this phase).
                if held.is_some() && told_before.is_none() && notifier.is_configured() {
                    r.delivery = Some(Delivery::Owed);
                }
            }
        }
        tracing::info!(action = %record.action, "escalation decided: {}", plan::excerpt(&record.why));
        Ok(match effect {
            Effect::Settled(_) => None,
            effect => Some(effect),
        })
    }

    /// The call itself, within the escalation timeout; what it used goes to `work`.
    async fn call(
        &self,
        (prompt, public): (String, Option<Public>),
        work: &mut EscalationWork,
    ) -> Called {
        let request = CallRequest {
            system: String::new(),
            prompt,
            schema: decision::decision_schema(),
            schema_name: "escalation_decision".into(),
            max_tokens: self.config.max_tokens,
            temperature: 0.0,
            sequence: self.run,
        };
        let progress = Progress::default();
        let started = Instant::now();
        let out = Outgoing {
            request,
            sources: Vec::new(),
            public,
        };
        let call =
            self.providers
                .call_chain_out(&self.config.models, &out, self.budget, &progress, |c| {
                    parse_decision(&c.text)
                });
        let timed = tokio::time::timeout(self.config.timeout, call).await;
        work.latency_ms = Some(millis(started.elapsed()));
        let Ok(outcome) = timed else {
            let waiting = progress
                .describe()
                .map(|w| format!(" ({w})"))
                .unwrap_or_default();
            return Called::Failed(format!(
                "the primary model did not answer within {} s{waiting}",
                self.config.timeout.as_secs_f64(),
            ));
        };
        work.attempts = outcome.attempts.iter().map(AttemptRecord::from).collect();
        work.tokens_in = ledger::sum_tokens(outcome.attempts.iter().map(|a| a.tokens_in));
        work.tokens_out = ledger::sum_tokens(outcome.attempts.iter().map(|a| a.tokens_out));
        work.cost = ledger::sum_cost(outcome.attempts.iter().map(|a| a.cost));
        if let Some(last) = outcome.attempts.iter().rev().find(|a| !a.skipped) {
            work.provider = Some(last.model.provider.clone());
            work.model = Some(last.model.model.clone());
        }
        match outcome.result {
            Ok((decision, completion)) => {
                work.provider = Some(completion.model.provider.clone());
                work.model = Some(completion.model.model.clone());
                Called::Decided(decision)
            }
            Err(e @ CallError::OverBudget { .. }) if outcome.attempts.iter().all(|a| a.skipped) => {
                Called::OverBudget(format!("the daily budget does not allow the call ({e})"))
            }
            Err(e) => Called::Failed(e.to_string()),
        }
    }

    /// A failed call for the records `due`: counted, retried next tick until given up.
    fn fail(&self, state: &mut State, due: &[usize], why: &str, work: &mut EscalationWork) {
        tracing::warn!("escalation call failed: {why}");
        for &i in due {
            let r = &mut state.escalation_history[i];
            r.attempts = r.attempts.saturating_add(1);
            r.outcome = plan::failed(why, r.attempts, self.config.max_attempts);
        }
        work.errors.push(why.to_string());
    }

    /// Records the effects as started (one write), runs them, settles their records: a
    /// send that failed is owed again or given up ([`plan::send_failed`]).
    async fn run_effects(
        &self,
        state: &mut State,
        effects: &[(Vec<usize>, Effect)],
        work: &mut EscalationWork,
    ) -> Result<(), Error> {
        if effects.is_empty() {
            return Ok(());
        }
        for (records, effect) in effects {
            for &i in records {
                let r = &mut state.escalation_history[i];
                match effect {
                    Effect::Notify { done, .. } | Effect::Remember { done, .. } => {
                        r.outcome = done.clone();
                    }
                    Effect::Settled(outcome) => r.outcome = outcome.clone(),
                    // A nudge leaves the outcome as it is: the record stays held.
                    Effect::Nudge { .. } => {}
                }
                r.delivery = Some(Delivery::Started);
            }
        }
        // The intent: written before anything runs, so that a kill never runs it twice.
        self.dir
            .stage(state)
            .and_then(|s| self.dir.commit_staged(s))
            .map_err(after_tick)?;
        let notifier = self.config.notifier();
        for (records, effect) in effects {
            let result = match effect {
                Effect::Notify { message, .. } | Effect::Nudge { message } => {
                    notify::deliver(&notifier, message, self.config.notify_timeout)
                        .await
                        .map(|_| ())
                        .map_err(EffectError::Notifier)
                }
                Effect::Remember { text, .. } => {
                    let (threads, _) = who_and_why(state, records);
                    let attribution = format!("thinker ({} escalation)", threads.join(", "));
                    self.remember(&attribution, text)
                        .await
                        .map_err(EffectError::Remember)
                }
                Effect::Settled(_) => Ok(()),
            };
            match result {
                Ok(()) => {
                    for &i in records {
                        plan::send_succeeded(&mut state.escalation_history[i]);
                    }
                }
                Err(EffectError::Notifier(e)) => {
                    let maybe = e.may_have_delivered();
                    let why = EffectError::Notifier(e).to_string();
                    let mut gave_up = false;
                    for &i in records {
                        let r = &mut state.escalation_history[i];
                        gave_up |= plan::send_failed(r, &why, maybe, self.run, self.config);
                    }
                    log_failed_send(state, records, effect, &why, gave_up);
                    work.errors.push(why);
                }
                Err(e) => {
                    // The records and the journal keep what it said.
                    let why = e.to_string();
                    for &i in records {
                        let r = &mut state.escalation_history[i];
                        r.delivery = None;
                        r.outcome = EscalationOutcome::Failed(plan::excerpt(&why));
                    }
                    tracing::warn!("escalation effect failed: {why}");
                    work.errors.push(why);
                }
            }
        }
        Ok(())
    }

    async fn remember(&self, attribution: &str, text: &str) -> Result<(), RememberError> {
        let Some(dir) = self.config.memory_dir.clone() else {
            return Err(RememberError::NoMemoryDir);
        };
        let (clock, attribution, text) = (self.clock, attribution.to_string(), text.to_string());
        tokio::task::spawn_blocking(move || note::append_note(&dir, &clock, &attribution, &text))
            .await
            .map_err(RememberError::TaskFailed)??;
        Ok(())
    }
}

/// One log line for a failed send: `info` while it is tried again (the journal has
/// it), a warning once it is given up — with the message's id and the way out.
fn log_failed_send(state: &State, records: &[usize], effect: &Effect, why: &str, gave_up: bool) {
    let what = if matches!(effect, Effect::Nudge { .. }) {
        "the nudge about a message held for your confirmation"
    } else {
        "a message"
    };
    if !gave_up {
        tracing::info!("{what} was not delivered, tried again on a later tick: {why}");
        return;
    }
    let id = records
        .first()
        .map(|&i| held::id_of(&state.escalation_history[i]))
        .unwrap_or_default();
    tracing::warn!(
        "thinker could not deliver {what} ({why}); it is not sent again: fix the notifier (`thinker notify --test` tries it), then `thinker release {id}` sends it, or `thinker discard {id}` drops it (`thinker held` lists what waits)"
    );
}

/// Why an effect of an escalation did not happen; its message is the records' `failed`
/// outcome and the journal's error.
#[derive(Debug, thiserror::Error)]
enum EffectError {
    /// The notifier did not deliver the message.
    #[error("notifier: {0}")]
    Notifier(#[source] notify::NotifyError),
    #[error(transparent)]
    Remember(RememberError),
}

/// Why a `remember` decision wrote no note.
#[derive(Debug, thiserror::Error)]
enum RememberError {
    /// `memory_dir` is not set in `[escalation]`.
    #[error("remember: no memory directory is configured")]
    NoMemoryDir,
    /// The note's write panicked or was cancelled on the blocking pool (a bug in thinker).
    #[error("remember: the note was not written: {0}")]
    TaskFailed(#[source] tokio::task::JoinError),
    /// The note was refused or could not be written (the note says which file, and why).
    #[error("remember: {0}")]
    Note(#[from] note::NoteError),
}

/// The threads and reasons of the records `indices`, in order, threads without repeats.
fn who_and_why(state: &State, indices: &[usize]) -> (Vec<String>, Vec<String>) {
    let mut threads: Vec<String> = Vec::new();
    let mut reasons = Vec::new();
    for &i in indices {
        let r = &state.escalation_history[i];
        if !threads.contains(&r.thread) {
            threads.push(r.thread.clone());
        }
        reasons.push(r.reason.clone());
    }
    (threads, reasons)
}

/// Held notifications and proposals released now: one delivery per distinct decision
/// (the records one call decided together are delivered together, once).
fn released(
    state: &State,
    release: &[usize],
    config: &EscalationConfig,
) -> Vec<(Vec<usize>, Effect)> {
    let mut groups: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    for &i in release {
        if let Some(d) = &state.escalation_history[i].decision {
            groups
                .entry((d.action.clone(), d.text.clone()))
                .or_default()
                .push(i);
        }
    }
    let mut effects: Vec<(Vec<usize>, Effect)> = groups
        .into_values()
        .filter_map(|records| {
            let decision = state.escalation_history[records[0]].decision.clone()?;
            let (threads, reasons) = who_and_why(state, &records);
            let threads: Vec<&str> = threads.iter().map(String::as_str).collect();
            let reasons: Vec<&str> = reasons.iter().map(String::as_str).collect();
            Some((
                records,
                plan::effect(&decision, &threads, &reasons, false, config),
            ))
        })
        .collect();
    effects.sort_by_key(|(records, _)| records[0]);
    effects
}

/// The findings behind the records raised this tick: those of their threads' answers.
fn findings_behind<'a>(
    escalations: &[EscalationRecord],
    outcomes: &'a [ThreadOutcome; 4],
    clock: Clock,
) -> Vec<(ThreadName, &'a Finding)> {
    let mut findings = Vec::new();
    for thread in ThreadName::ALL {
        let raised_now = escalations
            .iter()
            .any(|r| r.thread == thread.as_str() && r.timestamp == clock.now);
        if let (true, Some(answer)) = (raised_now, outcomes[thread.index()].answer()) {
            findings.extend(answer.findings.iter().map(|f| (thread, f)));
        }
    }
    findings
}
