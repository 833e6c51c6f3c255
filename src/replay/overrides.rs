//! `--set KEY=VALUE` for `replay` and `report`: a setting written as in the config file
//! (`memory.match_threshold=0.5`, `memory.caps.patterns=8`,
//! `escalation.quiet_hours=["22:00-07:00"]`), applied to the config's text and validated
//! by the config loader itself, so an override is exactly what the same line in the file
//! would be, with the same checks and messages.
//!
//! Only the memory's rules (`[memory]`) and the escalation's noise keys can be replayed:
//! the rest (models, sources, prompts) changes what the threads would have answered,
//! which the journal cannot know. Pure: text in, config out.

use std::path::Path;

use crate::config::Config;

/// The `[escalation]` keys a replay can change: how often the user would be disturbed.
pub const ESCALATION_KEYS: [&str; 3] = ["dismiss_memory_hours", "daily_cap", "quiet_hours"];

/// A `--set` that cannot be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OverrideError {
    #[error(
        "--set {0}: expected KEY=VALUE, a key as in the config file (e.g. --set memory.match_threshold=0.5)"
    )]
    Shape(String),
    #[error(
        "--set {key}: a replay can change the [memory] keys and [escalation] {} only (the journal cannot say what other settings would have made the threads answer)",
        ESCALATION_KEYS.join(", ")
    )]
    NotReplayable { key: String },
    #[error("--set {key}: {message}")]
    Invalid { key: String, message: String },
}

/// One override as given.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Override {
    pub key: String,
    pub value: String,
}

/// Reads `KEY=VALUE` (a TOML value; a bare word is taken as a string).
pub fn parse(text: &str) -> Result<Override, OverrideError> {
    let Some((key, value)) = text.split_once('=') else {
        return Err(OverrideError::Shape(text.to_string()));
    };
    let (key, value) = (key.trim(), value.trim());
    if key.is_empty() || value.is_empty() {
        return Err(OverrideError::Shape(text.to_string()));
    }
    let parts: Vec<&str> = key.split('.').collect();
    let replayable = match parts.as_slice() {
        ["memory", rest @ ..] => !rest.is_empty() && rest.iter().all(|p| !p.is_empty()),
        ["escalation", leaf] => ESCALATION_KEYS.contains(leaf),
        _ => false,
    };
    if !replayable {
        return Err(OverrideError::NotReplayable {
            key: key.to_string(),
        });
    }
    Ok(Override {
        key: key.to_string(),
        value: value.to_string(),
    })
}

/// `text` (the config file's) with `overrides` set, validated as a config.
pub fn apply(
    text: &str,
    path: Option<&Path>,
    overrides: &[Override],
) -> Result<Config, OverrideError> {
    let invalid = |key: &str, message: String| OverrideError::Invalid {
        key: key.to_string(),
        message,
    };
    let mut doc: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| invalid("(config)", e.to_string()))?;
    for o in overrides {
        let value = value_of(&o.value);
        let mut parts: Vec<&str> = o.key.split('.').collect();
        let Some(leaf) = parts.pop() else {
            return Err(OverrideError::Shape(o.key.clone()));
        };
        let mut table = &mut doc;
        for part in parts {
            let entry = table
                .entry(part.to_string())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            table = match entry {
                toml::Value::Table(t) => t,
                _ => {
                    return Err(invalid(
                        &o.key,
                        format!("`{part}` is not a table in the config"),
                    ));
                }
            };
        }
        table.insert(leaf.to_string(), value);
    }
    let text = toml::to_string(&doc).map_err(|e| invalid("(config)", e.to_string()))?;
    Config::parse(&text, path).map_err(|e| {
        let key = overrides
            .iter()
            .map(|o| o.key.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        invalid(&key, e.to_string())
    })
}

/// A TOML value, or the text as a string when it is not one (`--set k=22:00-07:00`).
fn value_of(text: &str) -> toml::Value {
    format!("v = {text}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_read_as_in_the_config_file() {
        for (text, ok) in [
            ("memory.match_threshold=0.5", true),
            ("memory.caps.patterns=8", true),
            ("escalation.daily_cap=2", true),
            ("escalation.quiet_hours=[\"22:00-07:00\"]", true),
            ("escalation.model=x/y", false),
            ("threads.watcher.model=x/y", false),
            ("memory.=1", false),
            ("memory.match_threshold", false),
            ("=1", false),
        ] {
            assert_eq!(parse(text).is_ok(), ok, "{text}");
        }
    }

    #[test]
    fn an_override_is_validated_like_the_file() {
        let base = "[memory]\nmatch_threshold = 0.6\n";
        let set = |t: &str| apply(base, None, &[parse(t).unwrap()]);
        let config = set("memory.match_threshold=0.5").unwrap();
        assert!((config.memory.match_threshold - 0.5).abs() < 1e-9);
        let config = set("memory.caps.patterns=8").unwrap();
        assert_eq!(config.memory.caps.patterns, 8);
        let err = set("memory.match_threshold=7").unwrap_err().to_string();
        assert!(err.starts_with("--set memory.match_threshold:"), "{err}");
        let err = set("memory.no_such_key=1").unwrap_err().to_string();
        assert!(err.contains("no_such_key"), "{err}");
    }
}
