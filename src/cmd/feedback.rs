//! `thinker feedback ID used|wrong [--note TEXT]`: the agent's word on an entry,
//! appended to `feedback.jsonl` in the state directory ([`crate::storage::StateDir::append_feedback`])
//! without the tick lock — safe while a tick runs — and applied by the next tick (SPEC
//! §7.9, [`crate::aggregate::feedback`]).
//!
//! An id not in the state is still recorded (the state may be mid-write, or the entry
//! about to be added back), with a warning on stderr: the tick drops verdicts on
//! unknown ids and journals them. Must not take the lock or write the state.
//! [`crate::feedback::record`] is the one path of this command and of the MCP
//! `feedback` tool.

use crate::aggregate::feedback::Judgement;
use crate::cli::{FeedbackArgs, VerdictWord};
use crate::cmd::Context;
use crate::error::{EXIT_OK, Error};
use crate::feedback::record;

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
