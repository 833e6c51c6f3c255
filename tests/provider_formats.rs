//! Providers against local HTTP mocks (wiremock on loopback; never the internet): the
//! exact request of each wire format, answers good and bad, retries, timeouts, the
//! fallback chain, the budget gate, replay, and keys that never leak.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use thinker::answer;
use thinker::config::{ModelRef, ProviderConfig, ProviderKind, StructuredOutput};
use thinker::provider::{
    CallError, CallRequest, Completion, Gate, NoGate, Providers, Refusal, Scope,
};
use thinker::thread::ThreadName;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const KEY_VAR: &str = "THINKER_TEST_KEY";
const KEY: &str = "sk-test-1234";
const SECRET: &str = "sk-THINKER-SECRET-4242-do-not-leak";

/// A wire format under test.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Wire {
    Openai,
    Anthropic,
    Ollama,
}

impl Wire {
    const ALL: [Wire; 3] = [Wire::Openai, Wire::Anthropic, Wire::Ollama];

    fn kind(self) -> ProviderKind {
        match self {
            Wire::Openai => ProviderKind::Openai,
            Wire::Anthropic => ProviderKind::Anthropic,
            Wire::Ollama => ProviderKind::Ollama,
        }
    }

    /// The path the request is sent to.
    fn path(self) -> &'static str {
        match self {
            Wire::Openai => "/v1/chat/completions",
            Wire::Anthropic => "/v1/messages",
            Wire::Ollama => "/api/chat",
        }
    }

    /// The configured base URL (OpenAI-style URLs carry the `/v1`).
    fn base(self, server: &MockServer) -> String {
        match self {
            Wire::Openai => format!("{}/v1", server.uri()),
            Wire::Anthropic | Wire::Ollama => server.uri(),
        }
    }

    /// A 200 body answering `text`, 1200 tokens in and 80 out.
    fn answer(self, text: &str) -> Value {
        self.body(text, false)
    }

    /// A 200 body cut at the token limit.
    fn cut(self, text: &str) -> Value {
        self.body(text, true)
    }

    fn body(self, text: &str, cut: bool) -> Value {
        match self {
            Wire::Openai => json!({
                "id": "chatcmpl-1", "object": "chat.completion", "model": "served-model-1",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": if cut { "length" } else { "stop" }}],
                "usage": {"prompt_tokens": 1200, "completion_tokens": 80, "total_tokens": 1280}
            }),
            Wire::Anthropic => json!({
                "id": "msg_1", "type": "message", "role": "assistant", "model": "served-model-1",
                "content": [{"type": "text", "text": text}],
                "stop_reason": if cut { "max_tokens" } else { "end_turn" },
                "usage": {"input_tokens": 1200, "output_tokens": 80}
            }),
            Wire::Ollama => json!({
                "model": "served-model-1", "created_at": "2026-11-22T10:05:00Z",
                "message": {"role": "assistant", "content": text},
                "done": true, "done_reason": if cut { "length" } else { "stop" },
                "prompt_eval_count": 1200, "eval_count": 80
            }),
        }
    }

    /// An error body in the wire's own shape.
    fn error(self, message: &str) -> Value {
        match self {
            Wire::Openai => {
                json!({"error": {"message": message, "type": "invalid_request_error", "code": 401}})
            }
            Wire::Anthropic => {
                json!({"type": "error", "error": {"type": "authentication_error", "message": message}})
            }
            Wire::Ollama => json!({"error": message}),
        }
    }
}

fn config(name: &str, kind: ProviderKind, base_url: &str) -> ProviderConfig {
    ProviderConfig {
        api_key_env: Some(KEY_VAR.into()),
        retries: 2,
        price_in: 2.0,
        price_out: 10.0,
        ..crate::support::provider(name, kind, base_url)
    }
}

fn providers(configs: Vec<ProviderConfig>) -> Providers {
    providers_with_key(configs, KEY)
}

fn providers_with_key(configs: Vec<ProviderConfig>, key: &'static str) -> Providers {
    let map: BTreeMap<String, ProviderConfig> =
        configs.into_iter().map(|c| (c.name.clone(), c)).collect();
    Providers::new(map)
        .unwrap()
        .with_env(move |var| (var == KEY_VAR).then(|| key.to_string()))
}

fn model(provider: &str) -> ModelRef {
    ModelRef {
        provider: provider.into(),
        model: "test-model".into(),
    }
}

fn request() -> CallRequest {
    CallRequest {
        system: "You are the Watcher.".into(),
        prompt: "What changed since the last tick?".into(),
        schema: answer::schema(ThreadName::Watcher),
        schema_name: "watcher_answer".into(),
        max_tokens: 300,
        temperature: 0.5,
        sequence: 1,
    }
}

const GOOD: &str = r#"{"findings":[{"summary":"Disk 91% full on /home","importance":7,"kind":"anomaly"}],"reinforce":[],"escalate":false}"#;

/// A mock server on which `wire` answers every request with `response`.
async fn serve(wire: Wire, response: ResponseTemplate) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(wire.path()))
        .respond_with(response)
        .mount(&server)
        .await;
    server
}

/// A mock server on which `wire` answers the first `n` requests with `first`, then `then`.
async fn serve_then(
    wire: Wire,
    first: ResponseTemplate,
    n: u64,
    then: ResponseTemplate,
) -> MockServer {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(wire.path()))
        .respond_with(first)
        .up_to_n_times(n)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path(wire.path()))
        .respond_with(then)
        .mount(&server)
        .await;
    server
}

async fn call_one(
    wire: Wire,
    server: &MockServer,
    tune: impl FnOnce(&mut ProviderConfig),
) -> Result<Completion, CallError> {
    let mut c = config("p", wire.kind(), &wire.base(server));
    tune(&mut c);
    providers(vec![c]).call(&model("p"), &request()).await
}

async fn requests(server: &MockServer) -> Vec<Request> {
    server.received_requests().await.unwrap()
}

fn ok(wire: Wire, text: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(wire.answer(text))
}

// ---------------------------------------------------------------------------------------
// The exact requests.

fn header<'a>(r: &'a Request, name: &str) -> Option<&'a str> {
    r.headers.get(name).map(|v| v.to_str().unwrap())
}

async fn sent_body(wire: Wire, structured: StructuredOutput) -> (Request, Value) {
    let server = serve(wire, ok(wire, GOOD)).await;
    call_one(wire, &server, |c| c.structured_output = structured)
        .await
        .unwrap();
    let r = requests(&server).await.remove(0);
    let body: Value = r.body_json().unwrap();
    (r, body)
}

#[tokio::test]
async fn openai_request_is_exact() {
    let schema = answer::schema(ThreadName::Watcher);
    let (r, body) = sent_body(Wire::Openai, StructuredOutput::Auto).await;
    assert_eq!(r.url.path(), "/v1/chat/completions");
    assert_eq!(header(&r, "authorization"), Some("Bearer sk-test-1234"));
    assert_eq!(header(&r, "content-type"), Some("application/json"));
    assert_eq!(
        body,
        json!({
            "model": "test-model",
            "messages": [
                {"role": "system", "content": "You are the Watcher."},
                {"role": "user", "content": "What changed since the last tick?"}
            ],
            "max_tokens": 300,
            "temperature": 0.5,
            "stream": false,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "watcher_answer", "schema": schema}
            }
        })
    );
    let (_, body) = sent_body(Wire::Openai, StructuredOutput::JsonSchema).await;
    assert_eq!(body["response_format"]["type"], "json_schema");
    let (_, body) = sent_body(Wire::Openai, StructuredOutput::JsonObjectSchema).await;
    assert_eq!(
        body["response_format"],
        json!({"type": "json_object", "schema": schema})
    );
    let (_, body) = sent_body(Wire::Openai, StructuredOutput::JsonObject).await;
    assert_eq!(body["response_format"], json!({"type": "json_object"}));
    let (_, body) = sent_body(Wire::Openai, StructuredOutput::None).await;
    assert!(body.get("response_format").is_none(), "{body}");
}

#[tokio::test]
async fn anthropic_request_is_exact() {
    let schema = answer::schema(ThreadName::Watcher);
    let (r, body) = sent_body(Wire::Anthropic, StructuredOutput::Auto).await;
    assert_eq!(r.url.path(), "/v1/messages");
    assert_eq!(header(&r, "x-api-key"), Some("sk-test-1234"));
    assert_eq!(header(&r, "anthropic-version"), Some("2023-06-01"));
    assert_eq!(header(&r, "content-type"), Some("application/json"));
    assert_eq!(header(&r, "authorization"), None);
    assert_eq!(
        body,
        json!({
            "model": "test-model",
            "max_tokens": 300,
            "system": "You are the Watcher.",
            "messages": [{"role": "user", "content": "What changed since the last tick?"}],
            "temperature": 0.5,
            "tools": [{
                "name": "watcher_answer",
                "description": "Report your answer: call this tool once, with the whole answer object as its input.",
                "input_schema": schema
            }],
            "tool_choice": {"type": "tool", "name": "watcher_answer"}
        })
    );
    let (_, body) = sent_body(Wire::Anthropic, StructuredOutput::Tool).await;
    assert_eq!(body["tool_choice"]["type"], "tool");
    let (_, body) = sent_body(Wire::Anthropic, StructuredOutput::None).await;
    assert!(
        body.get("tools").is_none() && body.get("tool_choice").is_none(),
        "{body}"
    );
}

#[tokio::test]
async fn anthropic_version_comes_from_the_config() {
    let wire = Wire::Anthropic;
    let server = serve(wire, ok(wire, GOOD)).await;
    call_one(wire, &server, |c| c.anthropic_version = "2099-01-01".into())
        .await
        .unwrap();
    let r = requests(&server).await.remove(0);
    assert_eq!(header(&r, "anthropic-version"), Some("2099-01-01"));
}

#[tokio::test]
async fn ollama_request_is_exact() {
    let schema = answer::schema(ThreadName::Watcher);
    let (r, body) = sent_body(Wire::Ollama, StructuredOutput::Auto).await;
    assert_eq!(r.url.path(), "/api/chat");
    assert_eq!(header(&r, "authorization"), Some("Bearer sk-test-1234"));
    assert_eq!(
        body,
        json!({
            "model": "test-model",
            "messages": [
                {"role": "system", "content": "You are the Watcher."},
                {"role": "user", "content": "What changed since the last tick?"}
            ],
            "stream": false,
            "format": schema,
            "options": {"temperature": 0.5, "num_predict": 300}
        })
    );
    let (_, body) = sent_body(Wire::Ollama, StructuredOutput::JsonObject).await;
    assert_eq!(body["format"], "json");
    let (_, body) = sent_body(Wire::Ollama, StructuredOutput::None).await;
    assert!(body.get("format").is_none(), "{body}");
}

#[tokio::test]
async fn no_key_configured_sends_no_key() {
    for wire in Wire::ALL {
        let server = serve(wire, ok(wire, GOOD)).await;
        call_one(wire, &server, |c| c.api_key_env = None)
            .await
            .unwrap();
        let r = requests(&server).await.remove(0);
        assert_eq!(header(&r, "authorization"), None, "{wire:?}");
        assert_eq!(header(&r, "x-api-key"), None, "{wire:?}");
    }
}

#[tokio::test]
async fn schema_names_are_made_wire_safe() {
    let wire = Wire::Openai;
    let server = serve(wire, ok(wire, GOOD)).await;
    let c = config("p", wire.kind(), &wire.base(&server));
    let mut req = request();
    req.schema_name = "watcher answer v1.0".into();
    providers(vec![c]).call(&model("p"), &req).await.unwrap();
    let body: Value = requests(&server).await[0].body_json().unwrap();
    assert_eq!(
        body["response_format"]["json_schema"]["name"],
        "watcher_answer_v1_0"
    );
}

// ---------------------------------------------------------------------------------------
// Answers.

#[tokio::test]
async fn a_good_answer_is_read_with_tokens_cost_and_model() {
    for wire in Wire::ALL {
        let server = serve(wire, ok(wire, GOOD)).await;
        let c = call_one(wire, &server, |_| {}).await.unwrap();
        assert_eq!(c.text, GOOD, "{wire:?}");
        assert_eq!((c.tokens_in, c.tokens_out), (1200, 80), "{wire:?}");
        // 1200 * 2.0 / 1e6 + 80 * 10.0 / 1e6
        assert!((c.cost - 0.0032).abs() < 1e-12, "{wire:?}: {}", c.cost);
        assert_eq!(c.model, model("p"));
        assert_eq!(c.served_model, "served-model-1");
        assert_eq!(c.attempts, 1);
        let a = answer::parse(ThreadName::Watcher, &c.text).unwrap();
        assert_eq!(a.findings[0].importance, 7);
    }
}

#[tokio::test]
async fn anthropic_tool_use_is_read_as_its_input() {
    let body = json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
        "content": [
            {"type": "thinking", "thinking": "hmm"},
            {"type": "text", "text": "Here you go."},
            {"type": "tool_use", "id": "toolu_1", "name": "watcher_answer",
             "input": {"findings": [{"summary": "Backup failed twice", "importance": "8"}], "reinforce": ["t-backup"], "escalate": false}}
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 100, "cache_read_input_tokens": 50, "output_tokens": 30}
    });
    let server = serve(
        Wire::Anthropic,
        ResponseTemplate::new(200).set_body_json(body),
    )
    .await;
    let c = call_one(Wire::Anthropic, &server, |_| {}).await.unwrap();
    let input: Value = serde_json::from_str(&c.text).unwrap();
    assert_eq!(input["reinforce"], json!(["t-backup"]));
    assert_eq!((c.tokens_in, c.tokens_out), (150, 30));
    let a = answer::parse(ThreadName::Watcher, &c.text).unwrap();
    assert_eq!(a.findings[0].importance, 8);
    assert_eq!(a.reinforce, vec!["t-backup"]);
}

#[tokio::test]
async fn prose_around_json_still_reads() {
    let prose = format!("Sure! Here is what I noticed:\n```json\n{GOOD}\n```\nLet me know.");
    for wire in Wire::ALL {
        let server = serve(wire, ok(wire, &prose)).await;
        let c = call_one(wire, &server, |_| {}).await.unwrap();
        assert_eq!(c.text, prose);
        let a = answer::parse(ThreadName::Watcher, &c.text).unwrap();
        assert_eq!(a.findings[0].summary, "Disk 91% full on /home", "{wire:?}");
    }
}

#[tokio::test]
async fn an_answer_cut_by_the_token_limit_is_truncated() {
    for wire in Wire::ALL {
        let server = serve(
            wire,
            ResponseTemplate::new(200).set_body_json(wire.cut(r#"{"findings":[{"summary":"Disk"#)),
        )
        .await;
        let err = call_one(wire, &server, |_| {}).await.unwrap_err();
        assert!(
            matches!(
                err,
                CallError::Truncated {
                    max_tokens: 300,
                    ..
                }
            ),
            "{wire:?}: {err}"
        );
        assert!(err.to_string().contains("max_tokens"), "{err}");
        assert_eq!(requests(&server).await.len(), 1, "not retried");
    }
}

#[tokio::test]
async fn an_empty_answer_is_a_bad_response() {
    for wire in Wire::ALL {
        let server = serve(wire, ok(wire, "  ")).await;
        let err = call_one(wire, &server, |_| {}).await.unwrap_err();
        assert!(
            matches!(&err, CallError::BadResponse { message, .. } if message.contains("no answer")),
            "{wire:?}: {err}"
        );
    }
}

#[tokio::test]
async fn a_truncated_body_is_a_bad_response() {
    for wire in Wire::ALL {
        let full = wire.answer(GOOD).to_string();
        let cut = &full[..full.len() / 2];
        let server = serve(
            wire,
            ResponseTemplate::new(200).set_body_raw(cut.to_string(), "application/json"),
        )
        .await;
        let err = call_one(wire, &server, |_| {}).await.unwrap_err();
        assert!(
            matches!(&err, CallError::BadResponse { message, .. } if message.contains("cut off")),
            "{wire:?}: {err}"
        );
        assert!(err.to_string().chars().count() < 400, "bounded: {err}");
    }
}

#[tokio::test]
async fn an_html_body_is_a_bad_response() {
    let html = format!(
        "<!DOCTYPE html><html><head><title>Gateway</title></head><body>{}</body></html>",
        "Please wait while we check your browser. ".repeat(50)
    );
    for wire in Wire::ALL {
        let server = serve(
            wire,
            ResponseTemplate::new(200).set_body_raw(html.clone(), "text/html"),
        )
        .await;
        let err = call_one(wire, &server, |_| {}).await.unwrap_err();
        let text = err.to_string();
        assert!(
            matches!(&err, CallError::BadResponse { message, .. } if message.contains("HTML")),
            "{wire:?}: {err}"
        );
        assert!(text.chars().count() < 400, "the excerpt is bounded: {text}");
    }
}

#[tokio::test]
async fn an_html_error_page_is_an_http_error() {
    let wire = Wire::Openai;
    let server = serve(
        wire,
        ResponseTemplate::new(403).set_body_raw("<html><body>Forbidden</body></html>", "text/html"),
    )
    .await;
    let err = call_one(wire, &server, |_| {}).await.unwrap_err();
    assert!(
        matches!(&err, CallError::Http { status: 403, message, .. } if message.contains("HTML") && message.contains("Forbidden")),
        "{err}"
    );
}

// ---------------------------------------------------------------------------------------
// Failures and retries.

#[tokio::test]
async fn unauthorized_is_not_retried_and_says_why() {
    for wire in Wire::ALL {
        let server = serve(
            wire,
            ResponseTemplate::new(401).set_body_json(wire.error("Invalid API Key")),
        )
        .await;
        let err = call_one(wire, &server, |_| {}).await.unwrap_err();
        assert!(
            matches!(&err, CallError::Http { status: 401, message, .. } if message == "Invalid API Key"),
            "{wire:?}: {err}"
        );
        assert_eq!(err.to_string(), "p/test-model: HTTP 401: Invalid API Key");
        assert_eq!(requests(&server).await.len(), 1, "{wire:?}: not retried");
    }
}

#[tokio::test]
async fn rate_limited_with_retry_after_waits_as_asked_then_succeeds() {
    for wire in Wire::ALL {
        let server = serve_then(
            wire,
            ResponseTemplate::new(429)
                .insert_header("retry-after", "1")
                .set_body_json(wire.error("slow down")),
            1,
            ok(wire, GOOD),
        )
        .await;
        let started = Instant::now();
        // retry_max_wait (20 ms) would cut an unhonoured backoff far below one second.
        let c = call_one(wire, &server, |c| c.retry_max_wait = Duration::from_secs(2))
            .await
            .unwrap();
        assert!(
            started.elapsed() >= Duration::from_secs(1),
            "Retry-After: 1 was honoured"
        );
        assert_eq!(c.attempts, 2);
        assert_eq!(requests(&server).await.len(), 2);
    }
}

#[tokio::test]
async fn retry_after_beyond_the_max_wait_gives_up_at_once() {
    let wire = Wire::Openai;
    let server = serve(
        wire,
        ResponseTemplate::new(429)
            .insert_header("retry-after", "120")
            .set_body_json(wire.error("quota")),
    )
    .await;
    let err = call_one(wire, &server, |_| {}).await.unwrap_err();
    assert!(
        matches!(err, CallError::RateLimited { retry_after: Some(d), .. } if d == Duration::from_mins(2)),
        "{err}"
    );
    assert!(err.to_string().contains("Retry-After 120s"), "{err}");
    assert_eq!(requests(&server).await.len(), 1);
}

#[tokio::test]
async fn rate_limited_without_retry_after_backs_off_then_succeeds() {
    for wire in Wire::ALL {
        let server = serve_then(wire, ResponseTemplate::new(429), 2, ok(wire, GOOD)).await;
        let c = call_one(wire, &server, |_| {}).await.unwrap();
        assert_eq!(c.attempts, 3, "{wire:?}");
        assert_eq!(c.text, GOOD);
    }
}

#[tokio::test]
async fn rate_limited_beyond_the_retries_is_reported() {
    let wire = Wire::Anthropic;
    let server = serve(
        wire,
        ResponseTemplate::new(429).set_body_json(wire.error("rate_limit_error")),
    )
    .await;
    let err = call_one(wire, &server, |c| c.retries = 1)
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            CallError::RateLimited {
                retry_after: None,
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(requests(&server).await.len(), 2);
}

#[tokio::test]
async fn server_errors_are_retried_then_succeed() {
    for wire in Wire::ALL {
        let server = serve_then(
            wire,
            ResponseTemplate::new(500).set_body_string("internal error"),
            1,
            ok(wire, GOOD),
        )
        .await;
        let c = call_one(wire, &server, |_| {}).await.unwrap();
        assert_eq!(c.attempts, 2, "{wire:?}");
    }
    // 408 and 529 (Anthropic "overloaded") are retried too.
    for status in [408, 503, 529] {
        let wire = Wire::Anthropic;
        let server = serve_then(wire, ResponseTemplate::new(status), 1, ok(wire, GOOD)).await;
        let c = call_one(wire, &server, |_| {}).await.unwrap();
        assert_eq!(c.attempts, 2, "{status}");
    }
}

#[tokio::test]
async fn server_errors_beyond_the_retries_are_reported() {
    let wire = Wire::Ollama;
    let server = serve(
        wire,
        ResponseTemplate::new(502).set_body_json(wire.error("upstream gone")),
    )
    .await;
    let err = call_one(wire, &server, |c| c.retries = 3)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, CallError::Http { status: 502, message, .. } if message == "upstream gone"),
        "{err}"
    );
    assert_eq!(requests(&server).await.len(), 4);
}

#[tokio::test]
async fn a_slow_server_times_out() {
    for wire in Wire::ALL {
        let server = serve(wire, ok(wire, GOOD).set_delay(Duration::from_secs(3))).await;
        let err = call_one(wire, &server, |c| c.timeout = Duration::from_millis(200))
            .await
            .unwrap_err();
        assert!(matches!(err, CallError::Timeout { .. }), "{wire:?}: {err}");
        assert!(err.to_string().contains("timeout_seconds"), "{err}");
    }
}

#[tokio::test]
async fn a_closed_port_is_a_connect_error() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let c = config(
        "p",
        ProviderKind::Openai,
        &format!("http://127.0.0.1:{port}/v1"),
    );
    let err = providers(vec![c])
        .call(&model("p"), &request())
        .await
        .unwrap_err();
    assert!(matches!(err, CallError::Connect { .. }), "{err}");
    assert!(err.to_string().contains("cannot connect"), "{err}");
}

#[tokio::test]
async fn https_is_spoken() {
    // A plain TCP listener sees the client's first bytes: a TLS handshake record.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut first = [0u8; 3];
        stream.read_exact(&mut first).unwrap();
        first
    });
    let mut c = config(
        "p",
        ProviderKind::Openai,
        &format!("https://127.0.0.1:{port}/v1"),
    );
    c.retries = 0;
    let err = providers(vec![c])
        .call(&model("p"), &request())
        .await
        .unwrap_err();
    assert!(matches!(err, CallError::Connect { .. }), "{err}");
    let first = seen.join().unwrap();
    assert_eq!(first[0], 0x16, "a TLS handshake record");
    assert_eq!(first[1], 0x03, "TLS major version 3");
}

#[tokio::test]
async fn a_missing_or_empty_key_names_the_variable() {
    let c = config("groq", ProviderKind::Openai, "http://127.0.0.1:9/v1");
    let map = BTreeMap::from([("groq".to_string(), c)]);
    let none = Providers::new(map.clone()).unwrap().with_env(|_| None);
    let err = none.call(&model("groq"), &request()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "provider `groq`: the environment variable `THINKER_TEST_KEY` that should hold its API key is not set"
    );
    let empty = Providers::new(map).unwrap().with_env(|_| Some("  ".into()));
    let err = empty.call(&model("groq"), &request()).await.unwrap_err();
    assert!(
        matches!(&err, CallError::MissingKey { empty: true, var, .. } if var == KEY_VAR),
        "{err}"
    );
    assert!(err.to_string().ends_with("is empty"), "{err}");
}

#[tokio::test]
async fn an_unknown_provider_is_named() {
    let err = providers(vec![])
        .call(&model("nope"), &request())
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "nope/test-model: provider `nope` is not configured"
    );
}

#[tokio::test]
async fn requests_per_minute_spaces_requests() {
    let wire = Wire::Openai;
    let server = serve(wire, ok(wire, GOOD)).await;
    let mut c = config("p", wire.kind(), &wire.base(&server));
    c.requests_per_minute = Some(600); // one per 100 ms
    let p = providers(vec![c]);
    let started = Instant::now();
    for _ in 0..3 {
        p.call(&model("p"), &request()).await.unwrap();
    }
    assert!(started.elapsed() >= Duration::from_millis(200));
}

// ---------------------------------------------------------------------------------------
// The chain and the gate.

#[derive(Default)]
struct TestGate {
    refuse: Vec<String>,
    admitted: Mutex<Vec<(String, u64)>>,
    recorded: Mutex<Vec<(String, u64, u64, f64)>>,
}

impl Gate for TestGate {
    fn admit(&self, provider: &ProviderConfig, estimated_tokens: u64) -> Result<(), Refusal> {
        if self.refuse.contains(&provider.name) {
            return Err(Refusal::Tokens {
                scope: Scope::Provider(provider.name.clone()),
                used: 0,
                limit: 0,
                tokens: estimated_tokens,
            });
        }
        self.admitted
            .lock()
            .unwrap()
            .push((provider.name.clone(), estimated_tokens));
        Ok(())
    }
    fn record(&self, provider: &ProviderConfig, tokens_in: u64, tokens_out: u64, cost: f64) {
        self.recorded
            .lock()
            .unwrap()
            .push((provider.name.clone(), tokens_in, tokens_out, cost));
    }
}

fn read_answer(c: &Completion) -> Result<answer::Answer, answer::AnswerError> {
    answer::parse(ThreadName::Watcher, &c.text)
}

#[tokio::test]
async fn the_chain_falls_back_after_server_errors() {
    let first = serve(Wire::Openai, ResponseTemplate::new(500)).await;
    let second = serve(Wire::Anthropic, ok(Wire::Anthropic, GOOD)).await;
    let mut a = config("a", ProviderKind::Openai, &Wire::Openai.base(&first));
    a.retries = 1;
    let b = config("b", ProviderKind::Anthropic, &Wire::Anthropic.base(&second));
    let p = providers(vec![a, b]);
    let out = p
        .call_chain(&[model("a"), model("b")], &request(), &NoGate, read_answer)
        .await;
    let (answer, completion) = out.result.unwrap();
    assert_eq!(answer.findings.len(), 1);
    assert_eq!(completion.model, model("b"));
    assert_eq!(out.attempts.len(), 2);
    let failed = &out.attempts[0];
    assert_eq!(failed.model, model("a"));
    assert_eq!(failed.tries, 2, "the first request and one retry");
    assert_eq!((failed.tokens_in, failed.cost), (0, 0.0));
    assert!(
        failed.error.as_deref().unwrap().contains("HTTP 500"),
        "{failed:?}"
    );
    let taken = &out.attempts[1];
    assert_eq!(taken.error, None);
    assert_eq!((taken.tokens_in, taken.tokens_out), (1200, 80));
    assert_eq!(requests(&first).await.len(), 2);
}

#[tokio::test]
async fn the_gate_hears_of_every_admitted_call_even_without_usage() {
    let first = serve(Wire::Openai, ResponseTemplate::new(503)).await;
    let second = serve(Wire::Ollama, ok(Wire::Ollama, GOOD)).await;
    let mut a = config("a", ProviderKind::Openai, &Wire::Openai.base(&first));
    a.retries = 0;
    let b = config("b", ProviderKind::Ollama, &Wire::Ollama.base(&second));
    let gate = TestGate::default();
    let out = providers(vec![a, b])
        .call_chain(&[model("a"), model("b")], &request(), &gate, read_answer)
        .await;
    assert!(out.result.is_ok());
    let recorded = gate.recorded.lock().unwrap().clone();
    assert_eq!(recorded.len(), 2);
    assert_eq!(
        recorded[0],
        ("a".to_string(), 0, 0, 0.0),
        "a 503: nothing used"
    );
    assert_eq!((recorded[1].1, recorded[1].2), (1200, 80));
    assert!((recorded[1].3 - 0.0032).abs() < 1e-12);
}

#[tokio::test]
async fn the_chain_falls_back_when_the_answer_cannot_be_read() {
    let first = serve(
        Wire::Ollama,
        ok(Wire::Ollama, "I looked around and everything seems fine."),
    )
    .await;
    let second = serve(Wire::Openai, ok(Wire::Openai, GOOD)).await;
    let a = config("a", ProviderKind::Ollama, &Wire::Ollama.base(&first));
    let b = config("b", ProviderKind::Openai, &Wire::Openai.base(&second));
    let gate = TestGate::default();
    let out = providers(vec![a, b])
        .call_chain(&[model("a"), model("b")], &request(), &gate, read_answer)
        .await;
    let (_, completion) = out.result.unwrap();
    assert_eq!(completion.model, model("b"));
    let refused = &out.attempts[0];
    assert_eq!(refused.tokens_in, 1200, "tokens were spent all the same");
    let error = refused.error.as_deref().unwrap();
    assert!(
        error.contains("could not be read") && error.contains("no JSON object"),
        "{error}"
    );
    // Both calls used tokens, and the gate heard of both.
    let recorded = gate.recorded.lock().unwrap().clone();
    assert_eq!(
        recorded
            .iter()
            .map(|r| (r.0.as_str(), r.1, r.2))
            .collect::<Vec<_>>(),
        vec![("a", 1200, 80), ("b", 1200, 80)]
    );
}

#[tokio::test]
async fn the_chain_reports_the_last_error_when_all_fail() {
    let first = serve(Wire::Openai, ResponseTemplate::new(500)).await;
    let second = serve(
        Wire::Anthropic,
        ResponseTemplate::new(401).set_body_json(Wire::Anthropic.error("bad key")),
    )
    .await;
    let mut a = config("a", ProviderKind::Openai, &Wire::Openai.base(&first));
    a.retries = 0;
    let b = config("b", ProviderKind::Anthropic, &Wire::Anthropic.base(&second));
    let out = providers(vec![a, b])
        .call_chain(&[model("a"), model("b")], &request(), &NoGate, read_answer)
        .await;
    let err = out.result.unwrap_err();
    assert!(matches!(err, CallError::Http { status: 401, .. }), "{err}");
    assert_eq!(out.attempts.len(), 2);
    assert!(out.attempts.iter().all(|a| a.error.is_some()));
}

#[tokio::test]
async fn the_gate_skips_a_model_over_budget() {
    let first = serve(Wire::Openai, ok(Wire::Openai, GOOD)).await;
    let second = serve(Wire::Ollama, ok(Wire::Ollama, GOOD)).await;
    let a = config("a", ProviderKind::Openai, &Wire::Openai.base(&first));
    let b = config("b", ProviderKind::Ollama, &Wire::Ollama.base(&second));
    let gate = TestGate {
        refuse: vec!["a".into()],
        ..TestGate::default()
    };
    let req = request();
    let out = providers(vec![a, b])
        .call_chain(&[model("a"), model("b")], &req, &gate, read_answer)
        .await;
    let (_, completion) = out.result.unwrap();
    assert_eq!(completion.model, model("b"));
    assert!(requests(&first).await.is_empty(), "no request to a");
    let skipped = &out.attempts[0];
    assert!(skipped.skipped && skipped.tries == 0);
    assert!(
        skipped.error.as_deref().unwrap().contains("over budget"),
        "{skipped:?}"
    );
    let estimate = (req.system.len() + req.prompt.len()) as u64 / 4 + 300;
    assert_eq!(
        gate.admitted.lock().unwrap().clone(),
        vec![("b".to_string(), estimate)]
    );
}

#[tokio::test]
async fn a_chain_the_gate_refuses_entirely_is_over_budget() {
    let a = config("a", ProviderKind::Openai, "http://127.0.0.1:9/v1");
    let gate = TestGate {
        refuse: vec!["a".into()],
        ..TestGate::default()
    };
    let out = providers(vec![a])
        .call_chain(&[model("a")], &request(), &gate, read_answer)
        .await;
    assert!(
        matches!(out.result, Err(CallError::OverBudget { .. })),
        "{:?}",
        out.result
    );
    let none = providers(vec![])
        .call_chain(&[], &request(), &gate, read_answer)
        .await;
    assert!(matches!(none.result, Err(CallError::NoModels)));
}

// ---------------------------------------------------------------------------------------
// Replay.

fn replay(dir: PathBuf) -> Providers {
    let mut c = config("r", ProviderKind::Replay, "");
    c.api_key_env = None;
    c.replay_dir = Some(dir);
    providers(vec![c])
}

#[tokio::test]
async fn replay_reads_a_file_every_time() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("test-model"), GOOD).unwrap();
    let p = replay(dir.path().to_path_buf());
    for sequence in [1, 2, 7] {
        let c = p
            .call(
                &model("r"),
                &CallRequest {
                    sequence,
                    ..request()
                },
            )
            .await
            .unwrap();
        assert_eq!(c.text, GOOD);
        assert_eq!((c.tokens_in, c.tokens_out, c.cost), (0, 0, 0.0));
    }
}

#[tokio::test]
async fn replay_cycles_through_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let answers = dir.path().join("test-model");
    std::fs::create_dir(&answers).unwrap();
    for (name, text) in [
        ("02.json", "second"),
        ("01.json", "first"),
        ("03.json", "third"),
    ] {
        std::fs::write(answers.join(name), text).unwrap();
    }
    std::fs::write(answers.join(".hidden"), "never").unwrap();
    let p = replay(dir.path().to_path_buf());
    let mut seen = Vec::new();
    for sequence in 1..=5 {
        let c = p
            .call(
                &model("r"),
                &CallRequest {
                    sequence,
                    ..request()
                },
            )
            .await
            .unwrap();
        seen.push(c.text);
    }
    assert_eq!(seen, ["first", "second", "third", "first", "second"]);
    let gate = TestGate {
        refuse: vec!["r".into()],
        ..TestGate::default()
    };
    let out = p
        .call_chain(&[model("r")], &request(), &gate, |c| {
            Ok::<_, std::convert::Infallible>(c.text.clone())
        })
        .await;
    assert_eq!(
        out.result.unwrap().0,
        "first",
        "replay costs nothing: not gated"
    );
}

#[tokio::test]
async fn replay_names_a_missing_path() {
    let dir = tempfile::tempdir().unwrap();
    let p = replay(dir.path().to_path_buf());
    let err = p.call(&model("r"), &request()).await.unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, CallError::Replay { .. }), "{text}");
    assert!(
        text.contains(&dir.path().join("test-model").display().to_string()),
        "{text}"
    );
    std::fs::create_dir(dir.path().join("test-model")).unwrap();
    let err = p.call(&model("r"), &request()).await.unwrap_err();
    assert!(err.to_string().contains("holds no answer files"), "{err}");
}

// ---------------------------------------------------------------------------------------
// Secrets.

#[derive(Clone, Default)]
struct LogBuffer(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for LogBuffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogBuffer {
    type Writer = LogBuffer;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

#[tokio::test]
async fn no_key_appears_in_errors_debug_or_logs() {
    let logs = LogBuffer::default();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(logs.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    // tracing caches, per call site, whether anyone listens. A call site first reached by
    // a test running in parallel, just as this subscriber was set, can stay cached as
    // "nobody": reach every call site once, then have the caches rebuilt.
    leak_scenario(Wire::Openai).await;
    tracing::callsite::rebuild_interest_cache();
    logs.0.lock().unwrap().clear();

    let mut texts = Vec::new();
    for wire in Wire::ALL {
        texts.extend(leak_scenario(wire).await);
    }
    let logged = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(
        logged.contains("status=500"),
        "logs were captured: {logged}"
    );
    assert!(logged.contains("retrying"), "{logged}");
    for text in texts.iter().chain([&logged]) {
        assert!(!text.contains(SECRET), "the key leaked: {text}");
        assert!(!text.contains("sk-THI"), "part of the key leaked: {text}");
    }
}

/// Servers that echo the key in error bodies; returns every text the caller gets to see.
async fn leak_scenario(wire: Wire) -> Vec<String> {
    let echo =
        format!("Incorrect API key provided: {SECRET}. Find your key at https://example.invalid");
    // A 401 that echoes the key.
    let server = serve(
        wire,
        ResponseTemplate::new(401).set_body_json(wire.error(&echo)),
    )
    .await;
    // A 500 that echoes it (retried, so it is logged), then a 200 whose body is not JSON
    // and echoes it again, right where the error excerpt is cut.
    let flaky = serve_then(
        wire,
        ResponseTemplate::new(500).set_body_string(format!("upstream said {SECRET}")),
        2,
        ResponseTemplate::new(200).set_body_string(format!("{} {SECRET} tail", "x".repeat(135))),
    )
    .await;
    let mut a = config("a", wire.kind(), &wire.base(&server));
    a.retries = 0;
    let b = config("b", wire.kind(), &wire.base(&flaky));
    let p = providers_with_key(vec![a, b], SECRET);
    let out = p
        .call_chain(&[model("a"), model("b")], &request(), &NoGate, read_answer)
        .await;
    let err = out.result.unwrap_err();
    assert!(matches!(err, CallError::BadResponse { .. }), "{err}");
    // The key was sent, so the scrubbing was needed.
    let sent = &requests(&server).await[0];
    assert!(
        format!("{:?}", sent.headers).contains(SECRET),
        "{wire:?}: the key is sent"
    );
    let first_error = out.attempts[0].error.clone().unwrap();
    assert!(first_error.contains("[redacted]"), "{first_error}");
    let mut texts = vec![
        err.to_string(),
        format!("{err:?}"),
        format!("{:?}", out.attempts),
        format!("{p:?}"),
    ];
    texts.extend(out.attempts.iter().filter_map(|a| a.error.clone()));
    texts
}
