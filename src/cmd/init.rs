//! `thinker init`: finds where the config and the state go, detects the providers this
//! machine can use ([`crate::init::detect`]: key variables, a local Ollama) and has
//! [`crate::init`] write them; says what it found, wrote and what to do next on stderr
//! unless `-q`. Asks nothing; never overwrites.

use crate::cmd::Context;
use crate::error::{EXIT_OK, Error};

pub fn run(ctx: &mut Context<'_>) -> Result<u8, Error> {
    let config_path = ctx.config_path()?;
    let state_dir = ctx.state_dir(None)?;
    let detected = crate::init::detect(&|var| std::env::var(var).ok());
    let text = crate::init::init(&config_path, &state_dir, &detected)?;
    if !ctx.global.quiet {
        ctx.stderr(&text)?;
    }
    Ok(EXIT_OK)
}
