//! `thinker feedback ID used|wrong [--note TEXT]`: the agent's word on an entry,
//! appended to `feedback.jsonl` in the state directory ([`StateDir::append_feedback`])
//! without the tick lock — safe while a tick runs — and applied by the next tick (SPEC
//! §7.9, [`crate::aggregate::feedback`]).
//!
//! An id not in the state is still recorded (the state may be mid-write, or the entry
//! about to be added back), with a warning on stderr: the tick drops verdicts on
//! unknown ids and journals them. Must not take the lock or write the state.

use crate::aggregate::feedback::{Judgement, Verdict};
use crate::cli::{FeedbackArgs, VerdictWord};
use crate::cmd::Context;
use crate::error::{EXIT_OK, Error};
use crate::storage::StateDir;
use crate::untrusted;

pub fn run(ctx: &mut Context<'_>, args: &FeedbackArgs) -> Result<u8, Error> {
    let resolved = ctx.optional_config()?;
    let judgement = match args.verdict {
        VerdictWord::Used => Judgement::Used,
        VerdictWord::Wrong => Judgement::Wrong,
    };
    let verdict = Verdict::new(ctx.clock.now, &args.id, judgement, args.note.as_deref());
    // Whether the id is known: a state that cannot be read is the tick's to report.
    let known = StateDir::at(&resolved.state_dir)
        .load()
        .ok()
        .map(|state| state.all_entries().any(|(_, e)| e.id == verdict.id));
    let dir = StateDir::create(&resolved.state_dir)?;
    dir.append_feedback(&verdict)?;
    match known {
        Some(true) => {}
        Some(false) => ctx.stderr(&format!(
            "warning: no entry `{}` in the subconscious now; recorded anyway, but the next tick drops a verdict on an unknown id (and journals it). `thinker show` lists the ids.\n",
            untrusted::excerpt(&verdict.id, 80)
        ))?,
        None => ctx.stderr(
            "warning: the state cannot be read to check the id; recorded anyway (`thinker show` says what is wrong with the state)\n",
        )?,
    }
    ctx.stdout(
        format!(
            "recorded: {} {} (applied by the next tick)\n",
            untrusted::excerpt(&verdict.id, 80),
            verdict.verdict.as_str()
        )
        .as_bytes(),
    )?;
    Ok(EXIT_OK)
}
