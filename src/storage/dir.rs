//! The state directory itself: opening or creating it (0700), its tick lock ([`Lock`]),
//! the refusal of links and non-regular files in place of thinker's files, and the
//! housekeeping only the lock holder does ([`StateDir::tidy`]: stale temp files removed,
//! modes tightened).
//!
//! Must not write thinker's files (that is [`super::commit`] and [`super::feedback`]).

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::error::{StorageError, access_error, not_a_directory};
use super::{
    ARCHIVE_FILE, BACKUP_FILE, CRON_LOG_FILE, FEEDBACK_FILE, HOOKS_DIR, JOURNAL_FILE,
    JournalRotation, LOCK_FILE, REDACTION_KEY_FILE, REDACTION_NAMES_FILE, STATE_FILE, StateDir,
    consumed_order, journal_file_start,
};
use crate::ledger::LEDGER_FILE;

/// The files of the state directory that [`StateDir::tidy`] keeps at mode 0600.
pub(super) const PRIVATE_FILES: [&str; 9] = [
    STATE_FILE,
    BACKUP_FILE,
    LOCK_FILE,
    ARCHIVE_FILE,
    JOURNAL_FILE,
    LEDGER_FILE,
    FEEDBACK_FILE,
    REDACTION_KEY_FILE,
    REDACTION_NAMES_FILE,
];

/// Holds the tick lock until dropped.
#[derive(Debug)]
pub struct Lock {
    file: File,
}

impl Drop for Lock {
    /// Releases the lock explicitly rather than by closing the file: a child process
    /// forked meanwhile by any thread of this process (a `command` source, a notifier, a
    /// test running beside another) shares the lock's open file until it execs — the
    /// descriptor is close-on-exec, not close-on-fork — and closing our descriptor alone
    /// would leave the lock held by that copy for a moment. An `flock` is released for
    /// every copy by unlocking any of them.
    fn drop(&mut self) {
        let _ = self.file.unlock();
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
            Ok(()) => Ok(Lock { file }),
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

/// Whether `name` is one of the files thinker keeps in its state directory.
pub(super) fn is_thinkers(name: &str) -> bool {
    PRIVATE_FILES.contains(&name)
        || name == "feedback.jsonl"
        || name == CRON_LOG_FILE
        || name == HOOKS_DIR
        || consumed_order(name).is_some()
        || journal_file_start(name).is_some()
}

pub(super) fn is_stale_temp(name: &str) -> bool {
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
pub(super) fn tighten(path: &Path, mode: u32, done: &mut Tidied) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (a lock "held" for a moment in a full test run under load): a copy of
    /// the lock's descriptor — what a child forked by another thread holds until it
    /// execs; `try_clone` makes the same copy — no longer keeps the lock once the
    /// `Lock` is dropped, so the next tick takes it at once.
    #[test]
    fn a_dropped_lock_is_free_even_while_a_copy_of_its_file_lives() {
        let dir = tempfile::tempdir().unwrap();
        let state = StateDir::at(dir.path());
        let lock = state.lock().unwrap();
        let forked_copy = lock.file.try_clone().unwrap();
        assert!(matches!(state.lock(), Err(StorageError::Locked { .. })));
        drop(lock);
        let again = state.lock();
        assert!(again.is_ok(), "the copy kept the lock: {again:?}");
        drop(forked_copy);
    }
}
