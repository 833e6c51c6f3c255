//! The `command` source's process group (issue 10): a command that forks and hangs, one
//! that prints megabytes, one that exits with a child still running in the background,
//! and one dropped mid-run (by the test, and by a thread timeout in a real tick) leave no
//! process behind; and the command examples `thinker init`
//! writes are valid sources once uncommented.
//!
//! Each command is `sh -c` writing its own pid and its background child's to a pid file
//! (`$$ $!`), then hanging as `exec sleep 300` (so `$$` is the hanging process) or
//! printing through a pipeline; a process counts as gone when `/proc` no longer has it or shows it dead (a
//! zombie: a container's init may never reap it). Gone is polled for a bounded while (a
//! bound for a loaded machine, not a timing claim).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use thinker::config::{Config, DEFAULT_CONFIG};
use thinker::sources::{GatherContext, Gathered, Source, SourceKind, gather};
use thinker::state::State;
use thinker::thread::ThreadName::{self, Oracle, Watcher};

use crate::support::{Tick, t};

/// A shell that starts `sleep 300` in the background, writes `$$ $!` to the pid file
/// (its first argument), then runs `then`.
fn forking(then: &str) -> String {
    format!("sleep 300 & echo $$ $! > \"$1\"; {then}")
}

/// A `command` source running [`forking`]`(then)` with these extra keys.
fn source(then: &str, pid_file: &Path, extra: &[(&str, toml::Value)]) -> Source {
    let argv = [
        "sh",
        "-c",
        &forking(then),
        "sh",
        &pid_file.to_string_lossy(),
    ];
    let mut table = toml::Table::new();
    table.insert("kind".into(), "command".into());
    table.insert("name".into(), "forks".into());
    table.insert(
        "command".into(),
        toml::Value::Array(argv.iter().map(|a| (*a).into()).collect()),
    );
    for (key, value) in extra {
        table.insert((*key).into(), value.clone());
    }
    Source::from_table(table, &|p: &str| Ok(PathBuf::from(p))).unwrap()
}

/// Gathers `source` alone (no other source reads the context).
async fn gather_one(source: &Source) -> Gathered {
    let state = State::default();
    let dir = tempfile::tempdir().unwrap();
    let ctx = GatherContext {
        state: &state,
        state_dir: dir.path(),
        last_tick: None,
        now: t("2026-11-22T10:05:00Z"),
        zone: thinker::clock::Zone::UTC,
        max_bytes: usize::MAX,
    };
    gather(std::slice::from_ref(source), &ctx).await
}

/// The pids in a complete pid file (`$$ $!` and a newline), if it is there yet.
fn pids(pid_file: &Path) -> Option<[u32; 2]> {
    let text = fs::read_to_string(pid_file).ok()?;
    let (shell, child) = text.strip_suffix('\n')?.split_once(' ')?;
    Some([shell.parse().ok()?, child.parse().ok()?])
}

/// The pids the command wrote; it must have written them by now.
fn written(pid_file: &Path) -> [u32; 2] {
    pids(pid_file).unwrap_or_else(|| panic!("{} was not written", pid_file.display()))
}

/// Whether `pid` is gone: not in `/proc`, or dead there (a zombie).
fn gone(pid: u32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| matches!(rest.trim_start().chars().next(), Some('Z' | 'X'))),
    }
}

/// Asserts each pid is gone within a bounded wait; kills what is left before failing,
/// so a failing test leaves nothing running either.
#[track_caller]
fn assert_gone(what: &str, pids: [u32; 2]) {
    for _ in 0..500 {
        if pids.iter().all(|&p| gone(p)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let alive: Vec<u32> = pids.into_iter().filter(|&p| !gone(p)).collect();
    for pid in &alive {
        let _ = std::process::Command::new("kill")
            .args(["-s", "KILL", &pid.to_string()])
            .status();
    }
    panic!("{what}: the shell and its background child should be gone, {alive:?} lived on");
}

#[tokio::test]
async fn a_command_that_forks_and_hangs_dies_with_its_child_at_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pids");
    let source = source(
        "exec sleep 300",
        &pid_file,
        &[("timeout_seconds", 2.into())],
    );
    let gathered = gather_one(&source).await;
    assert!(gathered.texts.is_empty(), "{gathered:?}");
    assert_eq!(gathered.failures[0].error, "timed out after 2 s");
    assert_gone("at the timeout", written(&pid_file));
}

#[tokio::test]
async fn megabytes_of_output_are_capped_and_the_group_killed() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pids");
    let source = source(
        "head -c 50000000 /dev/zero | tr '\\0' x",
        &pid_file,
        &[("max_bytes", 1000.into()), ("timeout_seconds", 120.into())],
    );
    let gathered = gather_one(&source).await;
    assert!(gathered.failures.is_empty(), "{gathered:?}");
    let text = &gathered.texts[0];
    assert!(text.truncated);
    assert_eq!(text.text, "x".repeat(1000));
    // Cut at the cap, not at the timeout: the background sleep dies with the group.
    assert_gone("past the cap", written(&pid_file));
}

#[tokio::test]
async fn a_command_that_exits_takes_its_background_child_with_it() {
    // `sh -c 'sleep 300 & …; echo done'`: the shell exits at once, its `sleep` (holding
    // stdout open) is killed with the group before the shell is reaped.
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pids");
    let source = source("echo done", &pid_file, &[("timeout_seconds", 600.into())]);
    let gathered = gather_one(&source).await;
    assert!(gathered.failures.is_empty(), "{gathered:?}");
    assert_eq!(gathered.texts[0].text.trim(), "done");
    assert_gone("after the shell exited", written(&pid_file));
}

#[tokio::test]
async fn a_source_dropped_mid_run_leaves_no_process_behind() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("pids");
    let source = source(
        "exec sleep 300",
        &pid_file,
        &[("timeout_seconds", 600.into())],
    );
    let started = async {
        while pids(&pid_file).is_none() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    // Dropped once it has started its child, well within its own timeout.
    let ran = tokio::time::timeout(Duration::from_secs(30), async {
        tokio::select! {
            g = gather_one(&source) => panic!("the source ended before it was dropped: {g:?}"),
            () = started => {}
        }
    })
    .await;
    assert!(ran.is_ok(), "the command never wrote its pid file");
    assert_gone("dropped", written(&pid_file));
}

#[test]
fn a_thread_timeout_in_a_tick_kills_the_group() {
    let tick = Tick::new();
    let pid_file = tick.home().join("pids");
    let lines = format!(
        "timeout_seconds = 2\n[[threads.watcher.sources]]\nkind = \"command\"\ncommand = [\"sh\", \"-c\", {script:?}, \"sh\", {pid_file:?}]\ntimeout_seconds = 600",
        script = forking("exec sleep 300"),
    );
    let mut tick = tick.thread(Watcher, &lines).expect_exit(3);
    let outcome = tick.run();
    let error = outcome.thread(Watcher)["error"].to_string();
    assert!(error.contains("timed out after 2"), "{error}");
    assert_gone("after the tick", written(&pid_file));
}

/// The default config with the `[[threads.<thread>.sources]]` block holding
/// `# command = ["<program>"…` uncommented: from that header to its last `# key = value`.
fn uncommented(text: &str, thread: ThreadName, program: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let command = lines
        .iter()
        .position(|l| l.starts_with(&format!("# command = [\"{program}\"")))
        .unwrap_or_else(|| panic!("no {program} example"));
    let header = format!("# [[threads.{thread}.sources]]");
    let start = lines[..command]
        .iter()
        .rposition(|l| *l == header)
        .unwrap_or_else(|| panic!("no {header} above the {program} example"));
    let end = command
        + lines[command..]
            .iter()
            .take_while(|l| l.starts_with("# ") && l.contains(" = "))
            .count();
    lines
        .iter()
        .enumerate()
        .map(|(i, l)| match l.strip_prefix("# ") {
            Some(code) if (start..end).contains(&i) => code,
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_default_configs_command_examples_are_valid_sources() {
    for (thread, program, argv) in [
        (
            Watcher,
            "himalaya",
            &["himalaya", "envelope", "list", "--page-size", "10"][..],
        ),
        (Oracle, "khal", &["khal", "list", "now", "3d"]),
        (Oracle, "gcalcli", &["gcalcli", "--nocolor", "agenda"]),
    ] {
        let text = uncommented(DEFAULT_CONFIG, thread, program);
        assert_ne!(text, DEFAULT_CONFIG);
        let config = Config::parse(
            &text,
            Some(Path::new("/home/sam/.config/thinker/config.toml")),
        )
        .unwrap_or_else(|e| panic!("the {program} example: {e}"));
        let sources = &config.thread(thread).unwrap().sources;
        let found = sources
            .iter()
            .any(|s| matches!(&s.kind, SourceKind::Command(c) if c.argv() == argv));
        assert!(found, "{program}: {sources:?}");
    }
}
