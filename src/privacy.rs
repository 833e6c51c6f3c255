//! What may leave the machine (SPEC §9, issue 24): which providers are local, which
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
//!   provider gets the memory and the escalation prompt without them ([`Policy::public_state`],
//!   [`Policy::public_escalation`]), and the prompt says what it cannot see
//!   ([`Withheld::note`]).
//!
//! Pure: no I/O. Must not send, redact or journal (that is `egress`), nor build prompts
//! (`input`, `prompt`): it says what is private and makes the public copies.

use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::aggregate::ThreadOutcome;
use crate::config::Config;
use crate::provider::config::{ModelRef, ProviderConfig};
use crate::sources::{Source, SourceKind, source_names};
use crate::state::{Category, State};
use crate::thread::ThreadName;

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
/// the [`Policy`]: it follows the memory).
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
fn in_memory_dir(pattern: &Path, memory_dir: Option<&Path>) -> bool {
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

/// The privacy of one configuration: private sources, seeing threads, who withholds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    pub private_to: PrivateTo,
    /// Per thread ([`ThreadName::index`]): the names of its private sources.
    private: [BTreeSet<String>; 4],
    /// Per thread: its answers may carry private text.
    seeing: [bool; 4],
    /// The primary model's decisions may carry private text.
    primary_seeing: bool,
    /// Per thread: a model of its chain gets private text withheld.
    withholding: [bool; 4],
    /// A model of the escalation chain gets private text withheld.
    primary_withholding: bool,
}

impl Policy {
    /// The policy of `config`.
    pub fn new(config: &Config) -> Policy {
        let private_to = config.privacy.private_to;
        let memory_dir = config.escalation.memory_dir.as_deref();
        let access_of = |models: &[ModelRef]| -> Vec<Access> {
            models
                .iter()
                .filter_map(|m| config.providers.get(&m.provider))
                .map(|p| access(p, private_to))
                .collect()
        };
        let mut policy = Policy {
            private_to,
            ..Policy::default()
        };
        let mut reads_private = false;
        let mut full = [false; 4];
        for thread in ThreadName::ALL {
            let Some(t) = config.thread(thread).filter(|t| t.enabled) else {
                continue;
            };
            let accesses = access_of(&t.models);
            full[thread.index()] = accesses.contains(&Access::Full)
                || (private_to != PrivateTo::Local && !accesses.is_empty());
            policy.withholding[thread.index()] = accesses.contains(&Access::Withheld);
            let names = source_names(&t.sources);
            for (source, name) in t.sources.iter().zip(names) {
                if source_is_private(source, memory_dir) {
                    policy.private[thread.index()].insert(name);
                }
            }
            if !policy.private[thread.index()].is_empty() && full[thread.index()] {
                reads_private = true;
            }
        }
        for thread in ThreadName::ALL {
            policy.seeing[thread.index()] = reads_private && full[thread.index()];
        }
        let primary = access_of(&config.escalation.models);
        policy.primary_seeing = reads_private
            && (primary.contains(&Access::Full)
                || (private_to != PrivateTo::Local && !primary.is_empty()));
        policy.primary_withholding = primary.contains(&Access::Withheld);
        // An archive holds forgotten memory: private when the memory may be.
        if policy.seeing.iter().any(|s| *s) {
            for thread in ThreadName::ALL {
                let Some(t) = config.thread(thread) else {
                    continue;
                };
                let names = source_names(&t.sources);
                for (source, name) in t.sources.iter().zip(names) {
                    if matches!(source.kind, SourceKind::Archive(_)) && source.private.is_none() {
                        policy.private[thread.index()].insert(name);
                    }
                }
            }
        }
        policy
    }

    /// The names of `thread`'s private sources.
    pub fn private_sources(&self, thread: ThreadName) -> &BTreeSet<String> {
        &self.private[thread.index()]
    }

    /// Whether a call of `thread` may have private text withheld (a model of its chain is
    /// `Withheld`): its input then has a second, public prompt.
    pub fn withholds(&self, thread: ThreadName) -> bool {
        self.private_to == PrivateTo::Local && self.withholding[thread.index()]
    }

    /// Whether the escalation call may have private text withheld.
    pub fn withholds_escalation(&self) -> bool {
        self.private_to == PrivateTo::Local && self.primary_withholding
    }

    /// Whether `thread`'s answers may carry private text.
    pub fn seeing(&self, thread: ThreadName) -> bool {
        self.seeing[thread.index()]
    }

    fn any_seeing(&self) -> bool {
        self.seeing.iter().any(|s| *s)
    }

    /// Whether a thread named in the state (`watcher`, or an unknown name) may have
    /// written from private text: an unknown writer counts as seeing when any thread is.
    fn written_privately(&self, thread: Option<&str>) -> bool {
        match thread.and_then(|t| t.parse::<ThreadName>().ok()) {
            Some(t) => self.seeing(t),
            None => self.any_seeing(),
        }
    }

    /// `state` as a `Withheld` provider may see it in `thread`'s prompt, and how many
    /// items were left out: entries added by seeing threads, the seeing threads' recent
    /// findings, hints when another thread is seeing, and escalations whose reason or
    /// outcome came from private text.
    pub fn public_state(&self, state: &State) -> (State, usize) {
        let mut public = state.clone();
        let mut items = 0;
        for cat in Category::ALL {
            let entries = public.entries_mut(cat);
            let before = entries.len();
            entries.retain(|e| !self.written_privately(e.source.as_deref()));
            items += before - entries.len();
        }
        for thread in ThreadName::ALL {
            let others_seeing = ThreadName::ALL
                .iter()
                .any(|t| *t != thread && self.seeing(*t));
            let own = public.thread_state.get_mut(thread);
            if self.seeing(thread) {
                items += own.last_findings.len() + own.history.iter().map(Vec::len).sum::<usize>();
                own.last_findings.clear();
                own.history.clear();
            }
            if others_seeing && !own.focus_hint.trim().is_empty() {
                items += 1;
                own.focus_hint.clear();
            }
        }
        let before = public.escalation_history.len();
        public.escalation_history.retain(|r| {
            !(self.written_privately(Some(&r.thread))
                || self.primary_seeing && r.decision.is_some())
        });
        items += before - public.escalation_history.len();
        (public, items)
    }

    /// What the escalation prompt may show a `Withheld` primary model: the state made
    /// public (its due records kept, their reasons replaced when they came from private
    /// text), `due` renumbered into the public history, the seeing threads' answers
    /// without their findings, and how many items were left out.
    pub fn public_escalation(
        &self,
        state: &State,
        due: &[usize],
        outcomes: &[ThreadOutcome; 4],
    ) -> (State, Vec<usize>, [ThreadOutcome; 4], usize) {
        let (mut public, mut items) = self.public_state(state);
        // The history again, from the original: due records stay (renumbered).
        let mut history = Vec::new();
        let mut renumbered = Vec::new();
        for (i, r) in state.escalation_history.iter().enumerate() {
            let private_reason = self.written_privately(Some(&r.thread));
            if due.contains(&i) {
                let mut r = r.clone();
                if private_reason {
                    r.reason = WITHHELD_REASON.into();
                    items += 1;
                }
                renumbered.push(history.len());
                history.push(r);
            } else if !(private_reason || self.primary_seeing && r.decision.is_some()) {
                history.push(r.clone());
            }
        }
        public.escalation_history = history;
        let outcomes = std::array::from_fn(|i| {
            let thread = ThreadName::ALL[i];
            match &outcomes[i] {
                ThreadOutcome::Answered(a) if self.seeing(thread) => {
                    items += a.findings.len();
                    let mut a = a.clone();
                    a.findings.clear();
                    a.escalate_reason.clear();
                    ThreadOutcome::Answered(a)
                }
                other => other.clone(),
            }
        });
        (public, renumbered, outcomes, items)
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

    const CONFIG: &str = r#"
[providers.near]
kind = "openai"
base_url = "http://127.0.0.1:8080/v1"
[providers.far]
kind = "openai"
base_url = "https://api.example.com/v1"
[providers.lan]
kind = "openai"
base_url = "http://192.168.1.2/v1"
local = true
[providers.tunnel]
kind = "openai"
base_url = "http://localhost:9000/v1"
local = false
[providers.corp]
kind = "openai"
base_url = "https://llm.corp.example/v1"
trusted = true
[providers.files]
kind = "replay"
dir = "/tmp"
[threads.watcher]
model = "far/m"
[[threads.watcher.sources]]
kind = "maildir"
name = "inbox"
path = "/m"
[[threads.watcher.sources]]
kind = "system"
[threads.librarian]
model = "near/m"
[[threads.librarian.sources]]
kind = "files"
paths = ["/home/u/agent/memory/*.md"]
[[threads.librarian.sources]]
kind = "archive"
[threads.oracle]
model = "far/m"
[[threads.oracle.sources]]
kind = "command"
name = "mail"
command = ["himalaya"]
private = true
[[threads.oracle.sources]]
kind = "maildir"
name = "lists"
path = "/lists"
private = false
"#;

    fn config(private_to: &str) -> Config {
        let text = format!("{CONFIG}\n[privacy]\nprivate_to = \"{private_to}\"\n");
        Config::parse(&text, None).unwrap()
    }

    /// SPEC §9: local by the host unless `local` says otherwise; redacted by default
    /// when private text would reach it only redacted or not at all.
    #[test]
    fn providers_are_local_or_remote_and_redact_by_default_when_remote() {
        // (provider, local, trusted, redacts under redacted, local, any)
        let cases = [
            ("near", true, false, [false, false, false]),
            ("far", false, false, [true, true, false]),
            ("lan", true, false, [false, false, false]),
            ("tunnel", false, false, [true, true, false]),
            ("corp", false, true, [false, false, false]),
            ("files", true, false, [false, false, false]),
        ];
        for (i, to) in ["redacted", "local", "any"].into_iter().enumerate() {
            let c = config(to);
            for (name, local, trusted, redacts) in cases {
                let p = &c.providers[name];
                assert_eq!((p.local, p.trusted), (local, trusted), "{name}");
                assert_eq!(p.redact, redacts[i], "{name} under {to}");
            }
        }
    }

    #[test]
    fn the_policy_knows_private_sources_seeing_threads_and_who_withholds() {
        use ThreadName::{Dreamer, Librarian, Oracle, Watcher};
        let p = Policy::new(&config("local"));
        let names = |t| p.private_sources(t).iter().cloned().collect::<Vec<_>>();
        assert_eq!(names(Watcher), ["inbox"]);
        // The librarian reads private text with a local model: seeing, so the archive
        // (forgotten memory) is private too.
        assert_eq!(names(Librarian), ["archive", "files"]);
        assert_eq!(
            names(Oracle),
            ["mail"],
            "private = false keeps `lists` public"
        );
        assert_eq!(
            ThreadName::ALL.map(|t| p.seeing(t)),
            [false, true, false, false],
            "only a chain with a model that may see private text is seeing"
        );
        assert!(p.withholds(Watcher) && p.withholds(Oracle) && !p.withholds(Librarian));
        assert!(!p.withholds(Dreamer) && !p.withholds_escalation());
        // Under `redacted` nothing is withheld.
        let r = Policy::new(&config("redacted"));
        assert!(!r.withholds(Watcher) && !r.withholds(Oracle));
    }

    #[test]
    fn the_public_state_leaves_out_what_seeing_threads_wrote() {
        use crate::state::Entry;
        let p = Policy::new(&config("local"));
        let at = crate::timestamp::parse("2026-11-22T10:00:00Z").unwrap();
        let entry = |id: &str, source: Option<&str>| Entry {
            source: source.map(Into::into),
            ..Entry::new(
                id.into(),
                id.into(),
                crate::strength::Strength::whole(5),
                5,
                at,
            )
        };
        let mut state = State {
            active_threads: vec![
                entry("t-from-mail", Some("librarian")),
                entry("t-from-calendar", Some("oracle")),
                entry("t-nobody-knows", None),
            ],
            ..State::default()
        };
        state.thread_state.get_mut(ThreadName::Librarian).history = vec![vec!["x".into()]];
        state.thread_state.get_mut(ThreadName::Watcher).focus_hint = "look at the inbox".into();
        let (public, items) = p.public_state(&state);
        let ids: Vec<&str> = public
            .active_threads
            .iter()
            .map(|e| e.id.as_str())
            .collect();
        assert_eq!(ids, ["t-from-calendar"]);
        assert!(
            public
                .thread_state
                .get(ThreadName::Librarian)
                .history
                .is_empty()
        );
        assert!(
            public
                .thread_state
                .get(ThreadName::Watcher)
                .focus_hint
                .is_empty()
        );
        assert_eq!(items, 4);
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
