//! [`Refusal`]: why a [`super::Gate`] did not let a call through to a provider — a daily
//! token or cost budget it would break (SPEC §10), the provider's open circuit breaker
//! (SPEC §9), or the bookkeeping that must come first failing.
//!
//! Its texts reach the skip reasons in the journal, the attempts' errors and the
//! messages, so each says what stopped the call and what lets it through again.

use std::fmt;
use std::sync::Arc;

use chrono::{DateTime, Utc};

/// Whose budget a call would break.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The named provider's own `daily_tokens` / `daily_cost`.
    Provider(String),
    /// The `[budget]` table's, over every provider.
    Total,
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scope::Provider(name) => write!(f, "provider {name}"),
            Scope::Total => f.write_str("total"),
        }
    }
}

/// Why a call was not let through.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Refusal {
    /// The call's estimate would pass a daily token budget.
    #[error("{scope}: {used} of {limit} daily tokens used, this call may need {tokens}")]
    Tokens {
        scope: Scope,
        used: u64,
        limit: u64,
        tokens: u64,
    },
    /// The call's estimated cost would pass a daily cost budget.
    #[error("{scope}: ${used:.4} of ${limit:.2} daily cost used, this call may cost ${cost:.4}")]
    Cost {
        scope: Scope,
        used: f64,
        limit: f64,
        cost: f64,
    },
    /// What the call may spend could not be written to the ledger before it: no call is
    /// made that the ledger cannot count.
    #[error(
        "the spending of this call could not be recorded ahead of it ({source}); no call is made that the ledger cannot count"
    )]
    WriteAhead { source: Cause },
    /// The budget's shared state was poisoned by a thread that panicked.
    #[error("budget bookkeeping is unavailable")]
    BudgetUnavailable,
    /// The breakers' shared state was poisoned by a thread that panicked.
    #[error("breaker bookkeeping is unavailable")]
    BreakerUnavailable,
    /// The provider refused the key or the quota too often; its breaker is open.
    #[error(
        "breaker open since {} after {failures} refusals ({reason}); not called until {} or the config changes, or {hours} h pass",
        crate::timestamp::format(*.opened),
        .key_var.as_deref().unwrap_or("its key variable")
    )]
    BreakerOpen {
        opened: DateTime<Utc>,
        failures: u32,
        /// The last refusal, short.
        reason: String,
        /// The environment variable that holds the provider's key, if it has one.
        key_var: Option<String>,
        /// `breaker_hours`: when a call is let through again.
        hours: u32,
    },
}

/// Why the write-ahead failed, shared: a refusal is kept in every attempt it stopped.
#[derive(Clone, Debug)]
pub struct Cause(pub Arc<dyn std::error::Error + Send + Sync>);

impl Cause {
    pub fn new(error: impl std::error::Error + Send + Sync + 'static) -> Cause {
        Cause(Arc::new(error))
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// The same failure, or two that say the same (the causes are not comparable otherwise).
impl PartialEq for Cause {
    fn eq(&self, other: &Cause) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.to_string() == other.0.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_texts_say_whose_budget_and_by_how_much() {
        let tokens = Refusal::Tokens {
            scope: Scope::Provider("a".into()),
            used: 400,
            limit: 600,
            tokens: 400,
        };
        assert_eq!(
            tokens.to_string(),
            "provider a: 400 of 600 daily tokens used, this call may need 400"
        );
        let cost = Refusal::Cost {
            scope: Scope::Total,
            used: 0.001,
            limit: 0.0015,
            cost: 0.0006,
        };
        assert_eq!(
            cost.to_string(),
            "total: $0.0010 of $0.00 daily cost used, this call may cost $0.0006"
        );
        let open = Refusal::BreakerOpen {
            opened: crate::timestamp::parse("2026-11-22T10:05:00Z").unwrap(),
            failures: 3,
            reason: "HTTP 401".into(),
            key_var: None,
            hours: 6,
        };
        assert_eq!(
            open.to_string(),
            "breaker open since 2026-11-22T10:05:00Z after 3 refusals (HTTP 401); not called until its key variable or the config changes, or 6 h pass"
        );
    }
}
