//! `thinker prompt <thread>`: prints the exact prompt the thread would be sent now,
//! built by the tick's own path ([`crate::input::InputContext::thread_input`]) on the
//! state as the tick shows it ([`crate::aggregate::as_seen`]); calls no model and
//! writes nothing.

use crate::aggregate;
use crate::cli::PromptArgs;
use crate::cmd::Context;
use crate::error::{EXIT_OK, Error};
use crate::input::InputContext;
use crate::privacy::Policy;
use crate::prompt::Prompts;
use crate::runtime;
use crate::storage::StateDir;
use crate::thread::ThreadName;

pub fn run(ctx: &mut Context<'_>, args: &PromptArgs) -> Result<u8, Error> {
    let thread: ThreadName = args.thread.parse()?;
    let resolved = ctx.required_config()?;
    let config = &resolved.config;
    let dir = StateDir::at(&resolved.state_dir);
    let loaded = dir.load()?;
    // As the tick shows it: at most the caps.
    let seen = aggregate::as_seen(&loaded, ctx.clock.now, &config.memory);
    let sources = config
        .thread(thread)
        .map(|t| t.sources.clone())
        .unwrap_or_default();
    let prompts = Prompts::new(config.prompts_dir.as_deref());
    let privacy = Policy::new(config);
    let inputs = InputContext {
        seen: &seen,
        state_dir: dir.path(),
        prompts: &prompts,
        clock: ctx.clock,
        privacy: &privacy,
    };
    let input = runtime::block_on(inputs.thread_input(thread, &sources))?;
    let text = input.prompt?;
    ctx.stdout(text.as_bytes())?;
    Ok(EXIT_OK)
}
