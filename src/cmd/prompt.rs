//! `thinker prompt <thread> [--as-sent]`: prints the exact prompt the thread would be
//! sent now, built by the tick's own path ([`crate::input::InputContext::thread_input`])
//! on the state as the tick shows it ([`crate::aggregate::as_seen`]); calls no model and
//! writes nothing. With `--as-sent`, what would leave for the provider the thread's chain
//! asks first (SPEC §9): the public copy when private text is withheld from it, redacted
//! when it redacts, through the chain's own [`crate::egress::prepare`]; stderr says where
//! it would go and what was withheld and replaced.

use crate::aggregate;
use crate::cli::PromptArgs;
use crate::cmd::Context;
use crate::egress::Egress;
use crate::error::{EXIT_OK, Error};
use crate::input::{InputContext, ThreadInput, thread_request};
use crate::privacy::Reach;
use crate::privacy::policy::Policy;
use crate::prompt::Prompts;
use crate::provider::Providers;
use crate::runtime;
use crate::storage::StateDir;
use crate::thread::ThreadName;
use crate::untrusted::redact::RedactionKey;

pub fn run(ctx: &mut Context<'_>, args: &PromptArgs) -> Result<u8, Error> {
    let thread: ThreadName = args.thread.parse()?;
    let resolved = ctx.required_config()?;
    let config = &resolved.config;
    let dir = StateDir::at(&resolved.state_dir);
    let loaded = dir.load()?;
    // As the tick shows it: at most the caps.
    let seen = aggregate::as_seen(&loaded, ctx.clock.now, &config.memory);
    let (sources, max_tokens) = config.thread(thread).map_or_else(
        || (Vec::new(), crate::config::DEFAULT_MAX_TOKENS),
        |t| (t.sources.clone(), t.max_tokens),
    );
    let prompts = Prompts::new(config.prompts_dir.as_deref());
    let privacy = Policy::new(config);
    let inputs = InputContext {
        seen: &seen,
        state_dir: dir.path(),
        prompts: &prompts,
        clock: ctx.clock,
        max_input_bytes: crate::input::thread_share(config),
        privacy: &privacy,
        calendars: None,
    };
    let input = runtime::block_on(inputs.thread_input(thread, &sources, max_tokens))?;
    if !args.as_sent {
        let text = input.prompt?;
        ctx.stdout(text.as_bytes())?;
        return Ok(EXIT_OK);
    }
    as_sent(ctx, thread, &input, &seen, &dir)
}

/// What would leave for the first provider the thread's chain asks.
fn as_sent(
    ctx: &mut Context<'_>,
    thread: ThreadName,
    input: &ThreadInput,
    seen: &crate::state::State,
    dir: &StateDir,
) -> Result<u8, Error> {
    let resolved = ctx.required_config()?;
    let config = &resolved.config;
    let not_configured = Error::ThreadNotConfigured { thread };
    let Some(cfg) = config.thread(thread) else {
        return Err(not_configured);
    };
    let (key, note) = match dir.redaction_key()? {
        Some(key) => (key, None),
        None => (
            RedactionKey::random().unwrap_or(RedactionKey::from_bytes([0; 32])),
            Some(
                "no redaction key yet (the first tick writes one): placeholders below are this run's only",
            ),
        ),
    };
    let providers = Providers::new(config.providers.clone())
        .map_err(Error::Providers)?
        .with_privacy(config.privacy.private_to, &key)
        .with_names(dir.known_names()?);
    let pressure = seen.thread_state.get(thread).novelty_pressure;
    // The run the tick would make: the next one (only a `replay` provider reads it).
    let outgoing = input.outgoing(thread_request(thread, cfg, pressure, 0))?;
    // A configured thread has a model whose provider is configured (the config checks).
    let first = providers
        .preferred(&cfg.models, &outgoing)
        .into_iter()
        .next();
    let Some((model, (request, egress))) =
        first.and_then(|m| providers.as_sent(&m, &outgoing).map(|sent| (m, sent)))
    else {
        return Err(not_configured);
    };
    if !ctx.global.quiet {
        let mut lines = vec![header(&model.to_string(), &egress)];
        lines.extend(note.map(str::to_string));
        ctx.stderr(&format!("{}\n", lines.join("\n")))?;
    }
    let mut text = request.system;
    if !text.is_empty() {
        text.push_str("\n\n");
    }
    text.push_str(&request.prompt);
    ctx.stdout(text.as_bytes())?;
    Ok(EXIT_OK)
}

/// Where it would go and what happened to private text, for stderr.
fn header(model: &str, e: &Egress) -> String {
    let reach = match e.reach {
        Reach::Local => "on this machine",
        Reach::Remote => "remote",
    };
    let redacted = if e.redactions.is_empty() {
        "nothing redacted".to_string()
    } else {
        format!(
            "redacted: {}",
            e.redactions
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let withheld = if e.withheld_anything() {
        let mut parts = e.withheld.clone();
        if e.withheld_items > 0 {
            parts.push(format!("{} memory items", e.withheld_items));
        }
        format!("withheld: {}", parts.join(", "))
    } else {
        "nothing withheld".into()
    };
    format!("as sent to {model} ({reach}): {withheld}; {redacted}")
}
