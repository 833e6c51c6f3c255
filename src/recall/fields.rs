//! The fields of an entry recall reads beyond the summary, read tolerantly: state
//! version 2's `importance` (0..10, 5 when absent), `sightings` (1 when absent) and
//! `from` (the provenance `thread/source`, or `[source]` when absent), whether the
//! state model holds them as fields or they ride in the entry's unknown fields. Only
//! this file knows where they live.
//!
//! Pure.

use serde_json::Value;

use crate::state::Entry;

/// The importance an entry without one is read with (SPEC §3's upgrade of version 1).
pub const DEFAULT_IMPORTANCE: f64 = 5.0;

/// 0..=10.
pub fn importance(e: &Entry) -> f64 {
    e.extra
        .get("importance")
        .and_then(Value::as_f64)
        .filter(|x| x.is_finite())
        .map_or(DEFAULT_IMPORTANCE, |x| x.clamp(0.0, 10.0))
}

/// 0..=10.
pub fn strength(e: &Entry) -> f64 {
    f64::from(e.strength)
}

/// How many ticks added or reinforced it (at least 1).
pub fn sightings(e: &Entry) -> u64 {
    e.extra
        .get("sightings")
        .and_then(Value::as_u64)
        .unwrap_or(1)
        .max(1)
}

/// Where it came from: `from`'s `thread/source` names, else the thread in `source`.
pub fn provenance(e: &Entry) -> Vec<&str> {
    let from: Vec<&str> = e
        .extra
        .get("from")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if from.is_empty() {
        e.source.as_deref().into_iter().collect()
    } else {
        from
    }
}

/// The source names of its provenance (`watcher/bank-mail` → `bank-mail`): the words a
/// person may use for where something came from ("the calendar", "my inbox").
pub fn source_names(e: &Entry) -> Vec<&str> {
    provenance(e)
        .into_iter()
        .filter_map(|p| p.split_once('/').map(|(_, source)| source))
        .filter(|s| !s.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(extra: Value) -> Entry {
        let mut e: Entry = serde_json::from_value(serde_json::json!({
            "id": "p-x", "summary": "s", "strength": 4, "source": "watcher",
            "created": "2026-11-22T10:00:00Z", "last_seen": "2026-11-22T10:00:00Z"
        }))
        .unwrap();
        if let Value::Object(m) = extra {
            e.extra = m;
        }
        e
    }

    #[test]
    fn version_one_entries_read_with_the_upgrade_defaults() {
        let e = entry(Value::Null);
        assert!((importance(&e) - 5.0).abs() < 1e-9);
        assert_eq!(sightings(&e), 1);
        assert_eq!(provenance(&e), ["watcher"]);
        assert!(source_names(&e).is_empty());
    }

    #[test]
    fn version_two_fields_are_read_and_bounded() {
        let e = entry(serde_json::json!({
            "importance": 12, "sightings": 4, "from": ["watcher/inbox", "oracle/calendar"]
        }));
        assert!((importance(&e) - 10.0).abs() < 1e-9);
        assert_eq!(sightings(&e), 4);
        assert_eq!(source_names(&e), ["inbox", "calendar"]);
        let odd = entry(serde_json::json!({"importance": "high", "from": "inbox"}));
        assert!((importance(&odd) - 5.0).abs() < 1e-9);
        assert_eq!(provenance(&odd), ["watcher"]);
    }
}
