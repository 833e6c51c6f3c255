//! What leaves the machine, call by call (SPEC §9, issue 24): [`prepare`] decides what
//! one provider is sent of a call's [`Outgoing`] — the public copy when private text is
//! withheld from it, everything redacted when it redacts — and the [`Egress`] record the
//! journal keeps of it: provider, local or remote, bytes sent, the sources carried and
//! withheld, redactions by category. `thinker stats --egress` and `doctor` sum these
//! records; `thinker prompt THREAD --as-sent` prints what [`prepare`] gives.
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

use crate::config::ProviderConfig;
use crate::privacy::{Access, PrivateTo, Reach, Withheld, access, reach};
use crate::provider::CallRequest;
use crate::untrusted::redact::{Redactor, Tally};

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
    /// `secret`, `name`).
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

/// What `provider` is sent of `out` under `private_to`, and its egress record (bytes
/// still 0: the transport fills them in once it has sent). The one function the
/// fallback chain and `thinker prompt --as-sent` share.
pub fn prepare(
    provider: &ProviderConfig,
    private_to: PrivateTo,
    redactor: &Redactor,
    out: &Outgoing,
) -> (CallRequest, Egress) {
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
    if provider.redact {
        let mut tally = Tally::default();
        let system = redactor.redact_counted(&request.system);
        let prompt = redactor.redact_counted(&request.prompt);
        tally.add(&system.tally);
        tally.add(&prompt.tally);
        request.system = system.text;
        request.prompt = prompt.text;
        egress.redactions = tally.by_word();
    }
    (request, egress)
}
