//! OpenAI-compatible chat completions: `POST {base_url}/chat/completions` (OpenAI, Groq,
//! Gemini's OpenAI endpoint, OpenRouter, vLLM, llama.cpp, LM Studio, Ollama's /v1).
//!
//! Must not: send, retry or scrub (the transport does, through [`WireFormat`]); imports
//! only `wire` from the provider layer.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::wire::{self, ApiKey, CallRequest, Prepared, Reply, WireError, WireFormat, wire_name};
use crate::provider::config::{ProviderConfig, StructuredOutput};

/// OpenAI-compatible chat completions.
#[derive(Clone, Copy, Debug)]
pub struct Openai;

impl WireFormat for Openai {
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
    max_tokens: u32,
    temperature: f32,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<ResponseFormat<'a>>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ResponseFormat<'a> {
    /// `{"type": "json_schema", "json_schema": {"name", "schema"}}`: OpenAI structured
    /// outputs (not `strict`, which would refuse optional fields and `maxItems`), Groq,
    /// Gemini, llama.cpp (enforced by grammar).
    JsonSchema { json_schema: JsonSchema<'a> },
    /// `{"type": "json_object"}`, with the schema for servers that take one there
    /// (llama.cpp, llama-cpp-python).
    JsonObject {
        #[serde(skip_serializing_if = "Option::is_none")]
        schema: Option<&'a Value>,
    },
}

#[derive(Serialize)]
struct JsonSchema<'a> {
    name: String,
    schema: &'a Value,
}

fn prepare(
    config: &ProviderConfig,
    model: &str,
    req: &CallRequest,
    key: Option<&ApiKey>,
) -> Result<Prepared, WireError> {
    let response_format = match config.structured_output {
        StructuredOutput::Auto | StructuredOutput::JsonSchema => Some(ResponseFormat::JsonSchema {
            json_schema: JsonSchema {
                name: wire_name(&req.schema_name),
                schema: &req.schema,
            },
        }),
        StructuredOutput::JsonObjectSchema => Some(ResponseFormat::JsonObject {
            schema: Some(&req.schema),
        }),
        StructuredOutput::JsonObject => Some(ResponseFormat::JsonObject { schema: None }),
        StructuredOutput::Tool | StructuredOutput::OutputFormat | StructuredOutput::None => None,
    };
    let messages = wire::chat_messages(req);
    let body = wire::body(&ChatRequest {
        model,
        messages,
        max_tokens: req.max_tokens,
        temperature: req.temperature,
        stream: false,
        response_format,
    })?;
    let headers = wire::key_headers(config, key, "authorization", "Bearer ")?;
    Ok(Prepared {
        path: "/chat/completions",
        headers,
        body,
    })
}

#[derive(Deserialize)]
struct ChatResponse {
    #[serde(default)]
    choices: Vec<Choice>,
    model: Option<String>,
    /// Read tolerantly (see [`wire::tokens`]): an odd usage never rejects an answer.
    usage: Option<Value>,
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Choice {
    message: Option<ChoiceMessage>,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct ChoiceMessage {
    /// A string; some servers send a list of `{"type": "text", "text"}` parts.
    content: Option<Value>,
    refusal: Option<String>,
}

fn read(body: &[u8]) -> Result<Reply, WireError> {
    let response: ChatResponse = wire::decode(body)?;
    let usage = response.usage.as_ref();
    let Some(choice) = response.choices.into_iter().next() else {
        return Err(response
            .error
            .as_ref()
            .map_or(WireError::NoChoices, WireError::server));
    };
    let message = choice.message.unwrap_or(ChoiceMessage {
        content: None,
        refusal: None,
    });
    let text = match message.content {
        Some(Value::String(s)) => Some(s),
        Some(Value::Array(parts)) => Some(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<String>(),
        ),
        _ => None,
    };
    let truncated = choice.finish_reason.as_deref() == Some("length");
    if text.as_deref().is_none_or(|t| t.trim().is_empty())
        && !truncated
        && let Some(refusal) = message.refusal
    {
        return Err(WireError::Refused { refusal });
    }
    Ok(Reply {
        text,
        model: response.model,
        tokens_in: wire::tokens(usage.and_then(|u| u.get("prompt_tokens"))),
        tokens_out: wire::tokens(usage.and_then(|u| u.get("completion_tokens"))),
        truncated,
    })
}
