//! Configuration (SPEC §10): the TOML file as written (`Raw*` types, serde, unknown keys
//! refused) and the validated [`Config`] the rest of the program trusts.
//!
//! Owns where the config and the state directory are found (`--config`, then
//! `$THINKER_CONFIG`, then the XDG config dir; `--state`, then `[state] dir`, then the
//! XDG data dir), the defaults and ranges of every key but a source's, and error messages
//! that name the key and its line (found again in the file's text only when there is an
//! error). A source's keys belong to its kind (`sources::Source::from_table` checks them);
//! this module adds the source's place and the line to their errors. Every number is
//! range-checked before it is converted (`Duration`, `TimeDelta`), so no value can panic
//! or overflow later. Relative paths in the file are relative to the file's own
//! directory; `~` and `~/x` expand with `$HOME`, `~user/x` with `/etc/passwd`, and a `~`
//! that cannot expand is an error naming the key (never a literal `~` directory).

use crate::quiet::{DEFAULT_MAX_SKIPPED, QuietSettings};
use crate::sources::roles;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::NaiveTime;
use serde::Deserialize;

use crate::aggregate::{Caps, Decay, Settings};
use crate::provider::config::{BreakerSettings, DEFAULT_BREAKER_FAILURES, DEFAULT_BREAKER_HOURS};
pub use crate::provider::config::{
    ModelRef, ProviderConfig, ProviderKind, StructuredOutput, TlsRoots, TlsSettings,
    ca_certificates,
};
use crate::sources::Source;
use crate::storage::JournalRotation;
use crate::thread::ThreadName;

/// The default config written by `thinker init`, commented key by key.
pub const DEFAULT_CONFIG: &str = include_str!("../config/default.toml");

/// A config file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("no config file at {path}; run `thinker init` to write one, or pass --config PATH")]
    Missing { path: PathBuf },
    #[error("cannot read config {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("config {path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("config {path}{}: `{key}`: {message}", at_line(*.line))]
    Invalid {
        path: PathBuf,
        /// The line the key is written on (or its table, when the key is left out).
        line: Option<usize>,
        key: String,
        message: String,
    },
    #[error("cannot find a home directory: set $HOME, or pass --config and --state")]
    NoHome,
    #[error(
        "config {path} defines no threads: a tick would do nothing; run `thinker init` for a commented example, or add a [threads.watcher] table with model = \"provider/model\""
    )]
    NoThreads { path: PathBuf },
    #[error(
        "config {path}: every thread is disabled (enabled = false): a tick would do nothing; enable one, or stop running `thinker tick`"
    )]
    AllThreadsDisabled { path: PathBuf },
}

fn at_line(line: Option<usize>) -> String {
    line.map_or_else(String::new, |n| format!(", line {n}"))
}

// ---------------------------------------------------------------------------------------
// Raw: the file as written.

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    state: RawState,
    #[serde(default)]
    memory: RawMemory,
    #[serde(default)]
    tick: RawTick,
    #[serde(default)]
    budget: RawBudget,
    #[serde(default)]
    prompts: RawPrompts,
    #[serde(default)]
    providers: BTreeMap<String, RawProvider>,
    #[serde(default)]
    threads: RawThreads,
    #[serde(default)]
    escalation: Option<RawEscalation>,
    #[serde(default)]
    journal: RawJournal,
    #[serde(default)]
    guard: RawGuard,
    #[serde(default)]
    privacy: RawPrivacy,
    #[serde(default)]
    recall: RawRecall,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPrivacy {
    private_to: Option<crate::privacy::PrivateTo>,
}

/// `[recall]`: what an agent is given (`crate::recollect`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRecall {
    max_bytes: Option<usize>,
    max_entries: Option<usize>,
    synonyms: Option<Vec<Vec<String>>>,
    embeddings: Option<String>,
    embeddings_timeout_ms: Option<u64>,
    min_similarity: Option<f64>,
    semantic_weight: Option<f64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGuard {
    on_answer: Option<crate::untrusted::guard::OnAnswer>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawJournal {
    rotate: Option<String>,
    max_bytes: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawState {
    dir: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMemory {
    match_threshold: Option<f64>,
    token_budget: Option<usize>,
    min_importance: Option<u8>,
    escalation_cooldown_minutes: Option<i64>,
    escalation_history: Option<usize>,
    rejected_memory_hours: Option<i64>,
    max_decay_gap_minutes: Option<i64>,
    due_grace_hours: Option<i64>,
    #[serde(default)]
    caps: RawCaps,
    #[serde(default)]
    decay_hours: RawDecayHours,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDecayHours {
    active_threads: Option<f64>,
    patterns: Option<f64>,
    hunches: Option<f64>,
    insights: Option<f64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCaps {
    active_threads: Option<usize>,
    patterns: Option<usize>,
    hunches: Option<usize>,
    insights: Option<usize>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTick {
    deadline_seconds: Option<f64>,
    thread_timeout_seconds: Option<f64>,
    skip_unchanged: Option<bool>,
    max_skipped: Option<u32>,
    max_input_bytes: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBudget {
    daily_tokens: Option<u64>,
    daily_cost: Option<f64>,
    timezone: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPrompts {
    dir: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProvider {
    kind: ProviderKind,
    base_url: Option<String>,
    api_key_env: Option<String>,
    timeout_seconds: Option<f64>,
    retries: Option<u32>,
    retry_max_wait_seconds: Option<f64>,
    requests_per_minute: Option<u32>,
    concurrency: Option<u32>,
    structured_output: Option<StructuredOutput>,
    price_in: Option<f64>,
    price_out: Option<f64>,
    daily_tokens: Option<u64>,
    daily_cost: Option<f64>,
    dir: Option<String>,
    anthropic_version: Option<String>,
    max_response_bytes: Option<u64>,
    breaker_failures: Option<u32>,
    breaker_hours: Option<u32>,
    redact: Option<bool>,
    local: Option<bool>,
    trusted: Option<bool>,
    tls_roots: Option<TlsRoots>,
    ca_file: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawThreads {
    watcher: Option<RawThread>,
    librarian: Option<RawThread>,
    oracle: Option<RawThread>,
    dreamer: Option<RawThread>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawThread {
    model: String,
    #[serde(default)]
    fallback: Vec<String>,
    enabled: Option<bool>,
    every: Option<u32>,
    #[serde(default)]
    quiet_hours: Vec<String>,
    timeout_seconds: Option<f64>,
    max_tokens: Option<u32>,
    temperature: Option<f32>,
    /// Read as tables and checked by [`Validator::source`]: serde's internally tagged
    /// enums lose the span of a wrong value, so its key and line could not be named.
    /// Absent: the role's defaults ([`crate::sources::roles`]).
    sources: Option<Vec<toml::Table>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEscalation {
    model: Option<String>,
    #[serde(default)]
    fallback: Vec<String>,
    #[serde(default)]
    notify_command: Vec<String>,
    memory_dir: Option<String>,
    daily_cap: Option<u32>,
    max_tokens: Option<u32>,
    timeout_seconds: Option<f64>,
    notify_timeout_seconds: Option<f64>,
    #[serde(default)]
    quiet_hours: Vec<String>,
    max_attempts: Option<u32>,
    dismiss_memory_hours: Option<u32>,
    reserve: Option<u32>,
    urgent_importance: Option<u8>,
    #[serde(default)]
    trusted_domains: Vec<String>,
}

// ---------------------------------------------------------------------------------------
// Validated.

/// A source a thread reads (SPEC §6), checked by [`crate::sources::Source::from_table`]
/// (the name it had when the kinds lived here).
pub use crate::sources::Source as SourceConfig;

/// Quiet hours: a daily local-time window `from` to `to` (may wrap past midnight).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuietHours {
    pub from: NaiveTime,
    pub to: NaiveTime,
}

impl QuietHours {
    pub fn contains(&self, t: NaiveTime) -> bool {
        if self.from <= self.to {
            self.from <= t && t < self.to
        } else {
            t >= self.from || t < self.to
        }
    }
}

/// One thread's configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadConfig {
    pub thread: ThreadName,
    pub enabled: bool,
    /// The model first, then the fallbacks, in order.
    pub models: Vec<ModelRef>,
    pub every: u32,
    pub quiet_hours: Vec<QuietHours>,
    pub timeout: Duration,
    pub max_tokens: u32,
    pub temperature: f32,
    pub sources: Vec<Source>,
}

/// `[escalation]` (SPEC §8): the primary model and what its decisions may do.
#[derive(Clone, Debug, PartialEq)]
pub struct EscalationConfig {
    /// The model first, then the fallbacks; empty: no primary model is configured, and
    /// an escalation is recorded `failed:` saying so.
    pub models: Vec<ModelRef>,
    /// The notifier's argv (no shell); empty: none, a `notify` is recorded `failed:`.
    pub notify_command: Vec<String>,
    pub notify_timeout: Duration,
    /// Where `remember` appends its notes; `None`: a `remember` is recorded `failed:`.
    pub memory_dir: Option<PathBuf>,
    /// Calls to the primary model per local day.
    pub daily_cap: u32,
    pub max_tokens: u32,
    /// The primary call, all its retries and fallbacks.
    pub timeout: Duration,
    /// Local-time windows during which a `notify` (or a proposal) is held.
    pub quiet_hours: Vec<QuietHours>,
    /// Calls tried for one escalation before it is given up.
    pub max_attempts: u32,
    /// The last calls of the day's cap kept for urgent escalations (issue 22).
    pub reserve: u32,
    /// The importance from which an escalation is urgent (its thread's most important
    /// finding, from sources the screen found nothing in).
    pub urgent_importance: u8,
    /// Domains a notification or note may link to though no source showed them
    /// (lowercased; subdomains included).
    pub trusted_domains: Vec<String>,
}

impl Default for EscalationConfig {
    fn default() -> Self {
        EscalationConfig {
            models: Vec::new(),
            notify_command: Vec::new(),
            notify_timeout: Duration::from_secs(DEFAULT_NOTIFY_TIMEOUT as u64),
            memory_dir: None,
            daily_cap: DEFAULT_ESCALATIONS_PER_DAY,
            max_tokens: DEFAULT_MAX_TOKENS,
            timeout: Duration::from_secs(DEFAULT_ESCALATION_TIMEOUT as u64),
            quiet_hours: Vec::new(),
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            reserve: DEFAULT_ESCALATION_RESERVE,
            urgent_importance: DEFAULT_URGENT_IMPORTANCE,
            trusted_domains: Vec::new(),
        }
    }
}

impl EscalationConfig {
    /// Whether `t` (local time) is in the escalation quiet hours.
    pub fn is_quiet(&self, t: NaiveTime) -> bool {
        self.quiet_hours.iter().any(|q| q.contains(t))
    }
}

/// The validated configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// The file it was read from (`None`: built-in defaults).
    pub path: Option<PathBuf>,
    pub state_dir: Option<PathBuf>,
    pub memory: Settings,
    pub tick_deadline: Duration,
    /// The quiet tick: unchanged threads are not called.
    pub quiet: QuietSettings,
    pub daily_tokens: Option<u64>,
    pub daily_cost: Option<f64>,
    pub prompts_dir: Option<PathBuf>,
    pub providers: BTreeMap<String, ProviderConfig>,
    /// Indexed by [`ThreadName::index`]; `None` when the thread is not configured.
    pub threads: [Option<ThreadConfig>; 4],
    pub escalation: EscalationConfig,
    /// `[journal]`: when `journal.jsonl` is renamed aside.
    pub journal_rotation: JournalRotation,
    /// `[guard] on_answer`: what happens to a finding carrying an injection.
    pub on_answer: crate::untrusted::guard::OnAnswer,
    /// `[tick] max_input_bytes`: the text a tick gathers from all sources of all threads.
    pub max_input_bytes: usize,
    /// `[budget] timezone`: the zone the day of budgets and the escalation cap is counted
    /// in; `None`: the zone the ledger recorded, else the machine's.
    pub timezone: Option<chrono_tz::Tz>,
    /// `[privacy]`: where private text may go (SPEC §9).
    pub privacy: crate::privacy::Settings,
    /// `[recall]`: what an agent is given.
    pub recall: crate::recollect::RecallSettings,
}

/// `journal.max_bytes` when `rotate = "size"` leaves it out: 10 MiB.
pub const DEFAULT_JOURNAL_MAX_BYTES: u64 = 10 << 20;
/// The range `journal.max_bytes` may take: 64 KiB to 1 GiB.
pub const JOURNAL_MAX_BYTES_RANGE: std::ops::RangeInclusive<u64> = 64 << 10..=1 << 30;

pub const DEFAULT_TICK_DEADLINE: f64 = 240.0;
pub const DEFAULT_THREAD_TIMEOUT: f64 = 90.0;
pub const DEFAULT_PROVIDER_TIMEOUT: f64 = 60.0;
/// `max_response_bytes` when a provider does not set it: 1 MiB.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 1 << 20;
/// The range `max_response_bytes` may take: 1 KiB to 1 GiB.
pub const MAX_RESPONSE_BYTES_RANGE: std::ops::RangeInclusive<u64> = 1 << 10..=1 << 30;
pub const DEFAULT_MAX_TOKENS: u32 = 1024;
pub const DEFAULT_TEMPERATURE: f32 = 0.4;
pub const DEFAULT_ESCALATIONS_PER_DAY: u32 = 5;
/// `escalation.notify_timeout_seconds`.
pub const DEFAULT_NOTIFY_TIMEOUT: f64 = 30.0;
/// `escalation.timeout_seconds`.
pub const DEFAULT_ESCALATION_TIMEOUT: f64 = 120.0;
/// `escalation.max_attempts`.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 3;
/// `escalation.dismiss_memory_hours`.
pub const DEFAULT_DISMISS_MEMORY_HOURS: u32 = 24;
/// `escalation.reserve`: of the default cap of 5, the last 2 are for urgent escalations.
pub const DEFAULT_ESCALATION_RESERVE: u32 = 2;
/// `escalation.urgent_importance`.
pub const DEFAULT_URGENT_IMPORTANCE: u8 = 8;
/// `tick.max_input_bytes`: 384 KiB over all sources of a tick.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 384 << 10;
/// The range `tick.max_input_bytes` may take: 4 KiB to 16 MiB.
pub const MAX_INPUT_BYTES_RANGE: std::ops::RangeInclusive<u64> = 4 << 10..=16 << 20;
/// A provider on this machine gets one request at a time unless told otherwise: Ollama
/// serves one at a time by default (`OLLAMA_NUM_PARALLEL`), llama-server as many as its
/// `--parallel` slots, and a request beyond the slots waits inside the server, where its
/// timeout would already be running.
pub const DEFAULT_LOOPBACK_CONCURRENCY: u32 = 1;

// Bounds of the numeric keys: generous, but far from where arithmetic on them could
// overflow or a conversion (`Duration`, `TimeDelta`) could panic.
/// Any duration in seconds: at most a day.
const MAX_SECONDS: f64 = 86_400.0;
/// `escalation_cooldown_minutes`: at most a year.
const MAX_COOLDOWN_MINUTES: i64 = 525_600;
/// `price_in` / `price_out`, USD per million tokens.
const MAX_PRICE: f64 = 1_000_000.0;
/// `daily_cost`, USD.
const MAX_DAILY_COST: f64 = 1_000_000_000.0;
/// `max_tokens` (at least 16: a shorter answer cannot hold the schema).
const MAX_TOKENS_RANGE: std::ops::RangeInclusive<u32> = 16..=1_000_000;
/// Caps, histories, entries, escalations per day: counts of small things.
const MAX_COUNT: usize = 1000;
/// `memory.decay_hours.*`: at most a year for one point.
const MAX_DECAY_HOURS: f64 = 8760.0;

impl Config {
    /// Reads and validates the config file at `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                ConfigError::Missing {
                    path: path.to_path_buf(),
                }
            } else {
                ConfigError::Read {
                    path: path.to_path_buf(),
                    source,
                }
            }
        })?;
        Config::parse(&text, Some(path))
    }

    /// Validates config text; relative paths are taken relative to `path`'s directory.
    pub fn parse(text: &str, path: Option<&Path>) -> Result<Config, ConfigError> {
        let shown = path.map_or_else(|| PathBuf::from("(built-in)"), Path::to_path_buf);
        let raw: RawConfig = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: shown.clone(),
            message: e.to_string().trim_end().to_string(),
        })?;
        let base = path
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        Validator {
            path: shown,
            base,
            text,
        }
        .config(raw, path)
    }

    /// Refuses a config under which a tick would do nothing (no thread configured, or
    /// every one disabled): under cron, a silent no-op would never be noticed.
    pub fn check_threads(&self) -> Result<(), ConfigError> {
        if self.threads.iter().flatten().any(|t| t.enabled) {
            return Ok(());
        }
        let path = self
            .path
            .clone()
            .unwrap_or_else(|| PathBuf::from("(built-in)"));
        Err(if self.threads.iter().any(Option::is_some) {
            ConfigError::AllThreadsDisabled { path }
        } else {
            ConfigError::NoThreads { path }
        })
    }

    /// The thread's configuration, if it is configured.
    pub fn thread(&self, thread: ThreadName) -> Option<&ThreadConfig> {
        self.threads[thread.index()].as_ref()
    }
}

struct Validator<'a> {
    path: PathBuf,
    base: PathBuf,
    /// The file's text, to find the line of a key an error names.
    text: &'a str,
}

impl Validator<'_> {
    fn err(&self, key: impl Into<String>, message: impl Into<String>) -> ConfigError {
        let key = key.into();
        ConfigError::Invalid {
            path: self.path.clone(),
            line: key_line(self.text, &key),
            key,
            message: message.into(),
        }
    }

    /// A path from the file: `~` expanded, relative to the file's directory.
    fn resolve(&self, key: &str, p: &str) -> Result<PathBuf, ConfigError> {
        self.resolve_path(p)
            .map_err(|message| self.err(key, message))
    }

    /// [`Validator::resolve`] without a key: the error says only why.
    fn resolve_path(&self, p: &str) -> Result<PathBuf, String> {
        let expanded = expand_home(p)?;
        Ok(if expanded.is_absolute() {
            expanded
        } else {
            self.base.join(expanded)
        })
    }

    fn seconds(&self, key: &str, v: Option<f64>, default: f64) -> Result<Duration, ConfigError> {
        let s = v.unwrap_or(default);
        let d = Some(s)
            .filter(|s| s.is_finite() && *s > 0.0 && *s <= MAX_SECONDS)
            .and_then(|s| Duration::try_from_secs_f64(s).ok());
        d.ok_or_else(|| {
            self.err(
                key,
                format!("{s} is not a number of seconds above 0 and at most {MAX_SECONDS} (a day)"),
            )
        })
    }

    /// A finite number of 0 or more.
    fn non_negative(&self, key: &str, v: Option<f64>) -> Result<Option<f64>, ConfigError> {
        match v {
            Some(x) if !(x.is_finite() && x >= 0.0) => {
                Err(self.err(key, format!("{x} must be a number of 0 or more")))
            }
            other => Ok(other),
        }
    }

    /// A money amount (USD): finite, from 0 to `max`.
    fn money(&self, key: &str, v: Option<f64>, max: f64) -> Result<Option<f64>, ConfigError> {
        match self.non_negative(key, v)? {
            Some(x) if x > max => Err(self.err(
                key,
                format!("{x} is out of range: must be a number from 0 to {max}"),
            )),
            other => Ok(other),
        }
    }

    /// An integer key within `range` (inclusive), `default` when left out.
    fn int<T>(
        &self,
        key: &str,
        v: Option<T>,
        default: T,
        range: std::ops::RangeInclusive<T>,
    ) -> Result<T, ConfigError>
    where
        T: Copy + PartialOrd + fmt::Display,
    {
        let x = v.unwrap_or(default);
        if range.contains(&x) {
            Ok(x)
        } else {
            Err(self.err(
                key,
                format!(
                    "{x} is out of range: must be from {} to {}",
                    range.start(),
                    range.end()
                ),
            ))
        }
    }

    #[expect(
        clippy::too_many_lines,
        reason = "the whole config: one checked table after another"
    )]
    fn config(&self, raw: RawConfig, path: Option<&Path>) -> Result<Config, ConfigError> {
        let memory = self.memory(&raw.memory)?;
        let privacy = crate::privacy::Settings {
            private_to: raw.privacy.private_to.unwrap_or_default(),
        };
        let mut providers = BTreeMap::new();
        for (name, p) in raw.providers {
            let provider = self.provider(&name, p, privacy.private_to)?;
            providers.insert(name, provider);
        }
        let RawThreads {
            watcher,
            librarian,
            oracle,
            dreamer,
        } = raw.threads;
        let thread_timeout = raw.tick.thread_timeout_seconds;
        self.seconds(
            "tick.thread_timeout_seconds",
            thread_timeout,
            DEFAULT_THREAD_TIMEOUT,
        )?;
        let mut threads: [Option<ThreadConfig>; 4] = [None, None, None, None];
        for (thread, rt) in ThreadName::ALL
            .into_iter()
            .zip([watcher, librarian, oracle, dreamer])
        {
            if let Some(rt) = rt {
                threads[thread.index()] =
                    Some(self.thread(thread, rt, thread_timeout, &providers)?);
            }
        }
        // A `sample` (the Dreamer's default) reads the other threads' sources.
        let mut configured: Vec<(ThreadName, &mut Vec<SourceConfig>)> = threads
            .iter_mut()
            .flatten()
            .map(|t| (t.thread, &mut t.sources))
            .collect();
        roles::fill_samples(&mut configured);
        let (escalation, dismiss_memory) = match raw.escalation {
            Some(e) => self.escalation(e, &providers)?,
            None => (EscalationConfig::default(), memory.dismiss_memory),
        };
        let memory = Settings {
            dismiss_memory,
            ..memory
        };
        let recall = self.recall(raw.recall, &providers)?;
        Ok(Config {
            path: path.map(Path::to_path_buf),
            state_dir: raw
                .state
                .dir
                .as_deref()
                .map(|d| self.resolve("state.dir", d))
                .transpose()?,
            memory,
            quiet: QuietSettings {
                skip_unchanged: raw.tick.skip_unchanged.unwrap_or(true),
                max_skipped: self.int(
                    "tick.max_skipped",
                    raw.tick.max_skipped,
                    DEFAULT_MAX_SKIPPED,
                    1..=100_000,
                )?,
            },
            tick_deadline: self.seconds(
                "tick.deadline_seconds",
                raw.tick.deadline_seconds,
                DEFAULT_TICK_DEADLINE,
            )?,
            daily_tokens: raw.budget.daily_tokens,
            daily_cost: self.money("budget.daily_cost", raw.budget.daily_cost, MAX_DAILY_COST)?,
            prompts_dir: raw
                .prompts
                .dir
                .as_deref()
                .map(|d| self.resolve("prompts.dir", d))
                .transpose()?,
            providers,
            threads,
            escalation,
            journal_rotation: self.journal(&raw.journal)?,
            on_answer: raw.guard.on_answer.unwrap_or_default(),
            max_input_bytes: usize::try_from(self.int(
                "tick.max_input_bytes",
                raw.tick.max_input_bytes,
                DEFAULT_MAX_INPUT_BYTES,
                MAX_INPUT_BYTES_RANGE,
            )?)
            .unwrap_or(usize::MAX),
            timezone: raw
                .budget
                .timezone
                .as_deref()
                .map(|z| {
                    z.trim().parse::<chrono_tz::Tz>().map_err(|_| {
                        self.err(
                            "budget.timezone",
                            format!("`{z}` is not a time zone: give an IANA name such as \"Europe/Berlin\" or \"UTC\""),
                        )
                    })
                })
                .transpose()?,
            privacy,
            recall,
        })
    }

    /// `[recall]`: sizes, synonyms, and the optional embeddings model (an `openai` or
    /// `ollama` provider).
    fn recall(
        &self,
        r: RawRecall,
        providers: &BTreeMap<String, ProviderConfig>,
    ) -> Result<crate::recollect::RecallSettings, ConfigError> {
        use crate::recollect::{EmbeddingsSettings, RecallSettings};
        let defaults = RecallSettings::default();
        let share = |key: &str, v: Option<f64>, default: f64| match v {
            Some(x) if !(0.0..=1.0).contains(&x) => {
                Err(self.err(key, format!("{x} is out of range: must be from 0 to 1")))
            }
            v => Ok(v.unwrap_or(default)),
        };
        let embeddings = match r.embeddings.as_deref() {
            None => None,
            Some(text) => {
                let model = self.model_ref("recall.embeddings", text, providers)?;
                let provider = providers[&model.provider].clone();
                if !matches!(provider.kind, ProviderKind::Openai | ProviderKind::Ollama) {
                    return Err(self.err(
                        "recall.embeddings",
                        format!(
                            "provider `{}` is not of kind \"openai\" or \"ollama\": embeddings are read from an OpenAI-compatible /v1/embeddings or Ollama's /api/embed",
                            model.provider
                        ),
                    ));
                }
                Some(EmbeddingsSettings {
                    model: model.model,
                    provider,
                    timeout: Duration::from_millis(self.int(
                        "recall.embeddings_timeout_ms",
                        r.embeddings_timeout_ms,
                        crate::recollect::DEFAULT_EMBEDDINGS_TIMEOUT_MS,
                        100..=30_000,
                    )?),
                    min_similarity: share(
                        "recall.min_similarity",
                        r.min_similarity,
                        crate::recollect::DEFAULT_MIN_SIMILARITY,
                    )?,
                    weight: share(
                        "recall.semantic_weight",
                        r.semantic_weight,
                        crate::recollect::DEFAULT_SEMANTIC_WEIGHT,
                    )?,
                })
            }
        };
        Ok(RecallSettings {
            max_bytes: self.int(
                "recall.max_bytes",
                r.max_bytes,
                defaults.max_bytes,
                crate::recall::MIN_MAX_BYTES..=1_000_000,
            )?,
            max_entries: self.int(
                "recall.max_entries",
                r.max_entries,
                defaults.max_entries,
                1..=50,
            )?,
            synonyms: r.synonyms.unwrap_or_default(),
            embeddings,
        })
    }

    /// `[journal]`: `rotate = "month" | "size" | "never"`, `max_bytes` (only with "size").
    fn journal(&self, j: &RawJournal) -> Result<JournalRotation, ConfigError> {
        match j.rotate.as_deref().unwrap_or("month") {
            "size" => Ok(JournalRotation::Size {
                max_bytes: self.int(
                    "journal.max_bytes",
                    j.max_bytes,
                    DEFAULT_JOURNAL_MAX_BYTES,
                    JOURNAL_MAX_BYTES_RANGE,
                )?,
            }),
            other if j.max_bytes.is_some() && matches!(other, "month" | "never") => Err(self.err(
                "journal.max_bytes",
                format!(
                    "is only read with rotate = \"size\" (rotate is \"{other}\"): remove it, or set rotate = \"size\""
                ),
            )),
            "month" => Ok(JournalRotation::Month),
            "never" => Ok(JournalRotation::Never),
            other => Err(self.err(
                "journal.rotate",
                format!("\"{other}\" is not a rotation: use \"month\", \"size\" or \"never\""),
            )),
        }
    }

    fn memory(&self, m: &RawMemory) -> Result<Settings, ConfigError> {
        let d = Settings::default();
        let threshold = m.match_threshold.unwrap_or(d.match_threshold);
        if !(threshold > 0.0 && threshold <= 1.0) {
            return Err(self.err(
                "memory.match_threshold",
                format!("{threshold} must be above 0 and at most 1 (default 0.6)"),
            ));
        }
        let importance = self.int(
            "memory.min_importance",
            m.min_importance,
            d.min_importance,
            0..=10,
        )?;
        let cooldown_key = "memory.escalation_cooldown_minutes";
        let cooldown = self.int(
            cooldown_key,
            m.escalation_cooldown_minutes,
            d.escalation_cooldown.num_minutes(),
            0..=MAX_COOLDOWN_MINUTES,
        )?;
        let escalation_cooldown = chrono::TimeDelta::try_minutes(cooldown)
            .ok_or_else(|| self.err(cooldown_key, format!("{cooldown} minutes is too long")))?;
        let dc = d.caps;
        let cap = |name: &str, v: Option<usize>, default: usize| {
            self.int(&format!("memory.caps.{name}"), v, default, 0..=MAX_COUNT)
        };
        let dd = d.decay;
        let decay = |name: &str, v: Option<f64>, default: i64| -> Result<f64, ConfigError> {
            let hours = v.unwrap_or(default as f64 / 3600.0);
            if hours.is_finite() && hours > 0.0 && hours <= MAX_DECAY_HOURS {
                Ok(hours)
            } else {
                Err(self.err(
                    format!("memory.decay_hours.{name}"),
                    format!(
                        "{hours} is out of range: hours for one point of strength, above 0 and at most {MAX_DECAY_HOURS} (a year)"
                    ),
                ))
            }
        };
        let h = &m.decay_hours;
        let decay = Decay::hours(
            decay("active_threads", h.active_threads, dd.active_threads)?,
            decay("patterns", h.patterns, dd.patterns)?,
            decay("hunches", h.hunches, dd.hunches)?,
            decay("insights", h.insights, dd.insights)?,
        );
        let gap = self.int(
            "memory.max_decay_gap_minutes",
            m.max_decay_gap_minutes,
            d.max_decay_gap.num_minutes(),
            0..=MAX_COOLDOWN_MINUTES,
        )?;
        let grace = self.int(
            "memory.due_grace_hours",
            m.due_grace_hours,
            d.due_grace.num_hours(),
            0..=8760,
        )?;
        Ok(Settings {
            match_threshold: threshold,
            decay,
            max_decay_gap: chrono::TimeDelta::minutes(gap),
            due_grace: chrono::TimeDelta::hours(grace),
            caps: Caps {
                active_threads: cap("active_threads", m.caps.active_threads, dc.active_threads)?,
                patterns: cap("patterns", m.caps.patterns, dc.patterns)?,
                hunches: cap("hunches", m.caps.hunches, dc.hunches)?,
                insights: cap("insights", m.caps.insights, dc.insights)?,
            },
            token_budget: self.int(
                "memory.token_budget",
                m.token_budget,
                d.token_budget,
                100..=10_000_000,
            )?,
            escalation_cooldown,
            escalation_history: self.int(
                "memory.escalation_history",
                m.escalation_history,
                d.escalation_history,
                1..=MAX_COUNT,
            )?,
            dismiss_memory: d.dismiss_memory,
            min_importance: importance,
            rejected_memory: chrono::TimeDelta::hours(self.int(
                "memory.rejected_memory_hours",
                m.rejected_memory_hours,
                d.rejected_memory.num_hours(),
                0..=8760,
            )?),
        })
    }

    /// `[providers.<name>]`, validated part by part in the order its errors are reported:
    /// the name, the connection, structured output, the replay directory, pacing, prices,
    /// the response cap.
    fn provider(
        &self,
        name: &str,
        p: RawProvider,
        private_to: crate::privacy::PrivateTo,
    ) -> Result<ProviderConfig, ConfigError> {
        if name.is_empty() || name.contains('/') {
            return Err(self.err(
                format!("providers.{name}"),
                "a provider name cannot be empty or contain `/`",
            ));
        }
        let base_url = self.connection(
            name,
            p.kind,
            p.base_url.as_deref(),
            p.api_key_env.as_deref(),
        )?;
        let structured_output = self.structured_output(name, p.kind, p.structured_output)?;
        let replay_dir = self.replay_dir(name, p.kind, p.dir.as_deref())?;
        let pacing = self.pacing(name, &p, &base_url)?;
        let prices = self.prices(name, &p)?;
        // SPEC §9: local by the base URL's host unless the config says otherwise.
        let local = p
            .local
            .unwrap_or(p.kind == ProviderKind::Replay || is_loopback(&base_url));
        let trusted = p.trusted.unwrap_or(false);
        let redact = p
            .redact
            .unwrap_or(private_to.access(local, trusted) != crate::privacy::Access::Full);
        let tls = self.tls(name, &p)?;
        Ok(ProviderConfig {
            name: name.to_string(),
            kind: p.kind,
            base_url,
            api_key_env: p.api_key_env,
            timeout: pacing.timeout,
            retries: pacing.retries,
            retry_max_wait: pacing.retry_max_wait,
            requests_per_minute: pacing.requests_per_minute,
            concurrency: pacing.concurrency,
            structured_output,
            price_in: prices.price_in,
            price_out: prices.price_out,
            daily_tokens: p.daily_tokens,
            daily_cost: prices.daily_cost,
            replay_dir,
            anthropic_version: p.anthropic_version.unwrap_or_else(|| "2023-06-01".into()),
            max_response_bytes: self.max_response_bytes(name, p.max_response_bytes)?,
            redact,
            local,
            trusted,
            tls,
            breaker: BreakerSettings {
                failures: self.int(
                    &provider_key(name, "breaker_failures"),
                    p.breaker_failures,
                    DEFAULT_BREAKER_FAILURES,
                    1..=1000,
                )?,
                hours: self.int(
                    &provider_key(name, "breaker_hours"),
                    p.breaker_hours,
                    DEFAULT_BREAKER_HOURS,
                    1..=8760,
                )?,
            },
        })
    }

    /// The provider's `base_url` (its kind's default when left out) and `api_key_env`;
    /// returns the base URL without a trailing `/`.
    fn connection(
        &self,
        name: &str,
        kind: ProviderKind,
        base_url: Option<&str>,
        api_key_env: Option<&str>,
    ) -> Result<String, ConfigError> {
        let key = |k: &str| provider_key(name, k);
        let base_url = match (kind, base_url) {
            (_, Some(url)) => {
                let parsed = reqwest::Url::parse(url)
                    .map_err(|e| self.err(key("base_url"), format!("`{url}` is not a URL: {e}")))?;
                if !matches!(parsed.scheme(), "http" | "https") {
                    return Err(self.err(
                        key("base_url"),
                        format!("`{url}` must start with http:// or https://"),
                    ));
                }
                url.trim_end_matches('/').to_string()
            }
            (ProviderKind::Anthropic, None) => "https://api.anthropic.com".into(),
            (ProviderKind::Ollama, None) => "http://127.0.0.1:11434".into(),
            (ProviderKind::Replay, None) => String::new(),
            (ProviderKind::Openai, None) => {
                return Err(self.err(
                    key("base_url"),
                    "an openai provider needs base_url, e.g. \"https://api.groq.com/openai/v1\"",
                ));
            }
        };
        if let Some(env) = api_key_env
            && (env.is_empty() || env.contains('=') || env.chars().any(char::is_whitespace))
        {
            return Err(self.err(
                key("api_key_env"),
                "must be the NAME of an environment variable, not the key itself",
            ));
        }
        Ok(base_url)
    }

    /// `structured_output` (default `auto`): one of the modes the provider's kind offers.
    fn structured_output(
        &self,
        name: &str,
        kind: ProviderKind,
        structured_output: Option<StructuredOutput>,
    ) -> Result<StructuredOutput, ConfigError> {
        let structured_output = structured_output.unwrap_or(StructuredOutput::Auto);
        let allowed: &[StructuredOutput] = match kind {
            ProviderKind::Openai => &[
                StructuredOutput::JsonSchema,
                StructuredOutput::JsonObjectSchema,
                StructuredOutput::JsonObject,
            ],
            ProviderKind::Anthropic => &[
                StructuredOutput::Tool,
                StructuredOutput::JsonSchema,
                StructuredOutput::OutputFormat,
            ],
            ProviderKind::Ollama => &[StructuredOutput::JsonSchema, StructuredOutput::JsonObject],
            ProviderKind::Replay => &[],
        };
        if !matches!(
            structured_output,
            StructuredOutput::Auto | StructuredOutput::None
        ) && !allowed.contains(&structured_output)
        {
            return Err(self.err(
                provider_key(name, "structured_output"),
                format!(
                    "not available for kind {kind}; use one of: {}",
                    ["auto", "none"]
                        .into_iter()
                        .chain(allowed.iter().map(|s| s.as_str()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        Ok(structured_output)
    }

    /// `dir`: required by replay providers, refused by every other kind.
    fn replay_dir(
        &self,
        name: &str,
        kind: ProviderKind,
        dir: Option<&str>,
    ) -> Result<Option<PathBuf>, ConfigError> {
        let key = provider_key(name, "dir");
        match (kind, dir) {
            (ProviderKind::Replay, Some(d)) => Ok(Some(self.resolve(&key, d)?)),
            (ProviderKind::Replay, None) => Err(self.err(
                key,
                "a replay provider needs dir, the directory its answers are read from",
            )),
            (_, Some(_)) => Err(self.err(key, "only replay providers take dir")),
            (_, None) => Ok(None),
        }
    }

    /// How calls are paced and bounded: `concurrency` (default 1 on a loopback
    /// `base_url`), `timeout_seconds`, `retries`, `retry_max_wait_seconds`,
    /// `requests_per_minute`.
    fn pacing(&self, name: &str, p: &RawProvider, base_url: &str) -> Result<Pacing, ConfigError> {
        let key = |k: &str| provider_key(name, k);
        let concurrency = match p.concurrency {
            Some(0) => {
                return Err(self.err(
                    key("concurrency"),
                    "must be 1 or more (leave it out for the default: 1 on a loopback \
                     server, no limit elsewhere)",
                ));
            }
            Some(n) => Some(n),
            None if is_loopback(base_url) => Some(DEFAULT_LOOPBACK_CONCURRENCY),
            None => None,
        };
        Ok(Pacing {
            concurrency,
            timeout: self.seconds(
                &key("timeout_seconds"),
                p.timeout_seconds,
                DEFAULT_PROVIDER_TIMEOUT,
            )?,
            retries: self.int(&key("retries"), p.retries, 2, 0..=10)?,
            retry_max_wait: self.seconds(
                &key("retry_max_wait_seconds"),
                p.retry_max_wait_seconds,
                30.0,
            )?,
            requests_per_minute: match p.requests_per_minute {
                Some(0) => {
                    return Err(self.err(
                        key("requests_per_minute"),
                        "must be 1 or more (leave it out for no limit)",
                    ));
                }
                Some(n) => Some(self.int(&key("requests_per_minute"), Some(n), n, 1..=60_000)?),
                None => None,
            },
        })
    }

    /// `price_in` and `price_out` (USD per million tokens, default 0) and `daily_cost`.
    fn prices(&self, name: &str, p: &RawProvider) -> Result<Prices, ConfigError> {
        let key = |k: &str| provider_key(name, k);
        Ok(Prices {
            price_in: self
                .money(&key("price_in"), p.price_in, MAX_PRICE)?
                .unwrap_or(0.0),
            price_out: self
                .money(&key("price_out"), p.price_out, MAX_PRICE)?
                .unwrap_or(0.0),
            daily_cost: self.money(&key("daily_cost"), p.daily_cost, MAX_DAILY_COST)?,
        })
    }

    /// `tls_roots` (default `bundled`) and `ca_file` (read now: a file that is missing or
    /// holds no certificate is an error naming the key and the file); replay providers
    /// take neither.
    fn tls(&self, name: &str, p: &RawProvider) -> Result<TlsSettings, ConfigError> {
        if p.kind == ProviderKind::Replay {
            for (k, set) in [
                ("tls_roots", p.tls_roots.is_some()),
                ("ca_file", p.ca_file.is_some()),
            ] {
                if set {
                    return Err(self.err(
                        provider_key(name, k),
                        "a replay provider makes no connection; remove it",
                    ));
                }
            }
        }
        let key = provider_key(name, "ca_file");
        let ca_file = match p.ca_file.as_deref() {
            Some(file) => {
                let path = self.resolve(&key, file)?;
                ca_certificates(&path).map_err(|message| self.err(&key, message))?;
                Some(path)
            }
            None => None,
        };
        Ok(TlsSettings {
            roots: p.tls_roots.unwrap_or_default(),
            ca_file,
        })
    }

    /// `max_response_bytes`, within [`MAX_RESPONSE_BYTES_RANGE`].
    fn max_response_bytes(&self, name: &str, v: Option<u64>) -> Result<usize, ConfigError> {
        match v {
            None => Ok(DEFAULT_MAX_RESPONSE_BYTES),
            Some(n) if MAX_RESPONSE_BYTES_RANGE.contains(&n) => Ok(n as usize),
            Some(n) => Err(self.err(
                provider_key(name, "max_response_bytes"),
                format!(
                    "{n} is out of range: give between {} (1 KiB) and {} (1 GiB) bytes",
                    MAX_RESPONSE_BYTES_RANGE.start(),
                    MAX_RESPONSE_BYTES_RANGE.end()
                ),
            )),
        }
    }

    fn model_ref(
        &self,
        key: &str,
        text: &str,
        providers: &BTreeMap<String, ProviderConfig>,
    ) -> Result<ModelRef, ConfigError> {
        let Some((provider, model)) = text.split_once('/') else {
            return Err(self.err(
                key,
                format!("`{text}` must be \"provider/model\", e.g. \"groq/openai/gpt-oss-120b\""),
            ));
        };
        if model.is_empty() {
            return Err(self.err(key, format!("`{text}` names no model after the `/`")));
        }
        if !providers.contains_key(provider) {
            let known = providers.keys().cloned().collect::<Vec<_>>().join(", ");
            return Err(self.err(
                key,
                format!("provider `{provider}` is not defined; add a [providers.{provider}] table (defined: {})",
                    if known.is_empty() { "none".into() } else { known }),
            ));
        }
        Ok(ModelRef {
            provider: provider.to_string(),
            model: model.to_string(),
        })
    }

    fn thread(
        &self,
        thread: ThreadName,
        t: RawThread,
        default_timeout: Option<f64>,
        providers: &BTreeMap<String, ProviderConfig>,
    ) -> Result<ThreadConfig, ConfigError> {
        let key = |k: &str| format!("threads.{thread}.{k}");
        let mut models = vec![self.model_ref(&key("model"), &t.model, providers)?];
        for (i, f) in t.fallback.iter().enumerate() {
            models.push(self.model_ref(&format!("{}[{i}]", key("fallback")), f, providers)?);
        }
        let every = t.every.unwrap_or(1);
        if every == 0 {
            return Err(self.err(key("every"), "must be 1 or more (1 = every tick)"));
        }
        self.int(&key("every"), Some(every), 1, 1..=1_000_000)?;
        let quiet_hours = self.quiet_hours(&key("quiet_hours"), &t.quiet_hours)?;
        let temperature = t.temperature.unwrap_or(DEFAULT_TEMPERATURE);
        if !(0.0..=2.0).contains(&temperature) {
            return Err(self.err(
                key("temperature"),
                format!("{temperature} is out of range: must be from 0 to 2"),
            ));
        }
        let sources = match t.sources {
            None => roles::defaults(thread),
            Some(tables) => tables
                .into_iter()
                .enumerate()
                .map(|(i, s)| {
                    self.source(&format!("{}[{i}]", key("sources")), s)
                        .map(|s| roles::for_role(thread, s))
                })
                .collect::<Result<Vec<_>, _>>()?,
        };
        Ok(ThreadConfig {
            thread,
            enabled: t.enabled.unwrap_or(true),
            models,
            every,
            quiet_hours,
            timeout: self.seconds(
                &key("timeout_seconds"),
                t.timeout_seconds.or(default_timeout),
                DEFAULT_THREAD_TIMEOUT,
            )?,
            max_tokens: self.int(
                &key("max_tokens"),
                t.max_tokens,
                DEFAULT_MAX_TOKENS,
                MAX_TOKENS_RANGE,
            )?,
            temperature,
            sources,
        })
    }

    /// Reads one source, `key` its place (e.g. `threads.watcher.sources[0]`): the kind
    /// checks its settings ([`Source::from_table`]); an error gets the key's full place
    /// and its line here. Paths are resolved relative to the config file.
    fn source(&self, key: &str, table: toml::Table) -> Result<Source, ConfigError> {
        Source::from_table(table, &|p| self.resolve_path(p)).map_err(|e| {
            let at = e
                .field
                .map_or_else(|| key.to_string(), |f| format!("{key}.{f}"));
            self.err(at, e.message)
        })
    }

    fn quiet_hours(&self, key: &str, list: &[String]) -> Result<Vec<QuietHours>, ConfigError> {
        list.iter()
            .enumerate()
            .map(|(i, q)| {
                parse_quiet_hours(q).ok_or_else(|| {
                    self.err(
                        format!("{key}[{i}]"),
                        format!("`{q}` must look like \"22:30-07:00\""),
                    )
                })
            })
            .collect()
    }

    /// `[escalation]`, and the dismissed-recently window the aggregator applies.
    #[expect(
        clippy::too_many_lines,
        reason = "the escalation table: one checked key after another"
    )]
    fn escalation(
        &self,
        e: RawEscalation,
        providers: &BTreeMap<String, ProviderConfig>,
    ) -> Result<(EscalationConfig, chrono::TimeDelta), ConfigError> {
        // The numbers are checked even without a model: a wrong value is never silent.
        let memory_dir = e
            .memory_dir
            .as_deref()
            .map(|d| self.resolve("escalation.memory_dir", d))
            .transpose()?;
        let daily_cap = self.int(
            "escalation.daily_cap",
            e.daily_cap,
            DEFAULT_ESCALATIONS_PER_DAY,
            0..=MAX_COUNT as u32,
        )?;
        let max_tokens = self.int(
            "escalation.max_tokens",
            e.max_tokens,
            DEFAULT_MAX_TOKENS,
            MAX_TOKENS_RANGE,
        )?;
        let timeout = self.seconds(
            "escalation.timeout_seconds",
            e.timeout_seconds,
            DEFAULT_ESCALATION_TIMEOUT,
        )?;
        let notify_timeout = self.seconds(
            "escalation.notify_timeout_seconds",
            e.notify_timeout_seconds,
            DEFAULT_NOTIFY_TIMEOUT,
        )?;
        let quiet_hours = self.quiet_hours("escalation.quiet_hours", &e.quiet_hours)?;
        let max_attempts = self.int(
            "escalation.max_attempts",
            e.max_attempts,
            DEFAULT_MAX_ATTEMPTS,
            1..=100,
        )?;
        let hours = self.int(
            "escalation.dismiss_memory_hours",
            e.dismiss_memory_hours,
            DEFAULT_DISMISS_MEMORY_HOURS,
            0..=8760,
        )?;
        let reserve = self.int(
            "escalation.reserve",
            e.reserve,
            DEFAULT_ESCALATION_RESERVE,
            0..=MAX_COUNT as u32,
        )?;
        let urgent_importance = self.int(
            "escalation.urgent_importance",
            e.urgent_importance,
            DEFAULT_URGENT_IMPORTANCE,
            0..=10,
        )?;
        let mut trusted_domains = Vec::with_capacity(e.trusted_domains.len());
        for (i, d) in e.trusted_domains.iter().enumerate() {
            let domain = d
                .trim()
                .trim_start_matches("*.")
                .trim_end_matches('.')
                .to_lowercase();
            if domain.is_empty() || domain.contains(['/', ':', '@', ' ']) || !domain.contains('.') {
                return Err(self.err(
                    format!("escalation.trusted_domains[{i}]"),
                    format!("`{d}` is not a domain: give a host name such as \"example.com\" (no scheme, no path)"),
                ));
            }
            trusted_domains.push(domain);
        }
        if e.notify_command
            .first()
            .is_some_and(|p| p.trim().is_empty())
        {
            return Err(self.err(
                "escalation.notify_command[0]",
                "the program is empty: give its name or path, e.g. [\"notify-send\", \"thinker\"]",
            ));
        }
        if !e.fallback.is_empty() && e.model.is_none() {
            return Err(self.err(
                "escalation.fallback",
                "a fallback needs a `model` to fall back from: set escalation.model",
            ));
        }
        let mut models = Vec::new();
        if let Some(model) = &e.model {
            models.push(self.model_ref("escalation.model", model, providers)?);
        }
        for (i, f) in e.fallback.iter().enumerate() {
            models.push(self.model_ref(&format!("escalation.fallback[{i}]"), f, providers)?);
        }
        let config = EscalationConfig {
            models,
            notify_command: e.notify_command,
            notify_timeout,
            memory_dir,
            daily_cap,
            max_tokens,
            timeout,
            quiet_hours,
            max_attempts,
            reserve,
            urgent_importance,
            trusted_domains,
        };
        Ok((config, chrono::TimeDelta::hours(i64::from(hours))))
    }
}

/// `providers.<name>.<k>`, the key a provider's error names.
fn provider_key(name: &str, k: &str) -> String {
    format!("providers.{name}.{k}")
}

/// A provider's validated pacing and bounds (see [`Validator::pacing`]).
struct Pacing {
    concurrency: Option<u32>,
    timeout: Duration,
    retries: u32,
    retry_max_wait: Duration,
    requests_per_minute: Option<u32>,
}

/// A provider's validated prices and daily cost limit (see [`Validator::prices`]).
struct Prices {
    price_in: f64,
    price_out: f64,
    daily_cost: Option<f64>,
}

/// Whether `url` names this machine: `localhost` (or a `*.localhost` name), 127.0.0.0/8,
/// `::1`, the unspecified addresses (`0.0.0.0`, `::`), or an IPv4-mapped loopback.
fn is_loopback(url: &str) -> bool {
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return false;
    };
    match parsed.host_str() {
        Some(host) => {
            let host = host.trim_start_matches('[').trim_end_matches(']');
            host.eq_ignore_ascii_case("localhost")
                || host.to_ascii_lowercase().ends_with(".localhost")
                || host.parse::<std::net::IpAddr>().is_ok_and(|ip| {
                    // 0.0.0.0 / :: as a destination reach this machine; an IPv4-mapped
                    // address is its IPv4 address.
                    let ip = ip.to_canonical();
                    ip.is_loopback() || ip.is_unspecified()
                })
        }
        None => false,
    }
}

fn parse_quiet_hours(text: &str) -> Option<QuietHours> {
    let (a, b) = text.split_once('-')?;
    let from = NaiveTime::parse_from_str(a.trim(), "%H:%M").ok()?;
    let to = NaiveTime::parse_from_str(b.trim(), "%H:%M").ok()?;
    Some(QuietHours { from, to })
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// Expands a leading `~`: `~` and `~/x` with `$HOME`, `~user` and `~user/x` with that
/// user's home directory from `/etc/passwd`. Never yields a path starting with a literal
/// `~` directory: when the home cannot be found, the message says what to do.
pub fn expand_home(p: &str) -> Result<PathBuf, String> {
    let Some(rest) = p.strip_prefix('~') else {
        return Ok(PathBuf::from(p));
    };
    let (user, tail) = rest.split_once('/').unwrap_or((rest, ""));
    let home = if user.is_empty() {
        home().ok_or_else(|| {
            format!("`{p}` needs a home directory, but $HOME is not set: set HOME, or write an absolute path")
        })?
    } else {
        let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
        user_home(&passwd, user).ok_or_else(|| {
            format!("`~{user}`: no such user in /etc/passwd; write the full path instead")
        })?
    };
    Ok(if tail.is_empty() {
        home
    } else {
        home.join(tail)
    })
}

/// `user`'s home directory in the text of an `/etc/passwd` file.
fn user_home(passwd: &str, user: &str) -> Option<PathBuf> {
    passwd
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split(':').collect::<Vec<_>>())
        .find(|f| f.len() >= 7 && f[0] == user)
        .map(|f| PathBuf::from(f[5]))
        .filter(|h| h.is_absolute())
}

/// The line (1-based) of the key an error names, e.g. `providers.g.retries`,
/// `threads.watcher.sources[1].max_bytes` or `memory.caps.patterns`. When the key is not
/// in the file (a default, or an inherited value), the line of the nearest table that is.
fn key_line(text: &str, key: &str) -> Option<usize> {
    let doc = toml::de::DeTable::parse(text).ok()?;
    let mut segments = Vec::new();
    for part in key.split('.') {
        let (name, indices) = part.split_once('[').unwrap_or((part, ""));
        segments.push(Segment::Key(name));
        for i in indices.split('[') {
            if let Ok(n) = i.trim_end_matches(']').parse::<usize>() {
                segments.push(Segment::Index(n));
            }
        }
    }
    let span = find_span(doc.get_ref(), &segments)?;
    Some(text.get(..span.start)?.matches('\n').count() + 1)
}

#[derive(Clone, Copy)]
enum Segment<'k> {
    Key(&'k str),
    Index(usize),
}

/// The span of the deepest part of `path` found under `table`.
fn find_span(
    table: &toml::de::DeTable<'_>,
    path: &[Segment<'_>],
) -> Option<std::ops::Range<usize>> {
    let keys: Vec<&str> = path
        .iter()
        .map_while(|s| match s {
            Segment::Key(k) => Some(*k),
            Segment::Index(_) => None,
        })
        .collect();
    // A name may itself contain dots (`[providers."a.b"]`): the longest one first.
    for n in (1..=keys.len()).rev() {
        let name = keys[..n].join(".");
        if let Some((k, v)) = table.iter().find(|(k, _)| k.get_ref().as_ref() == name) {
            return Some(find_value(v, &path[n..]).unwrap_or_else(|| k.span()));
        }
    }
    None
}

fn find_value(
    value: &toml::Spanned<toml::de::DeValue<'_>>,
    path: &[Segment<'_>],
) -> Option<std::ops::Range<usize>> {
    match (value.get_ref(), path.first()?) {
        (toml::de::DeValue::Table(t), Segment::Key(_)) => find_span(t, path),
        (toml::de::DeValue::Array(a), Segment::Index(i)) => {
            let item = a.get(*i)?;
            Some(find_value(item, &path[1..]).unwrap_or_else(|| item.span()))
        }
        _ => None,
    }
}

fn xdg(var: &str, fallback: &str) -> Result<PathBuf, ConfigError> {
    match std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
    {
        Some(p) if p.is_absolute() => Ok(p),
        _ => home().map(|h| h.join(fallback)).ok_or(ConfigError::NoHome),
    }
}

/// Where the config is read from: `--config`, else `$THINKER_CONFIG`, else
/// `$XDG_CONFIG_HOME/thinker/config.toml`.
pub fn config_path(flag: Option<&Path>) -> Result<PathBuf, ConfigError> {
    if let Some(p) = flag {
        return Ok(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os("THINKER_CONFIG").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    Ok(xdg("XDG_CONFIG_HOME", ".config")?
        .join("thinker")
        .join("config.toml"))
}

/// The state directory: `--state`, else the config's `[state] dir`, else
/// `$XDG_DATA_HOME/thinker`.
pub fn state_dir(flag: Option<&Path>, config: Option<&Config>) -> Result<PathBuf, ConfigError> {
    if let Some(p) = flag {
        return Ok(p.to_path_buf());
    }
    if let Some(d) = config.and_then(|c| c.state_dir.clone()) {
        return Ok(d);
    }
    Ok(xdg("XDG_DATA_HOME", ".local/share")?.join("thinker"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Some(Path::new("/etc/thinker/config.toml")))
    }

    #[test]
    fn default_config_is_valid() {
        let c = parse(DEFAULT_CONFIG).unwrap();
        assert!(c.thread(ThreadName::Watcher).is_some());
    }

    /// `[journal]`: the rotation and its size, each wrong value named with its key and line.
    #[test]
    fn the_journal_table_is_checked_and_defaulted() {
        let ok = |text: &str| parse(text).unwrap().journal_rotation;
        assert_eq!(ok(""), JournalRotation::Month);
        assert_eq!(
            ok("[journal]\nrotate = \"never\"\n"),
            JournalRotation::Never
        );
        assert_eq!(
            ok("[journal]\nrotate = \"size\"\n"),
            JournalRotation::Size {
                max_bytes: DEFAULT_JOURNAL_MAX_BYTES
            }
        );
        assert_eq!(
            ok("[journal]\nrotate = \"size\"\nmax_bytes = 65536\n"),
            JournalRotation::Size { max_bytes: 65536 }
        );
        for (text, key, line, says) in [
            (
                "[journal]\nrotate = \"weekly\"\n",
                "journal.rotate",
                2,
                "\"month\", \"size\"",
            ),
            (
                "[journal]\nrotate = \"size\"\nmax_bytes = 1000\n",
                "journal.max_bytes",
                3,
                "65536 to",
            ),
            (
                "[journal]\nmax_bytes = 1000000\n",
                "journal.max_bytes",
                2,
                "only read with rotate = \"size\"",
            ),
        ] {
            let err = parse(text).unwrap_err();
            let msg = err.to_string();
            assert!(
                msg.contains(&format!("line {line}")) && msg.contains(says),
                "{msg}"
            );
            assert!(
                matches!(err, ConfigError::Invalid { key: k, .. } if k == key),
                "{msg}"
            );
        }
        let err = parse("[journal]\nrotation = \"month\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("rotation"), "{err}");
    }

    #[test]
    fn unknown_key_is_named_with_its_line() {
        let err = parse("[threads.watcher]\nmodle = \"x/y\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("modle") && err.contains("line 2"), "{err}");
    }

    #[test]
    fn undefined_provider_is_named() {
        let err = parse("[threads.oracle]\nmodel = \"grok/x\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("threads.oracle.model") && err.contains("[providers.grok]"),
            "{err}"
        );
    }

    #[test]
    fn relative_paths_follow_the_config_file() {
        let c = parse(
            "[providers.r]\nkind = \"replay\"\ndir = \"answers\"\n[state]\ndir = \"/var/x\"\n",
        )
        .unwrap();
        assert_eq!(
            c.providers["r"].replay_dir.as_deref(),
            Some(Path::new("/etc/thinker/answers"))
        );
        assert_eq!(c.state_dir.as_deref(), Some(Path::new("/var/x")));
    }

    #[test]
    fn quiet_hours_wrap_midnight() {
        let q = parse_quiet_hours("22:30-07:00").unwrap();
        let t = |s| NaiveTime::parse_from_str(s, "%H:%M").unwrap();
        assert!(q.contains(t("23:00")) && q.contains(t("06:59")));
        assert!(!q.contains(t("07:00")) && !q.contains(t("12:00")));
        assert!(parse("[providers.p]\nkind=\"ollama\"\n[threads.dreamer]\nmodel=\"p/m\"\nquiet_hours=[\"late\"]\n").is_err());
    }

    /// Every numeric key, as (key, kind, TOML with `{v}` where the value goes). Kind `i`:
    /// an integer; `u64`: an integer of the whole u64 range (cannot be too large in
    /// TOML); `f`: a float.
    const NUMERIC_KEYS: &[(&str, &str, &str)] = &[
        (
            "memory.match_threshold",
            "f",
            "[memory]\nmatch_threshold = {v}\n",
        ),
        ("memory.token_budget", "i", "[memory]\ntoken_budget = {v}\n"),
        (
            "memory.min_importance",
            "i",
            "[memory]\nmin_importance = {v}\n",
        ),
        (
            "memory.escalation_cooldown_minutes",
            "i",
            "[memory]\nescalation_cooldown_minutes = {v}\n",
        ),
        (
            "memory.escalation_history",
            "i",
            "[memory]\nescalation_history = {v}\n",
        ),
        (
            "memory.rejected_memory_hours",
            "i",
            "[memory]\nrejected_memory_hours = {v}\n",
        ),
        (
            "memory.caps.active_threads",
            "i",
            "[memory]\ncaps = { active_threads = {v} }\n",
        ),
        (
            "memory.caps.patterns",
            "i",
            "[memory]\ncaps = { patterns = {v} }\n",
        ),
        ("memory.caps.hunches", "i", "[memory.caps]\nhunches = {v}\n"),
        (
            "memory.caps.insights",
            "i",
            "[memory]\ncaps.insights = {v}\n",
        ),
        (
            "tick.deadline_seconds",
            "f",
            "[tick]\ndeadline_seconds = {v}\n",
        ),
        (
            "tick.thread_timeout_seconds",
            "f",
            "[tick]\nthread_timeout_seconds = {v}\n",
        ),
        ("tick.max_skipped", "u32", "[tick]\nmax_skipped = {v}\n"),
        (
            "budget.daily_tokens",
            "u64",
            "[budget]\ndaily_tokens = {v}\n",
        ),
        ("budget.daily_cost", "f", "[budget]\ndaily_cost = {v}\n"),
        (
            "providers.q.timeout_seconds",
            "f",
            "[providers.q]\nkind = \"ollama\"\ntimeout_seconds = {v}\n",
        ),
        (
            "providers.q.retries",
            "i",
            "[providers.q]\nkind = \"ollama\"\nretries = {v}\n",
        ),
        (
            "providers.q.retry_max_wait_seconds",
            "f",
            "[providers.q]\nkind = \"ollama\"\nretry_max_wait_seconds = {v}\n",
        ),
        (
            "providers.q.requests_per_minute",
            "i",
            "[providers.q]\nkind = \"ollama\"\nrequests_per_minute = {v}\n",
        ),
        (
            "providers.q.price_in",
            "f",
            "[providers.q]\nkind = \"ollama\"\nprice_in = {v}\n",
        ),
        (
            "providers.q.price_out",
            "f",
            "[providers.q]\nkind = \"ollama\"\nprice_out = {v}\n",
        ),
        (
            "providers.q.daily_tokens",
            "u64",
            "[providers.q]\nkind = \"ollama\"\ndaily_tokens = {v}\n",
        ),
        (
            "providers.q.daily_cost",
            "f",
            "[providers.q]\nkind = \"ollama\"\ndaily_cost = {v}\n",
        ),
        (
            "threads.watcher.every",
            "i",
            "[threads.watcher]\nmodel = \"p/m\"\nevery = {v}\n",
        ),
        (
            "threads.watcher.timeout_seconds",
            "f",
            "[threads.watcher]\nmodel = \"p/m\"\ntimeout_seconds = {v}\n",
        ),
        (
            "threads.watcher.max_tokens",
            "i",
            "[threads.watcher]\nmodel = \"p/m\"\nmax_tokens = {v}\n",
        ),
        (
            "threads.watcher.temperature",
            "f",
            "[threads.watcher]\nmodel = \"p/m\"\ntemperature = {v}\n",
        ),
        (
            "threads.oracle.sources[1].timeout_seconds",
            "f",
            "[threads.oracle]\nmodel = \"p/m\"\n[[threads.oracle.sources]]\nkind = \"system\"\n[[threads.oracle.sources]]\nkind = \"command\"\ncommand = [\"df\"]\ntimeout_seconds = {v}\n",
        ),
        (
            "threads.oracle.sources[0].max_bytes",
            "i",
            "[threads.oracle]\nmodel = \"p/m\"\n[[threads.oracle.sources]]\nkind = \"command\"\ncommand = [\"df\"]\nmax_bytes = {v}\n",
        ),
        (
            "threads.oracle.sources[0].max_bytes",
            "i",
            "[threads.oracle]\nmodel = \"p/m\"\n[[threads.oracle.sources]]\nkind = \"files\"\npaths = [\"/x\"]\nmax_bytes = {v}\n",
        ),
        (
            "threads.oracle.sources[0].max_bytes",
            "i",
            "[threads.oracle]\nmodel = \"p/m\"\n[[threads.oracle.sources]]\nkind = \"transcript\"\npath = \"/x\"\nmax_bytes = {v}\n",
        ),
        (
            "threads.oracle.sources[0].max_entries",
            "i",
            "[threads.oracle]\nmodel = \"p/m\"\nsources = [{ kind = \"archive\", max_entries = {v} }]\n",
        ),
        (
            "escalation.daily_cap",
            "i",
            "[escalation]\nmodel = \"p/m\"\ndaily_cap = {v}\n",
        ),
        (
            "escalation.max_tokens",
            "i",
            "[escalation]\nmodel = \"p/m\"\nmax_tokens = {v}\n",
        ),
        (
            "escalation.timeout_seconds",
            "f",
            "[escalation]\nmodel = \"p/m\"\ntimeout_seconds = {v}\n",
        ),
        (
            "escalation.notify_timeout_seconds",
            "f",
            "[escalation]\nnotify_timeout_seconds = {v}\n",
        ),
        (
            "escalation.max_attempts",
            "u32",
            "[escalation]\nmax_attempts = {v}\n",
        ),
        (
            "escalation.dismiss_memory_hours",
            "u32",
            "[escalation]\ndismiss_memory_hours = {v}\n",
        ),
        ("escalation.reserve", "u32", "[escalation]\nreserve = {v}\n"),
        (
            "escalation.urgent_importance",
            "i",
            "[escalation]\nurgent_importance = {v}\n",
        ),
        (
            "tick.max_input_bytes",
            "u64",
            "[tick]\nmax_input_bytes = {v}\n",
        ),
    ];

    #[test]
    fn every_numeric_key_refuses_out_of_range_values_naming_the_key_and_its_line() {
        // Regression: `escalation_cooldown_minutes = 153722867280912930` panicked, NaN
        // source timeouts were taken, and range errors named no line.
        let head = "# a comment\n[providers.p]\nkind = \"ollama\"\n\n";
        for (key, kind, template) in NUMERIC_KEYS {
            let bad: &[&str] = match *kind {
                "f" => &["1e300", "-1.0", "nan", "inf", "-inf"],
                "u64" => &["-1"],
                _ => &["153722867280912930", "-1", "5000000000"],
            };
            for v in bad {
                let text = format!("{head}{}", template.replace("{v}", v));
                let last = key.rsplit('.').next().unwrap();
                let line = text
                    .lines()
                    .position(|l| l.contains(&format!("{last} = {v}")))
                    .unwrap()
                    + 1;
                let err = parse(&text).expect_err(&format!("{key} = {v} must be refused"));
                let msg = err.to_string();
                assert!(
                    msg.contains(&format!("line {line}")),
                    "{key} = {v}: no `line {line}` in: {msg}"
                );
                match err {
                    ConfigError::Invalid { key: named, .. } => assert_eq!(&named, key, "{msg}"),
                    ConfigError::Parse { .. } => assert!(msg.contains(last), "{msg}"),
                    other => panic!("{key} = {v}: {other}"),
                }
            }
            // And the key's place in the table is right: a sane value is accepted.
            let sane: &[&str] = if *kind == "f" {
                &["1.0"]
            } else {
                &["5", "500", "5000"]
            };
            assert!(
                sane.iter()
                    .any(|v| parse(&format!("{head}{}", template.replace("{v}", v))).is_ok()),
                "{key}: no sane value accepted"
            );
        }
    }

    #[test]
    fn the_escalation_table_is_checked_and_defaulted() {
        let head = "[providers.p]\nkind = \"ollama\"\n";
        let cases = [
            (
                "[escalation]\nquiet_hours = [\"late\"]\n",
                "escalation.quiet_hours[0]",
            ),
            (
                "[escalation]\nnotify_command = [\" \"]\n",
                "escalation.notify_command[0]",
            ),
            (
                "[escalation]\nfallback = [\"p/m\"]\n",
                "escalation.fallback",
            ),
            ("[escalation]\nmodel = \"nope/m\"\n", "escalation.model"),
            ("[escalation]\nnotify = []\n", "notify"),
        ];
        for (text, named) in cases {
            let msg = parse(&format!("{head}{text}")).unwrap_err().to_string();
            assert!(msg.contains(named), "{text}: {msg}");
        }
        let c = parse(&format!(
            "{head}[escalation]\nmodel = \"p/big\"\nquiet_hours = [\"22:30-07:00\"]\ndismiss_memory_hours = 2\n"
        ))
        .unwrap();
        let e = &c.escalation;
        assert_eq!(e.models.len(), 1);
        assert_eq!(e.max_attempts, DEFAULT_MAX_ATTEMPTS);
        assert_eq!(e.notify_timeout, Duration::from_secs(30));
        assert!(e.is_quiet(NaiveTime::from_hms_opt(23, 0, 0).unwrap()));
        assert!(!e.is_quiet(NaiveTime::from_hms_opt(12, 0, 0).unwrap()));
        assert_eq!(c.memory.dismiss_memory, chrono::TimeDelta::hours(2));
        // Without the table: no primary model, the defaults.
        let bare = parse(head).unwrap();
        assert!(bare.escalation.models.is_empty());
        assert_eq!(bare.memory.dismiss_memory, chrono::TimeDelta::hours(24));
    }

    #[test]
    fn every_numeric_key_is_in_the_table() {
        // A key added to a Raw type without a range check would be missed by the table
        // test above: the default config names every key, so compare against it.
        for key in [
            "match_threshold",
            "token_budget",
            "min_importance",
            "escalation_cooldown_minutes",
            "escalation_history",
            "deadline_seconds",
            "thread_timeout_seconds",
            "daily_cost",
            "daily_cap",
            "notify_timeout_seconds",
            "max_attempts",
            "dismiss_memory_hours",
            "reserve",
            "urgent_importance",
            "max_input_bytes",
        ] {
            assert!(
                NUMERIC_KEYS.iter().any(|(k, _, _)| k.ends_with(key)),
                "{key}"
            );
            assert!(DEFAULT_CONFIG.contains(key), "{key} is not documented");
        }
    }

    #[test]
    fn a_key_left_out_points_at_its_table() {
        let text = "[providers.p]\nkind = \"ollama\"\n[tick]\ndeadline_seconds = 60\n";
        assert_eq!(key_line(text, "providers.p.retries"), Some(1));
        assert_eq!(key_line(text, "tick.deadline_seconds"), Some(4));
        assert_eq!(key_line(text, "escalation.model"), None);
        let dotted = "[providers.\"a.b\"]\nkind = \"ollama\"\nretries = 3\n";
        assert_eq!(key_line(dotted, "providers.a.b.retries"), Some(3));
    }

    #[test]
    fn home_paths_expand_or_fail_with_the_way_out() {
        let passwd = "# comment\nroot:x:0:0:root:/root:/bin/sh\nann:x:1000:1000::/home/ann:/bin/bash\nbad:x:1:1::relative:/bin/sh\n";
        assert_eq!(user_home(passwd, "ann"), Some(PathBuf::from("/home/ann")));
        assert_eq!(user_home(passwd, "bob"), None);
        assert_eq!(user_home(passwd, "bad"), None);
        assert_eq!(expand_home("/a/~b").unwrap(), PathBuf::from("/a/~b"));
        assert_eq!(expand_home("rel/x").unwrap(), PathBuf::from("rel/x"));
        let err = expand_home("~no-such-user-here/x").unwrap_err();
        assert!(err.contains("full path"), "{err}");
        // `~` itself depends on $HOME, which tests must not change: see
        // tests/hardening_config.rs for it through the binary.
    }

    #[test]
    fn a_tilde_path_that_cannot_expand_names_its_key() {
        let err = parse("[providers.p]\nkind = \"ollama\"\n[threads.watcher]\nmodel = \"p/m\"\n[[threads.watcher.sources]]\nkind = \"files\"\npaths = [\"/a\", \"~no-such-user-here/*.md\"]\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("threads.watcher.sources[0].paths[1]") && err.contains("line 7"),
            "{err}"
        );
    }

    #[test]
    fn a_wrong_source_field_is_named_with_its_line() {
        let text = "[providers.p]\nkind = \"ollama\"\n[threads.watcher]\nmodel = \"p/m\"\n[[threads.watcher.sources]]\nkind = \"command\"\ncommand = [\"df\"]\nmax_bytez = 3\n";
        let err = parse(text).unwrap_err().to_string();
        assert!(
            err.contains("threads.watcher.sources[0].max_bytez") && err.contains("line 8"),
            "{err}"
        );
    }

    #[test]
    fn source_settings_are_errors_naming_the_key_and_its_line() {
        // Regression (issue 8): `timeout_seconds = -3` must not be corrected silently, and
        // `max_bytes` is checked; each kind's error names its key and line.
        let head = "[providers.p]\nkind = \"ollama\"\n[threads.watcher]\nmodel = \"p/m\"\n[[threads.watcher.sources]]\n";
        for (body, key, line) in [
            (
                "kind = \"command\"\ncommand = [\"df\"]\ntimeout_seconds = -3\n",
                "timeout_seconds",
                8,
            ),
            (
                "kind = \"command\"\ncommand = [\"df\"]\nmax_bytes = 0\n",
                "max_bytes",
                8,
            ),
            (
                "kind = \"files\"\npaths = [\"/x\"]\nmax_bytes = 20000000\n",
                "max_bytes",
                8,
            ),
            ("kind = \"command\"\ncommand = []\n", "command", 7),
            ("kind = \"mbox\"\n", "kind", 6),
        ] {
            let err = parse(&format!("{head}{body}")).unwrap_err();
            let msg = err.to_string();
            match err {
                ConfigError::Invalid {
                    key: named,
                    line: at,
                    ..
                } => {
                    assert_eq!(named, format!("threads.watcher.sources[0].{key}"), "{msg}");
                    assert_eq!(at, Some(line), "{msg}");
                }
                other => panic!("{body}: {other}"),
            }
        }
        let ok = parse(&format!(
            "{head}kind = \"command\"\ncommand = [\"df\"]\ntimeout_seconds = 3\n"
        ))
        .unwrap();
        assert_eq!(ok.thread(ThreadName::Watcher).unwrap().sources.len(), 1);
    }

    #[test]
    fn a_config_without_a_running_thread_is_refused() {
        let err = parse("").unwrap().check_threads().unwrap_err().to_string();
        assert!(
            err.contains("defines no threads") && err.contains("thinker init"),
            "{err}"
        );
        let off = parse("[providers.p]\nkind = \"ollama\"\n[threads.dreamer]\nmodel = \"p/m\"\nenabled = false\n").unwrap();
        assert!(
            off.check_threads()
                .unwrap_err()
                .to_string()
                .contains("every thread is disabled")
        );
        assert!(parse(DEFAULT_CONFIG).unwrap().check_threads().is_ok());
    }

    #[test]
    fn concurrency_defaults_to_one_on_loopback_and_is_validated() {
        let provider = |url: &str, extra: &str| {
            parse(&format!(
                "[providers.p]\nkind = \"openai\"\nbase_url = \"{url}\"\n{extra}"
            ))
            .map(|c| c.providers["p"].concurrency)
        };
        for url in [
            "http://127.0.0.1:8080/v1",
            "http://127.3.4.5/v1",
            "http://localhost:11434/v1",
            "http://LOCALHOST/v1",
            "http://[::1]:8080/v1",
            "http://0.0.0.0:8080/v1",
            "http://[::ffff:127.0.0.1]:8080/v1",
        ] {
            assert_eq!(provider(url, "").unwrap(), Some(1), "{url}");
        }
        for url in [
            "https://api.groq.com/openai/v1",
            "http://192.168.1.5:8080/v1",
            "http://[::2]/v1",
        ] {
            assert_eq!(provider(url, "").unwrap(), None, "{url}");
        }
        assert_eq!(
            provider("http://127.0.0.1/v1", "concurrency = 3").unwrap(),
            Some(3)
        );
        assert_eq!(
            provider("https://api.groq.com/openai/v1", "concurrency = 2").unwrap(),
            Some(2)
        );
        let err = provider("http://127.0.0.1/v1", "concurrency = 0")
            .unwrap_err()
            .to_string();
        assert!(err.contains("providers.p.concurrency"), "{err}");
        let ollama = parse("[providers.o]\nkind = \"ollama\"\n").unwrap();
        assert_eq!(ollama.providers["o"].concurrency, Some(1));
    }

    #[test]
    fn output_format_is_an_anthropic_mode() {
        let c =
            parse("[providers.a]\nkind = \"anthropic\"\nstructured_output = \"output_format\"\n")
                .unwrap();
        assert_eq!(
            c.providers["a"].structured_output,
            StructuredOutput::OutputFormat
        );
        let err = parse("[providers.o]\nkind = \"openai\"\nbase_url = \"https://x\"\nstructured_output = \"output_format\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("providers.o.structured_output"), "{err}");
    }

    #[test]
    fn api_key_env_refuses_a_literal_key() {
        let err = parse("[providers.g]\nkind = \"openai\"\nbase_url = \"https://x\"\napi_key_env = \"sk-abc def\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("providers.g.api_key_env"), "{err}");
        assert!(
            !err.contains("sk-abc"),
            "the would-be key must not be echoed: {err}"
        );
    }

    #[test]
    fn tls_roots_and_ca_file_are_checked_naming_the_key_and_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        std::fs::write(dir.path().join("ca.pem"), cert.cert.pem()).unwrap();
        std::fs::write(dir.path().join("empty.pem"), "nothing here\n").unwrap();
        std::fs::write(
            dir.path().join("broken.pem"),
            "-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n",
        )
        .unwrap();
        let config = dir.path().join("thinker.toml");
        let with = |kind: &str, extra: &str| {
            let url = if kind == "replay" {
                "dir = \"answers\""
            } else {
                "base_url = \"https://x\""
            };
            let text = format!("[providers.p]\nkind = \"{kind}\"\n{url}\n{extra}\n");
            Config::parse(&text, Some(&config)).map(|c| c.providers["p"].tls.clone())
        };
        assert_eq!(with("openai", "").unwrap(), TlsSettings::default());
        assert_eq!(
            with("openai", "tls_roots = \"system\"").unwrap().roots,
            TlsRoots::System
        );
        let ok = with("ollama", "ca_file = \"ca.pem\"").unwrap();
        assert_eq!(
            ok.ca_file.as_deref(),
            Some(dir.path().join("ca.pem").as_path())
        );
        assert_eq!(ok.roots, TlsRoots::Bundled);
        // (extra lines, what the error must say)
        let cases = [
            (
                "tls_roots = \"mozilla\"",
                vec!["tls_roots", "bundled", "system"],
            ),
            (
                "ca_file = \"missing.pem\"",
                vec!["providers.p.ca_file", "missing.pem", "cannot read"],
            ),
            (
                "ca_file = \"empty.pem\"",
                vec!["providers.p.ca_file", "empty.pem", "holds no certificate"],
            ),
            (
                "ca_file = \"broken.pem\"",
                vec!["providers.p.ca_file", "broken.pem", "PEM"],
            ),
        ];
        for (extra, wants) in cases {
            let err = with("openai", extra).unwrap_err().to_string();
            for want in wants {
                assert!(err.contains(want), "{extra}: {err} should say {want}");
            }
        }
        let err = with("replay", "ca_file = \"ca.pem\"")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("providers.p.ca_file") && err.contains("replay"),
            "{err}"
        );
    }
}
