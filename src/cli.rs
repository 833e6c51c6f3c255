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
    /// Answer an agent's hook event (stdin JSON) with what is relevant, once per change
    Hook(HookArgs),
    /// Give the agent's word on an entry (used or wrong), applied by the next tick
    Feedback(FeedbackArgs),
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
    /// A compact text for an agent's context (what matters now, within --max-bytes)
    Prompt,
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
    /// Only the entries that match TEXT (a prompt, a path, an
    /// error); nothing when none matches well enough
    #[arg(long = "for", value_name = "TEXT", conflicts_with = "json")]
    pub for_text: Option<String>,
    /// The prompt text's size in bytes (300..=1000000)
    #[arg(long, value_name = "N", conflicts_with = "json", value_parser = clap::value_parser!(u32).range(300..=1_000_000))]
    pub max_bytes: Option<u32>,
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

/// The agents `thinker hook` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HookAgent {
    /// Claude Code's `SessionStart` and `UserPromptSubmit` command hooks
    ClaudeCode,
}

#[derive(Debug, Args, Clone)]
pub struct HookArgs {
    /// The agent whose hook event is on stdin
    #[arg(value_enum)]
    pub agent: HookAgent,
    /// Answer as if now were this instant (RFC 3339)
    #[arg(long, value_name = "RFC3339", hide = true)]
    pub now: Option<String>,
}

/// The agent's word on an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VerdictWord {
    /// The entry helped: reinforced once by the next tick
    Used,
    /// The entry is wrong: removed by the next tick, and kept out for a while
    Wrong,
}

#[derive(Debug, Args, Clone)]
pub struct FeedbackArgs {
    /// The entry's id (as `show` or the prompt text names it)
    pub id: String,
    #[arg(value_enum)]
    pub verdict: VerdictWord,
    /// Why, in a few words (kept with the verdict)
    #[arg(long, value_name = "TEXT")]
    pub note: Option<String>,
    /// Record the verdict as given at this instant (RFC 3339)
    #[arg(long, value_name = "RFC3339", hide = true)]
    pub now: Option<String>,
}
