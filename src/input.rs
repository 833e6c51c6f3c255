//! What a thread is sent: its sources gathered (run, capped, cleaned), fitted into the
//! thread's share of the tick's input budget, screened, then its prompt rendered with
//! them fenced as data. The one path the tick and `thinker prompt` (and later `doctor`)
//! take, so "`thinker prompt` prints the exact prompt" holds by construction.
//!
//! **Bounded input**: every source reads at most the thread's share of
//! `tick.max_input_bytes` ([`thread_share`]: an equal part per enabled thread), and the
//! texts together are fitted into it ([`crate::sources::fit`]; said at `-v` and in the
//! journal's `before_budget` when it cuts). Screening, and listing the sites each source
//! links to (for the check of what leaves, [`crate::escalation::outbound`]), run on
//! tokio's blocking pool: the tick's one event loop keeps its timers, so a deadline holds
//! whatever a source contains.
//!
//! Owns the gather context of a thread, the source records the journal keeps and the
//! warning for a source that failed, and — when a model of the thread's chain may not
//! see private text (`[privacy] private_to = "local"`, SPEC §9) — the thread's public
//! prompt: the same template without its private sources and the memory written from
//! private text ([`crate::privacy::policy::Policy`]), saying what was withheld. It must not call
//! a model, write anything or read the real clock: the state as seen, the templates, the
//! privacy policy and the clock are handed in.

use std::path::Path;

use crate::clock::Clock;
use crate::config::{Config, SourceConfig, ThreadConfig};
use crate::egress::{Outgoing, Public};
use crate::escalation::outbound::SourceSites;
use crate::journal::SourceRecord;
use crate::privacy::Withheld;
use crate::privacy::policy::Policy;
use crate::prompt::{PromptError, Prompts};
use crate::provider::CallRequest;
use crate::sources::{self, GatherContext, SourceText};
use crate::state::State;
use crate::thread::ThreadName;
use crate::untrusted::guard::{self, GuardRecord};
use crate::untrusted::outbound;

/// Each thread's share of the tick's input budget (`tick.max_input_bytes`): an equal part
/// for each thread the config enables (at least one).
pub fn thread_share(config: &Config) -> usize {
    let enabled = config
        .threads
        .iter()
        .flatten()
        .filter(|t| t.enabled)
        .count();
    config.max_input_bytes / enabled.max(1)
}

/// What every thread of one tick (or one `thinker prompt`) shares.
#[derive(Debug, Clone, Copy)]
pub struct InputContext<'a> {
    /// The state as the threads are shown it: [`crate::aggregate::as_seen`], cut to the caps.
    pub seen: &'a State,
    /// The state directory (the archive source reads it).
    pub state_dir: &'a Path,
    pub prompts: &'a Prompts,
    /// `now` and the zone the prompt's local time is read in.
    pub clock: Clock,
    /// The thread's share of the tick's input budget ([`thread_share`]).
    pub max_input_bytes: usize,
    /// Which sources are private and who may see them.
    pub privacy: &'a Policy,
    /// The tick's calendars, read once for all its threads ([`calendars`]); `None`: each
    /// `ics` source reads alone.
    pub calendars: Option<&'a sources::ics::Calendars>,
}

/// The calendars the `ics` sources of the enabled threads read, to be read once a tick.
pub fn calendars(config: &Config) -> sources::ics::Calendars {
    let ics = config
        .threads
        .iter()
        .flatten()
        .filter(|t| t.enabled)
        .flat_map(|t| &t.sources)
        .filter_map(|s| match &s.kind {
            sources::SourceKind::Ics(ics) => Some(ics),
            _ => None,
        });
    sources::ics::Calendars::new(ics)
}

/// One thread's input.
#[derive(Debug)]
pub struct ThreadInput {
    /// The exact prompt, or why its template did not render.
    pub prompt: Result<String, PromptError>,
    /// Every configured source, in config order of the read ones, then the failed ones
    /// (each with its `error`), as the journal records them.
    pub sources: Vec<SourceRecord>,
    /// What the sources saw, as far as it is the world: [`crate::quiet::fingerprint`].
    pub world: String,
    /// The sites each source's text links to, and whether the screen found something in
    /// it: for the check of what leaves ([`crate::escalation::outbound`]).
    pub links: Vec<SourceSites>,
    /// The names of the sources the prompt carries (the read ones).
    pub carried: Vec<String>,
    /// The prompt for a model that may not see private text, when the thread has some
    /// to withhold.
    pub public: Option<PublicInput>,
    /// The items the prompt shows by reference ([`sources::refs`]): what a finding may
    /// cite, and what one that cites nothing is grounded on.
    pub refs: Vec<ShownItem>,
}

/// An item a thread's prompt shows under a reference.
#[derive(Debug, Clone, PartialEq)]
pub struct ShownItem {
    /// Its reference, as the label shows it without brackets (`m3fq9k`).
    pub reference: String,
    /// The source that showed it.
    pub source: String,
    /// Its text as shown ([`sources::refs::items`]).
    pub text: String,
}

/// The request a thread's call makes with `prompt`: the answer schema, its `max_tokens`,
/// its temperature at its novelty `pressure`, the run as its sequence. The tick and
/// `thinker prompt --as-sent` build it here.
pub fn thread_request(
    thread: ThreadName,
    cfg: &ThreadConfig,
    pressure: u8,
    sequence: u64,
) -> impl FnOnce(String) -> CallRequest {
    let (max_tokens, temperature) = (
        cfg.max_tokens,
        crate::prompt::temperature(cfg.temperature, pressure),
    );
    move |prompt| CallRequest {
        system: String::new(),
        prompt,
        schema: crate::answer::schema_for(thread, max_tokens),
        schema_name: "thread_answer".into(),
        max_tokens,
        temperature,
        sequence,
    }
}

/// A thread's public prompt ([`InputContext::thread_input`]).
#[derive(Debug)]
pub struct PublicInput {
    pub prompt: Result<String, PromptError>,
    /// The names of the sources it carries.
    pub sources: Vec<String>,
    pub withheld: Withheld,
}

impl ThreadInput {
    /// The sources that failed (left out of the prompt).
    pub fn failures(&self) -> impl Iterator<Item = &SourceRecord> {
        self.sources.iter().filter(|s| s.error.is_some())
    }

    /// What the thread's call may send, with `request` carrying its prompt: its sources
    /// and its public copy. Fails when a prompt did not render (the public one too: a
    /// model that may not see private text is never sent the whole one instead).
    pub fn outgoing(
        &self,
        request: impl FnOnce(String) -> CallRequest,
    ) -> Result<Outgoing, PromptError> {
        let prompt = self.prompt.as_ref().map_err(Clone::clone)?;
        let public = match &self.public {
            Some(p) => Some(Public {
                prompt: p.prompt.as_ref().map_err(Clone::clone)?.clone(),
                sources: p.sources.clone(),
                withheld: p.withheld.clone(),
            }),
            None => None,
        };
        Ok(Outgoing {
            request: request(prompt.clone()),
            sources: self.carried.clone(),
            public,
        })
    }
}

impl InputContext<'_> {
    /// The sources' view of the tick.
    pub fn gather_context(&self) -> GatherContext<'_> {
        GatherContext {
            state: self.seen,
            state_dir: self.state_dir,
            last_tick: self.seen.last_tick,
            now: self.clock.now,
            zone: self.clock.zone,
            max_bytes: self.max_input_bytes,
        }
    }

    /// Gathers `sources` for `thread`, fits them into its budget, screens them and
    /// renders its prompt; a failed source is logged and left out, never put into the
    /// prompt.
    /// `max_tokens` is the thread's: the prompt shows the answer schema fitted to them.
    pub async fn thread_input(
        &self,
        thread: ThreadName,
        sources: &[SourceConfig],
        max_tokens: u32,
    ) -> ThreadInput {
        let ctx = self.gather_context();
        let mut gathered = sources::gather_sharing(sources, &ctx, self.calendars).await;
        // A failing command may print a key (a token in a URL it echoes): its error, bound
        // for the log and the journal, is scrubbed of key and token shapes.
        for f in &mut gathered.failures {
            f.error = crate::untrusted::redact::mask_secrets(&f.error);
        }
        for f in &gathered.failures {
            tracing::warn!(
                thread = %thread,
                source = %f.name,
                "source failed (left out of the prompt): {}",
                f.error
            );
        }
        let before = sources::fit(&mut gathered.texts, self.max_input_bytes);
        if before.iter().any(Option::is_some) {
            let total: usize = gathered
                .texts
                .iter()
                .zip(&before)
                .map(|(t, b)| b.unwrap_or(t.text.len()))
                .sum();
            tracing::info!(
                thread = %thread,
                "the sources' text ({total} bytes) is over the thread's share of the tick's input budget (tick.max_input_bytes): cut to {} bytes",
                self.max_input_bytes
            );
        }
        let world = crate::quiet::fingerprint(thread.as_str(), "", &gathered);
        label_whole_sources(&mut gathered.texts);
        // The screen: each source shown neutralised and marked when it
        // carries an attempt; the detections go to the journal with their source.
        let screened = screen_off_thread(std::mem::take(&mut gathered.texts)).await;
        for (t, found, _) in &screened {
            if !found.is_empty() {
                // Info, not warn: the journal keeps it; cron would mail it every tick.
                tracing::info!(
                    thread = %thread,
                    source = %t.name,
                    "the screen found {} suspicious span(s) in this source: neutralised in the prompt",
                    found.len()
                );
            }
        }
        let records = screened
            .iter()
            .zip(&before)
            .map(|((t, detections, _), before)| SourceRecord {
                name: t.name.clone(),
                kind: t.kind.to_string(),
                bytes: t.bytes,
                truncated: t.truncated,
                before_budget: *before,
                error: None,
                detections: detections.clone(),
            })
            .chain(gathered.failures.iter().map(|f| SourceRecord {
                name: f.name.clone(),
                kind: f.kind.to_string(),
                bytes: 0,
                truncated: false,
                before_budget: None,
                error: Some(f.error.clone()),
                detections: Vec::new(),
            }))
            .collect();
        let links = screened
            .iter()
            .map(|(t, detections, sites)| SourceSites {
                kind: t.kind,
                screened: !detections.is_empty(),
                sites: sites.clone(),
            })
            .collect();
        let shown: Vec<SourceText> = screened.into_iter().map(|(t, _, _)| t.text).collect();
        let refs = shown_refs(&shown);
        let prompt = self
            .prompts
            .thread_prompt(thread, self.seen, &shown, &self.clock, max_tokens);
        let public = self
            .privacy
            .withholds(thread)
            .then(|| self.public_input(thread, &shown, max_tokens))
            .flatten();
        ThreadInput {
            prompt,
            sources: records,
            world,
            links,
            carried: shown.iter().map(|t| t.name.clone()).collect(),
            public,
            refs,
        }
    }

    /// `thread`'s prompt without its private sources and the memory written from
    /// private text, saying what it leaves out; `None` when there is nothing to leave out.
    fn public_input(
        &self,
        thread: ThreadName,
        shown: &[SourceText],
        max_tokens: u32,
    ) -> Option<PublicInput> {
        let private = self.privacy.private_sources(thread);
        let (public_sources, withheld_sources): (Vec<_>, Vec<_>) = shown
            .iter()
            .cloned()
            .partition(|t| !private.contains(&t.name));
        let (state, items) = self.privacy.public_state(self.seen);
        let withheld = Withheld {
            sources: withheld_sources.into_iter().map(|t| t.name).collect(),
            items,
        };
        if withheld.is_empty() {
            return None;
        }
        let prompt = self
            .prompts
            .thread_prompt(thread, &state, &public_sources, &self.clock, max_tokens)
            .map(|p| withheld.insert_note(&p));
        Some(PublicInput {
            prompt,
            sources: public_sources.into_iter().map(|t| t.name).collect(),
            withheld,
        })
    }
}

/// A source's text as the prompt shows it, and its length as gathered.
struct Shown {
    name: String,
    kind: &'static str,
    bytes: usize,
    truncated: bool,
    text: SourceText,
}

/// Screens each text and lists the sites it links to, on the blocking pool (the tick's
/// event loop must keep its timers). If that work fails (a bug), each source is
/// shown as withheld rather than unscreened.
async fn screen_off_thread(
    texts: Vec<SourceText>,
) -> Vec<(Shown, Vec<GuardRecord>, std::collections::BTreeSet<String>)> {
    let meta: Vec<(String, &'static str, usize, bool)> = texts
        .iter()
        .map(|t| (t.name.clone(), t.kind, t.text.len(), t.truncated))
        .collect();
    let work = tokio::task::spawn_blocking(move || {
        texts
            .into_iter()
            .map(|t| {
                let (text, found) = guard::source(&t.text);
                let sites = outbound::sites(&t.text);
                (text, found, sites, t)
            })
            .collect::<Vec<_>>()
    });
    match work.await {
        Ok(done) => done
            .into_iter()
            .map(|(text, found, sites, t)| {
                let shown = Shown {
                    name: t.name.clone(),
                    kind: t.kind,
                    bytes: t.text.len(),
                    truncated: t.truncated,
                    text: SourceText { text, ..t },
                };
                (shown, found, sites)
            })
            .collect(),
        Err(e) => {
            tracing::warn!("the screen failed ({e}): every source of this thread is withheld");
            meta.into_iter()
                .map(|(name, kind, bytes, truncated)| {
                    let shown = SourceText {
                        name: name.clone(),
                        kind,
                        text: "(withheld: the screen failed on this source)".into(),
                        truncated,
                    };
                    (
                        Shown {
                            name,
                            kind,
                            bytes,
                            truncated,
                            text: shown,
                        },
                        Vec::new(),
                        std::collections::BTreeSet::new(),
                    )
                })
                .collect()
        }
    }
}

/// A source shown whole gets its reference in front (docs/spec.md §6; mail, calendars
/// and files label each item as they render it).
fn label_whole_sources(texts: &mut [SourceText]) {
    for t in texts {
        if let Some(labelled) = sources::refs::label_whole(t.kind, &t.name, &t.text) {
            t.text = labelled;
        }
    }
}

/// The items `shown` shows by reference, each with the name of the source that shows it.
fn shown_refs(shown: &[SourceText]) -> Vec<ShownItem> {
    shown
        .iter()
        .flat_map(|t| {
            sources::refs::items(&t.text)
                .into_iter()
                .map(|(reference, text)| ShownItem {
                    reference,
                    source: t.name.clone(),
                    text,
                })
        })
        .collect()
}
