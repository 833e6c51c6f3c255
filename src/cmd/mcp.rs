//! `thinker mcp`: serves the MCP tools of [`crate::mcp`] on stdio until the client
//! closes stdin (exit 0).
//!
//! Resolves the config (optional: without one there are no budgets to compare with) and
//! the state directory once, gives the server a clock that reads the system time at each
//! call (or `--now`, fixed, for tests) in the context's zone, and runs it on its own
//! current-thread runtime ([`crate::runtime::block_on`]). The protocol owns the
//! process's stdin and stdout ([`crate::mcp_stdio`]: requests past 1 MiB answered with an
//! error naming the limit), so, unlike other commands, this
//! one writes nothing to the context's streams; diagnostics go to stderr via `tracing`.
//! Must not take the tick lock or write anything but `feedback.jsonl` (the tools' rule).

use rmcp::ServiceExt;

use crate::clock::Clock;
use crate::cmd::{Context, now_from};
use crate::error::{EXIT_OK, Error};
use crate::mcp::{Allowances, ClockSource, Server, Tools};

pub fn run(ctx: &mut Context<'_>) -> Result<u8, Error> {
    let resolved = ctx.optional_config()?;
    let started = ctx.clock;
    let fixed = ctx.global.now.is_some();
    let clock: ClockSource = Box::new(move || {
        if fixed {
            started
        } else {
            // `now_from(None)` reads the system clock and cannot fail.
            Clock::new(now_from(None).unwrap_or(started.now), started.zone)
        }
    });
    let server = Server::new(Tools {
        state_dir: resolved.state_dir,
        allowances: Allowances::from_config(resolved.config.as_ref()),
        clock,
        recall: resolved
            .config
            .as_ref()
            .map(|c| c.recall.clone())
            .unwrap_or_default(),
        origins: resolved
            .config
            .as_ref()
            .map(crate::privacy::policy::origins)
            .unwrap_or_default(),
    });
    tracing::info!(
        "thinker mcp: serving on stdio, state {}",
        server.state_dir().display()
    );
    crate::runtime::block_on(serve_stdio(server))??;
    Ok(EXIT_OK)
}

/// Serves until the client closes the connection.
async fn serve_stdio(server: Server) -> Result<(), Error> {
    let failed = |source: std::io::Error| Error::Output {
        what: "the MCP client on stdin/stdout",
        source,
    };
    // thinker's own stdio transport: every request answered, one past the size limit
    // with an error naming it (crate::mcp_stdio).
    let stdio = crate::mcp_stdio::Stdio::new(tokio::io::stdin(), tokio::io::stdout());
    let running = server
        .serve(stdio)
        .await
        .map_err(|e| failed(std::io::Error::other(e)))?;
    let reason = running
        .waiting()
        .await
        .map_err(|e| failed(std::io::Error::other(e)))?;
    tracing::info!("thinker mcp: done ({reason:?})");
    Ok(())
}
