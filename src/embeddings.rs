//! The optional semantic side of recall: an embeddings endpoint (`[recall] embeddings =
//! "provider/model"`: an OpenAI-compatible `POST {base_url}/embeddings`, as llama-server
//! serves with `--embeddings`, or Ollama's `POST {base_url}/api/embed`) and the cache of
//! the entries' vectors, `embeddings.json` in the state directory, keyed by a hash of the
//! model and the text so that an entry is embedded once per wording.
//!
//! The tick refreshes the cache after it wrote the state ([`refresh`]: new and changed
//! entries embedded in one request, vectors of entries gone dropped); recall embeds the
//! question ([`embed`]) with a short timeout. Any failure is an [`EmbedError`] the caller
//! logs and goes on without: lexical recall never depends on this module.
//!
//! Must not: put the key anywhere but its header (errors carry no response body but a
//! short excerpt with the key scrubbed), write anything but the cache file.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::provider::ApiKey;
use crate::provider::config::{ProviderConfig, ProviderKind};
use crate::state::State;
use crate::storage::{StateDir, StorageError};
use crate::untrusted;

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
    #[error("the embeddings model {model} answered something that is not embeddings ({message})")]
    Shape { model: String, message: String },
    #[error(
        "the key variable {var} of provider {provider} is not set: export it, or remove [recall] embeddings"
    )]
    Key { var: String, provider: String },
    #[error("cannot write the embeddings cache: {0}")]
    Cache(#[from] StorageError),
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

/// The vectors of `texts`, in order, from the configured model, within its timeout.
pub async fn embed(
    settings: &EmbeddingsSettings,
    texts: &[String],
) -> Result<Vec<Vec<f32>>, EmbedError> {
    let name = format!("{}/{}", settings.provider.name, settings.model);
    let mut out = Vec::with_capacity(texts.len());
    for chunk in texts.chunks(BATCH) {
        let exchange = request(settings, &name, chunk);
        let vectors = match tokio::time::timeout(settings.timeout, exchange).await {
            Ok(result) => result?,
            Err(_) => {
                return Err(EmbedError::Timeout {
                    model: name,
                    timeout: settings.timeout,
                });
            }
        };
        out.extend(vectors);
    }
    Ok(out)
}

async fn request(
    settings: &EmbeddingsSettings,
    name: &str,
    texts: &[String],
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
    let client =
        crate::provider::build_client(&provider.tls).map_err(|e| client_error(e.to_string()))?;
    let mut req = client
        .post(format!("{}{path}", provider.base_url))
        .json(&body);
    if let Some(value) = key.as_ref().and_then(|k| k.header("Bearer ")) {
        req = req.header(reqwest::header::AUTHORIZATION, value);
    }
    let scrub = |text: &str| match &key {
        Some(k) => text.replace(k.expose(), "[redacted]"),
        None => text.to_string(),
    };
    let response = req
        .send()
        .await
        .map_err(|e| client_error(scrub(&crate::provider::error_chain(&e))))?;
    let status = response.status();
    let bytes = response
        .bytes()
        .await
        .map_err(|e| client_error(scrub(&crate::provider::error_chain(&e))))?;
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
    let vectors = if provider.kind == ProviderKind::Ollama {
        serde_json::from_slice::<OllamaAnswer>(&bytes)
            .map_err(|e| shape(e.to_string()))?
            .embeddings
    } else {
        let mut answer: OpenAiAnswer =
            serde_json::from_slice(&bytes).map_err(|e| shape(e.to_string()))?;
        answer.data.sort_by_key(|d| d.index.unwrap_or(usize::MAX));
        answer.data.into_iter().map(|d| d.embedding).collect()
    };
    if vectors.len() != texts.len() {
        return Err(shape(format!(
            "{} vectors for {} texts",
            vectors.len(),
            texts.len()
        )));
    }
    if vectors
        .iter()
        .any(|v| v.is_empty() || v.iter().any(|x| !x.is_finite()))
    {
        return Err(shape("an empty vector or one that is not finite".into()));
    }
    Ok(vectors)
}

/// `embeddings.json`: vectors by [`Cache::key`].
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cache {
    #[serde(default)]
    pub vectors: BTreeMap<String, Vec<f32>>,
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

    /// The key of `text` embedded by `model`.
    pub fn key(model: &str, text: &str) -> String {
        untrusted::fence_id(&[model, text])
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
}

/// Embeds the state's entries the cache lacks (new and reworded ones) and drops the
/// vectors of entries gone; writes the cache when it changed.
pub async fn refresh(
    dir: &StateDir,
    state: &State,
    settings: &EmbeddingsSettings,
) -> Result<Refreshed, EmbedError> {
    let model = format!("{}/{}", settings.provider.name, settings.model);
    let old = Cache::load(dir);
    let mut wanted: Vec<(String, String)> = Vec::new();
    for (_, e) in state.all_entries() {
        let text = Cache::text(&e.summary);
        let key = Cache::key(&model, &text);
        if !wanted.iter().any(|(k, _)| *k == key) {
            wanted.push((key, text));
        }
    }
    let missing: Vec<&(String, String)> = wanted
        .iter()
        .filter(|(k, _)| !old.vectors.contains_key(k))
        .collect();
    let texts: Vec<String> = missing.iter().map(|(_, t)| t.clone()).collect();
    let vectors = if texts.is_empty() {
        Vec::new()
    } else {
        // A tick may wait longer than a question: the provider's own timeout.
        let tick_settings = EmbeddingsSettings {
            timeout: settings.provider.timeout.max(settings.timeout),
            ..settings.clone()
        };
        embed(&tick_settings, &texts).await?
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
    };
    if cache != old {
        let bytes = serde_json::to_vec(&cache).map_err(|e| EmbedError::Shape {
            model,
            message: e.to_string(),
        })?;
        dir.write_unsynced(CACHE_FILE, &bytes)?;
    }
    Ok(report)
}
