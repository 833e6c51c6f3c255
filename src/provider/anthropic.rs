//! Anthropic Messages API: `POST {base_url}/v1/messages` (also served by llama.cpp and
//! LiteLLM). The schema is asked for with forced tool use (`tool`, the default), with
//! structured outputs (`json_schema`: `output_config.format`, generally available, no
//! beta header) or with the beta's top-level `output_format` (`output_format`, sent with
//! `anthropic-beta: structured-outputs-2025-11-13`). LiteLLM translates both structured
//! output forms into an OpenAI-style upstream's grammar-constrained `response_format`, which
//! small local models honour where they ignore forced tool use. The answer is then the
//! text block; a server that answers in prose anyway is read as text.
//!
//! Must not: send, retry or scrub (the transport does, through [`WireFormat`]); imports
//! only `wire` from the provider layer.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::wire::{self, ApiKey, CallRequest, Prepared, Reply, WireError, WireFormat, wire_name};
use crate::provider::config::{ProviderConfig, StructuredOutput};

/// The highest temperature the Messages API accepts.
pub const MAX_TEMPERATURE: f32 = 1.0;

/// The Anthropic Messages API.
#[derive(Clone, Copy, Debug)]
pub struct Anthropic;

impl WireFormat for Anthropic {
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

/// The beta that introduced `output_format` (still accepted with it).
const STRUCTURED_OUTPUTS_BETA: &str = "structured-outputs-2025-11-13";

const TOOL_DESCRIPTION: &str =
    "Report your answer: call this tool once, with the whole answer object as its input.";

#[derive(Serialize)]
struct MessagesRequest<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "str::is_empty")]
    system: &'a str,
    messages: [wire::Message<'a>; 1],
    temperature: f32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<ToolChoice>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_config: Option<OutputConfig<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_format: Option<OutputFormat<'a>>,
}

/// `output_config` of structured outputs: `{"format": {...}}`.
#[derive(Serialize)]
struct OutputConfig<'a> {
    format: OutputFormat<'a>,
}

/// `{"type": "json_schema", "schema": {...}}`.
#[derive(Serialize)]
struct OutputFormat<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    schema: &'a Value,
}

#[derive(Serialize)]
struct Tool<'a> {
    name: String,
    description: &'static str,
    input_schema: &'a Value,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ToolChoice {
    Tool { name: String },
}

fn prepare(
    config: &ProviderConfig,
    model: &str,
    req: &CallRequest,
    key: Option<&ApiKey>,
) -> Result<Prepared, WireError> {
    let name = wire_name(&req.schema_name);
    let (tools, tool_choice) = match config.structured_output {
        StructuredOutput::Auto | StructuredOutput::Tool => (
            vec![Tool {
                name: name.clone(),
                description: TOOL_DESCRIPTION,
                input_schema: &req.schema,
            }],
            Some(ToolChoice::Tool { name }),
        ),
        _ => (Vec::new(), None),
    };
    let format = OutputFormat {
        kind: "json_schema",
        schema: &req.schema,
    };
    let (output_config, output_format) = match config.structured_output {
        StructuredOutput::JsonSchema => (Some(OutputConfig { format }), None),
        StructuredOutput::OutputFormat => (None, Some(format)),
        _ => (None, None),
    };
    let body = wire::body(&MessagesRequest {
        model,
        max_tokens: req.max_tokens,
        system: &req.system,
        messages: [wire::Message {
            role: "user",
            content: &req.prompt,
        }],
        // The Messages API takes 0..=1; novelty pressure may raise a thread above 1.
        temperature: req.temperature.clamp(0.0, MAX_TEMPERATURE),
        tools,
        tool_choice,
        output_config,
        output_format,
    })?;
    let mut headers = wire::key_headers(config, key, "x-api-key", "")?;
    let version =
        reqwest::header::HeaderValue::from_str(&config.anthropic_version).map_err(|_| {
            WireError::HeaderValue {
                setting: "anthropic_version",
                value: config.anthropic_version.clone(),
            }
        })?;
    wire::header(&mut headers, "anthropic-version", version);
    if config.structured_output == StructuredOutput::OutputFormat {
        wire::header(
            &mut headers,
            "anthropic-beta",
            reqwest::header::HeaderValue::from_static(STRUCTURED_OUTPUTS_BETA),
        );
    }
    Ok(Prepared {
        path: "/v1/messages",
        headers,
        body,
    })
}

#[derive(Deserialize)]
struct MessagesResponse {
    #[serde(default)]
    content: Vec<Block>,
    model: Option<String>,
    stop_reason: Option<String>,
    /// Read tolerantly (see [`wire::tokens`]): an odd usage never rejects an answer.
    usage: Option<Value>,
    error: Option<Value>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block {
    Text {
        text: String,
    },
    ToolUse {
        input: Value,
    },
    #[serde(other)]
    Other,
}

fn read(body: &[u8]) -> Result<Reply, WireError> {
    let response: MessagesResponse = wire::decode(body)?;
    if let Some(e) = response.error {
        return Err(WireError::server(&e));
    }
    let tool_input = response.content.iter().find_map(|b| match b {
        Block::ToolUse { input } => Some(input.to_string()),
        _ => None,
    });
    let text = tool_input.or_else(|| {
        let joined: String = response
            .content
            .iter()
            .filter_map(|b| match b {
                Block::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        (!joined.is_empty()).then_some(joined)
    });
    let usage = response.usage.as_ref();
    let field = |name: &str| wire::tokens(usage.and_then(|u| u.get(name)));
    // Input is the uncached, cache-written and cache-read tokens together; unknown when
    // none of them is given.
    let tokens_in = [
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    ]
    .into_iter()
    .filter_map(field)
    .reduce(u64::saturating_add);
    Ok(Reply {
        text,
        model: response.model,
        tokens_in,
        tokens_out: field("output_tokens"),
        truncated: response.stop_reason.as_deref() == Some("max_tokens"),
    })
}
