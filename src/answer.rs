//! A thread's answer (SPEC §5) and the tolerant reader that turns model output into it.
//!
//! Owns: finding a JSON object inside prose or a code fence, reading numbers given as
//! strings, clamping importance to 0..=10, defaulting unknown kinds to the thread's
//! default, cutting summaries to 20 words. Every text read from an answer (summaries,
//! `reinforce` ids, `suggest`, `escalate_reason`) is cleaned to one line on the way in
//! ([`crate::untrusted`]), so the state never holds control characters, escape
//! sequences, bidi or zero-width characters. Text with no readable JSON object is an
//! error, never an empty answer. Pure functions; no I/O.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::thread::{Kind, ThreadName};
use crate::timestamp;
use crate::untrusted;

/// Summaries are cut to this many words.
pub const MAX_SUMMARY_WORDS: usize = 20;
/// And, whatever the words, to this many characters (a "word" can be a whole log line).
pub const MAX_SUMMARY_CHARS: usize = 240;
/// A `suggest` hint is cut to this many words.
pub const MAX_SUGGEST_WORDS: usize = 40;
/// At most this many findings of one answer are read; the rest are ignored.
pub const MAX_FINDINGS: usize = 20;
/// Importance of a finding that gives none.
pub const DEFAULT_IMPORTANCE: u8 = 0;

/// One thing a thread noticed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    pub summary: String,
    pub importance: u8,
    pub kind: Kind,
    #[serde(
        skip_serializing_if = "Option::is_none",
        with = "timestamp::serde_utc_opt"
    )]
    pub due: Option<DateTime<Utc>>,
}

/// A thread's answer for one tick, read and cleaned.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Answer {
    pub findings: Vec<Finding>,
    pub reinforce: Vec<String>,
    pub suggest: String,
    pub escalate: bool,
    pub escalate_reason: String,
}

impl Answer {
    /// Whether the thread reported anything at all (a finding or a reinforce).
    pub fn found_anything(&self) -> bool {
        !self.findings.is_empty() || !self.reinforce.is_empty()
    }
}

/// Why an answer could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    #[error("the answer holds no JSON object (it begins: {0:?})")]
    NoJson(String),
    #[error("the answer's `findings` is not a list")]
    FindingsNotAList,
}

/// Reads a thread's answer from model output: a JSON object, or prose or a code fence
/// around one.
pub fn parse(thread: ThreadName, text: &str) -> Result<Answer, AnswerError> {
    let object = find_object(text).ok_or_else(|| AnswerError::NoJson(excerpt(text)))?;
    from_object(thread, &object)
}

/// Reads a thread's answer from an already-parsed JSON value (e.g. a tool call's input).
pub fn from_value(thread: ThreadName, value: &Value) -> Result<Answer, AnswerError> {
    match value {
        Value::Object(map) => from_object(thread, map),
        Value::String(s) => parse(thread, s),
        other => Err(AnswerError::NoJson(excerpt(&other.to_string()))),
    }
}

fn excerpt(text: &str) -> String {
    let clean: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(80)
        .collect();
    clean.trim().to_string()
}

const ANSWER_KEYS: [&str; 5] = [
    "findings",
    "reinforce",
    "suggest",
    "escalate",
    "escalate_reason",
];

fn looks_like_answer(map: &Map<String, Value>) -> bool {
    ANSWER_KEYS.iter().any(|k| map.contains_key(*k))
}

/// Unwraps `{"answer": {...}}`-style envelopes one level deep.
fn unwrap_envelope(map: Map<String, Value>) -> Map<String, Value> {
    if !looks_like_answer(&map)
        && map.len() == 1
        && let Some(Value::Object(inner)) = map.values().next()
        && looks_like_answer(inner)
    {
        return inner.clone();
    }
    map
}

/// Finds the JSON object in a model's output: the whole text, else inside code fences,
/// else the first `{` from which a whole object parses. An object that looks like an
/// answer wins over one that does not.
fn find_object(text: &str) -> Option<Map<String, Value>> {
    let trimmed = text.trim().trim_start_matches('\u{feff}');
    if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(trimmed) {
        return Some(unwrap_envelope(map));
    }
    let mut first_object = None;
    for start in trimmed.match_indices('{').map(|(i, _)| i) {
        let mut stream = serde_json::Deserializer::from_str(&trimmed[start..]).into_iter::<Value>();
        if let Some(Ok(Value::Object(map))) = stream.next() {
            let map = unwrap_envelope(map);
            if looks_like_answer(&map) {
                return Some(map);
            }
            first_object.get_or_insert(map);
        }
    }
    first_object
}

fn from_object(thread: ThreadName, map: &Map<String, Value>) -> Result<Answer, AnswerError> {
    let findings = match map.get("findings") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|item| read_finding(thread, item))
            .take(MAX_FINDINGS)
            .collect(),
        Some(Value::Object(one)) => read_finding(thread, &Value::Object(one.clone()))
            .into_iter()
            .collect(),
        Some(_) => return Err(AnswerError::FindingsNotAList),
    };
    let mut reinforce: Vec<String> = Vec::new();
    let ids: Vec<&Value> = match map.get("reinforce") {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(v @ Value::String(_)) => vec![v],
        _ => Vec::new(),
    };
    for id in ids {
        if let Value::String(s) = id {
            let s = untrusted::clean_line(s).trim().to_string();
            if !s.is_empty() && !reinforce.contains(&s) {
                reinforce.push(s);
            }
        }
    }
    let suggest = map
        .get("suggest")
        .and_then(Value::as_str)
        .map(|s| cut_words(s, MAX_SUGGEST_WORDS, MAX_SUMMARY_CHARS * 2))
        .unwrap_or_default();
    let escalate = map.get("escalate").is_some_and(read_bool);
    let escalate_reason = map
        .get("escalate_reason")
        .and_then(Value::as_str)
        .map(|s| cut_words(s, MAX_SUGGEST_WORDS, MAX_SUMMARY_CHARS * 2))
        .unwrap_or_default();
    Ok(Answer {
        findings,
        reinforce,
        suggest,
        escalate,
        escalate_reason,
    })
}

fn read_finding(thread: ThreadName, item: &Value) -> Option<Finding> {
    let (summary, obj) = match item {
        Value::String(s) => (s.as_str(), None),
        Value::Object(obj) => (
            obj.get("summary")
                .or_else(|| obj.get("text"))
                .and_then(Value::as_str)?,
            Some(obj),
        ),
        _ => return None,
    };
    let summary = cut_words(summary, MAX_SUMMARY_WORDS, MAX_SUMMARY_CHARS);
    if summary.is_empty() {
        return None;
    }
    let importance = obj
        .and_then(|o| o.get("importance"))
        .and_then(read_number)
        .map_or(DEFAULT_IMPORTANCE, |n| n.round().clamp(0.0, 10.0) as u8);
    let kind = obj
        .and_then(|o| o.get("kind"))
        .and_then(Value::as_str)
        .and_then(|k| Kind::parse_for(thread, k))
        .unwrap_or_else(|| thread.default_kind());
    let due = obj
        .and_then(|o| o.get("due"))
        .and_then(Value::as_str)
        .and_then(timestamp::parse);
    Some(Finding {
        summary,
        importance,
        kind,
        due,
    })
}

/// A number, or a string that starts with one (`"7"`, `" 8.5 "`, `"9/10"`).
fn read_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => {
            let s = s.trim();
            let end = s
                .char_indices()
                .find(|(i, c)| !(c.is_ascii_digit() || *c == '.' || (*i == 0 && *c == '-')))
                .map_or(s.len(), |(i, _)| i);
            s[..end].parse::<f64>().ok()
        }
        _ => None,
    }
    .filter(|n| n.is_finite())
}

fn read_bool(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::String(s) => matches!(s.trim().to_ascii_lowercase().as_str(), "true" | "yes" | "1"),
        Value::Number(n) => n.as_f64().is_some_and(|n| n != 0.0),
        _ => false,
    }
}

/// Cleans model-written text to one line ([`untrusted::clean_line`]: no control
/// characters, escape sequences, bidi or zero-width characters), collapses white space
/// and keeps at most `words` words and `chars` characters.
pub fn cut_words(text: &str, words: usize, chars: usize) -> String {
    let joined = untrusted::clean_line(text)
        .split_whitespace()
        .take(words)
        .collect::<Vec<_>>()
        .join(" ");
    if joined.chars().count() <= chars {
        joined
    } else {
        joined
            .chars()
            .take(chars)
            .collect::<String>()
            .trim_end()
            .to_string()
    }
}

/// Findings asked for per answer: small models otherwise repeat a finding until the
/// token limit.
pub const SCHEMA_MAX_FINDINGS: usize = 5;
/// `reinforce` ids asked for per answer.
pub const SCHEMA_MAX_REINFORCE: usize = 10;

/// The JSON schema of a thread's answer (SPEC §5) as sent to providers, with the kinds
/// `thread` may use and bounds on every list and string.
pub fn schema(thread: ThreadName) -> Value {
    let kinds: Vec<&str> = thread.kinds().iter().map(|k| k.as_str()).collect();
    serde_json::json!({
        "type": "object",
        "properties": {
            "findings": {
                "type": "array",
                "maxItems": SCHEMA_MAX_FINDINGS,
                "items": {
                    "type": "object",
                    "properties": {
                        "summary": {"type": "string", "maxLength": 160},
                        "importance": {"type": "integer", "minimum": 0, "maximum": 10},
                        "kind": {"type": "string", "enum": kinds},
                        "due": {"type": "string", "maxLength": 40}
                    },
                    "required": ["summary", "importance", "kind"],
                    "additionalProperties": false
                }
            },
            "reinforce": {
                "type": "array",
                "maxItems": SCHEMA_MAX_REINFORCE,
                "items": {"type": "string", "maxLength": 80}
            },
            "suggest": {"type": "string", "maxLength": 200},
            "escalate": {"type": "boolean"},
            "escalate_reason": {"type": "string", "maxLength": 200}
        },
        "required": ["findings", "reinforce", "escalate"],
        "additionalProperties": false
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_plain_json() {
        let a = parse(
            ThreadName::Watcher,
            r#"{"findings":[{"summary":"Disk 91% full","importance":7,"kind":"anomaly"}],"reinforce":["t-disk"],"suggest":"check backups","escalate":false}"#,
        )
        .unwrap();
        assert_eq!(a.findings[0].kind, Kind::Anomaly);
        assert_eq!(a.findings[0].importance, 7);
        assert_eq!(a.reinforce, vec!["t-disk"]);
        assert_eq!(a.suggest, "check backups");
    }

    #[test]
    fn finds_json_in_prose_and_fences() {
        let text = "Sure! Here is my answer:\n```json\n{\"findings\": [{\"summary\": \"x y\", \"importance\": \"8\"}]}\n```\nHope it helps {not json}";
        let a = parse(ThreadName::Oracle, text).unwrap();
        assert_eq!(a.findings[0].importance, 8);
        assert_eq!(a.findings[0].kind, Kind::Anticipation);
    }

    #[test]
    fn prefers_the_object_that_looks_like_an_answer() {
        let text = r#"Context {"note": 1} then {"findings": [], "reinforce": ["p-x"]}"#;
        assert_eq!(
            parse(ThreadName::Librarian, text).unwrap().reinforce,
            vec!["p-x"]
        );
    }

    #[test]
    fn clamps_defaults_and_cuts() {
        let long = (0..30)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        let text = format!(
            r#"{{"findings":[{{"summary":"{long}","importance":42,"kind":"prophecy"}},{{"summary":"b","importance":-3}}],"escalate":"true","escalate_reason":"r"}}"#
        );
        let a = parse(ThreadName::Dreamer, &text).unwrap();
        assert_eq!(a.findings[0].importance, 10);
        assert_eq!(a.findings[0].kind, Kind::Idea);
        assert_eq!(a.findings[0].summary.split(' ').count(), 20);
        assert_eq!(a.findings[1].importance, 0);
        assert!(a.escalate);
    }

    #[test]
    fn text_from_an_answer_is_cleaned_to_one_line() {
        let dirty = "Invoice\u{202e}fdp.exe \u{9b}2J\x1b[31mred\x1b[0m zero\u{200b}width\u{feff}\nSYSTEM:\tobey \u{85}\u{7}";
        let answer = serde_json::json!({
            "findings": [{"summary": dirty, "importance": 5}, dirty],
            "reinforce": [" t-a\u{200d}b\u{202e} ", "t-ab"],
            "suggest": dirty,
            "escalate": true,
            "escalate_reason": dirty,
        });
        let a = from_value(ThreadName::Watcher, &answer).unwrap();
        let want = "Invoicefdp.exe red zerowidth SYSTEM: obey";
        assert_eq!(a.findings[0].summary, want);
        assert_eq!(a.findings[1].summary, want);
        assert_eq!(a.suggest, want);
        assert_eq!(a.escalate_reason, want);
        assert_eq!(a.reinforce, vec!["t-ab"], "cleaned, then deduplicated");
    }

    #[test]
    fn no_json_is_a_failure_not_an_empty_answer() {
        let err = parse(
            ThreadName::Watcher,
            "I could not find anything interesting.",
        )
        .unwrap_err();
        assert!(matches!(err, AnswerError::NoJson(_)));
        assert!(parse(ThreadName::Watcher, r#"{"findings": "none"}"#).is_err());
    }

    #[test]
    fn due_dates_are_read_leniently() {
        let a = parse(
            ThreadName::Oracle,
            r#"{"findings":[{"summary":"Rent due","importance":5,"kind":"deadline","due":"2026-12-01"},{"summary":"q","importance":5,"due":"soon"}]}"#,
        )
        .unwrap();
        assert_eq!(
            timestamp::format(a.findings[0].due.unwrap()),
            "2026-12-01T00:00:00Z"
        );
        assert_eq!(a.findings[1].due, None);
    }
}
