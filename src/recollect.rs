//! What recall is given, read from the state directory: the archive's summaries (for
//! the IDF), the `[recall]` settings (sizes, synonyms) and, when `[recall] embeddings`
//! is set, the entries' cached vectors and the question's, embedded with a short
//! timeout as the privacy setting allows (the question is the user's private text:
//! [`crate::embeddings`] says what may be sent, and records the call in the journal).
//! Any failure of the semantic side, and a question withheld, is logged (`-v`) and
//! recall goes on lexical: it works offline and without a config.
//!
//! The one place recall's inputs meet I/O (the embeddings call's journal line is
//! written by `embeddings`); `show`, the hooks and the MCP tools call it,
//! then [`crate::recall`] (pure) ranks and renders.

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};

use chrono::{DateTime, Utc};

use crate::archive::Archived;
pub use crate::embeddings::EmbeddingsSettings;
use crate::embeddings::{self, Cache, Sending};
use crate::recall::{self, Acceptance, Inputs, Limits, Semantic, Synonyms};
use crate::state::State;
use crate::storage::StateDir;

/// Only the last this-many bytes of `archive.jsonl` are read: the IDF of the recent
/// past, at a bounded cost however long the archive grows.
pub const ARCHIVE_TAIL_BYTES: u64 = 256 << 10;
/// `[recall] embeddings_timeout_ms`.
pub const DEFAULT_EMBEDDINGS_TIMEOUT_MS: u64 = 1_500;
/// `[recall] min_similarity`.
pub const DEFAULT_MIN_SIMILARITY: f64 = 0.75;
/// `[recall] semantic_weight`.
pub const DEFAULT_SEMANTIC_WEIGHT: f64 = 0.5;

/// `[recall]`.
#[derive(Clone, Debug, PartialEq)]
pub struct RecallSettings {
    /// The block's size (hooks: within their host's limit).
    pub max_bytes: usize,
    /// At most this many entries for a question.
    pub max_entries: usize,
    /// Groups added to the built-in synonym table.
    pub synonyms: Vec<Vec<String>>,
    pub embeddings: Option<EmbeddingsSettings>,
    /// A memory whose last applied tick is older than this is said to be out of date
    /// ([`recall::stale_after`] of the tick's cadence).
    pub stale_after: chrono::TimeDelta,
    /// How many local days ahead "what's due?" and "coming up" reach.
    pub due_horizon_days: u32,
}

impl Default for RecallSettings {
    fn default() -> Self {
        RecallSettings {
            max_bytes: recall::DEFAULT_MAX_BYTES,
            max_entries: recall::DEFAULT_MAX_ENTRIES,
            synonyms: Vec::new(),
            embeddings: None,
            stale_after: recall::stale_after(
                recall::DEFAULT_INTERVAL_MINUTES,
                crate::quiet::DEFAULT_MAX_SKIPPED.saturating_add(1),
            ),
            due_horizon_days: recall::time::DEFAULT_DUE_HORIZON_DAYS,
        }
    }
}

impl RecallSettings {
    /// The limits for a block of `max_bytes` (the caller's, within its host's limit).
    pub fn limits(&self, max_bytes: usize) -> Limits {
        Limits {
            max_bytes,
            max_entries: self.max_entries,
            stale_after: Some(self.stale_after),
        }
    }
}

/// What recall weighs a question with, owned (see [`Recollection::inputs`]).
#[derive(Clone, Debug, Default)]
pub struct Recollection {
    pub archive: Vec<String>,
    pub synonyms: Option<Synonyms>,
    pub semantic: Option<Semantic>,
    /// `[recall] due_horizon_days` (the default when `None`).
    pub due_horizon_days: Option<u32>,
}

impl Recollection {
    pub fn inputs(&self) -> Inputs<'_> {
        Inputs {
            archive: &self.archive,
            synonyms: self
                .synonyms
                .as_ref()
                .unwrap_or_else(|| Synonyms::builtin()),
            acceptance: Acceptance::default(),
            semantic: self.semantic.as_ref(),
            due_horizon_days: self
                .due_horizon_days
                .unwrap_or(recall::time::DEFAULT_DUE_HORIZON_DAYS),
        }
    }
}

/// The summaries of the archive's last [`ARCHIVE_TAIL_BYTES`] (unreadable lines and a
/// missing file are nothing).
pub fn archive_summaries(dir: &StateDir) -> Vec<String> {
    let Ok(mut file) = std::fs::File::open(dir.file(crate::storage::ARCHIVE_FILE)) else {
        return Vec::new();
    };
    let len = file.metadata().map_or(0, |m| m.len());
    let start = len.saturating_sub(ARCHIVE_TAIL_BYTES);
    if file.seek(SeekFrom::Start(start)).is_err() {
        return Vec::new();
    }
    let mut bytes = Vec::new();
    if file
        .take(ARCHIVE_TAIL_BYTES)
        .read_to_end(&mut bytes)
        .is_err()
    {
        return Vec::new();
    }
    let mut lines = bytes.split(|&b| b == b'\n');
    if start > 0 {
        lines.next(); // the tail starts inside a line
    }
    lines
        .filter_map(Archived::parse)
        .map(|a| a.entry.summary)
        .filter(|s| !s.is_empty())
        .collect()
}

/// The lexical inputs: the archive's summaries and the synonym table with the config's
/// groups.
pub fn lexical(dir: &StateDir, settings: &RecallSettings) -> Recollection {
    Recollection {
        archive: archive_summaries(dir),
        synonyms: (!settings.synonyms.is_empty())
            .then(|| Synonyms::with_groups(&settings.synonyms)),
        semantic: None,
        due_horizon_days: Some(settings.due_horizon_days),
    }
}

/// Adds the semantic side for `question` when `[recall] embeddings` is set, the
/// provider may be sent the question (it is the user's private text: never to a provider
/// that may not see private text, redacted to one that redacts) and the cache holds
/// vectors: the question embedded within the timeout, the call recorded in the journal
/// at `now`. Says why not at `-v`.
pub async fn add_semantic(
    recollection: &mut Recollection,
    dir: &StateDir,
    state: &State,
    settings: &RecallSettings,
    question: &str,
    now: DateTime<Utc>,
) {
    let Some(emb) = &settings.embeddings else {
        return;
    };
    let sending = emb.sending();
    if sending == Sending::Withheld {
        tracing::info!("recall: {}", emb.withheld_note().unwrap_or_default());
        return;
    }
    let model = emb.name();
    let cache = Cache::load(dir);
    let mut entries = HashMap::new();
    for (_, e) in state.all_entries() {
        if let Some(v) = cache
            .vectors
            .get(&Cache::key(&model, sending, &Cache::text(&e.summary)))
        {
            entries.insert(e.id.clone(), v.clone());
        }
    }
    if entries.is_empty() {
        tracing::info!(
            "recall: no embeddings cached yet (the next tick makes them): lexical recall only"
        );
        return;
    }
    match embeddings::embed_question(dir, emb, question, now).await {
        Ok(question) => {
            recollection.semantic = Some(Semantic {
                question,
                entries,
                min_similarity: emb.min_similarity,
                weight: emb.weight,
            });
        }
        Err(e) => tracing::info!("recall: {e}: lexical recall only"),
    }
}

/// [`lexical`] and, for a question, [`add_semantic`] on a runtime of its own (for the
/// commands that do not run one: `show`, the hooks).
pub fn blocking(
    dir: &StateDir,
    state: &State,
    settings: &RecallSettings,
    question: Option<&str>,
    now: DateTime<Utc>,
) -> Recollection {
    let mut r = lexical(dir, settings);
    if let (Some(q), Some(_)) = (question, &settings.embeddings) {
        let added = crate::runtime::block_on(add_semantic(&mut r, dir, state, settings, q, now));
        if let Err(e) = added {
            tracing::info!("recall: {e}: lexical recall only");
        }
    }
    r
}
