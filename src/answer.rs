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
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::schema_fit::{self, Fitted, Unbounded};
use crate::state::LinkKind;
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    pub summary: String,
    pub importance: u8,
    pub kind: Kind,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "timestamp::serde_utc_opt"
    )]
    pub due: Option<DateTime<Utc>>,
    /// The name of the source it was seen in, as the thread gave it (kept as provenance
    /// only when it names one of the thread's sources this tick).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The references of the items it came from (`sources::refs`), as the thread cited
    /// them; the tick keeps only those its sources showed this tick.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refs: Vec<String>,
}

/// Why a thread retires an entry (SPEC §5, §7.10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RetireWhy {
    Cancelled,
    Done,
    /// Also anything the reader does not know.
    Wrong,
}

impl RetireWhy {
    /// Reads a model's word; anything but `cancelled` or `done` is `wrong`.
    pub fn read(text: &str) -> RetireWhy {
        match text.trim().to_ascii_lowercase().as_str() {
            "cancelled" | "canceled" => RetireWhy::Cancelled,
            "done" => RetireWhy::Done,
            _ => RetireWhy::Wrong,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RetireWhy::Cancelled => "cancelled",
            RetireWhy::Done => "done",
            RetireWhy::Wrong => "wrong",
        }
    }
}

/// An entry a thread says is no longer true.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Retire {
    pub id: String,
    pub why: RetireWhy,
}

/// A link between two existing entries a thread proposes (SPEC §5, §7.12): read from
/// any answer, applied only from the Librarian's and the Dreamer's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkProposal {
    pub a: String,
    pub b: String,
    pub kind: LinkKind,
}

/// What the tick knew of the answer's thread this tick, set by the tick (never read from
/// a model's text): the names of the sources it was shown, and whether any of them
/// carried a screen detection. Journaled with the answer, so that a replay takes the
/// aggregator's provenance and guard decisions exactly as the tick did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seen {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub screened: bool,
}

impl Seen {
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty() && !self.screened
    }

    /// The provenance of a finding of `thread` that names `from`: `thread/source` when
    /// `from` names one of the sources (exactly, or ignoring case), else the thread.
    pub fn provenance(&self, thread: ThreadName, from: Option<&str>) -> String {
        let named = from.and_then(|f| {
            let f = f.trim();
            self.sources
                .iter()
                .find(|s| s.as_str() == f)
                .or_else(|| self.sources.iter().find(|s| s.eq_ignore_ascii_case(f)))
        });
        match named {
            Some(source) => format!("{}/{source}", thread.as_str()),
            None => thread.as_str().to_string(),
        }
    }
}

/// A thread's answer for one tick, read and cleaned. Serialized compactly (empty fields
/// left out): it is journaled on every tick so that the tick can be replayed
/// (`thinker replay`), and read back from there.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<Finding>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reinforce: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retire: Vec<Retire>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<LinkProposal>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub suggest: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub escalate: bool,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub escalate_reason: String,
    /// Set by the tick, not the model ([`Seen`]).
    #[serde(default, skip_serializing_if = "Seen::is_empty")]
    pub seen: Seen,
}

impl Answer {
    /// Whether the thread reported anything at all (a finding, a reinforce or a retire).
    pub fn found_anything(&self) -> bool {
        !self.findings.is_empty() || !self.reinforce.is_empty() || !self.retire.is_empty()
    }
}

/// Why an answer could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    #[error("the answer holds no JSON object (it begins: {0:?})")]
    NoJson(String),
    #[error("the answer's `findings` is not a list")]
    FindingsNotAList,
    #[error(
        "the answer's JSON is not a thread answer: it has none of `findings`, `reinforce`, `suggest`, `escalate` (it begins: {0:?})"
    )]
    NotAnAnswer(String),
}

/// Reads a thread's answer from model output: a JSON object, or prose or a code fence
/// around one.
/// An object with none of the answer's keys (`{"status": "ok"}`, or a finding found
/// alone inside an answer whose JSON is broken) is not an answer: it fails, so the next
/// model is asked, rather than counting as a thread that found nothing. `{}` is an empty
/// answer.
pub fn parse(thread: ThreadName, text: &str) -> Result<Answer, AnswerError> {
    let object = find_object(text).ok_or_else(|| AnswerError::NoJson(excerpt(text)))?;
    if !object.is_empty() && !looks_like_answer(&object) {
        return Err(AnswerError::NotAnAnswer(excerpt(text)));
    }
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

/// The start of an unreadable answer, for [`AnswerError::NoJson`]. Callers pass text
/// already scrubbed of API keys (providers scrub every answer before it is read), and
/// the provider layer scrubs the error again before it goes anywhere.
fn excerpt(text: &str) -> String {
    untrusted::excerpt(text, 80)
}

const ANSWER_KEYS: [&str; 7] = [
    "findings",
    "reinforce",
    "retire",
    "links",
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
///
/// Linear in the text, whatever it holds: one scan finds the balanced `{…}` spans (see
/// [`spans`]) and only those are parsed, in order, at most [`PARSE_BUDGET`] times the
/// text's length in all. A span that parses is not searched again from its inner `{`s
/// (its parsed value is), nor is one that fails by nesting too deep.
fn find_object(text: &str) -> Option<Map<String, Value>> {
    Search::new(text).run()
}

/// The bytes serde may read while looking for an object, as a multiple of the text's
/// length (plus [`PARSE_BUDGET_BASE`]).
const PARSE_BUDGET: usize = 8;
const PARSE_BUDGET_BASE: usize = 4096;
/// `{` nested deeper than this (in the scan) does not start a candidate: serde's own
/// recursion limit (128) would refuse most of them anyway.
const MAX_SPAN_DEPTH: usize = 128;
/// How many times the scan starts over after ending inside an open span (a prose `{`
/// that never closes, or an odd number of `"` after one, can hide the object).
const MAX_RESCANS: usize = 8;

/// One search for the object in a text, with the work it did.
struct Search<'a> {
    text: &'a str,
    /// Bytes serde has read so far.
    parsed: usize,
}

impl<'a> Search<'a> {
    fn new(text: &'a str) -> Self {
        Search {
            text: text.trim().trim_start_matches('\u{feff}'),
            parsed: 0,
        }
    }

    fn run(&mut self) -> Option<Map<String, Value>> {
        let text = self.text;
        self.parsed = text.len();
        if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) {
            return Some(unwrap_envelope(map));
        }
        let budget = text
            .len()
            .saturating_mul(PARSE_BUDGET)
            .saturating_add(PARSE_BUDGET_BASE);
        let mut first_object = None;
        // Spans inside one that parsed (or failed too deep) are not tried again.
        let mut covered_until = 0;
        let mut last_start = None;
        for span in spans(text) {
            if span.start < covered_until || last_start == Some(span.start) {
                continue;
            }
            last_start = Some(span.start);
            if self.parsed >= budget {
                break;
            }
            let candidate = &text[span.clone()];
            match serde_json::from_str::<Value>(candidate) {
                Ok(value) => {
                    self.parsed += candidate.len();
                    covered_until = span.end;
                    let Value::Object(map) = value else { continue };
                    let map = unwrap_envelope(map);
                    if looks_like_answer(&map) {
                        return Some(map);
                    }
                    if let Some(inner) = nested_answer(&map) {
                        return Some(inner.clone());
                    }
                    first_object.get_or_insert(map);
                }
                Err(e) => {
                    self.parsed += read_before(candidate, &e);
                    if e.to_string().starts_with("recursion limit exceeded") {
                        covered_until = span.end;
                    }
                }
            }
        }
        first_object
    }
}

/// The first object nested in `map` (in document order) that looks like an answer.
fn nested_answer(map: &Map<String, Value>) -> Option<&Map<String, Value>> {
    let mut stack: Vec<&Value> = map.values().rev().collect();
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(inner) if looks_like_answer(inner) => return Some(inner),
            Value::Object(inner) => stack.extend(inner.values().rev()),
            Value::Array(items) => stack.extend(items.iter().rev()),
            _ => {}
        }
    }
    None
}

/// How far into `text` serde read before it failed (from the error's line and column).
fn read_before(text: &str, e: &serde_json::Error) -> usize {
    let line_start = if e.line() <= 1 {
        Some(0)
    } else {
        text.match_indices('\n')
            .nth(e.line() - 2)
            .map(|(i, _)| i + 1)
    };
    line_start.map_or(text.len(), |s| s.saturating_add(e.column()).min(text.len()))
}

/// The balanced `{…}` spans of `text`, sorted by where they start. One pass: braces
/// count outside strings; a `"` opens a string only inside a span (quotes in prose
/// between objects mean nothing), and escapes are honoured. Spans nested deeper than
/// [`MAX_SPAN_DEPTH`] are not listed. A scan that ends with a span still open starts
/// over just after its outermost open `{` (at most [`MAX_RESCANS`] times).
pub(crate) fn spans(text: &str) -> Vec<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut from = 0;
    for _ in 0..=MAX_RESCANS {
        let mut open: Vec<usize> = Vec::new();
        let mut depth = 0usize;
        let (mut in_string, mut escaped) = (false, false);
        for (i, &b) in bytes.iter().enumerate().skip(from) {
            if in_string {
                match b {
                    _ if escaped => escaped = false,
                    b'\\' => escaped = true,
                    b'"' => in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'{' => {
                    depth += 1;
                    if depth <= MAX_SPAN_DEPTH {
                        open.push(i);
                    }
                }
                b'}' if depth > 0 => {
                    if depth <= MAX_SPAN_DEPTH
                        && let Some(start) = open.pop()
                    {
                        found.push(start..i + 1);
                    }
                    depth -= 1;
                }
                b'"' if depth > 0 => in_string = true,
                _ => {}
            }
        }
        match open.first() {
            Some(&outer) => from = outer + 1,
            None => break,
        }
    }
    found.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    found
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
    let retire = read_retire(map.get("retire"));
    let links = read_links(map.get("links"));
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
        retire,
        links,
        suggest,
        escalate,
        escalate_reason,
        seen: Seen::default(),
    })
}

/// At most this many links of one answer are read.
pub const MAX_LINK_PROPOSALS: usize = 10;

/// `links`: `{"a", "b", "kind"}` objects; ids cleaned to one line, an unknown kind or a
/// missing end skips the item, repeats of a pair are read once (the first).
fn read_links(value: Option<&Value>) -> Vec<LinkProposal> {
    let Some(Value::Array(items)) = value else {
        return Vec::new();
    };
    let mut out: Vec<LinkProposal> = Vec::new();
    for item in items {
        let Value::Object(o) = item else { continue };
        let id = |key: &str| {
            o.get(key)
                .and_then(Value::as_str)
                .map(|s| untrusted::clean_line(s).trim().to_string())
                .filter(|s| !s.is_empty())
        };
        let (Some(a), Some(b)) = (id("a"), id("b")) else {
            continue;
        };
        let Some(kind) = o
            .get("kind")
            .and_then(Value::as_str)
            .and_then(LinkKind::read)
        else {
            continue;
        };
        if !out
            .iter()
            .any(|l| (l.a == a && l.b == b) || (l.a == b && l.b == a))
        {
            out.push(LinkProposal { a, b, kind });
        }
        if out.len() == MAX_LINK_PROPOSALS {
            break;
        }
    }
    out
}

/// At most this many `retire` items of one answer are read.
pub const MAX_RETIRE: usize = 10;
/// A finding's `from` is cut to this many characters.
pub const MAX_FROM_CHARS: usize = 80;

/// `retire`: a list of `{"id", "why"}` objects (or bare ids, read as `wrong`); ids
/// cleaned to one line, the first of each id kept.
fn read_retire(value: Option<&Value>) -> Vec<Retire> {
    let items: Vec<&Value> = match value {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(v @ (Value::Object(_) | Value::String(_))) => vec![v],
        _ => Vec::new(),
    };
    let mut out: Vec<Retire> = Vec::new();
    for item in items {
        let (id, why) = match item {
            Value::String(id) => (id.as_str(), RetireWhy::Wrong),
            Value::Object(o) => match o.get("id").and_then(Value::as_str) {
                Some(id) => (
                    id,
                    o.get("why")
                        .and_then(Value::as_str)
                        .map_or(RetireWhy::Wrong, RetireWhy::read),
                ),
                None => continue,
            },
            _ => continue,
        };
        let id = untrusted::clean_line(id).trim().to_string();
        if !id.is_empty() && !out.iter().any(|r| r.id == id) {
            out.push(Retire { id, why });
        }
        if out.len() == MAX_RETIRE {
            break;
        }
    }
    out
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
    let from = obj
        .and_then(|o| o.get("from"))
        .and_then(Value::as_str)
        .map(|f| cut_words(f, MAX_SUMMARY_WORDS, MAX_FROM_CHARS))
        .filter(|f| !f.is_empty());
    let refs = obj.map_or_else(Vec::new, |o| read_refs(o.get("refs")));
    Some(Finding {
        summary,
        importance,
        kind,
        due,
        from,
        refs,
    })
}

/// At most this many references of one finding are read.
pub const MAX_REFS: usize = 3;

/// `refs`: a list of labels, or one string of them (`"m3fq9k, e7h2kq"`, `"[m3fq9k]"`);
/// each lowercased, brackets and `#` dropped, kept when it has a reference's shape, the
/// first of each kept, at most [`MAX_REFS`].
fn read_refs(value: Option<&Value>) -> Vec<String> {
    let texts: Vec<&str> = match value {
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        Some(Value::String(s)) => vec![s.as_str()],
        _ => Vec::new(),
    };
    let mut out: Vec<String> = Vec::new();
    for text in texts {
        for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
            let word = word.to_ascii_lowercase();
            if crate::sources::refs::is_reference(&word) && !out.contains(&word) {
                out.push(word);
            }
            if out.len() == MAX_REFS {
                return out;
            }
        }
    }
    out
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
/// `retire` items asked for per answer.
pub const SCHEMA_MAX_RETIRE: usize = 5;

/// The JSON schema of a thread's answer (SPEC §5) as sent to providers for a call of
/// `max_tokens`: [`schema`] scaled down until its longest answer fits them
/// ([`crate::schema_fit`]), so a grammar-constrained model that fills every bound with
/// words is not cut off. Below the smallest scale's worst case (see [`fitted`]) it is the
/// smallest scale.
pub fn schema_for(thread: ThreadName, max_tokens: u32) -> Value {
    fitted(thread, max_tokens).map_or_else(|_| schema(thread), |f| f.schema)
}

/// [`schema_for`] with what the fitting found: the scale kept, the worst case's tokens,
/// whether it fits (`doctor` says when it does not, or when the schema was cut).
pub fn fitted(thread: ThreadName, max_tokens: u32) -> Result<Fitted, Unbounded> {
    schema_fit::fit(&schema(thread), max_tokens)
}

/// How each thread's answer schema fits its `max_tokens` ([`fitted`]), as `doctor`'s
/// `answer schema` line says it.
#[derive(Debug, Clone, PartialEq)]
pub struct Room {
    /// Per thread: its `max_tokens`, the findings its fitted schema allows, the tokens
    /// one finding needs, whether anything fits at all.
    pub threads: Vec<ThreadRoom>,
    /// The tokens the whole schema needs, smallest and largest over the threads.
    pub whole: (u64, u64),
}

/// One thread's [`Room`].
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadRoom {
    pub thread: ThreadName,
    pub max_tokens: u32,
    pub findings: u64,
    /// The smallest `max_tokens` whose schema allows one finding.
    pub one_finding: u32,
    /// Whether even the smallest schema's longest answer fits (else a model that fills
    /// it is cut off).
    pub fits: bool,
}

impl Room {
    /// The room of each `(thread, max_tokens)`.
    pub fn of(threads: impl IntoIterator<Item = (ThreadName, u32)>) -> Room {
        let findings = |thread, max_tokens| {
            fitted(thread, max_tokens).map_or((0, false), |f| {
                let n = f.schema["properties"]["findings"]["maxItems"]
                    .as_u64()
                    .unwrap_or(0);
                (n, f.fits)
            })
        };
        let mut whole = (u64::MAX, 0);
        let threads = threads
            .into_iter()
            .map(|(thread, max_tokens)| {
                let all = schema_fit::worst_tokens(&schema(thread)).unwrap_or(u64::MAX);
                whole = (whole.0.min(all), whole.1.max(all));
                // Findings grow with max_tokens: the least that holds one, by bisection.
                let (mut lo, mut hi) = (1, u32::try_from(all).unwrap_or(u32::MAX));
                while lo < hi {
                    let mid = lo.midpoint(hi);
                    if findings(thread, mid).0 >= 1 {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
                let (n, fits) = findings(thread, max_tokens);
                ThreadRoom {
                    thread,
                    max_tokens,
                    findings: n,
                    one_finding: lo,
                    fits,
                }
            })
            .collect();
        Room { threads, whole }
    }

    /// Whether a thread's `max_tokens` leaves no room for a finding.
    pub fn short(&self) -> bool {
        self.threads.iter().any(|t| t.findings == 0)
    }
}

impl std::fmt::Display for Room {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let short: Vec<&ThreadRoom> = self.threads.iter().filter(|t| t.findings == 0).collect();
        if !short.is_empty() {
            let each: Vec<String> = short
                .iter()
                .map(|t| {
                    let cut = if t.fits {
                        ""
                    } else {
                        ", and a model that fills even an empty answer's fields is cut off"
                    };
                    format!(
                        "[threads.{}] max_tokens = {} leaves its answer no room for a finding{cut} (one finding needs {})",
                        t.thread, t.max_tokens, t.one_finding
                    )
                })
                .collect();
            return write!(f, "{}; raise it", each.join("; "));
        }
        let each: Vec<String> = self
            .threads
            .iter()
            .map(|t| format!("{} {}", t.thread, t.findings))
            .collect();
        write!(
            f,
            "fitted to each thread's max_tokens, so a model that fills every bound with words is not cut off: findings at most {} (all {SCHEMA_MAX_FINDINGS} from max_tokens {}",
            each.join(", "),
            self.whole.1
        )?;
        if self.whole.0 < self.whole.1 {
            write!(f, ", {} for threads without links", self.whole.0)?;
        }
        f.write_str(")")
    }
}

/// The JSON schema of a thread's answer (SPEC §5) as written, with the kinds `thread`
/// may use and bounds on every list and string (every part bounded: the worst case is
/// computed from it).
pub fn schema(thread: ThreadName) -> Value {
    let kinds: Vec<&str> = thread.kinds().iter().map(|k| k.as_str()).collect();
    let mut schema = base_schema(&kinds);
    if thread.links()
        && let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut)
    {
        properties.insert(
            "links".into(),
            serde_json::json!({
                "type": "array",
                "maxItems": SCHEMA_MAX_LINKS,
                "items": {
                    "type": "object",
                    "properties": {
                        "a": {"type": "string", "maxLength": 80},
                        "b": {"type": "string", "maxLength": 80},
                        "kind": {"type": "string", "enum": ["connects", "contradicts"]}
                    },
                    "required": ["a", "b", "kind"],
                    "additionalProperties": false
                }
            }),
        );
    }
    schema
}

/// `links` asked for per answer (the Librarian's and the Dreamer's).
pub const SCHEMA_MAX_LINKS: usize = 5;

fn base_schema(kinds: &[&str]) -> Value {
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
                        "due": {"type": "string", "maxLength": 40},
                        "from": {"type": "string", "maxLength": MAX_FROM_CHARS},
                        "refs": {
                            "type": "array",
                            "maxItems": MAX_REFS,
                            "items": {"type": "string", "maxLength": 8}
                        }
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
            "retire": {
                "type": "array",
                "maxItems": SCHEMA_MAX_RETIRE,
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "maxLength": 80},
                        "why": {"type": "string", "enum": ["cancelled", "done", "wrong"]}
                    },
                    "required": ["id", "why"],
                    "additionalProperties": false
                }
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

    /// Regression (fuzz): a `due` past 9999 in UTC would be written `+10000-…` into the
    /// state, which then never loaded again; such a finding keeps no due date.
    #[test]
    fn a_due_date_past_9999_is_dropped() {
        let a = parse(
            ThreadName::Oracle,
            r#"{"findings": [{"summary": "renew", "due": "9999-12-31T23:59:59-01:00"}]}"#,
        )
        .unwrap();
        assert_eq!(a.findings[0].due, None);
    }

    /// Guards against a broken answer (a trailing comma) or unrelated JSON being taken
    /// as an answer that found nothing: no fallback was tried and novelty pressure rose.
    #[test]
    fn json_that_is_not_an_answer_is_a_failure() {
        let broken = r#"{"findings":[{"summary":"ACME invoice overdue 14 days","importance":8,"kind":"anomaly"},],"reinforce":[],"escalate":false}"#;
        for text in [broken, r#"All good: {"status":"ok"}"#] {
            let err = parse(ThreadName::Watcher, text).unwrap_err();
            assert!(matches!(err, AnswerError::NotAnAnswer(_)), "{text}: {err}");
        }
        assert_eq!(
            parse(ThreadName::Watcher, "{}").unwrap(),
            Answer::default(),
            "an empty object is an empty answer"
        );
        let err = parse(ThreadName::Watcher, "no\u{202e} JSON\x1b[31m here").unwrap_err();
        assert_eq!(
            err,
            AnswerError::NoJson("no JSON here".into()),
            "cleaned excerpt"
        );
    }

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

    /// The object found in `text`, and the bytes serde read looking for it.
    fn search(text: &str) -> (Option<Map<String, Value>>, usize) {
        let mut search = Search::new(text);
        let found = search.run();
        (found, search.parsed)
    }

    #[test]
    fn hostile_texts_are_searched_in_linear_time() {
        // The old reader parsed from every `{`: 128 levels deep from each of these.
        let hostile = [
            "{".repeat(200_000),
            r#"{"a":"#.repeat(100_000),
            r#"{"a":["#.repeat(100_000),
            format!("{}{}", "{".repeat(100_000), "}".repeat(100_000)),
            format!("{}{}", r#"{"a":"#.repeat(50_000), "}".repeat(50_000)),
            r#"{"a":"x"} "#.repeat(50_000),
            r#"{"k": "{\"{"#.repeat(50_000),
            "\"{".repeat(100_000),
        ];
        for text in hostile {
            let (found, parsed) = search(&text);
            assert!(
                parsed <= 4 * text.len() + PARSE_BUDGET_BASE,
                "{}…: read {parsed} bytes of {}",
                &text[..12],
                text.len()
            );
            if let Some(map) = found {
                assert!(!looks_like_answer(&map));
            }
        }
    }

    #[test]
    fn an_answer_after_a_hostile_prefix_is_still_found() {
        let prefix = format!("{}{}", "{".repeat(5_000), "}".repeat(5_000));
        let text = format!("{prefix} and then {{\"reinforce\": [\"p-x\"]}}");
        let (found, _) = search(&text);
        assert_eq!(found.unwrap()["reinforce"], serde_json::json!(["p-x"]));
    }

    #[test]
    fn objects_in_odd_prose_are_found() {
        let read = |text: &str| parse(ThreadName::Watcher, text).unwrap().reinforce;
        // A `{` in prose that never closes, before the answer.
        assert_eq!(read(r#"Use {curly braces. {"reinforce": ["a"]}"#), ["a"]);
        // An odd `"` after a prose `{`: the scan starts over past it.
        assert_eq!(read(r#"{ it's 5" tall {"reinforce": ["b"]} }"#), ["b"]);
        // Prose braces around the answer, and an escaped quote inside it.
        assert_eq!(read(r#"{ see {"reinforce": ["c\"d"]} }"#), ["c\"d"]);
        // A non-answer object holding the answer deeper down: the answer wins.
        assert_eq!(
            read(r#"{"meta": {"n": 1}, "data": [{"reinforce": ["e"]}]} tail {"#),
            ["e"]
        );
        // Too deep for serde: not retried from each inner `{`.
        let deep = format!(
            "{}{{\"reinforce\": [\"f\"]}}{}",
            "[".repeat(200),
            "]".repeat(200)
        );
        assert!(matches!(
            parse(ThreadName::Watcher, &format!("x {{\"a\": {deep}}}")),
            Err(AnswerError::NoJson(_))
        ));
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
