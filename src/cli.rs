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
    Tick(TickArgs),
    /// Show the subconscious
    Show(ShowArgs),
    /// Print the exact prompt a thread would be sent now; calls no model
    Prompt(PromptArgs),
    /// Write a commented default config and an empty state; never overwrites
    Init,
    // --- watching thinker ---
    /// Recent ticks, one line each (the journal and its rotated files)
    Log(LogArgs),
    /// Per thread and model: calls, skips, failures, latency, tokens, cost; what the memory held
    Stats(StatsArgs),
    /// Print a crontab line, a systemd .service + .timer pair, or a Kubernetes CronJob
    Cron(CronArgs),
    /// Print shell completions for SHELL
    Completions(CompletionsArgs),
    /// Print the man page (roff) on stdout
    Man,
    // --- feeding the agent ---
    /// Answer an agent's hook event (stdin JSON) with what is relevant, once per change
    Hook(HookArgs),
    /// Give the agent's word on an entry (used or wrong), applied by the next tick
    Feedback(FeedbackArgs),
    // --- guardrails ---
    /// Screen text for prompt injection (stdin when no file); exit 1 when something is detected
    Screen(ScreenArgs),
    // --- the MCP server ---
    /// Serve the Model Context Protocol on stdio (tools: recall, subconscious, status, feedback)
    Mcp,
    // --- living with it ---
    /// Check the config, keys, providers, sources, state, lock, journal and budget
    Doctor(DoctorArgs),
    /// Send a test message through the configured notifier and say whether it went out
    Notify(NotifyArgs),
    /// List the messages that wait for you: held for your confirmation, or undelivered
    Held(HeldArgs),
    /// Send a waiting message now (its links defanged when it was held for a link)
    Release(MessageIdArgs),
    /// Drop a waiting message: it is never sent
    Discard(MessageIdArgs),
    // --- replay, explain, report ---
    /// Re-run the journal through the aggregator: check it reproduces every state, then compare other settings (--set)
    Replay(ReplayArgs),
    /// The life of one entry, from the journal: where it came from, what reinforced it, how it left
    Explain(ExplainArgs),
    /// Draw the journal as one self-contained HTML page (strength over time, escalations, tokens and cost)
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
