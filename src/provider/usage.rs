//! What a call used: the tokens and cost counted for it ([`Usage`]), the bounds a reported
//! usage is clamped to ([`Bounds`]: no request uses more than it sent plus slack, or more
//! output than `max_tokens` plus slack), the chain's estimate of a prompt, and the price.
//!
//! Must not: read a response (the wire formats read the counts, tolerantly) or keep a
//! budget (a `Gate` is told what was counted).

use super::CallRequest;
use crate::provider::config::{ModelRef, ProviderConfig};

/// Used, not sent: a call that the server answered, with what it used.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Usage {
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost: f64,
    pub clamped: bool,
    pub estimated: bool,
}

/// Slack over one token per byte sent, for chat templates and tool preambles.
const USAGE_SLACK_IN: u64 = 2048;
/// Slack over `max_tokens` for the output a server reports.
const USAGE_SLACK_OUT: u64 = 256;

/// What one request could use at most, to tell an impossible reported usage, and what
/// to count when the response does not say.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bounds {
    /// The chain's estimate of the prompt: (system + prompt bytes) / 4.
    estimate_in: u64,
    pub max_tokens: u64,
    /// A token is at least a byte of the request body, plus [`USAGE_SLACK_IN`].
    max_in: u64,
    /// `max_tokens` plus [`USAGE_SLACK_OUT`].
    max_out: u64,
}

impl Bounds {
    pub(super) fn new(req: &CallRequest, sent_bytes: usize) -> Self {
        let max_tokens = u64::from(req.max_tokens);
        Bounds {
            estimate_in: prompt_estimate(req),
            max_tokens,
            max_in: (sent_bytes as u64).saturating_add(USAGE_SLACK_IN),
            max_out: max_tokens.saturating_add(USAGE_SLACK_OUT),
        }
    }

    /// The usage to count: the reported one, clamped to the bounds; the estimate where
    /// the response does not say; a non-finite cost as 0. Both are flagged and logged.
    pub(super) fn usage(
        &self,
        config: &ProviderConfig,
        model: &ModelRef,
        tokens_in: Option<u64>,
        tokens_out: Option<u64>,
    ) -> Usage {
        let estimated = tokens_in.is_none() || tokens_out.is_none();
        let reported_in = tokens_in.unwrap_or(self.estimate_in);
        let reported_out = tokens_out.unwrap_or(self.max_tokens);
        let tokens_in = reported_in.min(self.max_in);
        let tokens_out = reported_out.min(self.max_out);
        let mut clamped = (tokens_in, tokens_out) != (reported_in, reported_out);
        let mut cost = cost(config, tokens_in, tokens_out);
        if !cost.is_finite() {
            cost = 0.0;
            clamped = true;
        }
        if clamped {
            tracing::warn!(provider = %config.name, model = %model.model, reported_in, reported_out,
                counted_in = tokens_in, counted_out = tokens_out,
                "the reported usage is more than the request could cost; counted the bound instead");
        } else if estimated {
            tracing::debug!(provider = %config.name, model = %model.model,
                "the response does not say what it used; counted the estimate");
        }
        Usage {
            tokens_in,
            tokens_out,
            cost,
            clamped,
            estimated,
        }
    }
}

/// The chain's estimate of a request's prompt tokens: (system + prompt bytes) / 4.
pub(super) fn prompt_estimate(req: &CallRequest) -> u64 {
    (req.system.len().saturating_add(req.prompt.len()) / 4) as u64
}

/// USD for this usage at the provider's prices (per million tokens); the caller treats a
/// non-finite result as 0.
pub fn cost(config: &ProviderConfig, tokens_in: u64, tokens_out: u64) -> f64 {
    tokens_in as f64 * config.price_in / 1e6 + tokens_out as f64 * config.price_out / 1e6
}
