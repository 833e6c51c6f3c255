//! Model providers (SPEC §9): one thin, typed layer over `reqwest` per wire format.
//!
//! Owns: the request each wire format is sent (`openai` chat completions, `anthropic`
//! Messages, `ollama` native chat, `replay` files), asking for the answer schema with each
//! format's structured-output feature, reading the answer text and the token usage,
//! costing it, the per-request timeout, retries with backoff that honour `Retry-After`,
//! requests-per-minute spacing, each provider's `concurrency` limit (a semaphore: a
//! request beyond it waits for a free slot *before* it is sent, so `timeout_seconds`
//! counts from sending), what a call is waiting for ([`Progress`], so a caller that gives
//! up on it can say why), the fallback chain, and keeping API keys out of every error,
//! `Debug` output and log line — and out of the answer itself: all provider text is
//! scrubbed of whole and partial echoes of the key before anything reads it.
//!
//! Hostile responses: a body is never read past `max_response_bytes`; decoding it and
//! the caller's `accept` run on the blocking pool, so CPU work never stalls the timers
//! of other calls on the same runtime; token counts are read tolerantly (unknown counts
//! the estimate) and clamped to what the request could use, with the attempt flagged.
//!
//! Decisions: retries cover connection errors, 408, 429 and 5xx, with exponential backoff
//! (0.5 s doubling, jittered, capped at `retry_max_wait`) or the server's `Retry-After`
//! (seconds, HTTP date, or `retry-after-ms`); a `Retry-After` longer than
//! `retry_max_wait` ends this model at once so the chain moves on; a timeout (the
//! provider's `timeout_seconds`, the whole exchange) is not retried, for the same
//! reason. A 2xx whose body cannot be read, a refusal, an empty answer and an answer cut
//! at the token limit are not retried either: the next model is asked. Keys are read
//! from the environment at each call, so a missing key fails only the models that need it.
//!
//! Does not own: what the answer means (see [`crate::answer`]; callers pass an `accept`
//! check to [`Providers::call_chain`]), budgets (callers pass a [`Gate`]), or the
//! journal (callers get every [`Attempt`]).

mod anthropic;
mod http;
mod ollama;
mod openai;
mod replay;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::Semaphore;

use crate::config::{ModelRef, ProviderConfig, ProviderKind};

/// What one model is asked.
#[derive(Clone, Debug, PartialEq)]
pub struct CallRequest {
    pub system: String,
    pub prompt: String,
    /// The JSON schema of the answer, for the provider's structured-output feature.
    pub schema: Value,
    /// The schema's name (OpenAI `json_schema.name`, the Anthropic tool's name). Characters
    /// outside `a-zA-Z0-9_-` are replaced by `_`, and it is cut to 64.
    pub schema_name: String,
    pub max_tokens: u32,
    pub temperature: f32,
    /// The tick number: a `replay` directory answers with its `(sequence - 1) mod n`th file.
    pub sequence: u64,
}

/// A model's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Completion {
    /// The answer as text; for a tool call, the tool's input serialized as JSON.
    pub text: String,
    /// The model that was asked.
    pub model: ModelRef,
    /// The model the server says answered (e.g. a dated snapshot); the asked model's name
    /// when the server does not say.
    pub served_model: String,
    pub tokens_in: u64,
    pub tokens_out: u64,
    /// USD, from the provider's `price_in` / `price_out`.
    pub cost: f64,
    /// From the first request to the answer, retries and their waits included (a wait for a
    /// free `concurrency` slot or for pacing too).
    pub latency: Duration,
    /// HTTP requests made (1 when the first one answered).
    pub attempts: u32,
}

/// One model tried by [`Providers::call_chain`], for the journal.
#[derive(Clone, Debug, PartialEq)]
pub struct Attempt {
    pub model: ModelRef,
    pub latency: Duration,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost: f64,
    /// HTTP requests made for this model (0 when it was skipped).
    pub tries: u32,
    /// The gate refused it: no request was made.
    pub skipped: bool,
    /// `None` when this model's answer was taken.
    pub error: Option<String>,
    /// The response reported more than the request could use (or a cost that is not a
    /// number): the bound was counted instead.
    pub usage_clamped: bool,
    /// The response did not say what it used (or said it unreadably): the estimate was
    /// counted.
    pub usage_estimated: bool,
}

/// Why a model gave no usable answer. No variant ever holds an API key: server text is
/// scrubbed of the key (whole or any 8-character run of it) and cut to 200 characters.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CallError {
    #[error("{model}: provider `{provider}` is not configured")]
    UnknownProvider { model: String, provider: String },
    #[error(
        "provider `{provider}`: the environment variable `{var}` that should hold its API key is {}",
        if *.empty { "empty" } else { "not set" }
    )]
    MissingKey {
        provider: String,
        var: String,
        empty: bool,
    },
    #[error("cannot build the HTTP client: {message}")]
    Client { message: String },
    #[error("{model}: cannot connect to {url}: {message}")]
    Connect {
        model: String,
        url: String,
        message: String,
    },
    #[error("{model}: no complete answer within {}s (the provider's timeout_seconds)", .after.as_secs_f64())]
    Timeout { model: String, after: Duration },
    #[error("{model}: HTTP {status}: {message}")]
    Http {
        model: String,
        status: u16,
        message: String,
    },
    #[error("{model}: rate limited (HTTP 429{}): {message}", match .retry_after {
        Some(d) => format!(", Retry-After {}s", d.as_secs_f64()),
        None => String::new(),
    })]
    RateLimited {
        model: String,
        retry_after: Option<Duration>,
        message: String,
    },
    #[error(
        "{model}: the answer was cut off at max_tokens ({max_tokens}); raise the thread's max_tokens or ask for less"
    )]
    Truncated { model: String, max_tokens: u32 },
    #[error("{model}: unusable response: {message}")]
    BadResponse { model: String, message: String },
    #[error("{model}: replay: {message}")]
    Replay { model: String, message: String },
    #[error("{model}: skipped, over budget: {message}")]
    OverBudget { model: String, message: String },
    #[error("{model}: the answer could not be read: {message}")]
    Unreadable { model: String, message: String },
    #[error("no model to call")]
    NoModels,
}

/// Budgets: asked before each model is called, told what each call used.
pub trait Gate: Send + Sync {
    /// `Err(why)` skips the model.
    fn admit(&self, provider: &ProviderConfig, estimated_tokens: u64) -> Result<(), String>;
    /// Called once after every call `admit` let through, failed ones included, with what
    /// the response reported it used (zeros when no response said: a connection error, a
    /// timeout, an HTTP error; the estimate when a 2xx did not say, or could not be read;
    /// clamped to what the request could use), so a reservation taken in `admit` can
    /// always be released.
    fn record(&self, provider: &ProviderConfig, tokens_in: u64, tokens_out: u64, cost: f64);
}

/// A gate that admits everything and records nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoGate;

impl Gate for NoGate {
    fn admit(&self, _: &ProviderConfig, _: u64) -> Result<(), String> {
        Ok(())
    }
    fn record(&self, _: &ProviderConfig, _: u64, _: u64, _: f64) {}
}

/// What [`Providers::call_chain`] did: the accepted answer (or the error that ended the
/// chain) and every model it tried, in order.
#[derive(Debug)]
pub struct ChainOutcome<T> {
    /// The accepted value and the completion it was read from; else the last model's
    /// error ([`CallError::OverBudget`] when every model was skipped by the gate).
    pub result: Result<(T, Completion), CallError>,
    pub attempts: Vec<Attempt>,
}

/// What a call is waiting for before its next request can be sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Waiting {
    /// All of the provider's `concurrency` slots are taken.
    Slot {
        provider: String,
        concurrency: u32,
        since: tokio::time::Instant,
    },
    /// The provider's `requests_per_minute` spacing.
    Pacing {
        provider: String,
        requests_per_minute: u32,
        since: tokio::time::Instant,
    },
}

/// Where a call is, shared with whoever runs it: set while it waits for a slot or for
/// pacing, cleared when it goes on. A caller that drops the call (a thread timeout) reads
/// it to say what the time went to.
#[derive(Debug, Default)]
pub struct Progress(Mutex<Option<Waiting>>);

impl Progress {
    fn set(&self, waiting: Option<Waiting>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = waiting;
    }

    /// What the call is waiting for now, if anything.
    pub fn waiting(&self) -> Option<Waiting> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// What the call is waiting for now, said for a person (`None`: not waiting; it was
    /// sending, reading, or backing off between retries).
    pub fn describe(&self) -> Option<String> {
        let now = tokio::time::Instant::now();
        self.waiting().map(|w| match w {
            Waiting::Slot {
                provider,
                concurrency,
                since,
            } => format!(
                "waited {:.1} s for a free slot of provider `{provider}` (concurrency {concurrency}); \
                 raise its concurrency if the server has more slots, or the thread's timeout_seconds",
                now.saturating_duration_since(since).as_secs_f64()
            ),
            Waiting::Pacing {
                provider,
                requests_per_minute,
                since,
            } => format!(
                "waited {:.1} s for requests_per_minute pacing of provider `{provider}` \
                 ({requests_per_minute} a minute); raise requests_per_minute or the thread's timeout_seconds",
                now.saturating_duration_since(since).as_secs_f64()
            ),
        })
    }
}

type EnvLookup = dyn Fn(&str) -> Option<String> + Send + Sync;

/// The configured providers and one shared HTTP client.
pub struct Providers {
    client: reqwest::Client,
    configs: BTreeMap<String, ProviderConfig>,
    /// Per provider, the earliest instant its next request may start.
    pacing: Mutex<HashMap<String, tokio::time::Instant>>,
    /// Per provider with a `concurrency` limit, its free slots.
    slots: HashMap<String, Arc<Semaphore>>,
    env: Arc<EnvLookup>,
}

impl fmt::Debug for Providers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Providers")
            .field("providers", &self.configs.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// Used, not sent: a call that the server answered, with what it used.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Usage {
    tokens_in: u64,
    tokens_out: u64,
    cost: f64,
    clamped: bool,
    estimated: bool,
}

/// One model's call, with what it used even when it failed.
struct Outcome {
    result: Result<Completion, CallError>,
    usage: Option<Usage>,
    latency: Duration,
    tries: u32,
}

impl Providers {
    /// Builds the shared HTTP client (installing the `ring` TLS provider if none is) over
    /// these providers. API keys are read from the environment at call time.
    pub fn new(configs: BTreeMap<String, ProviderConfig>) -> Result<Self, CallError> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder =
            reqwest::Client::builder().user_agent(concat!("thinker/", env!("CARGO_PKG_VERSION")));
        if !needs_tls(configs.values()) {
            // Loading the system's CA certificates (every file of /etc/ssl/certs) is most
            // of a tick's start-up (~10 of 14 ms); a config that speaks only plain http (a
            // local Ollama, llama.cpp, vLLM) never needs them. With no roots, an https URL
            // it is redirected to fails closed.
            builder = builder.tls_certs_only([]);
        }
        let client = builder.build().map_err(|e| CallError::Client {
            message: http::error_chain(&e),
        })?;
        let slots = configs
            .values()
            .filter_map(|c| {
                let n = usize::try_from(c.concurrency?).ok()?;
                Some((
                    c.name.clone(),
                    Arc::new(Semaphore::new(n.clamp(1, Semaphore::MAX_PERMITS))),
                ))
            })
            .collect();
        Ok(Providers {
            client,
            configs,
            pacing: Mutex::new(HashMap::new()),
            slots,
            env: Arc::new(|var| std::env::var(var).ok()),
        })
    }

    /// Replaces how environment variables are read (tests; embedding).
    #[must_use]
    pub fn with_env(
        mut self,
        env: impl Fn(&str) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.env = Arc::new(env);
        self
    }

    /// The provider's configuration.
    pub fn config(&self, provider: &str) -> Option<&ProviderConfig> {
        self.configs.get(provider)
    }

    /// Asks one model, retrying as its provider is configured to.
    pub async fn call(&self, model: &ModelRef, req: &CallRequest) -> Result<Completion, CallError> {
        self.run(model, req, &Progress::default()).await.result
    }

    /// Tries each model in order until one answers and `accept` takes its answer. Before
    /// each model the gate is asked (estimate: (system + prompt bytes) / 4 + max_tokens);
    /// after each admitted call it is told what that call used (see [`Gate::record`]).
    /// `replay` models are neither gated nor recorded: they cost nothing. `accept` sees the
    /// answer already scrubbed of the provider's key, and runs on the blocking pool, so a
    /// slow read never holds the timers of other calls on the same runtime.
    pub async fn call_chain<T, F>(
        &self,
        models: &[ModelRef],
        req: &CallRequest,
        gate: &dyn Gate,
        accept: F,
    ) -> ChainOutcome<T>
    where
        T: Send + 'static,
        F: Fn(&Completion) -> Result<T, String> + Send + Sync + 'static,
    {
        self.call_chain_with(models, req, gate, &Progress::default(), accept)
            .await
    }

    /// [`Providers::call_chain`], keeping `progress` up to date with what the call waits
    /// for, so a caller that gives up on it (a timeout) can say why.
    pub async fn call_chain_with<T, F>(
        &self,
        models: &[ModelRef],
        req: &CallRequest,
        gate: &dyn Gate,
        progress: &Progress,
        accept: F,
    ) -> ChainOutcome<T>
    where
        T: Send + 'static,
        F: Fn(&Completion) -> Result<T, String> + Send + Sync + 'static,
    {
        let accept = Arc::new(accept);
        let mut attempts = Vec::with_capacity(models.len());
        let mut last_error: Option<CallError> = None;
        let mut refused: Option<CallError> = None;
        let estimate = prompt_estimate(req).saturating_add(u64::from(req.max_tokens));
        for model in models {
            let config = self.configs.get(&model.provider);
            let gated = config.filter(|c| c.kind != ProviderKind::Replay);
            if let Some(config) = gated
                && let Err(why) = gate.admit(config, estimate)
            {
                tracing::debug!(provider = %model.provider, model = %model.model, reason = %why, "skipped by budget");
                let error = CallError::OverBudget {
                    model: model.to_string(),
                    message: why,
                };
                attempts.push(Attempt {
                    model: model.clone(),
                    latency: Duration::ZERO,
                    tokens_in: 0,
                    tokens_out: 0,
                    cost: 0.0,
                    tries: 0,
                    skipped: true,
                    error: Some(error.to_string()),
                    usage_clamped: false,
                    usage_estimated: false,
                });
                refused.get_or_insert(error);
                continue;
            }
            let outcome = self.run(model, req, progress).await;
            let usage = outcome.usage.unwrap_or_default();
            if let Some(config) = gated {
                gate.record(config, usage.tokens_in, usage.tokens_out, usage.cost);
            }
            let mut attempt = Attempt {
                model: model.clone(),
                latency: outcome.latency,
                tokens_in: usage.tokens_in,
                tokens_out: usage.tokens_out,
                cost: usage.cost,
                tries: outcome.tries,
                skipped: false,
                error: None,
                usage_clamped: usage.clamped,
                usage_estimated: usage.estimated,
            };
            let error = match outcome.result {
                Ok(completion) => {
                    let check = Arc::clone(&accept);
                    let verdict = tokio::task::spawn_blocking(move || {
                        let verdict = check(&completion);
                        (verdict, completion)
                    })
                    .await;
                    match verdict {
                        Ok((Ok(value), completion)) => {
                            attempts.push(attempt);
                            return ChainOutcome {
                                result: Ok((value, completion)),
                                attempts,
                            };
                        }
                        Ok((Err(message), _)) => CallError::Unreadable {
                            model: model.to_string(),
                            message: self.quote(config, &message),
                        },
                        Err(e) => CallError::Unreadable {
                            model: model.to_string(),
                            message: self.quote(config, &format!("the reader failed: {e}")),
                        },
                    }
                }
                Err(e) => e,
            };
            tracing::debug!(provider = %model.provider, model = %model.model, error = %error, "model failed");
            attempt.error = Some(error.to_string());
            attempts.push(attempt);
            last_error = Some(error);
        }
        ChainOutcome {
            result: Err(last_error.or(refused).unwrap_or(CallError::NoModels)),
            attempts,
        }
    }

    async fn run(&self, model: &ModelRef, req: &CallRequest, progress: &Progress) -> Outcome {
        let Some(config) = self.configs.get(&model.provider) else {
            return Outcome {
                result: Err(CallError::UnknownProvider {
                    model: model.to_string(),
                    provider: model.provider.clone(),
                }),
                usage: None,
                latency: Duration::ZERO,
                tries: 0,
            };
        };
        if config.kind == ProviderKind::Replay {
            let started = std::time::Instant::now();
            let result = replay::answer(config, model, req.sequence);
            return Outcome {
                result,
                usage: None,
                latency: started.elapsed(),
                tries: 0,
            };
        }
        http::call(self, config, model, req, progress).await
    }

    /// Waits for a free slot of this provider (none to wait for without a `concurrency`
    /// limit); the slot is held until the permit is dropped.
    async fn slot(
        &self,
        config: &ProviderConfig,
        progress: &Progress,
    ) -> Option<tokio::sync::SemaphorePermit<'_>> {
        let semaphore = self.slots.get(&config.name)?;
        if let Ok(permit) = semaphore.try_acquire() {
            return Some(permit);
        }
        progress.set(Some(Waiting::Slot {
            provider: config.name.clone(),
            concurrency: config.concurrency.unwrap_or(1),
            since: tokio::time::Instant::now(),
        }));
        tracing::debug!(provider = %config.name, "waiting for a free slot");
        // The semaphore is never closed, so this only fails if it were.
        let permit = semaphore.acquire().await.ok();
        progress.set(None);
        permit
    }

    /// `text` scrubbed of this provider's key and cut to an excerpt, for an error.
    fn quote(&self, config: Option<&ProviderConfig>, text: &str) -> String {
        let key = config.and_then(|c| self.key(c).ok().flatten());
        http::quote(text, key.as_ref())
    }

    fn key(&self, config: &ProviderConfig) -> Result<Option<http::ApiKey>, CallError> {
        let Some(var) = &config.api_key_env else {
            return Ok(None);
        };
        match (self.env)(var) {
            Some(v) if !v.trim().is_empty() => Ok(Some(http::ApiKey::new(v.trim()))),
            found => Err(CallError::MissingKey {
                provider: config.name.clone(),
                var: var.clone(),
                empty: found.is_some(),
            }),
        }
    }
}

/// Whether any HTTP provider's base URL is not plain `http://` (so may need TLS).
fn needs_tls<'a>(configs: impl IntoIterator<Item = &'a ProviderConfig>) -> bool {
    configs.into_iter().any(|c| {
        c.kind != ProviderKind::Replay
            && !c
                .base_url
                .get(..7)
                .is_some_and(|scheme| scheme.eq_ignore_ascii_case("http://"))
    })
}

/// The schema name as the wire formats accept it: `a-zA-Z0-9_-`, at most 64 characters.
fn wire_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if cleaned.is_empty() {
        "answer".into()
    } else {
        cleaned
    }
}

/// The chain's estimate of a request's prompt tokens: (system + prompt bytes) / 4.
fn prompt_estimate(req: &CallRequest) -> u64 {
    (req.system.len().saturating_add(req.prompt.len()) / 4) as u64
}

/// USD for this usage at the provider's prices (per million tokens); the caller treats a
/// non-finite result as 0.
pub fn cost(config: &ProviderConfig, tokens_in: u64, tokens_out: u64) -> f64 {
    tokens_in as f64 * config.price_in / 1e6 + tokens_out as f64 * config.price_out / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_is_set_up_only_for_urls_that_may_need_it() {
        let config = |kind, url: &str| {
            let text = format!("[providers.p]\nkind = \"{kind}\"\nbase_url = \"{url}\"\n");
            crate::config::Config::parse(&text, None).unwrap().providers["p"].clone()
        };
        let local = config("openai", "http://127.0.0.1:8080/v1");
        let upper = config("ollama", "HTTP://nas.lan:11434");
        let replay = ProviderConfig {
            kind: ProviderKind::Replay,
            base_url: String::new(),
            ..local.clone()
        };
        assert!(!needs_tls([&local, &upper, &replay]));
        assert!(needs_tls([
            &local,
            &config("anthropic", "https://api.anthropic.com")
        ]));
        assert!(!needs_tls([]));
    }

    #[test]
    fn wire_names_are_cleaned() {
        assert_eq!(wire_name("watcher answer!"), "watcher_answer_");
        assert_eq!(wire_name(""), "answer");
        assert_eq!(wire_name(&"x".repeat(80)).len(), 64);
    }
}
