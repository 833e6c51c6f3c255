//! Child processes in a process group of their own, and killing that whole group: the one
//! mechanism behind the `command` source and the notifier (`escalation::notify`).
//!
//! [`GroupChild::spawn`] starts a program as the leader of a new process group
//! (`process_group(0)`: the group's id is the leader's pid), so what it starts (the
//! children of a `sh -c` wrapper, `curl` run by a notifier script, `sleep` in the
//! background) shares its group. [`GroupChild::kill`] sends `SIGKILL` to the whole group,
//! then to the leader through tokio (so it dies even when no `kill` program can be run),
//! and reaps it; dropping a [`GroupChild`] whose leader has not been reaped (the caller's
//! future dropped mid-run: a thread timeout, the tick deadline) kills the group the same
//! way, synchronously, before tokio's `kill_on_drop` kills the leader.
//!
//! **Only while the leader is unreaped.** A group is signalled only before its leader has
//! been reaped ([`GroupChild::wait`] returned): until then the leader's pid, and so the
//! group id, cannot be given to another process. Once it has been reaped, an empty group's
//! id may be reused by an unrelated process group, so [`GroupChild::kill`] refuses
//! ([`KillError::Exited`]) and dropping does nothing: what a leader left running after
//! it exited normally (`sh -c 'sleep 300 & echo hi'`) lives on. Callers bound how long
//! they read the pipes such a process may hold.
//!
//! **How the group is killed**: `kill -s KILL -- -PGID`, the POSIX `kill` utility, looked
//! up on `PATH`, then `/bin/kill`, `/usr/bin/kill`. The crate forbids `unsafe` (so no
//! `libc::killpg`) and tokio's `Child::kill` reaches only the direct child; `nix` or
//! `rustix` would do it in-process but add a dependency for one call on a path taken only
//! by a hanging or runaway child. On drop the utility runs synchronously (a few
//! milliseconds, on the dropping thread): a drop cannot await.
//!
//! Must not: choose what runs or how (arguments, stdin, pipes: the caller's `Command`),
//! run a shell, read pipes, or decide what a kill means to the user (callers word their
//! errors).

use std::io;
use std::process::{ExitStatus, Stdio};

use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

/// Where the `kill` utility is looked for, in order.
const KILL_PROGRAMS: [&str; 3] = ["kill", "/bin/kill", "/usr/bin/kill"];

/// Why a process group was not (known to be) killed. The leader itself is killed and
/// reaped in every case but [`KillError::Exited`]; only its children may live on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KillError {
    /// The leader's pid was unknown (tokio had already seen it exit).
    #[error("its process id was unknown")]
    NoPid,
    /// The leader had exited and been reaped: its group id may belong to someone else.
    #[error("it had already exited, so its process group was left alone")]
    Exited,
    /// `kill` ran and failed (the group had already gone, or it was not ours to signal).
    #[error("`{program} -s KILL -- {target}` {status}")]
    Refused {
        program: &'static str,
        target: String,
        status: ExitStatus,
    },
    /// `kill` could not be run.
    #[error("cannot run `{program}`: {message}")]
    Run {
        program: &'static str,
        message: String,
    },
    /// None of [`KILL_PROGRAMS`] exists.
    #[error("no `kill` program was found")]
    NoKillProgram,
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
    /// The group's id, the leader's pid (`None`: tokio did not know it).
    pgid: Option<u32>,
    /// The leader has been reaped: its group is never signalled again.
    reaped: bool,
}

impl GroupChild {
    /// Spawns `command` as the leader of a new process group, killed on drop. The caller
    /// sets the program, arguments and pipes.
    pub fn spawn(command: &mut Command) -> io::Result<GroupChild> {
        let child = command.process_group(0).kill_on_drop(true).spawn()?;
        let pgid = child.id();
        Ok(GroupChild {
            child,
            pgid,
            reaped: false,
        })
    }

    /// The leader's pid (the group's id) while it is unreaped.
    pub fn pgid(&self) -> Option<u32> {
        self.pgid.filter(|_| !self.reaped)
    }

    /// Takes the leader's pipes (each `None` when not piped or already taken).
    pub fn take_pipes(&mut self) -> Pipes {
        Pipes {
            stdin: self.child.stdin.take(),
            stdout: self.child.stdout.take(),
            stderr: self.child.stderr.take(),
        }
    }

    /// Waits for the leader to exit and reaps it; from then on the group is never
    /// signalled (see the module doc). Cancel-safe.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
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
        let group = match self.pgid {
            Some(pgid) => kill_group(pgid).await,
            None => Err(KillError::NoPid),
        };
        let _ = self.child.start_kill();
        match self.child.wait().await {
            Ok(_) => self.reaped = true,
            Err(e) => tracing::debug!("cannot reap a killed process: {e}"),
        }
        group
    }
}

impl Drop for GroupChild {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid() {
            let target = format!("-{pgid}");
            for program in KILL_PROGRAMS {
                let status = std::process::Command::new(program)
                    .args(["-s", "KILL", "--", &target])
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status();
                if !matches!(&status, Err(e) if e.kind() == io::ErrorKind::NotFound) {
                    return;
                }
            }
        }
    }
}

/// Sends `SIGKILL` to the process group `pgid` with the `kill` utility.
async fn kill_group(pgid: u32) -> Result<(), KillError> {
    let target = format!("-{pgid}");
    for program in KILL_PROGRAMS {
        let status = Command::new(program)
            .args(["-s", "KILL", "--", &target])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .await;
        match status {
            Ok(s) if s.success() => return Ok(()),
            Ok(status) => {
                return Err(KillError::Refused {
                    program,
                    target,
                    status,
                });
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(KillError::Run {
                    program,
                    message: e.to_string(),
                });
            }
        }
    }
    Err(KillError::NoKillProgram)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

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

    /// A shell that starts `sleep 300` in the background, prints its pid and then runs
    /// `tail` (in the foreground, so the shell stays unreaped); returns it and the pid.
    async fn shell_with_a_background_child(tail: &str) -> (GroupChild, u32) {
        let mut group = GroupChild::spawn(
            Command::new("sh")
                .args(["-c", &format!("sleep 300 & echo $!; {tail}")])
                .stdin(Stdio::null())
                .stdout(Stdio::piped()),
        )
        .unwrap();
        let stdout = group.take_pipes().stdout.unwrap();
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).await.unwrap();
        (group, line.trim().parse().unwrap())
    }

    fn kill_by_hand(pid: u32) {
        let _ = std::process::Command::new("kill")
            .args(["-s", "KILL", &pid.to_string()])
            .status();
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
    async fn a_reaped_leaders_group_is_left_alone() {
        // Guards the group id against reuse: once the leader is reaped, nothing is signalled.
        let (mut group, child) = shell_with_a_background_child("exit 0").await;
        assert!(group.wait().await.unwrap().success());
        assert_eq!(group.pgid(), None);
        assert_eq!(group.kill().await, Err(KillError::Exited));
        drop(group);
        assert!(!gone(child), "nothing may signal a reaped leader's group");
        kill_by_hand(child);
    }

    #[test]
    fn errors_say_what_was_not_killed() {
        assert_eq!(
            KillError::NoKillProgram.to_string(),
            "no `kill` program was found"
        );
        assert_eq!(
            KillError::Run {
                program: "kill",
                message: "permission denied".into()
            }
            .to_string(),
            "cannot run `kill`: permission denied"
        );
    }
}
