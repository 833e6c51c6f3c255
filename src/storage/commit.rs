//! The atomic writes of the state directory: the state (a synced temp file renamed over
//! `subconscious.json`, the previous one kept as `.bak`, the directory synced; staged and
//! committed in two steps by the tick), the ledger, the redaction key; the appends of
//! `journal.jsonl` (rotated first when [`crate::journal::files`] says so) and
//! `archive.jsonl`; the preflight that a tick can record what it does.
//!
//! Reads the state back and validates it ([`StateDir::load`]), naming the way back when
//! it is unusable. Decides nothing about what is written.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::error::{Aftermath, StorageError, access_error, not_a_directory, write_error};
use super::{
    BACKUP_FILE, JOURNAL_FILE, Lock, REDACTION_KEY_FILE, REDACTION_NAMES_FILE, STATE_FILE, StateDir,
};
use crate::journal::files;
use crate::ledger::{LEDGER_FILE, Ledger};
use crate::state::{State, StateProblem};
use crate::untrusted::names::KnownNames;
use crate::untrusted::redact::RedactionKey;

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

impl StateDir {
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
    /// (on a full disk, a tick must not exit 1 having made its model calls): the
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
}

/// Writes `buf` (whole lines) at the end of `file` (`len` bytes, open to append) with one
/// `write`, on a new line if the file ends in a torn one, and syncs it.
pub(super) fn write_lines(
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

/// The soft file-size limit of this process in bytes (`ulimit -f`), when it has one and
/// `/proc/self/limits` says so (Linux).
pub(super) fn file_size_limit() -> Option<u64> {
    let limits = fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max file size"))?;
    let soft = line["Max file size".len()..].split_whitespace().next()?;
    soft.parse().ok()
}

/// Reads and validates a state file.
pub(super) fn read_state(path: &Path) -> Result<State, StateProblem> {
    match fs::read(path) {
        Ok(bytes) => parse_state(bytes),
        Err(e) => Err(StateProblem::Syntax(format!("it cannot be read: {e}"))),
    }
}

pub(super) fn parse_state(bytes: Vec<u8>) -> Result<State, StateProblem> {
    match String::from_utf8(bytes) {
        Ok(text) => State::from_json(&text),
        Err(e) => Err(StateProblem::Syntax(format!(
            "it is not UTF-8 text (bad byte at offset {})",
            e.utf8_error().valid_up_to()
        ))),
    }
}

/// The state as written, or the error (never empty text in place of a memory).
pub(super) fn state_json(state: &State) -> Result<String, StorageError> {
    state.to_json().map_err(|source| StorageError::Serialize {
        what: "the state",
        source,
    })
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

pub(super) fn sync_dir(dir: &Path) -> io::Result<()> {
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

    /// The names learned from mail headers, keyed (SPEC §9): none when there is no file
    /// yet. A file that does not read as them is an error (a tick would send the names
    /// it held in clear), which says the way out.
    pub fn known_names(&self) -> Result<KnownNames, StorageError> {
        self.refuse_link(REDACTION_NAMES_FILE)?;
        let path = self.file(REDACTION_NAMES_FILE);
        match fs::read_to_string(&path) {
            Ok(text) => KnownNames::from_json(&text).ok_or(StorageError::RedactionNames {
                path,
                message: "it is not thinker's list of keyed names".into(),
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(KnownNames::default()),
            Err(source) => Err(StorageError::Read { path, source }),
        }
    }

    /// Writes the names to keep (atomically, 0600), under the lock; no file when there
    /// are none (and the file removed when there were).
    pub fn write_names(&self, _lock: &Lock, names: &KnownNames) -> Result<(), StorageError> {
        if names.is_empty() {
            self.refuse_link(REDACTION_NAMES_FILE)?;
            let path = self.file(REDACTION_NAMES_FILE);
            return match fs::remove_file(&path) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => Err(StorageError::Write {
                    path,
                    source: e,
                    aftermath: Aftermath::Unchanged,
                }),
                _ => Ok(()),
            };
        }
        let text = names.to_json().map_err(|source| StorageError::Serialize {
            what: "the learned names",
            source,
        })?;
        self.write_file(REDACTION_NAMES_FILE, text.as_bytes())
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
