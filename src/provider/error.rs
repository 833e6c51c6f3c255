//! [`CallError`]: why a model gave no usable answer, said for a person (the model, what
//! failed, what to raise or set).
//!
//! Must not: hold an API key. Every message built from server text is quoted through
//! `key::quote` before it reaches a variant.

use std::time::Duration;

use super::Refusal;

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
    /// A 3xx: redirects are not followed (the key and the prompt would go to another
    /// address, which the egress ledger would not know).
    #[error(
        "{model}: the provider answered with a redirect (HTTP {status}) to {location}; thinker does not follow redirects (the key and the prompt would go there): set base_url to the address that answers"
    )]
    Redirect {
        model: String,
        status: u16,
        location: String,
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
    #[error("{model}: skipped, over budget: {refusal}")]
    OverBudget { model: String, refusal: Refusal },
    /// The provider refused the key or the quota too often: not called (SPEC §9).
    #[error("{model}: skipped, {refusal}")]
    BreakerOpen { model: String, refusal: Refusal },
    #[error("{model}: the answer could not be read: {message}")]
    Unreadable { model: String, message: String },
    #[error("no model to call")]
    NoModels,
}
