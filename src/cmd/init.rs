//! `thinker init`: finds where the config and the state go and has [`crate::init`]
//! write them; says what it wrote on stderr unless `-q`. Never overwrites.

use crate::cmd::Context;
use crate::error::{EXIT_OK, Error};

pub fn run(ctx: &mut Context<'_>) -> Result<u8, Error> {
    let config_path = ctx.config_path()?;
    let state_dir = ctx.state_dir(None)?;
    let text = crate::init::init(&config_path, &state_dir)?;
    if !ctx.global.quiet {
        ctx.stderr(&text)?;
    }
    Ok(EXIT_OK)
}
