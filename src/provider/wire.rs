//! What a wire format is given and gives back, and the one seam the transport calls it
//! through: [`WireFormat`] (`prepare` a request, `read` a 2xx body). Owns the shared wire
//! types ([`CallRequest`], [`Prepared`], [`Reply`], [`Message`]) and the helpers every
//! format uses to build a request (messages, key headers, the body, the schema's name) and
//! to read an answer (decoding with a plain description of a bad body, tolerant token
//! counts).
//!
//! Must not: send anything, wait, retry or know which formats exist (`openai`,
//! `anthropic`, `ollama` each implement [`WireFormat`] importing only this module; the
//! kind → format arm is `provider::wire_format`). Scrubbing what a server wrote is the
//! transport's job (see `key`), after `read`.

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use super::key::ApiKey;
use crate::provider::config::ProviderConfig;

/// One wire format: how a request is written and how a 2xx answer is read. The transport
/// names the model in a [`WireError`], and scrubs and cuts what it quotes of the server.
pub trait WireFormat: Sync {
    /// The request for `model`: path under the base URL, headers (the key among them),
    /// body.
    fn prepare(
        &self,
        config: &ProviderConfig,
        model: &str,
        req: &CallRequest,
        key: Option<&ApiKey>,
    ) -> Result<Prepared, WireError>;

    /// What a 2xx body says: the answer text, the served model, the usage, whether it was
    /// cut at the token limit. Runs on the blocking pool.
    fn read(&self, body: &[u8]) -> Result<Reply, WireError>;
}

/// Why a request could not be written or a 2xx body not read. Variants that carry server
/// text (`body`, `message`, `refusal`) hold it whole and unscrubbed: it is shown only
/// through the transport's `quote` of the `Display` (never `Debug`).
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("cannot serialize the request: {0}")]
    Serialize(serde_json::Error),
    #[error("the API key in `{var}` has characters an HTTP header cannot carry")]
    KeyHeader { var: String },
    #[error("{setting} `{value}` is not a header value")]
    HeaderValue {
        setting: &'static str,
        value: String,
    },
    #[error("the body is empty")]
    Empty,
    #[error("expected JSON, got HTML: {body}")]
    Html { body: String },
    #[error("the JSON body is cut off after {bytes} bytes: {body}")]
    CutOff { bytes: usize, body: String },
    #[error("the body is not JSON ({error}): {body}")]
    NotJson {
        error: serde_json::Error,
        body: String,
    },
    #[error("unexpected JSON ({error}): {body}")]
    Unexpected {
        error: serde_json::Error,
        body: String,
    },
    #[error("the response holds an error: {message}")]
    Server { message: String },
    #[error("the response has no choices")]
    NoChoices,
    #[error("the model refused: {refusal}")]
    Refused { refusal: String },
}

impl WireError {
    /// The `error` a 2xx body held: its `message` when it has one, else all of it.
    pub fn server(error: &Value) -> Self {
        WireError::Server {
            message: error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_string),
        }
    }
}

/// What one model is asked.
#[derive(Clone, Debug, PartialEq)]
pub struct CallRequest {
    pub system: String,
    pub prompt: String,
    /// The JSON schema of the answer, for the provider's structured-output feature.
    pub schema: Value,
    /// The schema's name (OpenAI `json_schema.name`, the Anthropic tool's name). Characters
    /// outside `a-zA-Z0-9_-` are replaced by `_`, and it is cut to 64.
    pub schema_name: String,
    pub max_tokens: u32,
    pub temperature: f32,
    /// The tick number: a `replay` directory answers with its `(sequence - 1) mod n`th file.
    pub sequence: u64,
}

/// A request ready to send: path under the base URL, headers, JSON body.
pub struct Prepared {
    pub path: &'static str,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

/// What a wire format read from a 2xx body.
#[derive(Debug, Default, PartialEq)]
pub struct Reply {
    /// `None` or empty: the response held no answer.
    pub text: Option<String>,
    pub model: Option<String>,
    /// `None` when the response does not say (or says something unreadable).
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
    /// The model stopped at the token limit.
    pub truncated: bool,
}

/// Adds a header; `name` must be a valid lowercase header name.
pub fn header(headers: &mut HeaderMap, name: &'static str, value: HeaderValue) {
    headers.insert(HeaderName::from_static(name), value);
}

/// A chat message, as the OpenAI, Ollama and Anthropic wire formats all write it.
#[derive(serde::Serialize)]
pub struct Message<'a> {
    pub role: &'static str,
    pub content: &'a str,
}

/// The system message (when there is one), then the user's prompt.
pub fn chat_messages(req: &CallRequest) -> Vec<Message<'_>> {
    let mut messages = Vec::with_capacity(2);
    if !req.system.is_empty() {
        messages.push(Message {
            role: "system",
            content: &req.system,
        });
    }
    messages.push(Message {
        role: "user",
        content: &req.prompt,
    });
    messages
}

/// Headers carrying the key as `name: {prefix}{key}`; none without a key.
pub fn key_headers(
    config: &ProviderConfig,
    key: Option<&ApiKey>,
    name: &'static str,
    prefix: &str,
) -> Result<HeaderMap, WireError> {
    let mut headers = HeaderMap::new();
    if let Some(key) = key {
        let value = key.header(prefix).ok_or_else(|| WireError::KeyHeader {
            var: config.api_key_env.clone().unwrap_or_else(|| "?".into()),
        })?;
        header(&mut headers, name, value);
    }
    Ok(headers)
}

/// Serializes a request body.
pub fn body(value: &impl serde::Serialize) -> Result<Vec<u8>, WireError> {
    serde_json::to_vec(value).map_err(WireError::Serialize)
}

/// How much of a body that cannot be read an error quotes (the transport scrubs it, then
/// cuts it to an excerpt of 200 characters): enough for the excerpt even after blank
/// runs are collapsed, and never a copy of a body of many megabytes (four threads
/// quoting 50 MB each once took 1.2 GB and 10 s).
pub const QUOTED_BYTES: usize = 16 << 10;

/// Reads a JSON body as `T`, saying plainly what was wrong when it is not. The message
/// quotes the body's first [`QUOTED_BYTES`]: the transport scrubs it, then cuts it to an
/// excerpt.
pub fn decode<T: DeserializeOwned>(body: &[u8]) -> Result<T, WireError> {
    serde_json::from_slice(body).map_err(|error| {
        let text = String::from_utf8_lossy(&body[..body.len().min(QUOTED_BYTES)]);
        let t = text.trim_start().to_string();
        if t.is_empty() {
            WireError::Empty
        } else if t.starts_with('<') {
            WireError::Html { body: t }
        } else if error.is_eof() {
            WireError::CutOff {
                bytes: body.len(),
                body: t,
            }
        } else if error.is_syntax() {
            WireError::NotJson { error, body: t }
        } else {
            WireError::Unexpected { error, body: t }
        }
    })
}

/// A token count as servers actually write it: an integer, a float (rounded), or a
/// numeric string. Negative, non-finite, other or absent: `None` (unknown), so an odd
/// `usage` never rejects an answer.
pub fn tokens(value: Option<&Value>) -> Option<u64> {
    let number = match value? {
        Value::Number(n) => return n.as_u64().or_else(|| whole(n.as_f64()?)),
        Value::String(s) => s.trim(),
        _ => return None,
    };
    number
        .parse::<u64>()
        .ok()
        .or_else(|| whole(number.parse::<f64>().ok()?))
}

/// A float as a token count: rounded; `None` when negative or not finite (`as`
/// saturates at `u64::MAX`, which the caller's bound then clamps).
fn whole(n: f64) -> Option<u64> {
    (n.is_finite() && n >= 0.0).then(|| n.round() as u64)
}

/// The schema name as the wire formats accept it: `a-zA-Z0-9_-`, at most 64 characters.
pub fn wire_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if cleaned.is_empty() {
        "answer".into()
    } else {
        cleaned
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_counts_are_read_tolerantly() {
        let t = |v: Value| tokens(Some(&v));
        assert_eq!(t(serde_json::json!(1200)), Some(1200));
        assert_eq!(t(serde_json::json!(79.5)), Some(80));
        assert_eq!(t(serde_json::json!(" 42 ")), Some(42));
        assert_eq!(t(serde_json::json!("1.2e3")), Some(1200));
        assert_eq!(t(serde_json::json!(u64::MAX)), Some(u64::MAX));
        assert_eq!(t(serde_json::json!(1e30)), Some(u64::MAX));
        for odd in [
            serde_json::json!(-1),
            serde_json::json!(-0.5),
            serde_json::json!("lots"),
            serde_json::json!("-3"),
            serde_json::json!(null),
            serde_json::json!([1]),
            serde_json::json!({"n": 1}),
        ] {
            assert_eq!(t(odd.clone()), None, "{odd}");
        }
        assert_eq!(tokens(None), None);
    }

    #[test]
    fn bad_bodies_are_described() {
        let d = |b: &str| decode::<Value>(b.as_bytes()).unwrap_err().to_string();
        assert!(d("").contains("empty"));
        assert!(d("<html><body>502</body></html>").contains("HTML"));
        assert!(d(r#"{"choices": [{"mess"#).contains("cut off"));
        assert!(d("hello").contains("not JSON"));
    }

    #[test]
    fn a_huge_bad_body_is_quoted_only_in_part() {
        // (body, what the error must say)
        let big = |head: &str, fill: u8| {
            let mut b = head.as_bytes().to_vec();
            b.resize(4 << 20, fill);
            b
        };
        let cases = [
            (big("", b'A'), "not JSON"),
            (big("<html>", b'x'), "HTML"),
            (big("[", b' '), "cut off after 4194304 bytes"),
            (big("{\"a\": 1}", b' '), "unexpected JSON"),
        ];
        for (body, want) in cases {
            let error = decode::<Vec<u8>>(&body).unwrap_err();
            let text = error.to_string();
            assert!(text.contains(want), "{want}: {}", &text[..200]);
            assert!(
                text.len() < QUOTED_BYTES + 200,
                "{want}: {} bytes",
                text.len()
            );
        }
    }

    #[test]
    fn wire_errors_say_what_failed() {
        let e = |v: Value| WireError::server(&v).to_string();
        assert_eq!(
            e(serde_json::json!({"message": "overloaded", "type": "x"})),
            "the response holds an error: overloaded"
        );
        assert_eq!(
            e(serde_json::json!({"code": 7})),
            r#"the response holds an error: {"code":7}"#
        );
        assert_eq!(
            WireError::Refused {
                refusal: "no".into()
            }
            .to_string(),
            "the model refused: no"
        );
    }

    #[test]
    fn wire_names_are_cleaned() {
        assert_eq!(wire_name("watcher answer!"), "watcher_answer_");
        assert_eq!(wire_name(""), "answer");
        assert_eq!(wire_name(&"x".repeat(80)).len(), 64);
    }

    /// Guards the layering: a wire format knows `wire` (and the config), never the
    /// transport that sends it, so the transport can call any of them through
    /// [`WireFormat`] without a cycle.
    #[test]
    fn wire_formats_never_import_the_transport() {
        for (name, source) in [
            ("openai", include_str!("openai.rs")),
            ("anthropic", include_str!("anthropic.rs")),
            ("ollama", include_str!("ollama.rs")),
        ] {
            for line in source
                .lines()
                .filter(|l| l.trim_start().starts_with("use "))
            {
                assert!(
                    line.contains("super::wire") || !line.contains("super::"),
                    "{name}.rs imports more than `wire` from the provider layer: {line}"
                );
            }
        }
    }
}
