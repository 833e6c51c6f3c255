//! The circuit breaker per provider (SPEC §9, issue 10): a provider that keeps refusing
//! the key (HTTP 401/403) or the account's quota (HTTP 402, an `insufficient_quota` or
//! "credit balance" refusal) is not called again — not every five minutes for days on a
//! revoked key — until its key variable's value or its config changes, or
//! `breaker_hours` pass.
//!
//! Owns: which errors trip it ([`trips`]), how the per-provider state kept in
//! `ledger.json` moves ([`BreakerState`], a record of `crate::ledger`: consecutive
//! *ticks* with a refusal — four threads refused in one
//! tick count once —, when it opened, why, and a fingerprint of the
//! provider's config and key), and the rules ([`Breakers::check`] before a call,
//! [`Breakers::observe`] after). After `breaker_hours` one call is let through
//! (half-open): a success closes it, another refusal opens it again at once. It says
//! when it opens (a `warn`, once, so cron mails it once) and is silent while it stays
//! open: the calls it skips are journaled as skipped (`breaker open`).
//!
//! The fingerprint ([`super::config::fingerprint`]) is a 48-bit content hash of the
//! provider's config and its key's value ([`crate::untrusted::fence_id`]): it tells that the key changed without keeping
//! anything of it. Must not: read the environment or the clock (both are handed in), or
//! do I/O.

use std::collections::BTreeMap;

use chrono::{DateTime, TimeDelta, Utc};

use super::CallError;
use super::config::ProviderConfig;
use crate::ledger::BreakerState;
use crate::untrusted;

/// Why `error` counts toward opening the breaker, if it does: the key or the quota was
/// refused. Outages, timeouts, rate limits and unreadable answers do not count: they
/// pass, and retries and fallbacks deal with them.
pub fn trips(error: &CallError) -> Option<String> {
    let quota = |message: &str| {
        let m = message.to_ascii_lowercase();
        ["insufficient_quota", "quota", "credit balance", "billing"]
            .iter()
            .any(|w| m.contains(w))
    };
    match error {
        CallError::Http {
            status: 401 | 403, ..
        } => Some("the key was refused (HTTP 401/403)".into()),
        CallError::Http { status: 402, .. } => Some("payment required (HTTP 402)".into()),
        CallError::Http {
            status: 400 | 429,
            message,
            ..
        }
        | CallError::RateLimited { message, .. }
            if quota(message) =>
        {
            Some(format!(
                "the quota is used up: {}",
                untrusted::excerpt(message, 80)
            ))
        }
        _ => None,
    }
}

/// The breakers of one tick: loaded from the ledger, checked and updated as calls go,
/// written back with the ledger.
#[derive(Debug, Default)]
pub struct Breakers {
    states: BTreeMap<String, BreakerState>,
    /// Each provider's fingerprint now.
    fingerprints: BTreeMap<String, String>,
    now: Option<DateTime<Utc>>,
    /// Providers whose refusal this tick was already counted: one tick counts once,
    /// however many threads share the provider.
    counted: std::collections::BTreeSet<String>,
}

impl Breakers {
    /// The breakers of `states` at `now`; a provider whose fingerprint changed starts
    /// closed (its key or config changed: the user fixed it).
    pub fn new(
        states: &BTreeMap<String, BreakerState>,
        fingerprints: BTreeMap<String, String>,
        now: DateTime<Utc>,
    ) -> Breakers {
        let states = states
            .iter()
            .filter(|(name, s)| fingerprints.get(*name) == Some(&s.fingerprint))
            .map(|(name, s)| (name.clone(), s.clone()))
            .collect();
        Breakers {
            states,
            fingerprints,
            now: Some(now),
            counted: std::collections::BTreeSet::new(),
        }
    }

    /// `Err(why)` while `provider`'s breaker is open. Past `breaker_hours` it lets a
    /// call through (half-open).
    pub fn check(&self, provider: &ProviderConfig) -> Result<(), String> {
        let (Some(state), Some(now)) = (self.states.get(&provider.name), self.now) else {
            return Ok(());
        };
        let Some(opened) = state.opened else {
            return Ok(());
        };
        let hours = TimeDelta::hours(i64::from(provider.breaker.hours));
        if now >= opened && now - opened < hours {
            let var = provider
                .api_key_env
                .as_deref()
                .unwrap_or("its key variable");
            return Err(format!(
                "breaker open since {} after {} refusals ({}); not called until {var} or the config changes, or {} h pass",
                crate::timestamp::format(opened),
                state.failures,
                state.reason,
                provider.breaker.hours
            ));
        }
        Ok(())
    }

    /// Counts a call's outcome (`None`: it succeeded); returns the warning to give when
    /// this refusal opened the breaker.
    pub fn observe(
        &mut self,
        provider: &ProviderConfig,
        error: Option<&CallError>,
    ) -> Option<String> {
        let reason = error.and_then(trips);
        let Some(reason) = reason else {
            // A success, or a failure that says nothing about the key: a success closes
            // it; other failures leave the count as it is.
            if error.is_none() {
                self.states.remove(&provider.name);
            }
            return None;
        };
        let now = self.now?;
        let fingerprint = self
            .fingerprints
            .get(&provider.name)
            .cloned()
            .unwrap_or_default();
        let state = self.states.entry(provider.name.clone()).or_default();
        state.fingerprint = fingerprint;
        if !self.counted.insert(provider.name.clone()) {
            return None;
        }
        state.failures = state.failures.saturating_add(1);
        state.reason.clone_from(&reason);
        let hours = TimeDelta::hours(i64::from(provider.breaker.hours));
        let was_open = state.opened.is_some_and(|t| now >= t && now - t < hours);
        if state.failures >= provider.breaker.failures.max(1) {
            state.opened = Some(now);
            if !was_open {
                let var = provider
                    .api_key_env
                    .as_deref()
                    .unwrap_or("its key variable");
                return Some(format!(
                    "provider `{}`: {reason}, {} times in a row; it is not called again until {var} or its config changes, or {} h pass (breaker_hours)",
                    provider.name, state.failures, provider.breaker.hours
                ));
            }
        }
        None
    }

    /// The states to keep in the ledger.
    pub fn states(&self) -> BTreeMap<String, BreakerState> {
        self.states.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::config::fingerprint;
    use crate::timestamp;

    fn provider() -> ProviderConfig {
        let config = crate::config::Config::parse(
            "[providers.groq]\nkind = \"openai\"\nbase_url = \"https://api.groq.com/openai/v1\"\napi_key_env = \"GROQ_API_KEY\"\n[threads.watcher]\nmodel = \"groq/m\"\n",
            None,
        )
        .unwrap();
        config.providers["groq"].clone()
    }

    fn http(status: u16, message: &str) -> CallError {
        CallError::Http {
            model: "groq/m".into(),
            status,
            message: message.into(),
        }
    }

    fn at(t: &str) -> DateTime<Utc> {
        timestamp::parse(t).unwrap()
    }

    #[test]
    fn what_trips_it() {
        // (error, trips?) — each row names the wrong implementation it catches.
        let cases = [
            (http(401, "invalid api key"), true),
            (http(403, "forbidden"), true),
            (http(402, "payment required"), true),
            (
                http(429, "You exceeded your current quota (insufficient_quota)"),
                true,
            ),
            (http(400, "Your credit balance is too low"), true),
            (http(429, "slow down"), false), // a rate limit passes
            (http(500, "overloaded"), false),
            (http(400, "bad schema"), false),
            (
                CallError::Timeout {
                    model: "m".into(),
                    after: std::time::Duration::from_secs(1),
                },
                false,
            ),
        ];
        for (e, want) in cases {
            assert_eq!(trips(&e).is_some(), want, "{e}");
        }
    }

    #[test]
    fn it_opens_after_the_failures_stays_open_and_half_opens_after_the_hours() {
        let p = provider();
        let fp = |k: &str| BTreeMap::from([("groq".to_string(), fingerprint(&p, Some(k)))]);
        let tick = |states: &BTreeMap<String, BreakerState>, k: &str| {
            Breakers::new(states, fp(k), at("2026-11-22T10:00:00Z"))
        };
        let mut b = tick(&BTreeMap::new(), "k1");
        assert!(b.observe(&p, Some(&http(401, "no"))).is_none());
        assert!(
            b.observe(&p, Some(&http(401, "no"))).is_none(),
            "one tick counts once"
        );
        assert!(
            b.observe(&p, Some(&http(500, "down"))).is_none(),
            "outages do not count"
        );
        let mut b = tick(&b.states(), "k1");
        assert!(b.observe(&p, Some(&http(401, "no"))).is_none());
        assert!(b.check(&p).is_ok());
        let mut b = tick(&b.states(), "k1");
        let warning = b.observe(&p, Some(&http(401, "no"))).unwrap();
        assert!(
            warning.contains("GROQ_API_KEY") && warning.contains("3 times"),
            "{warning}"
        );
        assert!(b.check(&p).unwrap_err().contains("breaker open"));
        let saved = b.states();
        assert!(
            !format!("{saved:?}").contains("k1"),
            "nothing of the key is kept"
        );
        // Later ticks, same key: still open, until the hours pass.
        let b = Breakers::new(&saved, fp("k1"), at("2026-11-22T15:59:00Z"));
        assert!(b.check(&p).is_err());
        let mut b = Breakers::new(&saved, fp("k1"), at("2026-11-22T16:00:00Z"));
        assert!(b.check(&p).is_ok(), "half-open after 6 h");
        assert!(
            b.observe(&p, Some(&http(401, "no"))).is_some(),
            "and open again at once"
        );
        // A new key closes it.
        let b = Breakers::new(&saved, fp("k2"), at("2026-11-22T11:00:00Z"));
        assert!(b.check(&p).is_ok());
        // A success closes it.
        let mut b = Breakers::new(&saved, fp("k1"), at("2026-11-22T16:00:00Z"));
        b.observe(&p, None);
        assert!(b.states().is_empty());
    }
}
