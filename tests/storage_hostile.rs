//! The state directory under attack, through the binary: symlinked state files, what a
//! killed tick leaves (stale temp files, a torn journal line), writes that fail half-way,
//! a state path that is a file, and loose permissions.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;

use serde_json::Value;
use thinker::thread::ThreadName::Watcher;

use crate::support::{SEED, Tick, found, snapshot};

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn set_mode(path: &Path, mode: u32) {
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// Like [`snapshot`], but a symbolic link is recorded as its target, not followed.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = match fs::read_link(&path) {
                Ok(target) => format!("-> {}", target.display()).into_bytes(),
                Err(_) => fs::read(&path).unwrap(),
            };
            (name, bytes)
        })
        .collect()
}

fn ledger(dir: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(dir.join("ledger.json")).unwrap()).unwrap()
}

/// A symlinked state (live or dangling, state or `.bak`) is refused by tick and show:
/// exit 1, the link and its target named, not one byte changed here or at the target.
#[test]
fn a_symlinked_state_or_backup_is_refused_and_nothing_changes() {
    let cases = [
        ("subconscious.json", true),
        ("subconscious.json", false),
        ("subconscious.json.bak", true),
        ("subconscious.json.bak", false),
    ];
    for (name, live) in cases {
        let mut tick = Tick::new().answer(Watcher, &found("Disk almost full on host", 7));
        let dir = tick.dir().to_path_buf();
        fs::create_dir_all(&dir).unwrap();
        let elsewhere = dir.parent().unwrap().join("elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        let target = elsewhere.join("real.json");
        if live {
            fs::write(&target, SEED).unwrap();
        }
        if name != "subconscious.json" {
            fs::write(dir.join("subconscious.json"), SEED).unwrap();
        }
        symlink(&target, dir.join(name)).unwrap();
        let before = (files(&dir), files(&elsewhere));
        for args in [
            &["tick"][..],
            &["show"],
            &["show", "--json"],
            &["tick", "--dry-run"],
        ] {
            let out = tick.thinker(args);
            out.expect_exit(1);
            let link = dir.join(name).display().to_string();
            assert!(
                out.stderr.contains(&link),
                "{name} {args:?}: {}",
                out.stderr
            );
            assert!(
                out.stderr.contains(&target.display().to_string()),
                "{}",
                out.stderr
            );
            assert!(out.stderr.contains("symbolic link"), "{}", out.stderr);
            let way_out = if live {
                "cp --remove-destination"
            } else {
                "rm "
            };
            assert!(out.stderr.contains(way_out), "{}", out.stderr);
            assert_eq!(
                (files(&dir), files(&elsewhere)),
                before,
                "{name} live={live} {args:?} changed files"
            );
            assert!(
                fs::symlink_metadata(dir.join(name))
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
        }
    }
}

/// A linked state *directory* is fine: the tick writes through it.
#[test]
fn a_symlinked_state_directory_is_followed() {
    let mut tick = Tick::new().answer(Watcher, &found("Disk almost full on host", 7));
    let dir = tick.dir().to_path_buf();
    let real = dir.parent().unwrap().join("other-disk");
    fs::create_dir_all(&real).unwrap();
    fs::write(real.join("subconscious.json"), SEED).unwrap();
    symlink(&real, &dir).unwrap();
    tick.run().expect_exit(0);
    let state: Value =
        serde_json::from_str(&fs::read_to_string(real.join("subconscious.json")).unwrap()).unwrap();
    assert_eq!(state["tick_count"], 5);
}

/// Temp files of killed ticks are removed by the next tick, under its lock; a dry run
/// (no lock) leaves them, and files that are not thinker's temps are kept.
#[test]
fn stale_temp_files_of_killed_ticks_are_removed_by_the_next_tick_only() {
    let mut tick = Tick::new().state(SEED);
    let dir = tick.dir().to_path_buf();
    let stale = [
        ".subconscious.json.tmp-4242",
        ".subconscious.json.tmp-99999",
        ".subconscious.json.bak.tmp",
        ".ledger.json.tmp-17",
    ];
    for name in stale {
        fs::write(dir.join(name), "x".repeat(1000)).unwrap();
    }
    fs::write(dir.join("notes.tmp"), "mine").unwrap();
    tick.run_with(&["--dry-run"]).expect_exit(0);
    for name in stale {
        assert!(dir.join(name).exists(), "a dry run removed {name}");
    }
    tick.run().expect_exit(0);
    for name in stale {
        assert!(!dir.join(name).exists(), "{name} is still there");
    }
    assert!(dir.join("notes.tmp").exists());
    let left: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert_eq!(left, ["notes.tmp"]);
}

/// A tick killed mid-append leaves a torn last line; the next line starts on its own line.
#[test]
fn a_torn_journal_line_does_not_swallow_the_next_one() {
    let mut tick = Tick::new()
        .state(SEED)
        .answer(Watcher, &found("Disk almost full on host", 7));
    let dir = tick.dir().to_path_buf();
    fs::write(
        dir.join("journal.jsonl"),
        "{\"time\":\"2026-11-22T10:00:00Z\",\"ru",
    )
    .unwrap();
    tick.run().expect_exit(0);
    let text = fs::read_to_string(dir.join("journal.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    let last: Value = serde_json::from_str(lines[1]).unwrap();
    assert_eq!(last["tick_count"], 5);
    assert!(text.ends_with('\n'));
}

/// Every journal line says what the state becomes, so an applied tick can be told from
/// one whose state never landed.
#[test]
fn the_journal_line_carries_the_tick_count_the_state_reaches() {
    let mut tick = Tick::new()
        .state(SEED)
        .answer(Watcher, &found("Disk almost full on host", 7));
    let out = tick.run();
    out.expect_exit(0);
    assert_eq!(out.journal()[0]["tick_count"], 5);
    assert_eq!(out.state()["tick_count"], 5);
}

/// A state commit that fails still leaves the journal line and the spending: the ledger
/// never under-counts, and the state is untouched.
#[test]
fn a_failed_state_commit_still_journals_and_counts_the_spending() {
    let mut tick = Tick::new()
        .state(SEED)
        .answer(Watcher, &found("Disk almost full on host", 7));
    let dir = tick.dir().to_path_buf();
    // A directory where the `.bak` is staged makes the commit fail after everything else
    // (a directory at `.bak` itself is refused before anything is done).
    fs::create_dir_all(dir.join(".subconscious.json.bak.tmp").join("in-the-way")).unwrap();
    let out = tick.run();
    out.expect_exit(1);
    assert!(
        out.stderr
            .contains("journal line and spending were recorded"),
        "{}",
        out.stderr
    );
    assert_eq!(
        fs::read_to_string(dir.join("subconscious.json")).unwrap(),
        SEED
    );
    let journal = out.journal();
    assert_eq!(journal.len(), 1);
    assert_eq!(journal[0]["aggregate"]["applied"], true);
    assert_eq!(journal[0]["tick_count"], 5, "the state never reached it");
    let ledger = ledger(&dir);
    assert_eq!(ledger["runs"], 1);
    assert_eq!(ledger["spent"]["local"]["tokens"], 440, "{ledger}");
    let temps = fs::read_dir(&dir)
        .unwrap()
        .map(Result::unwrap)
        .filter(|e| e.file_type().unwrap().is_file())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .count();
    assert_eq!(temps, 0, "the staged state is removed");
}

/// A journal that cannot be written: the tick's preflight finds it before any call
/// (issue 22), so nothing is spent, the state is not written, and the message says so.
#[test]
fn an_unwritable_journal_leaves_the_state_unchanged_and_says_so() {
    let mut tick = Tick::new()
        .state(SEED)
        .answer(Watcher, &found("Disk almost full on host", 7));
    let dir = tick.dir().to_path_buf();
    fs::create_dir_all(dir.join("journal.jsonl")).unwrap();
    let out = tick.run();
    out.expect_exit(1);
    assert!(out.stderr.contains("journal.jsonl"), "{}", out.stderr);
    assert!(
        out.stderr.contains("the state is unchanged") && out.stderr.contains("nothing was spent"),
        "{}",
        out.stderr
    );
    assert_eq!(
        fs::read_to_string(dir.join("subconscious.json")).unwrap(),
        SEED
    );
    assert!(!dir.join("subconscious.json.bak").exists());
    assert!(
        !dir.join("ledger.json").exists(),
        "no call, so no spending to count"
    );
}

/// `--state` naming a file (or a path under one) says so, not "check the permissions".
#[test]
fn a_state_path_that_is_a_file_says_so() {
    let mut tick = Tick::new();
    let dir = tick.dir().to_path_buf();
    fs::write(&dir, "not a directory").unwrap();
    let out = tick.run();
    out.expect_exit(1);
    assert!(
        out.stderr.contains(&format!(
            "{} is a file, not a directory; pass --state DIR or move it",
            dir.display()
        )),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("check the permissions"));
    assert_eq!(fs::read_to_string(&dir).unwrap(), "not a directory");
}

/// Loose modes on an existing directory and its files are tightened by the next tick,
/// and the `.bak` (a hard link of the old state) ends up 0600 too.
#[test]
fn loose_permissions_are_tightened_by_the_next_tick() {
    let mut tick = Tick::new()
        .state(SEED)
        .answer(Watcher, &found("Disk almost full on host", 7));
    let dir = tick.dir().to_path_buf();
    fs::write(dir.join("journal.jsonl"), "").unwrap();
    fs::write(dir.join("archive.jsonl"), "").unwrap();
    fs::write(dir.join("subconscious.json.bak"), SEED).unwrap();
    set_mode(&dir, 0o777);
    for name in ["subconscious.json", "journal.jsonl", "archive.jsonl"] {
        set_mode(&dir.join(name), 0o666);
    }
    set_mode(&dir.join("subconscious.json.bak"), 0o644);
    tick.run().expect_exit(0);
    assert_eq!(mode(&dir), 0o700);
    for name in [
        "subconscious.json",
        "subconscious.json.bak",
        "journal.jsonl",
        "archive.jsonl",
        "ledger.json",
        "subconscious.json.lock",
    ] {
        assert_eq!(mode(&dir.join(name)), 0o600, "{name}");
    }
}

/// A broken state whose `.bak` is broken too: the `.bak` is not offered as the way back.
#[test]
fn a_broken_backup_is_not_offered_as_the_way_back() {
    let mut tick = Tick::new().state("{\"version\": 1, \"tick_count\": ");
    let dir = tick.dir().to_path_buf();
    fs::write(dir.join("subconscious.json.bak"), "{ nope").unwrap();
    let before = snapshot(&dir).unwrap();
    let out = tick.run();
    out.expect_exit(1);
    assert!(out.stderr.contains("unusable too"), "{}", out.stderr);
    assert!(!out.stderr.contains("`cp "), "{}", out.stderr);
    let mut after = snapshot(&dir).unwrap();
    after.remove("subconscious.json.lock");
    assert_eq!(after, before);
}

/// A linked ledger would be replaced by its first write: refused before any model is
/// called, so no spending goes unrecorded.
#[test]
fn a_symlinked_ledger_is_refused_before_any_call() {
    let mut tick = Tick::new().state(SEED);
    let dir = tick.dir().to_path_buf();
    let target = dir.parent().unwrap().join("ledger-elsewhere.json");
    fs::write(&target, "{\"runs\": 3}").unwrap();
    symlink(&target, dir.join("ledger.json")).unwrap();
    let before = files(&dir);
    let out = tick.run();
    out.expect_exit(1);
    assert!(out.stderr.contains("symbolic link"), "{}", out.stderr);
    assert_eq!(tick.all_requests(), 0);
    assert_eq!(files(&dir), before);
    assert_eq!(fs::read_to_string(&target).unwrap(), "{\"runs\": 3}");
}
