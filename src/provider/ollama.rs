//! Ollama's native chat: `POST {base_url}/api/chat`, not streamed, with `format` set to
//! the answer schema (or `"json"`).
//!
//! Must not: send, retry or scrub (the transport does, through [`WireFormat`]); imports
//! only `wire` from the provider layer.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::wire::{self, ApiKey, CallRequest, Prepared, Reply, WireError, WireFormat};
use crate::provider::config::{ProviderConfig, StructuredOutput};

/// Ollama's native chat.
#[derive(Clone, Copy, Debug)]
pub struct Ollama;

impl WireFormat for Ollama {
    fn prepare(
        &self,
        config: &ProviderConfig,
        model: &str,
        req: &CallRequest,
        key: Option<&ApiKey>,
    ) -> Result<Prepared, WireError> {
        prepare(config, model, req, key)
    }

    fn read(&self, body: &[u8]) -> Result<Reply, WireError> {
        read(body)
    }
}

#[derive(Serialize)]
struct ChatRequest<'a> {
    model: &'a str,
    messages: Vec<wire::Message<'a>>,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<Format<'a>>,
    options: Options,
}

#[derive(Serialize)]
#[serde(untagged)]
enum Format<'a> {
    Schema(&'a Value),
    Json(&'static str),
}

#[derive(Serialize)]
struct Options {
    temperature: f32,
    num_predict: u32,
}

fn prepare(
    config: &ProviderConfig,
    model: &str,
    req: &CallRequest,
    key: Option<&ApiKey>,
) -> Result<Prepared, WireError> {
    let format = match config.structured_output {
        StructuredOutput::Auto | StructuredOutput::JsonSchema => Some(Format::Schema(&req.schema)),
        StructuredOutput::JsonObject | StructuredOutput::JsonObjectSchema => {
            Some(Format::Json("json"))
        }
        StructuredOutput::Tool | StructuredOutput::OutputFormat | StructuredOutput::None => None,
    };
    let messages = wire::chat_messages(req);
    let body = wire::body(&ChatRequest {
        model,
        messages,
        stream: false,
        format,
        options: Options {
            temperature: req.temperature,
            num_predict: req.max_tokens,
        },
    })?;
    let headers = wire::key_headers(config, key, "authorization", "Bearer ")?;
    Ok(Prepared {
        path: "/api/chat",
        headers,
        body,
    })
}

#[derive(Deserialize)]
struct ChatResponse {
    model: Option<String>,
    message: Option<ResponseMessage>,
    done_reason: Option<String>,
    /// Read tolerantly (see [`wire::tokens`]): an odd count never rejects an answer.
    prompt_eval_count: Option<Value>,
    eval_count: Option<Value>,
    error: Option<String>,
}

#[derive(Deserialize)]
struct ResponseMessage {
    content: Option<String>,
}

fn read(body: &[u8]) -> Result<Reply, WireError> {
    let response: ChatResponse = wire::decode(body)?;
    if let Some(e) = response.error {
        return Err(WireError::Server { message: e });
    }
    Ok(Reply {
        text: response.message.and_then(|m| m.content),
        model: response.model,
        tokens_in: wire::tokens(response.prompt_eval_count.as_ref()),
        tokens_out: wire::tokens(response.eval_count.as_ref()),
        truncated: response.done_reason.as_deref() == Some("length"),
    })
}
