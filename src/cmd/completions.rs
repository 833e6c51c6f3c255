//! `thinker completions SHELL` and `thinker man`: shell completions (`clap_complete`) and
//! the man page (`clap_mangen`, roff), both generated from the clap definitions of
//! [`crate::cli::Cli`], so they cannot drift from the command line. Print only; read no
//! config or state.

use clap::CommandFactory;

use crate::cli::Cli;
use crate::cmd::Context;
use crate::error::{EXIT_OK, Error};

/// Prints the completion script for `shell` on stdout.
pub fn run(ctx: &mut Context<'_>, shell: clap_complete::Shell) -> Result<u8, Error> {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "thinker", &mut buf);
    ctx.stdout(&buf)?;
    Ok(EXIT_OK)
}

/// Prints the man page (roff) on stdout: `thinker man > thinker.1`.
pub fn man(ctx: &mut Context<'_>) -> Result<u8, Error> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut buf)
        .map_err(|source| Error::Output {
            what: "the man page",
            source,
        })?;
    ctx.stdout(&buf)?;
    Ok(EXIT_OK)
}
