//! What real local servers and gateways need (the "real servers" part of the hardening
//! issue), on loopback only: a provider's `concurrency` limit (requests never overlap
//! beyond it; `timeout_seconds` counts from sending; a thread that runs out of time while
//! queued or paced says so), and Anthropic structured outputs (`output_config.format`, or
//! the beta's `output_format`), whose request shape is checked against wiremock.
//!
//! The servers hold requests for fixed times so that waits happen; no test asserts on how
//! long anything took, only on order and outcomes, with wide margins.

use std::collections::BTreeMap;
use std::io::Write;
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use thinker::answer;
use thinker::config::{ModelRef, ProviderConfig, ProviderKind, StructuredOutput};
use thinker::provider::{CallRequest, Providers};
use thinker::thread::ThreadName::{self, Dreamer, Librarian, Oracle, Watcher};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::{Tick, completion, found, read_model};

// ---------------------------------------------------------------------------------------
// A loopback HTTP/1.1 server that logs each request's arrival and answer, holding each
// for as long as `hold` says for its model.

#[derive(Clone, Debug, PartialEq)]
enum Event {
    Arrived(String),
    Answered(String),
}

type Events = Arc<Mutex<Vec<Event>>>;

fn logging_server(hold: fn(&str) -> Duration) -> (String, Events) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let events: Events = Arc::default();
    let log = Arc::clone(&events);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let log = Arc::clone(&log);
            std::thread::spawn(move || answer_after(stream, &log, hold));
        }
    });
    (url, events)
}

fn answer_after(stream: std::net::TcpStream, log: &Mutex<Vec<Event>>, hold: fn(&str) -> Duration) {
    let Some(model) = read_model(&stream) else {
        return;
    };
    log.lock().unwrap().push(Event::Arrived(model.clone()));
    std::thread::sleep(hold(&model));
    log.lock().unwrap().push(Event::Answered(model.clone()));
    let body = completion(
        &model,
        &found(&format!("{model} was answered in turn"), 4),
        100,
        10,
    )
    .to_string();
    let mut stream = stream;
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

fn events(log: &Events) -> Vec<Event> {
    log.lock().unwrap().clone()
}

// ---------------------------------------------------------------------------------------
// concurrency

#[test]
fn with_concurrency_one_requests_never_overlap() {
    let (url, log) = logging_server(|_| Duration::from_millis(300));
    let mut tick = Tick::new().base_url(&url).local("concurrency = 1");
    let out = tick.run();
    out.expect_exit(0);
    let events = events(&log);
    assert_eq!(events.len(), 8, "{events:?}");
    for pair in events.chunks(2) {
        match pair {
            [Event::Arrived(a), Event::Answered(b)] if a == b => {}
            _ => panic!("a request arrived while another was in flight: {events:?}"),
        }
    }
    assert_eq!(out.state()["tick_count"], 1);
}

#[test]
fn concurrency_two_lets_two_in_at_a_time() {
    let (url, log) = logging_server(|_| Duration::from_millis(500));
    let mut tick = Tick::new().base_url(&url).local("concurrency = 2");
    tick.run().expect_exit(0);
    let events = events(&log);
    let mut in_flight = 0i32;
    let mut most = 0;
    for e in &events {
        in_flight += if matches!(e, Event::Arrived(_)) {
            1
        } else {
            -1
        };
        most = most.max(in_flight);
    }
    assert_eq!(most, 2, "{events:?}");
}

#[test]
fn the_provider_timeout_counts_from_sending_not_from_queueing() {
    // One at a time, 1.2 s each: the fourth request waits ~3.6 s for its turn, longer than
    // the provider's 3 s timeout, yet its own exchange takes 1.2 s, so all four land.
    let (url, log) = logging_server(|_| Duration::from_millis(1200));
    let mut tick = Tick::new()
        .base_url(&url)
        .local("concurrency = 1")
        .local("timeout_seconds = 3");
    let out = tick.run();
    out.expect_exit(0);
    for thread in ThreadName::ALL {
        assert_eq!(out.thread(thread)["status"], "answered", "{thread}");
    }
    assert_eq!(events(&log).len(), 8);
}

#[test]
fn a_thread_out_of_time_in_the_queue_says_it_waited_for_a_slot() {
    // The Watcher takes the only slot at once and holds it 6 s; the Librarian first
    // gathers a source for 1 s, so it queues behind, and its 3 s run out in the queue.
    let (url, _log) = logging_server(|model| {
        if model == "watcher" {
            Duration::from_secs(6)
        } else {
            Duration::ZERO
        }
    });
    let mut tick = Tick::new()
        .base_url(&url)
        .local("concurrency = 1")
        .thread(
            Librarian,
            "timeout_seconds = 3\n[[threads.librarian.sources]]\nkind = \"command\"\ncommand = [\"sleep\", \"1\"]",
        );
    let out = tick.run();
    out.expect_exit(3);
    assert_eq!(out.thread(Watcher)["status"], "answered");
    let librarian = out.thread(Librarian);
    assert_eq!(librarian["status"], "failed");
    let error = librarian["error"].as_str().unwrap();
    assert!(
        error.contains("timed out after 3.0 s")
            && error.contains("s for a free slot of provider `local` (concurrency 1)"),
        "{error}"
    );
    assert!(out.stderr.contains("free slot"), "{}", out.stderr);
    for thread in [Oracle, Dreamer] {
        assert_eq!(out.thread(thread)["status"], "answered", "{thread}");
    }
}

#[test]
fn a_thread_out_of_time_in_pacing_says_it_waited_for_requests_per_minute() {
    // One request a minute: whichever of the two threads is second waits for pacing
    // until its 2 s are up. Which one that is does not matter.
    let (url, _log) = logging_server(|_| Duration::ZERO);
    let mut tick = Tick::new()
        .base_url(&url)
        // Two slots, so the wait is pacing alone, whichever thread comes second.
        .provider("paced", "requests_per_minute = 1\nconcurrency = 2")
        .model(Watcher, "paced/watcher")
        .model(Librarian, "paced/librarian")
        .thread(Watcher, "timeout_seconds = 2")
        .thread(Librarian, "timeout_seconds = 2");
    let out = tick.run();
    out.expect_exit(3);
    let (w, l) = (out.thread(Watcher), out.thread(Librarian));
    let failed: Vec<&Value> = [&w, &l]
        .into_iter()
        .filter(|t| t["status"] == "failed")
        .collect();
    assert_eq!(failed.len(), 1, "{w}\n{l}");
    let error = failed[0]["error"].as_str().unwrap();
    assert!(
        error.contains("timed out after 2.0 s")
            && error.contains("for requests_per_minute pacing of provider `paced` (1 a minute)"),
        "{error}"
    );
}

// ---------------------------------------------------------------------------------------
// Anthropic structured outputs

fn anthropic(base_url: &str, structured_output: StructuredOutput) -> Providers {
    let config = ProviderConfig {
        structured_output,
        price_in: 3.0,
        price_out: 15.0,
        ..crate::support::provider("a", ProviderKind::Anthropic, base_url)
    };
    Providers::new(BTreeMap::from([("a".to_string(), config)])).unwrap()
}

fn watcher_request() -> CallRequest {
    CallRequest {
        system: String::new(),
        prompt: "What changed since the last tick?".into(),
        schema: answer::schema(Watcher),
        schema_name: "thread_answer".into(),
        max_tokens: 300,
        temperature: 0.4,
        sequence: 1,
    }
}

const ANSWER: &str = r#"{"findings":[{"summary":"Disk 91% full on /home","importance":7,"kind":"anomaly"}],"reinforce":[],"suggest":"","escalate":false}"#;

/// Asks for the Watcher's answer in `mode`; returns the request the server got and what
/// was read from the text block it answered with.
async fn structured(mode: StructuredOutput) -> (wiremock::Request, String) {
    structured_with(mode, &watcher_request()).await
}

/// The request `req` makes through an anthropic provider in `mode`, and the answer text.
async fn structured_with(mode: StructuredOutput, req: &CallRequest) -> (wiremock::Request, String) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/messages"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
            "content": [{"type": "text", "text": ANSWER}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 500, "output_tokens": 40}
        })))
        .mount(&server)
        .await;
    let model = ModelRef {
        provider: "a".into(),
        model: "claude-x".into(),
    };
    let completion = anthropic(&server.uri(), mode)
        .call(&model, req)
        .await
        .unwrap();
    let request = server.received_requests().await.unwrap().remove(0);
    (request, completion.text)
}

#[tokio::test]
async fn anthropic_json_schema_sends_output_config_format() {
    let (request, text) = structured(StructuredOutput::JsonSchema).await;
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    assert_eq!(
        body["output_config"],
        json!({"format": {"type": "json_schema", "schema": answer::schema(Watcher)}})
    );
    for absent in ["tools", "tool_choice", "output_format"] {
        assert!(body.get(absent).is_none(), "{absent} sent: {body}");
    }
    assert!(request.headers.get("anthropic-beta").is_none());
    assert_eq!(request.headers["anthropic-version"], "2023-06-01");
    assert_eq!(text, ANSWER);
    answer::parse(Watcher, &text).unwrap();
}

#[tokio::test]
async fn anthropic_output_format_sends_the_beta_form() {
    let (request, text) = structured(StructuredOutput::OutputFormat).await;
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    assert_eq!(
        body["output_format"],
        json!({"type": "json_schema", "schema": answer::schema(Watcher)})
    );
    for absent in ["tools", "tool_choice", "output_config"] {
        assert!(body.get(absent).is_none(), "{absent} sent: {body}");
    }
    assert_eq!(
        request.headers["anthropic-beta"],
        "structured-outputs-2025-11-13"
    );
    assert_eq!(text, ANSWER);
}

#[tokio::test]
async fn anthropic_by_default_still_forces_the_tool() {
    let (request, _) = structured(StructuredOutput::Auto).await;
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    assert_eq!(body["tool_choice"]["type"], "tool");
    assert!(body.get("output_config").is_none() && body.get("output_format").is_none());
}

/// Guards against novelty pressure raising an Anthropic thread's temperature above the
/// Messages API's 1.0 (a 400 on every tick, and a failed thread's pressure never falls).
#[tokio::test]
async fn anthropic_temperature_is_kept_within_its_range() {
    let hot = CallRequest {
        temperature: 1.2,
        ..watcher_request()
    };
    let (request, _) = structured_with(StructuredOutput::Auto, &hot).await;
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    assert_eq!(body["temperature"], 1.0);
}
