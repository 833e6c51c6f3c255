//! Cost control (SPEC §10): the daily token and cost budgets per provider and in total
//! ([`Budget`], counted against the ledger of what was spent today, `crate::ledger`), and
//! the cadence and quiet hours that decide whether a thread runs at all ([`schedule`]).
//!
//! The cadence (`every = N`) counts runs since the thread last *spent* it: since it last
//! answered, or found its world unchanged (the quiet tick). A failed call, or a call the
//! budget or the breaker refused, spends nothing ([`spent_cadence`]): a thread that has
//! never answered, or whose last call failed, runs on the next tick (issue 32: after a
//! key was fixed, the threads that had only failed waited out their cadence).
//!
//! The ledger lives in `ledger.json` in the state directory, beside the subconscious
//! (decision recorded in ARCHITECTURE.md: reading today's usage back from a growing
//! journal would cost more every day); its records and their saturating sums are
//! `crate::ledger`'s, the rules that spend against them are here. Budgets are checked before every call with a
//! conservative estimate (prompt bytes / 4 + max_tokens), and concurrent calls reserve
//! their estimate, so that four threads starting at once cannot overshoot together.
//!
//! Nothing here trusts a number: token sums saturate at `u64::MAX`, costs at `f64::MAX`
//! (NaN and infinity count as `f64::MAX`, over any budget: fail closed; the sums are
//! `crate::ledger`'s), and a ledger with a negative cost is refused, so neither a provider's usage nor `ledger.json` can
//! wrap a sum back under a limit or panic.

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::aggregate::{Skip, ThreadOutcome};
use crate::clock::Clock;
use crate::config::{Config, ThreadConfig};
use crate::ledger::{BreakerState, Ledger, Spend, add_cost, sum_cost, sum_tokens};
use crate::provider::breaker::Breakers;
use crate::provider::config::ProviderConfig;
use crate::provider::{CallError, Cause, Refusal, Scope};
use crate::storage::StorageError;

/// Whether `thread` runs on run number `run` (1-based) at the clock's `now`, read in its
/// zone: enabled, out of its quiet hours, and `every` runs or more since `spent`, the run
/// in which it last spent its cadence (`None`: never, so it runs now).
pub fn schedule(
    thread: Option<&ThreadConfig>,
    run: u64,
    spent: Option<u64>,
    clock: &Clock,
) -> Result<(), Skip> {
    let Some(t) = thread.filter(|t| t.enabled) else {
        return Err(Skip::Disabled);
    };
    if spent.is_some_and(|s| run.saturating_sub(s) < u64::from(t.every)) {
        return Err(Skip::Cadence { every: t.every });
    }
    let local = clock.zone.time(clock.now);
    if let Some(q) = t.quiet_hours.iter().find(|q| q.contains(local)) {
        return Err(Skip::QuietHours {
            window: format!("{}-{}", q.from.format("%H:%M"), q.to.format("%H:%M")),
        });
    }
    Ok(())
}

/// The run in which a thread last spent its cadence, after run `run` ended in `outcome`
/// (`last` before it): an answer, or a world unchanged since the last answer, spends it;
/// a failure, a skip for the budget or the breaker (a call that was not made), and not
/// being due leave it as it was.
pub fn spent_cadence(last: Option<u64>, run: u64, outcome: &ThreadOutcome) -> Option<u64> {
    match outcome {
        ThreadOutcome::Answered(_) | ThreadOutcome::Skipped(Skip::Unchanged { .. }) => Some(run),
        ThreadOutcome::Failed(_) | ThreadOutcome::Skipped(_) => last,
    }
}

/// Records what may have been spent before a call is made (see [`Budget::with_write_ahead`]).
pub type WriteAhead =
    Box<dyn Fn(&BTreeMap<String, Spend>) -> Result<(), StorageError> + Send + Sync>;

/// Daily limits, checked before every call.
pub struct Budget {
    total_tokens: Option<u64>,
    total_cost: Option<f64>,
    limits: BTreeMap<String, (Option<u64>, Option<f64>)>,
    inner: Mutex<BudgetState>,
    write_ahead: Option<WriteAhead>,
    breakers: Mutex<Breakers>,
}

impl std::fmt::Debug for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Budget")
            .field("total_tokens", &self.total_tokens)
            .field("total_cost", &self.total_cost)
            .field("limits", &self.limits)
            .field("inner", &self.inner)
            .field("breakers", &self.breakers)
            .field("write_ahead", &self.write_ahead.is_some())
            .finish()
    }
}

#[derive(Debug, Default)]
struct BudgetState {
    spent: BTreeMap<String, Spend>,
    /// Estimates of calls admitted and not yet recorded, per provider, oldest first.
    reserved: BTreeMap<String, Vec<(u64, f64)>>,
}

impl BudgetState {
    fn reserved(&self, provider: Option<&str>) -> (u64, f64) {
        self.reserved
            .iter()
            .filter(|(p, _)| provider.is_none_or(|want| want == p.as_str()))
            .flat_map(|(_, v)| v.iter())
            .fold((0, 0.0), |(t, c), (et, ec)| {
                (u64::saturating_add(t, *et), add_cost(c, *ec))
            })
    }

    /// What was spent, with every call admitted and not (yet) recorded counted at its
    /// estimate, as if it had billed that much.
    fn spent_or_owed(&self) -> BTreeMap<String, Spend> {
        let mut spent = self.spent.clone();
        for (provider, list) in &self.reserved {
            let entry = spent.entry(provider.clone()).or_default();
            for (tokens, cost) in list {
                entry.add(*tokens, *cost);
            }
        }
        spent
    }
}

impl Budget {
    pub fn new(config: &Config, ledger: &Ledger) -> Budget {
        Budget {
            total_tokens: config.daily_tokens,
            total_cost: config.daily_cost,
            limits: config
                .providers
                .iter()
                .map(|(name, p)| (name.clone(), (p.daily_tokens, p.daily_cost)))
                .collect(),
            inner: Mutex::new(BudgetState {
                spent: ledger.spent.clone(),
                reserved: BTreeMap::new(),
            }),
            write_ahead: None,
            breakers: Mutex::new(Breakers::default()),
        }
    }

    /// The providers' circuit breakers for this run (without them, every provider may
    /// be called).
    #[must_use]
    pub fn with_breakers(mut self, breakers: Breakers) -> Budget {
        self.breakers = Mutex::new(breakers);
        self
    }

    /// The breakers' states, to keep in the ledger.
    pub fn breaker_states(&self) -> BTreeMap<String, BreakerState> {
        self.breakers.lock().map(|b| b.states()).unwrap_or_default()
    }

    /// Before each call is let through, `write` is given what would have been spent if
    /// that call (and every other one still running) billed its whole estimate; when it
    /// fails, the call is refused. The tick writes it to `ledger.json`, so a process
    /// killed mid-call never leaves its spending uncounted (it over-counts, at worst, by
    /// the estimates of the calls in flight, until the tick's final ledger write).
    #[must_use]
    pub fn with_write_ahead(mut self, write: WriteAhead) -> Budget {
        self.write_ahead = Some(write);
        self
    }

    /// What was spent, per provider, including this run's calls. A call admitted and
    /// never recorded (its thread timed out and was dropped mid-call) counts its
    /// estimate: the provider may well have billed it.
    pub fn spent(&self) -> BTreeMap<String, Spend> {
        self.inner
            .lock()
            .map(|s| s.spent_or_owed())
            .unwrap_or_default()
    }

    /// The worst-case cost of a call of `tokens` estimated tokens.
    fn estimate_cost(provider: &ProviderConfig, tokens: u64) -> f64 {
        tokens as f64 * provider.price_in.max(provider.price_out) / 1e6
    }

    /// Whether a call to `provider` estimated at `tokens` fits every budget, without
    /// reserving it (for skipping a thread before its call is even assembled).
    pub fn check(&self, provider: &ProviderConfig, tokens: u64) -> Result<(), Refusal> {
        let Ok(state) = self.inner.lock() else {
            return Err(Refusal::BudgetUnavailable);
        };
        self.fits(&state, provider, tokens)
    }

    /// Every sum saturates, and a cost that is not a number counts as over budget, so no
    /// recorded usage (however large) can wrap a sum back under a limit.
    fn fits(
        &self,
        state: &BudgetState,
        provider: &ProviderConfig,
        tokens: u64,
    ) -> Result<(), Refusal> {
        let cost = Self::estimate_cost(provider, tokens);
        let name = provider.name.as_str();
        let (limit_tokens, limit_cost) = self.limits.get(name).copied().unwrap_or((None, None));
        let mine = state.spent.get(name).copied().unwrap_or_default();
        let (res_t, res_c) = state.reserved(Some(name));
        let mine_t = sum_tokens([mine.tokens, res_t]);
        let mine_c = sum_cost([mine.cost, res_c]);
        let mine_scope = Scope::Provider(name.to_string());
        check_tokens(&mine_scope, mine_t, tokens, limit_tokens)?;
        check_cost(&mine_scope, mine_c, cost, limit_cost)?;
        let (all_t, all_c) = state.reserved(None);
        let total_tokens = sum_tokens(state.spent.values().map(|s| s.tokens).chain([all_t]));
        let total_cost = sum_cost(state.spent.values().map(|s| s.cost).chain([all_c]));
        check_tokens(&Scope::Total, total_tokens, tokens, self.total_tokens)?;
        check_cost(&Scope::Total, total_cost, cost, self.total_cost)?;
        Ok(())
    }
}

fn check_tokens(scope: &Scope, used: u64, tokens: u64, limit: Option<u64>) -> Result<(), Refusal> {
    match limit {
        Some(limit) if used.saturating_add(tokens) > limit => Err(Refusal::Tokens {
            scope: scope.clone(),
            used,
            limit,
            tokens,
        }),
        _ => Ok(()),
    }
}

fn check_cost(scope: &Scope, used: f64, cost: f64, limit: Option<f64>) -> Result<(), Refusal> {
    match limit {
        // `add_cost` is never NaN (it counts as over any budget), so this fails closed.
        Some(limit) if add_cost(used, cost) > limit => Err(Refusal::Cost {
            scope: scope.clone(),
            used,
            limit,
            cost,
        }),
        _ => Ok(()),
    }
}

impl crate::provider::Gate for Budget {
    fn admit(&self, provider: &ProviderConfig, estimated_tokens: u64) -> Result<(), Refusal> {
        let Ok(mut state) = self.inner.lock() else {
            return Err(Refusal::BudgetUnavailable);
        };
        self.fits(&state, provider, estimated_tokens)?;
        let estimate = (
            estimated_tokens,
            Self::estimate_cost(provider, estimated_tokens),
        );
        state
            .reserved
            .entry(provider.name.clone())
            .or_default()
            .push(estimate);
        if let Some(write) = &self.write_ahead
            && let Err(why) = write(&state.spent_or_owed())
        {
            if let Some(list) = state.reserved.get_mut(&provider.name) {
                list.pop();
            }
            return Err(Refusal::WriteAhead {
                source: Cause::new(why),
            });
        }
        Ok(())
    }

    fn breaker(&self, provider: &ProviderConfig) -> Result<(), Refusal> {
        self.breakers
            .lock()
            .map_err(|_| Refusal::BreakerUnavailable)?
            .check(provider)
    }

    fn verdict(&self, provider: &ProviderConfig, error: Option<&CallError>) {
        let warning = self
            .breakers
            .lock()
            .ok()
            .and_then(|mut b| b.observe(provider, error));
        if let Some(warning) = warning {
            tracing::warn!("{warning}");
        }
    }

    fn record(&self, provider: &ProviderConfig, tokens_in: u64, tokens_out: u64, cost: f64) {
        if let Ok(mut state) = self.inner.lock() {
            if let Some(list) = state.reserved.get_mut(&provider.name)
                && !list.is_empty()
            {
                list.remove(0);
            }
            state
                .spent
                .entry(provider.name.clone())
                .or_default()
                .add(tokens_in.saturating_add(tokens_out), cost);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Zone;
    use crate::ledger::local_day;
    use crate::provider::Gate;
    use chrono::NaiveDate;

    fn config(text: &str) -> Config {
        Config::parse(text, None).unwrap()
    }

    const TWO: &str = "[budget]\ndaily_tokens = 1000\n[providers.a]\nkind = \"ollama\"\ndaily_tokens = 600\nprice_in = 1.0\nprice_out = 2.0\ndaily_cost = 0.0015\n[providers.b]\nkind = \"ollama\"\n";

    #[test]
    fn reservations_stop_concurrent_calls_from_overshooting() {
        let c = config(TWO);
        let budget = Budget::new(&c, &Ledger::default());
        let a = &c.providers["a"];
        let b = &c.providers["b"];
        assert!(budget.admit(a, 400).is_ok());
        // 400 reserved + 400 > 600: refused although nothing is spent yet.
        let err = budget.admit(a, 400).unwrap_err();
        assert_eq!(
            err,
            Refusal::Tokens {
                scope: Scope::Provider("a".into()),
                used: 400,
                limit: 600,
                tokens: 400
            }
        );
        assert_eq!(
            err.to_string(),
            "provider a: 400 of 600 daily tokens used, this call may need 400"
        );
        assert!(budget.admit(b, 500).is_ok());
        // Total: 400 + 500 reserved + 200 > 1000.
        assert!(matches!(
            budget.admit(b, 200),
            Err(Refusal::Tokens {
                scope: Scope::Total,
                used: 900,
                limit: 1000,
                ..
            })
        ));
        budget.record(a, 100, 50, 0.0002);
        assert_eq!(budget.spent()["a"].tokens, 150);
        assert!(budget.admit(b, 300).is_ok(), "a's reservation was released");
    }

    /// Guards against a timed-out call (its future dropped before `record`) being counted
    /// as free in the ledger.
    #[test]
    fn a_call_admitted_and_never_recorded_counts_its_estimate() {
        let c = config(TWO);
        let budget = Budget::new(&c, &Ledger::default());
        assert!(budget.admit(&c.providers["a"], 400).is_ok());
        let spent = budget.spent();
        assert_eq!(spent["a"].tokens, 400);
        assert_eq!(spent["a"].calls, 1);
        assert!(spent["a"].cost > 0.0);
    }

    /// Guards against a process killed mid-call leaving the ledger without the call.
    #[test]
    fn spending_is_written_ahead_of_each_call_and_a_failed_write_refuses_it() {
        let c = config(TWO);
        let seen = std::sync::Arc::new(Mutex::new(Vec::new()));
        let log = std::sync::Arc::clone(&seen);
        let fail = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let failing = std::sync::Arc::clone(&fail);
        let budget = Budget::new(&c, &Ledger::default()).with_write_ahead(Box::new(move |s| {
            if failing.load(std::sync::atomic::Ordering::SeqCst) {
                return Err(StorageError::Write {
                    path: "ledger.json".into(),
                    source: std::io::Error::other("disk full"),
                    aftermath: crate::storage::Aftermath::Unchanged,
                });
            }
            log.lock().unwrap().push(s.clone());
            Ok(())
        }));
        let a = &c.providers["a"];
        assert!(budget.admit(a, 100).is_ok());
        assert_eq!(seen.lock().unwrap().last().unwrap()["a"].tokens, 100);
        budget.record(a, 30, 20, 0.0);
        assert!(budget.admit(a, 200).is_ok());
        // 50 recorded + the 200 in flight.
        assert_eq!(seen.lock().unwrap().last().unwrap()["a"].tokens, 250);
        budget.record(a, 10, 10, 0.0);
        fail.store(true, std::sync::atomic::Ordering::SeqCst);
        let err = budget.admit(a, 100).unwrap_err();
        assert!(matches!(err, Refusal::WriteAhead { .. }), "{err:?}");
        let text = err.to_string();
        assert!(
            text.starts_with("the spending of this call could not be recorded ahead of it (cannot write ledger.json: disk full")
                && text.ends_with("); no call is made that the ledger cannot count"),
            "{text}"
        );
        // The refused call holds no reservation: only what was recorded is spent.
        assert_eq!(budget.spent()["a"].tokens, 70);
    }

    /// Guards against a tick at an earlier local day (another TZ, a clock stepped back)
    /// resetting today's spending, so the next tick finds the budget free again.
    #[test]
    fn the_ledger_day_never_moves_backwards() {
        let day = |d: u32| NaiveDate::from_ymd_opt(2026, 11, d).unwrap();
        let mut ledger = Ledger {
            day: Some(day(22)),
            ..Ledger::default()
        };
        ledger.spent.insert(
            "local".into(),
            Spend {
                tokens: 4990,
                cost: 0.5,
                calls: 40,
            },
        );
        let back = ledger.clone().for_day(day(21));
        assert_eq!(back.day, Some(day(22)));
        assert_eq!(back.spent["local"].tokens, 4990);
        let next = ledger.for_day(day(23));
        assert_eq!(next.day, Some(day(23)));
        assert!(next.spent.is_empty());
    }

    #[test]
    fn cost_limits_use_the_dearer_price() {
        let c = config(TWO);
        let budget = Budget::new(&c, &Ledger::default());
        // 800 tokens at $2/M = $0.0016 > $0.0015 (under the token limit? no: 800 > 600).
        assert!(budget.check(&c.providers["a"], 500).is_ok());
        let mut ledger = Ledger::default();
        ledger.spent.insert(
            "a".into(),
            Spend {
                tokens: 10,
                cost: 0.0010,
                calls: 1,
            },
        );
        let budget = Budget::new(&c, &ledger);
        // The refusal carries the limit it would break.
        let err = budget.check(&c.providers["a"], 300).unwrap_err();
        assert!(
            matches!(&err, Refusal::Cost { scope: Scope::Provider(p), limit, .. } if p == "a" && limit.to_bits() == 0.0015_f64.to_bits()),
            "{err:?}"
        );
        assert!(err.to_string().contains("daily cost"), "{err}");
    }

    #[test]
    fn a_huge_recorded_usage_cannot_wrap_the_token_budget() {
        // Regression: u64::MAX reported tokens overflowed the sums (a panic in debug; in
        // release a wrap after which `daily_tokens` stopped nothing).
        let c = config(TWO);
        let budget = Budget::new(&c, &Ledger::default());
        let (a, b) = (&c.providers["a"], &c.providers["b"]);
        budget.admit(b, 10).unwrap();
        budget.record(b, u64::MAX, u64::MAX, 0.0);
        assert_eq!(budget.spent()["b"].tokens, u64::MAX);
        let err = budget.admit(b, 10).unwrap_err();
        assert!(
            matches!(
                err,
                Refusal::Tokens {
                    scope: Scope::Total,
                    used: u64::MAX,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(matches!(
            budget.admit(a, 1),
            Err(Refusal::Tokens {
                scope: Scope::Total,
                ..
            })
        ));
        budget.record(b, 5, 5, 0.0);
        assert_eq!(budget.spent()["b"].tokens, u64::MAX, "saturates");
        assert_eq!(budget.spent()["b"].calls, 2);
    }

    #[test]
    fn a_huge_ledger_cannot_wrap_the_sums() {
        let c = config(TWO);
        let mut ledger = Ledger::default();
        for name in ["a", "b", "c"] {
            ledger.spent.insert(
                name.into(),
                Spend {
                    tokens: u64::MAX,
                    cost: f64::MAX,
                    calls: u64::MAX,
                },
            );
        }
        let total = ledger.total();
        assert_eq!(
            (total.tokens, total.cost, total.calls),
            (u64::MAX, f64::MAX, u64::MAX)
        );
        let budget = Budget::new(&c, &ledger);
        assert!(budget.check(&c.providers["b"], 1).is_err());
        ledger.runs = u64::MAX;
        assert_eq!(ledger.next_run(), u64::MAX);
    }

    #[test]
    fn a_cost_that_is_not_a_number_fails_closed() {
        let c = config(TWO);
        let budget = Budget::new(&c, &Ledger::default());
        let a = &c.providers["a"];
        budget.record(a, 1, 1, f64::NAN);
        let err = budget.check(a, 1).unwrap_err();
        assert!(matches!(err, Refusal::Cost { .. }), "{err:?}");
        // A negative cost does not hand spent budget back.
        let budget = Budget::new(&c, &Ledger::default());
        budget.record(a, 1, 1, 0.0014);
        budget.record(a, 1, 1, -1.0);
        assert!(matches!(budget.check(a, 100), Err(Refusal::Cost { .. })));
        assert_eq!(sum_cost([f64::INFINITY, 1.0]).to_bits(), f64::MAX.to_bits());
        assert_eq!(sum_cost([f64::NAN]).to_bits(), f64::MAX.to_bits());
        assert_eq!(sum_tokens([u64::MAX, 100]), u64::MAX);
    }

    #[test]
    fn a_ledger_with_a_negative_cost_is_refused() {
        let err =
            serde_json::from_str::<Ledger>(r#"{"spent": {"a": {"tokens": 1, "cost": -1e300}}}"#)
                .unwrap_err()
                .to_string();
        assert!(err.contains("cost"), "{err}");
        for bad in [
            r#"{"spent": {"a": {"tokens": -1}}}"#,
            r#"{"spent": {"a": {"tokens": 1e400}}}"#,
            r#"{"spent": {"a": {"tokens": 18446744073709551616}}}"#,
            r#"{"spent": {"a": {"cost": "free"}}}"#,
            r#"{"runs": -3}"#,
            r#"{"escalations": 4294967296}"#,
            r#"{"day": "yesterday"}"#,
        ] {
            assert!(serde_json::from_str::<Ledger>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_new_day_forgets_spending_but_not_runs() {
        let mut ledger = Ledger {
            runs: 9,
            escalations: 2,
            ..Ledger::default()
        };
        ledger.day = NaiveDate::from_ymd_opt(2026, 11, 21);
        ledger.spent.insert(
            "a".into(),
            Spend {
                tokens: 5,
                cost: 0.1,
                calls: 1,
            },
        );
        let today = ledger
            .clone()
            .for_day(NaiveDate::from_ymd_opt(2026, 11, 22).unwrap());
        assert_eq!(
            (today.runs, today.escalations, today.spent.len()),
            (9, 0, 0)
        );
        let same = ledger
            .clone()
            .for_day(NaiveDate::from_ymd_opt(2026, 11, 21).unwrap());
        assert_eq!(same, ledger);
    }

    /// Runs a thread of `every = 3` through runs 1..=9, each due run ending as
    /// `outcome(run)`: the runs it was called in.
    fn cadence(outcome: impl Fn(u64) -> ThreadOutcome) -> Vec<u64> {
        let c = config(
            "[providers.p]\nkind = \"ollama\"\n[threads.oracle]\nmodel = \"p/m\"\nevery = 3\n",
        );
        let t = c.thread(crate::thread::ThreadName::Oracle);
        let now = Clock::utc(crate::timestamp::parse("2026-11-22T10:05:00Z").unwrap());
        let mut spent = None;
        let mut ran = Vec::new();
        for run in 1..=9 {
            let ended = match schedule(t, run, spent, &now) {
                Ok(()) => {
                    ran.push(run);
                    outcome(run)
                }
                Err(skip) => ThreadOutcome::Skipped(skip),
            };
            spent = spent_cadence(spent, run, &ended);
        }
        ran
    }

    /// Table: what each outcome of a due run does to the cadence.
    #[test]
    fn only_an_answer_or_an_unchanged_world_spends_the_cadence() {
        use crate::aggregate::ThreadError;
        let answered = |_| ThreadOutcome::Answered(crate::answer::Answer::default());
        assert_eq!(cadence(answered), vec![1, 4, 7], "from the first run");
        let unchanged = |_| {
            ThreadOutcome::Skipped(Skip::Unchanged {
                skipped: 1,
                max_skipped: 12,
            })
        };
        assert_eq!(cadence(unchanged), vec![1, 4, 7]);
        // Failing until run 3, then answering: called on every run until it answers.
        let fixed = |run| {
            if run < 3 {
                ThreadOutcome::Failed(ThreadError::Call("GROQ_API_KEY is not set".into()))
            } else {
                answered(run)
            }
        };
        assert_eq!(cadence(fixed), vec![1, 2, 3, 6, 9]);
        // One failure after an answer: called again on the next run.
        let once = |run| {
            if run == 4 {
                ThreadOutcome::Failed(ThreadError::TimedOut {
                    seconds: 1.0,
                    waiting: None,
                })
            } else {
                answered(run)
            }
        };
        assert_eq!(cadence(once), vec![1, 4, 5, 8]);
        // A call the budget or the breaker refused was not made: tried again next run.
        let refused = |run| {
            if run == 1 {
                ThreadOutcome::Skipped(Skip::Budget {
                    detail: "daily_tokens".into(),
                })
            } else {
                answered(run)
            }
        };
        assert_eq!(cadence(refused), vec![1, 2, 5, 8]);
        let now = Clock::utc(crate::timestamp::parse("2026-11-22T10:05:00Z").unwrap());
        assert_eq!(schedule(None, 1, None, &now), Err(Skip::Disabled));
    }

    /// Regression (a hostile probe): with `daily_cap = 2` used up, two ticks an hour
    /// apart under other `TZ` values made 4 calls: the day is counted in the zone the
    /// ledger recorded (or the configured one), not the process's.
    #[test]
    fn the_day_is_counted_in_the_zone_the_ledger_recorded() {
        use chrono::FixedOffset;
        let at = |t: &str, hours: i32| {
            Clock::new(
                crate::timestamp::parse(t).unwrap(),
                Zone::Fixed(FixedOffset::east_opt(hours * 3600).unwrap()),
            )
        };
        // 23:30 UTC: the cap is used up on the 22nd, counted in UTC.
        let mut used = Ledger::default().today(None, &at("2026-11-22T23:30:00Z", 0));
        used.escalations = 2;
        assert_eq!(used.zone.as_deref(), Some("+00:00"));
        // An hour later under UTC+9 (already the 23rd there), then UTC-11: still the
        // 22nd in the recorded zone, so nothing is forgotten.
        for clock in [
            at("2026-11-22T23:45:00Z", 9),
            at("2026-11-22T23:50:00Z", -11),
        ] {
            let later = used.clone().today(None, &clock);
            assert_eq!((later.day, later.escalations), (used.day, 2), "{clock:?}");
        }
        // The recorded zone's next day does start afresh.
        let next = used.clone().today(None, &at("2026-11-23T00:10:00Z", 9));
        assert_eq!(next.escalations, 0);
        // A configured zone wins and is recorded.
        let tokyo = used.today(Some(chrono_tz::Asia::Tokyo), &at("2026-11-22T23:45:00Z", 0));
        assert_eq!(tokyo.zone.as_deref(), Some("Asia/Tokyo"));
        assert_eq!(tokyo.escalations, 0, "the 23rd in Tokyo");
    }

    /// Regression: quiet hours and the budget's day were read in the machine's
    /// zone; they follow the clock's zone, whatever `TZ` the tests run under.
    #[test]
    fn quiet_hours_and_the_day_follow_the_clocks_zone() {
        use crate::clock::Zone;
        use chrono::FixedOffset;
        let c = config(
            "[providers.p]\nkind = \"ollama\"\n[threads.oracle]\nmodel = \"p/m\"\nquiet_hours = [\"22:00-07:00\"]\n",
        );
        let t = c.thread(crate::thread::ThreadName::Oracle);
        // 03:30 UTC is 22:30 the evening before in UTC-5, 12:30 in UTC+9.
        let instant = crate::timestamp::parse("2026-11-22T03:30:00Z").unwrap();
        let west = Clock::new(
            instant,
            Zone::Fixed(FixedOffset::west_opt(5 * 3600).unwrap()),
        );
        let east = Clock::new(
            instant,
            Zone::Fixed(FixedOffset::east_opt(9 * 3600).unwrap()),
        );
        let utc = Clock::utc(instant);
        assert!(matches!(
            schedule(t, 1, None, &west),
            Err(Skip::QuietHours { .. })
        ));
        assert_eq!(schedule(t, 1, None, &east), Ok(()));
        assert!(matches!(
            schedule(t, 1, None, &utc),
            Err(Skip::QuietHours { .. })
        ));
        assert_eq!(
            local_day(&west),
            NaiveDate::from_ymd_opt(2026, 11, 21).unwrap()
        );
        assert_eq!(
            local_day(&utc),
            NaiveDate::from_ymd_opt(2026, 11, 22).unwrap()
        );
    }
}
