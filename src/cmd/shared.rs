//! What several commands share, so that no command imports another: times, durations
//! and costs for people, the one warning about unreadable journal lines, the replay's
//! settings and journal (replay, explain, report), and the egress summary read from the
//! journal (`stats --egress`, doctor). Commands import from here and from the library,
//! never from a sibling command. Must not hold a command's own output or logic.

use std::path::Path;

use chrono::{DateTime, NaiveDate, Utc};

use crate::cli::Since;
use crate::clock::Clock;
use crate::cmd::{Context, since_instant};
use crate::config::Config;
use crate::egress::{Egress, Summary};
use crate::error::Error;
use crate::journal::read::{self, Lenient as Journal, ReadError, Skipped, Span};
use crate::replay::overrides::{self, Override};
use crate::replay::{self, Replay};

/// A time for people, in the clock's zone: `2026-11-22 10:05`.
pub(crate) fn local(clock: &Clock, t: DateTime<Utc>) -> String {
    clock.zone.at(t).format("%Y-%m-%d %H:%M").to_string()
}

/// `850 ms`, `1.2 s`, `2 min`.
pub(crate) fn ms_words(ms: u64) -> String {
    match ms {
        ..1000 => format!("{ms} ms"),
        1000..120_000 => format!("{:.1} s", ms as f64 / 1000.0),
        _ => format!("{} min", ms / 60_000),
    }
}

/// `$0.0012`.
pub(crate) fn dollars(cost: f64) -> String {
    format!("${cost:.4}")
}

/// Prints the one warning about unreadable lines (unless `-q`).
pub(crate) fn warn_skipped(
    ctx: &mut Context<'_>,
    skipped: &Skipped,
    what: &str,
) -> Result<(), Error> {
    if let Some(w) = skipped.warning(what).filter(|_| !ctx.global.quiet) {
        ctx.stderr(&format!("warning: {w}\n"))?;
    }
    Ok(())
}

/// The settings a replay runs with: the config's, and the overridden ones.
#[derive(Debug)]
pub struct Settings2 {
    pub current: Config,
    pub overridden: Option<Config>,
    pub overrides: Vec<Override>,
}

/// The config (or the defaults when there is none) and, with `--set`, the same config
/// with the overrides applied and validated.
pub fn settings(config: Option<Config>, set: &[String]) -> Result<Settings2, Error> {
    let overrides = set
        .iter()
        .map(|s| overrides::parse(s))
        .collect::<Result<Vec<_>, _>>()?;
    let current = match config {
        Some(c) => c,
        None => Config::parse("", None)?,
    };
    let overridden = if overrides.is_empty() {
        None
    } else {
        let path = current.path.clone();
        let text = match &path {
            Some(p) => {
                std::fs::read_to_string(p).map_err(|source| crate::config::ConfigError::Read {
                    path: p.clone(),
                    source,
                })?
            }
            None => String::new(),
        };
        Some(overrides::apply(&text, path.as_deref(), &overrides)?)
    };
    Ok(Settings2 {
        current,
        overridden,
        overrides,
    })
}

/// Reads the journal of `dir` and replays it.
pub fn replay_dir(
    dir: &Path,
    since: Option<DateTime<Utc>>,
    settings: &Settings2,
) -> Result<(replay::Journal, Replay), Error> {
    let journal = read::strict(dir)?;
    let replay = replay::replay(
        &journal,
        since,
        &settings.current.memory,
        settings.overridden.as_ref().map(|c| &c.memory),
        replay::Keep::Frames,
    );
    Ok((journal, replay))
}

/// Every egress record of `journal`, with its tick's local day: the models' attempts and
/// the embeddings calls.
fn records<'a>(journal: &'a Journal, clock: &Clock) -> Vec<(NaiveDate, &'a Egress)> {
    let mut out = Vec::new();
    for tick in &journal.ticks {
        let day = clock.zone.day(tick.line.time);
        let threads = tick.line.threads.iter().flat_map(|t| &t.attempts);
        let escalation = tick.escalation.iter().flat_map(|e| &e.escalation.attempts);
        out.extend(
            threads
                .chain(escalation)
                .filter_map(|a| a.egress.as_ref())
                .map(|e| (day, e)),
        );
    }
    for line in &journal.embeddings {
        out.push((clock.zone.day(line.time), &line.embeddings.egress));
    }
    out
}

/// The summary of what left since `since`, with the unreadable lines skipped.
pub(crate) fn egress_summary(
    dir: &Path,
    since: DateTime<Utc>,
    clock: &Clock,
) -> Result<(Summary, Skipped), ReadError> {
    let journal = read::lenient(dir, Span::Since(since))?;
    let summary = Summary::of(records(&journal, clock));
    Ok((summary, journal.skipped))
}

/// `doctor`'s line: what left the machine today (local day).
pub(crate) fn egress_today(dir: &Path, clock: &Clock) -> Result<String, ReadError> {
    let midnight = since_instant(Since::Day(clock.today()), clock);
    let (summary, _) = egress_summary(dir, midnight, clock)?;
    Ok(format!("today: {}", summary.line()))
}

/// The block an agent is given for `question` (`show --for`, the hook): recall's inputs
/// read from `dir` (the archive, embeddings), each entry marked with where it came from
/// under `config`'s privacy policy (none without a config).
pub(crate) fn agent_block(
    dir: &crate::storage::StateDir,
    state: &crate::state::State,
    config: Option<&Config>,
    settings: &crate::recollect::RecallSettings,
    question: Option<&str>,
    limits: &crate::recall::Limits,
    clock: &Clock,
) -> crate::recall::Block {
    let inputs = crate::recollect::blocking(dir, state, settings, question, clock.now);
    let origins = config
        .map(crate::privacy::policy::origins)
        .unwrap_or_default();
    crate::recall::block(state, question, clock, limits, &inputs.inputs(), &origins)
}
