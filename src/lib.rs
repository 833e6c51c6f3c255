//! thinker: background cognition for AI agents.
//!
//! Cron runs `thinker tick`; four cheap thinking threads look at the user's world, the
//! deterministic [`aggregate`] merges what they found into the subconscious
//! ([`state`]), which [`storage`] keeps safe on disk. [`run`] dispatches the command
//! line; see ARCHITECTURE.md for how a tick flows through the modules.

pub mod account;
pub mod aggregate;
pub mod answer;
pub mod budget;
pub mod cli;
pub mod config;
pub mod error;
pub mod init;
pub mod journal;
pub mod matching;
pub mod prompt;
pub mod provider;
pub mod show;
pub mod sources;
pub mod state;
pub mod storage;
pub mod thread;
pub mod tick;
pub mod timestamp;
pub mod untrusted;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use crate::cli::{Cli, ColorChoice, Command, Global, PromptArgs, ShowArgs, ShowFormat, TickArgs};
use crate::config::{Config, ConfigError};
use crate::error::{EXIT_OK, Error};
use crate::storage::{STATE_FILE, StateDir};

/// Runs one command; returns the exit code of SPEC §1 (errors carry theirs).
pub fn run(cli: Cli) -> Result<u8, Error> {
    match cli.command {
        Command::Init => {
            let config_path = config::config_path(cli.global.config.as_deref())?;
            let state_dir = config::state_dir(cli.global.state.as_deref(), None)?;
            let text = init::init(&config_path, &state_dir)?;
            if !cli.global.quiet {
                eprint!("{text}");
            }
            Ok(EXIT_OK)
        }
        Command::Show(args) => show(&cli.global, &args),
        Command::Tick(args) => tick(&cli.global, &args),
        Command::Prompt(args) => prompt(&cli.global, &args),
    }
}

/// The config for commands that need one.
pub fn required_config(global: &Global) -> Result<Config, Error> {
    let path = config::config_path(global.config.as_deref())?;
    Ok(Config::load(&path)?)
}

fn tick(global: &Global, args: &TickArgs) -> Result<u8, Error> {
    let config = required_config(global)?;
    config.check_threads()?;
    let dir = state_dir(global, Some(&config))?;
    let options = tick::TickOptions {
        dry_run: args.dry_run,
        now: now_from(args.now.as_deref())?,
    };
    let report = tick::run(&config, &dir, &options)?;
    if args.json {
        let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
        text.push('\n');
        write_stdout(text.as_bytes())?;
    } else if args.dry_run {
        write_stdout(account::render(&report).as_bytes())?;
    } else if global.verbose > 0 {
        eprint!("{}", account::render(&report));
    }
    Ok(report.exit_code())
}

fn prompt(global: &Global, args: &PromptArgs) -> Result<u8, Error> {
    let thread: thread::ThreadName = args
        .thread
        .parse()
        .map_err(|e: thread::UnknownThread| Error::Usage(e.to_string()))?;
    let config = required_config(global)?;
    let dir = StateDir::at(&state_dir(global, Some(&config))?);
    let loaded = dir.load()?;
    let now = now_from(args.now.as_deref())?;
    // As the tick shows it: at most the caps.
    let state = aggregate::as_seen(&loaded, now, &config.memory);
    let sources = config
        .thread(thread)
        .map(|t| t.sources.clone())
        .unwrap_or_default();
    let ctx = sources::GatherContext {
        state: &state,
        state_dir: dir.path(),
        last_tick: state.last_tick,
        now,
    };
    let gathered = tick::block_on(sources::gather(&sources, &ctx))?;
    for f in &gathered.failures {
        tracing::warn!(source = %f.name, "source failed (left out of the prompt): {}", f.error);
    }
    let text = prompt::Prompts::new(config.prompts_dir.as_deref())
        .thread_prompt(thread, &state, &gathered.texts, now)
        .map_err(|e| Error::Usage(e.to_string()))?;
    write_stdout(text.as_bytes())?;
    Ok(EXIT_OK)
}

/// Reads `--now`, or the clock.
pub fn now_from(flag: Option<&str>) -> Result<DateTime<Utc>, Error> {
    match flag {
        None => Ok(timestamp::truncate(Utc::now())),
        Some(text) => DateTime::parse_from_rfc3339(text)
            .map(|t| timestamp::truncate(t.with_timezone(&Utc)))
            .map_err(|e| {
                Error::Usage(format!(
                    "--now `{text}` is not an RFC 3339 time ({e}); e.g. 2026-11-22T10:05:00Z"
                ))
            }),
    }
}

/// The config for commands that can do without one: an explicit `--config` or
/// `$THINKER_CONFIG` must exist; a missing default file means built-in defaults.
pub fn optional_config(global: &Global) -> Result<Option<Config>, Error> {
    let explicit = global.config.is_some() || std::env::var_os("THINKER_CONFIG").is_some();
    let path = config::config_path(global.config.as_deref())?;
    match Config::load(&path) {
        Ok(c) => Ok(Some(c)),
        Err(ConfigError::Missing { .. }) if !explicit => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The state directory the command works on.
pub fn state_dir(global: &Global, config: Option<&Config>) -> Result<PathBuf, Error> {
    Ok(config::state_dir(global.state.as_deref(), config)?)
}

fn write_stdout(text: &[u8]) -> Result<(), Error> {
    let mut out = std::io::stdout().lock();
    out.write_all(text)
        .and_then(|()| out.flush())
        .map_err(|source| Error::Output {
            what: "stdout",
            source,
        })
}

fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    }
}

fn show(global: &Global, args: &ShowArgs) -> Result<u8, Error> {
    let config = optional_config(global)?;
    let dir = StateDir::at(&state_dir(global, config.as_ref())?);
    let now = now_from(args.now.as_deref())?;
    if args.json || args.format == ShowFormat::Json {
        return show_json(dir.path());
    }
    let state = dir.load()?;
    let caps = config.map(|c| c.memory.caps).unwrap_or_default();
    let text = show::render(&state, &caps, now, use_color(args.color));
    write_stdout(text.as_bytes())?;
    Ok(EXIT_OK)
}

/// `show --json`: the file exactly as it is on disk (after checking that it validates).
fn show_json(dir: &Path) -> Result<u8, Error> {
    let state_dir = StateDir::at(dir);
    let state = state_dir.load()?;
    let path = dir.join(STATE_FILE);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => state.to_json().into_bytes(),
        Err(source) => return Err(storage::StorageError::Read { path, source }.into()),
    };
    write_stdout(&bytes)?;
    Ok(EXIT_OK)
}
