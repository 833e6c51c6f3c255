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
//! Hostile responses: a body is never read past `max_response_bytes`; decoding a body
//! over 64 KiB and the caller's `accept` on it run on the blocking pool, so CPU work
//! never stalls the timers of other calls on the same runtime; token counts are read
//! tolerantly (unknown counts the estimate) and clamped to what the request could use,
//! with the attempt flagged.
//!
//! Decisions: retries cover connection errors, 408, 429 and 5xx, with exponential backoff
//! (0.5 s doubling, jittered, capped at `retry_max_wait`) or the server's `Retry-After`
//! (seconds, HTTP date, or `retry-after-ms`); a `Retry-After` longer than
//! `retry_max_wait` ends this model at once so the chain moves on; a timeout (the
//! provider's `timeout_seconds`, the whole exchange) is not retried, for the same
//! reason. A redirect is never followed (every client is built so, by
//! `transport::build_client`): a 3xx is [`CallError::Redirect`], naming where it
//! pointed, and not retried. A 2xx whose body cannot be read, a refusal, an empty answer
//! and an answer cut at the token limit are not retried either: the next model is asked. Keys are read
//! from the environment at each call, so a missing key fails only the models that need it.
//!
//! Does not own: what the answer means (see [`crate::answer`]; callers pass an `accept`
//! check to [`Providers::call_chain`]), budgets (callers pass a [`Gate`]), or the
//! journal (callers get every [`Attempt`]).
//!
//! Layout: this module keeps [`Providers`] (the configured providers, their keys, one
//! model's call: replay or HTTP) and the public types; `chain` the fallback chain;
//! `transport` sending (the HTTP clients, one per TLS trust, built on first use; concurrency slots, pacing, timeouts, retries,
//! `Retry-After`, capped bodies, reading off the runtime thread); `wire` what a wire
//! format is given and gives back and the `wire::WireFormat` seam; `openai`,
//! `anthropic`, `ollama` one wire format each (importing only `wire`); `replay` answers
//! from files; `key` the API key and its scrubbing; `usage` counting and pricing; `error`
//! and `progress` their types. A new wire format is one file implementing `WireFormat` and
//! one arm in `wire_format`.

mod anthropic;
pub mod breaker;
mod chain;
pub mod config;
mod error;
mod key;
mod ollama;
mod openai;
mod progress;
mod refusal;
mod replay;
mod transport;
mod usage;
pub(crate) mod wire;

/// The HTTP client of a TLS trust, for the embeddings endpoint (`crate::embeddings`).
pub(crate) use transport::{build_client, error_chain};

use crate::egress::{self, Egress, Outgoing};
use crate::privacy::PrivateTo;
use crate::untrusted::alias::Aliases;
use crate::untrusted::names::KnownNames;
use crate::untrusted::redact::{RedactionKey, Redactor};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

pub use self::chain::ChainOutcome;
pub use self::error::CallError;
pub use self::progress::{Progress, Waiting};
pub use self::refusal::{Cause, Refusal, Scope};
pub use self::usage::cost;
pub use self::wire::CallRequest;

pub use self::key::ApiKey;
use self::transport::Transport;
use self::usage::Usage;
use self::wire::WireFormat;
use crate::provider::config::{ModelRef, ProviderConfig, ProviderKind};

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
    /// What left the machine for this model (SPEC §9); `None` when nothing was sent (a
    /// skipped model, a `replay` provider).
    pub egress: Option<Egress>,
}

/// Budgets: asked before each model is called, told what each call used.
pub trait Gate: Send + Sync {
    /// `Err(why)` skips the model.
    fn admit(&self, provider: &ProviderConfig, estimated_tokens: u64) -> Result<(), Refusal>;
    /// Called once after every call `admit` let through, failed ones included, with what
    /// the response reported it used (zeros when no response said: a connection error, a
    /// timeout, an HTTP error; the estimate when a 2xx did not say, or could not be read;
    /// clamped to what the request could use), so a reservation taken in `admit` can
    /// always be released.
    fn record(&self, provider: &ProviderConfig, tokens_in: u64, tokens_out: u64, cost: f64);
    /// `Err(why)` skips the provider: its circuit breaker is open. Asked before `admit`.
    fn breaker(&self, _provider: &ProviderConfig) -> Result<(), Refusal> {
        Ok(())
    }
    /// Called after every call made, with its error (`None`: it answered), so the
    /// breaker counts refusals of the key or the quota.
    fn verdict(&self, _provider: &ProviderConfig, _error: Option<&CallError>) {}
}

/// A gate that admits everything and records nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoGate;

impl Gate for NoGate {
    fn admit(&self, _: &ProviderConfig, _: u64) -> Result<(), Refusal> {
        Ok(())
    }
    fn record(&self, _: &ProviderConfig, _: u64, _: u64, _: f64) {}
}

type EnvLookup = dyn Fn(&str) -> Option<String> + Send + Sync;

/// The configured providers and the transport they share (one HTTP client, their
/// concurrency slots and pacing).
pub struct Providers {
    transport: Transport,
    configs: BTreeMap<String, ProviderConfig>,
    env: Arc<EnvLookup>,
    /// `[privacy] private_to`: what each provider may receive of private text.
    private_to: PrivateTo,
    /// Keyed with the state's secret ([`Providers::with_privacy`]), so the same value is
    /// the same placeholder in every call, thread and tick.
    redactor: Redactor,
    /// The state's secret, which also keys the breakers' fingerprints; `None` until given.
    secret: Option<RedactionKey>,
}

impl fmt::Debug for Providers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Providers")
            .field("providers", &self.configs.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// One model's call, with what it used even when it failed.
struct Outcome {
    result: Result<Completion, CallError>,
    usage: Option<Usage>,
    latency: Duration,
    tries: u32,
    /// The request body's size (each try sends it once); 0 when nothing was sent.
    body_bytes: u64,
}

/// The wire format a provider kind speaks; `None` for `replay`, which is no HTTP
/// provider. Adding a wire format: its module, implementing [`WireFormat`], and its arm
/// here.
fn wire_format(kind: ProviderKind) -> Option<&'static dyn WireFormat> {
    match kind {
        ProviderKind::Openai => Some(&openai::Openai),
        ProviderKind::Anthropic => Some(&anthropic::Anthropic),
        ProviderKind::Ollama => Some(&ollama::Ollama),
        ProviderKind::Replay => None,
    }
}

impl Providers {
    /// The transport over these providers: one HTTP client per distinct TLS trust
    /// (`tls_roots`, `ca_file`), each built on its first request. API keys are read from
    /// the environment at call time.
    pub fn new(configs: BTreeMap<String, ProviderConfig>) -> Result<Self, CallError> {
        Ok(Providers {
            transport: Transport::new(configs.values()),
            configs,
            env: Arc::new(|var| std::env::var(var).ok()),
            private_to: PrivateTo::default(),
            // Until the state's key is given: placeholders of this process only.
            redactor: Redactor::new(
                &RedactionKey::random().unwrap_or(RedactionKey::from_bytes([0; 32])),
            ),
            secret: None,
        })
    }

    /// What private text may reach each provider (`[privacy] private_to`) and the
    /// state's secret (`redaction.key`: the placeholders' key, and the breakers'
    /// fingerprints').
    #[must_use]
    pub fn with_privacy(mut self, private_to: PrivateTo, key: &RedactionKey) -> Self {
        self.private_to = private_to;
        self.redactor = Redactor::new(key);
        self.secret = Some(key.clone());
        self
    }

    /// `[privacy] private_to`.
    pub fn private_to(&self) -> PrivateTo {
        self.private_to
    }

    /// What `model`'s provider is sent of `out`, and its egress record (no bytes yet):
    /// [`egress::prepare`] with these providers' setting and key. `None` for an unknown
    /// provider.
    pub fn as_sent(&self, model: &ModelRef, out: &Outgoing) -> Option<(CallRequest, Egress)> {
        self.prepared(model, out)
            .map(|(request, egress, _)| (request, egress))
    }

    /// [`Providers::as_sent`], with the aliases the request's entry ids were given (the
    /// chain gives the answer its ids back).
    fn prepared(&self, model: &ModelRef, out: &Outgoing) -> Option<(CallRequest, Egress, Aliases)> {
        let config = self.configs.get(&model.provider)?;
        Some(egress::prepare(
            config,
            self.private_to,
            &self.redactor,
            out,
        ))
    }

    /// The names the redactor knows, learned from mail headers (keyed), so that a name
    /// is still replaced when the mail that gave it has left the inbox: loaded from the
    /// state directory, and added to by every prompt prepared. Only when some provider
    /// redacts: otherwise nothing is learned.
    #[must_use]
    pub fn with_names(mut self, names: KnownNames) -> Self {
        if self.configs.values().any(|c| c.redact) {
            self.redactor.keep_names(names);
        }
        self
    }

    /// The names to keep in the state directory: those learned now, and those the
    /// `memory` texts still mention ([`Redactor::names_to_keep`]); `None` when no
    /// provider redacts (nothing was learned, and the file is left as it is).
    pub fn names_to_keep<S: AsRef<str>>(
        &self,
        memory: impl IntoIterator<Item = S>,
    ) -> Option<KnownNames> {
        self.redactor.names_to_keep(memory)
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

    /// Each provider's breaker fingerprint ([`config::fingerprint`]): a keyed hash of
    /// its config and its key's value as the environment holds it now.
    pub fn fingerprints(&self) -> BTreeMap<String, config::Fingerprint> {
        config::fingerprints(&self.configs, self.secret.as_ref(), |var| (self.env)(var))
    }

    /// Asks one model, retrying as its provider is configured to (redacted when the
    /// provider redacts).
    pub async fn call(&self, model: &ModelRef, req: &CallRequest) -> Result<Completion, CallError> {
        let sent = self.prepared(model, &Outgoing::plain(req.clone()));
        let req = sent.as_ref().map_or(req, |(r, _, _)| r);
        let mut result = self.run(model, req, &Progress::default()).await.result;
        if let (Some((_, _, aliases)), Ok(completion)) = (&sent, &mut result) {
            completion.text = aliases.restore(&completion.text);
        }
        result
    }

    /// One model's call: a replay file, or the transport speaking the provider's wire
    /// format with its key. `req` is sent as it is: what may leave was decided before
    /// ([`egress::prepare`]).
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
                body_bytes: 0,
            };
        };
        let Some(format) = wire_format(config.kind) else {
            let started = std::time::Instant::now();
            let result = replay::answer(config, model, req.sequence);
            return Outcome {
                result,
                usage: None,
                latency: started.elapsed(),
                tries: 0,
                body_bytes: 0,
            };
        };
        match self.key(config) {
            Ok(key) => {
                self.transport
                    .call(config, format, model, req, key, progress)
                    .await
            }
            Err(error) => Outcome {
                result: Err(error),
                usage: None,
                latency: Duration::ZERO,
                tries: 0,
                body_bytes: 0,
            },
        }
    }

    /// `text` scrubbed of this provider's key and cut to an excerpt, for an error.
    fn quote(&self, config: Option<&ProviderConfig>, text: &str) -> String {
        let key = config.and_then(|c| self.key(c).ok().flatten());
        key::quote(text, key.as_ref())
    }

    /// The provider's API key, read from the environment now; `None` when it needs none.
    fn key(&self, config: &ProviderConfig) -> Result<Option<ApiKey>, CallError> {
        let Some(var) = &config.api_key_env else {
            return Ok(None);
        };
        match (self.env)(var) {
            Some(v) if !v.trim().is_empty() => Ok(Some(ApiKey::new(v.trim()))),
            found => Err(CallError::MissingKey {
                provider: config.name.clone(),
                var: var.clone(),
                empty: found.is_some(),
            }),
        }
    }
}
