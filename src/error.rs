//! The program's error type and its mapping to the exit codes of SPEC §1:
//! 0 done; 1 tick failed, nothing written; 2 usage or config error; 3 done but a thread
//! failed or a message to the user was given up; 75 another tick holds the lock.
//!
//! Owns the exit code of every error a command can end with: each variant knows its code
//! ([`Error::exit_code`]), and each message says what failed and what to do. It must not
//! flatten a typed error into a sentence: wrap the typed error instead.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::config::ConfigError;
use crate::escalation::held::HeldError;
use crate::prompt::PromptError;
use crate::provider::CallError;
use crate::storage::StorageError;
use crate::thread::UnknownThread;

pub const EXIT_OK: u8 = 0;
pub const EXIT_FAILED: u8 = 1;
pub const EXIT_USAGE: u8 = 2;
pub const EXIT_PARTIAL: u8 = 3;
pub const EXIT_LOCKED: u8 = 75;

/// Anything that stops a command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// `thinker prompt <thread>` with a thread that does not exist.
    #[error(transparent)]
    UnknownThread(#[from] UnknownThread),
    /// `--now` that does not parse.
    #[error("--now `{text}` is not an RFC 3339 time ({source}); e.g. 2026-11-22T10:05:00Z")]
    BadNow {
        text: String,
        source: chrono::ParseError,
    },
    /// `thinker prompt <thread> --as-sent` for a thread the config does not define.
    #[error(
        "thread {thread} is not configured, so nothing would be sent for it; add a [threads.{thread}] table with model = \"provider/model\""
    )]
    ThreadNotConfigured { thread: crate::thread::ThreadName },
    /// A template that does not render, for a command that prints it.
    #[error(transparent)]
    Prompt(#[from] PromptError),
    /// `thinker init` would overwrite a file.
    #[error(
        "{} already exists; thinker init never overwrites (remove it first, or pass --config / --state to write elsewhere)",
        path.display()
    )]
    InitExists { path: PathBuf },
    /// `thinker init` cannot write the config file or its directory.
    #[error("cannot write {}: {source} (check the directory's permissions, or pass --config to write elsewhere)", path.display())]
    InitWrite {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The providers of the config cannot be set up (e.g. the TLS client).
    #[error("cannot set up the providers: {0}")]
    Providers(#[source] CallError),
    /// The async runtime does not start.
    #[error(transparent)]
    Runtime(#[from] crate::runtime::RuntimeError),
    /// A value that must be written as JSON does not serialize (a bug: please report it).
    #[error("cannot serialize {what} as JSON: {source} (a bug in thinker: please report it)")]
    Serialize {
        what: &'static str,
        source: serde_json::Error,
    },
    #[error("cannot write to {what}: {source}")]
    Output {
        what: &'static str,
        source: std::io::Error,
    },
    /// The journal or the archive cannot be read (`log`, `stats`).
    #[error(transparent)]
    History(#[from] crate::journal::read::ReadError),
    /// A `--set` of `replay` or `report` that cannot be applied.
    #[error(transparent)]
    Override(#[from] crate::replay::overrides::OverrideError),
    /// `thinker release` or `discard` (its own exit code).
    #[error(transparent)]
    Held(#[from] HeldError),
}

impl Error {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Config(_)
            | Error::UnknownThread(_)
            | Error::BadNow { .. }
            | Error::ThreadNotConfigured { .. }
            | Error::Prompt(_)
            | Error::InitExists { .. }
            | Error::InitWrite { .. }
            | Error::Override(_)
            // An id that names no waiting message is a usage error; a failed send is not.
            | Error::Held(
                HeldError::NotWaiting { .. }
                | HeldError::Ambiguous { .. }
                | HeldError::TooShort { .. },
            ) => EXIT_USAGE,
            Error::Storage(StorageError::Locked { .. }) => EXIT_LOCKED,
            Error::Storage(_)
            | Error::Providers(_)
            | Error::Runtime(_)
            | Error::Serialize { .. }
            | Error::Output { .. }
            | Error::History(_)
            | Error::Held(_) => EXIT_FAILED,
        }
    }

    /// Whether a broken pipe (e.g. `thinker show | head`) caused this: not worth a message.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Output { source, .. } if source.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

/// `value` as pretty JSON with a final newline; an error, never empty bytes, when it does
/// not serialize.
pub fn to_json_pretty<T: serde::Serialize + ?Sized>(
    value: &T,
    what: &'static str,
) -> Result<String, Error> {
    let mut text =
        serde_json::to_string_pretty(value).map_err(|source| Error::Serialize { what, source })?;
    text.push('\n');
    Ok(text)
}

/// Turns a result into the process exit code, printing the error on stderr.
pub fn report(result: Result<u8, Error>) -> ExitCode {
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) if e.is_broken_pipe() => ExitCode::from(EXIT_OK),
        Err(e) => {
            let _ = writeln!(QuietStderr, "thinker: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// Standard error that never fails: a closed stderr (`2>&1 | head -c 5`) must not stop a
/// tick half-way (`eprintln!` and tracing's own fallback panic on a write error), so what
/// cannot be written is dropped.
#[derive(Clone, Copy, Debug, Default)]
pub struct QuietStderr;

impl std::io::Write for QuietStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let _ = std::io::stderr().write_all(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let _ = std::io::stderr().flush();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Unserializable;

    impl serde::Serialize for Unserializable {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("refused"))
        }
    }

    /// Regression: `unwrap_or_default()` printed empty bytes for a report that
    /// did not serialize.
    #[test]
    fn a_value_that_does_not_serialize_is_an_error_not_empty_output() {
        let err = to_json_pretty(&Unserializable, "the tick report").unwrap_err();
        assert_eq!(err.exit_code(), EXIT_FAILED);
        let text = err.to_string();
        assert!(
            text.contains("the tick report") && text.contains("refused"),
            "{text}"
        );
        assert_eq!(to_json_pretty(&[1], "a list").unwrap(), "[\n  1\n]\n");
    }

    #[test]
    fn init_failing_to_write_says_so() {
        let err = Error::InitWrite {
            path: "/nowhere/config.toml".into(),
            source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        };
        assert!(
            err.to_string()
                .starts_with("cannot write /nowhere/config.toml")
        );
    }
}
