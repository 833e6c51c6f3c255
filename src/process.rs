//! Child processes in a process group of their own, and killing that whole group: the one
//! mechanism behind the `command` source and the notifier (`escalation::notify`).
//!
//! [`GroupChild::spawn`] starts a program as the leader of a new process group
//! (`process_group(0)`: the group's id is the leader's pid), so what it starts (the
//! children of a `sh -c` wrapper, `curl` run by a notifier script, `sleep` in the
//! background) shares its group. The group never outlives its leader by our hand:
//!
//! - [`GroupChild::wait`] waits for the leader to exit, then sends `SIGKILL` to the whole
//!   group (what it left running: `sh -c 'sleep 300 & echo hi'`'s `sleep`), then reaps
//!   the leader;
//! - [`GroupChild::kill`] (a timeout, output past its cap) sends `SIGKILL` to the whole
//!   group, then to the leader through tokio, and reaps it;
//! - dropping a [`GroupChild`] whose leader has not been reaped (the caller's future
//!   dropped mid-run: a thread timeout, the tick deadline) kills the group the same way,
//!   synchronously, before tokio's `kill_on_drop` kills the leader.
//!
//! **Only while the leader is unreaped.** A group is signalled only before its leader has
//! been reaped: until then the leader's pid is taken (a zombie keeps it), and so is the
//! group's id, which is the same number — the kernel gives neither to another process, so
//! the signal cannot reach an unrelated group. [`GroupChild::wait`] learns that the leader
//! has exited *without* reaping it (`waitid(P_PID, pid, WEXITED | WNOWAIT | WNOHANG)`,
//! checked again at each `SIGCHLD`), kills the group, and only then reaps. Once reaped,
//! [`GroupChild::kill`] refuses ([`KillError::Exited`]) and dropping does nothing. What
//! escapes the group (a daemon that calls `setsid`) is out of reach and lives on; callers
//! bound how long they read the pipes such a process may hold.
//!
//! **How the group is signalled**: `kill(-PGID, SIGKILL)` in-process, through `rustix`'s
//! safe wrapper (`kill_process_group`; the crate forbids `unsafe`): no `kill` program is
//! run, so the default path spawns nothing but what the user configured. tokio's
//! `Child::kill` reaches only the direct child, so the leader is also killed through it.
//!
//! Must not: choose what runs or how (arguments, stdin, pipes: the caller's `Command`),
//! run a shell, read pipes, or decide what a kill means to the user (callers word their
//! errors).

use std::io;
use std::process::ExitStatus;
use std::time::Duration;

use rustix::process::{Pid, Signal, WaitId, WaitIdOptions};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::signal::unix::{SignalKind, signal};

/// How often the leader is looked at when no `SIGCHLD` stream could be set up (a
/// fallback: the stream is there in every runtime this crate builds).
const POLL_WITHOUT_SIGCHLD: Duration = Duration::from_millis(5);

/// Why a process group was not (known to be) killed. The leader itself is killed and
/// reaped in every case but [`KillError::Exited`]; only its children may live on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KillError {
    /// The leader's pid was unknown (tokio had already seen it exit), or it could not be
    /// waited for without reaping it.
    #[error("its process id was unknown")]
    NoPid,
    /// The leader had exited and been reaped: its group id may belong to someone else.
    #[error("it had already exited, so its process group was left alone")]
    Exited,
    /// `kill(-PGID, SIGKILL)` failed (a member runs as another user, so it was not ours
    /// to signal).
    #[error("`kill(-{pgid}, SIGKILL)` failed: {source}")]
    Signal {
        pgid: i32,
        source: rustix::io::Errno,
    },
}

/// The pipes a [`GroupChild`] was spawned with (those set to `Stdio::piped()`).
#[derive(Debug)]
pub struct Pipes {
    pub stdin: Option<ChildStdin>,
    pub stdout: Option<ChildStdout>,
    pub stderr: Option<ChildStderr>,
}

/// A child process leading a process group of its own; see the module doc.
#[derive(Debug)]
pub struct GroupChild {
    child: Child,
    /// The group's id, the leader's pid (`None`: tokio did not know it, or it is not
    /// one a group can be signalled by).
    pgid: Option<Pid>,
    /// The leader has been reaped: its group is never signalled again.
    reaped: bool,
    /// `SIGCHLD`s since before the spawn: each is a moment to look at the leader again.
    sigchld: Option<tokio::signal::unix::Signal>,
}

impl GroupChild {
    /// Spawns `command` as the leader of a new process group, killed on drop. The caller
    /// sets the program, arguments and pipes. Must run inside the tokio runtime.
    pub fn spawn(command: &mut Command) -> io::Result<GroupChild> {
        // Listening before the spawn: an exit that comes before the first look is seen.
        let sigchld = signal(SignalKind::child()).ok();
        let child = command.process_group(0).kill_on_drop(true).spawn()?;
        // Pid 1 would make `kill(-1, …)` signal every process we may: never a group here.
        let pgid = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .filter(|&id| id > 1)
            .and_then(Pid::from_raw);
        Ok(GroupChild {
            child,
            pgid,
            reaped: false,
            sigchld,
        })
    }

    /// The leader's pid (the group's id) while it is unreaped.
    pub fn pgid(&self) -> Option<u32> {
        self.pgid
            .filter(|_| !self.reaped)
            .and_then(|p| u32::try_from(p.as_raw_pid()).ok())
    }

    /// Takes the leader's pipes (each `None` when not piped or already taken).
    pub fn take_pipes(&mut self) -> Pipes {
        Pipes {
            stdin: self.child.stdin.take(),
            stdout: self.child.stdout.take(),
            stderr: self.child.stderr.take(),
        }
    }

    /// Waits for the leader to exit, kills what it left running in its group, and reaps
    /// it; from then on the group is never signalled (see the module doc). Cancel-safe.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        if !self.reaped
            && self.exited_unreaped().await
            && let Err(e) = self.kill_group()
        {
            tracing::debug!("what an exited process left running: {e}");
        }
        let status = self.child.wait().await;
        if status.is_ok() {
            self.reaped = true;
        }
        status
    }

    /// Kills the whole group (`SIGKILL`), then the leader through tokio, and reaps the
    /// leader. `Ok` when the group was killed; otherwise why not (the leader is killed
    /// and reaped all the same, unless it had already been reaped).
    pub async fn kill(&mut self) -> Result<(), KillError> {
        if self.reaped {
            return Err(KillError::Exited);
        }
        let group = self.kill_group();
        let _ = self.child.start_kill();
        match self.child.wait().await {
            Ok(_) => self.reaped = true,
            Err(e) => tracing::debug!("cannot reap a killed process: {e}"),
        }
        group
    }

    /// Waits until the leader has exited, leaving it unreaped (a zombie that holds its
    /// pid and so the group's id). `false` when that cannot be known (no pid, or the
    /// leader is no longer ours to wait for): the group is then left alone.
    async fn exited_unreaped(&mut self) -> bool {
        let Some(pid) = self.pgid else {
            return false;
        };
        let look = WaitIdOptions::EXITED | WaitIdOptions::NOWAIT | WaitIdOptions::NOHANG;
        loop {
            match rustix::process::waitid(WaitId::Pid(pid), look) {
                Ok(Some(_)) => return true,
                Ok(None) => {}
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => {
                    tracing::debug!("cannot look at process {}: {e}", pid.as_raw_pid());
                    self.pgid = None;
                    return false;
                }
            }
            match &mut self.sigchld {
                Some(sigchld) => {
                    sigchld.recv().await;
                }
                None => tokio::time::sleep(POLL_WITHOUT_SIGCHLD).await,
            }
        }
    }

    /// `kill(-PGID, SIGKILL)` while the leader is unreaped (its pid, the group's id,
    /// cannot have been reused). A group already gone counts as killed.
    fn kill_group(&self) -> Result<(), KillError> {
        if self.reaped {
            return Err(KillError::Exited);
        }
        let pgid = self.pgid.ok_or(KillError::NoPid)?;
        match rustix::process::kill_process_group(pgid, Signal::KILL) {
            Ok(()) | Err(rustix::io::Errno::SRCH) => Ok(()),
            Err(source) => Err(KillError::Signal {
                pgid: pgid.as_raw_pid(),
                source,
            }),
        }
    }
}

impl Drop for GroupChild {
    fn drop(&mut self) {
        if !self.reaped && self.pgid.is_some() {
            let _ = self.kill_group();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::process::Stdio;

    use tokio::io::{AsyncBufReadExt, BufReader};

    use super::*;

    /// Whether `pid` is gone: no such process, or a zombie (dead, waiting for a reaper
    /// that may never come in a container whose init does not reap).
    fn gone(pid: u32) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => true,
            Ok(stat) => stat.rsplit_once(')').is_some_and(|(_, rest)| {
                matches!(rest.trim_start().chars().next(), Some('Z' | 'X'))
            }),
        }
    }

    /// Polls [`gone`] for up to 10 s (a bound for a loaded machine, not a timing claim).
    async fn dies(pid: u32) -> bool {
        for _ in 0..500 {
            if gone(pid) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        false
    }

    /// A shell that starts `sleep 300` (or `background`) in the background, prints its pid
    /// and then runs `tail` (in the foreground: `sleep 300` keeps the shell unreaped);
    /// returns it and the pid.
    async fn shell_with(background: &str, tail: &str) -> (GroupChild, u32) {
        let mut group = GroupChild::spawn(
            Command::new("sh")
                .args(["-c", &format!("{background} & echo $!; {tail}")])
                .stdin(Stdio::null())
                .stdout(Stdio::piped()),
        )
        .unwrap();
        let stdout = group.take_pipes().stdout.unwrap();
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).await.unwrap();
        (group, line.trim().parse().unwrap())
    }

    async fn shell_with_a_background_child(tail: &str) -> (GroupChild, u32) {
        shell_with("sleep 300", tail).await
    }

    fn kill_by_hand(pid: u32) {
        if let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) {
            let _ = rustix::process::kill_process(pid, Signal::KILL);
        }
    }

    #[tokio::test]
    async fn kill_reaches_the_leaders_children() {
        let (mut group, child) = shell_with_a_background_child("sleep 300").await;
        let leader = group.pgid().unwrap();
        assert_eq!(group.kill().await, Ok(()));
        assert_eq!(group.pgid(), None);
        assert!(dies(child).await, "the background sleep {child} lives on");
        assert!(dies(leader).await, "the leader {leader} lives on");
    }

    #[tokio::test]
    async fn dropping_an_unreaped_leader_kills_its_group() {
        let (group, child) = shell_with_a_background_child("sleep 300").await;
        drop(group);
        assert!(dies(child).await, "the background sleep {child} lives on");
    }

    #[tokio::test]
    async fn a_leader_that_exits_takes_what_it_left_running_with_it() {
        let (mut group, child) = shell_with_a_background_child("exit 0").await;
        assert!(group.wait().await.unwrap().success());
        assert!(
            dies(child).await,
            "the background sleep {child} outlived its leader"
        );
        // Reaped: from now on nothing is signalled.
        assert_eq!(group.pgid(), None);
        assert_eq!(group.kill().await, Err(KillError::Exited));
    }

    #[tokio::test]
    async fn the_exit_status_is_the_leaders_own() {
        let (mut group, child) = shell_with_a_background_child("exit 7").await;
        assert_eq!(group.wait().await.unwrap().code(), Some(7));
        assert!(dies(child).await);
        // Waiting again gives the same status, and signals nothing.
        assert_eq!(group.wait().await.unwrap().code(), Some(7));
    }

    #[tokio::test]
    async fn what_leaves_the_group_is_left_alone() {
        // `setsid` puts the sleep in a session (and group) of its own: out of reach. The
        // shell exits once it has left (its group, field 5 of its stat, is no longer ours).
        let left = r#"until [ "$(cut -d ' ' -f 5 /proc/$!/stat)" != "$$" ]; do :; done; exit 0"#;
        let (mut group, child) = shell_with("exec setsid sleep 300", left).await;
        assert!(group.wait().await.unwrap().success());
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!gone(child), "a process outside the group was signalled");
        kill_by_hand(child);
    }

    #[tokio::test]
    async fn many_groups_at_once_each_end_with_their_leader() {
        // Leaders exiting together: each `SIGCHLD` wakes every waiter, each looks at its
        // own leader.
        let mut shells = Vec::new();
        for i in 0..8 {
            shells.push(shell_with_a_background_child(&format!("sleep 0.{i}; exit {i}")).await);
        }
        let waits = shells.iter_mut().map(|(g, _)| g.wait());
        let codes: Vec<_> = futures::future::join_all(waits)
            .await
            .into_iter()
            .map(|s| s.unwrap().code())
            .collect();
        assert_eq!(codes, (0..8).map(Some).collect::<Vec<_>>());
        for (_, child) in &shells {
            assert!(dies(*child).await, "{child} outlived its leader");
        }
    }

    #[test]
    fn errors_say_what_was_not_killed() {
        assert_eq!(
            KillError::Signal {
                pgid: 4242,
                source: rustix::io::Errno::PERM
            }
            .to_string(),
            "`kill(-4242, SIGKILL)` failed: Operation not permitted (os error 1)"
        );
        assert_eq!(
            KillError::Exited.to_string(),
            "it had already exited, so its process group was left alone"
        );
    }
}
