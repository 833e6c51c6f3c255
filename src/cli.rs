//! The command line of SPEC §1, as clap types. Parsing only; `run` acts on it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Background cognition for AI agents: cheap thinking threads, a deterministic
/// subconscious, escalation to a frontier model.
#[derive(Debug, Parser)]
#[command(name = "thinker", version, about, long_about = None, after_help = examples::THINKER)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command takes: listed under their own heading, apart from a command's
/// own options.
#[derive(Debug, Args, Clone, Default)]
#[command(next_help_heading = "Global options")]
pub struct Global {
    /// Config file [default: $THINKER_CONFIG, else $XDG_CONFIG_HOME/thinker/config.toml]
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// State directory (overrides the config's `[state]` dir). The help text is given
    /// as is: brackets in a doc comment would be read as a link.
    #[arg(
        long,
        global = true,
        value_name = "DIR",
        help = "State directory (overrides the config's [state] dir)"
    )]
    pub state: Option<PathBuf>,
    /// More diagnostics on stderr (-v progress, -vv debug)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// Only errors on stderr
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Act as if now were this instant (RFC 3339): ticks, ages, spans and budgets read
    /// it instead of the system clock (replays, tests)
    #[arg(long, global = true, value_name = "RFC3339")]
    pub now: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run one tick: threads think, the subconscious is updated (what cron runs)
    #[command(after_help = examples::TICK)]
    Tick(TickArgs),
    /// Show the subconscious
    #[command(after_help = examples::SHOW)]
    Show(ShowArgs),
    /// Print the exact prompt a thread would be sent now; calls no model
    #[command(after_help = examples::PROMPT)]
    Prompt(PromptArgs),
    /// Write a config for the providers found here, an empty state and the env file; never overwrites
    #[command(after_help = examples::INIT)]
    Init(InitArgs),
    // --- watching thinker ---
    /// Recent ticks, one line each (the journal and its rotated files)
    #[command(after_help = examples::LOG)]
    Log(LogArgs),
    /// Per thread and model: calls, skips, failures, latency, tokens, cost; what the memory held
    #[command(after_help = examples::STATS)]
    Stats(StatsArgs),
    /// Print a crontab line, a systemd .service + .timer pair, or a Kubernetes CronJob
    #[command(after_help = examples::CRON)]
    Cron(CronArgs),
    /// Print shell completions for SHELL
    #[command(after_help = examples::COMPLETIONS)]
    Completions(CompletionsArgs),
    /// Print a man page (roff) on stdout, or write one per command into a directory
    #[command(after_help = examples::MAN)]
    Man(ManArgs),
    // --- feeding the agent ---
    /// Answer an agent's hook event (stdin JSON) with what is relevant, once per change
    #[command(after_help = examples::HOOK)]
    Hook(HookArgs),
    /// Give the agent's word on an entry (used or wrong), applied by the next tick
    #[command(after_help = examples::FEEDBACK)]
    Feedback(FeedbackArgs),
    // --- guardrails ---
    /// Screen text for prompt injection (stdin when no file); exit 1 when something is detected
    #[command(after_help = examples::SCREEN)]
    Screen(ScreenArgs),
    // --- the MCP server ---
    /// Serve the Model Context Protocol on stdio (tools: recall, subconscious, status, feedback)
    #[command(after_help = examples::MCP)]
    Mcp,
    // --- living with it ---
    /// Check the config, keys, providers, sources, state, lock, journal and budget
    #[command(after_help = examples::DOCTOR)]
    Doctor(DoctorArgs),
    /// Send a test message through the configured notifier and say whether it went out
    #[command(after_help = examples::NOTIFY)]
    Notify(NotifyArgs),
    /// List the messages that wait for you: held for your confirmation, or undelivered
    #[command(after_help = examples::HELD)]
    Held(HeldArgs),
    /// Send a waiting message now (its links defanged when it was held for a link)
    #[command(after_help = examples::RELEASE)]
    Release(MessageIdArgs),
    /// Drop a waiting message: it is never sent
    #[command(after_help = examples::DISCARD)]
    Discard(MessageIdArgs),
    // --- replay, explain, report ---
    /// Re-run the journal through the aggregator: check it reproduces every state, then compare other settings (--set)
    #[command(after_help = examples::REPLAY)]
    Replay(ReplayArgs),
    /// The life of one entry, from the journal: where it came from, what reinforced it, how it left
    #[command(after_help = examples::EXPLAIN)]
    Explain(ExplainArgs),
    /// Draw the journal as one self-contained HTML page (strength over time, escalations, tokens and cost)
    #[command(after_help = examples::REPORT)]
    Report(ReportArgs),
}

#[derive(Debug, Args, Default, Clone)]
pub struct TickArgs {
    /// Call the models but write nothing, escalate nothing; print what would change
    #[arg(long)]
    pub dry_run: bool,
    /// Print the tick report as JSON on stdout
    #[arg(long)]
    pub json: bool,
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
    /// Exactly what would leave for the thread's first provider: private text withheld or redacted as `[privacy]` says
    #[arg(long)]
    pub as_sent: bool,
}

// --- watching thinker ---

#[derive(Debug, Args, Clone)]
pub struct LogArgs {
    /// How many ticks, the newest last
    #[arg(short = 'n', long = "lines", value_name = "N", default_value_t = 20)]
    pub count: usize,
    /// Only this thread's part of each tick (watcher, librarian, oracle, dreamer)
    #[arg(long, value_name = "THREAD")]
    pub thread: Option<crate::thread::ThreadName>,
    /// One JSON array of ticks on stdout
    #[arg(long)]
    pub json: bool,
    /// Colour: auto (only on a terminal, unless NO_COLOR is set), always, never
    #[arg(long, value_enum, default_value_t)]
    pub color: ColorChoice,
}

/// Where `thinker stats --since` starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Since {
    /// `7d`, `24h`, `30m`: that long before now.
    Ago(chrono::TimeDelta),
    /// `2026-11-01`: that local day's midnight.
    Day(chrono::NaiveDate),
    /// `2026-11-01T08:00:00Z`: that instant.
    At(chrono::DateTime<chrono::Utc>),
}

impl std::str::FromStr for Since {
    type Err = ValueError;

    fn from_str(text: &str) -> Result<Since, ValueError> {
        let t = text.trim();
        if let Some((n, unit)) = t
            .find(|c: char| !c.is_ascii_digit())
            .filter(|&i| i > 0)
            .map(|i| t.split_at(i))
        {
            let ago = |per: i64| {
                n.parse::<i64>()
                    .ok()
                    .and_then(|n| n.checked_mul(per))
                    .filter(|&s| s <= 100 * 365 * 86_400)
                    .and_then(chrono::TimeDelta::try_seconds)
            };
            let span = match unit {
                "d" => ago(86_400),
                "h" => ago(3600),
                "m" => ago(60),
                "w" => ago(7 * 86_400),
                _ => None,
            };
            if let Some(span) = span {
                return Ok(Since::Ago(span));
            }
        }
        if let Ok(day) = chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d") {
            return Ok(Since::Day(day));
        }
        chrono::DateTime::parse_from_rfc3339(t)
            .map(|at| Since::At(at.with_timezone(&chrono::Utc)))
            .map_err(|_| ValueError::NotASince(text.to_string()))
    }
}

#[derive(Debug, Args, Clone)]
pub struct StatsArgs {
    /// From when: a span before now (7d, 24h, 90m, 2w) or a date (2026-11-01, local midnight)
    #[arg(long, value_name = "SPAN|DATE", default_value = "7d")]
    pub since: Since,
    /// The totals as one JSON object on stdout
    #[arg(long)]
    pub json: bool,
    /// What left the machine instead: bytes, sources carried and withheld, redactions, per provider and day
    #[arg(long)]
    pub egress: bool,
}

#[derive(Debug, Args, Clone)]
pub struct CronArgs {
    /// A systemd user .service + .timer pair instead of a crontab line
    #[arg(long, conflicts_with = "kubernetes")]
    pub systemd: bool,
    /// A Kubernetes CronJob (with its PersistentVolumeClaim) instead of a crontab line
    #[arg(long)]
    pub kubernetes: bool,
    /// The unit / CronJob name, e.g. one per agent (lowercase letters, digits, `-`)
    #[arg(long, value_name = "NAME", default_value = "thinker", value_parser = job_name)]
    pub name: String,
}

/// `thinker init`'s options.
#[derive(Debug, Args, Clone, Default)]
pub struct InitArgs {
    /// Every thread on one OpenAI-compatible server, NAME=URL (llama-server, LM Studio,
    /// vLLM…; a URL without a path gets /v1); the escalation too, unless
    /// ANTHROPIC_API_KEY is set (then Claude Opus decides, this server as its fallback)
    #[arg(long, value_name = "NAME=URL", value_parser = provider_arg)]
    pub provider: Option<ProviderArg>,
    /// The model to ask that server for [default: the first chat model its /models lists]
    #[arg(long, value_name = "MODEL", requires = "provider")]
    pub model: Option<String>,
}

/// `init --provider NAME=URL`, checked: a provider name and an http(s) URL with a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderArg {
    /// The provider's name in the config (`[providers.NAME]`, models `NAME/…`).
    pub name: String,
    /// The base URL (`/v1` added when it had no path).
    pub url: String,
}

/// Reads `NAME=URL`.
fn provider_arg(text: &str) -> Result<ProviderArg, ValueError> {
    let bad = || ValueError::NotAProvider(text.to_string());
    let (name, url) = text.split_once('=').ok_or_else(bad)?;
    let name_ok = !name.is_empty()
        && name.len() <= 32
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    if !name_ok {
        return Err(bad());
    }
    if name == "anthropic" {
        return Err(ValueError::ProviderNameTaken(name.to_string()));
    }
    let url = url.trim().trim_end_matches('/');
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .ok_or_else(bad)?;
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    if host.is_empty() || host.contains(char::is_whitespace) || host.contains('@') {
        return Err(bad());
    }
    let url = if path.is_empty() {
        format!("{url}/v1")
    } else {
        url.to_string()
    };
    Ok(ProviderArg {
        name: name.to_string(),
        url,
    })
}

/// `thinker man`'s options.
#[derive(Debug, Args, Clone, Default)]
pub struct ManArgs {
    /// The command whose page to print (tick, show, …) [default: thinker's own page]
    #[arg(value_name = "COMMAND", value_parser = man_command, conflicts_with = "dir")]
    pub command: Option<String>,
    /// Write every page into DIR instead: thinker.1, and thinker-COMMAND.1 for each command
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// A command that has a page of its own.
fn man_command(text: &str) -> Result<String, ValueError> {
    use clap::CommandFactory;
    let cli = Cli::command();
    let names: Vec<&str> = cli
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(clap::Command::get_name)
        .collect();
    if names.contains(&text) {
        Ok(text.to_string())
    } else {
        Err(ValueError::NotACommand(text.to_string(), names.join(", ")))
    }
}

#[derive(Debug, Args, Clone)]
pub struct CompletionsArgs {
    /// bash, zsh, fish, elvish or powershell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// A name that is a valid systemd unit name and Kubernetes object name (RFC 1123 label,
/// at most 52 characters: a CronJob's limit).
fn job_name(text: &str) -> Result<String, ValueError> {
    let ok = !text.is_empty()
        && text.len() <= 52
        && text
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !text.starts_with('-')
        && !text.ends_with('-');
    if ok {
        Ok(text.to_string())
    } else {
        Err(ValueError::NotAJobName(text.to_string()))
    }
}

/// A value on the command line that does not parse; clap shows the message after the
/// option's name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// `--since` that is neither a span nor a date.
    #[error(
        "`{0}` is not a span or a date: use e.g. 7d, 24h, 90m, 2026-11-01 or 2026-11-01T08:00:00Z"
    )]
    NotASince(String),
    /// `thinker cron --name` that cannot name a systemd unit or a Kubernetes object.
    #[error(
        "`{0}` cannot name a unit or a CronJob: use 1 to 52 lowercase letters, digits and `-`, not at either end (e.g. thinker-mail)"
    )]
    NotAJobName(String),
    /// `thinker init --provider` that is not `NAME=URL`.
    #[error(
        "`{0}` is not NAME=URL: use e.g. local=http://127.0.0.1:8080/v1 (a name of lowercase letters, digits, `-` and `_`; an http:// or https:// URL)"
    )]
    NotAProvider(String),
    /// `thinker init --provider anthropic=…`: the name of the escalation's provider.
    #[error(
        "`{0}` names the Anthropic provider init writes for the escalation: choose another name (e.g. local)"
    )]
    ProviderNameTaken(String),
    /// `thinker man COMMAND` for a command that does not exist.
    #[error("`{0}` is not a thinker command: one of {1}")]
    NotACommand(String, String),
}

/// The agents `thinker hook` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HookAgent {
    /// Claude Code's `SessionStart` and `UserPromptSubmit` command hooks
    ClaudeCode,
    /// Codex's `SessionStart` and `UserPromptSubmit` hooks (`codex_hooks = true`)
    Codex,
}

#[derive(Debug, Args, Clone)]
pub struct HookArgs {
    /// The agent whose hook event is on stdin
    #[arg(value_enum)]
    pub agent: HookAgent,
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
}

// --- living with it ---

#[derive(Debug, Args, Clone, Default)]
pub struct DoctorArgs {
    /// Call no provider (no network): everything else is checked
    #[arg(long)]
    pub offline: bool,
    /// The checks as one JSON object on stdout
    #[arg(long)]
    pub json: bool,
    /// Colour: auto (only on a terminal, unless NO_COLOR is set), always, never
    #[arg(long, value_enum, default_value_t)]
    pub color: ColorChoice,
}

#[derive(Debug, Args, Clone, Default)]
pub struct NotifyArgs {
    /// Send a short test message through the configured notifier (notify_command or
    /// [escalation.webhook]) and say whether it went out
    #[arg(long, required = true)]
    pub test: bool,
}

#[derive(Debug, Args, Clone, Default)]
pub struct HeldArgs {
    /// The waiting messages as one JSON array on stdout
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args, Clone)]
pub struct MessageIdArgs {
    /// The message's id as `thinker held` lists it (a unique prefix of 4+ digits will do)
    pub id: String,
}

// --- replay, explain, report ---

#[derive(Debug, Args, Clone)]
pub struct ReplayArgs {
    /// Replay from when: a span before now (7d, 24h), a date (local midnight) or an instant; default: the whole journal
    #[arg(long, value_name = "SPAN|DATE")]
    pub since: Option<Since>,
    /// A setting to try, written as in the config file: memory.match_threshold=0.5, memory.caps.patterns=8, escalation.daily_cap=2 (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// The result as one JSON object on stdout
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args, Clone)]
pub struct ExplainArgs {
    /// The entry's id (as `thinker show` lists it), e.g. t-dentist-appointment-friday
    pub id: String,
    /// The life as JSON on stdout
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args, Clone)]
pub struct ReportArgs {
    /// The HTML file to write (self-contained: opens offline, loads nothing)
    #[arg(long, value_name = "FILE")]
    pub html: PathBuf,
    /// From when: a span before now (7d, 24h), a date (local midnight) or an instant; default: the whole journal
    #[arg(long, value_name = "SPAN|DATE")]
    pub since: Option<Since>,
    /// Draw these settings beside the current ones, as for `thinker replay --set` (repeatable)
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

/// The examples after each command's `--help` (clap's `after_help`), which are also the
/// EXAMPLES of its man page (`thinker man`): a `# what it does` line, then the command.
/// The heading is styled as clap styles its own (bold, underlined; plain off a terminal).
mod examples {
    macro_rules! examples {
        ($($line:literal)*) => {
            concat!("\x1b[1m\x1b[4mExamples:\x1b[0m\n", $("  ", $line, "\n",)*)
        };
    }

    pub const THINKER: &str = examples!(
        "# Write a config for what this machine has (keys, a local server), then check it"
        "thinker init && thinker doctor"
        "# A tick that calls the models, writes nothing and says what would change"
        "thinker tick --dry-run -v"
        "# What the threads remember now"
        "thinker show"
    );
    pub const TICK: &str = examples!(
        "# What cron runs: prints nothing unless something failed"
        "thinker tick"
        "# Call the models, write nothing, and print what would change"
        "thinker tick --dry-run -v"
        "# The tick report as JSON: each thread, what the memory did, the escalation"
        "thinker tick --json"
    );
    pub const SHOW: &str = examples!(
        "# The memory for a person: categories, strength bars, ages, due dates"
        "thinker show"
        "# What an agent's context would get about a question"
        "thinker show --for \"when is the dentist?\""
        "# The state file as it is on disk"
        "thinker show --json"
    );
    pub const PROMPT: &str = examples!(
        "# The exact prompt the watcher would be sent now"
        "thinker prompt watcher"
        "# Exactly what would leave this machine for its first provider"
        "thinker prompt watcher --as-sent"
    );
    pub const INIT: &str = examples!(
        "# Find key variables and a local llama-server, LM Studio or Ollama; write what fits"
        "thinker init"
        "# Every thread on one OpenAI-compatible server on this machine"
        "thinker init --provider local=http://127.0.0.1:8080/v1"
        "# A second subconscious with a config and a state of its own"
        "thinker init --config ~/.config/thinker/work.toml --state ~/.local/share/thinker-work"
    );
    pub const LOG: &str = examples!(
        "# The last 20 ticks, one line each"
        "thinker log"
        "# The watcher's last 5 calls: model, latency, tokens, cost, error"
        "thinker log -n 5 --thread watcher"
        "# The ticks as JSON"
        "thinker log --json"
    );
    pub const STATS: &str = examples!(
        "# The last 7 days per thread and model"
        "thinker stats"
        "# Since midnight of 1 November, as JSON"
        "thinker stats --since 2026-11-01 --json"
        "# What left this machine in the last day, per provider"
        "thinker stats --egress --since 24h"
    );
    pub const NOTIFY: &str = examples!(
        "# Send a short test message through the configured notifier"
        "thinker notify --test"
        "# The same for a second subconscious"
        "thinker notify --test --config ~/.config/thinker/work.toml"
    );
    pub const HELD: &str = examples!(
        "# The messages that wait for you, with their ids and why they wait"
        "thinker held"
        "# The same as one JSON array"
        "thinker held --json"
    );
    pub const RELEASE: &str = examples!(
        "# Find the message's id"
        "thinker held"
        "# Send it now (a unique prefix of its id will do)"
        "thinker release 4821"
    );
    pub const DISCARD: &str = examples!(
        "# Find the message's id"
        "thinker held"
        "# Drop it: it is never sent"
        "thinker discard 4821"
    );
    pub const CRON: &str = examples!(
        "# A crontab line: a tick every 5 minutes (add it with `crontab -e`)"
        "thinker cron"
        "# A systemd user timer instead, named for one agent"
        "thinker cron --systemd --name thinker-mail"
        "# A Kubernetes CronJob with its volume claim"
        "thinker cron --kubernetes"
    );
    pub const COMPLETIONS: &str = examples!(
        "# Bash"
        "thinker completions bash > ~/.local/share/bash-completion/completions/thinker"
        "# Zsh (a directory on your $fpath)"
        "thinker completions zsh > ~/.zfunc/_thinker"
        "# Fish"
        "thinker completions fish > ~/.config/fish/completions/thinker.fish"
    );
    pub const MAN: &str = examples!(
        "# Read thinker's page"
        "thinker man | man -l -"
        "# Read the page of one command"
        "thinker man tick | man -l -"
        "# Install every page where man finds them"
        "thinker man --dir ~/.local/share/man/man1"
    );
    pub const HOOK: &str = examples!(
        "# Claude Code's hooks run it with the event on stdin (settings.json: \"command\": \"thinker hook claude-code\")"
        "echo '{\"session_id\":\"s1\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"budget review?\"}' | thinker hook claude-code"
        "# The same for Codex"
        "thinker hook codex < event.json"
    );
    pub const FEEDBACK: &str = examples!(
        "# The entry helped: the next tick reinforces it"
        "thinker feedback t-dentist-appointment-friday used"
        "# The entry is wrong: the next tick removes it and keeps it out for a while"
        "thinker feedback p-backup-fails-mondays wrong --note \"fixed in October\""
    );
    pub const SCREEN: &str = examples!(
        "# Screen a file; exit 1 when something is detected"
        "thinker screen message.txt"
        "# Screen standard input, the detections as JSON"
        "thinker screen --json < page.html"
    );
    pub const MCP: &str = examples!(
        "# Register the server with Claude Code"
        "claude mcp add thinker -- thinker mcp"
        "# With an explicit config"
        "claude mcp add thinker -- thinker mcp --config ~/.config/thinker/config.toml"
    );
    pub const DOCTOR: &str = examples!(
        "# Every check, each provider asked for one token"
        "thinker doctor"
        "# Every check but the network"
        "thinker doctor --offline"
        "# Only what is not ok, as JSON"
        "thinker doctor --json | jq '.checks[] | select(.level != \"ok\")'"
    );
    pub const REPLAY: &str = examples!(
        "# Check that the journal reproduces every state"
        "thinker replay"
        "# The last week under a lower match threshold"
        "thinker replay --since 7d --set memory.match_threshold=0.5"
        "# Two settings at once, as JSON"
        "thinker replay --set memory.caps.active_threads=4 --set escalation.daily_cap=2 --json"
    );
    pub const EXPLAIN: &str = examples!(
        "# Where an entry came from, what reinforced it, how it left"
        "thinker explain t-dentist-appointment-friday"
        "# The same as JSON"
        "thinker explain t-dentist-appointment-friday --json"
    );
    pub const REPORT: &str = examples!(
        "# The whole journal as one page"
        "thinker report --html report.html"
        "# The last week, beside a setting to try"
        "thinker report --html week.html --since 7d --set memory.min_importance=2"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_that_do_not_parse_say_which() {
        assert_eq!(
            "3x".parse::<Since>(),
            Err(ValueError::NotASince("3x".into()))
        );
        assert_eq!(
            "7d".parse::<Since>(),
            Ok(Since::Ago(chrono::TimeDelta::days(7)))
        );
        for bad in ["", "-mail", "mail-", "Mail", &"x".repeat(53)] {
            assert_eq!(job_name(bad), Err(ValueError::NotAJobName(bad.into())));
        }
        assert_eq!(job_name("thinker-mail").as_deref(), Ok("thinker-mail"));
    }
}
