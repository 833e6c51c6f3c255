//! `thinker init [--provider NAME=URL [--model MODEL]]`: finds where the config and the
//! state go, detects what this machine can use ([`crate::init::detect`]: key variables,
//! a local llama-server, LM Studio or Ollama, a notifier) — or, with `--provider`, takes
//! that one server for every thread — and has [`crate::init`] write the config, the
//! state and the env file. Its result (what it found, what it wrote, what to do next) on
//! stdout; notes (a remote free tier written) on stderr unless `-q`. Asks nothing; never
//! overwrites.

use crate::cli::InitArgs;
use crate::cmd::Context;
use crate::error::{EXIT_OK, Error};

pub fn run(ctx: &mut Context<'_>, args: &InitArgs) -> Result<u8, Error> {
    let config_path = ctx.config_path()?;
    let state_dir = ctx.state_dir(None)?;
    let env = |var: &str| std::env::var(var).ok();
    // One server given: no other is looked for.
    let detected = crate::init::detect(&env, args.provider.is_none());
    let server = args
        .provider
        .as_ref()
        .map(|p| crate::init::OneServer::ask(&p.name, &p.url, args.model.as_deref()));
    let outcome = crate::init::init(&config_path, &state_dir, &detected, server.as_ref())?;
    ctx.stdout(outcome.stdout.as_bytes())?;
    if !ctx.global.quiet && !outcome.notes.is_empty() {
        ctx.stderr(&outcome.notes)?;
    }
    Ok(EXIT_OK)
}
