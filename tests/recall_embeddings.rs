//! The semantic rerank through the binary (`[recall] embeddings`): the tick embeds new
//! and changed entries into `embeddings.json` (an OpenAI-compatible `/v1/embeddings` and
//! Ollama's `/api/embed` on loopback wiremock servers), `show --for` embeds the question
//! and blends, the cache is reused, and an endpoint that is down falls back to lexical
//! recall, said at `-v`. Against a real llama-server started with `--embeddings
//! --pooling mean` (`THINKER_LLAMA_EMBED_URL`, started by `.ci/run`): ignored unless run
//! with `--ignored`.

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use crate::support::Tick;

const STATE: &str = r#"{
  "version": 1, "tick_count": 4, "last_tick": "2026-11-22T10:00:00Z",
  "active_threads": [
    {"id": "t-acme-invoice-overdue", "summary": "ACME invoice 4411 is 14 days overdue", "strength": 5,
     "created": "2026-11-21T08:00:00Z", "last_seen": "2026-11-22T10:00:00Z", "source": "watcher"}
  ],
  "patterns": [
    {"id": "p-payday-spending", "summary": "Card spending spikes in the three days after the salary lands",
     "strength": 5, "created": "2026-11-01T08:00:00Z", "last_seen": "2026-11-22T08:00:00Z"},
    {"id": "p-backup-fails-mondays", "summary": "Backup of the database server fails on Mondays",
     "strength": 4, "created": "2026-11-01T08:00:00Z", "last_seen": "2026-11-22T08:00:00Z"}
  ],
  "hunches": [], "insights": [], "escalation_history": [], "thread_state": {}
}"#;

const BROKE: &str = "why am I always broke at the end of the month";

/// A toy embedding: money words on one axis, everything else on another.
fn vector_of(text: &str) -> Vec<f32> {
    let t = text.to_lowercase();
    if t.contains("salary") || t.contains("broke") {
        vec![1.0, 0.0, 0.0]
    } else if t.contains("invoice") {
        vec![0.6, 0.8, 0.0]
    } else {
        vec![0.0, 0.0, 1.0]
    }
}

/// Answers `/v1/embeddings` (OpenAI's shape) or `/api/embed` (Ollama's) from the inputs.
struct Vectors {
    ollama: bool,
}

impl Respond for Vectors {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&req.body).unwrap();
        let inputs: Vec<String> = body["input"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        let vectors: Vec<Vec<f32>> = inputs.iter().map(|t| vector_of(t)).collect();
        if self.ollama {
            ResponseTemplate::new(200)
                .set_body_json(json!({"model": body["model"], "embeddings": vectors}))
        } else {
            let data: Vec<Value> = vectors
                .iter()
                .enumerate()
                .rev() // out of order: read by `index`
                .map(|(i, v)| json!({"object": "embedding", "index": i, "embedding": v}))
                .collect();
            ResponseTemplate::new(200)
                .set_body_json(json!({"object": "list", "data": data, "model": body["model"]}))
        }
    }
}

struct Server {
    rt: tokio::runtime::Runtime,
    server: MockServer,
}

impl Server {
    fn start(ollama: bool) -> Server {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let server = rt.block_on(MockServer::start());
        let route = if ollama {
            "/api/embed"
        } else {
            "/v1/embeddings"
        };
        rt.block_on(
            Mock::given(method("POST"))
                .and(path(route))
                .respond_with(Vectors { ollama })
                .mount(&server),
        );
        Server { rt, server }
    }

    fn requests(&self) -> Vec<Value> {
        self.rt
            .block_on(self.server.received_requests())
            .unwrap_or_default()
            .iter()
            .map(|r| serde_json::from_slice(&r.body).unwrap())
            .collect()
    }
}

fn config(kind: &str, base_url: &str) -> String {
    format!(
        "[providers.emb]\nkind = \"{kind}\"\nbase_url = \"{base_url}\"\n\n[recall]\nembeddings = \"emb/toy-embed\"\nmin_similarity = 0.9\n"
    )
}

fn ids(out: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(out).unwrap();
    v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_tick_embeds_the_memory_and_show_for_blends() {
    for ollama in [false, true] {
        let server = Server::start(ollama);
        let (kind, base) = if ollama {
            ("ollama", server.server.uri())
        } else {
            ("openai", format!("{}/v1", server.server.uri()))
        };
        let mut tick = Tick::new().state(STATE).config_extra(&config(kind, &base));
        // Lexically, nothing in the memory is about being broke.
        let before = tick.thinker(&["show", "--format", "json", "--for", BROKE]);
        assert_eq!(
            ids(&before.stdout),
            Vec::<String>::new(),
            "{kind}: no cache yet"
        );

        tick.run().expect_exit(0);
        let cache: Value = serde_json::from_str(
            &std::fs::read_to_string(tick.dir().join("embeddings.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            cache["vectors"].as_object().unwrap().len(),
            3,
            "{kind}: {cache}"
        );
        let sent = server.requests();
        assert_eq!(sent.len(), 1, "{kind}: one request for the three entries");
        assert_eq!(sent[0]["model"], "toy-embed");
        assert_eq!(sent[0]["input"].as_array().unwrap().len(), 3);

        let after = tick.thinker(&["show", "--format", "json", "--for", BROKE]);
        assert_eq!(
            ids(&after.stdout),
            ["p-payday-spending"],
            "{kind}: {}",
            after.stdout
        );
        assert_eq!(server.requests().len(), 2, "{kind}: the question embedded");

        // The next tick embeds nothing new (the cache is keyed by the text).
        tick.set_now("2026-11-22T10:10:00Z");
        tick.run().expect_exit(0);
        assert_eq!(server.requests().len(), 2, "{kind}: cached");
    }
}

#[test]
fn an_embeddings_endpoint_that_is_down_falls_back_to_lexical_recall() {
    let server = Server::start(false);
    let mut up = Tick::new()
        .state(STATE)
        .config_extra(&config("openai", &format!("{}/v1", server.server.uri())));
    up.run().expect_exit(0);
    // The same memory and cache, the endpoint gone (a port nothing listens on).
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut down = Tick::new()
        .state(STATE)
        .config_extra(&config("openai", &format!("http://127.0.0.1:{closed}/v1")));
    std::fs::copy(
        up.dir().join("embeddings.json"),
        down.dir().join("embeddings.json"),
    )
    .unwrap();
    let out = down.thinker(&["-v", "show", "--format", "json", "--for", "invoice"]);
    out.expect_exit(0);
    assert_eq!(ids(&out.stdout), ["t-acme-invoice-overdue"]);
    assert!(out.stderr.contains("lexical recall only"), "{}", out.stderr);
    // A tick with the endpoint down and a new entry to embed still writes its state,
    // and says why the cache is stale at -v.
    let path = down.dir().join("subconscious.json");
    let grown = std::fs::read_to_string(&path).unwrap().replace(
        r#""hunches": []"#,
        r#""hunches": [{"id": "h-new", "summary": "A new matter", "strength": 3, "created": "2026-11-22T10:00:00Z", "last_seen": "2026-11-22T10:00:00Z"}]"#,
    );
    std::fs::write(&path, grown).unwrap();
    let ticked = down.run_with(&["-v"]);
    ticked.expect_exit(0);
    assert!(
        ticked.stderr.contains("embeddings not refreshed"),
        "{}",
        ticked.stderr
    );
}

#[test]
#[ignore = "needs llama-server --embeddings --pooling mean: THINKER_LLAMA_EMBED_URL"]
fn a_real_llama_server_embeds_the_memory_and_the_question() {
    let url = crate::support::component(
        "THINKER_LLAMA_EMBED_URL",
        "start one with scripts/ci/e2e-llama-server.sh start PORT --embeddings --pooling mean",
    );
    let mut tick = Tick::new().state(STATE).config_extra(&format!(
        "[providers.emb]\nkind = \"openai\"\nbase_url = \"{url}/v1\"\ntimeout_seconds = 300\n\n[recall]\nembeddings = \"emb/smollm2\"\nembeddings_timeout_ms = 20000\n"
    ));
    tick.run_with(&["-v"]).expect_exit(0);
    let cache: Value =
        serde_json::from_str(&std::fs::read_to_string(tick.dir().join("embeddings.json")).unwrap())
            .unwrap();
    let vectors = cache["vectors"].as_object().unwrap();
    assert_eq!(vectors.len(), 3, "{cache}");
    assert!(vectors.values().all(|v| v.as_array().unwrap().len() >= 64));
    let out = tick.thinker(&["-v", "show", "--format", "json", "--for", "invoice"]);
    out.expect_exit(0);
    assert!(
        ids(&out.stdout).contains(&"t-acme-invoice-overdue".to_string()),
        "{}",
        out.stdout
    );
    assert!(
        !out.stderr.contains("lexical recall only"),
        "{}",
        out.stderr
    );
}

/// `[recall]` keys are checked, and an error names the key and the way out.
#[test]
fn recall_settings_are_checked_naming_the_key() {
    for (extra, said) in [
        ("[recall]\nmax_bytes = 10\n", "recall.max_bytes"),
        ("[recall]\nmax_entries = 0\n", "recall.max_entries"),
        (
            "[recall]\nembeddings = \"nowhere/model\"\n",
            "provider `nowhere` is not defined",
        ),
        (
            "[providers.claude]\nkind = \"anthropic\"\n[recall]\nembeddings = \"claude/x\"\n",
            "is not of kind \"openai\" or \"ollama\"",
        ),
        (
            "[providers.emb]\nkind = \"ollama\"\n[recall]\nembeddings = \"emb/x\"\nmin_similarity = 1.5\n",
            "recall.min_similarity",
        ),
        ("[recall]\nsynonym = [[\"a\", \"b\"]]\n", "synonym"),
    ] {
        let mut tick = Tick::new().state(STATE).config_extra(extra);
        let out = tick.thinker(&["show", "--for", "invoice"]);
        out.expect_exit(2);
        assert!(out.stderr.contains(said), "{extra}: {}", out.stderr);
    }
}

/// A memory written from private mail: a diagnosis, a clinic's address and phone.
const PRIVATE: &str = r#"{
  "version": 2, "tick_count": 4, "last_tick": "2026-11-22T10:00:00Z",
  "active_threads": [
    {"id": "t-biopsy-result", "summary": "Biopsy from Dr Weber positive for melanoma stage II: call weber@clinic.example or +49 30 1234 5678",
     "strength": 5, "created": "2026-11-21T08:00:00Z", "last_seen": "2026-11-22T10:00:00Z", "source": "watcher"}
  ],
  "patterns": [
    {"id": "p-payday-spending", "summary": "Card spending spikes in the three days after the salary lands",
     "strength": 5, "created": "2026-11-01T08:00:00Z", "last_seen": "2026-11-22T08:00:00Z"}
  ],
  "hunches": [], "insights": [], "escalation_history": [], "thread_state": {}
}"#;

/// The embeddings calls' lines of the journal (`{"time", "embeddings": {...}}`).
fn embeddings_lines(dir: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l.get("embeddings").is_some())
        .map(|l| l["embeddings"].clone())
        .collect()
}

/// `thinker hook claude-code` with a `UserPromptSubmit` of `prompt`; its stdout.
fn hook(tick: &mut Tick, prompt: &str) -> String {
    let event =
        json!({"hook_event_name": "UserPromptSubmit", "session_id": "s1", "prompt": prompt});
    let out = tick.thinker_with_stdin(&["hook", "claude-code"], event.to_string().as_bytes());
    assert_eq!(out.code, Some(0));
    out.stdout
}

impl Server {
    /// The bodies received, as bytes.
    fn bodies(&self) -> Vec<Vec<u8>> {
        self.rt
            .block_on(self.server.received_requests())
            .unwrap_or_default()
            .into_iter()
            .map(|r| r.body)
            .collect()
    }
}

/// An embeddings provider `emb` at `base`, remote (`local = false`), with `lines`, under
/// `private_to = "local"`.
fn local_config(base: &str, lines: &str) -> String {
    format!(
        "[providers.emb]\nkind = \"openai\"\nbase_url = \"{base}\"\nlocal = false\n{lines}\n\n[recall]\nembeddings = \"emb/toy-embed\"\nmin_similarity = 0.9\n\n[privacy]\nprivate_to = \"local\"\n"
    )
}

/// SPEC §9: under `private_to = "local"` an embeddings provider that is remote
/// (`local = false`) and not trusted is sent nothing — neither the memory (written from
/// private mail) nor a question (the user's words) — and the journal records what was
/// withheld, once; recall stays lexical; `stats --egress` and `doctor` say so.
#[test]
fn under_local_a_remote_embeddings_provider_is_sent_nothing_and_the_ledger_says_so() {
    let server = Server::start(false);
    let base = format!("{}/v1", server.server.uri());
    let mut tick = Tick::new()
        .state(PRIVATE)
        .config_extra(&local_config(&base, ""));
    let ticked = tick.run_with(&["-v"]);
    ticked.expect_exit(0);
    assert!(
        ticked
            .stderr
            .contains("embeddings withheld from `emb` (remote and not trusted"),
        "{}",
        ticked.stderr
    );
    assert!(server.bodies().is_empty(), "nothing reached the provider");
    let lines = embeddings_lines(tick.dir());
    assert_eq!(lines.len(), 1, "{lines:?}");
    let e = &lines[0];
    assert_eq!(
        (
            e["purpose"].as_str(),
            e["texts"].as_u64(),
            e["egress"]["provider"].as_str(),
            e["egress"]["reach"].as_str(),
            e["egress"]["private"].as_str(),
            e["egress"]["bytes"].as_u64(),
            e["egress"]["requests"].as_u64(),
            e["egress"]["withheld_items"].as_u64()
        ),
        (
            Some("memory"),
            Some(0),
            Some("emb"),
            Some("remote"),
            Some("withheld"),
            Some(0),
            Some(0),
            Some(2)
        ),
        "{e}"
    );
    assert_eq!(e["egress"]["withheld"], json!(["memory"]));

    // A question is the user's private text: not sent either; recall answers lexically.
    let out = tick.thinker(&[
        "-v",
        "show",
        "--format",
        "json",
        "--for",
        "the biopsy from Dr Weber",
    ]);
    out.expect_exit(0);
    assert_eq!(ids(&out.stdout), ["t-biopsy-result"]);
    assert!(out.stderr.contains("recall is lexical"), "{}", out.stderr);
    let hooked = hook(&mut tick, "what did Dr Weber say about the biopsy?");
    assert!(hooked.contains("t-biopsy-result"), "{hooked}");
    assert!(server.bodies().is_empty(), "the questions stayed here");

    // The next tick withholds the same entries again, and does not record them twice.
    tick.set_now("2026-11-22T10:10:00Z");
    tick.run().expect_exit(0);
    assert_eq!(embeddings_lines(tick.dir()).len(), 1);
    assert!(server.bodies().is_empty());

    let stats = tick.thinker(&["stats", "--egress", "--json"]);
    stats.expect_exit(0);
    let stats: Value = serde_json::from_str(&stats.stdout).unwrap();
    assert_eq!(stats["total"]["remote_bytes"], 0, "{stats}");
    assert_eq!(stats["total"]["remote_providers"], 0, "{stats}");
    assert_eq!(stats["total"]["withheld_items"], 2, "{stats}");
    let text = tick.thinker(&["stats", "--egress"]);
    let all = text.stdout.lines().last().unwrap_or_default();
    assert!(
        all.starts_with("In all: nothing to a remote provider,")
            && all.ends_with("private text withheld from 1 call: memory"),
        "{}",
        text.stdout
    );
    let doctor = tick.thinker(&["doctor", "--offline"]);
    let egress = doctor
        .stdout
        .lines()
        .find(|l| l.contains("egress"))
        .unwrap_or_default()
        .to_string();
    assert!(
        egress.contains("warn") && egress.contains("embeddings withheld from `emb`"),
        "{}",
        doctor.stdout
    );
}

/// Under `local`, a remote embeddings provider marked `trusted` may see private text:
/// the texts go as they are, recorded as a call to a remote provider with every byte it
/// received.
#[test]
fn under_local_a_trusted_embeddings_provider_gets_the_texts_as_they_are() {
    let trusted = Server::start(false);
    let base = format!("{}/v1", trusted.server.uri());
    let mut tick = Tick::new()
        .state(PRIVATE)
        .config_extra(&local_config(&base, "trusted = true"));
    tick.run().expect_exit(0);
    let bodies = trusted.bodies();
    assert_eq!(bodies.len(), 1);
    assert!(String::from_utf8_lossy(&bodies[0]).contains("melanoma"));
    let lines = embeddings_lines(tick.dir());
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["egress"]["private"], "full");
    assert_eq!(lines[0]["egress"]["reach"], "remote");
    assert_eq!(lines[0]["egress"]["bytes"], bodies[0].len() as u64);
}

/// SPEC §9: under `redacted` (the default) a remote embeddings provider gets the
/// memory and the question with personal data replaced by the state's placeholders —
/// the same in both, so they still compare — and every call is in the egress ledger
/// with the bytes the server received and the replacements by category.
#[test]
fn under_redacted_the_memory_and_the_question_go_redacted_and_are_recorded() {
    let server = Server::start(false);
    let base = format!("{}/v1", server.server.uri());
    let mut tick = Tick::new().state(PRIVATE).config_extra(&format!(
        "[providers.emb]\nkind = \"openai\"\nbase_url = \"{base}\"\nlocal = false\n\n[recall]\nembeddings = \"emb/toy-embed\"\nmin_similarity = 0.9\n"
    ));
    tick.run().expect_exit(0);
    let out = tick.thinker(&[
        "show",
        "--format",
        "json",
        "--for",
        "why am I broke, asks jane.doe@example.org",
    ]);
    out.expect_exit(0);
    assert_eq!(ids(&out.stdout), ["p-payday-spending"], "{}", out.stdout);
    let hooked = hook(&mut tick, "broke again, my number is +44 20 7946 0958");
    assert!(hooked.contains("p-payday-spending"), "{hooked}");
    let bodies = server.bodies();
    assert_eq!(bodies.len(), 3, "the memory, then two questions");
    for body in &bodies {
        let text = String::from_utf8_lossy(body);
        for private in [
            "weber@clinic.example",
            "1234 5678",
            "jane.doe@example.org",
            "7946 0958",
        ] {
            assert!(!text.contains(private), "{private} sent: {text}");
        }
    }
    let memory = String::from_utf8_lossy(&bodies[0]);
    assert!(memory.contains("<email-"), "{memory}");
    let lines = embeddings_lines(tick.dir());
    assert_eq!(lines.len(), 3, "{lines:?}");
    for (line, (body, purpose)) in lines
        .iter()
        .zip(bodies.iter().zip(["memory", "question", "question"]))
    {
        let e = &line["egress"];
        assert_eq!(line["purpose"], purpose);
        assert_eq!(
            (
                e["reach"].as_str(),
                e["private"].as_str(),
                e["requests"].as_u64()
            ),
            (Some("remote"), Some("redacted"), Some(1)),
            "{line}"
        );
        assert_eq!(e["bytes"], body.len() as u64, "{line}");
        assert_eq!(e["sources"], json!([purpose]));
    }
    assert_eq!(
        lines[0]["egress"]["redactions"],
        json!({"email": 1, "phone": 1})
    );
    assert_eq!(lines[1]["egress"]["redactions"], json!({"email": 1}));
    assert_eq!(lines[2]["egress"]["redactions"], json!({"phone": 1}));
    let stats = tick.thinker(&["stats", "--egress", "--json"]);
    let stats: Value = serde_json::from_str(&stats.stdout).unwrap();
    let sent: usize = bodies.iter().map(Vec::len).sum();
    assert_eq!(stats["total"]["remote_bytes"], sent as u64, "{stats}");
    assert_eq!(stats["total"]["redactions"], 4, "{stats}");
}
