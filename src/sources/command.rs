//! The `command` source (SPEC §6): a program's output, run without a shell.
//!
//! argv, no shell, in a process group of its own ([`crate::process`]); stdin `/dev/null`;
//! stdout read up to `max_bytes + 1` bytes, then the whole group is killed (a command
//! that prints forever returns at once, marked truncated); stderr is drained
//! concurrently and only its first 1 KiB is kept, for error messages. Timeout
//! `timeout_seconds` (default 10 s) → failure `timed out after N s`, the whole group is
//! killed and the pipes let go, so nothing it started can hold the source longer. When
//! the caller drops the source mid-run (a thread timeout, the tick deadline), the group
//! is killed too. Program not found → failure naming it. Non-zero exit: with output, the
//! output is used; with none (blank), a failure with the exit code or signal and the
//! first line of stderr. Exit 0 with no output is an empty text. When the command exits,
//! what it left running in its group is killed before it is reaped
//! (`sh -c 'sleep 300 & echo hi'`'s `sleep`: [`GroupChild::wait`]); its pipes are read
//! for 200 ms more and then let go, so a process that left the group (`setsid`) and
//! keeps them open cannot hold the source until the timeout.
//!
//! Owns [`CommandSettings`], its defaults and checks (an empty `command`, a timeout that
//! is not a positive number of seconds up to a day, `max_bytes` out of range are config
//! errors naming the key); must not run a shell or keep more than its caps.

use std::io;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use serde::Deserialize;
use tokio::io::{AsyncRead, AsyncReadExt};

use super::Text;
use super::error::SourceError;
use super::settings::{self, MAX_BYTES_RANGE, SettingsError};
use super::text::{cap_head, one_line, sanitize};
use crate::process::{GroupChild, Pipes};

/// Default timeout of a `command` source.
pub const DEFAULT_COMMAND_TIMEOUT_SECONDS: f64 = 10.0;
/// Default cap of a `command` source's output.
pub const DEFAULT_COMMAND_MAX_BYTES: usize = 4000;

/// How much of a command's stderr is kept for its error message.
const STDERR_KEEP: usize = 1024;
/// How long a pipe is still read once the process has exited (a process it started
/// may keep the pipe open).
const PIPE_GRACE: Duration = Duration::from_millis(200);
/// Longest stderr line quoted in a failure, in chars.
const ERROR_LINE_CHARS: usize = 200;

/// The keys a `command` source takes besides `kind` and `name`.
pub(super) const KEYS: &[&str] = &["command", "timeout_seconds", "max_bytes"];

/// A `command` source as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Raw {
    command: Vec<String>,
    timeout_seconds: Option<toml::Value>,
    max_bytes: Option<toml::Value>,
}

/// A `command` source, checked: `command = ["df", "-h"]`.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandSettings {
    /// The program and its arguments; never empty.
    argv: Vec<String>,
    timeout: Duration,
    max_bytes: usize,
}

impl CommandSettings {
    /// Checks the keys of a `command` table (`kind` and `name` taken out).
    pub fn from_table(table: toml::Table) -> Result<CommandSettings, SettingsError> {
        let raw: Raw = settings::read("command", KEYS, table)?;
        if raw.command.is_empty() {
            return Err(SettingsError::at(
                "command",
                "needs at least the program, e.g. [\"df\", \"-h\"]",
            ));
        }
        Ok(CommandSettings {
            argv: raw.command,
            timeout: settings::seconds(
                "timeout_seconds",
                raw.timeout_seconds.as_ref(),
                DEFAULT_COMMAND_TIMEOUT_SECONDS,
            )?,
            max_bytes: settings::count(
                "max_bytes",
                raw.max_bytes.as_ref(),
                DEFAULT_COMMAND_MAX_BYTES,
                MAX_BYTES_RANGE,
            )?,
        })
    }

    /// The program and its arguments.
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// The program's file name (`df` for `/usr/bin/df`): the source's default name.
    pub fn program_name(&self) -> Option<String> {
        let program = self.argv.first()?;
        let file = std::path::Path::new(program).file_name()?;
        Some(file.to_string_lossy().into_owned())
    }
}

#[cfg(test)]
impl CommandSettings {
    /// Settings as the config would give them (`None`: left out), for tests.
    pub(crate) fn for_test(
        argv: &[&str],
        timeout: Option<f64>,
        max: Option<usize>,
    ) -> CommandSettings {
        CommandSettings {
            argv: argv.iter().map(ToString::to_string).collect(),
            timeout: Duration::from_secs_f64(timeout.unwrap_or(DEFAULT_COMMAND_TIMEOUT_SECONDS)),
            max_bytes: max.unwrap_or(DEFAULT_COMMAND_MAX_BYTES),
        }
    }
}

/// Runs the command and cleans and caps its output (at `max_bytes`, and at most `cap`).
pub(super) async fn text(settings: &CommandSettings, cap: usize) -> Result<Text, SourceError> {
    let max = settings.max_bytes.min(cap);
    let out = run_command(&settings.argv, settings.timeout, max).await?;
    let mut text = sanitize(&out.bytes);
    let truncated = cap_head(&mut text, max, out.truncated);
    Ok(Text { text, truncated })
}

/// What a command printed.
#[derive(Debug)]
pub(super) struct CommandOutput {
    /// At most `max` bytes of stdout.
    pub bytes: Vec<u8>,
    /// There was more; the process was killed.
    truncated: bool,
}

/// Runs `argv` (no shell) in a process group of its own and reads at most `max` bytes of
/// its stdout; past `max`, at the timeout, or when this future is dropped, the whole
/// group is killed ([`GroupChild`]).
pub(super) async fn run_command(
    argv: &[String],
    timeout: Duration,
    max: usize,
) -> Result<CommandOutput, SourceError> {
    let Some((program, arguments)) = argv.split_first() else {
        return Err(SourceError::NoProgram);
    };
    let mut group = GroupChild::spawn(
        tokio::process::Command::new(program)
            .args(arguments)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .map_err(|e| spawn_error(program, e))?;
    let Pipes { stdout, stderr, .. } = group.take_pipes();
    let (done_tx, done_rx) = tokio::sync::oneshot::channel::<()>();
    let leader = &mut group;
    let out_part = async move {
        let mut buf = Vec::new();
        let mut exited = None;
        let read = {
            let limit = u64::try_from(max.saturating_add(1)).unwrap_or(u64::MAX);
            let read = read_limited(stdout, limit, &mut buf);
            tokio::pin!(read);
            tokio::select! {
                r = &mut read => r,
                s = leader.wait() => {
                    // Exited (its group killed): something that left the group may
                    // still hold stdout open.
                    exited = Some(s);
                    tokio::time::timeout(PIPE_GRACE, &mut read).await.unwrap_or(Ok(()))
                }
            }
        };
        let ended = if buf.len() > max {
            // Killed before it is reaped (unless it had exited): its whole group dies.
            if let Err(e) = leader.kill().await {
                tracing::debug!("`{program}` printed past its cap; its group: {e}");
            }
            Ended::OverCap
        } else {
            Ended::Exited {
                read,
                status: match exited {
                    Some(s) => s,
                    None => leader.wait().await,
                },
            }
        };
        let _ = done_tx.send(());
        (buf, ended)
    };
    let err_part = async move {
        let mut buf = Vec::new();
        if let Some(mut s) = stderr {
            let drain = drain(&mut s, &mut buf);
            tokio::select! {
                () = drain => {}
                () = async {
                    let _ = done_rx.await;
                    tokio::time::sleep(PIPE_GRACE).await;
                } => {}
            }
        }
        buf
    };
    let outcome = tokio::time::timeout(timeout, async { tokio::join!(out_part, err_part) }).await;
    let Ok(((mut buf, ended), err)) = outcome else {
        // The reads are dropped with the timed-out future: a process holding the pipes
        // open cannot hold the source any longer, and its whole group is killed here.
        if let Err(e) = group.kill().await {
            tracing::debug!("`{program}` timed out; its group: {e}");
        }
        return Err(SourceError::TimedOut(timeout));
    };
    match ended {
        Ended::OverCap => {
            buf.truncate(max);
            Ok(CommandOutput {
                bytes: buf,
                truncated: true,
            })
        }
        Ended::Exited { read, status } => finish(program, buf, read, status, &err),
    }
}

/// How a command's run ended, within its timeout.
enum Ended {
    /// It printed more than `max` bytes; its group was killed.
    OverCap,
    /// It exited (and was reaped); how reading its stdout went.
    Exited {
        read: io::Result<()>,
        status: io::Result<ExitStatus>,
    },
}

/// What a command that exited within its time and cap amounts to: its output, or (when
/// it failed and printed nothing) a failure with the exit and the first line of stderr.
fn finish(
    program: &str,
    stdout: Vec<u8>,
    read: io::Result<()>,
    status: io::Result<ExitStatus>,
    stderr: &[u8],
) -> Result<CommandOutput, SourceError> {
    let has_output = stdout.iter().any(|b| !b.is_ascii_whitespace());
    let status = status.map_err(|source| SourceError::Wait {
        program: program.to_string(),
        source,
    })?;
    if status.success() || has_output {
        return Ok(CommandOutput {
            bytes: stdout,
            truncated: false,
        });
    }
    if let Err(source) = read {
        return Err(SourceError::ReadOutput {
            program: program.to_string(),
            source,
        });
    }
    Err(SourceError::CommandFailed {
        program: program.to_string(),
        status,
        stderr: first_line(stderr),
    })
}

/// Reads at most `limit` bytes of `r` into `buf`.
async fn read_limited(
    r: Option<impl AsyncRead + Unpin>,
    limit: u64,
    buf: &mut Vec<u8>,
) -> io::Result<()> {
    match r {
        Some(r) => r.take(limit).read_to_end(buf).await.map(|_| ()),
        None => Ok(()),
    }
}

/// Reads `r` to its end, keeping the first [`STDERR_KEEP`] bytes in `keep`.
async fn drain(r: &mut (impl AsyncRead + Unpin), keep: &mut Vec<u8>) {
    let mut chunk = [0u8; 4096];
    loop {
        match r.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let room = STDERR_KEEP.saturating_sub(keep.len());
                keep.extend_from_slice(&chunk[..n.min(room)]);
            }
        }
    }
}

/// Why `program` did not start: not found, not runnable, or another reason.
fn spawn_error(program: &str, source: io::Error) -> SourceError {
    let program = program.to_string();
    match source.kind() {
        io::ErrorKind::NotFound => SourceError::ProgramNotFound { program },
        io::ErrorKind::PermissionDenied => SourceError::ProgramNotRunnable { program, source },
        _ => SourceError::Spawn { program, source },
    }
}

/// The first non-blank line of a command's stderr, cleaned and bounded.
fn first_line(stderr: &[u8]) -> Option<String> {
    let text = sanitize(stderr);
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| one_line(l, ' ', ERROR_LINE_CHARS))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::testing::{command, one};

    fn argv(a: &[&str]) -> Vec<String> {
        a.iter().map(ToString::to_string).collect()
    }

    #[tokio::test]
    async fn each_way_to_fail_is_its_own_error() {
        let run = |a: &[&str], secs: f64| {
            let a = argv(a);
            async move { run_command(&a, Duration::from_secs_f64(secs), 100).await }
        };
        match run(&["thinker-no-such-program-x"], 5.0).await {
            Err(SourceError::ProgramNotFound { program }) => {
                assert_eq!(program, "thinker-no-such-program-x");
            }
            other => panic!("{other:?}"),
        }
        match run(&["sh", "-c", "echo oops >&2; exit 3"], 5.0).await {
            Err(SourceError::CommandFailed {
                program,
                status,
                stderr,
            }) => {
                assert_eq!(program, "sh");
                assert_eq!(status.code(), Some(3));
                assert_eq!(stderr.as_deref(), Some("oops"));
            }
            other => panic!("{other:?}"),
        }
        match run(&["sleep", "5"], 0.2).await {
            Err(SourceError::TimedOut(after)) => {
                assert_eq!(after, Duration::from_secs_f64(0.2));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            run_command(&[], Duration::from_secs(1), 100).await,
            Err(SourceError::NoProgram)
        ));
    }

    #[tokio::test]
    async fn command_output_is_captured() {
        let g = one(command(&["echo", "hello", "world"], None, None)).await;
        assert!(g.failures.is_empty(), "{g:?}");
        assert_eq!(g.texts.len(), 1);
        let t = &g.texts[0];
        assert_eq!((t.name.as_str(), t.kind), ("echo", "command"));
        assert_eq!(t.text, "hello world\n");
        assert!(!t.truncated);
    }

    #[tokio::test]
    async fn command_timeout_is_a_failure() {
        let g = one(command(&["sleep", "5"], Some(0.2), None)).await;
        assert!(g.texts.is_empty());
        assert_eq!(g.failures.len(), 1);
        assert_eq!(g.failures[0].name, "sleep");
        assert_eq!(g.failures[0].error, "timed out after 0.2 s");
    }

    #[tokio::test]
    async fn missing_program_is_named() {
        let g = one(command(&["thinker-no-such-program-x"], None, None)).await;
        assert!(g.texts.is_empty());
        let e = &g.failures[0].error;
        assert!(
            e.contains("`thinker-no-such-program-x`") && e.contains("not found"),
            "{e}"
        );
    }

    #[tokio::test]
    async fn endless_output_is_cut_and_the_command_killed() {
        let g = one(command(&["yes"], Some(30.0), Some(1001))).await;
        assert!(g.failures.is_empty(), "{g:?}");
        let t = &g.texts[0];
        assert!(t.truncated);
        // Cut after the last whole line.
        assert_eq!(t.text, "y\n".repeat(500));
    }

    #[tokio::test]
    async fn failing_command_reports_code_and_stderr_but_keeps_output() {
        let g = one(command(
            &["sh", "-c", "echo 'boom: disk gone' >&2; exit 3"],
            None,
            None,
        ))
        .await;
        let e = &g.failures[0].error;
        assert!(e.contains("code 3") && e.contains("boom: disk gone"), "{e}");

        let g = one(command(&["sh", "-c", "echo partial; exit 1"], None, None)).await;
        assert!(g.failures.is_empty());
        assert_eq!(g.texts[0].text, "partial\n");
    }

    #[tokio::test]
    async fn output_is_kept_when_a_background_child_holds_the_pipe() {
        let g = one(command(&["sh", "-c", "sleep 5 & echo hi"], Some(2.0), None)).await;
        assert!(g.failures.is_empty(), "{g:?}");
        assert_eq!(g.texts[0].text, "hi\n");
    }

    #[tokio::test]
    async fn control_characters_are_stripped() {
        let g = one(command(
            &[
                "printf",
                "\\033[31mred\\033[0m \\033]0;title\\007ok\\r\\n\\001bell\\007\\n",
            ],
            None,
            None,
        ))
        .await;
        assert_eq!(g.texts[0].text, "red ok\nbell\n");
    }
}
