//! `thinker tick`: runs one tick ([`crate::tick::run`]) on the context's clock and
//! reports it: the JSON report on stdout (`--json`), the account on stdout (`--dry-run`)
//! or on stderr (`-v`), else nothing. The exit code is the tick's (SPEC §1).

use crate::account;
use crate::cli::TickArgs;
use crate::cmd::Context;
use crate::error::{Error, to_json_pretty};
use crate::tick::{self, TickOptions};

pub fn run(ctx: &mut Context<'_>, args: &TickArgs) -> Result<u8, Error> {
    let resolved = ctx.required_config()?;
    resolved.config.check_threads()?;
    let options = TickOptions {
        dry_run: args.dry_run,
        clock: ctx.clock,
    };
    let report = tick::run(&resolved.config, &resolved.state_dir, &options)?;
    if !args.dry_run {
        refresh_embeddings(&resolved.config, &resolved.state_dir, ctx.clock.now);
    }
    if args.json {
        let text = to_json_pretty(&report, "the tick report")?;
        ctx.stdout(text.as_bytes())?;
    } else if args.dry_run {
        ctx.stdout(account::render(&report).as_bytes())?;
    } else if ctx.global.verbose > 0 {
        ctx.stderr(&account::render(&report))?;
    }
    Ok(report.exit_code())
}

/// With `[recall] embeddings`: the vectors of new and changed entries, cached for
/// recall (after the state is written and the lock released; a failure is a warning and
/// changes nothing else: recall stays lexical until a later tick succeeds). What is
/// sent follows `[privacy] private_to`, and the call is journaled at `now`
/// ([`crate::embeddings::refresh`]).
fn refresh_embeddings(
    config: &crate::config::Config,
    state_dir: &std::path::Path,
    now: chrono::DateTime<chrono::Utc>,
) {
    let Some(settings) = &config.recall.embeddings else {
        return;
    };
    let dir = crate::storage::StateDir::at(state_dir);
    let Ok(state) = dir.load() else {
        return;
    };
    match crate::runtime::block_on(crate::embeddings::refresh(&dir, &state, settings, now)) {
        Ok(Ok(done)) if done.withheld > 0 => {
            tracing::info!("{}", settings.withheld_note().unwrap_or_default());
        }
        Ok(Ok(done)) => tracing::info!(
            "embeddings: {} embedded, {} kept, {} dropped",
            done.embedded,
            done.kept,
            done.dropped
        ),
        Ok(Err(e)) => {
            tracing::warn!("embeddings not refreshed: {e}; recall stays lexical for new entries");
        }
        Err(e) => tracing::warn!("embeddings not refreshed: {e}"),
    }
}
