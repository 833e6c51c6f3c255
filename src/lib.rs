//! thinker: background cognition for AI agents.
//!
//! Cron runs `thinker tick`; four cheap thinking threads look at the user's world, the
//! deterministic [`aggregate`] merges what they found into the subconscious
//! ([`state`]), which [`storage`] keeps safe on disk. [`run`] only dispatches the command
//! line to its home in [`cmd`]; see ARCHITECTURE.md for how a tick flows through the
//! modules.

pub mod account;
pub mod aggregate;
pub mod answer;
pub mod archive;
pub mod budget;
pub mod cli;
pub mod clock;
pub mod cmd;
pub mod config;
pub mod egress;
pub mod embeddings;
pub mod error;
pub mod escalation;
pub mod feedback;
pub mod health;
pub mod init;
pub mod input;
pub mod journal;
pub mod ledger;
pub mod matching;
pub mod mcp;
pub mod mcp_stdio;
pub mod paint;
pub mod privacy;
pub mod process;
pub mod prompt;
pub mod provider;
pub mod quiet;
pub mod recall;
pub mod recollect;
pub mod replay;
pub mod report;
pub mod runtime;
pub mod schema_fit;
pub mod show;
pub mod sources;
pub mod state;
pub mod storage;
pub mod strength;
pub mod thread;
pub mod tick;
pub mod timestamp;
pub mod untrusted;

use std::io::IsTerminal;

use crate::cli::{Cli, Command};
use crate::clock::Zone;
use crate::cmd::{Context, Output};
use crate::error::Error;

/// Runs one command on the real streams, the system clock (unless `--now`) and the
/// system's time zone; returns the exit code of SPEC §1 (errors carry theirs).
pub fn run(cli: &Cli) -> Result<u8, Error> {
    let (mut stdout, mut stderr) = (std::io::stdout(), std::io::stderr());
    let stdout_is_terminal = stdout.is_terminal();
    let output = Output {
        stdout: &mut stdout,
        stderr: &mut stderr,
        stdout_is_terminal,
    };
    run_with(cli, output, Zone::System)
}

/// Runs one command with these streams, reading local times in `zone`.
pub fn run_with<'a>(cli: &'a Cli, output: Output<'a>, zone: Zone) -> Result<u8, Error> {
    let mut ctx = Context::new(&cli.global, zone, output)?;
    match &cli.command {
        Command::Init(args) => cmd::init::run(&mut ctx, args),
        Command::Show(args) => cmd::show::run(&mut ctx, args),
        Command::Tick(args) => cmd::tick::run(&mut ctx, args),
        Command::Prompt(args) => cmd::prompt::run(&mut ctx, args),
        // --- watching thinker ---
        Command::Log(args) => cmd::log::run(&mut ctx, args),
        Command::Stats(args) if args.egress => cmd::egress::run(&mut ctx, args),
        Command::Stats(args) => cmd::stats::run(&mut ctx, args),
        Command::Cron(args) => cmd::cron::run(&mut ctx, args),
        Command::Completions(args) => cmd::completions::run(&mut ctx, args.shell),
        Command::Man(args) => cmd::completions::man(&mut ctx, args),
        Command::Hook(args) => cmd::hook::run(&mut ctx, args),
        Command::Feedback(args) => cmd::feedback::run(&mut ctx, args),
        Command::Screen(args) => cmd::screen::run(&mut ctx, args),
        // --- the MCP server ---
        Command::Mcp => cmd::mcp::run(&mut ctx),
        // --- living with it ---
        Command::Doctor(args) => cmd::doctor::run(&mut ctx, args),
        Command::Notify(_) => cmd::notify::run(&mut ctx),
        Command::Held(args) => cmd::held::list(&mut ctx, args),
        Command::Release(args) => cmd::held::release(&mut ctx, &args.id),
        Command::Discard(args) => cmd::held::discard(&mut ctx, &args.id),
        // --- replay, explain, report ---
        Command::Replay(args) => cmd::replay::run(&mut ctx, args),
        Command::Explain(args) => cmd::explain::run(&mut ctx, args),
        Command::Report(args) => cmd::report::run(&mut ctx, args),
    }
}
