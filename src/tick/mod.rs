//! `thinker tick` (SPEC §4): the one place where I/O, concurrency and time meet.
//!
//! The tick runs in phases, each a function with a typed result: `Opened` (lock and tidy
//! the directory, load the state and today's ledger), `Threads` (schedule, build each
//! thread's input with [`crate::input`], the path `thinker prompt` shares, call the four
//! threads concurrently, each with its timeout, the whole tick with a deadline; each ends
//! in a [`ThreadOutcome`]), `Aggregated` (the pure aggregator), the journal line (built
//! last, from the outcomes and what each thread did on the way), then the writes: ledger,
//! stage the state, archive, journal, commit the state (spending and journal before the
//! state: crash windows in ARCHITECTURE.md); the lock is released when the tick ends. A
//! dry run does the same up to the journal line and writes nothing at all.
//!
//! Must not: decide what the memory becomes (`aggregate`), or touch a file of the state
//! directory except through `storage`.

mod escalate;
mod ground;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use serde::Serialize;

use crate::aggregate::Skip;
use crate::aggregate::{self, Report, Status, ThreadError, ThreadOutcome};
use crate::answer;
use crate::budget::{self, Budget};
use crate::clock::Clock;
use crate::config::{Config, ThreadConfig};
use crate::error::{EXIT_FAILED, EXIT_OK, EXIT_PARTIAL, Error};
use crate::escalation::outbound::{Seen, SourceSites};
use crate::input::{InputContext, thread_request};
use crate::journal::{
    AggregateRecord, AttemptRecord, EscalationLine, JournalLine, ThreadRecord, ThreadTrace,
};
use crate::ledger::{self, Ledger, QuietMemory};
use crate::privacy::policy::Policy;
use crate::prompt::Prompts;
use crate::provider::breaker::Breakers;
use crate::provider::{CallError, Progress, Providers};
use crate::quiet::{self, QuietSettings};
use crate::runtime;
use crate::state::State;
use crate::storage::{
    ARCHIVE_FILE, Aftermath, JOURNAL_FILE, Lock, StateDir, StorageError, TakenFeedback,
};
use crate::thread::ThreadName;
use crate::untrusted::guard::{self, OnAnswer};
use crate::untrusted::redact::RedactionKey;
use std::collections::BTreeMap;

/// How the tick is run.
#[derive(Clone, Debug)]
pub struct TickOptions {
    pub dry_run: bool,
    /// The tick's instant and the zone its day and quiet hours are read in.
    pub clock: Clock,
}

/// Everything a tick did: the journal line, plus the full aggregator report.
#[derive(Debug, Serialize)]
pub struct TickReport {
    #[serde(flatten)]
    pub journal: JournalLine,
    pub dry_run: bool,
    pub report: Report,
    /// The escalation phase's journal line, when it had work (SPEC §8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub escalation: Option<EscalationLine>,
    /// A dry run: the prompt the primary model would be sent (nothing is called).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub escalation_prompt: Option<String>,
}

impl TickReport {
    /// The threads' exit code (SPEC §1), or 3 when this tick gave up a message to the
    /// user (its tries used up, or one may have half-delivered): a lost message must
    /// reach the log of a cron line that records only failures.
    pub fn exit_code(&self) -> u8 {
        let lost = self
            .escalation
            .as_ref()
            .is_some_and(|e| crate::escalation::plan::gave_up(&e.escalation.records));
        if lost && self.journal.exit_code == EXIT_OK {
            EXIT_PARTIAL
        } else {
            self.journal.exit_code
        }
    }
}

fn exit_code(outcomes: &[ThreadOutcome; 4]) -> u8 {
    let answered = outcomes.iter().any(|o| o.status() == Status::Answered);
    let failed = outcomes.iter().any(|o| o.status() == Status::Failed);
    match (answered, failed) {
        (false, true) => EXIT_FAILED,
        (true, true) => EXIT_PARTIAL,
        _ => EXIT_OK,
    }
}

/// Runs one tick.
pub fn run(config: &Config, state_dir: &Path, options: &TickOptions) -> Result<TickReport, Error> {
    runtime::block_on(tick(config, state_dir, options))?
}

/// The phases, in order: open (lock, load), run the threads, aggregate, build the
/// journal line, write (not in a dry run), report.
async fn tick(
    config: &Config,
    state_dir: &Path,
    options: &TickOptions,
) -> Result<TickReport, Error> {
    let started = Instant::now();
    // The screen's rules compile once (15–20 ms): off the runtime thread, meanwhile.
    let _warm = tokio::task::spawn_blocking(crate::untrusted::screen::warm);
    let opened = Opened::open(config, state_dir, options)?;
    // What may leave the machine (SPEC §9): the policy, the state's key for stable
    // placeholders and the names learned from mail headers (keyed).
    let privacy = Policy::new(config);
    let providers = Providers::new(config.providers.clone())
        .map_err(Error::Providers)?
        .with_privacy(config.privacy.private_to, &opened.redaction_key()?)
        .with_names(opened.dir.known_names()?);
    let breakers = Breakers::new(
        &opened.ledger.breakers,
        providers.fingerprints(),
        options.clock.now,
    );
    let budget = opened
        .budget(config, options.dry_run)
        .with_breakers(breakers);
    let prompts = Prompts::new(config.prompts_dir.as_deref());
    // Boxed: the four threads' futures are large, and live only this long.
    let mut threads = Box::pin(run_threads(
        config,
        &opened,
        &budget,
        &providers,
        (&prompts, &privacy),
        options.clock,
        started + config.tick_deadline,
    ))
    .await?;
    let aggregated = Aggregated::of(&opened, &threads.outcomes, options.clock, config);
    // The ledger as this run leaves it, before spending: its run, what the threads saw.
    let ledger = Ledger {
        runs: opened.run,
        quiet: std::mem::take(&mut threads.quiet),
        cadence: std::mem::take(&mut threads.cadence),
        state: Some(aggregated.digest.clone()),
        ..opened.ledger.clone()
    };
    let (screened, links) = (threads.screened, std::mem::take(&mut threads.links));
    let (journal, outcomes) = journal_line(&opened, threads, &aggregated, options.clock, started);
    let phase = escalate::Escalation {
        config: &config.escalation,
        dir: &opened.dir,
        budget: &budget,
        providers: &providers,
        prompts: &prompts,
        privacy: &privacy,
        clock: options.clock,
        run: opened.run,
        ledger: &ledger,
        calls_today: &opened.calls_today,
        screened,
        links: &links,
        memory: &config.memory,
    };
    // The state as the tick leaves it: the escalation phase starts from it.
    let committed = if aggregated.report.applied {
        &aggregated.next
    } else {
        &opened.state
    };
    let (escalation, escalation_prompt) = if options.dry_run {
        (None, dry_run_prompt(&phase, committed, &outcomes))
    } else {
        write(&opened, &ledger, &budget, &aggregated, &journal)?;
        opened.keep_names(&providers, committed);
        (phase.settle(committed.clone(), &outcomes).await?, None)
    };
    Ok(TickReport {
        journal,
        dry_run: options.dry_run,
        report: aggregated.report,
        escalation,
        escalation_prompt,
    })
}

/// A dry run calls nothing: it shows the prompt the primary model would be sent (none
/// without a primary model: the real tick would record the escalation as failed).
fn dry_run_prompt(
    phase: &escalate::Escalation<'_>,
    state: &State,
    outcomes: &[ThreadOutcome; 4],
) -> Option<String> {
    let plan = phase.plan(state, outcomes);
    if plan.decide.is_empty() || phase.config.models.is_empty() {
        return None;
    }
    Some(
        phase
            .prompt(state, &plan.decide, outcomes)
            .unwrap_or_else(|e| format!("(the escalation prompt does not render: {e})")),
    )
}

/// Phase 1: the state directory opened (created and locked, unless a dry run), the state
/// and today's ledger loaded.
struct Opened {
    dir: StateDir,
    /// Held until the tick ends; `None` in a dry run, which creates nothing, not even the
    /// directory or the lock file.
    lock: Option<Lock>,
    state: State,
    /// The ledger as it stands today (yesterday's spending forgotten).
    ledger: Ledger,
    /// This tick's run number (`every = N` counts these).
    run: u64,
    /// Calls to the primary model today, shared by the budget's write-ahead and the
    /// escalation phase (which counts its call before making it).
    calls_today: Arc<AtomicU32>,
    /// The agent's verdicts, taken from `feedback.jsonl` under the lock (peeked at in a
    /// dry run), removed once an applying tick's state is committed.
    feedback: TakenFeedback,
}

impl Opened {
    fn open(config: &Config, state_dir: &Path, options: &TickOptions) -> Result<Opened, Error> {
        let (dir, lock) = if options.dry_run {
            (StateDir::at(state_dir), None)
        } else {
            let dir = StateDir::create(state_dir)?.with_journal_rotation(config.journal_rotation);
            let lock = dir.lock()?;
            dir.tidy(&lock).log();
            (dir, Some(lock))
        };
        let state = dir.load()?;
        if lock.is_some() {
            // What the tick will write: the state's temp file, its journal line (which
            // may carry the state whole), the archive's lines.
            let state_bytes =
                std::fs::metadata(dir.file(crate::storage::STATE_FILE)).map_or(0, |m| m.len());
            dir.preflight(
                state_bytes
                    .saturating_mul(2)
                    .saturating_add(16 << 10)
                    .min(16 << 20),
            )?;
        }
        // The day is counted in the zone the ledger recorded (or `[budget] timezone`),
        // not in whatever zone this process runs in.
        let ledger = dir.load_ledger()?.today(config.timezone, &options.clock);
        let run = ledger.next_run();
        let feedback = match &lock {
            Some(lock) => dir.take_feedback(lock, run),
            None => dir.peek_feedback(),
        };
        let calls_today = Arc::new(AtomicU32::new(ledger.escalations));
        Ok(Opened {
            dir,
            lock,
            state,
            ledger,
            run,
            calls_today,
            feedback,
        })
    }

    /// The state's redaction key: created under the lock on the first tick; a dry run,
    /// which writes nothing, uses the existing one or one of its own.
    fn redaction_key(&self) -> Result<RedactionKey, Error> {
        if let Some(lock) = &self.lock {
            return Ok(self.dir.redaction_key_or_create(lock)?);
        }
        Ok(self
            .dir
            .redaction_key()?
            .or_else(RedactionKey::random)
            .unwrap_or(RedactionKey::from_bytes([0; 32])))
    }

    /// Keeps the names learned from mail headers (keyed) for as long as the memory or
    /// the archive mentions them (SPEC §9): a name whose mail has left the inbox is still
    /// replaced in what the memory says of it. After the commit, so a failure to write
    /// them is a warning: the next tick learns again what its mail gives.
    fn keep_names(&self, providers: &Providers, state: &State) {
        let Some(lock) = &self.lock else {
            return;
        };
        // Read only when some names are known.
        let memory = std::iter::once_with(|| state.to_json().unwrap_or_default()).chain(
            std::iter::once_with(|| crate::recollect::archive_summaries(&self.dir)).flatten(),
        );
        if let Some(names) = providers.names_to_keep(memory)
            && let Err(e) = self.dir.write_names(lock, &names)
        {
            tracing::warn!("{e}");
        }
    }

    /// Today's budget. Outside a dry run, spending is written ahead of each call, so a
    /// kill mid-call never loses it.
    fn budget(&self, config: &Config, dry_run: bool) -> Budget {
        let budget = Budget::new(config, &self.ledger);
        if dry_run {
            return budget;
        }
        let (dir, ledger, run) = (self.dir.clone(), self.ledger.clone(), self.run);
        let calls = Arc::clone(&self.calls_today);
        budget.with_write_ahead(Box::new(move |spent| {
            let ahead = Ledger {
                runs: run,
                spent: spent.clone(),
                escalations: calls.load(Ordering::SeqCst),
                ..ledger.clone()
            };
            dir.write_ledger_ahead(&ahead)
        }))
    }
}

/// Phase 2: what each thread did, in thread order.
struct Threads {
    outcomes: [ThreadOutcome; 4],
    records: Vec<ThreadRecord>,
    /// What each thread saw, for the quiet tick's memory in the ledger.
    quiet: BTreeMap<String, QuietMemory>,
    /// The run in which each thread last spent its cadence, for the ledger.
    cadence: BTreeMap<String, u64>,
    /// Per thread: its sources carried a screen detection this tick.
    screened: [bool; 4],
    /// The sites the sources showed, for the check of what leaves.
    links: Seen,
}

/// Schedules the four threads and runs those due concurrently, each with its timeout,
/// all within the tick's `deadline`.
async fn run_threads(
    config: &Config,
    opened: &Opened,
    budget: &Budget,
    providers: &Providers,
    (prompts, privacy): (&Prompts, &Policy),
    clock: Clock,
    deadline: Instant,
) -> Result<Threads, Error> {
    // What the threads are shown: at most the caps (the aggregation cuts to them first).
    let seen = aggregate::as_seen(&opened.state, clock.now, &config.memory);
    let calendars = crate::input::calendars(config);
    let inputs = InputContext {
        seen: &seen,
        state_dir: opened.dir.path(),
        prompts,
        clock,
        max_input_bytes: crate::input::thread_share(config),
        privacy,
        calendars: Some(&calendars),
    };
    let run = opened.run;
    let runs = ThreadName::ALL.map(|thread| {
        let cfg = config.thread(thread);
        let spent = opened.ledger.cadence.get(thread.as_str()).copied();
        let scheduled =
            budget::schedule(cfg, run, spent, &clock).and_then(|()| cfg.ok_or(Skip::Disabled));
        let (inputs, state) = (&inputs, &*seen);
        async move {
            match scheduled {
                Ok(cfg) => {
                    let job = ThreadJob {
                        thread,
                        cfg,
                        state,
                        inputs,
                        providers,
                        budget,
                        run,
                        last: opened.ledger.quiet.get(thread.as_str()),
                        quiet: config.quiet,
                        on_answer: config.on_answer,
                    };
                    job.run(deadline).await
                }
                Err(skip) => {
                    tracing::info!(thread = %thread, "skipped: {skip}");
                    let outcome = ThreadOutcome::Skipped(skip);
                    let record = ThreadRecord::of(thread, &outcome, ThreadTrace::default());
                    (outcome, record, None, Vec::new())
                }
            }
        }
    });
    let [watcher, librarian, oracle, dreamer] = runs;
    let ((o0, r0, f0, l0), (o1, r1, f1, l1), (o2, r2, f2, l2), (o3, r3, f3, l3)) =
        tokio::join!(watcher, librarian, oracle, dreamer);
    let (outcomes, records) = ([o0, o1, o2, o3], vec![r0, r1, r2, r3]);
    let screened = ThreadName::ALL.map(|t| {
        records[t.index()]
            .sources
            .iter()
            .any(|s| !s.detections.is_empty())
    });
    let links = Seen::of([l0, l1, l2, l3].iter().flatten());
    let fingerprints = [f0, f1, f2, f3];
    let mut quiet = opened.ledger.quiet.clone();
    let mut cadence = opened.ledger.cadence.clone();
    for thread in ThreadName::ALL {
        let i = thread.index();
        let last = cadence.get(thread.as_str()).copied();
        if let Some(spent) = budget::spent_cadence(last, run, &outcomes[i]) {
            cadence.insert(thread.as_str().to_string(), spent);
        }
        let kept = quiet::remember(
            opened.ledger.quiet.get(thread.as_str()),
            fingerprints[i].as_deref(),
            &outcomes[i],
        );
        match kept {
            Some(memory) => quiet.insert(thread.as_str().to_string(), memory),
            None => quiet.remove(thread.as_str()),
        };
    }
    Ok(Threads {
        outcomes,
        records,
        quiet,
        cadence,
        screened,
        links,
    })
}

/// Phase 3: the new state and what the aggregator did (its removals are bookkeeping,
/// journaled, never a warning: SPEC §7.5).
struct Aggregated {
    next: State,
    report: Report,
    /// The digest of the state the tick started from, and of the one it leaves.
    loaded: String,
    digest: String,
}

impl Aggregated {
    fn of(
        opened: &Opened,
        outcomes: &[ThreadOutcome; 4],
        clock: Clock,
        config: &Config,
    ) -> Aggregated {
        let verdicts = &opened.feedback.verdicts;
        let (next, report) =
            aggregate::aggregate(&opened.state, outcomes, verdicts, clock.now, &config.memory);
        let loaded = opened.state.digest();
        let digest = if report.applied {
            next.digest()
        } else {
            loaded.clone()
        };
        Aggregated {
            next,
            report,
            loaded,
            digest,
        }
    }
}

/// Phase 4: the journal line, built once everything it records has happened; the
/// outcomes are handed back for the escalation phase.
fn journal_line(
    opened: &Opened,
    threads: Threads,
    aggregated: &Aggregated,
    clock: Clock,
    started: Instant,
) -> (JournalLine, [ThreadOutcome; 4]) {
    let Threads {
        outcomes, records, ..
    } = threads;
    let report = &aggregated.report;
    let line = JournalLine {
        time: clock.now,
        duration_ms: crate::timestamp::millis(started.elapsed()),
        run: opened.run,
        tick_count: aggregated.next.tick_count,
        exit_code: exit_code(&outcomes),
        tokens_in: ledger::sum_tokens(records.iter().map(|r| r.tokens_in)),
        tokens_out: ledger::sum_tokens(records.iter().map(|r| r.tokens_out)),
        cost: ledger::sum_cost(records.iter().map(|r| r.cost)),
        threads: records,
        aggregate: AggregateRecord::from(report),
        escalations: report.escalations.clone(),
        rules: aggregate::RULES,
        verdicts: opened.feedback.verdicts.clone(),
        state: Some(aggregated.digest.clone()),
        // Not the state thinker last wrote: journaled whole, where a replay can start.
        base: (opened.ledger.state.as_deref() != Some(aggregated.loaded.as_str()))
            .then(|| Box::new(opened.state.clone())),
    };
    (line, outcomes)
}

/// Phase 5: spending first, the state last (crash windows in ARCHITECTURE.md): a kill or
/// a failed write never leaves an applied tick without its ledger spending and journal
/// line. Archive before the state: an entry is never forgotten untraced.
fn write(
    opened: &Opened,
    ledger: &Ledger,
    budget: &Budget,
    aggregated: &Aggregated,
    journal: &JournalLine,
) -> Result<(), Error> {
    let dir = &opened.dir;
    dir.write_ledger(&Ledger {
        spent: budget.spent(),
        breakers: budget.breaker_states(),
        ..ledger.clone()
    })?;
    let recorded = |e: StorageError| e.after(Aftermath::SpendingRecorded);
    let staged = if aggregated.report.applied {
        let staged = dir.stage(&aggregated.next).map_err(recorded)?;
        dir.append_lines(ARCHIVE_FILE, &aggregated.report.removed)
            .map_err(recorded)?;
        Some(staged)
    } else {
        None
    };
    dir.append_lines(JOURNAL_FILE, std::slice::from_ref(journal))
        .map_err(recorded)?;
    if let Some(staged) = staged {
        dir.commit_staged(staged)
            .map_err(|e| e.after(Aftermath::Journaled))?;
        // Applied and committed: the verdicts are spent (a crash before this applies
        // them once more, which is harmless: ARCHITECTURE.md).
        dir.clear_feedback(&opened.feedback);
    }
    Ok(())
}

/// One thread's work: its input (gather, assemble: [`InputContext::thread_input`]),
/// call, read.
struct ThreadJob<'a> {
    thread: ThreadName,
    cfg: &'a ThreadConfig,
    state: &'a State,
    inputs: &'a InputContext<'a>,
    providers: &'a Providers,
    budget: &'a Budget,
    run: u64,
    /// What it saw when last called (the quiet tick).
    last: Option<&'a QuietMemory>,
    quiet: QuietSettings,
    /// What the guard does to a finding carrying an injection.
    on_answer: OnAnswer,
}

impl ThreadJob<'_> {
    async fn run(
        self,
        deadline: Instant,
    ) -> (
        ThreadOutcome,
        ThreadRecord,
        Option<String>,
        Vec<SourceSites>,
    ) {
        let thread = self.thread;
        let started = Instant::now();
        let limit = self
            .cfg
            .timeout
            .min(deadline.saturating_duration_since(started));
        // Filled as the work goes: a timeout drops the work half-way, not the trace.
        let mut trace = ThreadTrace::default();
        // What the provider call is waiting for, to say so if the time runs out there.
        let progress = Progress::default();
        let outcome = tokio::time::timeout(limit, self.work(&mut trace, &progress))
            .await
            .unwrap_or_else(|_| {
                ThreadOutcome::Failed(ThreadError::TimedOut {
                    seconds: limit.as_secs_f64(),
                    waiting: progress.describe(),
                })
            });
        trace.latency_ms = crate::timestamp::millis(started.elapsed());
        let fingerprint = trace.fingerprint.take();
        let links = std::mem::take(&mut trace.links);
        let record = ThreadRecord::of(thread, &outcome, trace);
        match &outcome {
            ThreadOutcome::Failed(e) => tracing::warn!(thread = %thread, "failed: {e}"),
            ThreadOutcome::Answered(_) => tracing::info!(
                thread = %thread,
                "answered: {} findings, {} reinforced, {} ms",
                record.findings,
                record.reinforce,
                record.latency_ms
            ),
            ThreadOutcome::Skipped(skip) => tracing::info!(thread = %thread, "skipped: {skip}"),
        }
        (outcome, record, fingerprint, links)
    }

    async fn work(&self, trace: &mut ThreadTrace, progress: &Progress) -> ThreadOutcome {
        let thread = self.thread;
        let mut input = self
            .inputs
            .thread_input(thread, &self.cfg.sources, self.cfg.max_tokens)
            .await;
        trace.sources = std::mem::take(&mut input.sources);
        trace.links = std::mem::take(&mut input.links);
        // The quiet tick: what it sees, and its config; unchanged → not called.
        let fingerprint = crate::untrusted::fence_id(&[&input.world, &format!("{:?}", self.cfg)]);
        trace.fingerprint = Some(fingerprint.clone());
        if let Err(skip) = quiet::decide(self.last, &fingerprint, self.quiet) {
            return ThreadOutcome::Skipped(skip);
        }
        let pressure = self.state.thread_state.get(thread).novelty_pressure;
        // What the call may send: the prompt, and its public copy for a model that may
        // not see private text (SPEC §9).
        let outgoing = input.outgoing(thread_request(thread, self.cfg, pressure, self.run));
        let outgoing = match outgoing {
            Ok(outgoing) => outgoing,
            Err(e) => return ThreadOutcome::Failed(ThreadError::Input(e.to_string())),
        };
        // Named before the call, so a thread that times out still says what it asked.
        if let Some(first) = self
            .providers
            .preferred(&self.cfg.models, &outgoing)
            .first()
        {
            trace.provider = Some(first.provider.clone());
            trace.model = Some(first.model.clone());
        }
        let outcome = self
            .providers
            .call_chain_out(
                &self.cfg.models,
                &outgoing,
                self.budget,
                progress,
                move |c| answer::parse(thread, &c.text),
            )
            .await;
        trace.attempts = outcome.attempts.iter().map(AttemptRecord::from).collect();
        trace.tokens_in = ledger::sum_tokens(outcome.attempts.iter().map(|a| a.tokens_in));
        trace.tokens_out = ledger::sum_tokens(outcome.attempts.iter().map(|a| a.tokens_out));
        trace.cost = ledger::sum_cost(outcome.attempts.iter().map(|a| a.cost));
        if let Some(last) = outcome.attempts.iter().rev().find(|a| !a.skipped) {
            trace.provider = Some(last.model.provider.clone());
            trace.model = Some(last.model.model.clone());
        }
        match outcome.result {
            Ok((mut answer, completion)) => {
                trace.provider = Some(completion.model.provider.clone());
                trace.model = Some(completion.model.model.clone());
                // The guard: nothing a model was steered into writing reaches
                // the subconscious verbatim, nor raises an escalation.
                trace.guard = guard::answer(&mut answer, self.inputs.clock.now, self.on_answer);
                if !trace.guard.is_empty() {
                    tracing::info!(thread = %thread, "the screen found {} suspicious span(s) in the answer", trace.guard.len());
                }
                // A finding cites only what its sources showed this tick (docs/spec.md
                // §5); one that cites nothing is grounded on the item its words come
                // from (§6); one that names no source is attributed to its first
                // reference's.
                ground::ground_findings(&mut answer.findings, &input.refs, self.inputs.clock.now);
                for f in &mut answer.findings {
                    if f.from.is_none()
                        && let Some(first) = f.refs.first()
                    {
                        f.from = input
                            .refs
                            .iter()
                            .find(|shown| shown.reference == *first)
                            .map(|shown| shown.source.clone());
                    }
                }
                // What the aggregator needs to know of this thread's tick (provenance,
                // taint, retire and due moves refused on screened text): journaled with
                // the answer, so a replay decides the same.
                answer.seen = answer::Seen {
                    sources: trace
                        .sources
                        .iter()
                        .filter(|s| s.error.is_none())
                        .map(|s| s.name.clone())
                        .collect(),
                    screened: trace.sources.iter().any(|s| !s.detections.is_empty()),
                };
                ThreadOutcome::Answered(answer)
            }
            Err(e @ CallError::OverBudget { .. }) if outcome.attempts.iter().all(|a| a.skipped) => {
                ThreadOutcome::Skipped(Skip::Budget {
                    detail: e.to_string(),
                })
            }
            Err(CallError::BreakerOpen { refusal, .. })
                if outcome.attempts.iter().all(|a| a.skipped) =>
            {
                ThreadOutcome::Skipped(Skip::Breaker {
                    detail: refusal.to_string(),
                })
            }
            Err(e) => ThreadOutcome::Failed(ThreadError::Call(chain_error(&outcome.attempts, &e))),
        }
    }
}

/// A failed chain's error, as the journal, `-v`, the dry run and cron's warning line say
/// it: every model tried, in order, each with its own error (`groq/llama: … GROQ_API_KEY
/// … is not set → ollama/llama3.2: cannot connect …`), so the first cause is not hidden
/// behind the last fallback's. One model: its error alone, as before.
fn chain_error(attempts: &[crate::provider::Attempt], last: &CallError) -> String {
    let failed: Vec<String> = attempts
        .iter()
        .filter_map(|a| Some(attempt_error(&a.model.to_string(), a.error.as_deref()?)))
        .collect();
    if failed.len() < 2 {
        return last.to_string();
    }
    failed.join(" → ")
}

/// One model's error named by its model (`provider/model`), unless the error names it
/// already (or names its provider: a missing key).
pub fn attempt_error(model: &str, error: &str) -> String {
    let provider = model.split('/').next().unwrap_or(model);
    if error.starts_with(model) || error.starts_with(&format!("provider `{provider}`")) {
        error.to_string()
    } else {
        format!("{model}: {error}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::Answer;

    #[test]
    fn the_exit_code_follows_the_outcomes() {
        let answered = || ThreadOutcome::Answered(Answer::default());
        let failed = || ThreadOutcome::Failed(ThreadError::Call("down".into()));
        let skipped = || ThreadOutcome::Skipped(Skip::Disabled);
        assert_eq!(
            exit_code(&[answered(), skipped(), answered(), skipped()]),
            EXIT_OK
        );
        assert_eq!(
            exit_code(&[answered(), failed(), skipped(), answered()]),
            EXIT_PARTIAL
        );
        assert_eq!(
            exit_code(&[failed(), skipped(), failed(), skipped()]),
            EXIT_FAILED
        );
        assert_eq!(
            exit_code(&[skipped(), skipped(), skipped(), skipped()]),
            EXIT_OK
        );
    }
}
