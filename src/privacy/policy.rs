//! The privacy of one configuration ([`Policy`], SPEC §9): per thread its private
//! sources, whether its answers may carry private text (*seeing*), whether a model of its
//! chain gets private text withheld, and the public copies of the memory and of the
//! escalation a `Withheld` provider may see ([`Policy::public_state`],
//! [`Policy::public_escalation`]). Also where each thread's sources come from, for the
//! agent's block ([`origins`]: the user's own text or outside text).
//!
//! It reads the validated [`Config`], so it stands above `crate::config`, while the
//! words it applies (`PrivateTo`, `Access`, which source is private) stay in
//! [`crate::privacy`], below it. Pure: no I/O; must not send, redact or build prompts.

use std::collections::BTreeSet;

use crate::aggregate::ThreadOutcome;
use crate::config::Config;
use crate::provider::config::ModelRef;
use crate::recall::{Origin, Origins};
use crate::sources::{Source, SourceKind, source_names};
use crate::state::{Category, State};
use crate::thread::ThreadName;

use super::{Access, PrivateTo, WITHHELD_REASON, access, in_memory_dir, source_is_private};

/// Where each configured thread's sources come from (every thread, enabled or not: the
/// memory holds what a thread wrote before it was turned off), for the marks of the
/// agent's block: the user's own text — the conversation (`transcript`), notes
/// (`files` in the memory directory) and other files — or outside text — mail
/// (`maildir`), calendars (`ics`), command output (`command`, which is how mail and
/// calendars are often read) — or thinker's own reading (`system`, `archive`).
pub fn origins(config: &Config) -> Origins {
    let memory_dir = config.escalation.memory_dir.as_deref();
    let mut origins = Origins::default();
    for thread in ThreadName::ALL {
        let Some(t) = config.thread(thread) else {
            continue;
        };
        for (source, name) in t.sources.iter().zip(source_names(&t.sources)) {
            for (origin, word) in source_origins(source, memory_dir) {
                origins.add(thread.as_str(), &name, origin, word);
            }
        }
    }
    origins
}

/// Where one source's text comes from, with a word for people.
fn source_origins(
    source: &Source,
    memory_dir: Option<&std::path::Path>,
) -> Vec<(Origin, &'static str)> {
    match &source.kind {
        SourceKind::Transcript(_) => vec![(Origin::User, "conversation")],
        SourceKind::Files(f) => {
            let notes = f
                .patterns()
                .iter()
                .any(|p| in_memory_dir(std::path::Path::new(p), memory_dir));
            vec![(Origin::User, if notes { "notes" } else { "files" })]
        }
        SourceKind::Maildir(_) => vec![(Origin::Outside, "mail")],
        SourceKind::Ics(_) => vec![(Origin::Outside, "calendar")],
        SourceKind::Command(_) => vec![(Origin::Outside, "command output")],
        SourceKind::System(_) => vec![(Origin::Machine, "this machine")],
        SourceKind::Archive(_) => vec![(Origin::Machine, "forgotten memory")],
        SourceKind::Sample(s) => s
            .sources()
            .iter()
            .flat_map(|s| source_origins(s, memory_dir))
            .collect(),
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

    /// Whether a sighting (`from`: `thread` or `thread/source`) may carry what private
    /// text said: a seeing thread's, whatever source it names (a model names the source
    /// it says it used, not all it saw). A sighting moves a due and raises importance,
    /// so the entry is then as private as its summary would be.
    fn sighted_privately(&self, provenance: &str) -> bool {
        let thread = provenance.split_once('/').map_or(provenance, |(t, _)| t);
        self.written_privately(Some(thread))
    }

    /// `state` as a `Withheld` provider may see it in `thread`'s prompt, and how many
    /// items were left out: entries added or sighted by seeing threads (a sighting moves a
    /// due and raises importance) and the links of the others to them, the seeing
    /// threads' recent findings, hints when another thread is seeing, and escalations
    /// whose reason or outcome came from private text.
    pub fn public_state(&self, state: &State) -> (State, usize) {
        let mut public = state.clone();
        let mut items = 0;
        for cat in Category::ALL {
            let entries = public.entries_mut(cat);
            let before = entries.len();
            entries.retain(|e| {
                !(self.written_privately(e.source.as_deref())
                    || e.from.iter().any(|f| self.sighted_privately(f)))
            });
            items += before - entries.len();
        }
        // A kept entry's links name only kept entries: a link to one left out would show
        // its id, whose words are its summary's (issue 30).
        let kept: BTreeSet<String> = public.all_entries().map(|(_, e)| e.id.clone()).collect();
        for cat in Category::ALL {
            for e in public.entries_mut(cat) {
                e.links.retain(|l| kept.contains(&l.id));
            }
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let sighted = |id: &str, from: &[&str]| Entry {
            from: from.iter().map(|f| (*f).to_string()).collect(),
            ..entry(id, Some("oracle"))
        };
        // Regression (issue 30): a public entry's link showed a private entry's id.
        let linked = |id: &str, to: &[&str]| Entry {
            links: to
                .iter()
                .map(|to| crate::state::Link {
                    id: (*to).to_string(),
                    kind: crate::state::LinkKind::Contradicts,
                })
                .collect(),
            ..entry(id, Some("oracle"))
        };
        let mut state = State {
            active_threads: vec![
                entry("t-from-mail", Some("librarian")),
                linked("t-from-calendar", &["t-from-mail", "t-confirmed-by-inbox"]),
                entry("t-nobody-knows", None),
                // A seeing thread's sighting from a private source (or an unnamed one)
                // may have moved the due: left out. A thread that is not seeing had its
                // private sources withheld: its sightings are public.
                sighted(
                    "t-confirmed-by-memory",
                    &["oracle/lists", "librarian/files"],
                ),
                sighted("t-confirmed-unnamed", &["oracle", "librarian"]),
                sighted("t-confirmed-by-inbox", &["oracle/lists", "watcher/inbox"]),
                sighted("t-confirmed-by-a-stranger", &["oracle", "someone/else"]),
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
        assert_eq!(ids, ["t-from-calendar", "t-confirmed-by-inbox"]);
        let links: Vec<&str> = public.active_threads[0]
            .links
            .iter()
            .map(|l| l.id.as_str())
            .collect();
        assert_eq!(
            links,
            ["t-confirmed-by-inbox"],
            "no link to a left-out entry"
        );
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
        assert_eq!(items, 7);
    }
}
