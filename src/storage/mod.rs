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
//! The journal is rotated in its append: before a line goes into `journal.jsonl`, the
//! file is renamed aside when [`crate::journal::files`] says so (a new UTC month, or past
//! `max_bytes`; the rotated files' names and their order are that module's). The tick
//! appends under its lock, so a rotation never races another. The archive is not rotated.
//!
//! By concept: [`error`] (what went wrong, and the way out), [`dir`] (the directory, its
//! lock and tidying), [`commit`] (the atomic writes: state with its `.bak`, ledger, key;
//! journal and archive appends; the preflight), [`feedback`] (the hand-off of the agent's
//! verdicts to a tick).

pub mod commit;
pub mod dir;
pub mod error;
pub mod feedback;
#[cfg(test)]
mod tests;

use std::path::PathBuf;

pub use crate::journal::files::{
    JOURNAL_FILE, JournalRotation, journal_file_order, journal_file_start,
};
pub use commit::Staged;
pub(crate) use commit::open_append;
pub(crate) use dir::file_kind;
pub use dir::{Lock, Tidied};
pub use error::{Access, Aftermath, StorageError};
pub use feedback::TakenFeedback;

pub const STATE_FILE: &str = "subconscious.json";
pub const BACKUP_FILE: &str = "subconscious.json.bak";
pub const LOCK_FILE: &str = "subconscious.json.lock";
pub const ARCHIVE_FILE: &str = "archive.jsonl";
/// The agent's verdicts (SPEC §7.9), appended without the lock.
pub const FEEDBACK_FILE: &str = "feedback.jsonl";
/// `feedback.jsonl` as a tick took it, under the lock, until its state is committed:
/// `feedback.jsonl.consumed-<run>` (`-<run>.<n>` when that name is taken).
const CONSUMED_PREFIX: &str = "feedback.jsonl.consumed-";
/// What `thinker release`, `discard` and `notify --test` did, one line a step
/// (`crate::escalation::held::Step`), appended under the lock (a test without it).
pub const DELIVERIES_FILE: &str = "deliveries.jsonl";
/// The hook's per-session records (`thinker hook`), written without the lock.
pub const HOOKS_DIR: &str = "hooks";

/// The file a failed cron tick's output is appended to (`thinker cron`): thinker's own, so
/// it does not keep [`StateDir::tidy`] from making the directory private.
pub const CRON_LOG_FILE: &str = "cron.log";

/// The secret redaction placeholders are keyed with (SPEC §9): 64 hex digits, written
/// once, 0600, never logged. Removing it gives new placeholders to values the memory
/// already mentions.
pub const REDACTION_KEY_FILE: &str = "redaction.key";

/// The names learned from mail headers, keyed with the redaction key (SPEC §9): each a
/// placeholder and the keyed hashes of its parts, never a name in clear; 0600. Kept
/// while the memory mentions them ([`crate::untrusted::names`]).
pub const REDACTION_NAMES_FILE: &str = "redaction-names.json";

/// An open state directory.
#[derive(Debug, Clone)]
pub struct StateDir {
    dir: PathBuf,
    journal_rotation: JournalRotation,
}

/// The order of a consumed feedback file (`feedback.jsonl.consumed-<run>[.<n>]`).
fn consumed_order(name: &str) -> Option<(u64, u32)> {
    let rest = name.strip_prefix(CONSUMED_PREFIX)?;
    let (run, n) = rest.split_once('.').unwrap_or((rest, "1"));
    Some((run.parse().ok()?, n.parse().ok()?))
}
