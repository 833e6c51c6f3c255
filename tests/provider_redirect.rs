//! A provider that answers with a redirect (SPEC §9: what leaves the machine goes only
//! where the config says): no HTTP client of thinker follows one, so the key and the
//! prompt never reach the address it names. The call fails with an error that names the
//! redirect, is not retried, and the ledger counts what the configured address received.
//! Through the library for each wire format, and through the binary for a thread's model
//! and the embeddings endpoint. Loopback only.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;
use thinker::answer;
use thinker::config::{ModelRef, ProviderConfig, ProviderKind};
use thinker::provider::{CallError, CallRequest, NoGate, Providers};
use thinker::thread::ThreadName::Watcher;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::{SEED, Tick};

const KEY_VAR: &str = "THINKER_REDIRECT_KEY";
const KEY: &str = "sk-redirect-7Qx9vK93pAbCdEf";
const PROMPT: &str = "Biopsy from Dr Weber positive for melanoma stage II";

/// A server that answers every request with `status` pointing at `to`, and another
/// that answers everything (and records it): the address a redirect would lead to.
fn servers(rt: &tokio::runtime::Runtime, status: u16, path: &str) -> (MockServer, MockServer) {
    let elsewhere = rt.block_on(MockServer::start());
    rt.block_on(
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_string("{}"))
            .mount(&elsewhere),
    );
    let first = rt.block_on(MockServer::start());
    let location = format!("{}{path}", elsewhere.uri());
    rt.block_on(
        Mock::given(method("POST"))
            .respond_with(
                ResponseTemplate::new(status).insert_header("Location", location.as_str()),
            )
            .mount(&first),
    );
    (first, elsewhere)
}

fn received(rt: &tokio::runtime::Runtime, server: &MockServer) -> Vec<wiremock::Request> {
    rt.block_on(server.received_requests()).unwrap_or_default()
}

/// Table: every wire format, 301/302/307/308: the call fails naming the redirect and
/// where it pointed, is not retried (though retries are allowed), the other address
/// gets nothing, and the attempt's egress counts the body the first address received.
#[test]
fn no_wire_format_follows_a_redirect_with_the_key_and_the_prompt() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for (kind, suffix, path) in [
        (ProviderKind::Openai, "/v1", "/v1/chat/completions"),
        (ProviderKind::Anthropic, "", "/v1/messages"),
        (ProviderKind::Ollama, "", "/api/chat"),
    ] {
        for status in [301, 302, 307, 308] {
            let (first, elsewhere) = servers(&rt, status, path);
            let config = ProviderConfig {
                api_key_env: Some(KEY_VAR.into()),
                retries: 2,
                timeout: Duration::from_secs(30),
                ..crate::support::provider("p", kind, &format!("{}{suffix}", first.uri()))
            };
            let providers = Providers::new(BTreeMap::from([("p".to_string(), config)]))
                .unwrap()
                .with_env(|var| (var == KEY_VAR).then(|| KEY.to_string()));
            let request = CallRequest {
                system: String::new(),
                prompt: PROMPT.into(),
                schema: answer::schema(Watcher),
                schema_name: "thread_answer".into(),
                max_tokens: 100,
                temperature: 0.5,
                sequence: 1,
            };
            let model = ModelRef {
                provider: "p".into(),
                model: "m".into(),
            };
            let mut out = rt.block_on(providers.call_chain(
                std::slice::from_ref(&model),
                &request,
                &NoGate,
                |c| answer::parse(Watcher, &c.text),
            ));
            let what = format!("{kind:?} {status}");
            let Err(error) = out.result else {
                panic!("{what}: answered through a redirect")
            };
            assert!(
                matches!(&error, CallError::Redirect { status: s, location, .. }
                    if *s == status && location.starts_with(&elsewhere.uri())),
                "{what}: {error:?}"
            );
            let text = error.to_string();
            assert!(
                text.contains(&format!(
                    "a redirect (HTTP {status}) to {}",
                    elsewhere.uri()
                )) && text.contains("set base_url"),
                "{what}: {text}"
            );
            assert!(!text.contains(KEY), "{what}: {text}");
            assert!(received(&rt, &elsewhere).is_empty(), "{what}: followed");
            let asked = received(&rt, &first);
            assert_eq!(asked.len(), 1, "{what}: a redirect is not retried");
            let attempt = out.attempts.remove(0);
            let egress = attempt.egress.expect("the body left for the first address");
            assert_eq!(egress.bytes, asked[0].body.len() as u64, "{what}");
        }
    }
}

/// Through the binary: a thread whose provider redirects fails with the redirect named
/// in the journal; the embeddings endpoint's redirect is not followed either, and its
/// call is in the ledger as what the configured address received.
#[test]
fn a_tick_follows_no_redirect_of_a_model_or_the_embeddings_endpoint() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (chat, chat_elsewhere) = servers(&rt, 307, "/v1/chat/completions");
    let (emb, emb_elsewhere) = servers(&rt, 307, "/v1/embeddings");
    let mut tick = Tick::new()
        .state(SEED)
        .model(Watcher, "far/watcher")
        .config_extra(&format!(
            "[providers.far]\nkind = \"openai\"\nbase_url = \"{}/v1\"\n\n[providers.emb]\nkind = \"openai\"\nbase_url = \"{}/v1\"\n\n[recall]\nembeddings = \"emb/toy\"\n",
            chat.uri(),
            emb.uri()
        ));
    let out = tick.run_with(&["-v"]);
    out.expect_exit(3);
    assert!(received(&rt, &chat_elsewhere).is_empty());
    assert!(received(&rt, &emb_elsewhere).is_empty());
    assert_eq!(received(&rt, &chat).len(), 1);
    assert_eq!(received(&rt, &emb).len(), 1);
    assert!(
        out.stderr.contains("embeddings not refreshed")
            && out.stderr.contains("answered with a redirect (HTTP 307)"),
        "{}",
        out.stderr
    );
    let journal = std::fs::read_to_string(tick.dir().join("journal.jsonl")).unwrap();
    let lines: Vec<Value> = journal
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let watcher = &lines[0]["threads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["thread"] == "watcher")
        .unwrap()["attempts"][0];
    assert!(
        watcher["error"]
            .as_str()
            .unwrap()
            .contains("answered with a redirect (HTTP 307)"),
        "{watcher}"
    );
    let embedded = lines
        .iter()
        .find_map(|l| l.get("embeddings"))
        .expect("the embeddings call in the journal");
    assert_eq!(
        embedded["egress"]["bytes"],
        received(&rt, &emb)[0].body.len() as u64
    );
    assert!(
        embedded["error"]
            .as_str()
            .unwrap()
            .contains("does not follow redirects"),
        "{embedded}"
    );
}
