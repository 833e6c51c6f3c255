//! The built-in webhook notifier (`[escalation.webhook]`) against a loopback receiver
//! this file runs ([`Receiver`], plain HTTP or TLS with a local CA made by rcgen): the
//! body each format posts and where, the token in its header only, a 500 tried again on
//! the next tick and delivered exactly once, TLS trusted through `ca_file` and refused
//! without it, and `thinker notify --test` saying plainly whether its message went out.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::PermissionsExt;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use thinker::thread::ThreadName::Watcher;

use crate::escalation_tick::{Primary, decision, escalating, history};
use crate::support::{Sequence, Tick, nothing, ok};

/// One request the receiver got.
#[derive(Clone, Debug)]
pub(crate) struct Received {
    pub(crate) path: String,
    /// The header lines, lowercased names (`authorization: Bearer …`).
    pub(crate) headers: Vec<String>,
    pub(crate) body: Vec<u8>,
}

impl Received {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    pub(crate) fn header(&self, name: &str) -> Option<String> {
        let prefix = format!("{}:", name.to_ascii_lowercase());
        self.headers
            .iter()
            .find(|h| h.to_ascii_lowercase().starts_with(&prefix))
            .map(|h| h[prefix.len()..].trim().to_string())
    }
}

/// A loopback HTTP(S) server that records every request and answers the n-th with
/// `statuses[n]` (the last one for the rest).
pub(crate) struct Receiver {
    pub(crate) port: u16,
    got: Arc<Mutex<Vec<Received>>>,
}

impl Receiver {
    pub(crate) fn start(statuses: Vec<u16>, tls: Option<Arc<rustls::ServerConfig>>) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let got: Arc<Mutex<Vec<Received>>> = Arc::default();
        let seen = Arc::clone(&got);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (seen, statuses, tls) = (Arc::clone(&seen), statuses.clone(), tls.clone());
                std::thread::spawn(move || {
                    let Some(config) = tls else {
                        let mut s: TcpStream = stream;
                        serve(&mut s, &seen, &statuses);
                        return;
                    };
                    let Ok(conn) = rustls::ServerConnection::new(config) else {
                        return;
                    };
                    let mut s = rustls::StreamOwned::new(conn, stream);
                    serve(&mut s, &seen, &statuses);
                    s.conn.send_close_notify();
                    let _ = s.flush();
                });
            }
        });
        Receiver { port, got }
    }

    pub(crate) fn received(&self) -> Vec<Received> {
        self.got.lock().unwrap().clone()
    }
}

/// Reads one request (head, then the body its Content-Length announces), records it,
/// answers with its status.
fn serve(s: &mut (impl Read + Write), seen: &Mutex<Vec<Received>>, statuses: &[u16]) {
    let mut data = Vec::new();
    let mut buf = [0u8; 8192];
    let (head, body) = loop {
        let Ok(n) = s.read(&mut buf) else { return };
        if n == 0 {
            return;
        }
        data.extend_from_slice(&buf[..n]);
        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&data[..end]).to_string();
            let length = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                })
                .unwrap_or(0);
            if data.len() >= end + 4 + length {
                break (head, data[end + 4..end + 4 + length].to_vec());
            }
        }
    };
    let mut lines = head.lines();
    let path = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap_or_default()
        .to_string();
    let status = {
        let mut seen = seen.lock().unwrap();
        let status = statuses
            .get(seen.len())
            .or(statuses.last())
            .copied()
            .unwrap_or(200);
        seen.push(Received {
            path,
            headers: lines.map(str::to_string).collect(),
            body,
        });
        status
    };
    let answer = if status == 200 {
        "{\"id\":\"ok\"}"
    } else {
        "upstream exploded"
    };
    let _ = write!(
        s,
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{answer}",
        answer.len()
    );
    let _ = s.flush();
}

/// A local CA (as `mkcert` makes one), and a server config for `localhost` signed by it.
pub(crate) fn local_tls() -> (Arc<rustls::ServerConfig>, String) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(rcgen::DnType::CommonName, "thinker webhook test CA");
    let ca = rcgen::CertifiedIssuer::self_signed(ca, rcgen::KeyPair::generate().unwrap()).unwrap();
    let leaf_key = rcgen::KeyPair::generate().unwrap();
    let leaf = rcgen::CertificateParams::new(vec!["localhost".into()])
        .unwrap()
        .signed_by(&leaf_key, &ca)
        .unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(leaf_key.serialize_der().into());
    let config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(vec![leaf.der().clone()], key)
        .unwrap();
    (Arc::new(config), ca.pem())
}

/// A tick whose watcher escalates once, the primary deciding to notify `text`, with the
/// webhook table `webhook` (and `extra` lines in `[escalation]`).
fn notifying(text: &str, webhook: &str, extra: &str) -> (Tick, Primary) {
    let primary = Primary::anthropic(&[decision("notify", text, "backups fail")]);
    let tick = Tick::new()
        .env("PRIMARY_KEY", "sk-ant-test-0123456789")
        .env("NTFY_TOKEN", "tk_secret_0123456789")
        .respond(
            Watcher,
            Sequence::new(vec![
                ok(Watcher, &escalating("NAS disk almost full")),
                ok(Watcher, &nothing()),
            ]),
        );
    let config = primary.config_with("", &format!("{extra}\n{webhook}"));
    (tick.config_extra(&config), primary)
}

/// ntfy's JSON publishing, the token in its header only; the server answers 500 once:
/// nothing went out, so the next tick sends it again, and it is delivered exactly once.
#[test]
fn a_webhook_500_is_tried_again_on_the_next_tick_and_delivered_exactly_once() {
    let receiver = Receiver::start(vec![500, 200], None);
    let webhook = format!(
        "[escalation.webhook]\nformat = \"ntfy\"\nurl = \"http://127.0.0.1:{}/nas-alerts\"\ntoken_env = \"NTFY_TOKEN\"\n",
        receiver.port
    );
    let (mut tick, primary) = notifying("The NAS is 97% full.", &webhook, "");
    // The failed try: owed, said nowhere but the state and the journal; exit 0.
    let first = tick.run();
    first.expect_exit(0);
    assert_eq!(first.stderr, "", "a try left to make is not an alarm");
    let record = &history(&first.state())[0];
    assert_eq!(record["delivery"], "owed", "{record}");
    let outcome = record["outcome"].as_str().unwrap();
    assert!(
        outcome.contains("answered HTTP 500") && outcome.contains("try 1 of 4"),
        "{outcome}"
    );
    assert!(
        !outcome.contains("nas-alerts"),
        "no path in errors: {outcome}"
    );
    // The next tick sends it again: delivered.
    tick.set_now("2026-11-22T10:10:00Z");
    let second = tick.run();
    second.expect_exit(0);
    assert_eq!(second.stderr, "");
    let record = &history(&second.state())[0];
    assert_eq!(record["outcome"], "notified: The NAS is 97% full.");
    assert!(record.get("delivery").is_none(), "settled: {record}");
    // Later ticks send nothing more, and the primary was called once.
    for now in ["2026-11-22T10:15:00Z", "2026-11-22T10:20:00Z"] {
        tick.set_now(now);
        tick.run().expect_exit(0);
    }
    let got = receiver.received();
    assert_eq!(got.len(), 2, "one failed try, one delivery: {got:?}");
    assert_eq!(primary.requests().len(), 1);
    for r in &got {
        assert_eq!(r.path, "/", "ntfy's JSON goes to the server's root");
        assert_eq!(
            r.json(),
            json!({"topic": "nas-alerts", "title": "thinker", "message": "thinker (watcher): The NAS is 97% full."})
        );
        assert_eq!(
            r.header("authorization").as_deref(),
            Some("Bearer tk_secret_0123456789")
        );
        assert_eq!(
            r.header("content-type").as_deref(),
            Some("application/json")
        );
    }
    // The token is in no file of the state directory.
    for entry in std::fs::read_dir(tick.dir()).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        assert!(!text.contains("tk_secret"), "{}", entry.path().display());
    }
}

/// An HTTPS receiver with a certificate of a local CA: trusted through `ca_file`, refused
/// without it (a certificate error, which did not deliver: tried again).
#[test]
fn a_webhook_over_tls_is_trusted_through_its_ca_file() {
    let (tls, pem) = local_tls();
    let receiver = Receiver::start(vec![200], Some(tls));
    let url = format!("https://localhost:{}/hook", receiver.port);
    for (ca, delivered) in [(true, true), (false, false)] {
        let webhook = format!(
            "[escalation.webhook]\nformat = \"json\"\nurl = \"{url}\"\n{}",
            if ca {
                "ca_file = \"local-ca.pem\"\n"
            } else {
                ""
            }
        );
        let (mut tick, _primary) = notifying("The NAS is 97% full.", &webhook, "");
        std::fs::write(tick.home().join("local-ca.pem"), &pem).unwrap();
        let before = receiver.received().len();
        let state = tick.run().expect_exit(0).state();
        let record = &history(&state)[0];
        let outcome = record["outcome"].as_str().unwrap().to_string();
        if delivered {
            assert_eq!(outcome, "notified: The NAS is 97% full.");
            let got = receiver.received();
            assert_eq!(got.len(), before + 1);
            let last = got.last().unwrap();
            assert_eq!(last.path, "/hook");
            assert_eq!(
                last.json(),
                json!({"title": "thinker", "message": "thinker (watcher): The NAS is 97% full."})
            );
        } else {
            assert!(
                outcome.contains("certificate") && outcome.contains("try 1 of 4"),
                "{outcome}"
            );
            assert_eq!(record["delivery"], "owed");
            assert_eq!(receiver.received().len(), before, "nothing reached it");
        }
    }
}

/// A config of only a webhook (or a command), for `thinker notify --test`.
fn test_only(notifier: &str) -> Tick {
    Tick::new()
        .env("GOTIFY_TOKEN", "gotify-app-token-1")
        .config_extra(&format!("[escalation]\n{notifier}\n"))
}

/// `thinker notify --test` through the webhook: Gotify's shape, its header; Slack's.
#[test]
fn notify_test_posts_each_format_and_says_it_went_out() {
    let receiver = Receiver::start(vec![200], None);
    let gotify = format!(
        "[escalation.webhook]\nformat = \"gotify\"\nurl = \"http://127.0.0.1:{}\"\ntoken_env = \"GOTIFY_TOKEN\"\ntitle = \"home server\"\n",
        receiver.port
    );
    let out = test_only(&gotify)
        .expect_exit(0)
        .thinker(&["notify", "--test"]);
    assert!(
        out.stdout.starts_with(&format!(
            "SENT: the test message went out through the gotify webhook at http://127.0.0.1:{} (HTTP 200).",
            receiver.port
        )),
        "{}",
        out.stdout
    );
    let got = receiver.received();
    assert_eq!(got[0].path, "/message");
    assert_eq!(
        got[0].header("x-gotify-key").as_deref(),
        Some("gotify-app-token-1")
    );
    assert!(got[0].header("authorization").is_none());
    let body = got[0].json();
    assert_eq!(
        (&body["title"], &body["priority"]),
        (&json!("home server"), &json!(8))
    );
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("thinker: a test message ("),
        "{body}"
    );
    let slack = format!(
        "[escalation.webhook]\nformat = \"slack\"\nurl = \"http://127.0.0.1:{}/services/T0/B0/SECRETPATH\"\n",
        receiver.port
    );
    let out = test_only(&slack)
        .expect_exit(0)
        .thinker(&["notify", "--test"]);
    assert!(!out.stdout.contains("SECRETPATH"), "{}", out.stdout);
    let got = receiver.received();
    assert_eq!(got[1].path, "/services/T0/B0/SECRETPATH");
    let text = got[1].json()["text"].as_str().unwrap().to_string();
    assert!(text.starts_with("thinker: a test message"), "{text}");
}

/// `thinker notify --test` says plainly when nothing went out: the error, exit 1, and for
/// a desktop notifier without a desktop session, how to notify from a headless machine.
#[test]
fn notify_test_says_plainly_when_nothing_went_out() {
    let tick = Tick::new();
    let bin = tick.home().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("notify-send");
    std::fs::write(
        &script,
        "#!/bin/sh\necho 'Cannot autolaunch D-Bus without X11 $DISPLAY' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut tick = tick
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .config_extra(&format!(
            "[escalation]\nnotify_command = [\"{}\", \"thinker\"]\n",
            script.display()
        ))
        .expect_exit(1);
    let out = tick.thinker(&["notify", "--test"]);
    assert!(
        out.stdout
            .starts_with("NOT SENT: the test message did not go out through notifier `"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("exited with code 1: Cannot autolaunch D-Bus without X11"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("hint: this notifier needs a desktop session"),
        "{}",
        out.stdout
    );
    // No notifier at all: said, exit 1.
    let mut none = Tick::new().expect_exit(1);
    let out = none.thinker(&["notify", "--test"]);
    assert!(
        out.stdout
            .starts_with("NOT SENT: no notifier is configured"),
        "{}",
        out.stdout
    );
}
