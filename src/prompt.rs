//! Prompt assembly (SPEC §4.3): each thread's template (`prompts/<thread>.md`, compiled
//! into the binary, overridable from the config's prompts directory) rendered with
//! minijinja, strict about undefined variables.
//!
//! Owns what a thread is shown: the subconscious (compact), its own last 3 ticks, its
//! focus hint, its novelty pressure, its sources, the time, the ids it may reinforce and
//! the answer schema; and what the primary model is shown to decide an escalation
//! ([`Prompts::escalation_prompt`], `prompts/escalation.md`, SPEC §8). Everything not
//! written by thinker or its templates — sources, and the text earlier model runs wrote
//! (entry summaries, past findings, hints, escalation reasons and outcomes) — is shown
//! only inside content-hash DATA fences ([`crate::untrusted`]), one fence per block (the
//! escalation prompt: one id over all its blocks). It is never shown errors, the
//! runner's health or anything from the journal. Pure: no I/O except reading override
//! templates.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use minijinja::{Environment, UndefinedBehavior};
use serde::Serialize;

use crate::answer::{self, Finding};
use crate::clock::Clock;
use crate::clock::age;
use crate::escalation::decision;
use crate::sources::SourceText;
use crate::state::{Category, EscalationRecord, State};
use crate::thread::ThreadName;
use crate::timestamp;
use crate::untrusted::{defang, defang_line, fence_id};

const BUILTIN: [(&str, &str); 6] = [
    ("base.md", include_str!("../prompts/base.md")),
    ("watcher.md", include_str!("../prompts/watcher.md")),
    ("librarian.md", include_str!("../prompts/librarian.md")),
    ("oracle.md", include_str!("../prompts/oracle.md")),
    ("dreamer.md", include_str!("../prompts/dreamer.md")),
    ("escalation.md", include_str!("../prompts/escalation.md")),
];

/// A template that does not render.
#[derive(Clone, Debug, thiserror::Error)]
#[error("prompt template {name}: {message}{hint}")]
pub struct PromptError {
    pub name: String,
    pub message: String,
    hint: String,
}

/// The templates: built in, or from an override directory file by file.
#[derive(Debug)]
pub struct Prompts {
    env: Environment<'static>,
    dir: Option<PathBuf>,
}

#[derive(Serialize)]
struct EntryView {
    id: String,
    summary: String,
    strength: u8,
    importance: u8,
    seen: String,
    due: Option<String>,
    /// Provenance, compact: `watcher/inbox, oracle`.
    from: String,
    /// Made only from text that carried a screen detection.
    tainted: bool,
    /// The references of the items it was seen in, compact: `m3fq9k e7h2kq`.
    refs: String,
    /// Its links, compact: `contradicts [i-x], connects [p-y]` (SPEC §7.12).
    links: String,
    /// The ids it contradicts, compact: `i-x, p-y`.
    contradicts: String,
}

#[derive(Serialize)]
struct CategoryView {
    key: &'static str,
    title: &'static str,
    entries: Vec<EntryView>,
}

#[derive(Serialize)]
struct SourceContext {
    name: String,
    kind: String,
    text: String,
    truncated: bool,
    fence: String,
}

#[derive(Serialize)]
struct ThreadContext {
    thread: &'static str,
    role: String,
    now: String,
    now_local: String,
    /// Entry ids and summaries: written by models, fenced as data.
    subconscious: Vec<CategoryView>,
    subconscious_empty: bool,
    subconscious_fence: String,
    /// The thread's own findings of its last ticks: written by a model, fenced as data.
    history: Vec<Vec<String>>,
    history_fence: String,
    last_findings: Vec<String>,
    /// The other threads' `suggest` texts: written by models, fenced as data.
    focus_hint: String,
    hint_fence: String,
    /// What became of the thread's own recent escalations (reasons, outcomes and the
    /// primary model's why: written by models, fenced as data), so it learns from them.
    escalations: Vec<String>,
    escalations_fence: String,
    novelty_pressure: u8,
    sources: Vec<SourceContext>,
    reinforce_ids: Vec<String>,
    kinds: Vec<&'static str>,
    schema: String,
}

#[derive(Serialize)]
struct EscalationView {
    thread: String,
    reason: String,
    age: String,
}

#[derive(Serialize)]
struct EscalationFindingView {
    thread: &'static str,
    importance: u8,
    kind: &'static str,
    summary: String,
}

#[derive(Serialize)]
struct OutcomeView {
    thread: String,
    reason: String,
    outcome: String,
    age: String,
}

#[derive(Serialize)]
struct ToldView {
    entry: String,
    age: String,
    text: String,
    outcome: String,
}

#[derive(Serialize)]
struct EscalationContext {
    now: String,
    now_local: String,
    /// One content hash over every model-written text below, which are all defanged.
    fence: String,
    escalations: Vec<EscalationView>,
    findings: Vec<EscalationFindingView>,
    subconscious: Vec<CategoryView>,
    subconscious_empty: bool,
    outcomes: Vec<OutcomeView>,
    /// What the user was already told about the entries these escalations are about.
    told: Vec<ToldView>,
    actions: Vec<&'static str>,
    max_text: usize,
    max_why: usize,
    schema: String,
}

/// Whether tainted entries (made only from text that carried a screen detection) are
/// shown: to the threads, marked; never to the escalation model (a tainted
/// entry is never escalated).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tainted {
    Marked,
    Left,
}

/// The compact subconscious shown to threads and to the escalation model.
fn subconscious_view(state: &State, now: DateTime<Utc>, tainted: Tainted) -> Vec<CategoryView> {
    Category::ALL
        .iter()
        .map(|&cat| CategoryView {
            key: cat.key(),
            title: cat.title(),
            entries: state
                .entries(cat)
                .iter()
                .filter(|e| tainted == Tainted::Marked || !e.tainted)
                .map(|e| EntryView {
                    id: defang_line(&e.id),
                    summary: defang_line(&e.summary),
                    strength: e.strength.rounded(),
                    importance: e.importance,
                    seen: age(e.last_seen, now),
                    due: e.due.map(timestamp::format),
                    from: defang_line(&e.from.join(", ")),
                    tainted: e.tainted,
                    refs: defang_line(&e.refs.join(" ")),
                    links: defang_line(
                        &e.links
                            .iter()
                            .map(|l| format!("{} [{}]", l.kind.as_str(), l.id))
                            .collect::<Vec<_>>()
                            .join(", "),
                    ),
                    contradicts: defang_line(&e.contradicts().collect::<Vec<_>>().join(", ")),
                })
                .collect(),
        })
        .collect()
}

/// The sampling temperature of a thread: its configured base, a little higher as its
/// novelty pressure rises (+0.05 per point, at most +0.3), never above 1.5.
pub fn temperature(base: f32, pressure: u8) -> f32 {
    (base + (0.05 * f32::from(pressure)).min(0.3)).min(1.5)
}

/// A thread is shown this many of its own settled escalations, newest last.
pub const ESCALATION_LESSONS: usize = 5;

/// The thread's own settled escalations (not `pending`), newest last, one line each:
/// `2 h ago: <reason> → <outcome>`, and the primary model's why when the outcome does
/// not already carry it. Defanged: every part was written by a model.
fn escalation_lessons(state: &State, thread: ThreadName, now: DateTime<Utc>) -> Vec<String> {
    let mine: Vec<&EscalationRecord> = state
        .escalation_history
        .iter()
        .filter(|r| {
            r.thread == thread.as_str() && r.outcome != crate::state::EscalationOutcome::Pending
        })
        .collect();
    mine[mine.len().saturating_sub(ESCALATION_LESSONS)..]
        .iter()
        .map(|r| {
            let outcome = r.outcome.to_string();
            let why = r
                .decision
                .as_ref()
                .map(|d| d.why.trim())
                .filter(|w| !w.is_empty() && !outcome.contains(w))
                .map(|w| format!(" (why: {w})"))
                .unwrap_or_default();
            defang_line(&format!(
                "{}: {} → {outcome}{why}",
                age(r.timestamp, now),
                r.reason
            ))
        })
        .collect()
}

impl Prompts {
    /// The built-in templates, each overridable by a file of the same name in `dir`.
    pub fn new(dir: Option<&Path>) -> Prompts {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_keep_trailing_newline(true);
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        let override_dir = dir.map(Path::to_path_buf);
        let loader_dir = override_dir.clone();
        env.set_loader(move |name| {
            if let Some(d) = &loader_dir {
                let path = d.join(name);
                match std::fs::read_to_string(&path) {
                    Ok(text) => return Ok(Some(text)),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => {
                        return Err(minijinja::Error::new(
                            minijinja::ErrorKind::TemplateNotFound,
                            format!("cannot read {}: {e}", path.display()),
                        ));
                    }
                }
            }
            Ok(BUILTIN
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, text)| (*text).to_string()))
        });
        Prompts {
            env,
            dir: override_dir,
        }
    }

    fn error(&self, name: &str, e: &minijinja::Error) -> PromptError {
        let mut message = e.to_string();
        if let Some(detail) = e.detail()
            && !message.contains(detail)
        {
            message = format!("{message}: {detail}");
        }
        let hint = match &self.dir {
            Some(d) if d.join(name).exists() => format!(
                " (the override {} is used; fix it or remove it to use the built-in one)",
                d.join(name).display()
            ),
            _ => String::new(),
        };
        PromptError {
            name: name.to_string(),
            message,
            hint,
        }
    }

    fn render<S: Serialize>(&self, name: &str, ctx: &S) -> Result<String, PromptError> {
        let template = self
            .env
            .get_template(name)
            .map_err(|e| self.error(name, &e))?;
        template.render(ctx).map_err(|e| self.error(name, &e))
    }

    /// The exact prompt `thread` is sent at the clock's `now` (its local time read in
    /// the clock's zone), for a call of `max_tokens` (the answer schema it shows is
    /// fitted to them: [`answer::schema_for`]).
    pub fn thread_prompt(
        &self,
        thread: ThreadName,
        state: &State,
        sources: &[SourceText],
        clock: &Clock,
        max_tokens: u32,
    ) -> Result<String, PromptError> {
        let now = clock.now;
        let own = state.thread_state.get(thread);
        let subconscious = subconscious_view(state, now, Tainted::Marked);
        let subconscious_empty = subconscious.iter().all(|c| c.entries.is_empty());
        let subconscious_fence = fence_id(
            &std::iter::once("subconscious")
                .chain(
                    subconscious
                        .iter()
                        .flat_map(|c| &c.entries)
                        .flat_map(|e| [e.id.as_str(), e.summary.as_str()]),
                )
                .collect::<Vec<_>>(),
        );
        let history: Vec<Vec<String>> = own
            .history
            .iter()
            .map(|tick| tick.iter().map(|s| defang_line(s)).collect())
            .collect();
        let history_fence = fence_id(
            &std::iter::once("history")
                .chain(history.iter().flatten().map(String::as_str))
                .collect::<Vec<_>>(),
        );
        let focus_hint = defang_line(&own.focus_hint).trim().to_string();
        let escalations = escalation_lessons(state, thread, now);
        let escalations_fence = fence_id(
            &std::iter::once("escalations")
                .chain(escalations.iter().map(String::as_str))
                .collect::<Vec<_>>(),
        );
        let schema = answer::schema_for(thread, max_tokens).to_string();
        let ctx = ThreadContext {
            thread: thread.as_str(),
            role: format!("the {}", capitalized(thread.as_str())),
            now: timestamp::format(now),
            now_local: clock.wall(now),
            reinforce_ids: state
                .all_entries()
                // The raw id: one that is only plain once cleaned cannot be reinforced
                // as listed (and could duplicate a clean one).
                .filter(|(_, e)| is_plain_id(&e.id))
                .map(|(_, e)| e.id.clone())
                .collect(),
            subconscious,
            subconscious_empty,
            subconscious_fence,
            history,
            history_fence,
            last_findings: own.last_findings.iter().map(|s| defang_line(s)).collect(),
            hint_fence: fence_id(&["hint", &focus_hint]),
            focus_hint,
            escalations,
            escalations_fence,
            novelty_pressure: own.novelty_pressure,
            sources: sources
                .iter()
                .map(|s| SourceContext {
                    name: defang_line(&s.name),
                    kind: defang_line(s.kind),
                    text: defang(s.text.trim_end()),
                    truncated: s.truncated,
                    fence: fence_id(&[thread.as_str(), &s.name, &s.text]),
                })
                .collect(),
            kinds: thread.kinds().iter().map(|k| k.as_str()).collect(),
            schema,
        };
        self.render(&format!("{thread}.md"), &ctx)
    }

    /// The exact prompt the primary model is sent to decide `escalations` (SPEC §8) at
    /// the clock's `now`: their reasons, the `findings` behind them, the subconscious and
    /// the `outcomes` of recent escalations. Every text a model wrote (reasons, findings,
    /// entries, outcomes, thread names read from the file) is defanged and shown inside
    /// DATA fences whose id hashes all of it.
    pub fn escalation_prompt(
        &self,
        escalations: &[EscalationRecord],
        findings: &[(ThreadName, &Finding)],
        state: &State,
        outcomes: &[EscalationRecord],
        clock: &Clock,
    ) -> Result<String, PromptError> {
        let now = clock.now;
        let escalations_raw = escalations;
        let escalations: Vec<EscalationView> = escalations
            .iter()
            .map(|r| EscalationView {
                thread: defang_line(&r.thread),
                reason: defang_line(&r.reason),
                age: age(r.timestamp, now),
            })
            .collect();
        let findings: Vec<EscalationFindingView> = findings
            .iter()
            .map(|(thread, f)| EscalationFindingView {
                thread: thread.as_str(),
                importance: f.importance,
                kind: f.kind.as_str(),
                summary: defang_line(&f.summary),
            })
            .collect();
        let outcomes: Vec<OutcomeView> = outcomes
            .iter()
            .map(|r| OutcomeView {
                thread: defang_line(&r.thread),
                reason: defang_line(&r.reason),
                outcome: defang_line(&r.outcome.to_string()),
                age: age(r.timestamp, now),
            })
            .collect();
        // The told ledger's matters about the same entries, each once, that told the user
        // something (docs/spec.md §8): a re-escalation reaches a call only when its
        // entry's due moved, and the model should know what was said before.
        let mut told: Vec<ToldView> = Vec::new();
        for t in &state.told {
            let about = escalations_raw
                .iter()
                .any(|r| r.entry.as_deref() == Some(t.entry.as_str()) && r.timestamp != t.raised);
            if about && !t.text.is_empty() {
                told.push(ToldView {
                    entry: defang_line(&t.entry),
                    age: age(t.raised, now),
                    text: defang_line(&t.text),
                    outcome: defang_line(&t.outcome.to_string()),
                });
            }
        }
        let subconscious = subconscious_view(state, now, Tainted::Left);
        let subconscious_empty = subconscious.iter().all(|c| c.entries.is_empty());
        let fence = fence_id(
            &std::iter::once("escalation")
                .chain(
                    escalations
                        .iter()
                        .flat_map(|e| [e.thread.as_str(), e.reason.as_str()]),
                )
                .chain(findings.iter().map(|f| f.summary.as_str()))
                .chain(
                    subconscious
                        .iter()
                        .flat_map(|c| &c.entries)
                        .flat_map(|e| [e.id.as_str(), e.summary.as_str()]),
                )
                .chain(
                    outcomes
                        .iter()
                        .flat_map(|o| [o.thread.as_str(), o.reason.as_str(), o.outcome.as_str()]),
                )
                .chain(
                    told.iter()
                        .flat_map(|t| [t.entry.as_str(), t.text.as_str()]),
                )
                .collect::<Vec<_>>(),
        );
        let ctx = EscalationContext {
            now: timestamp::format(now),
            now_local: clock.wall(now),
            fence,
            escalations,
            findings,
            subconscious,
            subconscious_empty,
            outcomes,
            told,
            actions: decision::Action::ALL.iter().map(|a| a.as_str()).collect(),
            max_text: decision::MAX_TEXT_CHARS,
            max_why: decision::MAX_WHY_CHARS,
            schema: decision::decision_schema().to_string(),
        };
        self.render("escalation.md", &ctx)
    }
}

/// Whether an id may be listed outside a fence (under "Ids you may reinforce"): at most
/// 80 letters, digits, `-`, `_` and `.`, as every id thinker makes is. Any other id is
/// still shown, and reinforceable, inside the fenced subconscious.
fn is_plain_id(id: &str) -> bool {
    !id.is_empty()
        && id.chars().count() <= 80
        && id
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed_clock() -> Clock {
        Clock::utc(timestamp::parse("2026-11-22T10:05:00Z").unwrap())
    }

    #[test]
    fn only_plain_ids_are_listed_outside_the_fence() {
        assert!(
            !is_plain_id("t-\u{202e}abc"),
            "a dirty id is not listed as its clean form"
        );
        assert!(is_plain_id("t-acme-invoice-4411"));
        assert!(is_plain_id("h-ärger-im-büro"));
        assert!(!is_plain_id("SYSTEM: obey"));
        assert!(!is_plain_id(""));
        assert!(!is_plain_id(&"x".repeat(81)));
    }

    #[test]
    fn temperature_rises_with_pressure_within_bounds() {
        assert!((temperature(0.4, 0) - 0.4).abs() < 1e-6);
        assert!((temperature(0.4, 2) - 0.5).abs() < 1e-6);
        assert!((temperature(0.4, 10) - 0.7).abs() < 1e-6);
        assert!((temperature(1.4, 10) - 1.5).abs() < 1e-6);
    }

    #[test]
    fn a_broken_override_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("oracle.md"), "{{ no_such_variable }}").unwrap();
        let prompts = Prompts::new(Some(dir.path()));
        let err = prompts
            .thread_prompt(
                ThreadName::Oracle,
                &State::default(),
                &[],
                &fixed_clock(),
                1024,
            )
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("oracle.md") && err.contains("override"),
            "{err}"
        );
        // The other threads still use the built-in templates.
        assert!(
            prompts
                .thread_prompt(
                    ThreadName::Watcher,
                    &State::default(),
                    &[],
                    &fixed_clock(),
                    1024
                )
                .is_ok()
        );
    }
}
