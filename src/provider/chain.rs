//! The fallback chain: [`Providers::call_chain`] tries each model in order until one
//! answers and the caller's `accept` takes the answer, asking the [`Gate`] before each
//! model and telling it what each admitted call used, and returns every [`Attempt`] for
//! the journal, with what left the machine for it ([`crate::egress`]).
//!
//! What each model is sent is decided per provider ([`crate::egress::prepare`]): a
//! provider that may not see private text gets the call's public copy, one that redacts
//! gets it redacted. When the call has private text to withhold, the models that may see
//! everything are tried first (in their configured order), then the others (SPEC §9: a
//! fallback chain prefers a provider that may see everything).
//!
//! Must not: send requests itself (one model's call is `Providers::run`: replay or the
//! transport), know what an answer means (`accept` decides), or keep budgets (the gate
//! does).

use std::sync::Arc;
use std::time::Duration;

use super::usage::{Usage, prompt_estimate};
use super::{Attempt, CallError, CallRequest, Completion, Gate, Outcome, Progress, Providers};
use crate::egress::{Egress, Outgoing};
use crate::privacy::{self, Access};
use crate::provider::config::{ModelRef, ProviderConfig, ProviderKind};

/// What [`Providers::call_chain`] did: the accepted answer (or the error that ended the
/// chain) and every model it tried, in order.
#[derive(Debug)]
pub struct ChainOutcome<T> {
    /// The accepted value and the completion it was read from; else the last model's
    /// error ([`CallError::OverBudget`] when every model was skipped by the gate).
    pub result: Result<(T, Completion), CallError>,
    pub attempts: Vec<Attempt>,
}

impl Providers {
    /// Tries each model in order until one answers and `accept` takes its answer. Before
    /// each model the gate is asked (estimate: (system + prompt bytes) / 4 + max_tokens);
    /// after each admitted call it is told what that call used (see [`Gate::record`]).
    /// `replay` models are neither gated nor recorded: they cost nothing. `accept` sees the
    /// answer already scrubbed of the provider's key, and runs on the blocking pool, so a
    /// slow read never holds the timers of other calls on the same runtime; its error (the
    /// caller's own type, e.g. [`crate::answer::AnswerError`]) becomes the model's
    /// [`CallError::Unreadable`].
    pub async fn call_chain<T, E, F>(
        &self,
        models: &[ModelRef],
        req: &CallRequest,
        gate: &dyn Gate,
        accept: F,
    ) -> ChainOutcome<T>
    where
        T: Send + 'static,
        E: std::error::Error + Send + 'static,
        F: Fn(&Completion) -> Result<T, E> + Send + Sync + 'static,
    {
        self.call_chain_with(models, req, gate, &Progress::default(), accept)
            .await
    }

    /// [`Providers::call_chain`], keeping `progress` up to date with what the call waits
    /// for, so a caller that gives up on it (a timeout) can say why.
    pub async fn call_chain_with<T, E, F>(
        &self,
        models: &[ModelRef],
        req: &CallRequest,
        gate: &dyn Gate,
        progress: &Progress,
        accept: F,
    ) -> ChainOutcome<T>
    where
        T: Send + 'static,
        E: std::error::Error + Send + 'static,
        F: Fn(&Completion) -> Result<T, E> + Send + Sync + 'static,
    {
        let out = Outgoing::plain(req.clone());
        self.call_chain_out(models, &out, gate, progress, accept)
            .await
    }

    /// The models of `models` in the order they are tried for `out`: as configured, or,
    /// when `out` has private text to withhold, those that may see everything first.
    pub fn preferred(&self, models: &[ModelRef], out: &Outgoing) -> Vec<ModelRef> {
        if !out.withholds() {
            return models.to_vec();
        }
        let withheld = |m: &ModelRef| {
            self.configs
                .get(&m.provider)
                .is_some_and(|c| privacy::access(c, self.private_to) == Access::Withheld)
        };
        let (sees, not): (Vec<ModelRef>, Vec<ModelRef>) =
            models.iter().cloned().partition(|m| !withheld(m));
        sees.into_iter().chain(not).collect()
    }

    /// [`Providers::call_chain_with`] for a call whose private text may be withheld from
    /// some providers ([`Outgoing`]): each model is sent what its provider may receive,
    /// and its attempt records the egress.
    pub async fn call_chain_out<T, E, F>(
        &self,
        models: &[ModelRef],
        out: &Outgoing,
        gate: &dyn Gate,
        progress: &Progress,
        accept: F,
    ) -> ChainOutcome<T>
    where
        T: Send + 'static,
        E: std::error::Error + Send + 'static,
        F: Fn(&Completion) -> Result<T, E> + Send + Sync + 'static,
    {
        let accept = Arc::new(accept);
        let mut attempts = Vec::with_capacity(models.len());
        let mut last_error: Option<CallError> = None;
        let mut refused: Option<CallError> = None;
        let req = &out.request;
        let estimate = prompt_estimate(req).saturating_add(u64::from(req.max_tokens));
        for model in &self.preferred(models, out) {
            let config = self.configs.get(&model.provider);
            let gated = config.filter(|c| c.kind != ProviderKind::Replay);
            if let Some(config) = gated
                && let Err(why) = gate.breaker(config)
            {
                tracing::debug!(provider = %model.provider, model = %model.model, reason = %why, "skipped by the breaker");
                let error = CallError::BreakerOpen {
                    model: model.to_string(),
                    refusal: why,
                };
                attempts.push(Attempt::skipped(model, &error));
                refused.get_or_insert(error);
                continue;
            }
            if let Some(config) = gated
                && let Err(why) = gate.admit(config, estimate)
            {
                tracing::debug!(provider = %model.provider, model = %model.model, reason = %why, "skipped by budget");
                let error = CallError::OverBudget {
                    model: model.to_string(),
                    refusal: why,
                };
                attempts.push(Attempt::skipped(model, &error));
                refused.get_or_insert(error);
                continue;
            }
            let sent = self.prepared(model, out);
            let mut outcome = match &sent {
                Some((req, _, _)) => self.run(model, req, progress).await,
                None => self.run(model, req, progress).await,
            };
            // The ids the provider was shown as aliases are the entries' own again.
            if let (Some((_, _, aliases)), Ok(completion)) = (&sent, &mut outcome.result) {
                completion.text = aliases.restore(&completion.text);
            }
            let usage = outcome.usage.unwrap_or_default();
            if let Some(config) = gated {
                gate.record(config, usage.tokens_in, usage.tokens_out, usage.cost);
                gate.verdict(config, outcome.result.as_ref().err());
            }
            let egress = sent
                .filter(|_| gated.is_some())
                .map(|(_, egress, _)| Egress {
                    bytes: outcome.body_bytes.saturating_mul(u64::from(outcome.tries)),
                    requests: outcome.tries,
                    ..egress
                });
            let mut attempt = Attempt::made(model, &outcome, usage, egress);
            let error = match outcome.result {
                Ok(completion) => match self.accept(config, completion, &accept).await {
                    Ok(taken) => {
                        attempts.push(attempt);
                        return ChainOutcome {
                            result: Ok(taken),
                            attempts,
                        };
                    }
                    Err(e) => e,
                },
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

    /// Runs the caller's `accept` over an answer — on the blocking pool when the answer is
    /// over `transport::INLINE_BYTES` — ; its refusal (or its panic, off the runtime
    /// thread) is the model's [`CallError::Unreadable`], quoted like server text.
    async fn accept<T, E, F>(
        &self,
        config: Option<&ProviderConfig>,
        completion: Completion,
        accept: &Arc<F>,
    ) -> Result<(T, Completion), CallError>
    where
        T: Send + 'static,
        E: std::error::Error + Send + 'static,
        F: Fn(&Completion) -> Result<T, E> + Send + Sync + 'static,
    {
        let model = completion.model.to_string();
        let verdict = if completion.text.len() <= super::transport::INLINE_BYTES {
            let verdict = accept(&completion);
            Ok((verdict, completion))
        } else {
            let check = Arc::clone(accept);
            tokio::task::spawn_blocking(move || {
                let verdict = check(&completion);
                (verdict, completion)
            })
            .await
        };
        match verdict {
            Ok((Ok(value), completion)) => Ok((value, completion)),
            Ok((Err(refused), _)) => Err(CallError::Unreadable {
                model,
                message: self.quote(config, &refused.to_string()),
            }),
            Err(e) => Err(CallError::Unreadable {
                model,
                message: self.quote(config, &format!("the reader failed: {e}")),
            }),
        }
    }
}

impl Attempt {
    /// A model the gate refused: no request was made.
    fn skipped(model: &ModelRef, error: &CallError) -> Self {
        Attempt {
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
            egress: None,
        }
    }

    /// A model that was called, with what it used and what left for it; its error is
    /// filled in if it failed.
    fn made(model: &ModelRef, outcome: &Outcome, usage: Usage, egress: Option<Egress>) -> Self {
        Attempt {
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
            egress,
        }
    }
}
