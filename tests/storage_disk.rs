//! Disk trouble (issue 14): writes that fail — a file-size limit (`ulimit -f`, SIGXFSZ
//! ignored so the write returns EFBIG), a read-only state directory, a full disk (a small
//! tmpfs) — fail the tick with exit 1 and a message naming the file and the way out
//! (insta, paths redacted), leave `subconscious.json` and its `.bak` byte for byte as they
//! were and no temp file behind (or one the next tick removes), and the next tick, with
//! the trouble gone, succeeds. Since issue 22 the tick finds each of these before it calls
//! anything (`StateDir::preflight`): nothing is spent on a tick that cannot be recorded.
//!
//! Tests run as root in CI, where `chmod 0500` stops nothing: the read-only directory is
//! then made with `chattr +i` and with a read-only bind mount, each where it works; the
//! full disk needs a tmpfs mount. What cannot be set up is skipped loudly, with the
//! reason, on the test's stderr.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use thinker::thread::ThreadName::{Librarian, Watcher};

use crate::support::{SEED, Tick, found};

/// What must survive a failed tick.
struct Kept {
    state: Vec<u8>,
    bak: Vec<u8>,
    tick_count: u64,
}

fn kept(dir: &Path) -> Kept {
    let state = fs::read(dir.join("subconscious.json")).unwrap();
    let tick_count = serde_json::from_slice::<Value>(&state).unwrap()["tick_count"]
        .as_u64()
        .unwrap();
    Kept {
        state,
        bak: fs::read(dir.join("subconscious.json.bak")).unwrap(),
        tick_count,
    }
}

/// A state directory with a state, its `.bak`, a journal and a ledger: two ticks done.
fn ticked(tick: Tick) -> Tick {
    let mut tick = tick
        .answer(Watcher, &found("Disk almost full on host", 7))
        .answer(Librarian, &found("Invoices pile up before month end", 5));
    for _ in 0..2 {
        tick.run().expect_exit(0);
    }
    tick
}

/// The temp files in `dir`.
fn temps(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') && n.contains(".tmp"))
        .collect()
}

/// `cmd` run by `sh -c script` (the script ends with `exec "$@"`), same environment.
fn under_shell(cmd: &Command, script: &str) -> Command {
    let mut sh = Command::new("sh");
    sh.env_clear();
    for (var, value) in cmd.get_envs() {
        if let Some(value) = value {
            sh.env(var, value);
        }
    }
    sh.arg("-c")
        .arg(script)
        .arg("sh")
        .arg(cmd.get_program())
        .args(cmd.get_args());
    sh
}

/// Runs `cmd`: exit code and stderr; a death by signal fails the test.
fn run(mut cmd: Command) -> (i32, String) {
    let out = cmd.output().unwrap();
    assert_eq!(
        out.status.signal(),
        None,
        "killed by a signal (SIGXFSZ not ignored?)"
    );
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The message with what varies from run to run redacted.
fn redacted(tick: &Tick, stderr: &str) -> String {
    let text = stderr.replace(&tick.dir().display().to_string(), "[STATE]");
    let text = regex::Regex::new(r"\.tmp-\d+")
        .unwrap()
        .replace_all(&text, ".tmp-[PID]");
    regex::Regex::new(r"(Permission denied \(os error 13\)|Operation not permitted \(os error 1\))")
        .unwrap()
        .replace_all(&text, "[denied]")
        .into_owned()
}

/// The tick failed cleanly: exit 1, a message naming a file of the state directory and
/// what the tick left, the state and `.bak` as they were.
fn failed_cleanly(tick: &Tick, (code, stderr): &(i32, String), before: &Kept) {
    assert_eq!(*code, 1, "{stderr}");
    assert!(
        stderr.contains(&tick.dir().display().to_string()),
        "names the file: {stderr}"
    );
    assert!(
        stderr.contains("the state is unchanged")
            || stderr.contains("run thinker again")
            || stderr.contains("--state DIR"),
        "says the way out: {stderr}"
    );
    let dir = tick.dir();
    assert_eq!(
        fs::read(dir.join("subconscious.json")).unwrap(),
        before.state,
        "the state is untouched"
    );
    assert_eq!(
        fs::read(dir.join("subconscious.json.bak")).unwrap(),
        before.bak,
        "the .bak is untouched"
    );
}

/// With the trouble gone, the next tick succeeds, leaves no temp file, and every whole
/// line of the journal and the archive is JSON (a line torn by the failed write stays,
/// on its own).
fn recovers(tick: &mut Tick, before: &Kept) {
    tick.run().expect_exit(0);
    let dir = tick.dir().to_path_buf();
    let state = thinker::storage::StateDir::at(&dir).load().unwrap();
    assert_eq!(state.tick_count, before.tick_count + 1);
    assert_eq!(temps(&dir), Vec::<String>::new(), "no temp file left");
    for name in ["journal.jsonl", "archive.jsonl"] {
        let text = fs::read_to_string(dir.join(name)).unwrap_or_default();
        assert!(text.is_empty() || text.ends_with('\n'), "{name}");
        let last = text.lines().last().unwrap_or("{}");
        assert!(
            serde_json::from_str::<Value>(last).is_ok(),
            "{name}: {last}"
        );
    }
}

fn skipped(what: &str, why: &str) {
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!(
            "\n==================================================================\n\
             SKIPPED: {what}: {why}\n\
             ==================================================================\n"
        )
        .as_bytes(),
    );
}

/// The file-size limit in 512-byte blocks (dash's and POSIX `ulimit -f` unit) under
/// which `bytes` do not fit, with `fits` fitting.
fn blocks_between(fits: u64, bytes: u64) -> u64 {
    let n = fits / 512 + 1;
    assert!(
        n * 512 < bytes,
        "{fits} and {bytes} are too close for a limit"
    );
    n
}

/// `ulimit -f` below the new state's size: the state's temp file cannot be written.
#[test]
fn a_file_size_limit_on_the_state_fails_the_tick_and_keeps_the_old_state() {
    let mut tick = ticked(Tick::new().state(SEED));
    let dir = tick.dir().to_path_buf();
    let before = kept(&dir);
    let ledger = fs::metadata(dir.join("ledger.json")).unwrap().len();
    let limit = blocks_between(ledger + 64, before.state.len() as u64);
    let cmd = tick.command(&["tick"]);
    let failed = run(under_shell(
        &cmd,
        &format!("trap '' XFSZ; ulimit -f {limit}; exec \"$@\""),
    ));
    failed_cleanly(&tick, &failed, &before);
    assert!(failed.1.contains("File too large"), "{}", failed.1);
    assert_eq!(
        temps(&dir),
        Vec::<String>::new(),
        "the failed temp file is removed"
    );
    insta::assert_snapshot!("disk_file_size_limit_state", redacted(&tick, &failed.1));
    recovers(&mut tick, &before);
}

/// `ulimit -f` just above the journal: the tick sees that its line would not fit before
/// it calls anything (issue 22: when the journal could not be written, every tick exited
/// 1 having made its model calls) — nothing called, nothing spent, nothing torn. A line
/// torn by a kill mid-append stays on its own: the next tick's starts a line of its own.
#[test]
fn a_file_size_limit_on_the_journal_stops_the_tick_before_any_call() {
    let mut tick = ticked(Tick::new().state(SEED));
    let dir = tick.dir().to_path_buf();
    // A journal longer than the state by far, so the limit can sit between them.
    let state_len = fs::metadata(dir.join("subconscious.json")).unwrap().len();
    while fs::metadata(dir.join("journal.jsonl")).unwrap().len() < state_len + 4096 {
        tick.run().expect_exit(0);
    }
    let before = kept(&dir);
    let journal = fs::read(dir.join("journal.jsonl")).unwrap();
    let ledger = fs::read(dir.join("ledger.json")).unwrap();
    let calls = tick.all_requests();
    let len = journal.len() as u64;
    let limit = len / 512 + 1; // above the journal, below it plus a tick's line
    let cmd = tick.command(&["tick"]);
    let failed = run(under_shell(
        &cmd,
        &format!("trap '' XFSZ; ulimit -f {limit}; exec \"$@\""),
    ));
    failed_cleanly(&tick, &failed, &before);
    assert!(
        failed.1.contains("journal.jsonl: File too large"),
        "{}",
        failed.1
    );
    assert_eq!(tick.all_requests(), calls, "no model was called");
    assert_eq!(
        fs::read(dir.join("journal.jsonl")).unwrap(),
        journal,
        "nothing torn"
    );
    assert_eq!(
        fs::read(dir.join("ledger.json")).unwrap(),
        ledger,
        "nothing spent"
    );
    assert_eq!(temps(&dir), Vec::<String>::new(), "the probe is removed");
    insta::assert_snapshot!("disk_file_size_limit_journal", redacted(&tick, &failed.1));
    recovers(&mut tick, &before);
    // A torn line, as a kill mid-append leaves it.
    let mut file = fs::OpenOptions::new()
        .append(true)
        .open(dir.join("journal.jsonl"))
        .unwrap();
    std::io::Write::write_all(&mut file, br#"{"time":"2026-11-22T10:"#).unwrap();
    drop(file);
    tick.run().expect_exit(0);
    let text = fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let torn = lines.len() - 2;
    assert!(
        serde_json::from_str::<Value>(lines[torn]).is_err(),
        "the torn line stays"
    );
    assert!(
        serde_json::from_str::<Value>(lines[torn + 1]).is_ok(),
        "not glued onto it"
    );
}

/// Undoes what made the directory read-only, even when the test fails.
struct Undo(Vec<String>);

impl Drop for Undo {
    fn drop(&mut self) {
        for step in &self.0 {
            let _ = Command::new("sh").arg("-c").arg(step).status();
        }
    }
}

/// Whether a file can be created in `dir` now.
fn writable(dir: &Path) -> bool {
    let probe = dir.join("probe-write");
    let ok = fs::write(&probe, "x").is_ok();
    let _ = fs::remove_file(&probe);
    ok
}

fn sh_ok(script: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("{script} 2>/dev/null"))
        .status()
        .is_ok_and(|s| s.success())
}

/// A read-only state directory: the tick cannot write and says so.
#[test]
fn a_read_only_state_directory_fails_the_tick_and_keeps_the_old_state() {
    let mut tick = ticked(Tick::new().state(SEED));
    let dir = tick.dir().to_path_buf();
    let before = kept(&dir);
    let d = dir.display().to_string();
    let mut tried = 0;
    for way in ["chmod", "chattr", "bind mount"] {
        let undo = match way {
            "chmod" => {
                fs::set_permissions(&dir, fs::Permissions::from_mode(0o500)).unwrap();
                let undo = Undo(vec![format!("chmod 700 '{d}'")]);
                if writable(&dir) {
                    drop(undo);
                    skipped(
                        "a state directory made read-only with chmod 0500",
                        "running as root, chmod does not stop writes; chattr +i and a read-only bind mount are tried instead",
                    );
                    continue;
                }
                undo
            }
            "chattr" => {
                if !sh_ok(&format!("chattr +i '{d}'")) {
                    skipped(
                        "a state directory made read-only with chattr +i",
                        "chattr +i failed here (no CAP_LINUX_IMMUTABLE, or a file system without attributes)",
                    );
                    continue;
                }
                Undo(vec![format!("chattr -i '{d}'")])
            }
            _ => {
                if !sh_ok(&format!(
                    "mount --bind '{d}' '{d}' && mount -o remount,bind,ro '{d}'"
                )) {
                    let _ = sh_ok(&format!("umount '{d}'"));
                    skipped(
                        "a state directory on a read-only bind mount",
                        "mount failed here (not root, or no CAP_SYS_ADMIN)",
                    );
                    continue;
                }
                Undo(vec![format!("umount '{d}'")])
            }
        };
        assert!(!writable(&dir), "{way}: the directory is read-only");
        tried += 1;
        let failed = run(tick.command(&["tick"]));
        failed_cleanly(&tick, &failed, &before);
        // chmod (not root) and chattr (root) both deny: the same message.
        let name = if way == "bind mount" {
            "disk_read_only_mount"
        } else {
            "disk_read_only_denied"
        };
        insta::assert_snapshot!(name, redacted(&tick, &failed.1));
        drop(undo);
        assert!(writable(&dir));
    }
    if tried > 0 {
        recovers(&mut tick, &before);
    }
}

/// Unmounts the tmpfs, even when the test fails.
struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// A full disk (a 64 KiB tmpfs filled up): the tick fails, names the full file system,
/// and the next tick with the space back succeeds.
#[test]
fn a_full_disk_fails_the_tick_and_keeps_the_old_state() {
    let tick = Tick::new().state_dir("small");
    let dir = tick.dir().to_path_buf();
    fs::create_dir_all(&dir).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs"])
        .arg(&dir)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        skipped(
            "a full disk (a 64 KiB tmpfs)",
            "mount -t tmpfs failed here (not root, or no CAP_SYS_ADMIN)",
        );
        return;
    }
    let _mount = Mounted(dir.clone());
    let mut tick = ticked(tick.state(SEED));
    let before = kept(&dir);
    // Fill the file system to the last byte.
    let filler = dir.join("filler");
    let mut file = fs::File::create(&filler).unwrap();
    let chunk = vec![b'x'; 1024];
    while std::io::Write::write_all(&mut file, &chunk).is_ok() {}
    while std::io::Write::write_all(&mut file, b"x").is_ok() {}
    drop(file);
    let failed = run(tick.command(&["tick"]));
    failed_cleanly(&tick, &failed, &before);
    assert!(failed.1.contains("No space left on device"), "{}", failed.1);
    insta::assert_snapshot!("disk_full", redacted(&tick, &failed.1));
    fs::remove_file(&filler).unwrap();
    recovers(&mut tick, &before);
}
