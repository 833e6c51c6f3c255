//! What leaves the machine, call by call (SPEC §9): [`prepare`] decides what
//! one provider is sent of a call's [`Outgoing`] — the public copy when private text is
//! withheld from it, everything redacted when it redacts — and the [`Egress`] record the
//! journal keeps of it: provider, local or remote, bytes sent, the sources carried and
//! withheld, redactions by category. The embeddings calls keep the same record
//! (`crate::embeddings` decides what they send: the memory and the questions, by the same
//! rule); a record with no request is texts withheld whole. `thinker stats --egress` and
//! `doctor` sum these records; `thinker prompt THREAD --as-sent` prints what [`prepare`]
//! gives.
//!
//! **Bytes** are the request bodies as sent, every try counted (a retry sends the body
//! again; a request that failed to connect is counted too: what may have left). Headers
//! (the key, the model name) are not counted. A `replay` provider sends nothing and keeps
//! no record.
//!
//! Must not: send anything (the provider's transport does), decide what is private
//! (`privacy`), or build prompts (`input`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::privacy::{Access, PrivateTo, Reach, Withheld, access, reach};
use crate::provider::config::ProviderConfig;
use crate::provider::wire::CallRequest;
use crate::untrusted::alias::Aliases;
use crate::untrusted::redact::Redactor;

/// One call's egress, as the journal keeps it on each attempt that was made.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Egress {
    pub provider: String,
    pub reach: Reach,
    /// What the provider may receive of private text (`full`, `redacted`, `withheld`).
    pub private: Access,
    /// Request bodies sent, every try counted.
    pub bytes: u64,
    /// Requests made.
    pub requests: u32,
    /// The sources the call carried, by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    /// The private sources withheld from it, by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub withheld: Vec<String>,
    /// Texts models wrote from private text that were withheld (memory entries, recent
    /// findings, hints, escalation reasons and outcomes).
    #[serde(skip_serializing_if = "is_zero")]
    pub withheld_items: u64,
    /// Values replaced by placeholders, by category (`email`, `phone`, `card`, `iban`,
    /// `secret`, `name`), and `id`: the entry ids given an alias.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub redactions: BTreeMap<String, u64>,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Egress {
    /// Replacements over all categories.
    pub fn redacted(&self) -> u64 {
        self.redactions.values().sum()
    }

    /// Whether anything private was left out of the call.
    pub fn withheld_anything(&self) -> bool {
        !self.withheld.is_empty() || self.withheld_items > 0
    }
}

/// What one call may send: the request as built (every source, all the memory), the
/// names of the sources it carries and, when private text could be left out, the
/// public copy for a provider that may not see it.
#[derive(Clone, Debug)]
pub struct Outgoing {
    pub request: CallRequest,
    pub sources: Vec<String>,
    pub public: Option<Public>,
}

/// The public copy of a call: its prompt without private text (and saying so), the
/// sources it still carries, and what was left out.
#[derive(Clone, Debug)]
pub struct Public {
    pub prompt: String,
    pub sources: Vec<String>,
    pub withheld: Withheld,
}

impl Outgoing {
    /// A call with no source and nothing to withhold (a probe, a test).
    pub fn plain(request: CallRequest) -> Outgoing {
        Outgoing {
            request,
            sources: Vec::new(),
            public: None,
        }
    }

    /// Whether private text would be left out for a `Withheld` provider, so that a
    /// fallback chain prefers the providers that may see it.
    pub fn withholds(&self) -> bool {
        self.public.as_ref().is_some_and(|p| !p.withheld.is_empty())
    }
}

/// What `provider` is sent of `out` under `private_to`, its egress record (bytes still
/// 0: the transport fills them in once it has sent) and the aliases its entry ids were
/// given (the answer gets the ids back through [`Aliases::restore`]). The one function
/// the fallback chain and `thinker prompt --as-sent` share.
///
/// The redactor learns the names the prompt's header lines give whatever the provider
/// (a local model reading the mail is how a remote one later sees what it wrote):
/// [`Redactor::learn`].
pub fn prepare(
    provider: &ProviderConfig,
    private_to: PrivateTo,
    redactor: &Redactor,
    out: &Outgoing,
) -> (CallRequest, Egress, Aliases) {
    redactor.learn(&out.request.prompt);
    let access = access(provider, private_to);
    let mut request = out.request.clone();
    let mut egress = Egress {
        provider: provider.name.clone(),
        reach: reach(provider),
        private: access,
        sources: out.sources.clone(),
        ..Egress::default()
    };
    if access == Access::Withheld
        && let Some(public) = &out.public
    {
        request.prompt.clone_from(&public.prompt);
        egress.sources.clone_from(&public.sources);
        egress.withheld.clone_from(&public.withheld.sources);
        egress.withheld_items = public.withheld.items as u64;
    }
    let mut aliases = Aliases::default();
    if provider.redact {
        let sent = redactor.redact_request(&[&request.system, &request.prompt]);
        // Two texts in, two out.
        let mut texts = sent.texts.into_iter();
        request.system = texts.next().unwrap_or_default();
        request.prompt = texts.next().unwrap_or_default();
        egress.redactions = sent.tally.by_word();
        if !sent.aliases.is_empty() {
            egress
                .redactions
                .insert(ID_ALIASES.into(), sent.aliases.len() as u64);
        }
        aliases = sent.aliases;
    }
    (request, egress, aliases)
}

/// The category of the egress record's `redactions` that counts the entry ids given an
/// alias (their words held a personal value: [`Redactor::redact_request`]).
pub const ID_ALIASES: &str = "id";

/// What left the machine for one provider on one local day: the sums of its records.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ProviderDay {
    pub day: String,
    pub provider: String,
    pub reach: Reach,
    /// Models asked (attempts that sent something).
    pub calls: u64,
    pub requests: u64,
    pub bytes: u64,
    /// Calls by what the provider could receive of private text.
    pub private: BTreeMap<String, u64>,
    /// Every source a call carried, by name.
    pub sources: std::collections::BTreeSet<String>,
    /// Every private source withheld from a call, by name.
    pub withheld: std::collections::BTreeSet<String>,
    pub withheld_items: u64,
    /// Calls that had something withheld.
    pub withheld_calls: u64,
    pub redactions: BTreeMap<String, u64>,
}

/// The totals of a [`Summary`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    pub calls: u64,
    pub bytes: u64,
    pub remote_bytes: u64,
    pub local_bytes: u64,
    /// Distinct providers, by where they are.
    pub remote_providers: u64,
    pub local_providers: u64,
    pub redactions: u64,
    pub withheld_calls: u64,
    pub withheld: std::collections::BTreeSet<String>,
    pub withheld_items: u64,
}

/// The egress ledger summed per provider and local day (`thinker stats --egress`,
/// `doctor`): rows by day, then provider.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub days: Vec<ProviderDay>,
    pub total: Totals,
}

impl Summary {
    /// Sums `records`, each with its local day.
    pub fn of<'a>(records: impl IntoIterator<Item = (chrono::NaiveDate, &'a Egress)>) -> Summary {
        let mut rows: BTreeMap<(chrono::NaiveDate, String), ProviderDay> = BTreeMap::new();
        let mut remote = std::collections::BTreeSet::new();
        let mut local = std::collections::BTreeSet::new();
        let mut total = Totals::default();
        for (day, e) in records {
            let row = rows
                .entry((day, e.provider.clone()))
                .or_insert_with(|| ProviderDay {
                    day: day.to_string(),
                    provider: e.provider.clone(),
                    reach: e.reach,
                    ..ProviderDay::default()
                });
            // A record of texts withheld whole (an embeddings refresh for a provider that
            // may not see private text) made no request: no call, no provider reached.
            let sent = e.requests > 0;
            row.calls += u64::from(sent);
            row.requests += u64::from(e.requests);
            row.bytes = row.bytes.saturating_add(e.bytes);
            *row.private
                .entry(access_word(e.private).into())
                .or_default() += 1;
            row.sources.extend(e.sources.iter().cloned());
            row.withheld.extend(e.withheld.iter().cloned());
            row.withheld_items += e.withheld_items;
            row.withheld_calls += u64::from(e.withheld_anything());
            for (class, n) in &e.redactions {
                *row.redactions.entry(class.clone()).or_default() += n;
            }
            total.calls += u64::from(sent);
            total.bytes = total.bytes.saturating_add(e.bytes);
            match e.reach {
                Reach::Remote if sent => {
                    total.remote_bytes = total.remote_bytes.saturating_add(e.bytes);
                    remote.insert(e.provider.clone());
                }
                Reach::Local if sent => {
                    total.local_bytes = total.local_bytes.saturating_add(e.bytes);
                    local.insert(e.provider.clone());
                }
                _ => {}
            }
            total.redactions += e.redacted();
            total.withheld_calls += u64::from(e.withheld_anything());
            total.withheld.extend(e.withheld.iter().cloned());
            total.withheld_items += e.withheld_items;
        }
        total.remote_providers = remote.len() as u64;
        total.local_providers = local.len() as u64;
        Summary {
            days: rows.into_values().collect(),
            total,
        }
    }

    /// One line for people: `41.2 KB to 2 remote providers, private text redacted (37
    /// replacements), nothing withheld`.
    pub fn line(&self) -> String {
        let t = &self.total;
        if t.calls == 0 && t.withheld_calls == 0 {
            return "nothing sent".into();
        }
        let mut parts = Vec::new();
        let plural = |n: u64| if n == 1 { "" } else { "s" };
        if t.remote_providers > 0 {
            parts.push(format!(
                "{} to {} remote provider{}",
                bytes(t.remote_bytes),
                t.remote_providers,
                plural(t.remote_providers)
            ));
        } else {
            parts.push("nothing to a remote provider".into());
        }
        if t.local_providers > 0 {
            parts.push(format!(
                "{} to {} on this machine",
                bytes(t.local_bytes),
                if t.local_providers == 1 {
                    "1 provider".to_string()
                } else {
                    format!("{} providers", t.local_providers)
                }
            ));
        }
        parts.push(if t.redactions > 0 {
            format!(
                "private text redacted ({} replacement{})",
                t.redactions,
                plural(t.redactions)
            )
        } else {
            "nothing redacted".into()
        });
        parts.push(if t.withheld_calls > 0 {
            let what: Vec<&str> = t.withheld.iter().map(String::as_str).collect();
            let sources = if what.is_empty() {
                String::new()
            } else {
                format!(": {}", what.join(", "))
            };
            format!(
                "private text withheld from {} call{}{sources}",
                t.withheld_calls,
                plural(t.withheld_calls)
            )
        } else {
            "nothing withheld".into()
        });
        parts.join(", ")
    }
}

/// An access as the ledger writes it.
pub fn access_word(access: Access) -> &'static str {
    match access {
        Access::Full => "full",
        Access::Redacted => "redacted",
        Access::Withheld => "withheld",
    }
}

/// A byte count for people: `812 B`, `41.2 KB`, `3.4 MB` (1000s).
pub fn bytes(n: u64) -> String {
    match n {
        0..1000 => format!("{n} B"),
        1000..1_000_000 => format!("{:.1} KB", n as f64 / 1000.0),
        _ => format!("{:.1} MB", n as f64 / 1_000_000.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(provider: &str, reach: Reach, bytes: u64) -> Egress {
        Egress {
            provider: provider.into(),
            reach,
            bytes,
            requests: 1,
            ..Egress::default()
        }
    }

    #[test]
    fn a_summary_sums_per_provider_and_day_and_says_it_in_a_line() {
        let d1 = chrono::NaiveDate::from_ymd_opt(2026, 11, 21).unwrap();
        let d2 = chrono::NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
        let mut groq = record("groq", Reach::Remote, 30_000);
        groq.redactions = BTreeMap::from([("email".into(), 30), ("phone".into(), 7)]);
        let mut router = record("openrouter", Reach::Remote, 11_200);
        router.withheld = vec!["inbox".into()];
        let ollama = record("ollama", Reach::Local, 900);
        let early = record("groq", Reach::Remote, 5);
        let summary = Summary::of([(d2, &groq), (d2, &router), (d2, &ollama), (d1, &early)]);
        assert_eq!(summary.days.len(), 4);
        assert_eq!(
            (summary.days[0].day.as_str(), summary.days[0].bytes),
            ("2026-11-21", 5)
        );
        assert_eq!(summary.total.remote_bytes, 41_205);
        assert_eq!(
            summary.line(),
            "41.2 KB to 2 remote providers, 900 B to 1 provider on this machine, private text redacted (37 replacements), private text withheld from 1 call: inbox"
        );
        assert_eq!(Summary::default().line(), "nothing sent");
        // Texts withheld whole (an embeddings refresh): no call, no provider reached.
        let withheld = Egress {
            provider: "emb".into(),
            reach: Reach::Remote,
            private: Access::Withheld,
            withheld: vec!["memory".into()],
            withheld_items: 3,
            ..Egress::default()
        };
        let only = Summary::of([(d1, &withheld)]);
        assert_eq!(
            (
                only.total.calls,
                only.total.remote_providers,
                only.days[0].calls
            ),
            (0, 0, 0)
        );
        assert_eq!(
            only.line(),
            "nothing to a remote provider, nothing redacted, private text withheld from 1 call: memory"
        );
        assert_eq!(
            Summary::of([(d1, &ollama)]).line(),
            "nothing to a remote provider, 900 B to 1 provider on this machine, nothing redacted, nothing withheld"
        );
    }
}
