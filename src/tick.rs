//! `thinker tick` (SPEC §4): the one place where I/O, concurrency and time meet.
//!
//! Lock (and tidy the directory), load, schedule, build each thread's input (gather and
//! assemble: [`crate::input`], the path `thinker prompt` shares), call the four threads
//! concurrently (each with its timeout, the whole tick with a deadline), aggregate, then
//! update the ledger, stage the state, archive, append the journal, commit the state
//! (spending and journal before the state: crash windows in ARCHITECTURE.md), and release
//! the lock. A dry run does the same up to the aggregation and writes nothing at all.

use std::path::Path;
use std::time::Instant;

use futures::future::join_all;
use serde::Serialize;

use crate::aggregate::{self, Report, ThreadResult};
use crate::answer::{self, Answer};
use crate::budget::{self, Budget, LEDGER_FILE, Ledger, Skip};
use crate::clock::Clock;
use crate::config::{Config, ThreadConfig};
use crate::error::{EXIT_FAILED, EXIT_OK, EXIT_PARTIAL, Error};
use crate::input::InputContext;
use crate::journal::{AggregateRecord, AttemptRecord, JournalLine, Status, ThreadRecord, millis};
use crate::prompt::{Prompts, temperature};
use crate::provider::{CallError, CallRequest, Progress, Providers};
use crate::runtime;
use crate::state::State;
use crate::storage::{ARCHIVE_FILE, Aftermath, JOURNAL_FILE, StateDir, StorageError};
use crate::thread::ThreadName;

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
}

impl TickReport {
    pub fn exit_code(&self) -> u8 {
        self.journal.exit_code
    }
}

/// One thread's part of the tick.
struct ThreadRun {
    result: ThreadResult,
    record: ThreadRecord,
}

fn exit_code(threads: &[ThreadRecord]) -> u8 {
    let answered = threads.iter().any(|t| t.status == Status::Answered);
    let failed = threads.iter().any(|t| t.status == Status::Failed);
    match (answered, failed) {
        (false, true) => EXIT_FAILED,
        (true, true) => EXIT_PARTIAL,
        _ => EXIT_OK,
    }
}

fn load_ledger(dir: &StateDir) -> Result<Ledger, Error> {
    // A FIFO or device in its place would hang the read (a dry run takes no lock, which
    // refuses it first).
    dir.refuse_link(LEDGER_FILE)?;
    let path = dir.file(LEDGER_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| Error::Ledger {
            path,
            message: e.to_string(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Ledger::default()),
        Err(source) => Err(StorageError::Read { path, source }.into()),
    }
}

fn write_ledger(dir: &StateDir, ledger: &Ledger) -> Result<(), Error> {
    let bytes = serde_json::to_vec_pretty(ledger).map_err(|source| Error::Serialize {
        what: "the ledger",
        source,
    })?;
    Ok(dir.write_file(LEDGER_FILE, &bytes)?)
}

/// Runs one tick.
pub fn run(config: &Config, state_dir: &Path, options: &TickOptions) -> Result<TickReport, Error> {
    runtime::block_on(tick(config, state_dir, options))?
}

#[expect(
    clippy::too_many_lines,
    reason = "split into phases by the tick-phases change"
)]
async fn tick(
    config: &Config,
    state_dir: &Path,
    options: &TickOptions,
) -> Result<TickReport, Error> {
    let started = Instant::now();
    let deadline = started + config.tick_deadline;
    let clock = options.clock;
    let now = clock.now;
    // A dry run creates nothing, not even the directory or the lock file.
    let (dir, _lock) = if options.dry_run {
        (StateDir::at(state_dir), None)
    } else {
        let dir = StateDir::create(state_dir)?;
        let lock = dir.lock()?;
        dir.tidy(&lock).log();
        (dir, Some(lock))
    };
    let state = dir.load()?;
    // What the threads are shown: at most the caps (the aggregation cuts to them first).
    let seen = aggregate::as_seen(&state, now, &config.memory);
    let ledger = load_ledger(&dir)?.for_day(budget::local_day(&clock));
    let run = ledger.next_run();
    let budget = Budget::new(config, &ledger);
    // Spending is written ahead of each call, so a kill mid-call never loses it.
    let budget = if options.dry_run {
        budget
    } else {
        let (dir, ledger) = (dir.clone(), ledger.clone());
        budget.with_write_ahead(Box::new(move |spent| {
            let ahead = Ledger {
                runs: run,
                spent: spent.clone(),
                ..ledger.clone()
            };
            write_ledger(&dir, &ahead).map_err(|e| e.to_string())
        }))
    };
    let providers = Providers::new(config.providers.clone()).map_err(Error::Providers)?;
    let prompts = Prompts::new(config.prompts_dir.as_deref());
    let inputs = InputContext {
        seen: &seen,
        state_dir: dir.path(),
        prompts: &prompts,
        clock,
    };

    let runs = ThreadName::ALL.map(|thread| {
        let cfg = config.thread(thread);
        let scheduled = budget::schedule(cfg, run, &clock).and_then(|()| cfg.ok_or(Skip::Disabled));
        let (inputs, providers, budget, state) = (&inputs, &providers, &budget, &*seen);
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
                    };
                    job.run(deadline).await
                }
                Err(skip) => {
                    tracing::info!(thread = %thread, "skipped: {skip}");
                    ThreadRun {
                        result: ThreadResult::Skipped,
                        record: ThreadRecord::skipped(thread, skip),
                    }
                }
            }
        }
    });
    let done: Vec<ThreadRun> = join_all(runs).await;
    let mut results: [ThreadResult; 4] = std::array::from_fn(|_| ThreadResult::Skipped);
    let mut records = Vec::with_capacity(4);
    for (i, r) in done.into_iter().enumerate() {
        results[i] = r.result;
        records.push(r.record);
    }

    let (next, report) = aggregate::aggregate(&state, &results, now, &config.memory);
    let warnings: Vec<String> = report.memory.warning().into_iter().collect();
    for warning in &warnings {
        tracing::warn!("{warning}");
    }
    let code = exit_code(&records);
    let journal = JournalLine {
        time: now,
        duration_ms: millis(started.elapsed()),
        run,
        tick_count: next.tick_count,
        exit_code: code,
        tokens_in: budget::sum_tokens(records.iter().map(|r| r.tokens_in)),
        tokens_out: budget::sum_tokens(records.iter().map(|r| r.tokens_out)),
        cost: budget::sum_cost(records.iter().map(|r| r.cost)),
        threads: records,
        aggregate: AggregateRecord::from(&report),
        escalations: report.escalations.clone(),
        warnings,
    };

    if !options.dry_run {
        // Spending first, the state last (crash windows in ARCHITECTURE.md): a kill or
        // a failed write never leaves an applied tick without its ledger spending and
        // journal line. Archive before the state: an entry is never forgotten untraced.
        let ledger = Ledger {
            runs: run,
            spent: budget.spent(),
            ..ledger
        };
        write_ledger(&dir, &ledger)?;
        let recorded = |e: StorageError| e.after(Aftermath::SpendingRecorded);
        let staged = if report.applied {
            let staged = dir.stage(&next).map_err(recorded)?;
            dir.append_lines(ARCHIVE_FILE, &report.removed)
                .map_err(recorded)?;
            Some(staged)
        } else {
            None
        };
        dir.append_lines(JOURNAL_FILE, std::slice::from_ref(&journal))
            .map_err(recorded)?;
        if let Some(staged) = staged {
            dir.commit_staged(staged)
                .map_err(|e| e.after(Aftermath::Journaled))?;
        }
    }
    Ok(TickReport {
        journal,
        dry_run: options.dry_run,
        report,
    })
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
}

impl ThreadJob<'_> {
    async fn run(self, deadline: Instant) -> ThreadRun {
        let thread = self.thread;
        let started = Instant::now();
        let limit = self
            .cfg
            .timeout
            .min(deadline.saturating_duration_since(started));
        // Failed until the work says otherwise (a timeout drops it half-way).
        let mut record = ThreadRecord::new(thread, Status::Failed);
        // What the provider call is waiting for, to say so if the time runs out there.
        let progress = Progress::default();
        let outcome = tokio::time::timeout(limit, self.work(&mut record, &progress)).await;
        let result = match outcome {
            Ok(Ok(answer)) => {
                record.status = Status::Answered;
                record.findings = answer.findings.len();
                record.reinforce = answer.reinforce.len();
                ThreadResult::Answered(answer)
            }
            Ok(Err(Failure::Skipped(skip))) => {
                record.status = Status::Skipped;
                record.skip = Some(skip);
                ThreadResult::Skipped
            }
            Ok(Err(Failure::Failed(error))) => {
                record.error = Some(error);
                ThreadResult::Failed
            }
            Err(_) => {
                let mut error = format!(
                    "timed out after {:.1} s (the thread's timeout_seconds, or the tick's deadline_seconds)",
                    limit.as_secs_f64()
                );
                if let Some(waiting) = progress.describe() {
                    error = format!("{error}; it {waiting}");
                }
                record.error = Some(error);
                ThreadResult::Failed
            }
        };
        record.latency_ms = millis(started.elapsed());
        match (&record.status, &record.error) {
            (Status::Failed, Some(e)) => tracing::warn!(thread = %thread, "failed: {e}"),
            (Status::Answered, _) => tracing::info!(
                thread = %thread,
                "answered: {} findings, {} reinforced, {} ms",
                record.findings,
                record.reinforce,
                record.latency_ms
            ),
            _ => {}
        }
        ThreadRun { result, record }
    }

    async fn work(
        &self,
        record: &mut ThreadRecord,
        progress: &Progress,
    ) -> Result<Answer, Failure> {
        let thread = self.thread;
        let input = self.inputs.thread_input(thread, &self.cfg.sources).await;
        record.sources = input.sources;
        let prompt = input.prompt.map_err(|e| Failure::Failed(e.to_string()))?;
        let pressure = self.state.thread_state.get(thread).novelty_pressure;
        let request = CallRequest {
            system: String::new(),
            prompt,
            schema: answer::schema(thread),
            schema_name: "thread_answer".into(),
            max_tokens: self.cfg.max_tokens,
            temperature: temperature(self.cfg.temperature, pressure),
            sequence: self.run,
        };
        // Named before the call, so a thread that times out still says what it asked.
        if let Some(first) = self.cfg.models.first() {
            record.provider = Some(first.provider.clone());
            record.model = Some(first.model.clone());
        }
        let outcome = self
            .providers
            .call_chain_with(
                &self.cfg.models,
                &request,
                self.budget,
                progress,
                move |c| answer::parse(thread, &c.text).map_err(|e| e.to_string()),
            )
            .await;
        record.attempts = outcome.attempts.iter().map(AttemptRecord::from).collect();
        record.tokens_in = budget::sum_tokens(outcome.attempts.iter().map(|a| a.tokens_in));
        record.tokens_out = budget::sum_tokens(outcome.attempts.iter().map(|a| a.tokens_out));
        record.cost = budget::sum_cost(outcome.attempts.iter().map(|a| a.cost));
        if let Some(last) = outcome.attempts.iter().rev().find(|a| !a.skipped) {
            record.provider = Some(last.model.provider.clone());
            record.model = Some(last.model.model.clone());
        }
        match outcome.result {
            Ok((answer, completion)) => {
                record.provider = Some(completion.model.provider.clone());
                record.model = Some(completion.model.model.clone());
                Ok(answer)
            }
            Err(e @ CallError::OverBudget { .. }) if outcome.attempts.iter().all(|a| a.skipped) => {
                Err(Failure::Skipped(Skip::Budget {
                    detail: e.to_string(),
                }))
            }
            Err(e) => Err(Failure::Failed(e.to_string())),
        }
    }
}

enum Failure {
    Skipped(Skip),
    Failed(String),
}
