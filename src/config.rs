//! Configuration (SPEC §10): the TOML file as written (`Raw*` types, serde, unknown keys
//! refused) and the validated [`Config`] the rest of the program trusts.
//!
//! Owns where the config and the state directory are found (`--config`, then
//! `$THINKER_CONFIG`, then the XDG config dir; `--state`, then `[state] dir`, then the
//! XDG data dir), the defaults of every key, and error messages that name the key.
//! Relative paths in the file are relative to the file's own directory.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::NaiveTime;
use serde::Deserialize;

use crate::aggregate::{Caps, Settings};
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
    #[error("config {path}: `{key}`: {message}")]
    Invalid {
        path: PathBuf,
        key: String,
        message: String,
    },
    #[error("cannot find a home directory: set $HOME, or pass --config and --state")]
    NoHome,
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
    #[serde(default)]
    caps: RawCaps,
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
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBudget {
    daily_tokens: Option<u64>,
    daily_cost: Option<f64>,
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
    structured_output: Option<StructuredOutput>,
    price_in: Option<f64>,
    price_out: Option<f64>,
    daily_tokens: Option<u64>,
    daily_cost: Option<f64>,
    dir: Option<String>,
    anthropic_version: Option<String>,
    max_response_bytes: Option<u64>,
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
    #[serde(default)]
    sources: Vec<SourceConfig>,
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
}

// ---------------------------------------------------------------------------------------
// Validated.

/// The wire format a provider speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    Openai,
    Anthropic,
    Ollama,
    Replay,
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProviderKind::Openai => "openai",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Ollama => "ollama",
            ProviderKind::Replay => "replay",
        })
    }
}

/// How a provider is asked for the answer schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StructuredOutput {
    /// The kind's best feature: OpenAI `json_schema`, Anthropic forced tool use, Ollama
    /// `format` with the schema.
    Auto,
    /// OpenAI `response_format: {"type": "json_schema", ...}`.
    JsonSchema,
    /// OpenAI `{"type": "json_object", "schema": ...}` (llama-cpp-python's server).
    JsonObjectSchema,
    /// OpenAI `{"type": "json_object"}`; Ollama `format: "json"`.
    JsonObject,
    /// Anthropic forced tool use (the default for that kind).
    Tool,
    /// No structured-output parameter; the prompt alone asks for JSON.
    None,
}

impl StructuredOutput {
    /// The name used in the config file.
    pub fn as_str(self) -> &'static str {
        match self {
            StructuredOutput::Auto => "auto",
            StructuredOutput::JsonSchema => "json_schema",
            StructuredOutput::JsonObjectSchema => "json_object_schema",
            StructuredOutput::JsonObject => "json_object",
            StructuredOutput::Tool => "tool",
            StructuredOutput::None => "none",
        }
    }
}

/// One configured provider.
#[derive(Clone, Debug, PartialEq)]
pub struct ProviderConfig {
    pub name: String,
    pub kind: ProviderKind,
    /// Without a trailing slash.
    pub base_url: String,
    /// The environment variable that holds the API key (never the key itself).
    pub api_key_env: Option<String>,
    pub timeout: Duration,
    pub retries: u32,
    pub retry_max_wait: Duration,
    pub requests_per_minute: Option<u32>,
    pub structured_output: StructuredOutput,
    /// USD per million input tokens.
    pub price_in: f64,
    /// USD per million output tokens.
    pub price_out: f64,
    pub daily_tokens: Option<u64>,
    pub daily_cost: Option<f64>,
    /// `replay` only: where answers are read from.
    pub replay_dir: Option<PathBuf>,
    pub anthropic_version: String,
    /// The most bytes of one response body that are read; a 2xx body that passes it
    /// fails the model.
    pub max_response_bytes: usize,
}

/// `provider/model`, as a thread's `model` and `fallback` name it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ModelRef {
    pub provider: String,
    pub model: String,
}

impl fmt::Display for ModelRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.provider, self.model)
    }
}

/// A source a thread reads (SPEC §6).
#[derive(Clone, Debug, PartialEq, Deserialize, serde::Serialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum SourceConfig {
    /// A command's output: `command = ["df", "-h"]`.
    Command {
        name: Option<String>,
        command: Vec<String>,
        timeout_seconds: Option<f64>,
        max_bytes: Option<usize>,
    },
    /// Files matching globs, those changed since the last tick called out.
    Files {
        name: Option<String>,
        paths: Vec<String>,
        max_bytes: Option<usize>,
    },
    /// Load, memory and disk of this machine.
    System { name: Option<String> },
    /// The tail of the agent's conversation log.
    Transcript {
        name: Option<String>,
        path: String,
        max_bytes: Option<usize>,
    },
    /// Forgotten entries from `archive.jsonl` that resemble what is remembered now.
    Archive {
        name: Option<String>,
        max_entries: Option<usize>,
    },
}

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
    pub sources: Vec<SourceConfig>,
}

/// `[escalation]`.
#[derive(Clone, Debug, PartialEq)]
pub struct EscalationConfig {
    pub models: Vec<ModelRef>,
    pub notify_command: Vec<String>,
    pub memory_dir: Option<PathBuf>,
    pub daily_cap: u32,
    pub max_tokens: u32,
    pub timeout: Duration,
}

/// The validated configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// The file it was read from (`None`: built-in defaults).
    pub path: Option<PathBuf>,
    pub state_dir: Option<PathBuf>,
    pub memory: Settings,
    pub tick_deadline: Duration,
    pub daily_tokens: Option<u64>,
    pub daily_cost: Option<f64>,
    pub prompts_dir: Option<PathBuf>,
    pub providers: BTreeMap<String, ProviderConfig>,
    /// Indexed by [`ThreadName::index`]; `None` when the thread is not configured.
    pub threads: [Option<ThreadConfig>; 4],
    pub escalation: Option<EscalationConfig>,
}

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
        Validator { path: shown, base }.config(raw, path)
    }

    /// The thread's configuration, if it is configured.
    pub fn thread(&self, thread: ThreadName) -> Option<&ThreadConfig> {
        self.threads[thread.index()].as_ref()
    }
}

struct Validator {
    path: PathBuf,
    base: PathBuf,
}

impl Validator {
    fn err(&self, key: impl Into<String>, message: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            path: self.path.clone(),
            key: key.into(),
            message: message.into(),
        }
    }

    fn resolve(&self, p: &str) -> PathBuf {
        let expanded = expand_home(p);
        if expanded.is_absolute() {
            expanded
        } else {
            self.base.join(expanded)
        }
    }

    fn seconds(&self, key: &str, v: Option<f64>, default: f64) -> Result<Duration, ConfigError> {
        let s = v.unwrap_or(default);
        if !(s.is_finite() && s > 0.0 && s <= 86_400.0) {
            return Err(self.err(
                key,
                format!("{s} is not a number of seconds between 0 and 86400"),
            ));
        }
        Ok(Duration::from_secs_f64(s))
    }

    fn non_negative(&self, key: &str, v: Option<f64>) -> Result<Option<f64>, ConfigError> {
        match v {
            Some(x) if !(x.is_finite() && x >= 0.0) => {
                Err(self.err(key, format!("{x} must be a number of 0 or more")))
            }
            other => Ok(other),
        }
    }

    fn config(&self, raw: RawConfig, path: Option<&Path>) -> Result<Config, ConfigError> {
        let memory = self.memory(&raw.memory)?;
        let mut providers = BTreeMap::new();
        for (name, p) in raw.providers {
            let provider = self.provider(&name, p)?;
            providers.insert(name, provider);
        }
        let RawThreads {
            watcher,
            librarian,
            oracle,
            dreamer,
        } = raw.threads;
        let thread_timeout = raw.tick.thread_timeout_seconds;
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
        let escalation = match raw.escalation {
            Some(e) => self.escalation(e, &providers)?,
            None => None,
        };
        Ok(Config {
            path: path.map(Path::to_path_buf),
            state_dir: raw.state.dir.as_deref().map(|d| self.resolve(d)),
            memory,
            tick_deadline: self.seconds(
                "tick.deadline_seconds",
                raw.tick.deadline_seconds,
                DEFAULT_TICK_DEADLINE,
            )?,
            daily_tokens: raw.budget.daily_tokens,
            daily_cost: self.non_negative("budget.daily_cost", raw.budget.daily_cost)?,
            prompts_dir: raw.prompts.dir.as_deref().map(|d| self.resolve(d)),
            providers,
            threads,
            escalation,
        })
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
        let importance = m.min_importance.unwrap_or(d.min_importance);
        if importance > 10 {
            return Err(self.err("memory.min_importance", "must be from 0 to 10 (default 3)"));
        }
        let cooldown = m
            .escalation_cooldown_minutes
            .unwrap_or(d.escalation_cooldown.num_minutes());
        if cooldown < 0 {
            return Err(self.err("memory.escalation_cooldown_minutes", "must be 0 or more"));
        }
        let dc = d.caps;
        Ok(Settings {
            match_threshold: threshold,
            caps: Caps {
                active_threads: m.caps.active_threads.unwrap_or(dc.active_threads),
                patterns: m.caps.patterns.unwrap_or(dc.patterns),
                hunches: m.caps.hunches.unwrap_or(dc.hunches),
                insights: m.caps.insights.unwrap_or(dc.insights),
            },
            token_budget: m.token_budget.unwrap_or(d.token_budget),
            escalation_cooldown: chrono::TimeDelta::minutes(cooldown),
            escalation_history: m.escalation_history.unwrap_or(d.escalation_history),
            min_importance: importance,
        })
    }

    fn provider(&self, name: &str, p: RawProvider) -> Result<ProviderConfig, ConfigError> {
        let key = |k: &str| format!("providers.{name}.{k}");
        if name.is_empty() || name.contains('/') {
            return Err(self.err(
                format!("providers.{name}"),
                "a provider name cannot be empty or contain `/`",
            ));
        }
        let base_url = match (p.kind, p.base_url) {
            (_, Some(url)) => {
                let parsed = reqwest::Url::parse(&url)
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
        if let Some(env) = &p.api_key_env
            && (env.is_empty() || env.contains('=') || env.chars().any(char::is_whitespace))
        {
            {
                return Err(self.err(
                    key("api_key_env"),
                    "must be the NAME of an environment variable, not the key itself",
                ));
            }
        }
        let structured_output = p.structured_output.unwrap_or(StructuredOutput::Auto);
        let allowed: &[StructuredOutput] = match p.kind {
            ProviderKind::Openai => &[
                StructuredOutput::JsonSchema,
                StructuredOutput::JsonObjectSchema,
                StructuredOutput::JsonObject,
            ],
            ProviderKind::Anthropic => &[StructuredOutput::Tool],
            ProviderKind::Ollama => &[StructuredOutput::JsonSchema, StructuredOutput::JsonObject],
            ProviderKind::Replay => &[],
        };
        if !matches!(
            structured_output,
            StructuredOutput::Auto | StructuredOutput::None
        ) && !allowed.contains(&structured_output)
        {
            return Err(self.err(
                key("structured_output"),
                format!(
                    "not available for kind {}; use one of: {}",
                    p.kind,
                    ["auto", "none"]
                        .into_iter()
                        .chain(allowed.iter().map(|s| s.as_str()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        let replay_dir = match (p.kind, p.dir) {
            (ProviderKind::Replay, Some(d)) => Some(self.resolve(&d)),
            (ProviderKind::Replay, None) => {
                return Err(self.err(
                    key("dir"),
                    "a replay provider needs dir, the directory its answers are read from",
                ));
            }
            (_, Some(_)) => return Err(self.err(key("dir"), "only replay providers take dir")),
            (_, None) => None,
        };
        Ok(ProviderConfig {
            name: name.to_string(),
            kind: p.kind,
            base_url,
            api_key_env: p.api_key_env,
            timeout: self.seconds(
                &key("timeout_seconds"),
                p.timeout_seconds,
                DEFAULT_PROVIDER_TIMEOUT,
            )?,
            retries: p.retries.unwrap_or(2).min(10),
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
                other => other,
            },
            structured_output,
            price_in: self
                .non_negative(&key("price_in"), p.price_in)?
                .unwrap_or(0.0),
            price_out: self
                .non_negative(&key("price_out"), p.price_out)?
                .unwrap_or(0.0),
            daily_tokens: p.daily_tokens,
            daily_cost: self.non_negative(&key("daily_cost"), p.daily_cost)?,
            replay_dir,
            anthropic_version: p.anthropic_version.unwrap_or_else(|| "2023-06-01".into()),
            max_response_bytes: match p.max_response_bytes {
                None => DEFAULT_MAX_RESPONSE_BYTES,
                Some(n) if MAX_RESPONSE_BYTES_RANGE.contains(&n) => n as usize,
                Some(n) => {
                    return Err(self.err(
                        key("max_response_bytes"),
                        format!(
                            "{n} is out of range: give between {} (1 KiB) and {} (1 GiB) bytes",
                            MAX_RESPONSE_BYTES_RANGE.start(),
                            MAX_RESPONSE_BYTES_RANGE.end()
                        ),
                    ));
                }
            },
        })
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
                format!(
                    "`{text}` must be \"provider/model\", e.g. \"groq/llama-3.3-70b-versatile\""
                ),
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
        let quiet_hours = t
            .quiet_hours
            .iter()
            .enumerate()
            .map(|(i, q)| {
                parse_quiet_hours(q).ok_or_else(|| {
                    self.err(
                        format!("{}[{i}]", key("quiet_hours")),
                        format!("`{q}` must look like \"22:30-07:00\""),
                    )
                })
            })
            .collect::<Result<_, _>>()?;
        let temperature = t.temperature.unwrap_or(DEFAULT_TEMPERATURE);
        if !(0.0..=2.0).contains(&temperature) {
            return Err(self.err(key("temperature"), "must be from 0 to 2"));
        }
        let sources = t
            .sources
            .into_iter()
            .map(|s| self.source(s))
            .collect::<Vec<_>>();
        for (i, s) in sources.iter().enumerate() {
            if let SourceConfig::Command { command, .. } = s
                && command.is_empty()
            {
                {
                    return Err(self.err(
                        format!("{}[{i}].command", key("sources")),
                        "needs at least the program, e.g. [\"df\", \"-h\"]",
                    ));
                }
            }
        }
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
            max_tokens: t.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS).max(16),
            temperature,
            sources,
        })
    }

    /// Resolves the paths inside a source relative to the config file.
    fn source(&self, s: SourceConfig) -> SourceConfig {
        match s {
            SourceConfig::Files {
                name,
                paths,
                max_bytes,
            } => SourceConfig::Files {
                name,
                paths: paths
                    .iter()
                    .map(|p| self.resolve(p).to_string_lossy().into_owned())
                    .collect(),
                max_bytes,
            },
            SourceConfig::Transcript {
                name,
                path,
                max_bytes,
            } => SourceConfig::Transcript {
                name,
                path: self.resolve(&path).to_string_lossy().into_owned(),
                max_bytes,
            },
            other => other,
        }
    }

    fn escalation(
        &self,
        e: RawEscalation,
        providers: &BTreeMap<String, ProviderConfig>,
    ) -> Result<Option<EscalationConfig>, ConfigError> {
        let Some(model) = e.model else {
            return Ok(None);
        };
        let mut models = vec![self.model_ref("escalation.model", &model, providers)?];
        for (i, f) in e.fallback.iter().enumerate() {
            models.push(self.model_ref(&format!("escalation.fallback[{i}]"), f, providers)?);
        }
        Ok(Some(EscalationConfig {
            models,
            notify_command: e.notify_command,
            memory_dir: e.memory_dir.as_deref().map(|d| self.resolve(d)),
            daily_cap: e.daily_cap.unwrap_or(DEFAULT_ESCALATIONS_PER_DAY),
            max_tokens: e.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
            timeout: self.seconds("escalation.timeout_seconds", e.timeout_seconds, 120.0)?,
        }))
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

/// Expands a leading `~/`.
pub fn expand_home(p: &str) -> PathBuf {
    match (p.strip_prefix("~/"), home()) {
        (Some(rest), Some(h)) => h.join(rest),
        _ if p == "~" => home().unwrap_or_else(|| PathBuf::from(p)),
        _ => PathBuf::from(p),
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
}
