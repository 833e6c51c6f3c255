//! The primary model's decision on an escalation (SPEC §8): the words of the question it
//! is asked (its actions and limits, which `crate::prompt`'s `escalation_prompt` renders
//! with `prompts/escalation.md`), the JSON schema its answer is held to
//! ([`decision_schema`], for forced tool use, `json_schema` or `format`), and the tolerant
//! reader of that answer ([`parse_decision`], [`from_value`]).
//!
//! Owns: finding the decision object in prose or a code fence (the thread reader's linear
//! span scan, `answer::spans`), reading the action (an action it does not know —
//! `run`, `execute`, `shell`, … — becomes [`Action::Propose`], with the asked action's
//! name kept in front of the text), cleaning `text` (multi-line) and `why` (one line) with
//! [`crate::untrusted`], masking key and token shapes in them
//! ([`crate::untrusted::redact::mask_secrets`]: a decision goes to the notifier, the
//! state and the journal) and cutting them to [`MAX_TEXT_CHARS`] / [`MAX_WHY_CHARS`].
//!
//! Must not: execute anything. A decision is only data: `propose` is never run by
//! anything, only ever shown to the user as a proposal. Pure functions; no I/O, no clock.
//! It knows nothing of templates: `crate::prompt` imports it, never the reverse.

use serde_json::{Map, Value};

use crate::answer;
use crate::untrusted;
use crate::untrusted::redact::mask_secrets;

/// The longest `text` kept (characters), and the schema's `maxLength` for it.
pub const MAX_TEXT_CHARS: usize = 600;
/// The longest `why` kept (characters), and the schema's `maxLength` for it.
pub const MAX_WHY_CHARS: usize = 300;
/// The longest name of an unknown action kept in front of a proposal's text.
const MAX_ACTION_NAME_CHARS: usize = 32;

/// What the primary model decided to do with an escalation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Tell the user now: `text` is the message.
    Notify,
    /// Append `text` as a note to the agent's memory.
    Remember,
    /// Do nothing; `why` (or `text`) says why.
    Dismiss,
    /// Show `text` to the user as a proposal. Never executed, by anything: every action
    /// the model asks for beyond the other three lands here.
    Propose,
}

impl Action {
    /// The actions, in the order the schema lists them.
    pub const ALL: [Action; 4] = [
        Action::Notify,
        Action::Remember,
        Action::Dismiss,
        Action::Propose,
    ];

    /// The action's word in the schema and the prompt.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Notify => "notify",
            Action::Remember => "remember",
            Action::Dismiss => "dismiss",
            Action::Propose => "propose",
        }
    }

    /// The known action `word` names (any case, surrounding blanks ignored).
    fn known(word: &str) -> Option<Action> {
        let word = word.trim().to_lowercase();
        Action::ALL.into_iter().find(|a| a.as_str() == word)
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The primary model's one decision, cleaned: `text` holds no control, escape, bidi or
/// invisible characters (line breaks and tabs stay) and `why` is one such line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    pub action: Action,
    /// The message (`notify`), the note (`remember`), the proposal (`propose`); may be
    /// empty for `dismiss`.
    pub text: String,
    /// Why the model decided so; may be empty.
    pub why: String,
}

/// Why a decision could not be read. Excerpts are cleaned and short.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecisionError {
    #[error(
        "the escalation decision holds no JSON object (it begins: {0:?}); the primary model must answer one object with `action`, `text` and `why`"
    )]
    NoJson(String),
    #[error(
        "the escalation decision has no `action` (it begins: {0:?}); the primary model must answer one of notify, remember, dismiss, propose"
    )]
    NoAction(String),
    #[error(
        "the escalation decision `{action}` has no `text`; the primary model must write the message, note or proposal"
    )]
    MissingText { action: Action },
}

/// The JSON schema of a decision as sent to providers: every field required, no others,
/// and bounds on both strings (small local models otherwise write until the token limit).
pub fn decision_schema() -> Value {
    let actions: Vec<&str> = Action::ALL.iter().map(|a| a.as_str()).collect();
    serde_json::json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": actions},
            "text": {"type": "string", "maxLength": MAX_TEXT_CHARS},
            "why": {"type": "string", "maxLength": MAX_WHY_CHARS}
        },
        "required": ["action", "text", "why"],
        "additionalProperties": false
    })
}

/// Reads a decision from model output: a JSON object, or prose or a code fence around
/// one, or an envelope holding it (`{"input": {…}}`, a whole tool-use block). An unknown
/// action becomes [`Action::Propose`]; a `notify`, `remember` or `propose` without text
/// is an error.
pub fn parse_decision(text: &str) -> Result<Decision, DecisionError> {
    let object = find_decision(text).ok_or_else(|| DecisionError::NoJson(excerpt(text)))?;
    from_object(&object, text)
}

/// Reads a decision from an already-parsed JSON value (a tool call's input).
pub fn from_value(value: &Value) -> Result<Decision, DecisionError> {
    match value {
        Value::Object(map) => match decision_in(map) {
            Some(found) => from_object(found, &value.to_string()),
            None => Err(DecisionError::NoAction(excerpt(&value.to_string()))),
        },
        Value::String(s) => parse_decision(s),
        other => Err(DecisionError::NoJson(excerpt(&other.to_string()))),
    }
}

fn excerpt(text: &str) -> String {
    untrusted::excerpt(text, 80)
}

fn looks_like_decision(map: &Map<String, Value>) -> bool {
    map.contains_key("action")
}

/// `map` if it is a decision, else the first object nested in it (in document order)
/// that is.
fn decision_in(map: &Map<String, Value>) -> Option<&Map<String, Value>> {
    if looks_like_decision(map) {
        return Some(map);
    }
    let mut stack: Vec<&Value> = map.values().rev().collect();
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(inner) if looks_like_decision(inner) => return Some(inner),
            Value::Object(inner) => stack.extend(inner.values().rev()),
            Value::Array(items) => stack.extend(items.iter().rev()),
            _ => {}
        }
    }
    None
}

/// The bytes serde may read while searching, as a multiple of the text's length (plus a
/// base): the search stays linear whatever the text holds.
const PARSE_BUDGET: usize = 8;
const PARSE_BUDGET_BASE: usize = 4096;

/// The decision object in `text`: the whole text, else the first balanced `{…}` span
/// that parses and holds one (a span inside one that parsed is not tried again), else
/// the first object found at all (so its missing `action` is reported).
fn find_decision(text: &str) -> Option<Map<String, Value>> {
    let text = text.trim().trim_start_matches('\u{feff}');
    if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text) {
        return Some(decision_in(&map).cloned().unwrap_or(map));
    }
    let budget = text
        .len()
        .saturating_mul(PARSE_BUDGET)
        .saturating_add(PARSE_BUDGET_BASE);
    let mut parsed = text.len();
    let mut first_object = None;
    let mut covered_until = 0;
    for span in answer::spans(text) {
        if span.start < covered_until {
            continue;
        }
        if parsed >= budget {
            break;
        }
        let candidate = &text[span.clone()];
        parsed = parsed.saturating_add(candidate.len());
        if let Ok(value) = serde_json::from_str::<Value>(candidate) {
            covered_until = span.end;
            let Value::Object(map) = value else { continue };
            if let Some(found) = decision_in(&map) {
                return Some(found.clone());
            }
            first_object.get_or_insert(map);
        }
    }
    first_object
}

fn from_object(map: &Map<String, Value>, raw: &str) -> Result<Decision, DecisionError> {
    let asked = match map.get("action") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.as_str(),
        _ => return Err(DecisionError::NoAction(excerpt(raw))),
    };
    let text = match map.get("text") {
        // Masked before it is cut: a key cut in two is no longer a key's shape.
        Some(Value::String(s)) => cut(
            mask_secrets(untrusted::clean(s).trim()).trim(),
            MAX_TEXT_CHARS,
        ),
        _ => String::new(),
    };
    let why = match map.get("why") {
        Some(Value::String(s)) => one_line(&mask_secrets(s), MAX_WHY_CHARS),
        _ => String::new(),
    };
    let (action, text) = match Action::known(asked) {
        Some(action) => (action, text),
        // Never executed: shown to the user as a proposal, with what was asked for.
        None if text.is_empty() => (Action::Propose, text),
        None => {
            let name = one_line(&mask_secrets(asked), MAX_ACTION_NAME_CHARS);
            (
                Action::Propose,
                cut(&format!("{name}: {text}"), MAX_TEXT_CHARS),
            )
        }
    };
    if text.is_empty() && action != Action::Dismiss {
        return Err(DecisionError::MissingText { action });
    }
    Ok(Decision { action, text, why })
}

/// One clean line, white space collapsed, at most `chars` characters.
fn one_line(text: &str, chars: usize) -> String {
    let line = untrusted::clean_line(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    cut(&line, chars)
}

/// At most `chars` characters of `text`, without trailing blanks.
fn cut(text: &str, chars: usize) -> String {
    text.chars()
        .take(chars)
        .collect::<String>()
        .trim_end()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision(action: Action, text: &str, why: &str) -> Decision {
        Decision {
            action,
            text: text.into(),
            why: why.into(),
        }
    }

    #[test]
    #[expect(clippy::too_many_lines, reason = "a table test: one row per case")]
    fn parse_decision_table() {
        let long = "x".repeat(2 * MAX_TEXT_CHARS);
        let long_why = "y ".repeat(MAX_WHY_CHARS);
        let overlong = format!(r#"{{"action":"notify","text":"{long}","why":"{long_why}"}}"#);
        let cases: Vec<(&str, String, Result<Decision, DecisionError>)> = vec![
            (
                "plain JSON",
                r#"{"action":"notify","text":"Invoice overdue: pay by Nov 25.","why":"money"}"#
                    .into(),
                Ok(decision(
                    Action::Notify,
                    "Invoice overdue: pay by Nov 25.",
                    "money",
                )),
            ),
            (
                "fenced JSON",
                "```json\n{\"action\": \"remember\", \"text\": \"Backup fails on Mondays\", \"why\": \"pattern\"}\n```"
                    .into(),
                Ok(decision(Action::Remember, "Backup fails on Mondays", "pattern")),
            ),
            (
                "prose around it",
                "Sure! Here is my decision: {\"action\": \"dismiss\", \"text\": \"\", \"why\": \"already known {see above}\"} Hope that helps."
                    .into(),
                Ok(decision(Action::Dismiss, "", "already known {see above}")),
            ),
            (
                "action in another case, why missing",
                r#"{"action":" Dismiss ","text":"noise"}"#.into(),
                Ok(decision(Action::Dismiss, "noise", "")),
            ),
            (
                "unknown action becomes a proposal",
                r#"{"action":"shell","text":"rm -rf ~/tmp/cache","why":"disk full"}"#.into(),
                Ok(decision(
                    Action::Propose,
                    "shell: rm -rf ~/tmp/cache",
                    "disk full",
                )),
            ),
            (
                "run and execute too",
                r#"{"action":"execute","text":"curl x | sh","why":""}"#.into(),
                Ok(decision(Action::Propose, "execute: curl x | sh", "")),
            ),
            (
                "propose itself",
                r#"{"action":"propose","text":"Free space: du -sh ~/Downloads","why":"disk"}"#
                    .into(),
                Ok(decision(
                    Action::Propose,
                    "Free space: du -sh ~/Downloads",
                    "disk",
                )),
            ),
            (
                "missing text",
                r#"{"action":"notify","why":"urgent"}"#.into(),
                Err(DecisionError::MissingText {
                    action: Action::Notify,
                }),
            ),
            (
                "blank text",
                r#"{"action":"remember","text":"  \n ","why":""}"#.into(),
                Err(DecisionError::MissingText {
                    action: Action::Remember,
                }),
            ),
            (
                "unknown action without text",
                r#"{"action":"run","why":"x"}"#.into(),
                Err(DecisionError::MissingText {
                    action: Action::Propose,
                }),
            ),
            (
                "overlong text and why cut",
                overlong,
                Ok(decision(
                    Action::Notify,
                    &"x".repeat(MAX_TEXT_CHARS),
                    "y ".repeat(MAX_WHY_CHARS / 2).trim_end(),
                )),
            ),
            (
                "control and bidi characters cleaned",
                "{\"action\":\"notify\",\"text\":\"Pay\\u001b[31m now\\u202e!\\r\\nline two\\u200b\",\"why\":\"a\\nb\\u0007\"}"
                    .into(),
                Ok(decision(Action::Notify, "Pay now!\nline two", "a b")),
            ),
            (
                "an Anthropic tool-use block",
                r#"{"type":"tool_use","id":"toolu_1","name":"escalation_decision","input":{"action":"notify","text":"Disk /home is 96% full.","why":"it grows daily"}}"#
                    .into(),
                Ok(decision(Action::Notify, "Disk /home is 96% full.", "it grows daily")),
            ),
            (
                "no JSON",
                "I would notify the user.".into(),
                Err(DecisionError::NoJson("I would notify the user.".into())),
            ),
            (
                "JSON that is not a decision",
                r#"{"status":"ok"}"#.into(),
                Err(DecisionError::NoAction(r#"{"status":"ok"}"#.into())),
            ),
        ];
        for (name, input, want) in cases {
            assert_eq!(parse_decision(&input), want, "{name}");
        }
    }

    /// Regression (issue 30): an `sk-ant-…` key in a decision's text went verbatim to the
    /// notifier, the state and the journal. Text, why and an unknown action's name are
    /// masked before they are cut (a key cut in two keeps no key's shape).
    #[test]
    fn keys_in_a_decision_are_masked() {
        let key = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
        let groq = "gsk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefghij";
        let text = format!("{}Tell the user: the key {key} leaked", "x ".repeat(280));
        let raw =
            serde_json::json!({"action": "notify", "text": text, "why": format!("it is {groq}")});
        let d = from_value(&raw).unwrap();
        assert!(
            !d.text.contains("sk-ant") && d.text.ends_with("<secret> leaked"),
            "{}",
            d.text
        );
        assert_eq!(d.why, "it is <secret>");
        let asked = serde_json::json!({"action": groq, "text": "do it"});
        let d = from_value(&asked).unwrap();
        assert_eq!(
            (d.action, d.text.as_str()),
            (Action::Propose, "<secret>: do it")
        );
    }

    #[test]
    fn a_tool_use_input_value_is_read() {
        let input = serde_json::json!({
            "action": "remember",
            "text": "Alice asked about lunch on Thursday.",
            "why": "not urgent"
        });
        assert_eq!(
            from_value(&input),
            Ok(decision(
                Action::Remember,
                "Alice asked about lunch on Thursday.",
                "not urgent"
            ))
        );
        assert_eq!(
            from_value(&Value::String(input.to_string())),
            from_value(&input)
        );
        assert!(matches!(
            from_value(&serde_json::json!([1, 2])),
            Err(DecisionError::NoJson(_))
        ));
    }

    #[test]
    fn errors_say_what_to_do() {
        let e = parse_decision(r#"{"action":"notify"}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("notify") && e.contains("text"), "{e}");
        let e = parse_decision("nothing").unwrap_err().to_string();
        assert!(e.contains("action") && e.contains("why"), "{e}");
    }

    #[test]
    fn the_schema_bounds_every_field() {
        let s = decision_schema();
        assert_eq!(s["additionalProperties"], false);
        assert_eq!(s["required"], serde_json::json!(["action", "text", "why"]));
        assert_eq!(
            s["properties"]["action"]["enum"],
            serde_json::json!(["notify", "remember", "dismiss", "propose"])
        );
        assert_eq!(s["properties"]["text"]["maxLength"], MAX_TEXT_CHARS);
        assert_eq!(s["properties"]["why"]["maxLength"], MAX_WHY_CHARS);
    }

    #[test]
    fn hostile_texts_are_searched_in_linear_time() {
        // Unbalanced braces and many small objects: the budget stops the search.
        let many = "{\"a\":1} ".repeat(20_000);
        assert!(matches!(
            parse_decision(&many),
            Err(DecisionError::NoAction(_))
        ));
        let open = "{".repeat(50_000);
        assert!(parse_decision(&open).is_err());
        let late = format!(
            "{}{}",
            "{ prose ".repeat(100),
            r#"{"action":"dismiss","text":"","why":"known"}"#
        );
        assert_eq!(
            parse_decision(&late),
            Ok(decision(Action::Dismiss, "", "known"))
        );
    }
}
