//! The circuit breaker per provider (SPEC §9): a provider that keeps refusing
//! the key (HTTP 401/403) or the account's quota (HTTP 402, an `insufficient_quota` or
//! "credit balance" refusal) is not called again — not every five minutes for days on a
//! revoked key — until its key variable's value or its config changes, or
//! `breaker_hours` pass.
//!
//! Owns: which errors trip it ([`trips`]), how the per-provider state kept in
//! `ledger.json` moves ([`BreakerState`], a record of `crate::ledger`: consecutive
//! *ticks* with a refusal — four threads refused in one
//! tick count once —, when it opened, why, and a fingerprint of the
//! provider's config and key), the one rule of what a kept state means now ([`phase`]:
//! closed, counting, open until a time, half-open, or stale because the key or config
//! changed — the tick, `doctor` and the MCP `status` tool all ask it), and the rules
//! ([`Breakers::check`] before a call, [`Breakers::observe`] after). After
//! `breaker_hours` one call is let through
//! (half-open): a success closes it, another refusal opens it again at once. It says
//! when it opens (a `warn`, once, so cron mails it once) and is silent while it stays
//! open: the calls it skips are journaled as skipped (`breaker open`).
//!
//! The fingerprint ([`super::config::fingerprint`]) is an HMAC-SHA256 of the provider's
//! config and its key's value, keyed with the state's secret: it tells that the key
//! changed without keeping anything of it, and a ledger alone cannot be used to test
//! guesses of a short key. A state an older version kept under its unkeyed fingerprint
//! still counts when that fingerprint is the config's and key's now (an upgrade neither
//! closes an open breaker nor lets a new key inherit an old one's refusals), and
//! [`Breakers::new`] writes the keyed one in its place. Must not: read the environment,
//! the clock or the secret (all are handed in), or do I/O.

use std::collections::BTreeMap;

use chrono::{DateTime, TimeDelta, Utc};

use super::config::{Fingerprint, ProviderConfig};
use super::{CallError, Refusal};
use crate::ledger::BreakerState;
use crate::untrusted;

/// What is known, where a breaker's [`phase`] is asked, of the config and key it would
/// be checked against now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyNow<'a> {
    /// The fingerprint of the provider's config and key now
    /// ([`super::config::fingerprint`]).
    Is(&'a Fingerprint),
    /// The provider is not configured any more.
    Gone,
    /// Not known here (the MCP server does not see the environment the tick runs in):
    /// the breaker is taken to count against the key it recorded.
    Unknown,
}

impl<'a> KeyNow<'a> {
    /// Provider `name`'s fingerprint in `fingerprints` ([`super::Providers::fingerprints`]):
    /// [`KeyNow::Is`], or [`KeyNow::Gone`] when it has none.
    pub fn of(fingerprints: &'a BTreeMap<String, Fingerprint>, name: &str) -> KeyNow<'a> {
        fingerprints.get(name).map_or(KeyNow::Gone, KeyNow::Is)
    }

    /// Whether a state kept for `recorded` (a fingerprint) still counts against this key.
    fn counts(self, recorded: &str) -> bool {
        match self {
            KeyNow::Is(now) => now.matches(recorded),
            KeyNow::Gone => false,
            KeyNow::Unknown => true,
        }
    }
}

/// Where a provider's breaker stands at a time: [`phase`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Nothing counted: calls go through.
    Closed,
    /// Refusals counted in a row (`BreakerState::failures`), not yet enough to open it:
    /// calls go through.
    Counting,
    /// Open: no call before `until`.
    Open { until: DateTime<Utc> },
    /// It was open and its `breaker_hours` are over (`until` passed), or it opened after
    /// now (a clock stepped back): the next call is let through, once.
    HalfOpen { until: DateTime<Utc> },
    /// Counted against another key or config (or a provider no longer configured): the
    /// next tick starts it closed and calls the provider.
    Stale,
}

/// When a breaker opened at `opened` lets a call through again, `hours` later (the last
/// representable time when that is past the calendar: a hostile ledger cannot overflow
/// it).
pub fn open_until(opened: DateTime<Utc>, hours: u32) -> DateTime<Utc> {
    opened
        .checked_add_signed(TimeDelta::hours(i64::from(hours)))
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// The one rule of where `state` stands at `now`, for a provider whose breaker stays open
/// `hours` (`breaker_hours`) and whose config and key are `key` now. Open only from the
/// time it opened until `hours` later; a state kept for another key or config is
/// [`Phase::Stale`] whatever its times.
pub fn phase(state: &BreakerState, hours: u32, now: DateTime<Utc>, key: KeyNow<'_>) -> Phase {
    if state.opened.is_none() && state.failures == 0 {
        return Phase::Closed;
    }
    if !key.counts(&state.fingerprint) {
        return Phase::Stale;
    }
    match state.opened {
        Some(opened) => {
            let until = open_until(opened, hours);
            // The span since, not `now < until`: `until` saturates at the calendar's end.
            if opened <= now && now - opened < TimeDelta::hours(i64::from(hours)) {
                Phase::Open { until }
            } else {
                Phase::HalfOpen { until }
            }
        }
        None => Phase::Counting,
    }
}

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
    fingerprints: BTreeMap<String, Fingerprint>,
    now: Option<DateTime<Utc>>,
    /// Providers whose refusal this tick was already counted: one tick counts once,
    /// however many threads share the provider.
    counted: std::collections::BTreeSet<String>,
}

impl Breakers {
    /// The breakers of `states` at `now`; a provider whose fingerprint changed starts
    /// closed (its key or config changed: the user fixed it). A state kept under an
    /// older version's fingerprint of the same config and key is kept, under the keyed
    /// fingerprint from now on.
    pub fn new(
        states: &BTreeMap<String, BreakerState>,
        fingerprints: BTreeMap<String, Fingerprint>,
        now: DateTime<Utc>,
    ) -> Breakers {
        let states = states
            .iter()
            .filter_map(|(name, s)| {
                let now = fingerprints.get(name)?;
                now.matches(&s.fingerprint).then(|| {
                    let mut kept = s.clone();
                    now.written().clone_into(&mut kept.fingerprint);
                    (name.clone(), kept)
                })
            })
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
    pub fn check(&self, provider: &ProviderConfig) -> Result<(), Refusal> {
        let (Some(state), Some(now)) = (self.states.get(&provider.name), self.now) else {
            return Ok(());
        };
        let Some(opened) = state.opened else {
            return Ok(());
        };
        // The states kept here count against the key now (`new` dropped the others).
        if let Phase::Open { .. } = phase(state, provider.breaker.hours, now, KeyNow::Unknown) {
            return Err(Refusal::BreakerOpen {
                opened,
                failures: state.failures,
                reason: state.reason.clone(),
                key_var: provider.api_key_env.clone(),
                hours: provider.breaker.hours,
            });
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
            .map(|f| f.written().to_string())
            .unwrap_or_default();
        let state = self.states.entry(provider.name.clone()).or_default();
        state.fingerprint = fingerprint;
        if !self.counted.insert(provider.name.clone()) {
            return None;
        }
        state.failures = state.failures.saturating_add(1);
        state.reason.clone_from(&reason);
        let was_open = matches!(
            phase(state, provider.breaker.hours, now, KeyNow::Unknown),
            Phase::Open { .. }
        );
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
    use crate::untrusted::redact::RedactionKey;

    /// The state's secret in these tests.
    const SECRET: RedactionKey = RedactionKey::from_bytes([9; 32]);

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
        let fp = |k: &str| {
            BTreeMap::from([("groq".to_string(), fingerprint(&p, Some(k), Some(&SECRET)))])
        };
        let tick = |states: &BTreeMap<String, BreakerState>, k: &str| {
            Breakers::new(states, fp(k), at("2026-11-22T10:00:00Z"))
        };
        let mut b = tick(&BTreeMap::new(), "sk-one");
        assert!(b.observe(&p, Some(&http(401, "no"))).is_none());
        assert!(
            b.observe(&p, Some(&http(401, "no"))).is_none(),
            "one tick counts once"
        );
        assert!(
            b.observe(&p, Some(&http(500, "down"))).is_none(),
            "outages do not count"
        );
        let mut b = tick(&b.states(), "sk-one");
        assert!(b.observe(&p, Some(&http(401, "no"))).is_none());
        assert!(b.check(&p).is_ok());
        let mut b = tick(&b.states(), "sk-one");
        let warning = b.observe(&p, Some(&http(401, "no"))).unwrap();
        assert!(
            warning.contains("GROQ_API_KEY") && warning.contains("3 times"),
            "{warning}"
        );
        let open = b.check(&p).unwrap_err();
        assert!(
            matches!(&open, Refusal::BreakerOpen { failures: 3, key_var: Some(var), hours: 6, .. } if var == "GROQ_API_KEY"),
            "{open:?}"
        );
        assert!(open.to_string().contains("breaker open"), "{open}");
        let saved = b.states();
        assert!(
            !format!("{saved:?}").contains("sk-one"),
            "nothing of the key is kept"
        );
        // Later ticks, same key: still open, until the hours pass.
        let b = Breakers::new(&saved, fp("sk-one"), at("2026-11-22T15:59:00Z"));
        assert!(b.check(&p).is_err());
        let mut b = Breakers::new(&saved, fp("sk-one"), at("2026-11-22T16:00:00Z"));
        assert!(b.check(&p).is_ok(), "half-open after 6 h");
        assert!(
            b.observe(&p, Some(&http(401, "no"))).is_some(),
            "and open again at once"
        );
        // A new key closes it.
        let b = Breakers::new(&saved, fp("sk-two"), at("2026-11-22T11:00:00Z"));
        assert!(b.check(&p).is_ok());
        // A success closes it.
        let mut b = Breakers::new(&saved, fp("sk-one"), at("2026-11-22T16:00:00Z"));
        b.observe(&p, None);
        assert!(b.states().is_empty());
    }
    /// Table: a kept state, the time and the key now → the phase (`breaker_hours` = 6).
    /// Each row names the wrong implementation it catches.
    #[test]
    fn the_phase_at_each_time_and_key() {
        let opened = at("2026-11-22T10:00:00Z");
        let open = BreakerState {
            failures: 3,
            opened: Some(opened),
            reason: "HTTP 401".into(),
            fingerprint: "fp".into(),
        };
        let counting = BreakerState {
            failures: 1,
            opened: None,
            ..open.clone()
        };
        let until = at("2026-11-22T16:00:00Z");
        let [fp, other, new] = ["fp", "other", "new"].map(Fingerprint::fixed);
        let cases = [
            // Nothing counted: closed, whatever the key.
            (
                BreakerState::default(),
                "2026-11-22T10:00:00Z",
                KeyNow::Is(&other),
                Phase::Closed,
            ),
            (
                counting.clone(),
                "2026-11-22T10:00:00Z",
                KeyNow::Is(&fp),
                Phase::Counting,
            ),
            (
                counting.clone(),
                "2026-11-22T10:00:00Z",
                KeyNow::Is(&new),
                Phase::Stale,
            ),
            // Open from the second it opened…
            (
                open.clone(),
                "2026-11-22T10:00:00Z",
                KeyNow::Is(&fp),
                Phase::Open { until },
            ),
            (
                open.clone(),
                "2026-11-22T15:59:59Z",
                KeyNow::Is(&fp),
                Phase::Open { until },
            ),
            // …until `breaker_hours` later, not one second more (`<=` would keep it shut).
            (
                open.clone(),
                "2026-11-22T16:00:00Z",
                KeyNow::Is(&fp),
                Phase::HalfOpen { until },
            ),
            (
                open.clone(),
                "2026-11-23T10:00:00Z",
                KeyNow::Is(&fp),
                Phase::HalfOpen { until },
            ),
            // Opened after now (a clock stepped back): the tick lets a call through.
            (
                open.clone(),
                "2026-11-22T09:59:59Z",
                KeyNow::Is(&fp),
                Phase::HalfOpen { until },
            ),
            // A new key or config: stale, though its hours are not over (the bug of doctor).
            (
                open.clone(),
                "2026-11-22T11:00:00Z",
                KeyNow::Is(&new),
                Phase::Stale,
            ),
            (
                open.clone(),
                "2026-11-22T11:00:00Z",
                KeyNow::Gone,
                Phase::Stale,
            ),
            // Where the key cannot be seen, the state is taken as it was kept.
            (
                open.clone(),
                "2026-11-22T11:00:00Z",
                KeyNow::Unknown,
                Phase::Open { until },
            ),
        ];
        for (state, now, key, want) in cases {
            assert_eq!(
                phase(&state, 6, at(now), key),
                want,
                "{state:?} at {now}, {key:?}"
            );
        }
        // A hostile ledger's time at the end of the calendar cannot overflow it.
        let last = BreakerState {
            opened: Some(DateTime::<Utc>::MAX_UTC),
            ..open.clone()
        };
        assert_eq!(
            phase(&last, 8760, DateTime::<Utc>::MAX_UTC, KeyNow::Is(&fp)),
            Phase::Open {
                until: DateTime::<Utc>::MAX_UTC
            }
        );
    }

    /// `check` refuses a call exactly when the phase is open.
    #[test]
    fn check_refuses_exactly_in_the_open_phase() {
        let p = provider();
        let fp = fingerprint(&p, Some("k"), Some(&SECRET));
        let state = BreakerState {
            failures: 3,
            opened: Some(at("2026-11-22T10:00:00Z")),
            reason: "HTTP 401".into(),
            fingerprint: fp.written().to_string(),
        };
        let states = BTreeMap::from([("groq".to_string(), state.clone())]);
        for now in [
            "2026-11-22T09:00:00Z",
            "2026-11-22T10:00:00Z",
            "2026-11-22T15:59:59Z",
            "2026-11-22T16:00:00Z",
        ] {
            let b = Breakers::new(
                &states,
                BTreeMap::from([("groq".to_string(), fp.clone())]),
                at(now),
            );
            let open = matches!(
                phase(&state, p.breaker.hours, at(now), KeyNow::Is(&fp)),
                Phase::Open { .. }
            );
            assert_eq!(b.check(&p).is_err(), open, "{now}");
        }
    }

    /// The fingerprint is keyed with the state's secret: the same config and key give
    /// another fingerprint under another secret (a ledger alone cannot test guesses of
    /// a short key), and it says nothing of the key.
    #[test]
    fn the_fingerprint_is_keyed_with_the_states_secret() {
        let p = provider();
        let other = RedactionKey::from_bytes([10; 32]);
        let a = fingerprint(&p, Some("sk-1"), Some(&SECRET));
        assert!(
            a.written().starts_with("k1-") && a.written().len() == 35,
            "{a:?}"
        );
        assert_eq!(a, fingerprint(&p, Some("sk-1"), Some(&SECRET)), "stable");
        assert_ne!(
            a.written(),
            fingerprint(&p, Some("sk-1"), Some(&other)).written()
        );
        assert_ne!(
            a.written(),
            fingerprint(&p, Some("sk-2"), Some(&SECRET)).written()
        );
        assert_ne!(a.written(), fingerprint(&p, None, Some(&SECRET)).written());
        assert!(!a.written().contains("sk-1"));
        // Without the secret nothing is written that could match.
        let none = fingerprint(&p, Some("sk-1"), None);
        assert_eq!(none.written(), "");
        assert!(!none.matches(""), "an empty record matches nothing");
    }

    /// Upgrading: a ledger an older version wrote keeps its unkeyed 48-bit fingerprint.
    /// Under the same config and key its state still counts — an open breaker stays open,
    /// a count goes on — and is kept under the keyed fingerprint from then on (the weak
    /// hash leaves the ledger at the next write); under another key it is stale, as any
    /// changed key's is, and the provider is called.
    #[test]
    fn a_state_kept_under_the_old_fingerprint_counts_for_the_same_key_only() {
        let p = provider();
        let legacy = untrusted::fence_id(&[&format!("{p:?}"), "sk-1"]);
        let open = BreakerState {
            failures: 3,
            opened: Some(at("2026-11-22T10:00:00Z")),
            reason: "HTTP 401".into(),
            fingerprint: legacy.clone(),
        };
        let counting = BreakerState {
            failures: 2,
            opened: None,
            ..open.clone()
        };
        let now = at("2026-11-22T11:00:00Z");
        let fp = |k: &str| {
            BTreeMap::from([("groq".to_string(), fingerprint(&p, Some(k), Some(&SECRET)))])
        };
        let states = |s: &BreakerState| BTreeMap::from([("groq".to_string(), s.clone())]);
        // The same key: still open, rewritten under the keyed fingerprint.
        let b = Breakers::new(&states(&open), fp("sk-1"), now);
        assert!(
            b.check(&p).is_err(),
            "an upgrade does not close an open breaker"
        );
        let kept = &b.states()["groq"];
        assert_eq!(kept.fingerprint, fp("sk-1")["groq"].written());
        assert_eq!((kept.failures, kept.opened), (open.failures, open.opened));
        assert_eq!(
            phase(&open, 6, now, KeyNow::of(&fp("sk-1"), "groq")),
            Phase::Open {
                until: at("2026-11-22T16:00:00Z")
            },
            "doctor says the same before the tick rewrote it"
        );
        // A count goes on: one more refusal opens it (3 failures by default).
        let mut b = Breakers::new(&states(&counting), fp("sk-1"), now);
        assert!(b.observe(&p, Some(&http(401, "no"))).is_some());
        // Another key: stale, and dropped (the user changed it).
        let b = Breakers::new(&states(&open), fp("sk-2"), now);
        assert!(b.check(&p).is_ok() && b.states().is_empty());
        assert_eq!(
            phase(&open, 6, now, KeyNow::of(&fp("sk-2"), "groq")),
            Phase::Stale
        );
        // A keyed fingerprint of another state's secret (a ledger copied into another
        // state directory) does not count either: stale, called again.
        let elsewhere = BreakerState {
            fingerprint: fingerprint(&p, Some("sk-1"), Some(&RedactionKey::from_bytes([1; 32])))
                .written()
                .to_string(),
            ..open.clone()
        };
        assert!(
            Breakers::new(&states(&elsewhere), fp("sk-1"), now)
                .states()
                .is_empty()
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(256))]

        /// Whatever the state, the hours and the time: never open once `breaker_hours`
        /// have passed since it opened, nor before it opened, nor for another key; and
        /// open is exactly "opened, within its hours, same key".
        #[test]
        fn never_open_past_its_hours_or_for_another_key(
            failures in 0u32..5,
            opened in proptest::option::of(-1_000_000i64..1_000_000),
            hours in 1u32..=8760,
            now in -1_000_000i64..2_000_000,
            same_key in proptest::bool::ANY,
        ) {
            let base = at("2026-11-22T10:00:00Z");
            let opened = opened.map(|s| base + TimeDelta::seconds(s));
            let now = base + TimeDelta::seconds(now);
            let state = BreakerState { failures, opened, reason: String::new(), fingerprint: "fp".into() };
            let (fp, new) = (Fingerprint::fixed("fp"), Fingerprint::fixed("new"));
            let key = if same_key { KeyNow::Is(&fp) } else { KeyNow::Is(&new) };
            let got = phase(&state, hours, now, key);
            let within = opened.is_some_and(|t| t <= now && now - t < TimeDelta::hours(i64::from(hours)));
            proptest::prop_assert_eq!(matches!(got, Phase::Open { .. }), within && same_key);
            if let Phase::Open { until } | Phase::HalfOpen { until } = got {
                proptest::prop_assert_eq!(Some(until - TimeDelta::hours(i64::from(hours))), opened);
            }
        }
    }
}
