//! `thinker feedback ID used|wrong [--note TEXT]`: the agent's word on an entry,
//! appended to `feedback.jsonl` in the state directory ([`StateDir::append_feedback`])
//! without the tick lock — safe while a tick runs — and applied by the next tick (SPEC
//! §7.9, [`crate::aggregate::feedback`]).
//!
//! An id not in the state is still recorded (the state may be mid-write, or the entry
//! about to be added back), with a warning on stderr: the tick drops verdicts on
//! unknown ids and journals them. Must not take the lock or write the state.
//! [`record`] is the one path of this command and of the MCP `feedback` tool.

use std::path::Path;

use chrono::{DateTime, Utc};

use crate::aggregate::feedback::{Judgement, Verdict};
use crate::cli::{FeedbackArgs, VerdictWord};
use crate::cmd::Context;
use crate::error::{EXIT_OK, Error};
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

pub fn run(ctx: &mut Context<'_>, args: &FeedbackArgs) -> Result<u8, Error> {
    let resolved = ctx.optional_config()?;
    let judgement = match args.verdict {
        VerdictWord::Used => Judgement::Used,
        VerdictWord::Wrong => Judgement::Wrong,
    };
    let recorded = record(
        &resolved.state_dir,
        ctx.clock.now,
        &args.id,
        judgement,
        args.note.as_deref(),
    )?;
    if let Some(warning) = recorded.warning() {
        ctx.stderr(&format!("{warning}\n"))?;
    }
    ctx.stdout(format!("{}\n", recorded.confirmation()).as_bytes())?;
    Ok(EXIT_OK)
}
