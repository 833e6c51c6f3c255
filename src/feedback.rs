//! Recording the agent's verdict on an entry (`used` or `wrong`, SPEC §7.9): appended to
//! `feedback.jsonl` without the tick lock ([`StateDir::append_feedback`]), with whether
//! its id is in the state now. The one path of `thinker feedback` and of the MCP
//! `feedback` tool; the next tick applies it ([`crate::aggregate::feedback`]). Must not
//! take the lock or write the state.

use std::path::Path;

use chrono::{DateTime, Utc};

use crate::aggregate::feedback::{Judgement, Verdict};
use crate::storage::{StateDir, StorageError};
use crate::untrusted;

/// A verdict appended to `feedback.jsonl`, and whether its id was in the state then.
#[derive(Clone, Debug, PartialEq)]
pub struct Recorded {
    pub verdict: Verdict,
    /// `Some(false)`: no such entry now; `None`: the state could not be read to check.
    pub known: Option<bool>,
}

/// Appends the agent's verdict on `id` to the state directory's `feedback.jsonl`
/// (created if needed), without the lock: the command's and the MCP tool's one path.
pub fn record(
    state_dir: &Path,
    at: DateTime<Utc>,
    id: &str,
    judgement: Judgement,
    note: Option<&str>,
) -> Result<Recorded, StorageError> {
    let verdict = Verdict::new(at, id, judgement, note);
    // Whether the id is known: a state that cannot be read is the tick's to report.
    let known = StateDir::at(state_dir)
        .load()
        .ok()
        .map(|state| state.all_entries().any(|(_, e)| e.id == verdict.id));
    let dir = StateDir::create(state_dir)?;
    dir.append_feedback(&verdict)?;
    Ok(Recorded { verdict, known })
}

impl Recorded {
    /// What to tell the agent when the id could not be checked or is unknown.
    pub fn warning(&self) -> Option<String> {
        match self.known {
            Some(true) => None,
            Some(false) => Some(format!(
                "warning: no entry `{}` in the subconscious now; recorded anyway, but the next tick drops a verdict on an unknown id (and journals it). `thinker show` lists the ids.",
                untrusted::excerpt(&self.verdict.id, 80)
            )),
            None => Some(
                "warning: the state cannot be read to check the id; recorded anyway (`thinker show` says what is wrong with the state)".to_string(),
            ),
        }
    }

    /// The one-line confirmation.
    pub fn confirmation(&self) -> String {
        format!(
            "recorded: {} {} (applied by the next tick)",
            untrusted::excerpt(&self.verdict.id, 80),
            self.verdict.verdict.as_str()
        )
    }
}
