//! What a thread is sent: its sources gathered (run, capped, cleaned), then its prompt
//! rendered with them fenced as data. The one path the tick and `thinker prompt` (and
//! later `doctor`) take, so "`thinker prompt` prints the exact prompt" holds by
//! construction.
//!
//! Owns the gather context of a thread, the source records the journal keeps and the
//! warning for a source that failed, and — when a model of the thread's chain may not
//! see private text (`[privacy] private_to = "local"`, SPEC §9) — the thread's public
//! prompt: the same template without its private sources and the memory written from
//! private text ([`crate::privacy::Policy`]), saying what was withheld. It must not call
//! a model, write anything or read the real clock: the state as seen, the templates, the
//! privacy policy and the clock are handed in.

use std::path::Path;

use crate::clock::Clock;
use crate::config::{SourceConfig, ThreadConfig};
use crate::egress::{Outgoing, Public};
use crate::journal::SourceRecord;
use crate::privacy::{Policy, Withheld};
use crate::prompt::{PromptError, Prompts};
use crate::provider::CallRequest;
use crate::sources::{self, GatherContext};
use crate::state::State;
use crate::thread::ThreadName;
use crate::untrusted::guard;

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
    /// Which sources are private and who may see them.
    pub privacy: &'a Policy,
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
    /// The names of the sources the prompt carries (the read ones).
    pub carried: Vec<String>,
    /// The prompt for a model that may not see private text, when the thread has some
    /// to withhold.
    pub public: Option<PublicInput>,
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
        schema: crate::answer::schema(thread),
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
        }
    }

    /// Gathers `sources` for `thread` and renders its prompt; a failed source is logged
    /// and left out, never put into the prompt.
    pub async fn thread_input(&self, thread: ThreadName, sources: &[SourceConfig]) -> ThreadInput {
        let ctx = self.gather_context();
        let mut gathered = sources::gather(sources, &ctx).await;
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
        // The screen (issue 11): each source shown neutralised and marked when it
        // carries an attempt; the detections go to the journal with their source.
        let mut shown = gathered.texts.clone();
        let mut detections = Vec::with_capacity(shown.len());
        for t in &mut shown {
            let (text, found) = guard::source(&t.text);
            if !found.is_empty() {
                // Info, not warn: the journal keeps it; cron would mail it every tick.
                tracing::info!(
                    thread = %thread,
                    source = %t.name,
                    "the screen found {} suspicious span(s) in this source: neutralised in the prompt",
                    found.len()
                );
            }
            t.text = text;
            detections.push(found);
        }
        let records = gathered
            .texts
            .iter()
            .zip(detections)
            .map(|(t, detections)| SourceRecord {
                name: t.name.clone(),
                kind: t.kind.to_string(),
                bytes: t.text.len(),
                truncated: t.truncated,
                error: None,
                detections,
            })
            .chain(gathered.failures.iter().map(|f| SourceRecord {
                name: f.name.clone(),
                kind: f.kind.to_string(),
                bytes: 0,
                truncated: false,
                error: Some(f.error.clone()),
                detections: Vec::new(),
            }))
            .collect();
        let prompt = self
            .prompts
            .thread_prompt(thread, self.seen, &shown, &self.clock);
        let public = self
            .privacy
            .withholds(thread)
            .then(|| self.public_input(thread, &shown))
            .flatten();
        ThreadInput {
            prompt,
            sources: records,
            world: crate::quiet::fingerprint(thread.as_str(), "", &gathered),
            carried: shown.iter().map(|t| t.name.clone()).collect(),
            public,
        }
    }

    /// `thread`'s prompt without its private sources and the memory written from
    /// private text, saying what it leaves out; `None` when there is nothing to leave out.
    fn public_input(
        &self,
        thread: ThreadName,
        shown: &[sources::SourceText],
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
            .thread_prompt(thread, &state, &public_sources, &self.clock)
            .map(|p| withheld.insert_note(&p));
        Some(PublicInput {
            prompt,
            sources: public_sources.into_iter().map(|t| t.name).collect(),
            withheld,
        })
    }
}
