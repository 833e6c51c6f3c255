//! Why a source produced no text: [`SourceError`], one variant per failure the kinds
//! have (a command that cannot run, fails or runs out of time; a file or folder that
//! cannot be read; a folder that is not a Maildir; calendar paths that find nothing, or
//! calendars none of which could be read; file work that never finished).
//!
//! Owns what a failure says. Its message goes to the journal and `doctor` as the
//! source's failure ([`super::SourceFailure`]), never into a prompt; each says what failed
//! and, where the user can do something about it, what. Must not carry the source's name
//! or kind ([`super::gather`] adds them).

use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

use super::ics::error::CalendarError;
use super::text::one_line;

/// Longest problem quoted in [`SourceError::NothingReadable`], in chars.
const PROBLEM_CHARS: usize = 300;

/// A source that produced nothing usable.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// A command that did not finish, or file work (a hung network mount) that did not
    /// finish, within its time limit; what it started is killed.
    #[error("timed out after {} s", .0.as_secs_f64())]
    TimedOut(Duration),
    /// A `command` source without a program (the config reader refuses one).
    #[error("no program given (command = [])")]
    NoProgram,
    /// The program is not on `PATH` (or not at the path given).
    #[error("program `{program}` not found (is it installed and on PATH?)")]
    ProgramNotFound { program: String },
    /// The program exists but may not be run (not executable, a directory…).
    #[error("program `{program}` cannot be run: {source}")]
    ProgramNotRunnable { program: String, source: io::Error },
    /// The program could not be started for another reason (out of processes…).
    #[error("cannot run `{program}`: {source}")]
    Spawn { program: String, source: io::Error },
    /// The program ran but its exit could not be collected.
    #[error("cannot wait for `{program}`: {source}")]
    Wait { program: String, source: io::Error },
    /// The program failed, printed nothing, and its output could not be read either.
    #[error("cannot read the output of `{program}`: {source}")]
    ReadOutput { program: String, source: io::Error },
    /// The program failed (non-zero exit or a signal) and printed nothing.
    #[error("`{program}` {}{}", describe_exit(*.status), .stderr.as_deref().map(|l| format!(": {l}")).unwrap_or_default())]
    CommandFailed {
        program: String,
        status: ExitStatus,
        /// The first non-blank line of its stderr, cleaned and bounded.
        stderr: Option<String>,
    },
    /// A file that cannot be read (the transcript, the archive).
    #[error("cannot read {}: {source}", .path.display())]
    Read { path: PathBuf, source: io::Error },
    /// Of the files the globs matched, none could be read: the first problem met, and
    /// how many more there were.
    #[error(
        "nothing could be read: {}{}",
        one_line(.first, ' ', PROBLEM_CHARS),
        if *.more > 0 { format!(" (and {more} more problems)") } else { String::new() }
    )]
    NothingReadable { first: String, more: usize },
    /// The Maildir folder itself cannot be looked at (missing, no permission).
    #[error("cannot read the Maildir {}: {source}", .path.display())]
    MaildirUnreadable { path: PathBuf, source: io::Error },
    /// The path is not a Maildir folder (no `cur/` and `new/` in it).
    #[error(
        "{} is not a Maildir: it needs cur/ and new/ directories; point `path` at a \
         Maildir folder (e.g. ~/Mail/INBOX)",
        .path.display()
    )]
    NotAMaildir { path: PathBuf },
    /// `new/` or `cur/` of a Maildir cannot be listed.
    #[error("cannot read {}/{dir}: {source}", .root.display())]
    MaildirDirUnreadable {
        root: PathBuf,
        dir: &'static str,
        source: io::Error,
    },
    /// Neither `/proc` nor any disk could be read.
    #[error("no system information: /proc is not readable and no disk could be measured")]
    NoSystemInformation,
    /// The file work panicked or was cancelled on the blocking pool (a bug in thinker).
    #[error("internal error: {0}")]
    TaskFailed(#[source] tokio::task::JoinError),
    /// An `ics` glob that does not parse.
    #[error("`{pattern}` is not a valid glob: {source}: fix `paths`")]
    CalendarGlob {
        pattern: String,
        source: glob::PatternError,
    },
    /// An `ics` glob that matches nothing: an empty calendar would claim "nothing planned".
    #[error(
        "`{pattern}` matches nothing: fix `paths`, or sync the calendar first (e.g. `vdirsyncer sync`)"
    )]
    CalendarGlobEmpty { pattern: String },
    /// An `ics` path that does not exist (same reason).
    #[error(
        "{} does not exist: fix `paths`, or sync the calendar first (e.g. `vdirsyncer sync`)",
        .path.display()
    )]
    CalendarMissing { path: PathBuf },
    /// An `ics` path that cannot be looked at (no permission…).
    #[error("{}: {source}", .path.display())]
    CalendarUnreadable { path: PathBuf, source: io::Error },
    /// An `ics` vdir directory that cannot be listed.
    #[error("{}: cannot list the directory: {source}", .path.display())]
    CalendarDirUnreadable { path: PathBuf, source: io::Error },
    /// Calendar files were found and none could be read: the first one's problem.
    #[error(
        "no calendar file could be read: {}",
        one_line(&format!("{}: {source}", .path.display()), ' ', PROBLEM_CHARS)
    )]
    NoCalendarReadable {
        path: PathBuf,
        source: CalendarError,
    },
}

/// How a command that failed ended: its exit code, or the signal that killed it.
fn describe_exit(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with code {code} and printed nothing"),
        (None, Some(signal)) => format!("was killed by signal {signal} and printed nothing"),
        (None, None) => format!("failed ({status}) and printed nothing"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_as_before() {
        let cases: &[(SourceError, &str)] = &[
            (
                SourceError::TimedOut(Duration::from_secs_f64(0.2)),
                "timed out after 0.2 s",
            ),
            (
                SourceError::TimedOut(Duration::from_secs(10)),
                "timed out after 10 s",
            ),
            (
                SourceError::CommandFailed {
                    program: "sh".into(),
                    status: ExitStatus::from_raw(3 << 8),
                    stderr: Some("boom".into()),
                },
                "`sh` exited with code 3 and printed nothing: boom",
            ),
            (
                SourceError::CommandFailed {
                    program: "sh".into(),
                    status: ExitStatus::from_raw(9),
                    stderr: None,
                },
                "`sh` was killed by signal 9 and printed nothing",
            ),
            (
                SourceError::NothingReadable {
                    first: "/a: gone".into(),
                    more: 0,
                },
                "nothing could be read: /a: gone",
            ),
            (
                SourceError::NothingReadable {
                    first: "/a:\ngone".into(),
                    more: 2,
                },
                "nothing could be read: /a: gone (and 2 more problems)",
            ),
            (
                SourceError::MaildirDirUnreadable {
                    root: "/m/".into(),
                    dir: "new",
                    source: io::Error::from(io::ErrorKind::PermissionDenied),
                },
                "cannot read /m//new: permission denied",
            ),
            (
                SourceError::NoCalendarReadable {
                    path: "/c/a.ics".into(),
                    source: CalendarError::TooLarge { mb: 16 },
                },
                "no calendar file could be read: /c/a.ics: larger than 16 MB",
            ),
            (
                SourceError::CalendarGlobEmpty {
                    pattern: "/c/*".into(),
                },
                "`/c/*` matches nothing: fix `paths`, or sync the calendar first (e.g. `vdirsyncer sync`)",
            ),
        ];
        for (error, want) in cases {
            assert_eq!(error.to_string(), *want, "{error:?}");
        }
    }
}
