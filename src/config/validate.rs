//! Validation (SPEC §10): [`Validator`] turns the file as written ([`super::raw`]) into
//! the [`Config`] the rest of the program trusts, table by table: the defaults and ranges
//! of every key but a source's and a provider's own ([`super::providers`]), relative
//! paths resolved against the file's directory, `~` expanded ([`super::paths`]).
//!
//! Every number is range-checked before it is converted (`Duration`, `TimeDelta`), so no
//! value can panic or overflow later. A source's keys belong to its kind
//! (`sources::Source::from_table` checks them); this module adds the source's place and
//! the line to their errors. Must not: read the file or the environment (beyond `~`),
//! or hold a value unchecked.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::NaiveTime;

use super::lookup::key_line;
use super::paths::expand_home;
use super::raw::{
    RawConfig, RawEscalation, RawJournal, RawMemory, RawRecall, RawThread, RawThreads,
};
use super::{
    Config, ConfigError, DEFAULT_DISMISS_MEMORY_HOURS, DEFAULT_ESCALATION_RESERVE,
    DEFAULT_ESCALATION_TIMEOUT, DEFAULT_ESCALATIONS_PER_DAY, DEFAULT_JOURNAL_MAX_BYTES,
    DEFAULT_MAX_ATTEMPTS, DEFAULT_MAX_INPUT_BYTES, DEFAULT_MAX_TOKENS, DEFAULT_NOTIFY_TIMEOUT,
    DEFAULT_TEMPERATURE, DEFAULT_THREAD_TIMEOUT, DEFAULT_TICK_DEADLINE, DEFAULT_URGENT_IMPORTANCE,
    EscalationConfig, JOURNAL_MAX_BYTES_RANGE, MAX_INPUT_BYTES_RANGE, ModelRef, ProviderConfig,
    ProviderKind, QuietHours, SourceConfig, ThreadConfig,
};
use crate::aggregate::{Caps, Decay, Settings};
use crate::quiet::{DEFAULT_MAX_SKIPPED, QuietSettings};
use crate::sources::{PathError, Source, roles};
use crate::storage::JournalRotation;
use crate::thread::ThreadName;

// Bounds of the numeric keys: generous, but far from where arithmetic on them could
// overflow or a conversion (`Duration`, `TimeDelta`) could panic.
/// Any duration in seconds: at most a day.
pub(super) const MAX_SECONDS: f64 = 86_400.0;
/// `escalation_cooldown_minutes`: at most a year.
const MAX_COOLDOWN_MINUTES: i64 = 525_600;
/// `price_in` / `price_out`, USD per million tokens.
pub(super) const MAX_PRICE: f64 = 1_000_000.0;
/// `daily_cost`, USD.
pub(super) const MAX_DAILY_COST: f64 = 1_000_000_000.0;
/// `max_tokens` (at least 16: a shorter answer cannot hold the schema).
const MAX_TOKENS_RANGE: std::ops::RangeInclusive<u32> = 16..=1_000_000;
/// Caps, histories, entries, escalations per day: counts of small things.
const MAX_COUNT: usize = 1000;
/// `memory.decay_hours.*`: at most a year for one point.
const MAX_DECAY_HOURS: f64 = 8760.0;

pub(super) struct Validator<'a> {
    pub(super) path: PathBuf,
    pub(super) base: PathBuf,
    /// The file's text, to find the line of a key an error names.
    pub(super) text: &'a str,
}

impl Validator<'_> {
    pub(super) fn err(&self, key: impl Into<String>, message: impl Into<String>) -> ConfigError {
        let key = key.into();
        ConfigError::Invalid {
            path: self.path.clone(),
            line: key_line(self.text, &key),
            key,
            message: message.into(),
        }
    }

    /// A path from the file: `~` expanded, relative to the file's directory.
    pub(super) fn resolve(&self, key: &str, p: &str) -> Result<PathBuf, ConfigError> {
        self.resolve_path(p)
            .map_err(|e| self.err(key, e.to_string()))
    }

    /// [`Validator::resolve`] without a key: the error says only why.
    pub(super) fn resolve_path(&self, p: &str) -> Result<PathBuf, PathError> {
        let expanded = expand_home(p)?;
        Ok(if expanded.is_absolute() {
            expanded
        } else {
            self.base.join(expanded)
        })
    }

    pub(super) fn seconds(
        &self,
        key: &str,
        v: Option<f64>,
        default: f64,
    ) -> Result<Duration, ConfigError> {
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
    pub(super) fn non_negative(
        &self,
        key: &str,
        v: Option<f64>,
    ) -> Result<Option<f64>, ConfigError> {
        match v {
            Some(x) if !(x.is_finite() && x >= 0.0) => {
                Err(self.err(key, format!("{x} must be a number of 0 or more")))
            }
            other => Ok(other),
        }
    }

    /// A money amount (USD): finite, from 0 to `max`.
    pub(super) fn money(
        &self,
        key: &str,
        v: Option<f64>,
        max: f64,
    ) -> Result<Option<f64>, ConfigError> {
        match self.non_negative(key, v)? {
            Some(x) if x > max => Err(self.err(
                key,
                format!("{x} is out of range: must be a number from 0 to {max}"),
            )),
            other => Ok(other),
        }
    }

    /// An integer key within `range` (inclusive), `default` when left out.
    pub(super) fn int<T>(
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
    pub(super) fn config(
        &self,
        raw: RawConfig,
        path: Option<&Path>,
    ) -> Result<Config, ConfigError> {
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
        let mut recall = self.recall(raw.recall, &providers, privacy.private_to)?;
        let interval = self.int(
            "tick.interval_minutes",
            raw.tick.interval_minutes,
            super::DEFAULT_TICK_INTERVAL_MINUTES,
            1..=1440,
        )?;
        let max_skipped = self.int(
            "tick.max_skipped",
            raw.tick.max_skipped,
            DEFAULT_MAX_SKIPPED,
            1..=100_000,
        )?;
        // The most ticks a healthy thinker goes without applying one: its most frequent
        // thread's cadence, times the quiet tick's skips.
        let every = threads
            .iter()
            .flatten()
            .filter(|t| t.enabled)
            .map(|t| t.every)
            .min()
            .unwrap_or(1);
        let skips = if raw.tick.skip_unchanged.unwrap_or(true) {
            max_skipped.saturating_add(1)
        } else {
            1
        };
        recall.stale_after =
            crate::recall::stale_after(interval, every.max(1).saturating_mul(skips));
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
                max_skipped,
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
    /// `ollama` provider), sent what `[privacy] private_to` lets its provider see (SPEC
    /// §9: `crate::embeddings::Sending`).
    fn recall(
        &self,
        r: RawRecall,
        providers: &BTreeMap<String, ProviderConfig>,
        private_to: crate::privacy::PrivateTo,
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
                    private_to,
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
            // Set from `[tick]` once the threads are known.
            stale_after: defaults.stale_after,
            due_horizon_days: self.int(
                "recall.due_horizon_days",
                r.due_horizon_days,
                defaults.due_horizon_days,
                1..=366,
            )?,
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
                format!("{threshold} must be above 0 and at most 1 (default 0.65)"),
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
            ref_match_threshold: d.ref_match_threshold,
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
        let delivery_attempts = self.int(
            "escalation.delivery_attempts",
            e.delivery_attempts,
            super::DEFAULT_DELIVERY_ATTEMPTS,
            1..=10,
        )?;
        let webhook = e.webhook.map(|w| self.webhook(w)).transpose()?;
        if webhook.is_some() && !e.notify_command.is_empty() {
            return Err(self.err(
                "escalation.webhook",
                "both notify_command and [escalation.webhook] are set: a message takes one path; remove one",
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
            delivery_attempts,
            webhook,
        };
        Ok((config, chrono::TimeDelta::hours(i64::from(hours))))
    }

    /// `[escalation.webhook]`: exactly one of `url` and `url_env`, an http(s) URL, the
    /// names (never the values) of its variables, its TLS trust (`ca_file` read now).
    fn webhook(
        &self,
        w: super::raw::RawWebhook,
    ) -> Result<crate::escalation::webhook::WebhookSettings, ConfigError> {
        use crate::escalation::webhook::{DEFAULT_TITLE, UrlSource, WebhookSettings};
        let var_name = |key: &str, v: &str| {
            if v.is_empty()
                || v.contains('=')
                || v.chars().any(char::is_whitespace)
                || v.contains("://")
            {
                Err(self.err(
                    key,
                    "must be the NAME of an environment variable, not its value",
                ))
            } else {
                Ok(v.to_string())
            }
        };
        let url = match (w.url, w.url_env) {
            (Some(_), Some(_)) => {
                return Err(self.err(
                    "escalation.webhook.url_env",
                    "give the URL in `url` or the name of its variable in `url_env`, not both",
                ));
            }
            (None, None) => {
                return Err(self.err(
                    "escalation.webhook",
                    "needs `url` (e.g. \"https://ntfy.sh/your-topic\"), or `url_env` naming the variable that holds it",
                ));
            }
            (Some(url), None) => {
                let ok = reqwest::Url::parse(url.trim()).is_ok_and(|u| {
                    matches!(u.scheme(), "http" | "https") && u.host_str().is_some()
                });
                if !ok {
                    return Err(self.err(
                        "escalation.webhook.url",
                        "is not an http:// or https:// URL",
                    ));
                }
                UrlSource::Given(url.trim().to_string())
            }
            (None, Some(var)) => UrlSource::Env(var_name("escalation.webhook.url_env", &var)?),
        };
        let token_env = w
            .token_env
            .map(|v| var_name("escalation.webhook.token_env", &v))
            .transpose()?;
        let ca_file = match w.ca_file.as_deref() {
            Some(file) => {
                let key = "escalation.webhook.ca_file";
                let path = self.resolve(key, file)?;
                Some(
                    crate::provider::config::CaFile::read(&path)
                        .map_err(|e| self.err(key, e.to_string()))?,
                )
            }
            None => None,
        };
        let title = crate::untrusted::clean_line(w.title.as_deref().unwrap_or(DEFAULT_TITLE))
            .trim()
            .to_string();
        Ok(WebhookSettings {
            url,
            format: w.format.unwrap_or_default(),
            token_env,
            title: if title.is_empty() {
                DEFAULT_TITLE.to_string()
            } else {
                title
            },
            tls: crate::provider::config::TlsSettings {
                roots: w.tls_roots.unwrap_or_default(),
                ca_file,
            },
        })
    }
}

fn parse_quiet_hours(text: &str) -> Option<QuietHours> {
    let (a, b) = text.split_once('-')?;
    let from = NaiveTime::parse_from_str(a.trim(), "%H:%M").ok()?;
    let to = NaiveTime::parse_from_str(b.trim(), "%H:%M").ok()?;
    Some(QuietHours { from, to })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DEFAULT_CONFIG;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Some(Path::new("/etc/thinker/config.toml")))
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
            "tick.interval_minutes",
            "u32",
            "[tick]\ninterval_minutes = {v}\n",
        ),
        (
            "escalation.delivery_attempts",
            "u32",
            "[escalation]\ndelivery_attempts = {v}\n",
        ),
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
            "interval_minutes",
            "delivery_attempts",
        ] {
            assert!(
                NUMERIC_KEYS.iter().any(|(k, _, _)| k.ends_with(key)),
                "{key}"
            );
            assert!(DEFAULT_CONFIG.contains(key), "{key} is not documented");
        }
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
        // Regression: `timeout_seconds = -3` must not be corrected silently, and
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
}
