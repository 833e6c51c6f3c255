//! The state directory on disk (SPEC §2): its lock, the atomic write of
//! `subconscious.json` with its `.bak`, the append-only `archive.jsonl` and
//! `journal.jsonl`, and the read and atomic write of `ledger.json` (whose content
//! `budget` owns).
//!
//! Owns every byte thinker writes to the state directory, and decides nothing about what
//! is written. A state file that does not read or validate is never overwritten; the
//! error names the file, the problem and the way back (`.bak`, only when the `.bak`
//! itself validates). Directories are created 0700, files 0600; under the tick lock,
//! [`StateDir::tidy`] tightens an existing directory and its files to those modes and
//! removes the temp files a killed process left.
//!
//! `subconscious.json` and `subconscious.json.bak` are never symbolic links: a link, live
//! or dangling, is refused by every command that reads or writes the state, with the way
//! out, and is never followed or replaced (a rename over it would replace the link and
//! leave its target stale forever); the same holds for any file written by rename, such
//! as `ledger.json`. Appends (journal, archive) follow a link. A linked state *directory*
//! is fine.
//!
//! Appends start on a new line when a killed process left the file without a final
//! newline, so one torn line never swallows the next. `feedback.jsonl` is appended
//! without the tick lock; its hand-over to a tick goes through `flock` of the file itself
//! ([`StateDir::append_feedback`], [`StateDir::take_feedback`]). A failed write names the
//! way out when the user has one (a full disk, a file-size limit, a read-only or denied
//! directory) and removes its half-written temp file.
//!
//! The journal is rotated in its append ([`JournalRotation`]): before a line goes into
//! `journal.jsonl`, a file whose first line is of another UTC month than the new line
//! (or that the new lines would take past `max_bytes`) is renamed to
//! `journal-<stamp>.jsonl`, the stamp being its first line's UTC month (`2026-11`) or
//! instant (`2026-11-22T100500Z`); [`journal_file_start`] reads a stamp back. The tick
//! appends under its lock, so a rotation never races another. The archive is not rotated.

use std::fmt;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::aggregate::feedback::Verdict;
use crate::journal::files;
pub use crate::journal::files::{JournalRotation, journal_file_order, journal_file_start};
use crate::ledger::{LEDGER_FILE, Ledger};
use crate::state::{State, StateProblem};
use crate::untrusted::redact::RedactionKey;

pub const STATE_FILE: &str = "subconscious.json";
pub const BACKUP_FILE: &str = "subconscious.json.bak";
pub const LOCK_FILE: &str = "subconscious.json.lock";
pub const ARCHIVE_FILE: &str = "archive.jsonl";
pub const JOURNAL_FILE: &str = "journal.jsonl";
/// The agent's verdicts (SPEC §7.9), appended without the lock.
pub const FEEDBACK_FILE: &str = "feedback.jsonl";
/// `feedback.jsonl` as a tick took it, under the lock, until its state is committed:
/// `feedback.jsonl.consumed-<run>` (`-<run>.<n>` when that name is taken).
const CONSUMED_PREFIX: &str = "feedback.jsonl.consumed-";
/// The hook's per-session records (`thinker hook`), written without the lock.
pub const HOOKS_DIR: &str = "hooks";

/// The file a failed cron tick's output is appended to (`thinker cron`): thinker's own, so
/// it does not keep [`StateDir::tidy`] from making the directory private.
pub const CRON_LOG_FILE: &str = "cron.log";

/// The secret redaction placeholders are keyed with (SPEC §9): 64 hex digits, written
/// once, 0600, never logged. Removing it gives new placeholders to values the memory
/// already mentions.
pub const REDACTION_KEY_FILE: &str = "redaction.key";

/// The files of the state directory that [`StateDir::tidy`] keeps at mode 0600.
const PRIVATE_FILES: [&str; 8] = [
    STATE_FILE,
    BACKUP_FILE,
    LOCK_FILE,
    ARCHIVE_FILE,
    JOURNAL_FILE,
    LEDGER_FILE,
    FEEDBACK_FILE,
    REDACTION_KEY_FILE,
];

/// What went wrong with the state directory.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error("cannot create state directory {path}: {source}; pass --state DIR")]
    CreateDir { path: PathBuf, source: io::Error },
    #[error(
        "state directory {path}{blocker} is {what}, not a directory; pass --state DIR or move it",
        blocker = if blocker == path { String::new() } else { format!(" cannot be used: {}", blocker.display()) }
    )]
    NotADirectory {
        path: PathBuf,
        /// The path itself, or the ancestor that is in the way.
        blocker: PathBuf,
        what: &'static str,
    },
    #[error("cannot {action} {path}: permission denied. {access}")]
    Denied {
        action: &'static str,
        path: PathBuf,
        access: Access,
    },
    #[error(
        "{path} is a symbolic link to {target}{dangling}; thinker never follows or replaces a link in place of a file it writes by renaming (the write would replace the link and leave its target stale), so it stopped and touched nothing. {way_out}",
        target = target.display(),
        dangling = if *dangling { ", which does not exist" } else { "" }
    )]
    Symlink {
        path: PathBuf,
        target: PathBuf,
        dangling: bool,
        way_out: String,
    },
    #[error(
        "{path} is {kind}, not a regular file; thinker reads and writes its files only as regular files (a FIFO or a device could hang the tick or swallow the state), so it stopped and touched nothing. Move it aside (`mv {path} {path}.aside`) or pass --state a directory of thinker's own",
        path = path.display()
    )]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error("another thinker tick holds the lock {path}; this run was skipped and touched nothing")]
    Locked { path: PathBuf },
    #[error("cannot take the lock {path}: {source}{}", way_out(source, path))]
    Lock { path: PathBuf, source: io::Error },
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: io::Error },
    #[error("state file {path} is unusable: {problem}. It was left untouched. {way_out}")]
    Invalid {
        path: PathBuf,
        problem: StateProblem,
        way_out: String,
    },
    #[error("state file {path} is missing but its backup {backup} exists; {way_out}")]
    MissingWithBackup {
        path: PathBuf,
        backup: PathBuf,
        way_out: String,
    },
    /// `ledger.json` does not read as a ledger.
    #[error(
        "ledger {} is unusable ({message}); it only counts today's spending and the runs for `every = N`: fix it or delete it to start counting afresh",
        path.display()
    )]
    Ledger { path: PathBuf, message: String },
    /// `redaction.key` does not hold a key.
    #[error(
        "redaction key {} is unusable ({message}); placeholders of personal data are keyed with it. Restore it from a backup, or delete it and thinker writes a new one (placeholders already in the memory will then stand for nothing)",
        path.display()
    )]
    RedactionKey { path: PathBuf, message: String },
    /// A value that must be written as JSON does not serialize (a bug: please report it).
    #[error("cannot serialize {what} as JSON: {source} (a bug in thinker: please report it)")]
    Serialize {
        what: &'static str,
        source: serde_json::Error,
    },
    #[error("cannot write {path}: {source}; {aftermath}{}", way_out(source, path))]
    Write {
        path: PathBuf,
        source: io::Error,
        aftermath: Aftermath,
    },
}

/// What a failed write leaves behind. Storage knows only its own step
/// ([`Aftermath::Unchanged`], [`Aftermath::NotDurable`]); the tick, which knows what it
/// wrote before, says more with [`StorageError::after`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aftermath {
    /// The state was not touched.
    Unchanged,
    /// The state was not touched; the tick's spending is already in `ledger.json`, but
    /// the tick has no journal line.
    SpendingRecorded,
    /// The state was not touched; the tick's journal line (whose `tick_count` the state
    /// never reached) and its spending were recorded.
    Journaled,
    /// The new state was renamed into place, but the directory could not be synced.
    NotDurable,
    /// The tick was written; the escalation work after it was not (the escalations keep
    /// what the tick wrote, and owed work is done by the next tick; an effect recorded as
    /// started is never run again).
    TickWritten,
    /// The tick found it could not record what it would do, before it called anything
    /// ([`StateDir::preflight`]): nothing was spent or changed.
    NothingCalled,
}

impl fmt::Display for Aftermath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Aftermath::Unchanged => "the state is unchanged",
            Aftermath::SpendingRecorded => {
                "the state is unchanged; this tick's spending is counted in ledger.json, but the tick has no journal line"
            }
            Aftermath::Journaled => {
                "the state is unchanged; this tick's journal line and spending were recorded (its tick_count says what the state would have become)"
            }
            Aftermath::NotDurable => {
                "the new state is in place, but the directory could not be synced: a crash now may bring back the previous state"
            }
            Aftermath::TickWritten => {
                "the tick itself was written; its escalation outcome was not (owed escalation work is done by the next tick, and nothing already started is run twice)"
            }
            Aftermath::NothingCalled => {
                "the tick stopped before calling any model, as it could not have recorded what it did: nothing was spent, the state is unchanged"
            }
        })
    }
}

impl StorageError {
    /// Says what else a failed write leaves behind (for a write that left the state
    /// unchanged); other errors pass through.
    #[must_use]
    pub fn after(self, then: Aftermath) -> StorageError {
        match self {
            StorageError::Write {
                path,
                source,
                aftermath: Aftermath::Unchanged,
            } => StorageError::Write {
                path,
                source,
                aftermath: then,
            },
            other => other,
        }
    }
}

/// The way out of a failed write to `path`, for the errors a user can do something about
/// (a full disk, a file-size limit, a read-only or immutable directory); empty otherwise.
fn way_out(source: &io::Error, path: &Path) -> String {
    let dir = path.parent().unwrap_or(path).display();
    match source.kind() {
        io::ErrorKind::StorageFull => format!(
            ". The file system holding {dir} is full: free space on it (or pass --state DIR on another one), then run thinker again"
        ),
        io::ErrorKind::QuotaExceeded => format!(
            ". Your disk quota on the file system holding {dir} is used up: free space or raise the quota, then run thinker again"
        ),
        io::ErrorKind::FileTooLarge => ". A file-size limit stopped the write (`ulimit -f`, or LimitFSIZE in a systemd unit): raise or remove it where thinker is started, then run thinker again".to_string(),
        io::ErrorKind::ReadOnlyFilesystem => format!(
            ". The file system holding {dir} is mounted read-only: remount it read-write, or pass --state DIR on a writable one"
        ),
        io::ErrorKind::PermissionDenied => format!(
            ". thinker may not write in {dir}: check its owner and mode (`ls -ld {dir}`) and whether it is immutable (`lsattr -d {dir}`; `chattr -i {dir}`), or pass --state DIR"
        ),
        _ => String::new(),
    }
}

/// Who owns a path thinker may not touch, and the way out.
#[derive(Debug)]
pub struct Access {
    path: PathBuf,
    is_dir: bool,
    /// Owner and mode of `path`, when they can be read.
    owner: Option<(u32, u32)>,
    /// The uid thinker runs as, when it can be read.
    me: Option<u32>,
}

impl Access {
    fn of(path: &Path) -> Access {
        let meta = fs::metadata(path).ok();
        Access {
            path: path.to_path_buf(),
            is_dir: meta.as_ref().is_none_or(fs::Metadata::is_dir),
            owner: meta.map(|m| (m.uid(), m.mode() & 0o7777)),
            me: fs::metadata("/proc/self").ok().map(|m| m.uid()),
        }
    }
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match self.owner {
            Some((uid, mode)) => write!(f, "{path} is owned by uid {uid} with mode {mode:04o}")?,
            None => write!(f, "{path} is not accessible")?,
        }
        if let Some(me) = self.me {
            write!(f, " and thinker runs as uid {me}")?;
        }
        let mode = if self.is_dir { "700" } else { "600" };
        write!(
            f,
            "; run thinker as its owner, fix it with `chown -R \"$(id -u)\" {path}` and `chmod {mode} {path}`, or pass --state DIR"
        )
    }
}

/// Maps a failed access to `path` to an error that says what is in the way.
fn access_error(
    action: &'static str,
    path: &Path,
    source: io::Error,
    otherwise: impl FnOnce(PathBuf, io::Error) -> StorageError,
) -> StorageError {
    match source.kind() {
        io::ErrorKind::PermissionDenied => StorageError::Denied {
            action,
            path: path.to_path_buf(),
            access: Access::of(nearest_existing(path)),
        },
        io::ErrorKind::NotADirectory | io::ErrorKind::AlreadyExists => {
            match not_a_directory(path) {
                Some(e) => e,
                None => otherwise(path.to_path_buf(), source),
            }
        }
        _ => otherwise(path.to_path_buf(), source),
    }
}

/// The closest ancestor of `path` (or `path`) that exists.
fn nearest_existing(path: &Path) -> &Path {
    path.ancestors()
        .find(|p| fs::symlink_metadata(p).is_ok())
        .unwrap_or(path)
}

/// The error for a `path` that cannot be a directory because it, or an ancestor, is a
/// file or a dangling link; `None` if nothing is in the way.
fn not_a_directory(path: &Path) -> Option<StorageError> {
    let blocker = path
        .ancestors()
        .filter(|p| !p.as_os_str().is_empty())
        .find(|p| fs::symlink_metadata(p).is_ok() && !fs::metadata(p).is_ok_and(|m| m.is_dir()))?;
    let what = match fs::symlink_metadata(blocker) {
        Ok(m) if m.file_type().is_symlink() => "a symbolic link to nothing",
        Ok(m) if m.is_file() => "a file",
        _ => "something else",
    };
    Some(StorageError::NotADirectory {
        path: path.to_path_buf(),
        blocker: blocker.to_path_buf(),
        what,
    })
}

/// An open state directory.
#[derive(Debug, Clone)]
pub struct StateDir {
    dir: PathBuf,
    journal_rotation: JournalRotation,
}

/// Holds the tick lock until dropped.
#[derive(Debug)]
pub struct Lock {
    _file: File,
}

/// A new state written to a synced temp file, not yet in place
/// ([`StateDir::commit_staged`]). Dropped uncommitted, it removes its temp file.
#[derive(Debug)]
pub struct Staged {
    tmp: PathBuf,
}

impl Staged {
    pub fn path(&self) -> &Path {
        &self.tmp
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.tmp);
    }
}

/// What [`StateDir::tidy`] did, and what it could not do.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Tidied {
    /// Temp files left by killed processes, removed.
    pub removed: Vec<PathBuf>,
    /// Paths whose group/other permission bits were removed.
    pub tightened: Vec<PathBuf>,
    /// What could not be tightened or removed, and why.
    pub warnings: Vec<String>,
}

impl Tidied {
    /// Logs what was done (`info`, shown with `-v`) and what could not be (`warn`).
    pub fn log(&self) {
        for path in &self.removed {
            tracing::info!("removed {}, a temp file a killed tick left", path.display());
        }
        for path in &self.tightened {
            tracing::info!(
                "tightened the mode of {} (it was open to others)",
                path.display()
            );
        }
        for warning in &self.warnings {
            tracing::warn!("{warning}");
        }
    }
}

impl StateDir {
    /// Opens `dir`, creating it (mode 0700) if it does not exist.
    pub fn create(dir: &Path) -> Result<StateDir, StorageError> {
        match fs::metadata(dir) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(not_a_directory(dir).unwrap_or(StorageError::NotADirectory {
                    path: dir.to_path_buf(),
                    blocker: dir.to_path_buf(),
                    what: "a file",
                }));
            }
            Err(_) => fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|source| {
                    access_error("create the state directory", dir, source, |path, source| {
                        StorageError::CreateDir { path, source }
                    })
                })?,
        }
        Ok(StateDir {
            dir: dir.to_path_buf(),
            journal_rotation: JournalRotation::default(),
        })
    }

    /// Refers to `dir` without creating anything (for read-only commands).
    pub fn at(dir: &Path) -> StateDir {
        StateDir {
            dir: dir.to_path_buf(),
            journal_rotation: JournalRotation::default(),
        }
    }

    /// The same directory, rotating the journal as `rotation` says (default: by month).
    #[must_use]
    pub fn with_journal_rotation(self, rotation: JournalRotation) -> StateDir {
        StateDir {
            journal_rotation: rotation,
            ..self
        }
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Takes the exclusive tick lock, or reports that another tick holds it. A linked
    /// state, `.bak` or ledger is refused first, so that such a tick creates nothing and
    /// calls no model whose spending it could not record.
    pub fn lock(&self) -> Result<Lock, StorageError> {
        for name in [STATE_FILE, BACKUP_FILE, LEDGER_FILE, LOCK_FILE] {
            self.refuse_link(name)?;
        }
        let path = self.file(LOCK_FILE);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(&path)
            .map_err(|source| {
                access_error("take the lock", &path, source, |path, source| {
                    StorageError::Lock { path, source }
                })
            })?;
        match file.try_lock() {
            Ok(()) => Ok(Lock { _file: file }),
            Err(TryLockError::WouldBlock) => Err(StorageError::Locked { path }),
            Err(TryLockError::Error(source)) => Err(StorageError::Lock { path, source }),
        }
    }

    /// Housekeeping only the lock holder may do: removes the temp files that killed
    /// processes left (`.<name>.tmp` and `.<name>.tmp-<pid>`, regular files only), and
    /// tightens the directory to 0700 and its files to 0600 where group or others had
    /// any access. Never fails: what it cannot do is returned as warnings.
    pub fn tidy(&self, _lock: &Lock) -> Tidied {
        let mut done = Tidied::default();
        // Whether the directory holds anything that is not thinker's: then it is not
        // thinker's to make private (a home directory, a shared project directory).
        let mut others = false;
        match fs::read_dir(&self.dir) {
            Ok(entries) => {
                for entry in entries.flatten() {
                    let name = entry.file_name();
                    let is_file = entry.file_type().is_ok_and(|t| t.is_file());
                    let text = name.to_string_lossy();
                    others |= !is_stale_temp(&text) && !is_thinkers(&text);
                    if is_file && is_stale_temp(&text) {
                        let path = entry.path();
                        match fs::remove_file(&path) {
                            Ok(()) => done.removed.push(path),
                            Err(e) => done.warnings.push(format!(
                                "cannot remove the stale temp file {}: {e}",
                                path.display()
                            )),
                        }
                    }
                }
            }
            Err(e) => done.warnings.push(format!(
                "cannot list {} to remove stale temp files: {e}",
                self.dir.display()
            )),
        }
        let dir = self.dir.clone();
        match fs::metadata(&dir) {
            // A shared directory such as /tmp: making it private would break others.
            Ok(meta) if meta.mode() & 0o1000 != 0 => done.warnings.push(format!(
                "the state directory {} is a shared directory (mode {:04o}), so anyone on this machine may see or replace thinker's files; keep the state in a directory of its own (--state DIR)",
                dir.display(),
                meta.mode() & 0o7777
            )),
            // Not thinker's own directory: only say so when others could replace its
            // files (its files themselves are made 0600 below).
            Ok(meta) if others => {
                if meta.mode() & 0o022 != 0 {
                    done.warnings.push(format!(
                        "the state directory {} (mode {:04o}) can be written by group or others, who could replace thinker's files; it also holds files that are not thinker's, so thinker leaves its mode alone: keep the state in a directory of its own (--state DIR) or `chmod go-w {}`",
                        dir.display(),
                        meta.mode() & 0o7777,
                        dir.display()
                    ));
                }
            }
            _ => tighten(&dir, 0o700, &mut done),
        }
        for name in PRIVATE_FILES {
            let path = self.file(name);
            // Links are refused by `load`; never change the mode of what one points to.
            if fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
                tighten(&path, 0o600, &mut done);
            }
        }
        done
    }

    /// Whether a state file exists (a link counts, dangling or not).
    pub fn has_state(&self) -> bool {
        fs::symlink_metadata(self.file(STATE_FILE)).is_ok()
    }

    /// Refuses `name` if it is a symbolic link, live or dangling, or anything else that
    /// is not a regular file (a FIFO, a socket, a device, a directory).
    pub fn refuse_link(&self, name: &str) -> Result<(), StorageError> {
        let path = self.file(name);
        let Ok(meta) = fs::symlink_metadata(&path) else {
            return Ok(());
        };
        let kind = meta.file_type();
        if kind.is_file() {
            return Ok(());
        }
        if !kind.is_symlink() {
            return Err(StorageError::NotRegular {
                path,
                kind: file_kind(kind),
            });
        }
        let target = fs::read_link(&path).unwrap_or_default();
        let dangling = fs::metadata(&path).is_err();
        let shown = path.display();
        let way_out = if dangling {
            format!(
                "Restore the file it points to, or remove the link (`rm {shown}`); to keep the state elsewhere, link the whole directory or pass --state DIR."
            )
        } else {
            format!(
                "Put the file itself in the link's place with `cp --remove-destination \"$(readlink -f {shown})\" {shown}`, or pass --state the directory that holds the real file (a linked state directory is fine)."
            )
        };
        Err(StorageError::Symlink {
            path,
            target,
            dangling,
            way_out,
        })
    }

    /// Loads and validates the state; an absent file is an empty state (first tick).
    pub fn load(&self) -> Result<State, StorageError> {
        self.refuse_link(STATE_FILE)?;
        self.refuse_link(BACKUP_FILE)?;
        let path = self.file(STATE_FILE);
        let backup = self.file(BACKUP_FILE);
        let text = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if backup.exists() {
                    let way_out = match read_state(&backup) {
                        Ok(_) => format!(
                            "restore it with `cp {0} {1}` (or remove the backup to start empty)",
                            backup.display(),
                            path.display()
                        ),
                        Err(problem) => format!(
                            "the backup is unusable too ({problem}); move it aside (`mv {0} {0}.broken`) to start with an empty state",
                            backup.display()
                        ),
                    };
                    return Err(StorageError::MissingWithBackup {
                        path,
                        backup,
                        way_out,
                    });
                }
                return Ok(State::default());
            }
            Err(e) if e.kind() == io::ErrorKind::NotADirectory => {
                return Err(
                    not_a_directory(&self.dir).unwrap_or(StorageError::Read { path, source: e })
                );
            }
            Err(source) => {
                return Err(access_error(
                    "read the state file",
                    &path,
                    source,
                    |path, source| StorageError::Read { path, source },
                ));
            }
        };
        parse_state(text).map_err(|problem| {
            let way_out = if !backup.exists() {
                format!(
                    "There is no backup; fix the file by hand, or move it aside (`mv {0} {0}.broken`) to start with an empty state.",
                    path.display()
                )
            } else if let Err(bad) = read_state(&backup) {
                format!(
                    "The backup {1} is unusable too ({bad}); fix either file by hand, or move both aside (`mv {0} {0}.broken && mv {1} {1}.broken`) to start with an empty state.",
                    path.display(),
                    backup.display()
                )
            } else {
                format!(
                    "To go back to the previous version: `cp {} {}`; or fix the file by hand.",
                    backup.display(),
                    path.display()
                )
            };
            StorageError::Invalid {
                path,
                problem,
                way_out,
            }
        })
    }

    /// Writes `bytes` to a temp file beside `name` in the state directory and syncs it.
    fn write_temp_bytes(&self, name: &str, bytes: &[u8]) -> Result<PathBuf, StorageError> {
        let tmp = self.file(&format!(".{name}.tmp-{}", std::process::id()));
        let werr = |source| write_error(&tmp, source);
        match fs::remove_file(&tmp) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(werr(e)),
        }
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(werr)?;
        // A write that fails half-way (a full disk, a file-size limit) takes its temp
        // file with it, so it does not hold the space the next tick needs.
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(|e| {
                let _ = fs::remove_file(&tmp);
                werr(e)
            })?;
        Ok(tmp)
    }

    /// Renames a synced temp file over `name`, first keeping the current `name` as
    /// `backup` (a hard link, so `name` exists at every instant), then syncs the directory.
    /// Refuses to replace a symbolic link.
    fn commit(&self, tmp: &Path, name: &str, backup: Option<&str>) -> Result<(), StorageError> {
        self.refuse_link(name)?;
        if let Some(backup) = backup {
            self.refuse_link(backup)?;
        }
        let path = self.file(name);
        let werr = |p: &Path| {
            let p = p.to_path_buf();
            move |source| write_error(&p, source)
        };
        if let Some(backup) = backup.filter(|_| path.exists()) {
            let backup = self.file(backup);
            let backup_tmp = self.file(&format!(
                ".{}.tmp",
                backup
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
            ));
            let _ = fs::remove_file(&backup_tmp);
            if fs::hard_link(&path, &backup_tmp).is_err() {
                // File systems without hard links: copy, then sync the copy.
                fs::copy(&path, &backup_tmp).map_err(werr(&backup_tmp))?;
                File::open(&backup_tmp)
                    .and_then(|f| f.sync_all())
                    .map_err(werr(&backup_tmp))?;
            }
            fs::rename(&backup_tmp, &backup)
                .inspect_err(|_| {
                    let _ = fs::remove_file(&backup_tmp);
                })
                .map_err(werr(&backup))?;
        }
        fs::rename(tmp, &path).map_err(werr(&path))?;
        sync_dir(&self.dir).map_err(|source| StorageError::Write {
            path: self.dir.clone(),
            source,
            aftermath: Aftermath::NotDurable,
        })
    }

    fn write_atomic(
        &self,
        name: &str,
        bytes: &[u8],
        backup: Option<&str>,
    ) -> Result<(), StorageError> {
        let tmp = self.write_temp_bytes(name, bytes)?;
        self.commit(&tmp, name, backup).inspect_err(|_| {
            let _ = fs::remove_file(&tmp);
        })
    }

    /// Writes `state` to a synced temp file in the state directory; the first half of
    /// [`StateDir::save`]. A crash after this leaves the old state in place (and a temp
    /// file that the next tick's [`StateDir::tidy`] removes).
    pub fn stage(&self, state: &State) -> Result<Staged, StorageError> {
        self.write_temp_bytes(STATE_FILE, state_json(state)?.as_bytes())
            .map(|tmp| Staged { tmp })
    }

    /// Puts a staged state in place: the current state becomes the `.bak`, the temp file
    /// is renamed over the state, the directory is synced.
    pub fn commit_staged(&self, staged: Staged) -> Result<(), StorageError> {
        let committed = self.commit(&staged.tmp, STATE_FILE, Some(BACKUP_FILE));
        drop(staged); // after a failure, removes the temp file
        committed
    }

    /// Writes the state atomically, keeping the previous version as `.bak`.
    pub fn save(&self, state: &State) -> Result<(), StorageError> {
        self.write_atomic(STATE_FILE, state_json(state)?.as_bytes(), Some(BACKUP_FILE))
    }

    /// Writes another file of the state directory (e.g. the ledger) atomically, 0600.
    pub fn write_file(&self, name: &str, bytes: &[u8]) -> Result<(), StorageError> {
        self.write_atomic(name, bytes, None)
    }

    /// Reads `ledger.json`; an absent file is an empty ledger (the first tick). A link,
    /// FIFO or device in its place is refused first (it would hang the read; a dry run
    /// takes no lock, which would refuse it).
    pub fn load_ledger(&self) -> Result<Ledger, StorageError> {
        self.refuse_link(LEDGER_FILE)?;
        let path = self.file(LEDGER_FILE);
        match fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| StorageError::Ledger {
                path,
                message: e.to_string(),
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Ledger::default()),
            Err(source) => Err(StorageError::Read { path, source }),
        }
    }

    /// Writes `ledger.json` atomically, 0600 (never through a link: see the module doc).
    pub fn write_ledger(&self, ledger: &Ledger) -> Result<(), StorageError> {
        let bytes =
            serde_json::to_vec_pretty(ledger).map_err(|source| StorageError::Serialize {
                what: "the ledger",
                source,
            })?;
        self.write_file(LEDGER_FILE, &bytes)
    }

    /// Writes `ledger.json` ahead of a model call (`Budget::with_write_ahead`): atomic
    /// against a killed process (a temp file renamed over it, so a kill leaves the old or
    /// the new ledger), but not synced — a kill loses nothing the page cache holds, and
    /// the tick's final [`StateDir::write_ledger`] syncs. Four synced writes would cost a
    /// tick about 2.5 ms (0.63 ms each, measured on the development machine).
    pub fn write_ledger_ahead(&self, ledger: &Ledger) -> Result<(), StorageError> {
        self.refuse_link(LEDGER_FILE)?;
        let bytes =
            serde_json::to_vec_pretty(ledger).map_err(|source| StorageError::Serialize {
                what: "the ledger",
                source,
            })?;
        let tmp = self.file(&format!(".{LEDGER_FILE}.tmp-{}", std::process::id()));
        let werr = |source| write_error(&tmp, source);
        match fs::remove_file(&tmp) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(werr(e)),
        }
        let written = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
            .and_then(|mut file| file.write_all(&bytes))
            .and_then(|()| fs::rename(&tmp, self.file(LEDGER_FILE)));
        written.map_err(|e| {
            let _ = fs::remove_file(&tmp);
            werr(e)
        })
    }

    /// Appends one JSON line per item to `name` (created 0600), synced. If the file does
    /// not end in a newline (a process was killed mid-line), the first line starts on a
    /// new line.
    pub fn append_lines<T: Serialize>(&self, name: &str, items: &[T]) -> Result<(), StorageError> {
        if items.is_empty() {
            return Ok(());
        }
        let path = self.file(name);
        let werr = |source| write_error(&path, source);
        let mut buf = Vec::new();
        for item in items {
            serde_json::to_writer(&mut buf, item).map_err(|e| werr(io::Error::other(e)))?;
            buf.push(b'\n');
        }
        let mut file = open_append(&path).map_err(werr)?;
        let mut len = file.metadata().map_err(werr)?.len();
        if name == JOURNAL_FILE && len > 0 && self.rotate_journal(&file, len, &buf).map_err(werr)? {
            file = open_append(&path).map_err(werr)?;
            len = file.metadata().map_err(werr)?.len();
        }
        write_lines(&mut file, len, buf, &path)
    }
}

/// Writes `buf` (whole lines) at the end of `file` (`len` bytes, open to append) with one
/// `write`, on a new line if the file ends in a torn one, and syncs it.
fn write_lines(
    file: &mut File,
    len: u64,
    mut buf: Vec<u8>,
    path: &Path,
) -> Result<(), StorageError> {
    let werr = |source| write_error(path, source);
    if len > 0 {
        let mut last = [0u8; 1];
        file.read_exact_at(&mut last, len - 1).map_err(werr)?;
        if last[0] != b'\n' {
            buf.insert(0, b'\n');
        }
    }
    file.write_all(&buf).map_err(werr)?;
    match file.sync_data() {
        // A journal linked to /dev/null or a pipe cannot be synced, and need not be.
        Err(e) if !file.metadata().is_ok_and(|m| m.is_file()) => {
            tracing::debug!("{} is not a regular file; not synced: {e}", path.display());
            Ok(())
        }
        other => other.map_err(werr),
    }
}

impl StateDir {
    /// Renames `journal.jsonl` (open as `file`, `len` bytes) aside when `lines` (the
    /// serialized lines about to be appended) may not join it
    /// ([`files::rotation_stamp`]); whether it did.
    fn rotate_journal(&self, file: &File, len: u64, lines: &[u8]) -> io::Result<bool> {
        let Some(stamp) = files::rotation_stamp(self.journal_rotation, file, len, lines) else {
            return Ok(false);
        };
        // Never over an existing file (a clock stepped back, a restored backup).
        let mut n = 1u32;
        let mut target = self.file(&files::rotated_name(&stamp, n));
        while fs::symlink_metadata(&target).is_ok() {
            n += 1;
            target = self.file(&files::rotated_name(&stamp, n));
        }
        fs::rename(self.file(JOURNAL_FILE), &target)?;
        tracing::info!("rotated the journal to {}", target.display());
        Ok(true)
    }
}

/// The agent's verdicts a tick took from `feedback.jsonl` ([`StateDir::take_feedback`]),
/// and the files they were read from, removed once the tick's state is committed
/// ([`StateDir::clear_feedback`]).
#[derive(Debug, Default)]
pub struct TakenFeedback {
    /// In the order they were written (older files first).
    pub verdicts: Vec<Verdict>,
    /// Lines that did not read as a verdict (a torn append): skipped.
    pub skipped: usize,
    files: Vec<PathBuf>,
}

impl StateDir {
    /// Appends one verdict to `feedback.jsonl` (created 0600) without the tick lock:
    /// one line, written with a single `write` on an `O_APPEND` file, which concurrent
    /// appenders and a tick renaming the file cannot tear (a line is far below
    /// `PIPE_BUF`).
    ///
    /// The hand-over to a tick ([`StateDir::take_feedback`]) loses nothing: the line is
    /// written under a shared `flock` of the open file, taken only once the file is still
    /// the one named `feedback.jsonl` (else a tick took it meanwhile, and the line goes to
    /// the new file); a tick takes the exclusive lock of the file it renamed before
    /// reading it, so a line being written is in it by then.
    pub fn append_feedback(&self, verdict: &Verdict) -> Result<(), StorageError> {
        self.append_feedback_with(verdict, || {}, || {})
    }

    /// [`StateDir::append_feedback`] with `opened` run after each open, and `checked`
    /// once the locked file is known to be `feedback.jsonl`, just before the write: where
    /// tests put a tick.
    fn append_feedback_with(
        &self,
        verdict: &Verdict,
        mut opened: impl FnMut(),
        mut checked: impl FnMut(),
    ) -> Result<(), StorageError> {
        let path = self.file(FEEDBACK_FILE);
        let werr = |source| write_error(&path, source);
        let mut buf = serde_json::to_vec(verdict).map_err(|e| werr(io::Error::other(e)))?;
        buf.push(b'\n');
        // A tick takes the file at most once between an open and a lock; the bound only
        // keeps a pathological directory from looping forever.
        for attempt in 0..100 {
            let mut file = open_append(&path).map_err(werr)?;
            opened();
            file.lock_shared().map_err(werr)?;
            let mine = file.metadata().map_err(werr)?;
            let named = fs::metadata(&path).ok();
            let still = named.is_some_and(|m| m.dev() == mine.dev() && m.ino() == mine.ino());
            if still || attempt == 99 {
                checked();
                return write_lines(&mut file, mine.len(), buf, &path);
            }
            tracing::debug!(
                "a tick took {} meanwhile; appending to the new one",
                path.display()
            );
        }
        Ok(())
    }

    /// Under the lock: renames `feedback.jsonl` to `feedback.jsonl.consumed-<run>` (a
    /// verdict appended from now on starts a new `feedback.jsonl`, for the next tick) and
    /// reads every consumed file, including those of a tick that died before
    /// [`StateDir::clear_feedback`]. Never fails the tick: a file that cannot be renamed
    /// or read is logged and waits for a later tick.
    pub fn take_feedback(&self, _lock: &Lock, run: u64) -> TakenFeedback {
        let from = self.file(FEEDBACK_FILE);
        if fs::symlink_metadata(&from).is_ok() {
            let mut n = 1u32;
            let mut to = self.file(&format!("{CONSUMED_PREFIX}{run}"));
            while fs::symlink_metadata(&to).is_ok() {
                n += 1;
                to = self.file(&format!("{CONSUMED_PREFIX}{run}.{n}"));
            }
            match fs::rename(&from, &to) {
                Ok(()) => wait_for_writers(&to),
                Err(e) => tracing::warn!(
                    "cannot take {} for this tick: {e}; its verdicts wait",
                    from.display()
                ),
            }
        }
        self.read_feedback(false)
    }

    /// What the next tick would take, without renaming anything (a dry run).
    pub fn peek_feedback(&self) -> TakenFeedback {
        let mut taken = self.read_feedback(true);
        taken.files.clear();
        taken
    }

    /// Removes the files of `taken` (after the state that applied them is committed). A
    /// file that cannot be removed is logged: the next tick applies it again, which is
    /// harmless (ARCHITECTURE.md).
    pub fn clear_feedback(&self, taken: &TakenFeedback) {
        for path in &taken.files {
            if let Err(e) = fs::remove_file(path) {
                tracing::warn!(
                    "cannot remove {}: {e}; the next tick applies its verdicts again",
                    path.display()
                );
            }
        }
    }

    fn read_feedback(&self, with_pending: bool) -> TakenFeedback {
        let mut consumed: Vec<((u64, u32), PathBuf)> = fs::read_dir(&self.dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| {
                        let name = e.file_name();
                        consumed_order(&name.to_string_lossy()).map(|o| (o, e.path()))
                    })
                    .collect()
            })
            .unwrap_or_default();
        consumed.sort();
        let mut paths: Vec<PathBuf> = consumed.into_iter().map(|(_, p)| p).collect();
        if with_pending {
            paths.push(self.file(FEEDBACK_FILE));
        }
        let mut taken = TakenFeedback::default();
        for path in paths {
            // A FIFO or device in its place would hang the read: never opened.
            if !fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
                continue;
            }
            let text = match fs::read_to_string(&path) {
                Ok(text) => text,
                Err(e) => {
                    tracing::warn!("cannot read {}: {e}; its verdicts wait", path.display());
                    continue;
                }
            };
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                match serde_json::from_str::<Verdict>(line) {
                    Ok(v) => taken.verdicts.push(v),
                    Err(_) => taken.skipped += 1,
                }
            }
            taken.files.push(path);
        }
        if taken.skipped > 0 {
            tracing::warn!(
                "skipped {} line(s) of the feedback that are not verdicts (a torn append?)",
                taken.skipped
            );
        }
        taken
    }

    /// A private subdirectory of the state directory (0700), created if missing.
    pub fn subdir(&self, name: &str) -> Result<StateDir, StorageError> {
        let path = self.file(name);
        match fs::DirBuilder::new().mode(0o700).create(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && path.is_dir() => {}
            Err(source) => return Err(StorageError::CreateDir { path, source }),
        }
        Ok(StateDir::at(&path))
    }

    /// Writes a small file of no consequence (a hook's session record) atomically
    /// against other writers — temp file (0600), rename — without the lock and unsynced:
    /// losing it to a power cut only means a block is shown once more.
    pub fn write_unsynced(&self, name: &str, bytes: &[u8]) -> Result<(), StorageError> {
        let tmp = self.file(&format!(".{name}.tmp-{}", std::process::id()));
        let written = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)
            .and_then(|mut file| file.write_all(bytes))
            .and_then(|()| fs::rename(&tmp, self.file(name)));
        written.map_err(|e| {
            let _ = fs::remove_file(&tmp);
            write_error(&tmp, e)
        })
    }

    /// Checks, before a tick calls anything, that it will be able to record what it does
    /// (issue 22: on a full disk every tick exited 1 having made its model calls): the
    /// journal opens for appending; the directory takes a file of `bytes` (what the tick
    /// writes: the state's temp file, a journal line), written and removed again
    /// (`.thinker-probe.tmp-<pid>`, tidied like any temp file if a kill leaves it); and a
    /// file-size limit (`ulimit -f`, read from `/proc/self/limits`) leaves the journal room
    /// to grow by as much. A failure is the write error it would have been, said to have
    /// stopped the tick before anything was called.
    pub fn preflight(&self, bytes: u64) -> Result<(), StorageError> {
        let stopped =
            |path: &Path, e: io::Error| write_error(path, e).after(Aftermath::NothingCalled);
        let journal = self.file(JOURNAL_FILE);
        open_append(&journal).map_err(|e| stopped(&journal, e))?;
        if let Some(limit) = file_size_limit() {
            let len = fs::metadata(&journal).map_or(0, |m| m.len());
            if len.saturating_add(bytes) > limit {
                return Err(stopped(
                    &journal,
                    io::Error::new(
                        io::ErrorKind::FileTooLarge,
                        format!(
                            "File too large: a tick's line could take it past the file-size limit of {limit} bytes"
                        ),
                    ),
                ));
            }
        }
        let probe = self.file(&format!(".thinker-probe.tmp-{}", std::process::id()));
        let written = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&probe)
            .and_then(|mut file| {
                let chunk = vec![0u8; 64 << 10];
                let mut left = bytes;
                while left > 0 {
                    let n = usize::try_from(left)
                        .unwrap_or(chunk.len())
                        .min(chunk.len());
                    file.write_all(&chunk[..n])?;
                    left -= n as u64;
                }
                Ok(())
            });
        let _ = fs::remove_file(&probe);
        written.map_err(|e| stopped(&probe, e))
    }

    /// The names of the regular files directly in this directory.
    pub fn file_names(&self) -> Vec<String> {
        fs::read_dir(&self.dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                    .filter_map(|e| e.file_name().into_string().ok())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Waits until no `thinker feedback` is writing to `path` (a `feedback.jsonl` just renamed
/// by a tick): takes and drops its exclusive `flock`, which waits for every writer that
/// locked it before the rename ([`StateDir::append_feedback`]); a writer that locks it
/// later sees the rename and appends to the new file. A writer holds its lock for one
/// `write`: after 2 s (a stopped writer) the file is read as it is, with a warning.
fn wait_for_writers(path: &Path) {
    // A FIFO would hang the open (and is never read: `read_feedback`).
    if !fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        return;
    }
    let Ok(file) = File::open(path) else { return };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    loop {
        match file.try_lock() {
            Ok(()) => return,
            Err(TryLockError::WouldBlock) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            Err(e) => {
                tracing::warn!(
                    "a `thinker feedback` still holds {} ({e:?}); reading it as it is: a verdict it writes from now on is lost",
                    path.display()
                );
                return;
            }
        }
    }
}

/// The order of a consumed feedback file (`feedback.jsonl.consumed-<run>[.<n>]`).
fn consumed_order(name: &str) -> Option<(u64, u32)> {
    let rest = name.strip_prefix(CONSUMED_PREFIX)?;
    let (run, n) = rest.split_once('.').unwrap_or((rest, "1"));
    Some((run.parse().ok()?, n.parse().ok()?))
}

/// The soft file-size limit of this process in bytes (`ulimit -f`), when it has one and
/// `/proc/self/limits` says so (Linux).
fn file_size_limit() -> Option<u64> {
    let limits = fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max file size"))?;
    let soft = line["Max file size".len()..].split_whitespace().next()?;
    soft.parse().ok()
}

fn write_error(path: &Path, source: io::Error) -> StorageError {
    StorageError::Write {
        path: path.to_path_buf(),
        source,
        aftermath: Aftermath::Unchanged,
    }
}

/// Reads and validates a state file.
fn read_state(path: &Path) -> Result<State, StateProblem> {
    match fs::read(path) {
        Ok(bytes) => parse_state(bytes),
        Err(e) => Err(StateProblem::Syntax(format!("it cannot be read: {e}"))),
    }
}

fn parse_state(bytes: Vec<u8>) -> Result<State, StateProblem> {
    match String::from_utf8(bytes) {
        Ok(text) => State::from_json(&text),
        Err(e) => Err(StateProblem::Syntax(format!(
            "it is not UTF-8 text (bad byte at offset {})",
            e.utf8_error().valid_up_to()
        ))),
    }
}

/// Whether `name` is a temp file this module creates: `.<file>.tmp` (the `.bak` in the
/// making) or `.<file>.tmp-<pid>`.
/// Opens `path` to append to (and read), created 0600 if missing: the JSONL files and
/// the memory notes.
pub(crate) fn open_append(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .mode(0o600)
        .open(path)
}

/// Whether `name` is one of the files thinker keeps in its state directory.
fn is_thinkers(name: &str) -> bool {
    PRIVATE_FILES.contains(&name)
        || name == "feedback.jsonl"
        || name == CRON_LOG_FILE
        || name == HOOKS_DIR
        || consumed_order(name).is_some()
        || journal_file_start(name).is_some()
}

fn is_stale_temp(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('.') else {
        return false;
    };
    let base = match rest.rsplit_once(".tmp-") {
        Some((base, pid)) if !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => match rest.strip_suffix(".tmp") {
            Some(base) => base,
            None => return false,
        },
    };
    !base.is_empty()
}

/// Removes the group and other bits of `path` (to `mode`) if it has any.
fn tighten(path: &Path, mode: u32, done: &mut Tidied) {
    let Ok(meta) = fs::metadata(path) else {
        return;
    };
    let open_to_others = meta.mode() & 0o077;
    if open_to_others == 0 {
        return;
    }
    match fs::set_permissions(path, fs::Permissions::from_mode(mode)) {
        Ok(()) => done.tightened.push(path.to_path_buf()),
        Err(e) => done.warnings.push(format!(
            "{} is open to group or others (mode {:04o}) and cannot be tightened to {mode:04o}: {e}; run `chmod {mode:o} {}` as its owner",
            path.display(),
            meta.mode() & 0o7777,
            path.display()
        )),
    }
}

/// The state as written, or the error (never empty text in place of a memory).
fn state_json(state: &State) -> Result<String, StorageError> {
    state.to_json().map_err(|source| StorageError::Serialize {
        what: "the state",
        source,
    })
}

/// What a non-regular directory entry is, for an error message.
pub(crate) fn file_kind(kind: fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_block_device() || kind.is_char_device() {
        "a device"
    } else {
        "not a regular file"
    }
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

impl StateDir {
    /// The state's redaction key (SPEC §9); `None` when there is none yet (a dry run or
    /// `thinker prompt --as-sent` before the first tick). A link, FIFO or device in its
    /// place is refused, as for the other files.
    pub fn redaction_key(&self) -> Result<Option<RedactionKey>, StorageError> {
        self.refuse_link(REDACTION_KEY_FILE)?;
        let path = self.file(REDACTION_KEY_FILE);
        match fs::read_to_string(&path) {
            Ok(text) => RedactionKey::from_hex(&text)
                .map(Some)
                .ok_or(StorageError::RedactionKey {
                    path,
                    message: "it is not 64 hex digits".into(),
                }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(StorageError::Read { path, source }),
        }
    }

    /// The state's redaction key, written now (atomically, 0600) from the operating
    /// system's random source when there is none; under the lock, so two ticks never
    /// write two keys.
    pub fn redaction_key_or_create(&self, _lock: &Lock) -> Result<RedactionKey, StorageError> {
        if let Some(key) = self.redaction_key()? {
            return Ok(key);
        }
        let key = RedactionKey::random().ok_or_else(|| StorageError::RedactionKey {
            path: self.file(REDACTION_KEY_FILE),
            message: "the operating system gave no random bytes to make one".into(),
        })?;
        let mut text = key.to_hex();
        text.push('\n');
        self.write_file(REDACTION_KEY_FILE, text.as_bytes())?;
        Ok(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

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
}
