//! Configuration (SPEC §10): the validated [`Config`] the rest of the program trusts,
//! its parts ([`ThreadConfig`], [`EscalationConfig`], [`QuietHours`]), the public
//! defaults of its keys, [`ConfigError`], and loading ([`Config::load`],
//! [`Config::parse`]).
//!
//! The work is done in submodules, one concept each: `raw` the file as written (serde,
//! unknown keys refused); `validate` the defaults and ranges of every key but a
//! source's, table by table, and `providers` a provider's table; `paths` where the
//! config and the state directory are found and `~` expansion; `lookup` the line of a
//! key an error names (found again in the file's text only when there is an error). A
//! source's keys belong to its kind (`sources::Source::from_table` checks them); this
//! module adds the source's place and the line to their errors.
//!
//! The config assembles each module's settings; the types of a lower module's settings
//! live there (a provider's in `crate::provider::config`, re-exported here). Must not: be
//! imported by the modules below it, or hold a value that was not checked.

mod lookup;
mod paths;
mod providers;
mod raw;
mod validate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::NaiveTime;

use crate::aggregate::Settings;
pub use crate::provider::config::{
    CaFile, ModelRef, ProviderConfig, ProviderKind, StructuredOutput, TlsRoots, TlsSettings,
};
use crate::quiet::QuietSettings;
use crate::sources::Source;
use crate::storage::JournalRotation;
use crate::thread::ThreadName;
pub use paths::{config_path, expand_home, state_dir};

/// The default config written by `thinker init`, commented key by key.
pub const DEFAULT_CONFIG: &str = include_str!("../../config/default.toml");

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
    /// The last calls of the day's cap kept for urgent escalations.
    pub reserve: u32,
    /// The importance from which an escalation is urgent (its thread's most important
    /// finding, from sources the screen found nothing in).
    pub urgent_importance: u8,
    /// Domains a notification or note may link to though no source showed them
    /// (lowercased; subdomains included).
    pub trusted_domains: Vec<String>,
    /// Sends of one message (or nudge) tried before it is given up (the first included).
    pub delivery_attempts: u32,
    /// `[escalation.webhook]`: the built-in webhook notifier, instead of `notify_command`.
    pub webhook: Option<crate::escalation::webhook::WebhookSettings>,
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
            delivery_attempts: DEFAULT_DELIVERY_ATTEMPTS,
            webhook: None,
        }
    }
}

impl EscalationConfig {
    /// Whether `t` (local time) is in the escalation quiet hours.
    pub fn is_quiet(&self, t: NaiveTime) -> bool {
        self.quiet_hours.iter().any(|q| q.contains(t))
    }

    /// The configured path a message takes: the webhook, else the command, else none.
    pub fn notifier(&self) -> crate::escalation::notify::Notifier<'_> {
        crate::escalation::notify::Notifier::of(&self.notify_command, self.webhook.as_ref())
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
/// `escalation.delivery_attempts`: a failed send is tried again 1, 2 and 4 ticks later.
pub const DEFAULT_DELIVERY_ATTEMPTS: u32 = 4;
/// `tick.interval_minutes`: how often cron runs the tick (`thinker cron`'s line).
pub const DEFAULT_TICK_INTERVAL_MINUTES: u32 = crate::recall::DEFAULT_INTERVAL_MINUTES;
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
        let raw: raw::RawConfig = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: shown.clone(),
            message: e.to_string().trim_end().to_string(),
        })?;
        let base = path
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_default();
        validate::Validator {
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
}
