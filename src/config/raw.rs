//! The config file as written (SPEC §10): the `Raw*` serde types, one per table, every
//! key optional where the file may leave it out, unknown keys refused
//! (`deny_unknown_fields`).
//!
//! Owns only the shape of the file. Must not: check a value's range, resolve a path or
//! fill in a default (that is [`super::validate`]'s work, which names the key and its
//! line when a value is wrong).

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{ProviderKind, StructuredOutput, TlsRoots};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawConfig {
    #[serde(default)]
    pub(super) state: RawState,
    #[serde(default)]
    pub(super) memory: RawMemory,
    #[serde(default)]
    pub(super) tick: RawTick,
    #[serde(default)]
    pub(super) budget: RawBudget,
    #[serde(default)]
    pub(super) prompts: RawPrompts,
    #[serde(default)]
    pub(super) providers: BTreeMap<String, RawProvider>,
    #[serde(default)]
    pub(super) threads: RawThreads,
    #[serde(default)]
    pub(super) escalation: Option<RawEscalation>,
    #[serde(default)]
    pub(super) journal: RawJournal,
    #[serde(default)]
    pub(super) guard: RawGuard,
    #[serde(default)]
    pub(super) privacy: RawPrivacy,
    #[serde(default)]
    pub(super) recall: RawRecall,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPrivacy {
    pub(super) private_to: Option<crate::privacy::PrivateTo>,
}

/// `[recall]`: what an agent is given (`crate::recollect`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRecall {
    pub(super) max_bytes: Option<usize>,
    pub(super) max_entries: Option<usize>,
    pub(super) synonyms: Option<Vec<Vec<String>>>,
    pub(super) embeddings: Option<String>,
    pub(super) embeddings_timeout_ms: Option<u64>,
    pub(super) min_similarity: Option<f64>,
    pub(super) semantic_weight: Option<f64>,
    pub(super) due_horizon_days: Option<u32>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawGuard {
    pub(super) on_answer: Option<crate::untrusted::guard::OnAnswer>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawJournal {
    pub(super) rotate: Option<String>,
    pub(super) max_bytes: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawState {
    pub(super) dir: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMemory {
    pub(super) match_threshold: Option<f64>,
    pub(super) token_budget: Option<usize>,
    pub(super) min_importance: Option<u8>,
    pub(super) escalation_cooldown_minutes: Option<i64>,
    pub(super) escalation_history: Option<usize>,
    pub(super) rejected_memory_hours: Option<i64>,
    pub(super) max_decay_gap_minutes: Option<i64>,
    pub(super) due_grace_hours: Option<i64>,
    #[serde(default)]
    pub(super) caps: RawCaps,
    #[serde(default)]
    pub(super) decay_hours: RawDecayHours,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDecayHours {
    pub(super) active_threads: Option<f64>,
    pub(super) patterns: Option<f64>,
    pub(super) hunches: Option<f64>,
    pub(super) insights: Option<f64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCaps {
    pub(super) active_threads: Option<usize>,
    pub(super) patterns: Option<usize>,
    pub(super) hunches: Option<usize>,
    pub(super) insights: Option<usize>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTick {
    pub(super) deadline_seconds: Option<f64>,
    pub(super) thread_timeout_seconds: Option<f64>,
    pub(super) skip_unchanged: Option<bool>,
    pub(super) max_skipped: Option<u32>,
    pub(super) max_input_bytes: Option<u64>,
    pub(super) interval_minutes: Option<u32>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBudget {
    pub(super) daily_tokens: Option<u64>,
    pub(super) daily_cost: Option<f64>,
    pub(super) timezone: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPrompts {
    pub(super) dir: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawProvider {
    pub(super) kind: ProviderKind,
    pub(super) base_url: Option<String>,
    pub(super) api_key_env: Option<String>,
    pub(super) timeout_seconds: Option<f64>,
    pub(super) retries: Option<u32>,
    pub(super) retry_max_wait_seconds: Option<f64>,
    pub(super) requests_per_minute: Option<u32>,
    pub(super) concurrency: Option<u32>,
    pub(super) structured_output: Option<StructuredOutput>,
    pub(super) price_in: Option<f64>,
    pub(super) price_out: Option<f64>,
    pub(super) daily_tokens: Option<u64>,
    pub(super) daily_cost: Option<f64>,
    pub(super) dir: Option<String>,
    pub(super) anthropic_version: Option<String>,
    pub(super) max_response_bytes: Option<u64>,
    pub(super) breaker_failures: Option<u32>,
    pub(super) breaker_hours: Option<u32>,
    pub(super) redact: Option<bool>,
    pub(super) local: Option<bool>,
    pub(super) trusted: Option<bool>,
    pub(super) tls_roots: Option<TlsRoots>,
    pub(super) ca_file: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawThreads {
    pub(super) watcher: Option<RawThread>,
    pub(super) librarian: Option<RawThread>,
    pub(super) oracle: Option<RawThread>,
    pub(super) dreamer: Option<RawThread>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawThread {
    pub(super) model: String,
    #[serde(default)]
    pub(super) fallback: Vec<String>,
    pub(super) enabled: Option<bool>,
    pub(super) every: Option<u32>,
    #[serde(default)]
    pub(super) quiet_hours: Vec<String>,
    pub(super) timeout_seconds: Option<f64>,
    pub(super) max_tokens: Option<u32>,
    pub(super) temperature: Option<f32>,
    /// Read as tables and checked by [`super::validate::Validator::source`]: serde's internally tagged
    /// enums lose the span of a wrong value, so its key and line could not be named.
    /// Absent: the role's defaults ([`crate::sources::roles`]).
    pub(super) sources: Option<Vec<toml::Table>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEscalation {
    pub(super) model: Option<String>,
    #[serde(default)]
    pub(super) fallback: Vec<String>,
    #[serde(default)]
    pub(super) notify_command: Vec<String>,
    pub(super) memory_dir: Option<String>,
    pub(super) daily_cap: Option<u32>,
    pub(super) max_tokens: Option<u32>,
    pub(super) timeout_seconds: Option<f64>,
    pub(super) notify_timeout_seconds: Option<f64>,
    #[serde(default)]
    pub(super) quiet_hours: Vec<String>,
    pub(super) max_attempts: Option<u32>,
    pub(super) dismiss_memory_hours: Option<u32>,
    pub(super) reserve: Option<u32>,
    pub(super) urgent_importance: Option<u8>,
    #[serde(default)]
    pub(super) trusted_domains: Vec<String>,
    pub(super) delivery_attempts: Option<u32>,
    pub(super) webhook: Option<RawWebhook>,
}

/// `[escalation.webhook]`: the built-in webhook notifier (`crate::escalation::webhook`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawWebhook {
    pub(super) url: Option<String>,
    pub(super) url_env: Option<String>,
    pub(super) format: Option<crate::escalation::webhook::WebhookFormat>,
    pub(super) token_env: Option<String>,
    pub(super) title: Option<String>,
    pub(super) tls_roots: Option<TlsRoots>,
    pub(super) ca_file: Option<String>,
}
