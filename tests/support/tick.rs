//! The one builder for running the `thinker` binary: [`Tick`] sets up a temp home (a
//! state directory, a config whose provider `local` is a loopback wiremock server routing
//! each thread by the request body's `model`), declares what the run must show (exit
//! status, stdout, stderr; just's `tests/test.rs`), runs `thinker` and hands back an
//! [`Outcome`] to read the state directory from. Never the internet, no timing asserts.
//!
//! ```text
//! Tick::new().state(SEED).answer(Watcher, &found("…", 5))
//!     .expect_exit(3).expect_stderr_contains("timed out")
//!     .run()                      // thinker tick --now … --config … --state …
//! Tick::new().bare().expect_exit(0).thinker(["init"])   // the args exactly as given
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use thinker::thread::ThreadName;
use wiremock::matchers::{body_partial_json, method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

use super::NOW;

/// A state with one active thread and one pattern, four ticks old.
pub const SEED: &str = r#"{
  "version": 1,
  "tick_count": 4,
  "last_tick": "2026-11-22T10:00:00Z",
  "active_threads": [
    {"id": "t-acme-invoice-overdue", "summary": "ACME invoice 4411 is overdue", "strength": 5,
     "created": "2026-11-21T08:00:00Z", "last_seen": "2026-11-22T10:00:00Z", "source": "watcher"}
  ],
  "patterns": [
    {"id": "p-backup-fails-mondays", "summary": "Backup fails on Mondays", "strength": 4,
     "created": "2026-11-01T08:00:00Z", "last_seen": "2026-11-21T08:00:00Z"}
  ],
  "hunches": [], "insights": [],
  "escalation_history": [],
  "thread_state": {}
}
"#;

/// A thread answer with one finding.
pub fn found(summary: &str, importance: u8) -> Value {
    json!({"findings": [{"summary": summary, "importance": importance}], "reinforce": [],
           "suggest": "", "escalate": false})
}

/// A thread answer with nothing to report.
pub fn nothing() -> Value {
    json!({"findings": [], "reinforce": [], "suggest": "", "escalate": false})
}

/// A chat-completions body whose content is `answer`, with this usage.
pub fn completion(model: &str, answer: &Value, tokens_in: u64, tokens_out: u64) -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": answer.to_string()},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out,
                  "total_tokens": tokens_in + tokens_out}
    })
}

pub fn ok(thread: ThreadName, answer: &Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(completion(thread.as_str(), answer, 100, 10))
}

/// One `thinker` setup: a temp home with a state directory, a config, and a mock server
/// answering each thread (by default with nothing to report), and what every run must
/// show. `run` may be called again on the same state.
pub struct Tick {
    expect: Expect,
    bare: bool,
    mocks: [Option<Mock>; 4],
    mounted: bool,
    server: MockServer,
    rt: tokio::runtime::Runtime,
    base_url: Option<String>,
    home: tempfile::TempDir,
    state: PathBuf,
    local: Vec<String>,
    providers: Vec<(String, String)>,
    models: [Option<String>; 4],
    threads: [Vec<String>; 4],
    timing: String,
    extra: String,
    /// Set (`Some`) or removed (`None`), over the clean environment of [`thinker_cmd`].
    env: Vec<(String, Option<String>)>,
    in_home: bool,
    now: String,
}

impl Tick {
    pub fn new() -> Tick {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let server = rt.block_on(MockServer::start());
        let home = tempfile::tempdir().unwrap();
        let state = home.path().join("state");
        Tick {
            expect: Expect::default(),
            bare: false,
            mocks: [None, None, None, None],
            mounted: false,
            server,
            rt,
            base_url: None,
            home,
            state,
            local: Vec::new(),
            providers: Vec::new(),
            models: [None, None, None, None],
            threads: std::array::from_fn(|_| Vec::new()),
            // Most tests run several ticks on an unchanged world and expect calls: the
            // quiet tick is turned on by the tests that are about it.
            timing: "deadline_seconds = 60\nthread_timeout_seconds = 30\nskip_unchanged = false"
                .into(),
            extra: String::new(),
            env: Vec::new(),
            in_home: false,
            now: NOW.into(),
        }
    }

    /// Every run exits with `code`.
    pub fn expect_exit(mut self, code: i32) -> Tick {
        self.expect.exit = Some(code);
        self
    }

    /// Every run prints exactly `text` on stdout.
    pub fn expect_stdout(mut self, text: &str) -> Tick {
        self.expect.stdout.push(Text::Is(text.into()));
        self
    }

    /// Every run's stdout contains `text` (may be declared more than once).
    pub fn expect_stdout_contains(mut self, text: &str) -> Tick {
        self.expect.stdout.push(Text::Contains(text.into()));
        self
    }

    /// Every run prints exactly `text` on stderr.
    pub fn expect_stderr(mut self, text: &str) -> Tick {
        self.expect.stderr.push(Text::Is(text.into()));
        self
    }

    /// Every run's stderr contains `text` (may be declared more than once).
    pub fn expect_stderr_contains(mut self, text: &str) -> Tick {
        self.expect.stderr.push(Text::Contains(text.into()));
        self
    }

    /// Runs get their args exactly as given: no `--now`, `--config` or `--state` from the
    /// harness, and no config written (for tests of those flags and their defaults).
    pub fn bare(mut self) -> Tick {
        self.bare = true;
        self
    }

    /// The time the next runs pass as `--now` (default [`NOW`]).
    pub fn set_now(&mut self, now: &str) {
        self.now = now.into();
    }

    /// The state directory at `relative` under the temp home (default `state`; call it
    /// before `state`).
    pub fn state_dir(mut self, relative: &str) -> Tick {
        self.state = self.home.path().join(relative);
        self
    }

    /// The temp home (`HOME` of every run).
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// `relative` under the temp home, as an argument.
    pub fn path(&self, relative: &str) -> String {
        self.home.path().join(relative).display().to_string()
    }

    /// Seeds `subconscious.json` with exactly these bytes.
    pub fn state(self, json: &str) -> Tick {
        fs::create_dir_all(&self.state).unwrap();
        fs::write(self.state.join("subconscious.json"), json).unwrap();
        self
    }

    /// `thread` answers `answer` (100 tokens in, 10 out).
    pub fn answer(self, thread: ThreadName, answer: &Value) -> Tick {
        self.respond(thread, ok(thread, answer))
    }

    /// `thread`'s requests get this response.
    pub fn respond(mut self, thread: ThreadName, response: impl Respond + 'static) -> Tick {
        self.mocks[thread.index()] = Some(route(thread).respond_with(response));
        self
    }

    /// The server checks, when the test ends, that `thread` was asked exactly `n` times
    /// (call it after `answer`/`respond`, which replace the mock).
    pub fn expect(mut self, thread: ThreadName, n: u64) -> Tick {
        if self.mocks[thread.index()].is_none() {
            self = self.answer(thread, &nothing());
        }
        self.mocks[thread.index()] = self.mocks[thread.index()].take().map(|m| m.expect(n));
        self
    }

    /// A line in `[providers.local]`.
    pub fn local(mut self, line: &str) -> Tick {
        self.local.push(line.into());
        self
    }

    /// Another `openai` provider on the same server, with these extra lines.
    pub fn provider(mut self, name: &str, lines: &str) -> Tick {
        self.providers.push((name.into(), lines.into()));
        self
    }

    /// `thread`'s model (default `local/<thread>`).
    pub fn model(mut self, thread: ThreadName, model: &str) -> Tick {
        self.models[thread.index()] = Some(model.into());
        self
    }

    /// Lines in `[threads.<thread>]` (keys, then `[[threads.<thread>.sources]]` tables).
    pub fn thread(mut self, thread: ThreadName, lines: &str) -> Tick {
        self.threads[thread.index()].push(lines.into());
        self
    }

    /// TOML appended to the config (e.g. a `[budget]` table).
    pub fn config_extra(mut self, toml: &str) -> Tick {
        self.extra.push_str(toml);
        self.extra.push('\n');
        self
    }

    /// Sends the threads to this base URL instead of the mock server.
    pub fn base_url(mut self, url: &str) -> Tick {
        self.base_url = Some(url.into());
        self
    }

    pub fn env(mut self, var: &str, value: &str) -> Tick {
        self.env.push((var.into(), Some(value.into())));
        self
    }

    /// Runs without `var` (e.g. `HOME`) in their environment.
    pub fn env_remove(mut self, var: &str) -> Tick {
        self.env.push((var.into(), None));
        self
    }

    /// Runs in the temp home as their working directory.
    pub fn in_home(mut self) -> Tick {
        self.in_home = true;
        self
    }

    /// The `[tick]` table's lines (default: deadline 60 s, thread timeout 30 s, the quiet
    /// tick off).
    pub fn tick_table(mut self, lines: &str) -> Tick {
        self.timing = lines.into();
        self
    }

    pub fn config_text(&self) -> String {
        let base = self
            .base_url
            .clone()
            .unwrap_or_else(|| format!("{}/v1", self.server.uri()));
        let provider = |name: &str, lines: &str| {
            format!(
                "[providers.{name}]\nkind = \"openai\"\nbase_url = \"{base}\"\nretries = 0\nprice_in = 2.0\nprice_out = 10.0\n{lines}\n"
            )
        };
        let mut text = format!("[tick]\n{}\n\n", self.timing);
        text += &provider("local", &self.local.join("\n"));
        for (name, lines) in &self.providers {
            text += &provider(name, lines);
        }
        for thread in ThreadName::ALL {
            let model = self.models[thread.index()]
                .clone()
                .unwrap_or_else(|| format!("local/{thread}"));
            let _ = write!(text, "\n[threads.{thread}]\nmodel = \"{model}\"\n");
            // No role defaults (the system source would make prompts depend on the
            // machine): a thread reads only what a test gives it.
            if !self.threads[thread.index()]
                .iter()
                .any(|l| l.contains("sources"))
            {
                text += "sources = []\n";
            }
            for lines in &self.threads[thread.index()] {
                text += lines;
                text.push('\n');
            }
        }
        text + "\n" + &self.extra
    }

    pub fn config_path(&self) -> PathBuf {
        self.home.path().join("thinker.toml")
    }

    pub fn mount(&mut self) {
        for thread in ThreadName::ALL {
            let mock = match self.mocks[thread.index()].take() {
                Some(mock) => mock,
                None if !self.mounted => route(thread).respond_with(ok(thread, &nothing())),
                None => continue,
            };
            self.rt.block_on(mock.mount(&self.server));
        }
        self.mounted = true;
    }

    /// `thinker tick` with `args`, `--now`, `--config` and `--state`; checks what was
    /// declared.
    #[track_caller]
    pub fn run_with(&mut self, args: &[&str]) -> Outcome {
        let mut all = vec!["tick"];
        all.extend_from_slice(args);
        self.thinker(&all)
    }

    /// `thinker tick` with `--now`, `--config` and `--state`; checks what was declared.
    #[track_caller]
    pub fn run(&mut self) -> Outcome {
        self.run_with(&[])
    }

    /// Any `thinker` command (its first arg) with `--now`, `--config` and `--state`
    /// (unless [`Tick::bare`]); checks what was declared.
    #[track_caller]
    pub fn thinker(&mut self, args: &[&str]) -> Outcome {
        let mut cmd = self.command(args);
        let output = cmd.output().unwrap();
        let outcome = Outcome {
            code: output.status.code(),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
            dir: self.state.clone(),
        };
        outcome.check(&self.expect);
        outcome
    }

    /// [`Tick::thinker`] with `stdin` written to the command's standard input (a hook's
    /// event, say); the stream is closed once written.
    #[track_caller]
    pub fn thinker_with_stdin(&mut self, args: &[&str], stdin: &[u8]) -> Outcome {
        use std::io::Write as _;
        use std::process::Stdio;
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        let output = child.wait_with_output().unwrap();
        let outcome = Outcome {
            code: output.status.code(),
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
            dir: self.state.clone(),
        };
        outcome.check(&self.expect);
        outcome
    }

    /// The command [`Tick::thinker`] runs, not started: for a test that must start it
    /// in the background (to kill it mid-tick, or to close its streams).
    pub fn command(&mut self, args: &[&str]) -> std::process::Command {
        self.mount();
        let mut cmd = thinker_cmd(self.home.path());
        for (var, value) in &self.env {
            match value {
                Some(value) => cmd.env(var, value),
                None => cmd.env_remove(var),
            };
        }
        if self.in_home {
            cmd.current_dir(self.home.path());
        }
        cmd.args(args);
        if !self.bare {
            fs::write(self.config_path(), self.config_text()).unwrap();
            cmd.args(["--now", &self.now, "--config"])
                .arg(self.config_path())
                .arg("--state")
                .arg(&self.state);
        }
        cmd
    }

    /// The requests the server received for `thread`'s model.
    pub fn requests(&self, thread: ThreadName) -> Vec<Request> {
        self.rt
            .block_on(self.server.received_requests())
            .unwrap_or_default()
            .into_iter()
            .filter(|r| {
                serde_json::from_slice::<Value>(&r.body)
                    .is_ok_and(|b| b["model"] == thread.as_str())
            })
            .collect()
    }

    pub fn all_requests(&self) -> usize {
        self.rt
            .block_on(self.server.received_requests())
            .unwrap_or_default()
            .len()
    }

    /// Checks the `expect` counts now (they are also checked when the server drops).
    pub fn verify(&self) {
        self.rt.block_on(self.server.verify());
    }

    /// The state directory `--state` points at (it may not exist yet).
    pub fn dir(&self) -> &Path {
        &self.state
    }
}

/// A mock for `thread`'s requests (routed by the body's `model`).
pub fn route(thread: ThreadName) -> wiremock::MockBuilder {
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(body_partial_json(json!({"model": thread.as_str()})))
}

/// Answers its nth request with its nth response (the last one from then on).
pub struct Sequence(Vec<ResponseTemplate>, std::sync::atomic::AtomicUsize);

impl Sequence {
    pub fn new(responses: Vec<ResponseTemplate>) -> Sequence {
        Sequence(responses, std::sync::atomic::AtomicUsize::new(0))
    }
}

impl Respond for Sequence {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let n = self.1.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.0[n.min(self.0.len() - 1)].clone()
    }
}

/// What every run of a [`Tick`] must show, declared before the run.
#[derive(Debug, Default)]
struct Expect {
    exit: Option<i32>,
    stdout: Vec<Text>,
    stderr: Vec<Text>,
}

#[derive(Debug)]
enum Text {
    Is(String),
    Contains(String),
}

/// What a run did.
#[derive(Debug)]
pub struct Outcome {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub dir: PathBuf,
}

impl Outcome {
    #[track_caller]
    pub fn expect_exit(&self, code: i32) -> &Outcome {
        assert_eq!(
            self.code,
            Some(code),
            "exit code\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout,
            self.stderr
        );
        self
    }

    /// Asserts what a [`Tick`] declared before the run.
    #[track_caller]
    fn check(&self, expect: &Expect) {
        if let Some(code) = expect.exit {
            self.expect_exit(code);
        }
        for (stream, text, wants) in [
            ("stdout", &self.stdout, &expect.stdout),
            ("stderr", &self.stderr, &expect.stderr),
        ] {
            for want in wants {
                let (holds, what) = match want {
                    Text::Is(w) => (text == w, format!("exactly {w:?}")),
                    Text::Contains(w) => (text.contains(w.as_str()), format!("{w:?}")),
                };
                assert!(
                    holds,
                    "{stream} should contain {what}\n--- stdout\n{}\n--- stderr\n{}",
                    self.stdout, self.stderr
                );
            }
        }
    }

    pub fn state(&self) -> Value {
        serde_json::from_str(&fs::read_to_string(self.dir.join("subconscious.json")).unwrap())
            .unwrap()
    }

    pub fn lines(&self, name: &str) -> Vec<Value> {
        fs::read_to_string(self.dir.join(name))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    pub fn journal(&self) -> Vec<Value> {
        self.lines("journal.jsonl")
    }

    pub fn archive(&self) -> Vec<Value> {
        self.lines("archive.jsonl")
    }

    /// `thread`'s record in the last tick's journal line (an escalation phase's line,
    /// which may follow it, has no threads).
    pub fn thread(&self, thread: ThreadName) -> Value {
        let journal = self.journal();
        let last = journal
            .iter()
            .rev()
            .find(|l| l.get("threads").is_some())
            .expect("a tick's journal line");
        last["threads"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["thread"] == thread.as_str())
            .cloned()
            .unwrap()
    }
}

/// Every file under `dir` (relative name → bytes); `None` when `dir` does not exist.
pub fn snapshot(dir: &Path) -> Option<BTreeMap<String, Vec<u8>>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let name = p.strip_prefix(root).unwrap().display().to_string();
                out.insert(name, fs::read(&p).unwrap());
            }
        }
    }
    dir.exists().then(|| {
        let mut out = BTreeMap::new();
        walk(dir, dir, &mut out);
        out
    })
}

pub fn ids(state: &Value, category: &str) -> Vec<String> {
    state[category]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect()
}

/// The `thinker` binary with a clean environment: a temp HOME, UTC, PATH, and `init`'s
/// local servers looked for at a closed port (a test sets the one it serves), so no run
/// depends on what listens on this machine (what every [`Tick`] run starts from).
fn thinker_cmd(home: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("thinker"));
    cmd.env_clear()
        .env("HOME", home)
        .env("TZ", "UTC")
        .env("PATH", std::env::var_os("PATH").unwrap_or_default());
    for var in [
        "THINKER_LLAMA_SERVER_URL",
        "THINKER_LM_STUDIO_URL",
        "THINKER_OLLAMA_URL",
    ] {
        cmd.env(var, "127.0.0.1:1");
    }
    cmd
}
