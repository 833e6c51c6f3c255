//! The hand-off of the agent's verdicts (`feedback.jsonl`, SPEC §7.9) to a tick:
//! appended without the tick lock, under a shared `flock` of the file itself
//! ([`StateDir::append_feedback`]); taken by a tick under its lock by renaming the file
//! to `feedback.jsonl.consumed-<run>` and waiting for its writers
//! ([`StateDir::take_feedback`]); removed once the state that applied them is committed
//! ([`StateDir::clear_feedback`]).
//!
//! Must not apply verdicts (the aggregator does).

use std::fs::{self, File, TryLockError};
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::commit::{open_append, write_lines};
use super::error::{StorageError, write_error};
use super::{CONSUMED_PREFIX, FEEDBACK_FILE, Lock, StateDir, consumed_order};
use crate::aggregate::feedback::Verdict;

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
    pub(super) fn append_feedback_with(
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
                let written = write_lines(&mut file, mine.len(), buf, &path);
                // Unlocked explicitly, not by the close: see `Lock`'s `Drop`.
                let _ = file.unlock();
                return written;
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
}

/// Waits until no `thinker feedback` is writing to `path` (a `feedback.jsonl` just renamed
/// by a tick): takes and drops its exclusive `flock`, which waits for every writer that
/// locked it before the rename ([`StateDir::append_feedback`]); a writer that locks it
/// later sees the rename and appends to the new file. A writer holds its lock for one
/// `write`: after 2 s (a stopped writer) the file is read as it is, with a warning.
pub(super) fn wait_for_writers(path: &Path) {
    // A FIFO would hang the open (and is never read: `read_feedback`).
    if !fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        return;
    }
    let Ok(file) = File::open(path) else { return };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    loop {
        match file.try_lock() {
            Ok(()) => {
                // Unlocked explicitly, not by the close: see `Lock`'s `Drop`.
                let _ = file.unlock();
                return;
            }
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
