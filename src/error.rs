//! The program's error type and its mapping to the exit codes of SPEC §1:
//! 0 done; 1 tick failed, nothing written; 2 usage or config error; 3 done but a thread
//! failed; 75 another tick holds the lock.

use std::process::ExitCode;

use crate::config::ConfigError;
use crate::storage::StorageError;

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
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Failed(String),
    #[error("cannot write to {what}: {source}")]
    Output {
        what: &'static str,
        source: std::io::Error,
    },
}

impl Error {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Config(_) | Error::Usage(_) => EXIT_USAGE,
            Error::Storage(StorageError::Locked { .. }) => EXIT_LOCKED,
            Error::Storage(_) | Error::Failed(_) | Error::Output { .. } => EXIT_FAILED,
        }
    }

    /// Whether a broken pipe (e.g. `thinker show | head`) caused this: not worth a message.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Output { source, .. } if source.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

/// Turns a result into the process exit code, printing the error on stderr.
pub fn report(result: Result<u8, Error>) -> ExitCode {
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) if e.is_broken_pipe() => ExitCode::from(EXIT_OK),
        Err(e) => {
            eprintln!("thinker: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
