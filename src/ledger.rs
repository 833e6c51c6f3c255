//! `ledger.json`: what the runner has done, as opposed to what it remembers — the runs,
//! today's spend and escalation calls ([`Ledger`], [`Spend`]), the providers' circuit
//! breakers ([`BreakerState`]) and what each thread last saw ([`QuietMemory`]), kept
//! across ticks — with the saturating cost arithmetic ([`clean_cost`], [`add_cost`],
//! [`sum_tokens`], [`sum_cost`]) and the local day the spending counts
//! ([`Ledger::today`], [`day_zone`]).
//!
//! A leaf: the budgets (`crate::budget`), the breaker (`crate::provider::breaker`) and
//! the quiet tick (`crate::quiet`) keep their rules and read and update these records;
//! `crate::storage` reads and writes the file. Must not: do I/O, hold a rule of those
//! modules, or trust a number it reads (a negative cost is refused).

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::clock::{Clock, Zone};
use crate::timestamp::serde_utc_opt;

/// File name of the ledger in the state directory.
pub const LEDGER_FILE: &str = "ledger.json";

/// Tokens and money spent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spend {
    #[serde(default)]
    pub tokens: u64,
    #[serde(default, deserialize_with = "cost_from_ledger")]
    pub cost: f64,
    #[serde(default)]
    pub calls: u64,
}

impl Spend {
    pub(crate) fn add(&mut self, tokens: u64, cost: f64) {
        self.tokens = self.tokens.saturating_add(tokens);
        self.cost = add_cost(self.cost, cost);
        self.calls = self.calls.saturating_add(1);
    }
}

/// A cost as it may be added up and written: negative counts as 0 (spending cannot be
/// undone); NaN and infinity count as `f64::MAX`, over any budget (fail closed), and
/// unlike them it survives a round trip through JSON.
pub fn clean_cost(cost: f64) -> f64 {
    if cost.is_nan() {
        f64::MAX
    } else {
        cost.clamp(0.0, f64::MAX)
    }
}

/// `a + b` of two costs, saturating at `f64::MAX` (see [`clean_cost`]).
pub fn add_cost(a: f64, b: f64) -> f64 {
    clean_cost(clean_cost(a) + clean_cost(b))
}

/// The sum of token counts, saturating at `u64::MAX` instead of wrapping.
pub fn sum_tokens(counts: impl IntoIterator<Item = u64>) -> u64 {
    counts.into_iter().fold(0, u64::saturating_add)
}

/// The sum of costs, saturating at `f64::MAX` (see [`clean_cost`]).
pub fn sum_cost(costs: impl IntoIterator<Item = f64>) -> f64 {
    costs.into_iter().fold(0.0, add_cost)
}

/// A cost read from `ledger.json` must be a number of 0 or more: a negative one would
/// hand back budget that was spent.
fn cost_from_ledger<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let cost = f64::deserialize(d)?;
    if cost.is_finite() && cost >= 0.0 {
        Ok(cost)
    } else {
        Err(serde::de::Error::custom(format!(
            "cost {cost} is not an amount of 0 or more"
        )))
    }
}

/// `ledger.json`: what the runner has done, as opposed to what it remembers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    /// Ticks run (dry runs and locked-out runs excluded): the clock of `every = N`.
    #[serde(default)]
    pub runs: u64,
    /// The local day `spent` and `escalations` count.
    #[serde(default)]
    pub day: Option<NaiveDate>,
    /// Spent today, per provider.
    #[serde(default)]
    pub spent: BTreeMap<String, Spend>,
    /// Escalation calls made today.
    #[serde(default)]
    pub escalations: u32,
    /// The providers' circuit breakers (kept across days).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub breakers: BTreeMap<String, BreakerState>,
    /// What each thread saw when last called (the quiet tick; kept across days).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub quiet: BTreeMap<String, QuietMemory>,
    /// The run in which each thread last spent its cadence: `every = N` counts runs from
    /// it (`crate::budget::spent_cadence`; kept across days). A thread without one has
    /// never answered and runs on the next tick.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub cadence: BTreeMap<String, u64>,
    /// The digest of the state thinker last wrote ([`crate::state::State::digest`]): a
    /// tick that loads another state journals it whole, for `thinker replay`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// The zone `day` is counted in ([`Zone::name`]): `[budget] timezone`, else the zone
    /// of the tick that first wrote the ledger. Counting in it, not in whatever zone the
    /// process runs in, keeps the daily cap from moving with `TZ`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Ledger {
    /// The ledger as it stands on `today`: yesterday's spending is forgotten. A `today`
    /// *before* the ledger's day (a clock stepped back, `--now` in the past, cron and a
    /// shell in different time zones) keeps the ledger's day and its spending: the day
    /// never moves backwards, so going back and forth cannot forget what was spent.
    #[must_use]
    pub fn for_day(mut self, today: NaiveDate) -> Ledger {
        if self.day.is_none_or(|day| today > day) {
            self.day = Some(today);
            self.spent.clear();
            self.escalations = 0;
        }
        self
    }

    /// Total spent today over all providers.
    pub fn total(&self) -> Spend {
        self.spent.values().fold(Spend::default(), |mut acc, s| {
            acc.tokens = acc.tokens.saturating_add(s.tokens);
            acc.cost = add_cost(acc.cost, s.cost);
            acc.calls = acc.calls.saturating_add(s.calls);
            acc
        })
    }

    /// The number of the run about to start (saturating: a hostile ledger cannot wrap it).
    pub fn next_run(&self) -> u64 {
        self.runs.saturating_add(1)
    }
}

/// The local calendar day of the clock (budgets are daily in the user's time zone).
pub fn local_day(clock: &Clock) -> NaiveDate {
    clock.today()
}

/// The zone a ledger's day is counted in: `[budget] timezone` when set, else the zone
/// the ledger recorded, else the clock's (which the ledger then records: [`Ledger::today`]).
pub fn day_zone(configured: Option<chrono_tz::Tz>, ledger: &Ledger, clock: &Clock) -> Zone {
    configured
        .map(Zone::Named)
        .or_else(|| ledger.zone.as_deref().and_then(Zone::named))
        .unwrap_or(clock.zone)
}

impl Ledger {
    /// The ledger as it stands today, the day counted in [`day_zone`], with that zone
    /// recorded.
    #[must_use]
    pub fn today(self, configured: Option<chrono_tz::Tz>, clock: &Clock) -> Ledger {
        let zone = day_zone(configured, &self, clock);
        let mut ledger = self.for_day(zone.day(clock.now));
        ledger.zone = Some(zone.name(clock.now));
        ledger
    }
}

/// One provider's breaker, as `ledger.json` keeps it (across days).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BreakerState {
    /// Consecutive calls refused for the key or the quota.
    #[serde(default)]
    pub failures: u32,
    /// Open since then: no call until `breaker_hours` later.
    #[serde(
        default,
        with = "serde_utc_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub opened: Option<DateTime<Utc>>,
    /// The last refusal, short.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// The config and key it counted against (a hash: nothing of the key).
    #[serde(default)]
    pub fingerprint: String,
}

/// What a thread saw when it was last called, and how many ticks it has been skipped
/// since, as `ledger.json` keeps it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuietMemory {
    pub fingerprint: String,
    #[serde(default)]
    pub skipped: u32,
}
