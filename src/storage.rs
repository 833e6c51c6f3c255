//! The state directory on disk (SPEC §2): its lock, the atomic write of
//! `subconscious.json` with its `.bak`, and the append-only `archive.jsonl` and
//! `journal.jsonl`.
//!
//! Owns every byte thinker writes to the state directory. A state file that does not
//! read or validate is never overwritten; the error names the file, the problem and the
//! way back (`.bak`). Directories are created 0700, files 0600.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::state::{State, StateProblem};

pub const STATE_FILE: &str = "subconscious.json";
pub const BACKUP_FILE: &str = "subconscious.json.bak";
pub const LOCK_FILE: &str = "subconscious.json.lock";
pub const ARCHIVE_FILE: &str = "archive.jsonl";
pub const JOURNAL_FILE: &str = "journal.jsonl";

/// What went wrong with the state directory.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    #[error(
        "cannot create state directory {path}: {source}; check the permissions of its parent or pass --state DIR"
    )]
    CreateDir { path: PathBuf, source: io::Error },
    #[error("another thinker tick holds the lock {path}; this run was skipped and touched nothing")]
    Locked { path: PathBuf },
    #[error("cannot take the lock {path}: {source}")]
    Lock { path: PathBuf, source: io::Error },
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: io::Error },
    #[error("state file {path} is unusable: {problem}. It was left untouched. {way_out}")]
    Invalid {
        path: PathBuf,
        problem: StateProblem,
        way_out: String,
    },
    #[error(
        "state file {path} is missing but its backup {backup} exists; restore it with `cp {backup} {path}` (or remove the backup to start empty)"
    )]
    MissingWithBackup { path: PathBuf, backup: PathBuf },
    #[error("cannot write {path}: {source}; the previous state is unchanged")]
    Write { path: PathBuf, source: io::Error },
}

/// An open state directory.
#[derive(Debug, Clone)]
pub struct StateDir {
    dir: PathBuf,
}

/// Holds the tick lock until dropped.
#[derive(Debug)]
pub struct Lock {
    _file: File,
}

impl StateDir {
    /// Opens `dir`, creating it (mode 0700) if it does not exist.
    pub fn create(dir: &Path) -> Result<StateDir, StorageError> {
        if !dir.is_dir() {
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|source| StorageError::CreateDir {
                    path: dir.to_path_buf(),
                    source,
                })?;
        }
        Ok(StateDir {
            dir: dir.to_path_buf(),
        })
    }

    /// Refers to `dir` without creating anything (for read-only commands).
    pub fn at(dir: &Path) -> StateDir {
        StateDir {
            dir: dir.to_path_buf(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Takes the exclusive tick lock, or reports that another tick holds it.
    pub fn lock(&self) -> Result<Lock, StorageError> {
        let path = self.file(LOCK_FILE);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(&path)
            .map_err(|source| StorageError::Lock {
                path: path.clone(),
                source,
            })?;
        match file.try_lock() {
            Ok(()) => Ok(Lock { _file: file }),
            Err(TryLockError::WouldBlock) => Err(StorageError::Locked { path }),
            Err(TryLockError::Error(source)) => Err(StorageError::Lock { path, source }),
        }
    }

    /// Whether a state file exists.
    pub fn has_state(&self) -> bool {
        self.file(STATE_FILE).exists()
    }

    /// Loads and validates the state; an absent file is an empty state (first tick).
    pub fn load(&self) -> Result<State, StorageError> {
        let path = self.file(STATE_FILE);
        let backup = self.file(BACKUP_FILE);
        let text = match fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if backup.exists() {
                    return Err(StorageError::MissingWithBackup { path, backup });
                }
                return Ok(State::default());
            }
            Err(source) => return Err(StorageError::Read { path, source }),
        };
        let parsed = match String::from_utf8(text) {
            Ok(text) => State::from_json(&text),
            Err(e) => Err(StateProblem::Syntax(format!(
                "it is not UTF-8 text (bad byte at offset {})",
                e.utf8_error().valid_up_to()
            ))),
        };
        parsed.map_err(|problem| {
            let way_out = if backup.exists() {
                format!(
                    "To go back to the previous version: `cp {} {}`; or fix the file by hand.",
                    backup.display(),
                    path.display()
                )
            } else {
                format!(
                    "There is no backup; fix the file by hand, or move it aside (`mv {0} {0}.broken`) to start with an empty state.",
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
        let werr = |source| StorageError::Write {
            path: tmp.clone(),
            source,
        };
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
        file.write_all(bytes).map_err(werr)?;
        file.sync_all().map_err(werr)?;
        Ok(tmp)
    }

    /// Renames a synced temp file over `name`, first keeping the current `name` as
    /// `backup` (a hard link, so `name` exists at every instant), then syncs the directory.
    fn commit(&self, tmp: &Path, name: &str, backup: Option<&str>) -> Result<(), StorageError> {
        let path = self.file(name);
        let werr = |p: &Path| {
            let p = p.to_path_buf();
            move |source| StorageError::Write { path: p, source }
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
            fs::rename(&backup_tmp, &backup).map_err(werr(&backup))?;
        }
        fs::rename(tmp, &path).map_err(werr(&path))?;
        sync_dir(&self.dir).map_err(werr(&self.dir))
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

    /// Writes `state` to a temp file in the state directory and syncs it; the first half
    /// of [`StateDir::save`]. A crash after this leaves the old state in place.
    pub fn write_temp(&self, state: &State) -> Result<PathBuf, StorageError> {
        self.write_temp_bytes(STATE_FILE, state.to_json().as_bytes())
    }

    /// Replaces the state with a synced temp file: the current state becomes the `.bak`,
    /// the temp file is renamed over the state, the directory is synced.
    pub fn commit_temp(&self, tmp: &Path) -> Result<(), StorageError> {
        self.commit(tmp, STATE_FILE, Some(BACKUP_FILE))
    }

    /// Writes the state atomically, keeping the previous version as `.bak`.
    pub fn save(&self, state: &State) -> Result<(), StorageError> {
        self.write_atomic(STATE_FILE, state.to_json().as_bytes(), Some(BACKUP_FILE))
    }

    /// Writes another file of the state directory (e.g. the ledger) atomically, 0600.
    pub fn write_file(&self, name: &str, bytes: &[u8]) -> Result<(), StorageError> {
        self.write_atomic(name, bytes, None)
    }

    /// Appends one JSON line per item to `name` (created 0600), synced.
    pub fn append_lines<T: Serialize>(&self, name: &str, items: &[T]) -> Result<(), StorageError> {
        if items.is_empty() {
            return Ok(());
        }
        let path = self.file(name);
        let werr = |source| StorageError::Write {
            path: path.clone(),
            source,
        };
        let mut buf = Vec::new();
        for item in items {
            serde_json::to_writer(&mut buf, item).map_err(|e| werr(io::Error::other(e)))?;
            buf.push(b'\n');
        }
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(&path)
            .map_err(werr)?;
        file.write_all(&buf).map_err(werr)?;
        file.sync_data().map_err(werr)
    }
}

fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
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
        let _temp = dir.write_temp(&s).unwrap(); // the process dies here, before the rename
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
}
