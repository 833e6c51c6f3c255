//! Hostile provider responses (the hardening issue, items 2, 4 and 6's usage): bodies
//! past the size cap or built to make the reader slow, keys echoed whole or in part, and
//! usage that is absurd or oddly typed. Loopback only; no timing asserts.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use thinker::answer;
use thinker::config::{Config, ModelRef, ProviderConfig, ProviderKind};
use thinker::provider::{Attempt, CallError, CallRequest, Completion, NoGate, Providers};
use thinker::thread::ThreadName::{Dreamer, Librarian, Oracle, Watcher};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::support::{SEED, Tick, found, ok, snapshot};

const KEY_VAR: &str = "THINKER_HARDENING_KEY";
/// The key of the issue's 401 example.
const KEY: &str = "sk-ZQX7vK93pAbCdEfFs6A";

fn config(kind: ProviderKind, base_url: &str) -> ProviderConfig {
    ProviderConfig {
        api_key_env: Some(KEY_VAR.into()),
        timeout: Duration::from_secs(30),
        price_in: 2.0,
        price_out: 10.0,
        ..crate::support::provider("p", kind, base_url)
    }
}

fn providers(c: ProviderConfig) -> Providers {
    let map: BTreeMap<String, ProviderConfig> = [(c.name.clone(), c)].into();
    Providers::new(map)
        .unwrap()
        .with_env(|var| (var == KEY_VAR).then(|| KEY.to_string()))
}

fn model() -> ModelRef {
    ModelRef {
        provider: "p".into(),
        model: "m".into(),
    }
}

fn request() -> CallRequest {
    CallRequest {
        system: String::new(),
        prompt: "What changed since the last tick?".into(),
        schema: answer::schema(Watcher),
        schema_name: "thread_answer".into(),
        max_tokens: 300,
        temperature: 0.5,
        sequence: 1,
    }
}

fn read_answer(c: &Completion) -> Result<answer::Answer, answer::AnswerError> {
    answer::parse(Watcher, &c.text)
}

/// One call through the chain (one model), for its attempt record.
async fn chain(c: ProviderConfig) -> (Result<Completion, CallError>, Attempt) {
    let mut out = providers(c)
        .call_chain(&[model()], &request(), &NoGate, read_answer)
        .await;
    (out.result.map(|(_, c)| c), out.attempts.remove(0))
}

const GOOD: &str = r#"{"findings":[{"summary":"Disk 91% full on /home","importance":7,"kind":"anomaly"}],"reinforce":[],"escalate":false}"#;

/// Panics if `text` holds the key or any run of 8 of its characters.
#[track_caller]
fn assert_no_key(text: &str, what: &str) {
    let chars: Vec<char> = KEY.chars().collect();
    for run in chars.windows(8) {
        let run: String = run.iter().collect();
        assert!(
            !text.contains(&run),
            "{what} holds `{run}` of the key:\n{text}"
        );
    }
}

/// A chat-completions body of `content` (not JSON-encoded: any text).
fn chat(model: &str, content: &str, usage: &Value) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "finish_reason": "stop"}],
        "usage": usage
    })
}

// ---------------------------------------------------------------------------------------
// Item 2: the size cap and the reader.

/// A loopback server that answers one request with `status` and a chunked body of `{`
/// that never ends. The counter says how many body bytes it managed to write before the
/// client hung up; the handle ends when it did.
fn endless(status: u16) -> (String, Arc<AtomicU64>, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let written = Arc::new(AtomicU64::new(0));
    let count = Arc::clone(&written);
    let handle = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        // Read the request: headers, then content-length bytes of body.
        loop {
            let n = s.read(&mut buf).unwrap();
            assert!(n > 0, "the client hung up before sending its request");
            seen.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&seen).to_string();
            if let Some(end) = text.find("\r\n\r\n") {
                let length: usize = text[..end]
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.eq_ignore_ascii_case("content-length")
                            .then(|| v.trim().parse().unwrap())
                    })
                    .unwrap_or(0);
                if seen.len() >= end + 4 + length {
                    break;
                }
            }
        }
        let head = format!(
            "HTTP/1.1 {status} Whatever\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n"
        );
        s.write_all(head.as_bytes()).unwrap();
        let chunk = "{".repeat(16 << 10);
        let framed = format!("{:x}\r\n{chunk}\r\n", chunk.len());
        while s.write_all(framed.as_bytes()).is_ok() {
            count.fetch_add(chunk.len() as u64, Ordering::SeqCst);
        }
    });
    (url, written, handle)
}

#[tokio::test]
async fn an_endless_answer_stops_at_max_response_bytes() {
    let (url, written, server) = endless(200);
    let err = providers(config(ProviderKind::Ollama, &url))
        .call(&model(), &request())
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, CallError::BadResponse { .. }), "{text}");
    assert!(
        text.contains("passed max_response_bytes (1048576)") && text.contains("raise it"),
        "{text}"
    );
    // Joined off the runtime: the connection is closed by a task on this runtime.
    tokio::task::spawn_blocking(move || server.join().unwrap())
        .await
        .unwrap();
    // The read stopped: what the server got out is the cap plus the socket buffers.
    let sent = written.load(Ordering::SeqCst);
    assert!(sent < 64 << 20, "the client kept reading: {sent} bytes");
}

#[tokio::test]
async fn an_endless_error_body_is_read_only_for_its_excerpt() {
    let (url, _, server) = endless(500);
    let err = providers(config(ProviderKind::Openai, &url))
        .call(&model(), &request())
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, CallError::Http { status: 500, .. }) && text.contains("{{{{"),
        "{text}"
    );
    assert!(text.chars().count() < 400, "an excerpt: {text}");
    tokio::task::spawn_blocking(move || server.join().unwrap())
        .await
        .unwrap();
}

#[tokio::test]
async fn a_content_length_past_the_cap_is_refused() {
    let server = MockServer::start().await;
    let big = "x".repeat(5000);
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(chat(
            "m",
            &big,
            &json!({"prompt_tokens": 1}),
        )))
        .mount(&server)
        .await;
    let mut c = config(ProviderKind::Openai, &server.uri());
    c.max_response_bytes = 4096;
    let (result, attempt) = chain(c).await;
    let err = result.unwrap_err();
    assert!(
        err.to_string().contains("passed max_response_bytes (4096)"),
        "{err}"
    );
    // Answered, so probably billed: the estimate is counted.
    assert!(attempt.usage_estimated, "{attempt:?}");
    assert_eq!((attempt.tokens_in, attempt.tokens_out), (8, 300));
}

#[test]
fn max_response_bytes_is_validated_and_named() {
    let parse =
        |line: &str| Config::parse(&format!("[providers.p]\nkind = \"ollama\"\n{line}\n"), None);
    assert_eq!(
        parse("").unwrap().providers["p"].max_response_bytes,
        1 << 20
    );
    assert_eq!(
        parse("max_response_bytes = 4096").unwrap().providers["p"].max_response_bytes,
        4096
    );
    for bad in ["0", "1023", "2000000000000"] {
        let err = parse(&format!("max_response_bytes = {bad}"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("providers.p.max_response_bytes") && err.contains("out of range"),
            "{err}"
        );
    }
}

/// `n` nested `{"a":`, never closed: the old reader parsed 128 levels from each `{`.
fn nested(n: usize) -> String {
    r#"{"a":"#.repeat(n)
}

#[test]
fn a_hostile_body_fails_its_thread_alone_and_the_three_others_land() {
    // 4 MB of nesting within a cap raised for it: read (off the runtime thread, in
    // linear time), found unreadable; the three healthy threads are journaled answered.
    let hostile = ResponseTemplate::new(200).set_body_json(chat(
        "watcher",
        &(nested(400_000) + &"{".repeat(2_000_000)),
        &json!({"prompt_tokens": 10, "completion_tokens": 10}),
    ));
    let mut tick = Tick::new()
        .state(SEED)
        .local("max_response_bytes = 16777216")
        .respond(Watcher, hostile)
        .answer(Librarian, &found("Backups and invoices share a Monday", 5))
        .answer(Oracle, &found("Rent is due on the first", 6))
        .answer(Dreamer, &found("Automate the Monday backup check", 4));
    let out = tick.run();
    out.expect_exit(3);
    let watcher = out.thread(Watcher);
    assert_eq!(watcher["status"], "failed");
    let error = watcher["error"].as_str().unwrap();
    assert!(
        error.contains("could not be read") && !error.contains("timed out"),
        "{error}"
    );
    for thread in [Librarian, Oracle, Dreamer] {
        assert_eq!(out.thread(thread)["status"], "answered", "{thread}");
    }
    let state = out.state();
    let summaries = state["active_threads"].to_string() + &state["hunches"].to_string();
    assert!(summaries.contains("Rent is due"), "{summaries}");
}

#[test]
fn an_answer_past_the_default_cap_fails_with_the_cap_error() {
    let hostile = ResponseTemplate::new(200).set_body_json(chat(
        "watcher",
        &nested(600_000),
        &json!({"prompt_tokens": 10, "completion_tokens": 10}),
    ));
    let mut tick = Tick::new()
        .respond(Watcher, hostile)
        .answer(Librarian, &found("Backups and invoices share a Monday", 5))
        .answer(Oracle, &found("Rent is due on the first", 6))
        .answer(Dreamer, &found("Automate the Monday backup check", 4));
    let out = tick.run();
    out.expect_exit(3);
    let error = out.thread(Watcher)["error"].as_str().unwrap().to_string();
    assert!(
        error.contains("passed max_response_bytes (1048576)"),
        "{error}"
    );
    for thread in [Librarian, Oracle, Dreamer] {
        assert_eq!(out.thread(thread)["status"], "answered", "{thread}");
    }
}

// ---------------------------------------------------------------------------------------
// Item 4: keys echoed whole or in part.

/// Answers 200 with `build(authorization header)` as the completion's content, and the
/// header as the served model.
struct EchoIn200(fn(&str) -> String);

impl Respond for EchoIn200 {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let auth = request
            .headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("(none)");
        ResponseTemplate::new(200).set_body_json(chat(
            auth,
            &(self.0)(auth),
            &json!({"prompt_tokens": 100, "completion_tokens": 10}),
        ))
    }
}

#[test]
fn a_key_echoed_whole_or_in_part_reaches_no_output_and_no_file() {
    let in_finding: fn(&str) -> String =
        |auth| found(&format!("The server saw {auth} in the header"), 7).to_string();
    let in_prose: fn(&str) -> String = |auth| format!("Sorry, {auth} is not a valid key.");
    // The issue's 401: the key with its middle masked.
    let masked = ResponseTemplate::new(401).set_body_json(
        json!({"error": {"message": "Incorrect API key provided: sk-ZQX7vK93p***Fs6A"}}),
    );
    let mut tick = Tick::new()
        .state(SEED)
        .local(&format!("api_key_env = \"{KEY_VAR}\""))
        .env(KEY_VAR, KEY)
        .respond(Watcher, EchoIn200(in_finding))
        .respond(Librarian, EchoIn200(in_prose))
        .respond(Oracle, masked)
        .answer(Dreamer, &found("Automate the Monday backup check", 4));
    let out = tick.run_with(&["--json", "-vv"]);
    out.expect_exit(3);
    // The key was sent, and came back in all three ways...
    assert_eq!(
        tick.requests(Watcher)[0].headers["authorization"],
        format!("Bearer {KEY}").as_str()
    );
    let watcher = out.thread(Watcher);
    assert_eq!(watcher["status"], "answered");
    let librarian = out.thread(Librarian)["error"].as_str().unwrap().to_string();
    assert!(
        librarian.contains("no JSON object") && librarian.contains("[redacted]"),
        "{librarian}"
    );
    let oracle = out.thread(Oracle)["error"].as_str().unwrap().to_string();
    assert!(
        oracle.contains("401") && oracle.contains("[redacted]***Fs6A"),
        "{oracle}"
    );
    let state = out.state().to_string();
    assert!(
        state.contains("The server saw Bearer [redacted] in the header"),
        "{state}"
    );
    // ...and is nowhere thinker writes or prints.
    assert_no_key(&out.stdout, "tick stdout");
    assert_no_key(&out.stderr, "tick stderr");
    let files = snapshot(&out.dir).unwrap();
    assert!(files.contains_key("journal.jsonl") && files.contains_key("subconscious.json.bak"));
    for (name, bytes) in files {
        assert_no_key(&String::from_utf8_lossy(&bytes), &name);
    }
    for command in [&["show"][..], &["prompt", "watcher"]] {
        let shown = tick.thinker(command);
        shown.expect_exit(0);
        assert!(shown.stdout.contains("[redacted]"), "{command:?}");
        assert_no_key(&shown.stdout, &format!("{command:?} stdout"));
        assert_no_key(&shown.stderr, &format!("{command:?} stderr"));
    }
}

/// Regression: an answer whose JSON spelled the key with `\u200b`
/// escapes between its characters left 17 of them in `subconscious.json` and the journal
/// (raw zero-width characters were scrubbed; the escapes were read after the scrub).
#[test]
fn a_key_spelled_with_json_escapes_reaches_no_file() {
    // 17 characters of the key without its `sk-` (a key shape the guard masks anyway).
    let escaped: String = KEY[3..20]
        .chars()
        .map(String::from)
        .collect::<Vec<_>>()
        .join("\\u200b");
    let content = format!(
        r#"{{"findings": [{{"summary": "The header carried {escaped} today", "importance": 7}}], "reinforce": [], "escalate": false}}"#
    );
    let mut tick = Tick::new()
        .state(SEED)
        .local(&format!("api_key_env = \"{KEY_VAR}\""))
        .env(KEY_VAR, KEY)
        .respond(
            Watcher,
            ResponseTemplate::new(200).set_body_json(chat(
                "watcher",
                &content,
                &json!({"prompt_tokens": 100, "completion_tokens": 10}),
            )),
        );
    let out = tick.run();
    out.expect_exit(0);
    assert_eq!(out.thread(Watcher)["status"], "answered");
    let files = snapshot(&out.dir).unwrap();
    for (name, bytes) in files {
        let text = String::from_utf8_lossy(&bytes);
        assert_no_key(&text, &name);
        // What a reader of the file sees once the JSON is read and cleaned.
        assert_no_key(
            &thinker::untrusted::clean(&text.replace("\\u200b", "")),
            &name,
        );
    }
    assert!(out.state().to_string().contains("[redacted]"));
}

#[tokio::test]
async fn a_key_split_by_control_characters_is_still_scrubbed() {
    let server = MockServer::start().await;
    let split: String = KEY
        .chars()
        .enumerate()
        .flat_map(|(i, c)| (i % 5 == 4).then_some('\u{7}').into_iter().chain([c]))
        .collect();
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(chat(
            "m",
            &format!("no JSON here, just {split}"),
            &json!({}),
        )))
        .mount(&server)
        .await;
    let (result, attempt) = chain(config(ProviderKind::Openai, &server.uri())).await;
    let error = result.unwrap_err().to_string();
    assert_no_key(&error, "error");
    assert_no_key(attempt.error.as_deref().unwrap(), "attempt");
    assert!(error.contains("[redacted]"), "{error}");
}

// ---------------------------------------------------------------------------------------
// Item 6: usage.

#[test]
fn absurd_usage_is_clamped_and_flagged_and_sums_never_wrap() {
    let absurd = ResponseTemplate::new(200).set_body_json(chat(
        "watcher",
        &found("Disk 91% full", 6).to_string(),
        &json!({"prompt_tokens": u64::MAX, "completion_tokens": u64::MAX,
                "total_tokens": u64::MAX}),
    ));
    let mut tick = Tick::new()
        .local("daily_tokens = 1000000000")
        .respond(Watcher, absurd)
        .answer(Librarian, &found("Backups and invoices share a Monday", 5));
    let out = tick.run();
    out.expect_exit(0);
    let watcher = out.thread(Watcher);
    let attempt = &watcher["attempts"][0];
    assert_eq!(attempt["usage_clamped"], true, "{attempt}");
    let (tokens_in, tokens_out) = (
        attempt["tokens_in"].as_u64().unwrap(),
        attempt["tokens_out"].as_u64().unwrap(),
    );
    // Bounded by what was sent (+2048) and max_tokens (default 1024, +256).
    assert!(tokens_in > 2048 && tokens_in < 200_000, "{attempt}");
    assert_eq!(tokens_out, 1024 + 256);
    assert!(attempt["cost"].as_f64().unwrap().is_finite());
    let line = &out.journal()[0];
    // Three threads answered 100 + 10 each; the total is their sum and the bound.
    assert_eq!(
        line["tokens_in"].as_u64().unwrap(),
        tokens_in + 300,
        "{line}"
    );
    assert_eq!(
        line["tokens_out"].as_u64().unwrap(),
        tokens_out + 30,
        "{line}"
    );
    let ledger: Value =
        serde_json::from_slice(&std::fs::read(out.dir.join("ledger.json")).unwrap()).unwrap();
    let spent = ledger.to_string();
    assert!(
        spent.contains(&(tokens_in + tokens_out + 330).to_string()),
        "the ledger counts the bound: {spent}"
    );
}

#[tokio::test]
async fn odd_usage_fields_never_reject_a_valid_answer() {
    // (usage, tokens_in, tokens_out, estimated)
    let cases = [
        (
            json!({"prompt_tokens": "1200", "completion_tokens": 79.6}),
            1200,
            80,
            false,
        ),
        (
            json!({"prompt_tokens": 1.2e3, "completion_tokens": " 80 "}),
            1200,
            80,
            false,
        ),
        (
            json!({"prompt_tokens": -5, "completion_tokens": 80}),
            8,
            80,
            true,
        ),
        (
            json!({"prompt_tokens": "lots", "completion_tokens": null}),
            8,
            300,
            true,
        ),
        (json!("unknown"), 8, 300, true),
    ];
    for (usage, tokens_in, tokens_out, estimated) in cases {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(chat("m", GOOD, &usage)))
            .mount(&server)
            .await;
        let (result, attempt) = chain(config(ProviderKind::Openai, &server.uri())).await;
        let c = result.unwrap_or_else(|e| panic!("{usage}: {e}"));
        // The prompt's estimate is its bytes / 4 (33 / 4 = 8); the output's, max_tokens.
        assert_eq!(
            (c.tokens_in, c.tokens_out),
            (tokens_in, tokens_out),
            "{usage}"
        );
        assert_eq!(attempt.usage_estimated, estimated, "{usage}");
        assert!(!attempt.usage_clamped, "{usage}");
    }
}

#[tokio::test]
async fn odd_usage_is_read_tolerantly_in_every_wire_format() {
    let anthropic = json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
        "content": [{"type": "text", "text": GOOD}], "stop_reason": "end_turn",
        "usage": {"input_tokens": "100", "cache_read_input_tokens": 50.4, "output_tokens": -1}
    });
    let ollama = json!({
        "model": "m", "message": {"role": "assistant", "content": GOOD},
        "done": true, "done_reason": "stop", "prompt_eval_count": 1.2e3, "eval_count": "80"
    });
    for (kind, body, tokens) in [
        (ProviderKind::Anthropic, anthropic, (150, 300)),
        (ProviderKind::Ollama, ollama, (1200, 80)),
    ] {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(body))
            .mount(&server)
            .await;
        let (result, _) = chain(config(kind, &server.uri())).await;
        let c = result.unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        assert_eq!((c.tokens_in, c.tokens_out), tokens, "{kind:?}");
    }
}

#[tokio::test]
async fn a_cost_that_is_not_a_number_counts_zero_and_is_flagged() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(chat(
            "m",
            GOOD,
            &json!({"prompt_tokens": 1200, "completion_tokens": 80}),
        )))
        .mount(&server)
        .await;
    let mut c = config(ProviderKind::Openai, &server.uri());
    c.price_in = 1e308;
    let (result, attempt) = chain(c).await;
    assert!(result.unwrap().cost.abs() < f64::EPSILON);
    assert!(attempt.usage_clamped && attempt.cost == 0.0, "{attempt:?}");
}

#[test]
fn ok_answers_still_count_their_reported_usage() {
    // The harness's own answers (100 in, 10 out) are neither clamped nor estimated.
    let mut tick = Tick::new().respond(Watcher, ok(Watcher, &found("Disk 91% full", 6)));
    let out = tick.run();
    out.expect_exit(0);
    let attempt = &out.thread(Watcher)["attempts"][0];
    assert_eq!(
        (
            attempt["tokens_in"].as_u64(),
            attempt["tokens_out"].as_u64()
        ),
        (Some(100), Some(10))
    );
    assert!(attempt.get("usage_clamped").is_none() && attempt.get("usage_estimated").is_none());
}
