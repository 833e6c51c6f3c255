//! Provider faults mixed across the threads of one tick (issue 14), on loopback only:
//! each thread and its fallback models meet a different fault — connection refused, a
//! host that does not resolve (`.invalid`, RFC 6761), TLS spoken to a plain-HTTP port, a
//! 401 (and then the breaker), a 429 asking to wait an hour, 500s, a server that accepts
//! and never answers, a drip of one byte every 100 ms, a body of many megabytes,
//! invalid UTF-8, JSON of the wrong shape — and the tick still ends within its deadline
//! (the journal's duration, never the test's wall time), the good threads land, the
//! state is valid, and every failure is journaled in words a user understands
//! (snapshotted, ports redacted). Also the TLS trust a provider is given (`tls_roots`,
//! `ca_file`) against a local HTTPS server with a self-signed certificate.
//!
//! The DNS fault asks the system's resolver for a `.invalid` name: it is refused without
//! any server of that name being reached (the resolver here answers in ~50 ms); a slow
//! resolver is bounded by the provider's `timeout_seconds` (2 s here).
//!
//! The faults wiremock can play (status codes, odd bodies) come from one wiremock server
//! routed by the request's model; the others from the small raw servers of [`raw`]
//! (plain threads over `std::net`, so they need no runtime of their own).

use std::path::Path;

use serde_json::{Value, json};
use thinker::thread::ThreadName::{self, Dreamer, Librarian, Oracle, Watcher};
use wiremock::matchers::{body_partial_json, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::{Tick, completion, found, snapshot};

/// A tick's deadline in these tests, and how far past it the journaled duration may go
/// (writing the state and the journal after the threads are cut off).
const DEADLINE_SECONDS: u64 = 8;
const SLACK_MS: u64 = 2_000;

/// Small loopback servers for the faults wiremock cannot play: each accepts on its own
/// thread and hands every connection to a thread of its own.
mod raw {
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::time::Duration;

    /// A port nothing listens on (bound, then closed): connecting is refused.
    pub fn closed_port() -> u16 {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    }

    /// Serves every connection with `handle` after reading the request; returns the
    /// port.
    pub fn serve(handle: fn(TcpStream)) -> u16 {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                std::thread::spawn(move || {
                    let mut stream = stream;
                    read_request(&mut stream);
                    handle(stream);
                });
            }
        });
        port
    }

    /// Reads a request's head and its `Content-Length` body (or gives up quietly).
    fn read_request(stream: &mut TcpStream) {
        let mut seen = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            let Ok(n) = stream.read(&mut buf) else { return };
            if n == 0 {
                return;
            }
            seen.extend_from_slice(&buf[..n]);
            let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") else {
                continue;
            };
            let head = String::from_utf8_lossy(&seen[..end]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if seen.len() >= end + 4 + length {
                return;
            }
        }
    }

    /// Accepts, reads the request, and never answers (the connection is held open).
    pub fn silent(stream: TcpStream) {
        let _held = stream;
        loop {
            std::thread::sleep(Duration::from_mins(1));
        }
    }

    /// A 200 whose body comes one byte every 100 ms and never finishes.
    pub fn drip(mut stream: TcpStream) {
        let head =
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n";
        if stream.write_all(head.as_bytes()).is_err() {
            return;
        }
        while stream.write_all(b" ").is_ok() {
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// A 200 streaming `mb` megabytes of JSON-looking text with no `Content-Length`
    /// (chunked), so only reading can tell it passes the cap; stops when the client
    /// hangs up.
    pub fn huge(mut stream: TcpStream, mb: usize) {
        let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
        if stream.write_all(head.as_bytes()).is_err() {
            return;
        }
        let chunk = vec![b'A'; 64 << 10];
        let mut frame = format!("{:x}\r\n", chunk.len()).into_bytes();
        frame.extend_from_slice(&chunk);
        frame.extend_from_slice(b"\r\n");
        if stream.write_all(b"7\r\n{\"id\":\"\r\n").is_err() {
            return;
        }
        for _ in 0..mb * 16 {
            if stream.write_all(&frame).is_err() {
                return;
            }
        }
        let _ = stream.write_all(b"2\r\n\"}\r\n0\r\n\r\n");
    }

    pub fn huge_8mb(stream: TcpStream) {
        huge(stream, 8);
    }

    pub fn huge_50mb(stream: TcpStream) {
        huge(stream, 50);
    }
}

/// The wiremock server playing the faults it can, routed by the request's `model`.
struct Faults {
    rt: tokio::runtime::Runtime,
    server: MockServer,
}

impl Faults {
    fn start() -> Faults {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let server = rt.block_on(MockServer::start());
        let faults = Faults { rt, server };
        let invalid_utf8 = {
            let mut body = br#"{"choices":[{"message":{"role":"assistant","content":"caf"#.to_vec();
            body.extend_from_slice(&[0xC3, 0x28, 0xFF, 0xFE]);
            body.extend_from_slice(br#""},"finish_reason":"stop"}]}"#);
            body
        };
        faults.mount(
            "unauthorized",
            ResponseTemplate::new(401)
                .set_body_json(json!({"error": {"message": "Invalid API Key", "type": "auth"}})),
            Some(1),
        );
        faults.mount(
            "limited",
            ResponseTemplate::new(429)
                .insert_header("retry-after", "3600")
                .set_body_json(
                    json!({"error": {"message": "Rate limit reached, try again in 1 hour"}}),
                ),
            None,
        );
        faults.mount(
            "broken",
            ResponseTemplate::new(500).set_body_string("upstream exploded"),
            None,
        );
        faults.mount(
            "garbled",
            ResponseTemplate::new(200)
                .insert_header("content-type", "application/json")
                .set_body_bytes(invalid_utf8),
            None,
        );
        faults.mount(
            "misshapen",
            ResponseTemplate::new(200)
                .set_body_json(json!({"result": {"text": "an answer, but not where it belongs"}})),
            None,
        );
        faults
    }

    fn mount(&self, model: &str, response: ResponseTemplate, expect: Option<u64>) {
        let mut mock = Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .and(body_partial_json(json!({"model": model})))
            .respond_with(response);
        if let Some(n) = expect {
            mock = mock.expect(n);
        }
        self.rt.block_on(mock.mount(&self.server));
    }

    fn url(&self) -> String {
        format!("{}/v1", self.server.uri())
    }

    /// The port of the wiremock server (for a TLS client speaking to it).
    fn port(&self) -> u16 {
        self.server.address().port()
    }

    fn received(&self, model: &str) -> usize {
        self.rt
            .block_on(self.server.received_requests())
            .unwrap_or_default()
            .iter()
            .filter(|r| serde_json::from_slice::<Value>(&r.body).is_ok_and(|b| b["model"] == model))
            .count()
    }
}

/// A provider table at `url`: no retries (one request a model), short timeouts.
fn provider(name: &str, url: &str, extra: &str) -> String {
    format!(
        "[providers.{name}]\nkind = \"openai\"\nbase_url = \"{url}\"\nretries = 0\ntimeout_seconds = 2\nretry_max_wait_seconds = 5\n{extra}\n\n"
    )
}

/// The mixed tick: watcher and librarian land on `local` after faults, oracle and
/// dreamer meet nothing but faults.
fn mixed(faults: &Faults) -> Tick {
    let refused = format!("http://127.0.0.1:{}/v1", raw::closed_port());
    let silent = format!("http://127.0.0.1:{}/v1", raw::serve(raw::silent));
    let drip = format!("http://127.0.0.1:{}/v1", raw::serve(raw::drip));
    let huge = format!("http://127.0.0.1:{}/v1", raw::serve(raw::huge_8mb));
    let plain = format!("https://127.0.0.1:{}/v1", faults.port());
    let url = faults.url();
    let mut extra = String::new();
    extra += &provider("refused", &refused, "");
    extra += &provider("nowhere", "http://thinker-fault.invalid/v1", "");
    extra += &provider("plain", &plain, "");
    extra += &provider(
        "revoked",
        &url,
        "api_key_env = \"FAULT_KEY\"\nbreaker_failures = 1",
    );
    extra += &provider("busy", &url, "");
    extra += &provider("silent", &silent, "");
    extra += &provider("drip", &drip, "");
    extra += &provider("huge", &huge, "");
    extra += &provider("odd", &url, "");
    Tick::new()
        .tick_table(&format!(
            "deadline_seconds = {DEADLINE_SECONDS}\nthread_timeout_seconds = 7\nskip_unchanged = false"
        ))
        .env("FAULT_KEY", "sk-fault-0123456789abcdef")
        .config_extra(&extra)
        .answer(Watcher, &found("The ACME invoice is still unpaid", 6))
        .answer(Librarian, &found("The backup job failed again", 5))
        .model(Watcher, "refused/m")
        .thread(Watcher, r#"fallback = ["nowhere/m", "plain/m", "local/watcher"]"#)
        .model(Librarian, "revoked/unauthorized")
        .thread(Librarian, r#"fallback = ["busy/limited", "local/librarian"]"#)
        .model(Oracle, "busy/broken")
        .thread(Oracle, r#"fallback = ["silent/m", "odd/garbled"]"#)
        .model(Dreamer, "drip/m")
        .thread(Dreamer, r#"fallback = ["huge/m", "odd/misshapen"]"#)
}

/// Every attempt's error of the last journal line, by thread, ports and the OS's error
/// numbers redacted.
fn errors(journal: &[Value]) -> Value {
    let last = journal.last().unwrap();
    let mut out = serde_json::Map::new();
    for t in last["threads"].as_array().unwrap() {
        let attempts: Vec<Value> = t["attempts"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| {
                let error = a["error"].as_str().map_or_else(
                    || {
                        if a["skipped"] == true {
                            "(skipped)".into()
                        } else {
                            "(answered)".into()
                        }
                    },
                    redact_ports,
                );
                Value::String(if a["error"].is_string() {
                    error
                } else {
                    format!("{}: {error}", a["model"].as_str().unwrap())
                })
            })
            .collect();
        let mut record = serde_json::Map::new();
        record.insert("status".into(), t["status"].clone());
        if let Some(e) = t["error"].as_str() {
            record.insert("error".into(), Value::String(redact_ports(e)));
        }
        record.insert("attempts".into(), Value::Array(attempts));
        out.insert(
            t["thread"].as_str().unwrap().to_string(),
            Value::Object(record),
        );
    }
    Value::Object(out)
}

fn redact_ports(text: &str) -> String {
    let ports = regex::Regex::new(r"127\.0\.0\.1:\d+").unwrap();
    let errno = regex::Regex::new(r" \(os error \d+\)").unwrap();
    let text = ports.replace_all(text, "127.0.0.1:PORT");
    errno.replace_all(&text, "").into_owned()
}

fn thread(journal: &[Value], name: ThreadName) -> &Value {
    journal.last().unwrap()["threads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["thread"] == name.as_str())
        .unwrap()
}

/// What every mixed tick must show: within the deadline, a valid state holding the good
/// threads' findings, the failed threads journaled as failed.
#[track_caller]
fn check(state_dir: &Path, journal: &[Value], state: &Value) {
    let last = journal.last().unwrap();
    let took = last["duration_ms"].as_u64().unwrap();
    assert!(
        took <= DEADLINE_SECONDS * 1000 + SLACK_MS,
        "the tick took {took} ms, past its {DEADLINE_SECONDS} s deadline"
    );
    let text = std::fs::read_to_string(state_dir.join("subconscious.json")).unwrap();
    thinker::state::State::from_json(&text).expect("the state is valid");
    let summaries: Vec<&str> = ["active_threads", "patterns", "hunches", "insights"]
        .iter()
        .flat_map(|c| state[c].as_array().unwrap())
        .filter_map(|e| e["summary"].as_str())
        .collect();
    for want in [
        "The ACME invoice is still unpaid",
        "The backup job failed again",
    ] {
        assert!(
            summaries.iter().any(|s| s.contains(want)),
            "{want:?} should be in the state: {summaries:?}"
        );
    }
    for (name, status) in [
        (Watcher, "answered"),
        (Librarian, "answered"),
        (Oracle, "failed"),
        (Dreamer, "failed"),
    ] {
        assert_eq!(thread(journal, name)["status"], status, "{name}");
    }
}

#[test]
fn a_tick_whose_threads_meet_every_fault_ends_in_time_and_keeps_the_good_ones() {
    let faults = Faults::start();
    let mut tick = mixed(&faults).expect_exit(3);
    let outcome = tick.run();
    let journal = outcome.journal();
    check(tick.dir(), &journal, &outcome.state());
    insta::assert_json_snapshot!("mixed_faults_errors", errors(&journal));
    // The huge body was never written anywhere.
    let files = snapshot(tick.dir()).unwrap();
    for (name, bytes) in &files {
        assert!(
            bytes.len() < 1 << 20,
            "{name} holds {} bytes: the body got in",
            bytes.len()
        );
        assert!(
            !bytes.windows(64).any(|w| w.iter().all(|b| *b == b'A')),
            "{name}"
        );
    }
    let key = "sk-fault-0123456789abcdef";
    for (name, bytes) in &files {
        assert!(
            !String::from_utf8_lossy(bytes).contains(key),
            "the key is in {name}"
        );
    }

    // The next tick: the refused key is not called again (breaker_failures = 1), and
    // the rest behaves the same.
    let outcome = tick.run();
    let journal = outcome.journal();
    check(tick.dir(), &journal, &outcome.state());
    let librarian = thread(&journal, Librarian);
    assert_eq!(librarian["attempts"][0]["skipped"], true, "{librarian}");
    assert!(
        librarian["attempts"][0]["error"]
            .as_str()
            .unwrap()
            .contains("breaker"),
        "{librarian}"
    );
    assert_eq!(
        faults.received("unauthorized"),
        1,
        "the revoked key was called again"
    );
    assert!(faults.received("limited") >= 2);
}

#[test]
fn a_50_mb_body_is_cut_at_the_cap_and_never_kept() {
    let huge = format!("http://127.0.0.1:{}/v1", raw::serve(raw::huge_50mb));
    let mut tick = Tick::new()
        .tick_table(&format!(
            "deadline_seconds = {DEADLINE_SECONDS}\nthread_timeout_seconds = 7\nskip_unchanged = false"
        ))
        .config_extra(&provider("huge", &huge, "max_response_bytes = 1048576"))
        .answer(Watcher, &found("The ACME invoice is still unpaid", 6))
        .model(Librarian, "huge/m")
        .expect_exit(3);
    let outcome = tick.run();
    let journal = outcome.journal();
    let error = thread(&journal, Librarian)["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        error.contains("passed max_response_bytes (1048576)"),
        "{error}"
    );
    assert_eq!(thread(&journal, Watcher)["status"], "answered");
    for (name, bytes) in snapshot(tick.dir()).unwrap() {
        assert!(
            !bytes.windows(64).any(|w| w.iter().all(|b| *b == b'A')),
            "part of the body is in {name}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// TLS trust: a local HTTPS server with a self-signed certificate.

/// A loopback HTTPS server (a certificate for `localhost` and 127.0.0.1 from a local CA)
/// answering every request with a completion of `answer`; returns its port and the
/// certificate's PEM.
fn https_server(answer: &Value) -> (u16, String) {
    use std::io::{Read, Write};
    use std::sync::Arc;

    let _ = rustls::crypto::ring::default_provider().install_default();
    // A local CA (as `mkcert` makes one) and the server's certificate signed by it.
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(rcgen::DnType::CommonName, "thinker test CA");
    let ca = rcgen::CertifiedIssuer::self_signed(ca, rcgen::KeyPair::generate().unwrap()).unwrap();
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let leaf = rcgen::CertificateParams::new(vec!["localhost".into(), "127.0.0.1".into()])
        .unwrap()
        .signed_by(&leaf_key, &ca)
        .unwrap();
    let pem = ca.pem();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(leaf_key.serialize_der().into());
    let config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(vec![leaf.der().clone()], key)
        .unwrap();
    let config = Arc::new(config);
    let body = completion("m", answer, 100, 10).to_string();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (config, body) = (config.clone(), body.clone());
            std::thread::spawn(move || {
                let Ok(conn) = rustls::ServerConnection::new(config) else {
                    return;
                };
                let mut tls = rustls::StreamOwned::new(conn, stream);
                let mut seen = Vec::new();
                let mut buf = [0u8; 8192];
                // The head, then the body its Content-Length announces.
                loop {
                    let Ok(n) = tls.read(&mut buf) else { return };
                    if n == 0 {
                        return;
                    }
                    seen.extend_from_slice(&buf[..n]);
                    if let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&seen[..end]).to_ascii_lowercase();
                        let length = head
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length:"))
                            .and_then(|v| v.trim().parse::<usize>().ok())
                            .unwrap_or(0);
                        if seen.len() >= end + 4 + length {
                            break;
                        }
                    }
                }
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = tls.write_all(response.as_bytes());
                let _ = tls.flush();
                tls.conn.send_close_notify();
                let _ = tls.flush();
            });
        }
    });
    (port, pem)
}

/// A tick whose librarian asks the HTTPS server through a provider with `extra` lines.
fn https_tick(port: u16, pem: &str, extra: &str) -> Tick {
    let tick = Tick::new();
    std::fs::write(tick.home().join("local-ca.pem"), pem).unwrap();
    let url = format!("https://localhost:{port}/v1");
    tick.config_extra(&provider("secure", &url, extra))
        .model(Librarian, "secure/m")
}

#[test]
fn a_self_signed_server_is_trusted_only_through_ca_file() {
    let (port, pem) = https_server(&found("Spoken over TLS to a self-signed server", 5));
    let ca = "ca_file = \"local-ca.pem\"";
    for extra in [ca.to_string(), format!("{ca}\ntls_roots = \"system\"")] {
        let mut tick = https_tick(port, &pem, &extra).expect_exit(0);
        let outcome = tick.run();
        let journal = outcome.journal();
        assert_eq!(
            thread(&journal, Librarian)["status"],
            "answered",
            "{extra}: {}",
            thread(&journal, Librarian)
        );
        let state = outcome.state().to_string();
        assert!(state.contains("Spoken over TLS"), "{extra}");
    }
    // Without ca_file, neither the bundle nor the system trusts it: the error says it is
    // the certificate.
    for extra in ["", "tls_roots = \"system\""] {
        let mut tick = https_tick(port, &pem, extra).expect_exit(3);
        let outcome = tick.run();
        let journal = outcome.journal();
        let librarian = thread(&journal, Librarian);
        assert_eq!(librarian["status"], "failed", "{extra}");
        let error = librarian["error"].as_str().unwrap().to_lowercase();
        assert!(error.contains("certificate"), "{extra}: {error}");
    }
}
