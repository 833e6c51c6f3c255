//! What may leave the machine (SPEC §9): which providers are local, which
//! sources are private, and what each provider may receive of private text.
//!
//! - **Local or remote.** A provider is local when its base URL's host is a loopback
//!   address (or `replay`, which sends nothing), else remote; `local = true | false`
//!   overrides it (the config resolves it into `ProviderConfig::local`). A remote provider
//!   may be `trusted = true`: allowed to receive private text.
//! - **Private sources.** By kind: `maildir`, `transcript`, `files` under the agent's
//!   memory directory (`[escalation] memory_dir`, or any path with a `memory` or
//!   `memories` directory in it); a `sample` that samples a private source; an `archive`
//!   when some thread's answers may carry private text (the archive is forgotten memory).
//!   `private = true | false` on a source overrides its kind.
//! - **`[privacy] private_to`** ([`PrivateTo`]) gives each provider an [`Access`] to
//!   private text: `Full` (local, trusted, or `any`), `Redacted` (remote under
//!   `redacted`: everything it is sent is redacted) or `Withheld` (remote under `local`:
//!   private sources, and text models wrote from private text, are left out of its calls).
//! - **Text models wrote from private text** ("private-derived"): a thread whose chain has
//!   a model that may see private text, when some thread reads a private source, is
//!   *seeing*: the entries it added (the entry's `source`), its own recent findings, the
//!   hints it gave the others and the escalations it raised are private-derived; so are
//!   the primary model's decisions when its chain may see private text. A `Withheld`
//!   provider gets the memory and the escalation prompt without them
//!   ([`policy::Policy::public_state`], [`policy::Policy::public_escalation`]), and the
//!   prompt says what it cannot see ([`Withheld::note`]).
//!
//! This module holds the words and rules of the policy and stands below `crate::config`
//! (which reads `[privacy]` into them); [`policy`] applies them to a whole `Config`.
//! Pure: no I/O. Must not send, redact or journal (that is `egress`), nor build prompts
//! (`input`, `prompt`): it says what is private, and `policy` makes the public copies.

use std::path::Path;

use serde::{Deserialize, Serialize};

pub mod policy;

use crate::provider::config::ProviderConfig;
use crate::sources::{Source, SourceKind};

/// `[privacy] private_to`: where private text may go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PrivateTo {
    /// Remote providers get it with personal data replaced by placeholders.
    #[default]
    Redacted,
    /// Only local and `trusted` providers get it; it is withheld from the others.
    Local,
    /// Every provider gets it as it is.
    Any,
}

impl PrivateTo {
    pub fn as_str(self) -> &'static str {
        match self {
            PrivateTo::Redacted => "redacted",
            PrivateTo::Local => "local",
            PrivateTo::Any => "any",
        }
    }

    /// What a provider that is `local` (or `trusted`) receives of private text.
    pub fn access(self, local: bool, trusted: bool) -> Access {
        match (self, local || trusted) {
            (PrivateTo::Any, _) | (_, true) => Access::Full,
            (PrivateTo::Redacted, false) => Access::Redacted,
            (PrivateTo::Local, false) => Access::Withheld,
        }
    }
}

/// `[privacy]`, validated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    pub private_to: PrivateTo,
}

/// What a provider receives of private text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// As it is.
    #[default]
    Full,
    /// With personal data replaced.
    Redacted,
    /// None of it.
    Withheld,
}

/// Where a provider is, as the egress ledger says it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Reach {
    #[default]
    Local,
    Remote,
}

/// The provider's [`Access`] under `private_to`.
pub fn access(provider: &ProviderConfig, private_to: PrivateTo) -> Access {
    private_to.access(provider.local, provider.trusted)
}

/// The provider's [`Reach`].
pub fn reach(provider: &ProviderConfig) -> Reach {
    if provider.local {
        Reach::Local
    } else {
        Reach::Remote
    }
}

/// Whether a source is private by its own settings and kind (an `archive` is decided by
/// the [`policy::Policy`]: it follows the memory).
pub fn source_is_private(source: &Source, memory_dir: Option<&Path>) -> bool {
    if let Some(private) = source.private {
        return private;
    }
    match &source.kind {
        SourceKind::Maildir(_) | SourceKind::Transcript(_) => true,
        SourceKind::Files(f) => f
            .patterns()
            .iter()
            .any(|p| in_memory_dir(Path::new(p), memory_dir)),
        SourceKind::Sample(s) => s.sources().iter().any(|s| source_is_private(s, memory_dir)),
        SourceKind::Command(_)
        | SourceKind::System(_)
        | SourceKind::Ics(_)
        | SourceKind::Archive(_) => false,
    }
}

/// Whether a (resolved) path or glob lies in the agent's memory directory: under
/// `memory_dir`, or with a `memory` or `memories` directory in it.
pub(crate) fn in_memory_dir(pattern: &Path, memory_dir: Option<&Path>) -> bool {
    if memory_dir.is_some_and(|d| pattern.starts_with(d)) {
        return true;
    }
    let parent = pattern.parent().unwrap_or(pattern);
    parent.components().any(|c| {
        let c = c.as_os_str().to_string_lossy().to_lowercase();
        c == "memory" || c == "memories" || c == ".memory"
    })
}

/// What a call to a `Withheld` provider leaves out, for its prompt and the ledger.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Withheld {
    /// The private sources left out, by name.
    pub sources: Vec<String>,
    /// Texts models wrote from private text that were left out: entries of the memory,
    /// recent findings and hints, escalation reasons, findings and outcomes.
    pub items: usize,
}

impl Withheld {
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty() && self.items == 0
    }

    /// What the prompt says: thinker's own words, outside any fence, so the model knows
    /// what it cannot see.
    pub fn note(&self) -> String {
        let mut parts = Vec::new();
        if !self.sources.is_empty() {
            let plural = if self.sources.len() == 1 { "" } else { "s" };
            parts.push(format!(
                "the private source{plural} {}",
                self.sources.join(", ")
            ));
        }
        if self.items > 0 {
            let plural = if self.items == 1 { "" } else { "s" };
            parts.push(format!(
                "{} item{plural} of memory written from private text",
                self.items
            ));
        }
        format!(
            "## Withheld from this call\nPrivate text goes only to models on the user's machine (privacy setting `private_to = \"local\"`), so this call does not carry {}. You cannot see them: do not guess what they say, and do not report that they are missing.\n\n",
            parts.join(" and ")
        )
    }

    /// `prompt` with [`Withheld::note`] before its last "## Your answer" section (at the
    /// end when it has none: an override template).
    pub fn insert_note(&self, prompt: &str) -> String {
        if self.is_empty() {
            return prompt.to_string();
        }
        let note = self.note();
        match prompt.rfind("\n## Your answer") {
            Some(at) => format!("{}\n{note}{}", &prompt[..at], &prompt[at + 1..]),
            None => format!("{}\n\n{}", prompt.trim_end(), note.trim_end()),
        }
    }
}

/// What a due escalation's reason reads as when it came from private text.
pub const WITHHELD_REASON: &str =
    "(withheld: raised from private text, which this model may not see)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_follows_the_setting_and_the_provider() {
        use Access::{Full, Redacted, Withheld};
        // (private_to, local, trusted) → access
        let cases = [
            (PrivateTo::Redacted, true, false, Full),
            (PrivateTo::Redacted, false, false, Redacted),
            (PrivateTo::Redacted, false, true, Full),
            (PrivateTo::Local, true, false, Full),
            (PrivateTo::Local, false, false, Withheld),
            (PrivateTo::Local, false, true, Full),
            (PrivateTo::Any, false, false, Full),
            (PrivateTo::Any, true, false, Full),
        ];
        for (to, local, trusted, want) in cases {
            assert_eq!(to.access(local, trusted), want, "{to:?} {local} {trusted}");
        }
    }

    #[test]
    fn memory_directories_are_recognised() {
        let dir = Path::new("/home/u/agent/notes");
        for (pattern, want) in [
            ("/home/u/agent/notes/*.md", true),
            ("/home/u/agent/memory/*.md", true),
            ("/home/u/Memories/2026/*.txt", true),
            ("/home/u/agent/notes-old/*.md", false),
            ("/etc/hosts", false),
            ("/home/u/memory.md", false),
        ] {
            assert_eq!(
                in_memory_dir(Path::new(pattern), Some(dir)),
                want,
                "{pattern}"
            );
        }
    }

    #[test]
    fn the_note_names_what_was_withheld_and_sits_before_the_answer() {
        let w = Withheld {
            sources: vec!["inbox".into(), "notes".into()],
            items: 3,
        };
        let prompt = w.insert_note("# A\n\n## Your sources\nx\n\n## Your answer\nJSON");
        assert!(
            prompt.contains("the private sources inbox, notes and 3 items of memory"),
            "{prompt}"
        );
        let note_at = prompt.find("## Withheld").unwrap();
        assert!(note_at < prompt.find("## Your answer").unwrap(), "{prompt}");
        assert_eq!(Withheld::default().insert_note("p"), "p");
        assert!(w.insert_note("custom").starts_with("custom\n\n## Withheld"));
    }
}
