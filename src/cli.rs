//! The command line of SPEC §1, as clap types. Parsing only; `run` acts on it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Background cognition for AI agents: cheap thinking threads, a deterministic
/// subconscious, escalation to a frontier model.
#[derive(Debug, Parser)]
#[command(name = "thinker", version, about, long_about = None)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command takes.
#[derive(Debug, Args, Clone, Default)]
pub struct Global {
    /// Config file [default: $THINKER_CONFIG, else $XDG_CONFIG_HOME/thinker/config.toml]
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// State directory (overrides the config's [state] dir)
    #[arg(long, global = true, value_name = "DIR")]
    pub state: Option<PathBuf>,
    /// More diagnostics on stderr (-v progress, -vv debug)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Only errors on stderr
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run one tick: threads think, the subconscious is updated (what cron runs)
    Tick(TickArgs),
    /// Show the subconscious
    Show(ShowArgs),
    /// Print the exact prompt a thread would be sent now; calls no model
    Prompt(PromptArgs),
    /// Write a commented default config and an empty state; never overwrites
    Init,
    /// Screen text for prompt injection (stdin when no file); exit 1 when something is detected
    Screen(ScreenArgs),
}

#[derive(Debug, Args, Default, Clone)]
pub struct TickArgs {
    /// Call the models but write nothing, escalate nothing; print what would change
    #[arg(long)]
    pub dry_run: bool,
    /// Print the tick report as JSON on stdout
    #[arg(long)]
    pub json: bool,
    /// Run the tick as if at this instant (RFC 3339), for replays and tests
    #[arg(long, value_name = "RFC3339")]
    pub now: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum ShowFormat {
    /// For a person: categories, strength bars, ages, thread state
    #[default]
    Text,
    /// The state file as is
    Json,
}

#[derive(Debug, Args, Clone, Default)]
pub struct ShowArgs {
    /// Print the state file as is (same as --format json)
    #[arg(long)]
    pub json: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: ShowFormat,
    /// Colour: auto (only on a terminal, unless NO_COLOR is set), always, never
    #[arg(long, value_enum, default_value_t)]
    pub color: ColorChoice,
    /// Show ages as if now were this instant (RFC 3339)
    #[arg(long, value_name = "RFC3339", hide = true)]
    pub now: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

#[derive(Debug, Args, Clone)]
pub struct PromptArgs {
    /// watcher, librarian, oracle or dreamer
    pub thread: String,
    /// Assemble the prompt as if at this instant (RFC 3339)
    #[arg(long, value_name = "RFC3339")]
    pub now: Option<String>,
}

#[derive(Debug, Args, Clone, Default)]
pub struct ScreenArgs {
    /// Files to screen; standard input when none (or `-`)
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Print the detections and neutralised texts as JSON on stdout
    #[arg(long)]
    pub json: bool,
    /// Also flag dates far from now, as for a thread's answer (more than a year before,
    /// more than three years after)
    #[arg(long)]
    pub dates: bool,
    /// With --dates: check them against this instant (RFC 3339) instead of the clock
    #[arg(long, value_name = "RFC3339", requires = "dates")]
    pub now: Option<String>,
}
