//! `thinker show`: the subconscious for a person ([`crate::show::render`], ages and
//! wall-clock times from the context's clock), the state file as it is on disk
//! (`--json`), or the compact text for an agent (`--format prompt`, implied by `--for`
//! and `--max-bytes`: [`crate::recall`]). Reads only, takes no lock (the state is
//! replaced atomically, so a read is always whole); works without a config.

use crate::cli::{ShowArgs, ShowFormat};
use crate::cmd::Context;
use crate::error::{EXIT_OK, Error, to_json_pretty};
use crate::recall::{self, DEFAULT_MAX_BYTES, Limits};
use crate::storage::{self, STATE_FILE, StateDir};

pub fn run(ctx: &mut Context<'_>, args: &ShowArgs) -> Result<u8, Error> {
    let resolved = ctx.optional_config()?;
    let dir = StateDir::at(&resolved.state_dir);
    if args.json || args.format == ShowFormat::Json {
        return json(ctx, &dir);
    }
    if args.format == ShowFormat::Prompt || args.for_text.is_some() || args.max_bytes.is_some() {
        let state = dir.load()?;
        let limits = Limits {
            max_bytes: args.max_bytes.map_or(DEFAULT_MAX_BYTES, |n| n as usize),
            ..Limits::default()
        };
        let block = recall::block(&state, args.for_text.as_deref(), &ctx.clock, &limits);
        ctx.stdout(block.text.as_bytes())?;
        return Ok(EXIT_OK);
    }
    let state = dir.load()?;
    let caps = resolved.config.map(|c| c.memory.caps).unwrap_or_default();
    let text = crate::show::render(&state, &caps, &ctx.clock, ctx.use_color(args.color));
    ctx.stdout(text.as_bytes())?;
    Ok(EXIT_OK)
}

/// `show --json`: the file exactly as it is on disk (after checking that it validates).
fn json(ctx: &mut Context<'_>, dir: &StateDir) -> Result<u8, Error> {
    let state = dir.load()?;
    let path = dir.file(STATE_FILE);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        // No file yet: the empty state, as it would be written (an error, never empty
        // bytes, if it did not serialize).
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            to_json_pretty(&state, "the state")?.into_bytes()
        }
        Err(source) => return Err(storage::StorageError::Read { path, source }.into()),
    };
    ctx.stdout(&bytes)?;
    Ok(EXIT_OK)
}
