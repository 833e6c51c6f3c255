//! Reading a source's settings from its TOML table (the low → high split of ripgrep's
//! `lowargs`/`hiargs`): the error type the kinds return, and the checks they share
//! (seconds, whole numbers in a range, the serde step with unknown keys refused); the
//! path resolver the config reader hands in ([`Resolve`]) and why a path does not resolve
//! ([`PathError`], also what `crate::config::expand_home` says).
//!
//! Owns what a setting error says; must not know where the source is in the file or on
//! which line: the config reader ([`crate::config`]) adds the source's place
//! (`threads.watcher.sources[0]`) and the line to [`SettingsError::field`].

use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::time::Duration;

use serde::de::DeserializeOwned;

/// The longest timeout a source may have: a day.
pub const MAX_TIMEOUT_SECONDS: f64 = 86_400.0;
/// The range of a source's `max_bytes`.
pub const MAX_BYTES_RANGE: RangeInclusive<usize> = 1..=10_000_000;

/// Resolves a path from the config file (`~` expanded, relative to the file's directory);
/// the error says why it cannot.
pub type Resolve<'a> = &'a dyn Fn(&str) -> Result<PathBuf, PathError>;

/// Why a path from the config file cannot be resolved: a leading `~` that cannot expand
/// (`crate::config::expand_home` never yields a literal `~` directory instead).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// `~` or `~/x` without `$HOME`.
    #[error(
        "`{path}` needs a home directory, but $HOME is not set: set HOME, or write an absolute path"
    )]
    NoHome { path: String },
    /// `~user` or `~user/x` for a user `/etc/passwd` does not list (with an absolute home).
    #[error("`~{user}`: no such user in /etc/passwd; write the full path instead")]
    NoSuchUser { user: String },
}

/// A source's setting that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{message}", .field.as_deref().map(|f| format!("`{f}`: ")).unwrap_or_default())]
pub struct SettingsError {
    /// The key within the source's table (`max_bytes`, `paths[1]`); `None`: the source
    /// as a whole (e.g. a required key left out).
    pub field: Option<String>,
    /// What is wrong and what to write instead.
    pub message: String,
}

impl SettingsError {
    /// An error about `field`.
    pub fn at(field: impl Into<String>, message: impl Into<String>) -> SettingsError {
        SettingsError {
            field: Some(field.into()),
            message: message.into(),
        }
    }
}

/// A timeout in seconds as written (`None`: left out): above 0, at most
/// [`MAX_TIMEOUT_SECONDS`]; `default` when left out.
pub fn seconds(
    field: &str,
    value: Option<&toml::Value>,
    default: f64,
) -> Result<Duration, SettingsError> {
    let s = match value {
        None => default,
        Some(toml::Value::Integer(n)) => *n as f64,
        Some(toml::Value::Float(x)) => *x,
        Some(other) => {
            return Err(SettingsError::at(
                field,
                format!("{other} must be a number of seconds"),
            ));
        }
    };
    Some(s)
        .filter(|s| s.is_finite() && *s > 0.0 && *s <= MAX_TIMEOUT_SECONDS)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| {
            SettingsError::at(
                field,
                format!(
                    "{s} is not a number of seconds above 0 and at most {MAX_TIMEOUT_SECONDS} (a day)"
                ),
            )
        })
}

/// A whole number as written (`None`: left out) within `range`; `default` when left out.
pub fn count(
    field: &str,
    value: Option<&toml::Value>,
    default: usize,
    range: RangeInclusive<usize>,
) -> Result<usize, SettingsError> {
    let n = match value {
        None => return Ok(default),
        Some(toml::Value::Integer(n)) => *n,
        Some(other) => {
            return Err(SettingsError::at(
                field,
                format!("{other} must be a whole number"),
            ));
        }
    };
    usize::try_from(n)
        .ok()
        .filter(|n| range.contains(n))
        .ok_or_else(|| {
            SettingsError::at(
                field,
                format!(
                    "{n} is out of range: must be from {} to {}",
                    range.start(),
                    range.end()
                ),
            )
        })
}

/// The kind's own keys (`name` and `kind` already taken out), read into its raw serde
/// type; a key it does not take is refused by name, listing those it takes.
pub fn read<T: DeserializeOwned>(
    kind: &str,
    keys: &[&str],
    table: toml::Table,
) -> Result<T, SettingsError> {
    if let Some(unknown) = table.keys().find(|k| !keys.contains(&k.as_str())) {
        let takes: Vec<&str> = ["kind", "name"].iter().chain(keys).copied().collect();
        return Err(SettingsError::at(
            unknown.as_str(),
            format!(
                "unknown key `{unknown}`: a {kind} source takes {}",
                takes.join(", ")
            ),
        ));
    }
    toml::Value::Table(table)
        .try_into()
        // Points at the source as a whole: the message names the key (`missing field
        // `command``, or a wrong type), and its table's line is the one to look at.
        .map_err(|e: toml::de::Error| SettingsError {
            field: None,
            message: e.message().trim_end().to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> toml::Value {
        text.parse::<toml::Table>().unwrap()["v"].clone()
    }

    #[test]
    fn seconds_and_counts_name_their_field() {
        assert_eq!(
            seconds("t", Some(&value("v = 2")), 10.0).unwrap(),
            Duration::from_secs(2)
        );
        assert_eq!(seconds("t", None, 10.0).unwrap(), Duration::from_secs(10));
        for bad in ["v = -3", "v = 0", "v = nan", "v = 1e300", "v = \"5\""] {
            let e = seconds("timeout_seconds", Some(&value(bad)), 10.0).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("timeout_seconds"), "{bad}");
        }
        assert_eq!(count("m", None, 7, 1..=10).unwrap(), 7);
        assert_eq!(count("m", Some(&value("v = 10")), 7, 1..=10).unwrap(), 10);
        for bad in ["v = 0", "v = -1", "v = 11", "v = 1.5", "v = \"3\""] {
            let e = count("max_bytes", Some(&value(bad)), 7, 1..=10).unwrap_err();
            assert_eq!(e.field.as_deref(), Some("max_bytes"), "{bad}");
        }
    }
}
