//! The `notify` action's effect (SPEC §8): running the user's notifier command with the
//! message on its stdin, bounded in time and in what it may print.
//!
//! [`run_notifier`] runs `argv` without a shell, in a process group of its own, writes the
//! message to its stdin and closes it, and waits at most the timeout. At the timeout the
//! whole group is killed (`SIGKILL`), so a notifier script's children (`curl` started by a
//! shell script, `sleep` in the background) die with it, and the notifier is reaped. Its
//! stdout and stderr are read concurrently and only their first [`OUTPUT_CAP`] bytes are
//! kept (the rest is read and dropped, so a chatty notifier neither swells memory nor
//! blocks on a full pipe); once it has exited, its pipes are read for [`PIPE_GRACE`] more
//! and then let go (something it left running may keep them open).
//!
//! **Killing the group** is [`crate::process`]'s: `kill(-PGID, SIGKILL)` in-process, sent
//! while the notifier is still unreaped so the group id cannot have been reused. The
//! direct child is also killed through tokio (if the group cannot be signalled, the error
//! says its children may live on). If the caller drops the future mid-run (a tick
//! deadline), the group is killed the same way. A notifier that exits normally takes
//! what it left running in its group with it (`process::GroupChild::wait`).
//!
//! Errors name the program (`argv[0]`) only, never the arguments: a notifier's arguments
//! may hold a token (a Telegram bot URL, an ntfy topic). For the same reason a quoted
//! stderr has every argument of 8 characters or more that it echoes whole replaced by
//! `[argument N]`; a partial echo is not recognised, so secrets belong in a script or an
//! environment variable the notifier reads, not in `notify_command`.
//!
//! **Whether a notifier can run** is also this module's ([`check`], what `thinker doctor`
//! reports): a command must be set, and the programs it runs must be found — `argv[0]`,
//! and when that is a wrapper (`xargs`, `env`, `timeout`…) the program it runs
//! ([`programs`]) — as a path, or on the `PATH` the caller hands in.
//!
//! **The configured path** ([`Notifier`]): the command, or the built-in webhook
//! ([`super::webhook`]); [`deliver`] sends through either, and [`NotifyError::may_have_delivered`]
//! says whether a failed send may still have reached the user (a notifier killed at its
//! timeout, a webhook that did not answer): a tick never sends such a message again, while
//! one that certainly did not go out (a non-zero exit, a program not found, a refused
//! connection, an HTTP error) may be tried again.
//!
//! Must not: run a shell, decide what the message says (the caller passes the final text,
//! proposals already marked), read the clock, or touch the state directory.

use std::ffi::OsStr;
use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::ChildStdin;

use crate::process::{GroupChild, KillError};
use crate::untrusted;

/// How much of a notifier's stdout and of its stderr is kept.
pub const OUTPUT_CAP: usize = 4096;
/// How long a notifier's pipes are still read once it has exited or been killed.
pub const PIPE_GRACE: Duration = Duration::from_millis(200);
/// How many characters of a notifier's output an excerpt keeps.
pub const EXCERPT_CHARS: usize = 200;
/// Arguments at least this long are redacted from quoted output when echoed whole.
const REDACT_MIN_CHARS: usize = 8;

/// A notifier that ran and exited successfully.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivered {
    /// `argv[0]`, as configured.
    pub program: String,
    /// Its exit status (a success).
    pub status: ExitStatus,
    /// An excerpt of its stdout (cleaned, one line, at most [`EXCERPT_CHARS`]).
    pub stdout: String,
    /// An excerpt of its stderr (cleaned, one line, at most [`EXCERPT_CHARS`]).
    pub stderr: String,
}

/// Why a notification was not delivered.
#[derive(Debug, thiserror::Error)]
pub enum NotifyError {
    #[error(
        "no notifier is configured; set `notify_command` in [escalation] to a program and its arguments (e.g. [\"notify-send\", \"thinker\"], or [\"apprise\", \"-t\", \"thinker\", \"ntfy://ntfy.sh/your-topic\"] on a headless machine), or an [escalation.webhook]"
    )]
    EmptyCommand,
    #[error(
        "notifier `{program}` not found; install it or fix `notify_command` in [escalation] (a program on PATH or an absolute path; no shell is used)"
    )]
    NotFound { program: String },
    #[error(
        "cannot start notifier `{program}`: {source}; check that `notify_command` in [escalation] names an executable file"
    )]
    Spawn { program: String, source: io::Error },
    #[error(
        "notifier `{program}` {exit}{}; `thinker notify --test` tries it again (a notifier that needs a desktop, such as notify-send, fails under cron: use a webhook or Apprise there)",
        if stderr.is_empty() { String::new() } else { format!(": {stderr}") }
    )]
    Failed {
        program: String,
        exit: String,
        stderr: String,
    },
    #[error(
        "notifier `{program}` did not finish within {seconds} s and was killed{}{}; make it finish sooner or raise `notify_timeout_seconds` in [escalation]",
        match group { Ok(()) => " with its process group".to_string(), Err(why) => format!(" (only itself: its children may live on, {why})") },
        if stderr.is_empty() { String::new() } else { format!("; it printed: {stderr}") }
    )]
    TimedOut {
        program: String,
        seconds: f64,
        /// Whether the whole process group was killed, or why not.
        group: Result<(), KillError>,
        stderr: String,
    },
    #[error("cannot wait for notifier `{program}`: {source}; it may or may not have delivered")]
    Wait { program: String, source: io::Error },
    #[error(transparent)]
    Webhook(#[from] super::webhook::WebhookError),
}

impl NotifyError {
    /// Whether the message may have reached the user though the send failed: the
    /// notifier was killed at its timeout or could not be waited for, or the webhook's
    /// exchange was lost once sent. Never sent again by a tick (no message twice).
    pub fn may_have_delivered(&self) -> bool {
        match self {
            NotifyError::TimedOut { .. } | NotifyError::Wait { .. } => true,
            NotifyError::Webhook(e) => e.may_have_delivered(),
            NotifyError::EmptyCommand
            | NotifyError::NotFound { .. }
            | NotifyError::Spawn { .. }
            | NotifyError::Failed { .. } => false,
        }
    }
}

/// The configured path a message takes to the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notifier<'a> {
    /// Neither `notify_command` nor `[escalation.webhook]` is set.
    None,
    /// `notify_command`: a program, the message on its stdin.
    Command(&'a [String]),
    /// `[escalation.webhook]`: the message posted as JSON.
    Webhook(&'a super::webhook::WebhookSettings),
}

impl<'a> Notifier<'a> {
    /// The path `[escalation]` configures: the webhook when set, else the command.
    pub fn of(command: &'a [String], webhook: Option<&'a super::webhook::WebhookSettings>) -> Self {
        match (webhook, command.is_empty()) {
            (Some(w), _) => Notifier::Webhook(w),
            (None, false) => Notifier::Command(command),
            (None, true) => Notifier::None,
        }
    }

    pub fn is_configured(&self) -> bool {
        !matches!(self, Notifier::None)
    }

    /// The notifier in a few words for people: the program (`argv[0]`), or the webhook's
    /// format (never its URL or arguments: they may hold a token).
    pub fn describe(&self) -> String {
        match self {
            Notifier::None => "no notifier".into(),
            Notifier::Command(argv) => format!(
                "notifier `{}`",
                untrusted::clean_line(argv.first().map_or("", String::as_str))
            ),
            Notifier::Webhook(w) => format!("the {} webhook", w.format.as_str()),
        }
    }
}

/// What a successful send said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    /// [`Notifier::describe`], with the webhook's site.
    pub via: String,
    /// What it answered: the command's output excerpt, the webhook's HTTP status.
    pub said: String,
}

/// Sends `message` through `notifier`, at most `timeout` long.
pub async fn deliver(
    notifier: &Notifier<'_>,
    message: &str,
    timeout: Duration,
) -> Result<Sent, NotifyError> {
    match notifier {
        Notifier::None => Err(NotifyError::EmptyCommand),
        Notifier::Command(argv) => {
            let d = run_notifier(argv, message, timeout).await?;
            let said = [d.stdout.as_str(), d.stderr.as_str()]
                .into_iter()
                .filter(|t| !t.is_empty())
                .collect::<Vec<_>>()
                .join(" / ");
            Ok(Sent {
                via: notifier.describe(),
                said: if said.is_empty() {
                    "exited 0".into()
                } else {
                    format!("exited 0: {said}")
                },
            })
        }
        Notifier::Webhook(settings) => {
            let posted = super::webhook::post(settings, message, timeout).await?;
            Ok(Sent {
                via: format!("{} at {}", notifier.describe(), posted.site),
                said: format!("HTTP {}", posted.status),
            })
        }
    }
}

/// Whether a notifier command can run, as [`check`] finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    /// No command is configured (`notify_command = []`): a notify is recorded failed.
    NotConfigured,
    /// Every program it runs was found (these, as configured).
    Found(Vec<String>),
    /// These programs it runs were not found.
    Missing(Vec<String>),
}

/// Whether the notifier `argv` can run: each program it runs ([`programs`]) found as a
/// path, or on `path` (the `PATH` it will run with, as the caller reads it).
pub fn check(argv: &[String], path: Option<&OsStr>) -> Readiness {
    let programs = programs(argv);
    if programs.is_empty() {
        return Readiness::NotConfigured;
    }
    let missing: Vec<String> = programs
        .iter()
        .filter(|p| find_program(p, path).is_none())
        .map(|p| (*p).to_string())
        .collect();
    if missing.is_empty() {
        Readiness::Found(programs.iter().map(|p| (*p).to_string()).collect())
    } else {
        Readiness::Missing(missing)
    }
}

/// Programs that run the program their arguments name: that one must be found too.
const WRAPPERS: &[&str] = &[
    "xargs", "env", "nice", "nohup", "setsid", "stdbuf", "timeout",
];

/// The programs an argv runs: `argv[0]`, and when it is a wrapper (`xargs -0 notify-send`)
/// the first argument that is not an option, an assignment or a number.
pub fn programs(argv: &[String]) -> Vec<&str> {
    let Some((first, rest)) = argv.split_first() else {
        return Vec::new();
    };
    let mut out = vec![first.as_str()];
    let base = first.rsplit('/').next().unwrap_or(first);
    if WRAPPERS.contains(&base)
        && let Some(wrapped) = rest
            .iter()
            .find(|a| !a.starts_with('-') && !a.contains('=') && a.parse::<f64>().is_err())
    {
        out.push(wrapped);
    }
    out
}

/// The program `program` names: a path as it is, else the first match on `path`.
fn find_program(program: &str, path: Option<&OsStr>) -> Option<PathBuf> {
    let executable = |p: &Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        let p = PathBuf::from(program);
        return executable(&p).then_some(p);
    }
    std::env::split_paths(path?)
        .map(|d| d.join(program))
        .find(|p| executable(p))
}

/// Runs the notifier `argv` (no shell) with `message` on its stdin, at most `timeout`
/// long; see the module doc for the process group, the caps and what errors show.
pub async fn run_notifier(
    argv: &[String],
    message: &str,
    timeout: Duration,
) -> Result<Delivered, NotifyError> {
    let Some((program, arguments)) = argv.split_first() else {
        return Err(NotifyError::EmptyCommand);
    };
    let shown = untrusted::clean_line(program);
    let deadline = tokio::time::Instant::now() + timeout;
    let mut child = GroupChild::spawn(
        tokio::process::Command::new(program)
            .args(arguments)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .map_err(|source| match source.kind() {
        io::ErrorKind::NotFound => NotifyError::NotFound {
            program: shown.clone(),
        },
        _ => NotifyError::Spawn {
            program: shown.clone(),
            source,
        },
    })?;
    let pipes = child.take_pipes();
    let (stdin, stdout, stderr) = (pipes.stdin, pipes.stdout, pipes.stderr);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let ended = {
        let drain = async { tokio::join!(drain(stdout, &mut out), drain(stderr, &mut err)) };
        tokio::pin!(drain);
        let mut drained = false;
        let waited = tokio::time::timeout_at(deadline, async {
            let run = async { tokio::join!(feed(stdin, message), child.wait()).1 };
            tokio::pin!(run);
            loop {
                tokio::select! {
                    status = &mut run => break status,
                    _ = &mut drain, if !drained => drained = true,
                }
            }
        })
        .await;
        let ended = if let Ok(status) = waited {
            Ended::Exited(status)
        } else {
            Ended::TimedOut(child.kill().await)
        };
        if !drained {
            let _ = tokio::time::timeout(PIPE_GRACE, &mut drain).await;
        }
        ended
    };
    let quote = |bytes: &[u8]| quote(bytes, arguments);
    match ended {
        Ended::Exited(Ok(status)) if status.success() => Ok(Delivered {
            program: shown,
            status,
            stdout: quote(&out),
            stderr: quote(&err),
        }),
        Ended::Exited(Ok(status)) => Err(NotifyError::Failed {
            program: shown,
            exit: describe_exit(status),
            stderr: quote(&err),
        }),
        Ended::Exited(Err(source)) => Err(NotifyError::Wait {
            program: shown,
            source,
        }),
        Ended::TimedOut(group) => Err(NotifyError::TimedOut {
            program: shown,
            seconds: timeout.as_secs_f64(),
            group,
            stderr: quote(&err),
        }),
    }
}

/// How the notifier's run ended.
enum Ended {
    Exited(io::Result<ExitStatus>),
    /// Killed at the timeout; whether its group was killed too.
    TimedOut(Result<(), KillError>),
}

/// Writes `message` to the notifier's stdin and closes it. A notifier that exits without
/// reading it all (a broken pipe) is judged by its exit status, not by the write.
async fn feed(stdin: Option<ChildStdin>, message: &str) {
    if let Some(mut stdin) = stdin
        && let Err(e) = stdin.write_all(message.as_bytes()).await
    {
        tracing::debug!("notifier stdin: {e}");
    }
}

/// Reads `r` to its end, keeping its first [`OUTPUT_CAP`] bytes in `keep`.
async fn drain(r: Option<impl AsyncRead + Unpin>, keep: &mut Vec<u8>) {
    let Some(mut r) = r else { return };
    let mut chunk = [0u8; 4096];
    loop {
        match r.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let room = OUTPUT_CAP.saturating_sub(keep.len());
                keep.extend_from_slice(&chunk[..n.min(room)]);
            }
        }
    }
}

/// A notifier's output as an error or a record may show it: arguments it echoes whole
/// redacted, then one clean line of at most [`EXCERPT_CHARS`] characters, redacted again.
fn quote(bytes: &[u8], arguments: &[String]) -> String {
    let redact = |text: &str| {
        arguments
            .iter()
            .enumerate()
            .filter(|(_, a)| a.chars().count() >= REDACT_MIN_CHARS)
            .fold(text.to_string(), |t, (i, a)| {
                t.replace(a.as_str(), &format!("[argument {}]", i + 1))
            })
    };
    let text = String::from_utf8_lossy(bytes);
    redact(&untrusted::excerpt(&redact(&text), EXCERPT_CHARS))
}

fn describe_exit(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => format!("failed ({status})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrapper_names_the_program_it_runs() {
        let argv = |a: &[&str]| a.iter().map(ToString::to_string).collect::<Vec<_>>();
        let table: [(&[&str], &[&str]); 6] = [
            (
                &["xargs", "-0", "notify-send", "--", "thinker"],
                &["xargs", "notify-send"],
            ),
            (&["mail", "-s", "thinker", "me@example.com"], &["mail"]),
            (
                &["/usr/bin/env", "LANG=C", "ntfy", "publish"],
                &["/usr/bin/env", "ntfy"],
            ),
            (&["timeout", "10", "curl", "-s"], &["timeout", "curl"]),
            (&["xargs"], &["xargs"]),
            (&[], &[]),
        ];
        for (command, expected) in table {
            assert_eq!(programs(&argv(command)), expected, "{command:?}");
        }
    }

    /// Table: a command and what `check` finds on a `PATH` of one directory holding an
    /// executable `notify` and a non-executable `plain`.
    #[test]
    fn check_finds_each_program_it_runs() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        for (name, mode) in [("notify", 0o755), ("plain", 0o644), ("xargs", 0o755)] {
            let file = tmp.path().join(name);
            std::fs::write(&file, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        let path = tmp.path().as_os_str();
        let argv = |a: &[&str]| a.iter().map(ToString::to_string).collect::<Vec<_>>();
        let strings = |a: &[&str]| a.iter().map(ToString::to_string).collect::<Vec<_>>();
        let absolute = tmp.path().join("notify").display().to_string();
        let cases: Vec<(Vec<String>, Option<&OsStr>, Readiness)> = vec![
            (argv(&[]), Some(path), Readiness::NotConfigured),
            (
                argv(&["notify", "-t"]),
                Some(path),
                Readiness::Found(strings(&["notify"])),
            ),
            // Not executable, or no PATH at all: not found.
            (
                argv(&["plain"]),
                Some(path),
                Readiness::Missing(strings(&["plain"])),
            ),
            (
                argv(&["notify"]),
                None,
                Readiness::Missing(strings(&["notify"])),
            ),
            // A path is taken as it is, PATH or not.
            (
                vec![absolute.clone()],
                None,
                Readiness::Found(vec![absolute]),
            ),
            // A wrapper's program must be found too.
            (
                argv(&["xargs", "-0", "gone"]),
                Some(path),
                Readiness::Missing(strings(&["gone"])),
            ),
            (
                argv(&["xargs", "-0", "notify"]),
                Some(path),
                Readiness::Found(strings(&["xargs", "notify"])),
            ),
        ];
        for (command, path, want) in cases {
            assert_eq!(check(&command, path), want, "{command:?} {path:?}");
        }
    }

    fn argv(parts: &[&str]) -> Vec<String> {
        parts.iter().map(ToString::to_string).collect()
    }

    #[tokio::test]
    async fn a_notifier_that_succeeds_is_delivered() {
        let d = run_notifier(
            &argv(&["sh", "-c", "cat; echo done >&2"]),
            "hi",
            Duration::from_secs(30),
        )
        .await
        .unwrap();
        assert!(d.status.success());
        assert_eq!((d.stdout.as_str(), d.stderr.as_str()), ("hi", "done"));
    }

    #[tokio::test]
    async fn an_empty_command_says_how_to_set_one() {
        let e = run_notifier(&[], "hi", Duration::from_secs(1))
            .await
            .unwrap_err();
        assert!(matches!(e, NotifyError::EmptyCommand));
        assert!(e.to_string().contains("notify_command"), "{e}");
    }

    #[tokio::test]
    async fn output_is_capped() {
        let d = run_notifier(
            &argv(&["sh", "-c", "head -c 100000 /dev/zero | tr '\\0' x"]),
            "",
            Duration::from_secs(30),
        )
        .await
        .unwrap();
        assert!(d.stdout.chars().count() <= EXCERPT_CHARS);
    }

    #[tokio::test]
    async fn a_notifier_that_ignores_its_stdin_is_judged_by_its_exit() {
        let big = "x".repeat(1 << 20);
        let d = run_notifier(&argv(&["true"]), &big, Duration::from_secs(30)).await;
        assert!(d.is_ok(), "{d:?}");
    }

    #[test]
    fn echoed_arguments_are_redacted_and_the_program_alone_is_named() {
        let args = argv(&["-d", "https://api.example/bot123456:SECRET/send"]);
        let q = quote(
            b"cannot reach https://api.example/bot123456:SECRET/send\n",
            &args,
        );
        assert_eq!(q, "cannot reach [argument 2]");
        let e = NotifyError::Failed {
            program: "curl".into(),
            exit: "exited with code 6".into(),
            stderr: q,
        };
        assert!(!e.to_string().contains("SECRET"), "{e}");
    }
}
