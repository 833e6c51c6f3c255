//! The fields of an entry recall reads beyond the summary: state version 2's
//! `importance`, `sightings` and `from` (the provenance `thread/source`, or the thread in
//! `source` when it has none: an entry upgraded from version 1 before its first tick).
//! Only this file knows how they are read.
//!
//! Pure.

use crate::state::Entry;

/// The importance a version 1 entry is upgraded with (SPEC §3): recall's neutral point.
pub const DEFAULT_IMPORTANCE: f64 = 5.0;

/// 0..=10.
pub fn importance(e: &Entry) -> f64 {
    f64::from(e.importance.min(10))
}

/// 0..=10.
pub fn strength(e: &Entry) -> f64 {
    e.strength.as_f64()
}

/// How many ticks added or reinforced it (at least 1).
pub fn sightings(e: &Entry) -> u64 {
    u64::from(e.sightings).max(1)
}

/// Where it came from: `from`'s `thread/source` names, else the thread in `source`.
pub fn provenance(e: &Entry) -> Vec<&str> {
    if e.from.is_empty() {
        e.source.as_deref().into_iter().collect()
    } else {
        e.from.iter().map(String::as_str).collect()
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

    fn entry(fields: serde_json::Value) -> Entry {
        let mut v = serde_json::json!({
            "id": "p-x", "summary": "s", "strength": 4, "source": "watcher",
            "created": "2026-11-22T10:00:00Z", "last_seen": "2026-11-22T10:00:00Z"
        });
        if let (Some(m), serde_json::Value::Object(extra)) = (v.as_object_mut(), fields) {
            m.extend(extra);
        }
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn version_one_entries_read_with_the_upgrade_defaults() {
        let e = entry(serde_json::Value::Null);
        assert!((importance(&e) - 5.0).abs() < 1e-9);
        assert_eq!(sightings(&e), 1);
        assert_eq!(provenance(&e), ["watcher"]);
        assert!(source_names(&e).is_empty());
    }

    #[test]
    fn version_two_fields_are_read() {
        let e = entry(serde_json::json!({
            "importance": 9, "sightings": 4, "from": ["watcher/inbox", "oracle/calendar"]
        }));
        assert!((importance(&e) - 9.0).abs() < 1e-9);
        assert_eq!(sightings(&e), 4);
        assert_eq!(source_names(&e), ["inbox", "calendar"]);
        assert!((strength(&e) - 4.0).abs() < 1e-9);
    }
}
