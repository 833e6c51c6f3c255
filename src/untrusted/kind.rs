//! The kinds of hostile text the screen knows ([`Kind`]): their names in JSON and corpus
//! labels, and their labels for people. A leaf of `untrusted`: the rules, the weak
//! signals (`features`) and the screen all speak of kinds; it knows none of them.

use std::fmt;

use serde::Serialize;

/// The kinds of hostile text the screen knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// "Ignore previous instructions", role changes, fake turns and chat-template tokens.
    InstructionOverride,
    /// "As the system administrator", "a message from OpenAI".
    AuthorityClaim,
    /// Requests to escalate, notify, pay, run commands.
    ActionRequest,
    /// URLs carrying secrets or data, image beacons, "send … to …".
    Exfiltration,
    /// Invisible characters, mixed-script words, encoded blobs.
    HiddenText,
    /// A date far in the past or the future (answers only).
    TemporalAnomaly,
}

impl Kind {
    /// Every kind, in order.
    pub const ALL: [Kind; 6] = [
        Kind::InstructionOverride,
        Kind::AuthorityClaim,
        Kind::ActionRequest,
        Kind::Exfiltration,
        Kind::HiddenText,
        Kind::TemporalAnomaly,
    ];

    /// The kind's name in JSON and in corpus labels (`instruction_override`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::InstructionOverride => "instruction_override",
            Kind::AuthorityClaim => "authority_claim",
            Kind::ActionRequest => "action_request",
            Kind::Exfiltration => "exfiltration",
            Kind::HiddenText => "hidden_text",
            Kind::TemporalAnomaly => "temporal_anomaly",
        }
    }

    /// The kind for people (`instruction override`), also used in markers.
    pub fn label(self) -> &'static str {
        match self {
            Kind::InstructionOverride => "instruction override",
            Kind::AuthorityClaim => "authority claim",
            Kind::ActionRequest => "action request",
            Kind::Exfiltration => "exfiltration",
            Kind::HiddenText => "hidden text",
            Kind::TemporalAnomaly => "temporal anomaly",
        }
    }

    /// The kind of a name (`instruction_override`).
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}
