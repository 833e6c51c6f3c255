//! What went wrong with the state directory ([`StorageError`]), what a failed write
//! leaves behind ([`Aftermath`]), and the way out a user has (a full disk, a file-size
//! limit, a read-only or denied directory, who owns what: [`Access`]).
//!
//! Words only: must not touch the file system beyond reading an owner and a mode for a
//! message.

use std::fmt;
use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::state::StateProblem;

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
    /// `redaction-names.json` does not hold the names learned from mail headers.
    #[error(
        "learned names {} are unusable ({message}); they let thinker replace the names of people whose mail has left the inbox. Restore the file from a backup, or delete it: names it held are then sent in clear to a redacting provider until a mail header gives them again",
        path.display()
    )]
    RedactionNames { path: PathBuf, message: String },
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
    /// ([`super::StateDir::preflight`]): nothing was spent or changed.
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
pub(super) fn way_out(source: &io::Error, path: &Path) -> String {
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
pub(super) fn access_error(
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
pub(super) fn nearest_existing(path: &Path) -> &Path {
    path.ancestors()
        .find(|p| fs::symlink_metadata(p).is_ok())
        .unwrap_or(path)
}

/// The error for a `path` that cannot be a directory because it, or an ancestor, is a
/// file or a dangling link; `None` if nothing is in the way.
pub(super) fn not_a_directory(path: &Path) -> Option<StorageError> {
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

pub(super) fn write_error(path: &Path, source: io::Error) -> StorageError {
    StorageError::Write {
        path: path.to_path_buf(),
        source,
        aftermath: Aftermath::Unchanged,
    }
}
