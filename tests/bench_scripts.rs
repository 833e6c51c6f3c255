//! The benchmark scripts (issue 14) stay runnable: every `scripts/bench*.py` and
//! `scripts/reference_tick.py` parses (Python's own parser,
//! nothing written), `bench.sh` parses (`bash -n`), and the Python reference
//! orchestrator does its tick against a loopback wiremock server: four parallel calls,
//! findings merged into `reference.json` (a repeated summary counted, not appended).
//! Skipped with a note where `python3` (3.11+, for `tomllib`) or `bash` is not
//! installed: the scripts are not part of the binary.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Whether `python3` with `tomllib` (3.11+) is there to run the scripts.
fn python() -> bool {
    let found = Command::new("python3")
        .args(["-c", "import tomllib"])
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        eprintln!("skipped: no python3 >= 3.11 on PATH");
    }
    found
}

fn scripts() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(repo().join("scripts"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            p.extension().is_some_and(|e| e == "py")
                && (name.starts_with("bench-") || name == "reference_tick.py")
        })
        .collect();
    found.sort();
    found
}

#[test]
fn every_bench_script_parses() {
    let found = scripts();
    assert!(
        found.len() >= 6,
        "expected the bench scripts and the reference in scripts/, found {found:?}"
    );
    if python() {
        let out = Command::new("python3")
            .args([
                "-c",
                "import ast, sys\nfor f in sys.argv[1:]:\n    ast.parse(open(f).read(), f)",
            ])
            .args(&found)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    match Command::new("bash")
        .arg("-n")
        .arg(repo().join("scripts/bench.sh"))
        .output()
    {
        Ok(out) => assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(_) => eprintln!("skipped: no bash"),
    }
}

fn reply(findings: &Value) -> ResponseTemplate {
    let content = json!({ "findings": findings, "suggest": "" }).to_string();
    ResponseTemplate::new(200).set_body_json(json!({
        "choices": [{ "index": 0, "message": { "role": "assistant", "content": content } }]
    }))
}

fn reference_tick(config: &Path, state: &Path) -> std::process::Output {
    Command::new("python3")
        .arg(repo().join("scripts/reference_tick.py"))
        .arg("--config")
        .arg(config)
        .arg("--state")
        .arg(state)
        .env_remove("BENCH_KEY")
        .output()
        .unwrap()
}

#[tokio::test]
async fn the_python_reference_calls_four_threads_and_merges_their_findings() {
    if !python() {
        return;
    }
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(reply(&json!([
            { "summary": "Backup failed overnight", "importance": 7 }
        ])))
        .mount(&server)
        .await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("thinker.toml");
    let mut text = format!(
        "[providers.stub]\nkind = \"openai\"\nbase_url = \"{}/v1\"\napi_key_env = \"BENCH_KEY\"\n",
        server.uri()
    );
    for thread in ["watcher", "librarian", "oracle", "dreamer"] {
        writeln!(text, "[threads.{thread}]\nmodel = \"stub/{thread}\"").unwrap();
    }
    std::fs::write(&config, text).unwrap();
    let state = dir.path().join("state");

    for _ in 0..2 {
        let out = reference_tick(&config, &state);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    assert_eq!(server.received_requests().await.unwrap().len(), 8);
    let memory: Value =
        serde_json::from_str(&std::fs::read_to_string(state.join("reference.json")).unwrap())
            .unwrap();
    let findings = memory["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{memory}");
    assert_eq!(findings[0]["summary"], "Backup failed overnight");
    assert_eq!(findings[0]["count"], 8, "four threads, two ticks");
}

#[test]
fn the_python_reference_refuses_a_provider_it_cannot_speak() {
    if !python() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("thinker.toml");
    std::fs::write(
        &config,
        "[providers.local]\nkind = \"ollama\"\nbase_url = \"http://127.0.0.1:9\"\n\
         [threads.watcher]\nmodel = \"local/llama3.2\"\n",
    )
    .unwrap();
    let out = reference_tick(&config, &dir.path().join("state"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not an openai one"));
}
