//! `thinker show`: the subconscious for a person ([`crate::show::render`], ages and
//! wall-clock times from the context's clock), or the state file as it is on disk
//! (`--json`). Reads only; works without a config.

use crate::cli::{ShowArgs, ShowFormat};
use crate::cmd::Context;
use crate::error::{EXIT_OK, Error, to_json_pretty};
use crate::storage::{self, STATE_FILE, StateDir};

pub fn run(ctx: &mut Context<'_>, args: &ShowArgs) -> Result<u8, Error> {
    let resolved = ctx.optional_config()?;
    let dir = StateDir::at(&resolved.state_dir);
    if args.json || args.format == ShowFormat::Json {
        return json(ctx, &dir);
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
