use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::dir::is_stale_temp;
use super::error::{access_error, write_error};
use super::*;
use crate::aggregate::feedback::Verdict;
use crate::ledger::LEDGER_FILE;
use crate::state::State;

#[test]
fn save_keeps_previous_as_backup_with_private_modes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir::create(&tmp.path().join("state")).unwrap();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(dir.path()), 0o700);
    let mut s = State::default();
    dir.save(&s).unwrap();
    s.tick_count = 7;
    dir.save(&s).unwrap();
    assert_eq!(dir.load().unwrap().tick_count, 7);
    let bak = State::from_json(&fs::read_to_string(dir.file(BACKUP_FILE)).unwrap()).unwrap();
    assert_eq!(bak.tick_count, 0);
    assert_eq!(mode(&dir.file(STATE_FILE)), 0o600);
    assert_eq!(mode(&dir.file(BACKUP_FILE)), 0o600);
}

#[test]
fn interrupted_save_leaves_the_old_state() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir::create(tmp.path()).unwrap();
    dir.save(&State::default()).unwrap();
    let before = fs::read(dir.file(STATE_FILE)).unwrap();
    let s = State {
        tick_count: 9,
        ..State::default()
    };
    // The process dies here, before the rename (a kill runs no destructor).
    std::mem::forget(dir.stage(&s).unwrap());
    assert_eq!(fs::read(dir.file(STATE_FILE)).unwrap(), before);
    assert_eq!(dir.load().unwrap().tick_count, 0);
    dir.save(&s).unwrap(); // the next save takes over the stale temp file
    assert_eq!(dir.load().unwrap().tick_count, 9);
}

#[test]
fn second_lock_is_refused_while_first_is_held() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir::create(tmp.path()).unwrap();
    let held = dir.lock().unwrap();
    assert!(matches!(dir.lock(), Err(StorageError::Locked { .. })));
    drop(held);
    assert!(dir.lock().is_ok());
}

#[test]
fn permission_denied_names_owner_mode_and_the_way_out() {
    let tmp = tempfile::tempdir().unwrap();
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let lock = tmp.path().join(LOCK_FILE);
    let denied = io::Error::from(io::ErrorKind::PermissionDenied);
    let e = access_error("take the lock", &lock, denied, |path, source| {
        StorageError::Lock { path, source }
    });
    let text = e.to_string();
    assert!(matches!(e, StorageError::Denied { .. }), "{text}");
    for needle in [
        "cannot take the lock",
        "permission denied",
        "is owned by uid",
        "with mode 0755",
        "run thinker as its owner",
        "chown",
        "chmod 700",
        "--state DIR",
    ] {
        assert!(text.contains(needle), "{needle:?} not in {text}");
    }
    // Any other error keeps its own variant.
    let other = access_error(
        "take the lock",
        &lock,
        io::Error::other("x"),
        |path, source| StorageError::Lock { path, source },
    );
    assert!(matches!(other, StorageError::Lock { .. }));
}

#[test]
fn a_state_directory_that_is_a_file_or_under_one_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("state");
    fs::write(&file, "x").unwrap();
    for path in [file.clone(), file.join("deeper")] {
        let text = StateDir::create(&path).unwrap_err().to_string();
        assert!(
            text.contains(&format!("{} is a file, not a directory", file.display())),
            "{text}"
        );
        assert!(text.contains("pass --state DIR or move it"), "{text}");
    }
    assert_eq!(fs::read(&file).unwrap(), b"x");
}

#[test]
fn stale_temp_names_are_only_the_ones_storage_makes() {
    for stale in [
        ".subconscious.json.tmp-123",
        ".subconscious.json.bak.tmp",
        ".ledger.json.tmp-9",
    ] {
        assert!(is_stale_temp(stale), "{stale}");
    }
    for kept in [
        "subconscious.json",
        "notes.tmp",
        ".tmp",
        ".tmp-1",
        ".x.tmp-",
        ".x.tmp-12a",
        ".hidden",
        "journal.jsonl",
    ] {
        assert!(!is_stale_temp(kept), "{kept}");
    }
}

#[test]
fn tidy_removes_stale_temps_and_tightens_modes() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir::create(tmp.path()).unwrap();
    dir.save(&State::default()).unwrap();
    dir.save(&State::default()).unwrap(); // a .bak
    for name in [".subconscious.json.tmp-77", ".subconscious.json.bak.tmp"] {
        fs::write(dir.file(name), "stale").unwrap();
    }
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let set = |p: &Path, m: u32| fs::set_permissions(p, fs::Permissions::from_mode(m)).unwrap();
    set(dir.path(), 0o777);
    set(&dir.file(STATE_FILE), 0o666);
    let lock = dir.lock().unwrap();
    let done = dir.tidy(&lock);
    assert_eq!(done.removed.len(), 2, "{done:?}");
    assert!(done.warnings.is_empty(), "{done:?}");
    assert!(!dir.file(".subconscious.json.tmp-77").exists());
    assert_eq!(mode(dir.path()), 0o700);
    assert_eq!(mode(&dir.file(STATE_FILE)), 0o600);
    assert_eq!(mode(&dir.file(BACKUP_FILE)), 0o600);
    assert_eq!(dir.tidy(&lock), Tidied::default(), "nothing left to do");
}

/// Guards against a home or shared project directory used as the state directory
/// being made private (0700) behind its owner's back.
#[test]
fn a_directory_holding_other_files_keeps_its_mode() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir::create(tmp.path()).unwrap();
    dir.save(&State::default()).unwrap();
    fs::write(dir.file("notes.txt"), "mine").unwrap();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    let set = |p: &Path, m: u32| fs::set_permissions(p, fs::Permissions::from_mode(m)).unwrap();
    set(dir.path(), 0o2755);
    set(&dir.file(STATE_FILE), 0o644);
    set(&dir.file("notes.txt"), 0o644);
    let lock = dir.lock().unwrap();
    let done = dir.tidy(&lock);
    assert!(done.warnings.is_empty(), "readable is fine: {done:?}");
    assert_eq!(mode(dir.path()), 0o2755, "not thinker's directory");
    assert_eq!(mode(&dir.file("notes.txt")), 0o644, "not thinker's file");
    assert_eq!(mode(&dir.file(STATE_FILE)), 0o600, "thinker's file");
    // Writable by others: warned about, still not changed.
    set(dir.path(), 0o777);
    let done = dir.tidy(&lock);
    assert_eq!(done.warnings.len(), 1, "{done:?}");
    assert!(done.warnings[0].contains("not thinker's"), "{done:?}");
    assert_eq!(mode(dir.path()), 0o777);
}

/// Guards against a FIFO in place of a state file hanging the tick with the lock held.
#[test]
fn a_fifo_in_place_of_a_file_is_refused_without_opening_it() {
    for name in [STATE_FILE, BACKUP_FILE, LEDGER_FILE, LOCK_FILE] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = StateDir::create(tmp.path()).unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(dir.file(name))
            .status()
            .unwrap();
        assert!(status.success());
        let err = dir.lock().unwrap_err();
        assert!(
            matches!(err, StorageError::NotRegular { .. }) && err.to_string().contains("FIFO"),
            "{name}: {err}"
        );
        if name != LEDGER_FILE && name != LOCK_FILE {
            assert!(matches!(dir.load(), Err(StorageError::NotRegular { .. })));
        }
    }
}

/// Guards against a journal linked to /dev/null failing every tick (fsync: EINVAL).
#[test]
fn an_append_to_a_file_that_cannot_be_synced_is_not_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir::create(tmp.path()).unwrap();
    std::os::unix::fs::symlink("/dev/null", dir.file(JOURNAL_FILE)).unwrap();
    dir.append_lines(JOURNAL_FILE, &[serde_json::json!({"a": 1})])
        .unwrap();
}

#[test]
fn a_shared_sticky_directory_is_warned_about_not_tightened() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir::create(tmp.path()).unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o1777)).unwrap();
    let lock = dir.lock().unwrap();
    let done = dir.tidy(&lock);
    assert_eq!(done.warnings.len(), 1, "{done:?}");
    assert!(done.warnings[0].contains("shared directory"), "{done:?}");
    let mode = fs::metadata(dir.path()).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o1777);
    assert!(done.tightened.is_empty(), "{done:?}");
}

fn journal_names(dir: &StateDir) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("journal"))
        .collect();
    names.sort();
    names
}

fn at(time: &str) -> serde_json::Value {
    serde_json::json!({"time": time, "run": 1})
}

/// The journal is renamed aside by its first line's UTC month when a line of another
/// month comes, never over an existing file.
#[test]
fn the_journal_rotates_by_the_utc_month_of_its_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir::create(tmp.path()).unwrap();
    for t in ["2026-10-30T10:00:00Z", "2026-10-31T23:59:59Z"] {
        dir.append_lines(JOURNAL_FILE, &[at(t)]).unwrap();
    }
    assert_eq!(journal_names(&dir), ["journal.jsonl"]);
    dir.append_lines(JOURNAL_FILE, &[at("2026-11-01T00:00:00Z")])
        .unwrap();
    assert_eq!(
        journal_names(&dir),
        ["journal-2026-10.jsonl", "journal.jsonl"]
    );
    let old = fs::read_to_string(dir.file("journal-2026-10.jsonl")).unwrap();
    assert_eq!(old.lines().count(), 2);
    // A clock stepped back into October and forth again: a second October file, the
    // first kept.
    for t in ["2026-10-31T12:00:00Z", "2026-11-01T00:05:00Z"] {
        dir.append_lines(JOURNAL_FILE, &[at(t)]).unwrap();
    }
    assert_eq!(
        journal_names(&dir),
        [
            "journal-2026-10.2.jsonl",
            "journal-2026-10.jsonl",
            "journal-2026-11.jsonl",
            "journal.jsonl"
        ]
    );
    assert_eq!(
        fs::read_to_string(dir.file("journal-2026-10.jsonl")).unwrap(),
        old
    );
}

#[test]
fn the_journal_rotates_by_size_and_never_when_told() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir::create(tmp.path())
        .unwrap()
        .with_journal_rotation(JournalRotation::Size { max_bytes: 100 });
    let times = [
        "2026-11-22T10:00:00Z",
        "2026-11-22T10:05:00Z",
        "2026-11-22T10:10:00Z",
    ];
    for t in times {
        dir.append_lines(JOURNAL_FILE, &[at(t)]).unwrap();
    }
    // Each line is 40 bytes: the third would pass 100.
    assert_eq!(
        journal_names(&dir),
        ["journal-2026-11-22T100000Z.jsonl", "journal.jsonl"]
    );
    let never = tempfile::tempdir().unwrap();
    let dir = StateDir::create(never.path())
        .unwrap()
        .with_journal_rotation(JournalRotation::Never);
    for t in ["2026-10-30T10:00:00Z", "2026-11-22T10:00:00Z"] {
        dir.append_lines(JOURNAL_FILE, &[at(t)]).unwrap();
    }
    assert_eq!(journal_names(&dir), ["journal.jsonl"]);
}

#[test]
fn journal_file_names_read_back_their_start() {
    let start = |n: &str| journal_file_start(n).map(|s| s.map(crate::timestamp::format));
    assert_eq!(start("journal.jsonl"), Some(None));
    assert_eq!(
        start("journal-2026-10.jsonl"),
        Some(Some("2026-10-01T00:00:00Z".into()))
    );
    assert_eq!(
        start("journal-2026-10.3.jsonl"),
        Some(Some("2026-10-01T00:00:00Z".into()))
    );
    assert_eq!(
        start("journal-2026-11-22T100500Z.jsonl"),
        Some(Some("2026-11-22T10:05:00Z".into()))
    );
    for other in [
        "journal-x.jsonl",
        "journal-2026-10.jsonl.bak",
        "journal-2026-10.a.jsonl",
        "archive.jsonl",
    ] {
        assert_eq!(start(other), None, "{other}");
    }
}

fn verdict(id: &str) -> Verdict {
    serde_json::from_value(
        serde_json::json!({"at": "2026-11-22T10:00:00Z", "id": id, "verdict": "used"}),
    )
    .unwrap()
}

/// Guards against a verdict written while a tick takes `feedback.jsonl` landing in
/// the taken file after the tick read it (and being removed with it): the tick waits
/// for the write.
#[test]
fn a_verdict_being_written_when_a_tick_takes_the_file_is_read_by_that_tick() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir::create(tmp.path()).unwrap();
    let mut tick = None;
    dir.append_feedback_with(
        &verdict("p-one"),
        || {},
        || {
            let d = dir.clone();
            tick = Some(std::thread::spawn(move || {
                let lock = d.lock().unwrap();
                d.take_feedback(&lock, 7).verdicts.len()
            }));
            // Time for the tick to rename the file and read it, were it not to wait.
            std::thread::sleep(std::time::Duration::from_millis(50));
        },
    )
    .unwrap();
    assert_eq!(
        tick.unwrap().join().unwrap(),
        1,
        "the tick read the verdict"
    );
    assert!(
        !dir.file(FEEDBACK_FILE).exists(),
        "nothing left for the next tick"
    );
}

/// Guards against a verdict going into a file a tick took between the writer's open
/// and its lock: it goes to the new `feedback.jsonl`, for the next tick.
#[test]
fn a_verdict_opened_before_a_tick_took_the_file_goes_to_the_new_one() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir::create(tmp.path()).unwrap();
    let mut taken = None;
    dir.append_feedback_with(
        &verdict("p-two"),
        || {
            if taken.is_none() {
                let lock = dir.lock().unwrap();
                taken = Some(dir.take_feedback(&lock, 7));
            }
        },
        || {},
    )
    .unwrap();
    let taken = taken.unwrap();
    assert!(taken.verdicts.is_empty(), "{taken:?}");
    dir.clear_feedback(&taken);
    let pending = fs::read_to_string(dir.file(FEEDBACK_FILE)).unwrap();
    assert!(pending.contains("p-two"), "{pending}");
    assert_eq!(dir.peek_feedback().verdicts.len(), 1);
}

#[test]
fn an_append_after_a_torn_line_starts_on_a_new_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir::create(tmp.path()).unwrap();
    fs::write(dir.file(JOURNAL_FILE), "{\"a\":1}\n{\"torn").unwrap();
    dir.append_lines(JOURNAL_FILE, &[serde_json::json!({"b": 2})])
        .unwrap();
    let text = fs::read_to_string(dir.file(JOURNAL_FILE)).unwrap();
    assert_eq!(text, "{\"a\":1}\n{\"torn\n{\"b\":2}\n");
    dir.append_lines(JOURNAL_FILE, &[serde_json::json!({"c": 3})])
        .unwrap();
    assert!(
        fs::read_to_string(dir.file(JOURNAL_FILE))
            .unwrap()
            .ends_with("}\n{\"c\":3}\n")
    );
}

#[test]
fn symlinked_state_or_backup_is_refused_and_never_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir::create(&tmp.path().join("state")).unwrap();
    let real = tmp.path().join("real.json");
    fs::write(&real, State::default().to_json().unwrap()).unwrap();
    for name in [STATE_FILE, BACKUP_FILE] {
        for target in [real.clone(), tmp.path().join("gone.json")] {
            let link = dir.file(name);
            std::os::unix::fs::symlink(&target, &link).unwrap();
            let load = dir.load().unwrap_err().to_string();
            assert!(load.contains(&link.display().to_string()), "{load}");
            assert!(load.contains(&target.display().to_string()), "{load}");
            assert!(load.contains("touched nothing"), "{load}");
            let save = dir.save(&State::default()).unwrap_err();
            assert!(matches!(save, StorageError::Symlink { .. }), "{save}");
            assert!(
                fs::symlink_metadata(&link)
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
            fs::remove_file(&link).unwrap();
        }
    }
    assert_eq!(
        fs::read_to_string(&real).unwrap(),
        State::default().to_json().unwrap()
    );
}

#[test]
fn the_backup_is_offered_only_when_it_validates() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir::create(tmp.path()).unwrap();
    fs::write(dir.file(STATE_FILE), "{broken").unwrap();
    fs::write(dir.file(BACKUP_FILE), State::default().to_json().unwrap()).unwrap();
    assert!(dir.load().unwrap_err().to_string().contains("`cp "));
    fs::write(dir.file(BACKUP_FILE), "{also broken").unwrap();
    let text = dir.load().unwrap_err().to_string();
    assert!(!text.contains("`cp "), "{text}");
    assert!(
        text.contains("backup") && text.contains("unusable too"),
        "{text}"
    );
    fs::remove_file(dir.file(STATE_FILE)).unwrap();
    let text = dir.load().unwrap_err().to_string();
    assert!(!text.contains("`cp "), "{text}");
    assert!(text.contains("unusable too"), "{text}");
}

#[test]
fn a_write_error_says_what_it_leaves_behind() {
    let e = write_error(Path::new("/s/journal.jsonl"), io::Error::other("disk full"));
    assert!(e.to_string().ends_with("; the state is unchanged"), "{e}");
    let e = e.after(Aftermath::SpendingRecorded).to_string();
    assert!(e.contains("spending is counted in ledger.json"), "{e}");
    let durable = StorageError::Write {
        path: PathBuf::from("/s"),
        source: io::Error::other("EIO"),
        aftermath: Aftermath::NotDurable,
    };
    let kept = durable.after(Aftermath::Journaled).to_string();
    assert!(kept.contains("the new state is in place"), "{kept}");
}

#[test]
fn a_failed_write_names_the_way_out_when_there_is_one() {
    let path = Path::new("/s/state/journal.jsonl");
    for (kind, wanted) in [
        (io::ErrorKind::StorageFull, "/s/state is full: free space"),
        (io::ErrorKind::QuotaExceeded, "disk quota"),
        (io::ErrorKind::FileTooLarge, "`ulimit -f`"),
        (io::ErrorKind::ReadOnlyFilesystem, "mounted read-only"),
        (io::ErrorKind::PermissionDenied, "`chattr -i /s/state`"),
    ] {
        let text = write_error(path, io::Error::from(kind)).to_string();
        assert!(text.contains(wanted), "{kind:?}: {text}");
        assert!(
            text.contains("the state is unchanged. "),
            "after the aftermath: {text}"
        );
    }
    let other = write_error(path, io::Error::other("EIO")).to_string();
    assert!(other.ends_with("; the state is unchanged"), "{other}");
    let lock = StorageError::Lock {
        path: PathBuf::from("/s/state/subconscious.json.lock"),
        source: io::Error::from(io::ErrorKind::ReadOnlyFilesystem),
    };
    assert!(lock.to_string().contains("remount it read-write"), "{lock}");
}

#[test]
fn a_failed_commit_drops_its_staged_temp_file() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = StateDir::create(tmp.path()).unwrap();
    dir.save(&State::default()).unwrap();
    fs::create_dir_all(dir.file(BACKUP_FILE).join("in-the-way")).unwrap();
    let staged = dir.stage(&State::default()).unwrap();
    let tmp_path = staged.path().to_path_buf();
    assert!(tmp_path.exists());
    assert!(dir.commit_staged(staged).is_err());
    assert!(!tmp_path.exists());
    assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        2,
        "state and .bak only"
    );
}
