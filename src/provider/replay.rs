//! Replay: answers read from files, for demos, tests and replaying a journaled tick.
//!
//! `dir/<model>` is either a file, whose text is always the answer, or a directory whose
//! files, sorted by name, answer in turn: tick `n` gets file `(n - 1) mod count`, so a
//! demo cycles. No network, no tokens, no cost.

use std::path::Path;
use std::time::Duration;

use super::{CallError, Completion};
use crate::provider::config::{ModelRef, ProviderConfig};

pub fn answer(
    config: &ProviderConfig,
    model: &ModelRef,
    sequence: u64,
) -> Result<Completion, CallError> {
    let fail = |message: String| CallError::Replay {
        model: model.to_string(),
        message,
    };
    let Some(dir) = &config.replay_dir else {
        return Err(fail(format!(
            "provider `{}` has no `dir` to read answers from",
            config.name
        )));
    };
    let path = dir.join(&model.model);
    let file = if path.is_dir() {
        let files = answer_files(&path)
            .map_err(|e| fail(format!("cannot list {}: {e}", path.display())))?;
        if files.is_empty() {
            return Err(fail(format!("{} holds no answer files", path.display())));
        }
        let index = (sequence.saturating_sub(1) % files.len() as u64) as usize;
        files[index].clone()
    } else {
        path
    };
    let text = std::fs::read_to_string(&file).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            fail(format!(
                "no answer file or directory at {} (replay answers are read from `dir`/<model>)",
                file.display()
            ))
        } else {
            fail(format!("cannot read {}: {e}", file.display()))
        }
    })?;
    Ok(Completion {
        text,
        model: model.clone(),
        served_model: model.model.clone(),
        tokens_in: 0,
        tokens_out: 0,
        cost: 0.0,
        latency: Duration::ZERO,
        attempts: 0,
    })
}

/// The regular, non-hidden files of `dir`, sorted by name.
fn answer_files(dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        if !hidden && entry.path().is_file() {
            files.push(entry.path());
        }
    }
    files.sort();
    Ok(files)
}
