//! The one model of thinker's health ([`Health`]): what `thinker doctor` and the MCP
//! `status` tool report, computed once, here, so they cannot disagree.
//!
//! Owns what health is made of and how it is computed: from the journal's last
//! [`RECENT_TICKS`] ticks (the last tick, each thread's status and failed calls in a row,
//! skips by reason), from `ledger.json` (the day's spending and what is left of each
//! budget, counted in the ledger's day and zone by the budgets' one rule,
//! [`Ledger::today`]; each provider's breaker, its phase by the breaker's one rule,
//! [`breaker::phase`]), from the state (how old the memory is, against
//! `Allowances::stale_after`; the messages that wait for the user or owe a send:
//! [`Messages`], by [`crate::escalation::held`]'s one reading) and from the config's
//! limits ([`Allowances`]). What cannot be read
//! is said in the value (`*_unreadable`, `journal_skipped`), never an error: a report of
//! health must not fail for the ill health it reports.
//!
//! Text read from the journal and the ledger (thread and provider names, statuses,
//! reasons, errors) is cleaned and cut here ([`untrusted::excerpt`]): the value is safe to
//! print.
//!
//! Must not: judge or word it (a level, advice, a layout: `cmd::doctor`'s and `mcp`'s,
//! which only format this value), read the real clock, the environment or the machine's
//! zone (the clock and the key fingerprints are handed in), or write anything.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use chrono::{DateTime, NaiveDate, Utc};

use crate::clock::Clock;
use crate::config::Config;
use crate::journal::Status;
use crate::journal::read::{self, Span, Tick};
use crate::ledger::{Ledger, Spend};
use crate::provider::breaker::{self, KeyNow, Phase};
use crate::provider::config::DEFAULT_BREAKER_HOURS;
use crate::state::{Delivery, State};
use crate::storage::StateDir;
use crate::untrusted;

/// How many of the last ticks the journal is read for (whole journal files are read
/// until there are this many).
pub const RECENT_TICKS: usize = 100;

/// The limits health compares the ledger with, taken from the config.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Allowances {
    pub daily_tokens: Option<u64>,
    pub daily_cost: Option<f64>,
    pub providers: BTreeMap<String, ProviderAllowance>,
    /// Escalation calls per local day.
    pub escalations_per_day: Option<u32>,
    /// `[budget] timezone`: the zone the day is counted in ([`crate::ledger::day_zone`]).
    pub timezone: Option<chrono_tz::Tz>,
    /// A memory whose last applied tick is older than this is out of date (`None`:
    /// never said).
    pub stale_after: Option<chrono::TimeDelta>,
}

/// A provider's daily limits, and how long its breaker stays open.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ProviderAllowance {
    pub daily_tokens: Option<u64>,
    pub daily_cost: Option<f64>,
    pub breaker_hours: u32,
}

impl Allowances {
    /// The limits of `config`; none without a config.
    pub fn from_config(config: Option<&Config>) -> Allowances {
        let Some(config) = config else {
            return Allowances {
                stale_after: Some(crate::recollect::RecallSettings::default().stale_after),
                ..Allowances::default()
            };
        };
        Allowances {
            daily_tokens: config.daily_tokens,
            daily_cost: config.daily_cost,
            providers: config
                .providers
                .iter()
                .map(|(name, p)| {
                    let allowance = ProviderAllowance {
                        daily_tokens: p.daily_tokens,
                        daily_cost: p.daily_cost,
                        breaker_hours: p.breaker.hours,
                    };
                    (name.clone(), allowance)
                })
                .collect(),
            escalations_per_day: Some(config.escalation.daily_cap),
            timezone: config.timezone,
            stale_after: Some(config.recall.stale_after),
        }
    }

    /// How long `provider`'s breaker stays open (the default for one not configured).
    fn breaker_hours(&self, provider: &str) -> u32 {
        self.providers
            .get(provider)
            .map_or(DEFAULT_BREAKER_HOURS, |p| p.breaker_hours)
    }
}

/// What is known, where health is asked, of each provider's config and key now.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Keys {
    /// Not known: the MCP server does not see the environment the tick runs in. A
    /// breaker is taken to count against the key it recorded.
    #[default]
    Unknown,
    /// Each configured provider's fingerprint now
    /// ([`crate::provider::config::fingerprints`]), as the tick will compute it.
    Known(BTreeMap<String, crate::provider::config::Fingerprint>),
}

impl Keys {
    fn now(&self, provider: &str) -> KeyNow<'_> {
        match self {
            Keys::Unknown => KeyNow::Unknown,
            Keys::Known(fingerprints) => KeyNow::of(fingerprints, provider),
        }
    }
}

/// What is spent today against a limit.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Budget {
    pub spent: Spend,
    pub tokens_limit: Option<u64>,
    pub cost_limit: Option<f64>,
}

impl Budget {
    /// `spent` against these limits.
    pub fn new(spent: Spend, tokens_limit: Option<u64>, cost_limit: Option<f64>) -> Budget {
        Budget {
            spent,
            tokens_limit,
            cost_limit,
        }
    }

    /// Tokens left today (never below 0); `None` without a limit.
    pub fn tokens_left(&self) -> Option<u64> {
        self.tokens_limit
            .map(|t| t.saturating_sub(self.spent.tokens))
    }

    /// Money left today (never below 0); `None` without a limit.
    pub fn cost_left(&self) -> Option<f64> {
        self.cost_limit.map(|c| (c - self.spent.cost).max(0.0))
    }
}

/// The last tick.
#[derive(Clone, Debug, PartialEq)]
pub struct LastTick {
    pub time: DateTime<Utc>,
    pub run: u64,
    pub exit_code: u8,
    pub duration_ms: u64,
    /// The tick's cost and its escalation's.
    pub cost: f64,
}

/// A thread in the last tick.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadHealth {
    pub thread: String,
    /// `answered`, `failed` or `skipped`.
    pub status: String,
    /// Why it was skipped, or its error.
    pub detail: Option<String>,
    /// Failed calls in a row, newest first ([`failure_streak`]).
    pub failure_streak: usize,
}

/// A provider's breaker as the ledger keeps it, and its phase now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BreakerHealth {
    pub phase: Phase,
    /// Refusals counted in a row.
    pub failures: u32,
    /// The last refusal, short (may be empty).
    pub reason: String,
    /// When it opened, if it did.
    pub opened: Option<DateTime<Utc>>,
}

/// A message that could not be delivered to the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Undelivered {
    /// Its id for `thinker release` / `discard`.
    pub id: String,
    pub raised: DateTime<Utc>,
    /// What it says (cleaned, cut).
    pub text: String,
    /// Why its last send failed (cleaned, cut).
    pub error: String,
}

/// The messages that wait for the user, and the sends owed (from the state).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Messages {
    /// Given up: every try failed, or one may have half-delivered.
    pub undelivered: Vec<Undelivered>,
    /// The ids of the messages held for the user's confirmation.
    pub held: Vec<String>,
    /// Of those, how many never got their nudge (every try failed).
    pub nudges_lost: usize,
    /// Records whose send failed and is tried again on a later tick.
    pub retrying: usize,
    /// The error of the last failed send still owed or given up (a nudge's too).
    pub last_error: Option<String>,
}

impl Messages {
    /// What waits in `state`'s escalation history.
    pub fn of(state: &State) -> Messages {
        use crate::escalation::held::{self, Waiting};
        let history = &state.escalation_history;
        let waiting = held::list(history);
        let undelivered = waiting
            .iter()
            .filter(|h| h.waiting == Waiting::Undelivered)
            .map(|h| Undelivered {
                id: h.id.clone(),
                raised: h.raised,
                text: untrusted::excerpt(&h.text, 200),
                error: untrusted::excerpt(&h.why, 200),
            })
            .collect();
        let held = waiting
            .iter()
            .filter(|h| h.waiting == Waiting::Confirmation)
            .map(|h| h.id.clone())
            .collect();
        let owing = |r: &&crate::state::EscalationRecord| {
            matches!(r.delivery, Some(Delivery::Owed | Delivery::Undelivered))
                && r.delivery_error.is_some()
        };
        let nudges_lost = history
            .iter()
            .filter(|r| {
                held::needs_confirmation(&r.outcome) && r.delivery == Some(Delivery::Undelivered)
            })
            .count();
        Messages {
            undelivered,
            held,
            nudges_lost,
            retrying: history
                .iter()
                .filter(|r| r.delivery == Some(Delivery::Owed) && r.sends > 0)
                .count(),
            last_error: history
                .iter()
                .rev()
                .find(owing)
                .and_then(|r| r.delivery_error.as_deref())
                .map(|e| untrusted::excerpt(e, 200)),
        }
    }
}

/// thinker's health at a time.
#[derive(Clone, Debug, PartialEq)]
pub struct Health {
    /// The journal could not be read (why); the journal's fields are then empty.
    pub journal_unreadable: Option<String>,
    /// Journal lines that could not be read and were skipped, said in one line.
    pub journal_skipped: Option<String>,
    /// How many ticks were read (at most [`RECENT_TICKS`]).
    pub ticks_read: usize,
    /// The last tick that ran threads (a line without threads is an escalation whose
    /// tick line was lost: not a tick).
    pub last_tick: Option<LastTick>,
    /// The threads of the last tick, in its order.
    pub threads: Vec<ThreadHealth>,
    /// Every thread of the ticks read: its failed calls in a row.
    pub failure_streaks: BTreeMap<String, usize>,
    /// Skipped threads by reason over the ticks read.
    pub skips: BTreeMap<String, usize>,
    /// The ledger could not be read (why); the ledger's fields are then those of an
    /// empty ledger.
    pub ledger_unreadable: Option<String>,
    /// The local day the spending counts ([`Ledger::today`]).
    pub day: NaiveDate,
    /// Spent today over all providers, against the total limits.
    pub total: Budget,
    /// Spent today per provider: each configured one, and any other the ledger names.
    pub providers: BTreeMap<String, Budget>,
    pub escalations: u32,
    pub escalations_per_day: Option<u32>,
    /// Every breaker the ledger keeps (closed ones too: their phase says so).
    pub breakers: BTreeMap<String, BreakerHealth>,
    /// The state could not be read (why); the state's fields are then empty.
    pub state_unreadable: Option<String>,
    /// When the memory was last updated: the state's last applied tick.
    pub memory_updated: Option<DateTime<Utc>>,
    /// That was longer ago than [`Allowances::stale_after`].
    pub stale: bool,
    /// The messages that wait for the user, and the sends owed.
    pub messages: Messages,
}

/// Failed calls in a row of `thread`, counted back from the last of `ticks` (oldest
/// first): a skipped tick, or one without the thread, neither counts nor breaks it; any
/// other status ends it.
pub fn failure_streak(ticks: &[Tick], thread: &str) -> usize {
    failure_streaks(ticks).get(thread).copied().unwrap_or(0)
}

/// [`failure_streak`] of every thread of `ticks`, in one pass back from the last (a
/// thread named twice in a tick counts by its first line there).
fn failure_streaks(ticks: &[Tick]) -> BTreeMap<&str, usize> {
    // (failed in a row, ended)
    let mut streaks: BTreeMap<&str, (usize, bool)> = BTreeMap::new();
    for tick in ticks.iter().rev() {
        let mut seen = BTreeSet::new();
        for line in &tick.line.threads {
            if !seen.insert(line.thread.as_str()) {
                continue;
            }
            let (streak, ended) = streaks.entry(line.thread.as_str()).or_default();
            match line.status {
                _ if *ended => {}
                Status::Failed => *streak += 1,
                Status::Skipped => {}
                _ => *ended = true,
            }
        }
    }
    streaks
        .into_iter()
        .map(|(thread, (streak, _))| (thread, streak))
        .collect()
}

/// Reads the journal's last ticks and the ledger of `state_dir` and computes the health
/// at `clock` ([`Health::of`]); what cannot be read is said in the value.
pub fn read(state_dir: &Path, allowances: &Allowances, keys: &Keys, clock: &Clock) -> Health {
    let (ticks, journal_unreadable, journal_skipped) =
        match read::lenient(state_dir, Span::Last(RECENT_TICKS)) {
            Ok(journal) => (journal.ticks, None, journal.skipped.warning("journal")),
            Err(e) => (Vec::new(), Some(e.to_string()), None),
        };
    let dir = StateDir::at(state_dir);
    let (ledger, ledger_unreadable) = match dir.load_ledger() {
        Ok(ledger) => (ledger, None),
        Err(e) => (Ledger::default(), Some(e.to_string())),
    };
    let health = Health {
        journal_unreadable,
        journal_skipped,
        ledger_unreadable,
        ..Health::of(&ticks, &ledger, allowances, keys, clock)
    };
    match dir.load() {
        Ok(state) => health.with_state(&state, allowances, clock),
        Err(e) => Health {
            state_unreadable: Some(e.to_string()),
            ..health
        },
    }
}

impl Health {
    /// This health with what `state` says: how old the memory is, what waits for the user.
    #[must_use]
    pub fn with_state(self, state: &State, allowances: &Allowances, clock: &Clock) -> Health {
        let memory_updated = state.last_tick;
        let out_of_date = match (memory_updated, allowances.stale_after) {
            (Some(at), Some(after)) => clock.now - at > after,
            _ => false,
        };
        Health {
            memory_updated,
            stale: out_of_date,
            messages: Messages::of(state),
            ..self
        }
    }

    /// The health at `clock` from the journal's last ticks (oldest first), the ledger as
    /// read, the config's limits and what is known of the keys now.
    pub fn of(
        ticks: &[Tick],
        ledger: &Ledger,
        allowances: &Allowances,
        keys: &Keys,
        clock: &Clock,
    ) -> Health {
        let last = ticks.iter().rev().find(|t| !t.line.threads.is_empty());
        let streaks = failure_streaks(ticks);
        let threads = last
            .map(|t| {
                t.line
                    .threads
                    .iter()
                    .map(|th| ThreadHealth {
                        thread: untrusted::excerpt(th.thread.as_str(), 40),
                        status: untrusted::excerpt(th.status.as_str(), 40),
                        detail: th
                            .skip
                            .as_ref()
                            .map(|s| untrusted::excerpt(&s.brief(), 200))
                            .or_else(|| th.error.as_deref().map(|e| untrusted::excerpt(e, 200))),
                        failure_streak: streaks.get(th.thread.as_str()).copied().unwrap_or(0),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut failure_streaks = BTreeMap::new();
        for (thread, streak) in &streaks {
            failure_streaks
                .entry(untrusted::excerpt(thread, 40))
                .or_insert(*streak);
        }
        let mut skips: BTreeMap<String, usize> = BTreeMap::new();
        for line in ticks.iter().flat_map(|t| &t.line.threads) {
            if let Some(skip) = &line.skip {
                *skips
                    .entry(untrusted::excerpt(skip.reason(), 80))
                    .or_default() += 1;
            }
        }
        // The budgets' day: the ledger's zone and rule (`[budget] timezone`, else the
        // zone the ledger recorded, else the clock's), never the clock's day alone.
        let ledger = ledger.clone().today(allowances.timezone, clock);
        let day = ledger.day.unwrap_or_else(|| clock.today());
        let mut providers: BTreeMap<String, Budget> = allowances
            .providers
            .iter()
            .map(|(name, a)| {
                let spent = ledger.spent.get(name).copied().unwrap_or_default();
                (
                    name.clone(),
                    Budget::new(spent, a.daily_tokens, a.daily_cost),
                )
            })
            .collect();
        for (name, spent) in &ledger.spent {
            providers
                .entry(untrusted::excerpt(name, 80))
                .or_insert_with(|| Budget::new(*spent, None, None));
        }
        let mut breakers = BTreeMap::new();
        for (name, state) in &ledger.breakers {
            let phase = breaker::phase(
                state,
                allowances.breaker_hours(name),
                clock.now,
                keys.now(name),
            );
            breakers
                .entry(untrusted::excerpt(name, 80))
                .or_insert_with(|| BreakerHealth {
                    phase,
                    failures: state.failures,
                    reason: untrusted::excerpt(&state.reason, 200),
                    opened: state.opened,
                });
        }
        Health {
            journal_unreadable: None,
            journal_skipped: None,
            ticks_read: ticks.len(),
            last_tick: last.map(|t| LastTick {
                time: t.line.time,
                run: t.line.run,
                exit_code: t.line.exit_code,
                duration_ms: t.line.duration_ms,
                cost: t.cost(),
            }),
            threads,
            failure_streaks,
            skips,
            ledger_unreadable: None,
            day,
            total: Budget::new(
                ledger.total(),
                allowances.daily_tokens,
                allowances.daily_cost,
            ),
            providers,
            escalations: ledger.escalations,
            escalations_per_day: allowances.escalations_per_day,
            breakers,
            state_unreadable: None,
            memory_updated: None,
            stale: false,
            messages: Messages::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Zone;
    use crate::ledger::BreakerState;
    use crate::timestamp;
    use serde_json::{Value, json};

    fn tick(statuses: &[(&str, &str)]) -> Tick {
        let threads: Vec<Value> = statuses
            .iter()
            .map(|(thread, status)| json!({"thread": thread, "status": status}))
            .collect();
        let line = json!({"time": "2026-11-22T10:00:00Z", "threads": threads});
        Tick {
            line: serde_json::from_value(line).unwrap(),
            escalation: None,
        }
    }

    fn at(t: &str) -> DateTime<Utc> {
        timestamp::parse(t).unwrap()
    }

    /// Table: a thread's statuses over the last ticks (oldest first) and its streak.
    #[test]
    fn a_failure_streak_counts_back_over_failed_ticks_and_skips_skipped_ones() {
        for (statuses, want) in [
            (vec![], 0),
            (vec!["answered"], 0),
            (vec!["failed"], 1),
            (vec!["failed", "answered"], 0),
            (vec!["answered", "failed", "failed"], 2),
            (
                vec!["answered", "failed", "skipped", "failed", "skipped"],
                2,
            ),
            (vec!["failed", "answered", "failed"], 1),
            (vec!["failed", "absent", "failed"], 2),
        ] {
            let ticks: Vec<Tick> = statuses
                .iter()
                .map(|s| {
                    if *s == "absent" {
                        tick(&[("dreamer", "answered")])
                    } else {
                        tick(&[("watcher", s)])
                    }
                })
                .collect();
            assert_eq!(failure_streak(&ticks, "watcher"), want, "{statuses:?}");
            let health = Health::of(
                &ticks,
                &Ledger::default(),
                &Allowances::default(),
                &Keys::Unknown,
                &Clock::utc(at("2026-11-22T10:05:00Z")),
            );
            let streak = health.failure_streaks.get("watcher").copied().unwrap_or(0);
            assert_eq!(streak, want, "{statuses:?}");
        }
    }

    /// Table: what is left of a limit (never below 0).
    #[test]
    fn a_budget_is_what_is_left_of_each_limit() {
        let spent = Spend {
            tokens: 1_500,
            cost: 0.75,
            calls: 3,
        };
        for (tokens, cost, want) in [
            (None, None, (None, None)),
            (Some(2_000), Some(1.0), (Some(500), Some(0.25))),
            (Some(1_000), Some(0.5), (Some(0), Some(0.0))),
        ] {
            let b = Budget::new(spent, tokens, cost);
            assert_eq!(
                (b.tokens_left(), b.cost_left()),
                want,
                "{tokens:?} {cost:?}"
            );
        }
    }

    /// Table: the day the spending counts is the ledger's, in the ledger's zone — never
    /// the clock's day in the clock's zone (the MCP `status` tool's old rule). The
    /// ledger spent 100 tokens on 2026-11-22.
    #[test]
    fn the_day_is_the_ledgers_in_its_zone() {
        let ledger = |zone: Option<&str>| Ledger {
            day: Some(NaiveDate::from_ymd_opt(2026, 11, 22).unwrap()),
            spent: BTreeMap::from([(
                "groq".to_string(),
                Spend {
                    tokens: 100,
                    cost: 0.0,
                    calls: 1,
                },
            )]),
            zone: zone.map(str::to_string),
            ..Ledger::default()
        };
        let tokyo: chrono_tz::Tz = "Asia/Tokyo".parse().unwrap();
        // (ledger's zone, [budget] timezone, now in UTC, the day, tokens spent that day)
        let cases = [
            // No zone anywhere: the clock's (UTC).
            (None, None, "2026-11-22T23:30:00Z", "2026-11-22", 100),
            (None, None, "2026-11-23T00:30:00Z", "2026-11-23", 0),
            // The ledger counts in New York: still the 22nd there, the spending stands.
            (
                Some("America/New_York"),
                None,
                "2026-11-23T00:30:00Z",
                "2026-11-22",
                100,
            ),
            // The ledger counts in Tokyo: the 23rd there already, a new day.
            (
                Some("Asia/Tokyo"),
                None,
                "2026-11-22T16:30:00Z",
                "2026-11-23",
                0,
            ),
            (
                Some("Asia/Tokyo"),
                None,
                "2026-11-22T14:59:00Z",
                "2026-11-22",
                100,
            ),
            // `[budget] timezone` wins over the ledger's.
            (
                Some("America/New_York"),
                Some(tokyo),
                "2026-11-22T16:30:00Z",
                "2026-11-23",
                0,
            ),
        ];
        for (zone, configured, now, day, tokens) in cases {
            let allowances = Allowances {
                timezone: configured,
                ..Allowances::default()
            };
            let clock = Clock::new(at(now), Zone::UTC);
            let health = Health::of(&[], &ledger(zone), &allowances, &Keys::Unknown, &clock);
            assert_eq!(health.day.to_string(), day, "{zone:?} {configured:?} {now}");
            assert_eq!(
                health.total.spent.tokens, tokens,
                "{zone:?} {configured:?} {now}"
            );
        }
    }

    /// Each breaker's phase comes from the breaker's rule with the provider's hours and
    /// the key now: a known new key makes it stale, an unknown key leaves it as kept.
    #[test]
    fn breakers_take_their_phase_from_the_breaker_with_the_key_now() {
        let ledger = Ledger {
            breakers: BTreeMap::from([(
                "groq".to_string(),
                BreakerState {
                    failures: 3,
                    opened: Some(at("2026-11-22T09:00:00Z")),
                    reason: "HTTP 401".into(),
                    fingerprint: "old".into(),
                },
            )]),
            ..Ledger::default()
        };
        let allowances = Allowances {
            providers: BTreeMap::from([(
                "groq".to_string(),
                ProviderAllowance {
                    daily_tokens: None,
                    daily_cost: None,
                    breaker_hours: 2,
                },
            )]),
            ..Allowances::default()
        };
        let until = at("2026-11-22T11:00:00Z");
        let known = |fp: &str| {
            Keys::Known(BTreeMap::from([(
                "groq".to_string(),
                crate::provider::config::Fingerprint::fixed(fp),
            )]))
        };
        let cases = [
            (Keys::Unknown, "2026-11-22T10:59:59Z", Phase::Open { until }),
            (
                Keys::Unknown,
                "2026-11-22T11:00:00Z",
                Phase::HalfOpen { until },
            ),
            (known("old"), "2026-11-22T10:00:00Z", Phase::Open { until }),
            (known("new"), "2026-11-22T10:00:00Z", Phase::Stale),
            (
                Keys::Known(BTreeMap::new()),
                "2026-11-22T10:00:00Z",
                Phase::Stale,
            ),
        ];
        for (keys, now, want) in cases {
            let health = Health::of(&[], &ledger, &allowances, &keys, &Clock::utc(at(now)));
            assert_eq!(health.breakers["groq"].phase, want, "{keys:?} {now}");
        }
    }

    /// What waits for the user, from the history: given up, held (its nudge lost or
    /// not), retried; and the memory's age against `stale_after`.
    #[test]
    fn the_state_says_what_waits_and_how_old_the_memory_is() {
        use crate::state::{DecisionRecord, EscalationRecord};
        let record = |minute: u32, outcome: &str, delivery: Option<Delivery>, sends: u32| {
            let at = at(&format!("2026-11-22T09:{minute:02}:00Z"));
            EscalationRecord {
                decision: Some(DecisionRecord {
                    action: "notify".into(),
                    text: format!("text {minute}"),
                    why: String::new(),
                }),
                delivery,
                sends,
                delivery_error: sends.gt(&0).then(|| format!("error {minute}")),
                ..EscalationRecord::raised(
                    at,
                    "watcher",
                    format!("reason {minute}"),
                    outcome.into(),
                )
            }
        };
        let state = State {
            last_tick: Some(at("2026-11-22T06:00:00Z")),
            escalation_history: vec![
                record(0, "failed: down; gave up", Some(Delivery::Undelivered), 4),
                record(1, "held: needs confirmation (a phone number): x", None, 0),
                record(
                    2,
                    "held: needs confirmation (a phone number): y",
                    Some(Delivery::Undelivered),
                    4,
                ),
                record(3, "failed: down (try 1 of 4)", Some(Delivery::Owed), 1),
                record(4, "notified: fine", None, 0),
            ],
            ..State::default()
        };
        let allowances = Allowances {
            stale_after: Some(chrono::TimeDelta::hours(3)),
            ..Allowances::default()
        };
        let health = |now: &str| {
            let clock = Clock::utc(at(now));
            Health::of(&[], &Ledger::default(), &allowances, &Keys::Unknown, &clock).with_state(
                &state,
                &allowances,
                &clock,
            )
        };
        let h = health("2026-11-22T10:00:00Z");
        let m = &h.messages;
        assert_eq!(
            (m.undelivered.len(), m.held.len(), m.nudges_lost, m.retrying),
            (1, 2, 1, 1)
        );
        assert_eq!(m.undelivered[0].text, "text 0");
        assert_eq!(m.undelivered[0].error, "error 0");
        assert_eq!(m.last_error.as_deref(), Some("error 3"));
        assert!(h.stale, "4 h old, stale after 3 h");
        assert!(!health("2026-11-22T08:00:00Z").stale);
    }

    /// What cannot be read is said in the value, never an error.
    #[test]
    fn what_cannot_be_read_is_said() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("ledger.json"), "{ torn").unwrap();
        std::fs::write(tmp.path().join("journal.jsonl"), "not a line\n").unwrap();
        let clock = Clock::utc(at("2026-11-22T10:00:00Z"));
        let health = read(tmp.path(), &Allowances::default(), &Keys::Unknown, &clock);
        assert!(health.ledger_unreadable.is_some(), "{health:?}");
        assert!(health.journal_skipped.is_some(), "{health:?}");
        assert!(health.last_tick.is_none());
        assert_eq!(health.day.to_string(), "2026-11-22");
    }
}
