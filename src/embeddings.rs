//! The optional semantic side of recall: an embeddings endpoint (`[recall] embeddings =
//! "provider/model"`: an OpenAI-compatible `POST {base_url}/embeddings`, as llama-server
//! serves with `--embeddings`, or Ollama's `POST {base_url}/api/embed`) and the cache of
//! the entries' vectors, `embeddings.json` in the state directory, keyed by a hash of the
//! model, how the text was sent and the text, so that an entry is embedded once per
//! wording.
//!
//! The tick refreshes the cache after it wrote the state ([`refresh`]: new and changed
//! entries embedded in one request, vectors of entries gone dropped); recall embeds the
//! question ([`embed_question`]) with a short timeout. Any failure is an [`EmbedError`]
//! the caller logs and goes on without: lexical recall never depends on this module.
//!
//! **What leaves the machine** (SPEC §9): an embeddings call is egress like a model's.
//! The memory's summaries are private text or written from it, and a question (a hook's
//! prompt, an MCP `recall`, `show --for`) is the user's own words, so what the provider
//! is sent follows `[privacy] private_to` as a model's call does ([`Sending`]): a provider
//! that may not see private text (remote and not `trusted`, under `local`) is sent
//! nothing at all — a question can never go to it, so vectors of the memory would never
//! be used — and recall stays lexical; a provider that redacts gets every text redacted
//! with the state's key (the question too, so both sides of the similarity are alike);
//! otherwise the texts go as they are. Every call is recorded in the journal as an
//! [`EmbeddingsLine`] with its [`Egress`] (provider, local or remote, bytes, what it
//! carried, redactions by category), and a refresh that withheld new entries records
//! that once ([`Cache::withheld`]), so `stats --egress` and `doctor` count them. The
//! line is appended without the tick's lock and never rotates the journal (the next
//! tick's append does).
//!
//! Must not: put the key anywhere but its header (errors carry no response body but a
//! short excerpt with the key scrubbed), write anything but the cache file and its
//! journal lines, send a text the privacy setting keeps back.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::egress::Egress;
use crate::privacy::{Access, PrivateTo, access, reach};
use crate::provider::ApiKey;
use crate::provider::config::{ProviderConfig, ProviderKind};
use crate::state::State;
use crate::storage::{JOURNAL_FILE, JournalRotation, StateDir, StorageError};
use crate::untrusted;
use crate::untrusted::redact::{Redactor, Tally};

/// The cache's file name in the state directory.
pub const CACHE_FILE: &str = "embeddings.json";
/// At most this many texts are sent in one request.
const BATCH: usize = 64;
/// A response body beyond this is refused (64 entries of 4,096 floats fit well).
const MAX_BODY: usize = 16 << 20;

/// `[recall] embeddings` and its knobs.
#[derive(Clone, Debug, PartialEq)]
pub struct EmbeddingsSettings {
    pub model: String,
    pub provider: ProviderConfig,
    /// How long a question's embedding may take.
    pub timeout: Duration,
    pub min_similarity: f64,
    pub weight: f64,
    /// `[privacy] private_to`: what the provider may be sent ([`Self::sending`]).
    pub private_to: PrivateTo,
}

/// How texts go to the embeddings provider, as a model's call would send private text
/// (SPEC §9; [`crate::egress::prepare`] for a model).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sending {
    /// As they are: a local or `trusted` provider, or `private_to = "any"`, that does
    /// not redact.
    AsIs,
    /// With personal data replaced by the state's placeholders (a provider that
    /// redacts: by default a remote, untrusted one under `redacted`).
    Redacted,
    /// Not at all: a remote, untrusted provider under `private_to = "local"`.
    Withheld,
}

impl EmbeddingsSettings {
    /// `provider/model`.
    pub fn name(&self) -> String {
        format!("{}/{}", self.provider.name, self.model)
    }

    /// How this provider is sent texts under `private_to`.
    pub fn sending(&self) -> Sending {
        match access(&self.provider, self.private_to) {
            Access::Withheld => Sending::Withheld,
            _ if self.provider.redact => Sending::Redacted,
            _ => Sending::AsIs,
        }
    }

    /// Why nothing is sent to this provider, for people (`None` when texts may go).
    pub fn withheld_note(&self) -> Option<String> {
        (self.sending() == Sending::Withheld).then(|| {
            format!(
                "embeddings withheld from `{}` (remote and not trusted, private_to = \"local\"): recall is lexical; mark it `trusted = true` or use a local embeddings model",
                self.provider.name
            )
        })
    }
}

/// Why no vectors came back.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("the embeddings model {model}: {message}")]
    Client { model: String, message: String },
    #[error("the embeddings model {model} did not answer within {} ms", timeout.as_millis())]
    Timeout { model: String, timeout: Duration },
    #[error("the embeddings model {model} answered HTTP {status}: {excerpt}")]
    Status {
        model: String,
        status: u16,
        excerpt: String,
    },
    #[error(
        "the embeddings model {model} answered with a redirect (HTTP {status}) to {location}: thinker does not follow redirects; set the provider's base_url to the address that answers"
    )]
    Redirect {
        model: String,
        status: u16,
        location: String,
    },
    #[error("the embeddings model {model} answered something that is not embeddings ({message})")]
    Shape { model: String, message: String },
    #[error(
        "the key variable {var} of provider {provider} is not set: export it, or remove [recall] embeddings"
    )]
    Key { var: String, provider: String },
    /// The question is private text and the provider may not see it.
    #[error(
        "the question is private text, and provider `{provider}` is remote and not trusted (private_to = \"local\"): not sent"
    )]
    Withheld { provider: String },
    /// The provider redacts and the state has no redaction key yet (no tick has run).
    #[error(
        "provider `{provider}` redacts, and the state has no redaction key yet: run a tick first"
    )]
    NoKey { provider: String },
    #[error("cannot read or write in the state directory: {0}")]
    Cache(#[from] StorageError),
}

/// What an embeddings call embedded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Purpose {
    /// The memory's summaries (the tick's [`refresh`]).
    #[default]
    Memory,
    /// A question to recall.
    Question,
    /// Another version's word.
    #[serde(other)]
    Other,
}

impl Purpose {
    /// The word the egress record names what the call carried with.
    pub fn word(self) -> &'static str {
        match self {
            Purpose::Memory => "memory",
            Purpose::Question => "question",
            Purpose::Other => "other",
        }
    }
}

/// An embeddings call's line in `journal.jsonl` (SPEC §9: every call records its
/// egress), told apart from a tick's and an escalation's by its `embeddings` field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EmbeddingsLine {
    #[serde(with = "crate::timestamp::serde_utc")]
    pub time: DateTime<Utc>,
    pub embeddings: EmbeddingsCall,
}

/// One embeddings call (or a refresh that sent nothing because the texts are withheld).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EmbeddingsCall {
    /// `provider/model`.
    pub model: String,
    pub purpose: Purpose,
    /// Texts sent (0 when they were withheld).
    pub texts: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What left the machine: `requests` 0 when nothing did.
    pub egress: Egress,
}

/// OpenAI's answer (`data[].embedding`, ordered by `index`).
#[derive(Deserialize)]
struct OpenAiAnswer {
    data: Vec<OpenAiItem>,
}

#[derive(Deserialize)]
struct OpenAiItem {
    #[serde(default)]
    index: Option<usize>,
    embedding: Vec<f32>,
}

/// Ollama's `/api/embed` answer.
#[derive(Deserialize)]
struct OllamaAnswer {
    embeddings: Vec<Vec<f32>>,
}

/// What [`embed`] sent, whatever came back: request bodies (every request counted, a
/// failed one too: what may have left) and requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spent {
    pub bytes: u64,
    pub requests: u32,
}

/// The vectors of `texts` (as they are to be sent: [`prepare`] first), in order, from
/// the configured model, each request within `timeout`; and what was sent.
pub async fn embed(
    settings: &EmbeddingsSettings,
    texts: &[String],
    timeout: Duration,
) -> (Result<Vec<Vec<f32>>, EmbedError>, Spent) {
    let name = settings.name();
    let mut spent = Spent::default();
    let mut out = Vec::with_capacity(texts.len());
    for chunk in texts.chunks(BATCH) {
        let exchange = request(settings, &name, chunk, &mut spent);
        let vectors = match tokio::time::timeout(timeout, exchange).await {
            Ok(Ok(vectors)) => vectors,
            Ok(Err(e)) => return (Err(e), spent),
            Err(_) => {
                return (
                    Err(EmbedError::Timeout {
                        model: name,
                        timeout,
                    }),
                    spent,
                );
            }
        };
        out.extend(vectors);
    }
    (Ok(out), spent)
}

async fn request(
    settings: &EmbeddingsSettings,
    name: &str,
    texts: &[String],
    spent: &mut Spent,
) -> Result<Vec<Vec<f32>>, EmbedError> {
    let provider = &settings.provider;
    let client_error = |message: String| EmbedError::Client {
        model: name.to_string(),
        message,
    };
    let shape = |message: String| EmbedError::Shape {
        model: name.to_string(),
        message,
    };
    let key = match &provider.api_key_env {
        None => None,
        Some(var) => match std::env::var(var) {
            Ok(v) if !v.trim().is_empty() => Some(ApiKey::new(v.trim())),
            _ if provider.kind == ProviderKind::Ollama => None,
            _ => {
                return Err(EmbedError::Key {
                    var: var.clone(),
                    provider: provider.name.clone(),
                });
            }
        },
    };
    let (path, body) = match provider.kind {
        ProviderKind::Ollama => (
            "/api/embed",
            json!({"model": settings.model, "input": texts}),
        ),
        _ => (
            "/embeddings",
            json!({"model": settings.model, "input": texts, "encoding_format": "float"}),
        ),
    };
    let body = serde_json::to_vec(&body).map_err(|e| shape(e.to_string()))?;
    // The provider client: it follows no redirect (`provider::build_client`).
    let client =
        crate::provider::build_client(&provider.tls).map_err(|e| client_error(e.to_string()))?;
    let mut req = client
        .post(format!("{}{path}", provider.base_url))
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(body.clone());
    if let Some(value) = key.as_ref().and_then(|k| k.header("Bearer ")) {
        req = req.header(reqwest::header::AUTHORIZATION, value);
    }
    let scrub = |text: &str| match &key {
        Some(k) => text.replace(k.expose(), "[redacted]"),
        None => text.to_string(),
    };
    spent.bytes = spent.bytes.saturating_add(body.len() as u64);
    spent.requests = spent.requests.saturating_add(1);
    let response = req
        .send()
        .await
        .map_err(|e| client_error(scrub(&crate::provider::error_chain(&e.without_url()))))?;
    let status = response.status();
    if status.is_redirection() {
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .map(|l| String::from_utf8_lossy(l.as_bytes()).into_owned())
            .unwrap_or_default();
        return Err(EmbedError::Redirect {
            model: name.to_string(),
            status: status.as_u16(),
            location: untrusted::excerpt(&scrub(&location), 200),
        });
    }
    let bytes = response
        .bytes()
        .await
        .map_err(|e| client_error(scrub(&crate::provider::error_chain(&e.without_url()))))?;
    if !status.is_success() {
        return Err(EmbedError::Status {
            model: name.to_string(),
            status: status.as_u16(),
            excerpt: untrusted::excerpt(&scrub(&String::from_utf8_lossy(&bytes)), 200),
        });
    }
    if bytes.len() > MAX_BODY {
        return Err(shape(format!("a body of {} bytes", bytes.len())));
    }
    read_vectors(provider.kind, &bytes, texts.len()).map_err(shape)
}

/// The vectors of an answer in `kind`'s shape, one for each of `n` texts, each finite
/// and not empty; else what is wrong.
fn read_vectors(kind: ProviderKind, bytes: &[u8], n: usize) -> Result<Vec<Vec<f32>>, String> {
    let vectors = if kind == ProviderKind::Ollama {
        serde_json::from_slice::<OllamaAnswer>(bytes)
            .map_err(|e| e.to_string())?
            .embeddings
    } else {
        let mut answer: OpenAiAnswer = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        answer.data.sort_by_key(|d| d.index.unwrap_or(usize::MAX));
        answer.data.into_iter().map(|d| d.embedding).collect()
    };
    if vectors.len() != n {
        return Err(format!("{} vectors for {n} texts", vectors.len()));
    }
    if vectors
        .iter()
        .any(|v| v.is_empty() || v.iter().any(|x| !x.is_finite()))
    {
        return Err("an empty vector or one that is not finite".into());
    }
    Ok(vectors)
}

/// `texts` as `sending` sends them (redacted with `redactor` when it says so), and the
/// replacements made. `None` when they are withheld.
pub fn prepare(
    sending: Sending,
    redactor: Option<&Redactor>,
    texts: &[String],
) -> Option<(Vec<String>, Tally)> {
    let mut tally = Tally::default();
    match (sending, redactor) {
        (Sending::Withheld, _) | (Sending::Redacted, None) => None,
        (Sending::AsIs, _) => Some((texts.to_vec(), tally)),
        (Sending::Redacted, Some(r)) => {
            let sent = texts
                .iter()
                .map(|t| {
                    let done = r.redact_counted(t);
                    tally.add(&done.tally);
                    done.text
                })
                .collect();
            Some((sent, tally))
        }
    }
}

/// The egress record of a call to `settings`' provider carrying `purpose`'s texts.
fn egress_of(settings: &EmbeddingsSettings, purpose: Purpose) -> Egress {
    Egress {
        provider: settings.provider.name.clone(),
        reach: reach(&settings.provider),
        private: access(&settings.provider, settings.private_to),
        sources: vec![purpose.word().to_string()],
        ..Egress::default()
    }
}

/// Appends `call` to the journal at `now` (no rotation: that is the tick's, under its
/// lock); a failure is a warning (the call was made whatever the ledger says).
fn record(dir: &StateDir, now: DateTime<Utc>, call: EmbeddingsCall) {
    let line = EmbeddingsLine {
        time: now,
        embeddings: call,
    };
    let dir = StateDir::at(dir.path()).with_journal_rotation(JournalRotation::Never);
    if let Err(e) = dir.append_lines(JOURNAL_FILE, &[line]) {
        tracing::warn!("the embeddings call was not recorded in the journal: {e}");
    }
}

/// The redactor of the state's key, when `sending` needs one.
fn redactor_for(
    dir: &StateDir,
    settings: &EmbeddingsSettings,
    sending: Sending,
) -> Result<Option<Redactor>, EmbedError> {
    if sending != Sending::Redacted {
        return Ok(None);
    }
    match dir.redaction_key()? {
        Some(key) => Ok(Some(Redactor::new(&key))),
        None => Err(EmbedError::NoKey {
            provider: settings.provider.name.clone(),
        }),
    }
}

/// The vector of `question` (recall's), sent as the privacy setting allows, within
/// `settings.timeout`; the call is recorded in the journal at `now`. A question is
/// never sent to a provider that may not see private text ([`EmbedError::Withheld`]).
pub async fn embed_question(
    dir: &StateDir,
    settings: &EmbeddingsSettings,
    question: &str,
    now: DateTime<Utc>,
) -> Result<Vec<f32>, EmbedError> {
    let sending = settings.sending();
    if sending == Sending::Withheld {
        return Err(EmbedError::Withheld {
            provider: settings.provider.name.clone(),
        });
    }
    let redactor = redactor_for(dir, settings, sending)?;
    let Some((texts, tally)) = prepare(sending, redactor.as_ref(), &[question.to_string()]) else {
        return Err(EmbedError::NoKey {
            provider: settings.provider.name.clone(),
        });
    };
    let (result, spent) = embed(settings, &texts, settings.timeout).await;
    let mut egress = egress_of(settings, Purpose::Question);
    egress.bytes = spent.bytes;
    egress.requests = spent.requests;
    egress.redactions = tally.by_word();
    if spent.requests > 0 {
        record(
            dir,
            now,
            EmbeddingsCall {
                model: settings.name(),
                purpose: Purpose::Question,
                texts: texts.len(),
                error: result.as_ref().err().map(ToString::to_string),
                egress,
            },
        );
    }
    let mut vectors = result?;
    vectors.pop().ok_or_else(|| EmbedError::Shape {
        model: settings.name(),
        message: "no vector".into(),
    })
}

/// `embeddings.json`: vectors by [`Cache::key`], and the texts a refresh recorded as
/// withheld.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cache {
    #[serde(default)]
    pub vectors: BTreeMap<String, Vec<f32>>,
    /// Keys ([`Cache::key`] as sent as they are) of entries a refresh withheld and
    /// recorded so: each is recorded once, not at every tick.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub withheld: BTreeSet<String>,
}

impl Cache {
    /// The cache as on disk; empty when it is missing or unreadable (it is rebuilt by
    /// the next tick).
    pub fn load(dir: &StateDir) -> Cache {
        std::fs::read(dir.file(CACHE_FILE))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// The key of `text` embedded by `model` as `sending` sends it (a redacted text's
    /// vector is not the text's).
    pub fn key(model: &str, sending: Sending, text: &str) -> String {
        match sending {
            Sending::Redacted => untrusted::fence_id(&[model, "redacted", text]),
            Sending::AsIs | Sending::Withheld => untrusted::fence_id(&[model, text]),
        }
    }

    /// The text an entry is embedded as.
    pub fn text(summary: &str) -> String {
        untrusted::clean_line(summary)
    }
}

/// What [`refresh`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Refreshed {
    pub embedded: usize,
    pub kept: usize,
    pub dropped: usize,
    /// Entries not sent: the provider may not see private text.
    pub withheld: usize,
}

/// Embeds the state's entries the cache lacks (new and reworded ones) as the privacy
/// setting allows and drops the vectors of entries gone; writes the cache when it
/// changed, and records the call (or the entries newly withheld) in the journal at `now`.
pub async fn refresh(
    dir: &StateDir,
    state: &State,
    settings: &EmbeddingsSettings,
    now: DateTime<Utc>,
) -> Result<Refreshed, EmbedError> {
    let model = settings.name();
    let sending = settings.sending();
    let old = Cache::load(dir);
    let mut wanted: Vec<(String, String)> = Vec::new();
    for (_, e) in state.all_entries() {
        let text = Cache::text(&e.summary);
        let key = Cache::key(&model, sending, &text);
        if !wanted.iter().any(|(k, _)| *k == key) {
            wanted.push((key, text));
        }
    }
    if sending == Sending::Withheld {
        return refresh_withheld(dir, settings, &old, &wanted, now);
    }
    let missing: Vec<&(String, String)> = wanted
        .iter()
        .filter(|(k, _)| !old.vectors.contains_key(k))
        .collect();
    let texts: Vec<String> = missing.iter().map(|(_, t)| t.clone()).collect();
    let vectors = if texts.is_empty() {
        Vec::new()
    } else {
        let redactor = redactor_for(dir, settings, sending)?;
        let Some((outgoing, tally)) = prepare(sending, redactor.as_ref(), &texts) else {
            return Err(EmbedError::NoKey {
                provider: settings.provider.name.clone(),
            });
        };
        // A tick may wait longer than a question: the provider's own timeout.
        let timeout = settings.provider.timeout.max(settings.timeout);
        let (result, spent) = embed(settings, &outgoing, timeout).await;
        let mut egress = egress_of(settings, Purpose::Memory);
        egress.bytes = spent.bytes;
        egress.requests = spent.requests;
        egress.redactions = tally.by_word();
        if spent.requests > 0 {
            record(
                dir,
                now,
                EmbeddingsCall {
                    model: model.clone(),
                    purpose: Purpose::Memory,
                    texts: outgoing.len(),
                    error: result.as_ref().err().map(ToString::to_string),
                    egress,
                },
            );
        }
        result?
    };
    let mut cache = Cache::default();
    for (key, _) in &wanted {
        if let Some(v) = old.vectors.get(key) {
            cache.vectors.insert(key.clone(), v.clone());
        }
    }
    for ((key, _), v) in missing.iter().zip(vectors) {
        cache.vectors.insert(key.clone(), v);
    }
    let report = Refreshed {
        embedded: missing.len(),
        kept: wanted.len() - missing.len(),
        dropped: old
            .vectors
            .keys()
            .filter(|k| !cache.vectors.contains_key(*k))
            .count(),
        withheld: 0,
    };
    write_cache(dir, &cache, &old, &model)?;
    Ok(report)
}

/// A refresh for a provider that may not see private text: nothing sent, no vector
/// kept (no question could be compared with them); the entries not yet recorded as
/// withheld are recorded now, once.
fn refresh_withheld(
    dir: &StateDir,
    settings: &EmbeddingsSettings,
    old: &Cache,
    wanted: &[(String, String)],
    now: DateTime<Utc>,
) -> Result<Refreshed, EmbedError> {
    let model = settings.name();
    let cache = Cache {
        vectors: BTreeMap::new(),
        withheld: wanted.iter().map(|(k, _)| k.clone()).collect(),
    };
    let new = cache.withheld.difference(&old.withheld).count();
    if new > 0 {
        let mut egress = egress_of(settings, Purpose::Memory);
        egress.sources.clear();
        egress.withheld = vec![Purpose::Memory.word().to_string()];
        egress.withheld_items = new as u64;
        record(
            dir,
            now,
            EmbeddingsCall {
                model: model.clone(),
                purpose: Purpose::Memory,
                texts: 0,
                error: None,
                egress,
            },
        );
    }
    write_cache(dir, &cache, old, &model)?;
    Ok(Refreshed {
        dropped: old.vectors.len(),
        withheld: wanted.len(),
        ..Refreshed::default()
    })
}

fn write_cache(dir: &StateDir, cache: &Cache, old: &Cache, model: &str) -> Result<(), EmbedError> {
    if cache == old {
        return Ok(());
    }
    let bytes = serde_json::to_vec(cache).map_err(|e| EmbedError::Shape {
        model: model.to_string(),
        message: e.to_string(),
    })?;
    dir.write_unsynced(CACHE_FILE, &bytes)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::untrusted::redact::RedactionKey;

    /// The embeddings settings of a config (test code may read one: realistic settings).
    fn settings(local: bool, trusted: bool, private_to: PrivateTo) -> EmbeddingsSettings {
        let text = format!(
            "[providers.emb]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nlocal = {local}\ntrusted = {trusted}\n[recall]\nembeddings = \"emb/m\"\n[privacy]\nprivate_to = \"{}\"\n",
            private_to.as_str()
        );
        crate::config::Config::parse(&text, None)
            .unwrap()
            .recall
            .embeddings
            .unwrap()
    }

    /// Table: what an embeddings provider is sent, as a model's call (SPEC §9).
    #[test]
    fn an_embeddings_provider_is_sent_what_the_privacy_setting_allows() {
        use PrivateTo::{Any, Local, Redacted};
        // (local, trusted, private_to, sending)
        let cases = [
            (true, false, Local, Sending::AsIs),
            (false, false, Local, Sending::Withheld),
            (false, true, Local, Sending::AsIs),
            (false, false, Redacted, Sending::Redacted),
            (true, false, Redacted, Sending::AsIs),
            (false, true, Redacted, Sending::AsIs),
            (false, false, Any, Sending::AsIs),
        ];
        for (local, trusted, to, want) in cases {
            let s = settings(local, trusted, to);
            assert_eq!(s.sending(), want, "{local} {trusted} {to:?}");
            assert_eq!(s.withheld_note().is_some(), want == Sending::Withheld);
        }
    }

    #[test]
    fn texts_are_redacted_with_the_key_or_not_sent() {
        let redactor = Redactor::new(&RedactionKey::from_bytes([7; 32]));
        let texts = vec![
            "write to ann@example.org".to_string(),
            "no data".to_string(),
        ];
        let (sent, tally) = prepare(Sending::Redacted, Some(&redactor), &texts).unwrap();
        assert!(!sent[0].contains("ann@example.org") && sent[0].contains("<email-"));
        assert_eq!(sent[1], "no data");
        assert_eq!(tally.by_word(), BTreeMap::from([("email".to_string(), 1)]));
        // The same text, the same placeholder (a question compares with the memory).
        let (again, _) = prepare(Sending::Redacted, Some(&redactor), &texts[..1]).unwrap();
        assert_eq!(again[0], sent[0]);
        assert!(
            prepare(Sending::Redacted, None, &texts).is_none(),
            "no key, no sending"
        );
        assert!(prepare(Sending::Withheld, Some(&redactor), &texts).is_none());
        assert_eq!(prepare(Sending::AsIs, None, &texts).unwrap().0, texts);
        // A redacted text's vector is kept apart from the text's own.
        assert_ne!(
            Cache::key("emb/m", Sending::Redacted, "t"),
            Cache::key("emb/m", Sending::AsIs, "t")
        );
        assert_eq!(
            Cache::key("emb/m", Sending::AsIs, "t"),
            untrusted::fence_id(&["emb/m", "t"]),
            "vectors cached before stay valid"
        );
    }
}
