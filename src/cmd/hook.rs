//! `thinker hook claude-code|codex`: answers a Claude Code or Codex hook event read
//! from stdin (both send `hook_event_name`, `session_id`, `prompt` and take the same
//! answer).
//!
//! `SessionStart` gets the compact text of what matters now; `UserPromptSubmit` gets the
//! entries that match the prompt (`show --format prompt --for PROMPT`), or nothing. The
//! answer is `{"hookSpecificOutput": {"hookEventName": …, "additionalContext": …}}` on
//! stdout, within the host's limit ([`Host`]: `[recall] max_bytes`, at most 9,500 bytes
//! for Claude Code and 9,600 for Codex), whole lines, best first. No chat model is called
//! on this path; with `[recall] embeddings` the prompt is embedded within
//! `embeddings_timeout_ms`. Within a session a block is injected once: the hook keeps a small record per
//! session in `hooks/<hash of the session id>.json` (0600, written atomically without
//! the tick lock) with the hashes of the last blocks it injected ([`crate::recall::Block::key`],
//! which ignores relative times and strengths), so the same block is not injected again
//! until it changed; a `SessionStart` (startup, resume, clear, compact: a new context)
//! starts the record afresh and removes records older than a day.
//!
//! The hook only reads the memory: the record is its one write, and the state directory
//! may be read-only (a state another user's cron writes, a read-only mount). Then it
//! answers without the record — a block may be injected again in the same session — and
//! says nothing about it: its stderr is the agent's screen, and the journal is as
//! read-only as the rest (`thinker doctor` names a read-only state directory). The
//! record's write failing for any other reason is treated the same.
//!
//! A hook must never break the agent: an unknown event, malformed stdin, an unreadable
//! state or config all end with exit 0, nothing on stdout and one line on stderr.

use std::io::Read;

use chrono::{DateTime, TimeDelta, Utc};
use serde::{Deserialize, Serialize};

use crate::cli::{HookAgent, HookArgs};
use crate::cmd::Context;
use crate::cmd::shared::agent_block;
use crate::error::{EXIT_OK, Error};
use crate::recall::Block;
use crate::recall::host::Host;
use crate::recollect::RecallSettings;
use crate::storage::{HOOKS_DIR, StateDir};
use crate::{timestamp, untrusted};

/// Stdin beyond this is not read (a prompt is far shorter).
const MAX_INPUT: u64 = 4 * 1024 * 1024;
/// A session record keeps the hashes of this many blocks.
const REMEMBERED_BLOCKS: usize = 32;
/// Session records older than this are removed.
const RECORD_LIFETIME: TimeDelta = TimeDelta::days(1);

/// The fields of a Claude Code hook event that matter here.
#[derive(Debug, Deserialize)]
struct Event {
    hook_event_name: String,
    #[serde(default)]
    session_id: Option<String>,
    #[serde(default)]
    prompt: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Specific<'a> {
    hook_event_name: &'a str,
    additional_context: &'a str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Answer<'a> {
    hook_specific_output: Specific<'a>,
}

/// What the hook remembers of one session.
#[derive(Debug, Default, Serialize, Deserialize)]
struct SessionRecord {
    #[serde(with = "timestamp::serde_utc_opt", default)]
    at: Option<DateTime<Utc>>,
    /// Hashes of the blocks injected in this session, oldest first.
    #[serde(default)]
    shown: Vec<String>,
}

/// Why the hook answers nothing (said on stderr).
#[derive(Debug, thiserror::Error)]
enum Quiet {
    #[error("cannot read the hook event on stdin: {0}")]
    Stdin(std::io::Error),
    #[error(
        "the hook event on stdin is not a {0} hook event ({1}); expected JSON with hook_event_name"
    )]
    Malformed(&'static str, String),
    #[error("event `{0}` is not handled (SessionStart and UserPromptSubmit are)")]
    Unhandled(String),
    #[error("{0}")]
    Thinker(#[from] Error),
}

pub fn run(ctx: &mut Context<'_>, args: &HookArgs) -> Result<u8, Error> {
    run_with_input(ctx, args, &mut std::io::stdin().lock())
}

/// [`run`] on any input (tests).
pub fn run_with_input(
    ctx: &mut Context<'_>,
    args: &HookArgs,
    input: &mut dyn Read,
) -> Result<u8, Error> {
    let host = match args.agent {
        HookAgent::ClaudeCode => Host::ClaudeCode,
        HookAgent::Codex => Host::Codex,
    };
    match answer(ctx, input, host) {
        Ok(Some(json)) => ctx.stdout(json.as_bytes())?,
        Ok(None) => {}
        Err(e) => {
            let _ = ctx.stderr(&format!("thinker hook: {e}; nothing added\n"));
        }
    }
    Ok(EXIT_OK)
}

/// The host's name in messages.
fn title(host: Host) -> &'static str {
    match host {
        Host::Codex => "Codex",
        _ => "Claude Code",
    }
}

fn answer(ctx: &Context<'_>, input: &mut dyn Read, host: Host) -> Result<Option<String>, Quiet> {
    let mut bytes = Vec::new();
    input
        .take(MAX_INPUT)
        .read_to_end(&mut bytes)
        .map_err(Quiet::Stdin)?;
    let event: Event = serde_json::from_slice(&bytes)
        .map_err(|e| Quiet::Malformed(title(host), untrusted::excerpt(&e.to_string(), 120)))?;
    let name = event.hook_event_name.as_str();
    let start = match name {
        "SessionStart" => true,
        "UserPromptSubmit" => false,
        _ => return Err(Quiet::Unhandled(untrusted::excerpt(name, 60))),
    };
    let resolved = ctx.optional_config()?;
    let dir = StateDir::at(&resolved.state_dir);
    let state = dir.load().map_err(Error::from)?;
    let settings: RecallSettings = resolved
        .config
        .as_ref()
        .map(|c| c.recall.clone())
        .unwrap_or_default();
    let limits = settings.limits(host.max_bytes(settings.max_bytes));
    let question = (!start).then(|| event.prompt.as_deref().unwrap_or_default());
    let block = agent_block(
        &dir,
        &state,
        resolved.config.as_ref(),
        &settings,
        question,
        &limits,
        &ctx.clock,
    );
    if !dir.path().is_dir() {
        return Ok(None);
    }
    if !remember(
        &dir,
        host,
        event.session_id.as_deref(),
        &block,
        start,
        ctx.clock.now,
    )? {
        return Ok(None);
    }
    let answer = Answer {
        hook_specific_output: Specific {
            hook_event_name: name,
            additional_context: &block.text,
        },
    };
    let mut json = serde_json::to_string(&answer).map_err(|source| Error::Serialize {
        what: "the hook answer",
        source,
    })?;
    json.push('\n');
    Ok(Some(json))
}

/// Whether `block` is to be injected: not empty and not injected in this session yet
/// (recorded when it is; when the record cannot be written — a read-only state — it is
/// injected unrecorded). A `SessionStart` starts the session's record afresh and removes
/// records older than a day.
fn remember(
    dir: &StateDir,
    host: Host,
    session: Option<&str>,
    block: &Block,
    start: bool,
    now: DateTime<Utc>,
) -> Result<bool, Error> {
    // A read-only state has no `hooks/` to create: read what is there, if anything.
    let hooks = dir
        .subdir(HOOKS_DIR)
        .unwrap_or_else(|_| StateDir::at(&dir.file(HOOKS_DIR)));
    if start {
        prune(&hooks, now);
    }
    if block.is_empty() {
        return Ok(false);
    }
    let Some(session) = session.filter(|s| !s.is_empty()) else {
        return Ok(true);
    };
    let name = format!("{}.json", untrusted::fence_id(&[host.name(), session]));
    let mut record = if start {
        SessionRecord::default()
    } else {
        read_record(&hooks, &name).unwrap_or_default()
    };
    let hash = untrusted::fence_id(&[&block.key]);
    if record.shown.contains(&hash) {
        return Ok(false);
    }
    record.shown.push(hash);
    let excess = record.shown.len().saturating_sub(REMEMBERED_BLOCKS);
    record.shown.drain(..excess);
    record.at = Some(now);
    let bytes = serde_json::to_vec(&record).map_err(|source| Error::Serialize {
        what: "the hook's session record",
        source,
    })?;
    if let Err(e) = hooks.write_unsynced(&name, &bytes) {
        // Injected all the same, unrecorded (see the module's doc): not on the agent's
        // screen, only in a log the user asked for (`thinker -v hook …`).
        tracing::info!("the hook's session record is not kept: {e}");
    }
    Ok(true)
}

fn read_record(hooks: &StateDir, name: &str) -> Option<SessionRecord> {
    let text = std::fs::read(hooks.file(name)).ok()?;
    serde_json::from_slice(&text).ok()
}

/// Removes session records last written more than a day before `now` (and unreadable
/// ones), and the temp files of killed hooks (a hook writing one right now then fails
/// to rename it: one line on stderr, the block shown again next time).
fn prune(hooks: &StateDir, now: DateTime<Utc>) {
    for name in hooks.file_names() {
        if name.starts_with('.') && name.contains(".tmp-") {
            let _ = std::fs::remove_file(hooks.file(&name));
            continue;
        }
        if std::path::Path::new(&name)
            .extension()
            .is_none_or(|e| e != "json")
        {
            continue;
        }
        let old = read_record(hooks, &name)
            .and_then(|r| r.at)
            .is_none_or(|at| now - at > RECORD_LIFETIME);
        if old {
            let _ = std::fs::remove_file(hooks.file(&name));
        }
    }
}
