//! `thinker show`: the subconscious for a person ([`crate::show::render`], ages and
//! wall-clock times from the context's clock), the state file as it is on disk
//! (`--json`), the entries that match a text as JSON (`--format json --for TEXT`), or
//! the compact text for an agent (`--format prompt`, implied by `--for` and
//! `--max-bytes`: [`crate::recall`], with its inputs from [`crate::recollect`]). Reads
//! only, takes no lock (the state is replaced atomically, so a read is always whole).
//!
//! Works without a config on a state that is there. With neither a config nor a state
//! file, the text for a person is refused as `tick` refuses (no config: run `thinker
//! init`), instead of showing an empty memory; the forms for programs (`--json`,
//! `--format prompt|json`) still answer with the empty state, so an agent's hook does not
//! fail before `init`. A `--for` that nothing matches says so in one line on stderr
//! (unless `-q`), exit 0.

use serde::Serialize;

use crate::cli::{ShowArgs, ShowFormat};
use crate::cmd::Context;
use crate::cmd::shared::agent_block;
use crate::config::ConfigError;
use crate::error::{EXIT_OK, Error, to_json_pretty};
use crate::recall::{self, Recalled};
use crate::recollect::{self, RecallSettings};
use crate::storage::{self, STATE_FILE, StateDir};
use crate::untrusted;

/// `show --format json --for TEXT`.
#[derive(Serialize)]
struct Matches<'a> {
    #[serde(rename = "for")]
    text: &'a str,
    entries: Vec<Recalled>,
}

pub fn run(ctx: &mut Context<'_>, args: &ShowArgs) -> Result<u8, Error> {
    let resolved = ctx.optional_config()?;
    let dir = StateDir::at(&resolved.state_dir);
    let for_a_person = !args.json
        && args.format == ShowFormat::Text
        && args.for_text.is_none()
        && args.max_bytes.is_none();
    if for_a_person && resolved.config.is_none() && !dir.file(STATE_FILE).exists() {
        return Err(ConfigError::Missing {
            path: ctx.config_path()?,
        }
        .into());
    }
    let settings = resolved
        .config
        .as_ref()
        .map(|c| c.recall.clone())
        .unwrap_or_default();
    if args.format == ShowFormat::Json
        && let Some(text) = args.for_text.as_deref()
    {
        return matches(ctx, &dir, &settings, text);
    }
    if args.json || args.format == ShowFormat::Json {
        return json(ctx, &dir);
    }
    if args.format == ShowFormat::Prompt || args.for_text.is_some() || args.max_bytes.is_some() {
        let state = dir.load()?;
        let limits = settings.limits(args.max_bytes.map_or(settings.max_bytes, |n| n as usize));
        let question = args.for_text.as_deref();
        let block = agent_block(
            &dir,
            &state,
            resolved.config.as_ref(),
            &settings,
            question,
            &limits,
            &ctx.clock,
        );
        ctx.stdout(block.text.as_bytes())?;
        if let Some(text) = question
            && block.text.is_empty()
        {
            nothing_matched(ctx, text)?;
        }
        return Ok(EXIT_OK);
    }
    let state = dir.load()?;
    let caps = resolved.config.map(|c| c.memory.caps).unwrap_or_default();
    let text = crate::show::render(&state, &caps, &ctx.clock, ctx.use_color(args.color));
    ctx.stdout(text.as_bytes())?;
    Ok(EXIT_OK)
}

/// `show --format json --for TEXT`: the entries that match, best first, as JSON.
fn matches(
    ctx: &mut Context<'_>,
    dir: &StateDir,
    settings: &RecallSettings,
    text: &str,
) -> Result<u8, Error> {
    let state = dir.load()?;
    let inputs = recollect::blocking(dir, &state, settings, Some(text), ctx.clock.now);
    let limits = settings.limits(settings.max_bytes);
    let ranked = recall::recall(&state, text, &ctx.clock, &limits, &inputs.inputs());
    let out = Matches {
        text,
        entries: ranked.iter().map(Recalled::of).collect(),
    };
    let mut json = to_json_pretty(&out, "the matching entries")?;
    if !json.ends_with('\n') {
        json.push('\n');
    }
    ctx.stdout(json.as_bytes())?;
    if out.entries.is_empty() {
        nothing_matched(ctx, text)?;
    }
    Ok(EXIT_OK)
}

/// The one line on stderr when nothing matches `--for TEXT` (not with `-q`).
fn nothing_matched(ctx: &mut Context<'_>, text: &str) -> Result<(), Error> {
    if ctx.global.quiet {
        return Ok(());
    }
    ctx.stderr(&format!(
        "nothing in the memory matches `{}` well enough\n",
        untrusted::excerpt(text, 80)
    ))
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
