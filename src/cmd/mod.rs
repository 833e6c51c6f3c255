//! The commands: one file per subcommand, each with a `run` that takes the shared
//! [`Context`] and its own clap arguments and returns the exit code (SPEC §1).
//!
//! Owns what every command shares: resolving the config (required or optional) and the
//! state directory in one place, reading `--now` or the system clock into the [`Clock`],
//! the output streams and the colour choice, and the instant a `--since` names
//! ([`since_instant`], for `stats`, `egress`, `replay` and `report`). A command must not
//! print with `print!` or `eprint!` (tests capture its streams), read the clock or
//! `chrono::Local` itself, or resolve paths its own way, or import a sibling command
//! (what two commands share is in [`shared`]). New command: a file here, an arm in
//! `crate::run_with`.

pub mod feedback;
pub mod hook;
pub mod init;
pub mod prompt;
pub mod screen;
pub mod show;
pub mod tick;
// --- watching thinker ---
pub mod completions;
pub mod cron;
pub mod egress;
pub mod log;
pub mod stats;
// --- the MCP server ---
pub mod mcp;
// --- living with it ---
pub mod doctor;
pub mod held;
pub mod notify;
// --- replay, explain, report ---
pub mod explain;
pub mod replay;
pub mod report;
// --- what several commands share ---
pub mod shared;

use std::io::Write;
use std::path::PathBuf;

use chrono::{DateTime, Utc};

use crate::cli::{ColorChoice, Global, Since};
use crate::clock::{Clock, Zone};
use crate::config::{self, Config, ConfigError};
use crate::error::Error;
use crate::timestamp;

/// Where a command writes: data on `stdout`, diagnostics on `stderr`.
pub struct Output<'a> {
    pub stdout: &'a mut dyn Write,
    pub stderr: &'a mut dyn Write,
    /// Whether stdout is a terminal (for `--color auto`).
    pub stdout_is_terminal: bool,
}

impl std::fmt::Debug for Output<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Output")
            .field("stdout_is_terminal", &self.stdout_is_terminal)
            .finish_non_exhaustive()
    }
}

/// What every command is run with.
#[derive(Debug)]
pub struct Context<'a> {
    /// The options every command takes (`--config`, `--state`, `-v`, `-q`).
    pub global: &'a Global,
    /// `--now` (or the system clock), and the zone local times are read in.
    pub clock: Clock,
    pub output: Output<'a>,
}

/// A command's config and the state directory it works on.
#[derive(Debug)]
pub struct Resolved<C> {
    pub config: C,
    pub state_dir: PathBuf,
}

impl<'a> Context<'a> {
    /// The context of a command run at `--now`, else at the system clock's time.
    pub fn new(global: &'a Global, zone: Zone, output: Output<'a>) -> Result<Context<'a>, Error> {
        Ok(Context {
            global,
            clock: Clock::new(now_from(global.now.as_deref())?, zone),
            output,
        })
    }

    /// The config for commands that need one, and the state directory.
    pub fn required_config(&self) -> Result<Resolved<Config>, Error> {
        let path = config::config_path(self.global.config.as_deref())?;
        let config = Config::load(&path)?;
        let state_dir = self.state_dir(Some(&config))?;
        Ok(Resolved { config, state_dir })
    }

    /// The config for commands that can do without one: an explicit `--config` or
    /// `$THINKER_CONFIG` must exist; a missing default file means built-in defaults.
    pub fn optional_config(&self) -> Result<Resolved<Option<Config>>, Error> {
        let explicit = self.global.config.is_some() || std::env::var_os("THINKER_CONFIG").is_some();
        let path = config::config_path(self.global.config.as_deref())?;
        let config = match Config::load(&path) {
            Ok(c) => Some(c),
            Err(ConfigError::Missing { .. }) if !explicit => None,
            Err(e) => return Err(e.into()),
        };
        let state_dir = self.state_dir(config.as_ref())?;
        Ok(Resolved { config, state_dir })
    }

    /// The config file's path (for `init`, which writes it).
    pub fn config_path(&self) -> Result<PathBuf, Error> {
        Ok(config::config_path(self.global.config.as_deref())?)
    }

    /// The state directory: `--state`, else the config's, else the XDG default.
    pub fn state_dir(&self, config: Option<&Config>) -> Result<PathBuf, Error> {
        Ok(config::state_dir(self.global.state.as_deref(), config)?)
    }

    /// Writes data to stdout.
    pub fn stdout(&mut self, bytes: &[u8]) -> Result<(), Error> {
        write_all(&mut *self.output.stdout, bytes, "stdout")
    }

    /// Writes diagnostics for people to stderr.
    pub fn stderr(&mut self, text: &str) -> Result<(), Error> {
        write_all(&mut *self.output.stderr, text.as_bytes(), "stderr")
    }

    /// Whether to colour stdout.
    pub fn use_color(&self, choice: ColorChoice) -> bool {
        match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && self.output.stdout_is_terminal
            }
        }
    }
}

fn write_all(out: &mut dyn Write, bytes: &[u8], what: &'static str) -> Result<(), Error> {
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|source| Error::Output { what, source })
}

/// Reads `--now`, or the system clock (whole seconds).
pub fn now_from(flag: Option<&str>) -> Result<DateTime<Utc>, Error> {
    match flag {
        None => Ok(timestamp::truncate(Utc::now())),
        Some(text) => DateTime::parse_from_rfc3339(text)
            .map(|t| timestamp::truncate(t.with_timezone(&Utc)))
            .map_err(|source| Error::BadNow {
                text: text.to_string(),
                source,
            }),
    }
}

/// The instant `since` names, on `clock`.
pub fn since_instant(since: Since, clock: &Clock) -> DateTime<Utc> {
    match since {
        Since::Ago(span) => clock
            .now
            .checked_sub_signed(span)
            .unwrap_or(DateTime::<Utc>::MIN_UTC),
        Since::At(t) => t,
        // The zone's offset at that UTC midnight: exact but for a daylight-saving change
        // within hours of it.
        Since::Day(day) => {
            let midnight = day.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc();
            let offset = clock.zone.at(midnight).offset().local_minus_utc();
            midnight - chrono::TimeDelta::seconds(i64::from(offset))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::EXIT_USAGE;

    #[test]
    fn now_is_whole_seconds_in_utc_and_a_bad_one_is_a_usage_error() {
        let now = now_from(Some("2026-11-22T11:05:00.7+01:00")).unwrap();
        assert_eq!(timestamp::format(now), "2026-11-22T10:05:00Z");
        let err = now_from(Some("yesterday")).unwrap_err();
        assert_eq!(err.exit_code(), EXIT_USAGE);
        assert!(err.to_string().contains("--now `yesterday`"), "{err}");
    }
}
