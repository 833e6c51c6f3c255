//! `thinker init` through the binary: a table of environments (key variables set or not;
//! a fake llama-server, LM Studio and Ollama — wiremock on loopback answering as each
//! does, found through `THINKER_LLAMA_SERVER_URL`, `THINKER_LM_STUDIO_URL`,
//! `THINKER_OLLAMA_URL` — or a closed port) → the config written parses and uses exactly
//! the providers found; `--provider NAME=URL`; its output on stdout; one written config,
//! the output and the env file snapshotted.

use std::collections::BTreeSet;
use std::fs;

use serde_json::json;
use thinker::config::Config;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::Tick;

/// An address on loopback that refuses connections (port 1).
const CLOSED: &str = "127.0.0.1:1";

/// Fake local model servers on loopback, answering as the real ones do.
pub struct Servers {
    rt: tokio::runtime::Runtime,
    servers: Vec<MockServer>,
}

impl Servers {
    pub fn new() -> Servers {
        Servers {
            rt: tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap(),
            servers: Vec::new(),
        }
    }

    /// A server answering `routes` (path → JSON body; anything else 404), its `host:port`.
    fn serve(&mut self, routes: &[(&str, serde_json::Value)]) -> String {
        let server = self.rt.block_on(MockServer::start());
        for (p, body) in routes {
            self.rt.block_on(
                Mock::given(method("GET"))
                    .and(path(*p))
                    .respond_with(ResponseTemplate::new(200).set_body_json(body))
                    .mount(&server),
            );
        }
        let address = server.address().to_string();
        self.servers.push(server);
        address
    }

    /// llama-server: `/health` and `/v1/models`.
    pub fn llama_server(&mut self) -> String {
        self.serve(&[
            ("/health", json!({"status": "ok"})),
            (
                "/v1/models",
                json!({"object": "list", "data": [{"id": "smollm2-135m", "object": "model"}]}),
            ),
        ])
    }

    /// LM Studio: `/v1/models` only (an embedding model listed first).
    pub fn lm_studio(&mut self) -> String {
        self.serve(&[(
            "/v1/models",
            json!({"object": "list", "data": [{"id": "text-embedding-nomic-embed-text-v1.5"}, {"id": "google/gemma-3-4b"}]}),
        )])
    }

    /// Ollama: `/api/tags`.
    pub fn ollama(&mut self) -> String {
        self.serve(&[(
            "/api/tags",
            json!({"models": [{"name": "llama3.2:latest", "model": "llama3.2:latest"}]}),
        )])
    }
}

/// Runs `init` (with `args`) in a fresh home with `vars` set; returns the setup, the
/// config text and the outcome.
fn init(tick: Tick, vars: &[&str], args: &[&str]) -> (Tick, String, crate::support::Outcome) {
    let mut tick = tick;
    for var in vars {
        tick = tick.env(var, "a-key-value");
    }
    let (config, state) = (tick.path("cfg/config.toml"), tick.path("state"));
    let mut all = vec!["init", "--config", &config, "--state", &state];
    all.extend_from_slice(args);
    let out = tick.thinker(&all);
    out.expect_exit(0);
    let text = fs::read_to_string(&config).unwrap();
    assert!(!text.contains("a-key-value"), "a key's value was written");
    (tick, text, out)
}

/// A row: the variables set, which servers are up (llama-server, LM Studio, Ollama), the
/// providers in the config written, the escalation's model.
type Row<'a> = (&'a [&'a str], [bool; 3], &'a [&'a str], Option<&'a str>);

#[test]
fn the_config_written_parses_and_uses_the_providers_found() {
    let mut fake = Servers::new();
    let up = [fake.llama_server(), fake.lm_studio(), fake.ollama()];
    let vars = [
        "THINKER_LLAMA_SERVER_URL",
        "THINKER_LM_STUDIO_URL",
        "THINKER_OLLAMA_URL",
    ];
    let labels = ["llama-server", "LM Studio", "Ollama"];
    #[rustfmt::skip]
    let table: &[Row] = &[
        // vars set, servers up, providers in the config, escalation model
        (&[], [false; 3], &["anthropic", "groq", "ollama"], Some("anthropic/claude-opus-5")),
        (&["GROQ_API_KEY"], [false; 3], &["groq"], None),
        (&["ANTHROPIC_API_KEY"], [false; 3], &["anthropic"], Some("anthropic/claude-opus-5")),
        (&["GEMINI_API_KEY", "OPENROUTER_API_KEY"], [false; 3], &["gemini", "openrouter"], None),
        (&["OPENAI_API_KEY", "ANTHROPIC_API_KEY"], [false, false, true], &["anthropic", "ollama", "openai"], Some("anthropic/claude-opus-5")),
        (&[], [false, false, true], &["ollama"], None),
        (&[], [true, false, false], &["llamacpp"], None),
        (&["GROQ_API_KEY"], [false, true, false], &["groq", "lmstudio"], None),
        (&["GROQ_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"], [true; 3],
         &["anthropic", "gemini", "groq", "llamacpp", "lmstudio", "ollama", "openai", "openrouter"], Some("anthropic/claude-opus-5")),
    ];
    for (keys, servers, providers, escalation) in table {
        let mut tick = Tick::new().bare();
        for i in 0..3 {
            tick = tick.env(vars[i], if servers[i] { &up[i] } else { CLOSED });
        }
        let (_tick, text, out) = init(tick, keys, &[]);
        let config = Config::parse(&text, None).unwrap_or_else(|e| panic!("{keys:?}: {e}"));
        config.check_threads().unwrap();
        let names: BTreeSet<&str> = config.providers.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            providers.iter().copied().collect(),
            "{keys:?} {servers:?}"
        );
        let primary = config.escalation.models.first().map(ToString::to_string);
        assert_eq!(primary.as_deref(), *escalation, "{keys:?} {servers:?}");
        for i in 0..3 {
            let line = if servers[i] {
                format!("{}: answering at http://{}", labels[i], up[i])
            } else {
                format!("{}: not found at http://{CLOSED}", labels[i])
            };
            assert!(out.stdout.contains(&line), "{line}\n{}", out.stdout);
        }
        if servers[0] {
            assert!(text.contains(&format!("base_url = \"http://{}/v1\"", up[0])));
            assert!(text.contains("\"llamacpp/smollm2-135m\""), "{text}");
        }
        if servers[1] && keys.len() <= 1 {
            // The chat model, not the embedding model listed before it (a thread's
            // fallbacks are two at most: with more providers it is not among them).
            assert!(text.contains("\"lmstudio/google/gemma-3-4b\""), "{text}");
        }
        if servers[2] {
            assert!(text.contains(&format!("base_url = \"http://{}\"", up[2])));
        }
        if servers[2] && !servers[0] {
            assert!(text.contains("\"ollama/llama3.2:latest\""), "{text}");
        }
        if keys.is_empty() && *servers == [false; 3] {
            assert!(
                text.starts_with("# `thinker init` found no provider"),
                "{text}"
            );
        }
        for var in *keys {
            assert!(
                out.stdout.contains(&format!("{var}: set")),
                "{}",
                out.stdout
            );
        }
        // The result on stdout, not on stderr.
        assert!(out.stdout.contains("`thinker doctor`"), "{}", out.stdout);
        assert!(
            out.stdout.contains("`thinker tick --dry-run -v`"),
            "{}",
            out.stdout
        );
        assert!(!out.stderr.contains("wrote "), "{}", out.stderr);
    }
}

/// Something else listening on a server's port (a web page, or a port that accepts and
/// never answers) is not taken for a model server.
#[test]
fn what_answers_otherwise_is_not_a_model_server() {
    let mut fake = Servers::new();
    let page = fake.serve(&[("/", json!("<html>"))]);
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let silent = silent.local_addr().unwrap().to_string();
    let tick = Tick::new()
        .bare()
        .env("THINKER_LLAMA_SERVER_URL", &page)
        .env("THINKER_OLLAMA_URL", &silent);
    let (_tick, text, out) = init(tick, &["GROQ_API_KEY"], &[]);
    let config = Config::parse(&text, None).unwrap();
    assert_eq!(config.providers.keys().collect::<Vec<_>>(), ["groq"]);
    assert!(
        out.stdout.contains("llama-server: not found"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("Ollama: not found"), "{}", out.stdout);
}

#[test]
fn a_written_config() {
    let mut fake = Servers::new();
    let ollama = fake.ollama();
    let tick = Tick::new().bare().env("THINKER_OLLAMA_URL", &ollama);
    // No notifier program on PATH: the same text on every machine.
    let empty = bin_with(&tick, &[]);
    let tick = tick.env("PATH", &empty);
    let (tick, text, out) = init(tick, &["GROQ_API_KEY", "ANTHROPIC_API_KEY"], &[]);
    insta::assert_snapshot!(
        "init_groq_anthropic_ollama",
        text.replace(&ollama, "127.0.0.1:[PORT]")
    );
    let home = tick.home().display().to_string();
    insta::assert_snapshot!(
        "init_stdout",
        out.stdout
            .replace(&ollama, "127.0.0.1:[PORT]")
            .replace(&home, "[home]")
    );
}

/// The lines of `text` that are not lines of the default config: what init wrote.
fn written_lines(text: &str) -> String {
    let default: BTreeSet<&str> = thinker::config::DEFAULT_CONFIG.lines().collect();
    text.lines()
        .filter(|l| !default.contains(l))
        .fold(String::new(), |out, l| out + l + "\n")
}

/// `init --provider local=URL`: every thread on that server, no fallback; the
/// escalation on it too without an Anthropic key, on Opus (the server its fallback)
/// with one; the model the first chat model it lists, or `--model`.
#[test]
fn one_server_for_every_thread() {
    let mut fake = Servers::new();
    let llama = fake.llama_server();
    let url = format!("http://{llama}/v1");
    let provider = format!("local={url}");
    let models = |config: &Config| -> Vec<Vec<String>> {
        config
            .threads
            .iter()
            .flatten()
            .map(|t| t.models.iter().map(ToString::to_string).collect())
            .collect()
    };
    let escalation = |config: &Config| -> Vec<String> {
        config
            .escalation
            .models
            .iter()
            .map(ToString::to_string)
            .collect()
    };

    // A Groq key is set too: --provider takes no other provider for the threads.
    let bare = Tick::new().bare();
    let empty = bin_with(&bare, &[]);
    let (mut tick, text, out) = init(
        bare.env("PATH", &empty),
        &["GROQ_API_KEY"],
        &["--provider", &provider],
    );
    let config = Config::parse(&text, None).unwrap();
    assert_eq!(config.providers.keys().collect::<Vec<_>>(), ["local"]);
    assert_eq!(config.providers["local"].base_url, url);
    assert_eq!(models(&config), vec![vec!["local/smollm2-135m"]; 4]);
    assert_eq!(escalation(&config), ["local/smollm2-135m"]);
    assert!(
        out.stdout.contains(&format!(
            "local: {url}, model smollm2-135m (the first it lists)"
        )),
        "{}",
        out.stdout
    );
    insta::assert_snapshot!(
        "init_provider_local",
        written_lines(&text).replace(&llama, "127.0.0.1:[PORT]")
    );
    // What it wrote passes doctor --offline: nothing to fail without a key to miss.
    let (config_path, state) = (tick.path("cfg/config.toml"), tick.path("state"));
    let doctor = tick.thinker(&[
        "doctor",
        "--offline",
        "--config",
        &config_path,
        "--state",
        &state,
    ]);
    assert_eq!(doctor.code, Some(0), "{}", doctor.stdout);
    assert!(
        !doctor.stdout.lines().any(|l| l.starts_with("FAIL")),
        "{}",
        doctor.stdout
    );
    assert!(
        doctor
            .stdout
            .contains("escalation model: local/smollm2-135m"),
        "{}",
        doctor.stdout
    );

    // With an Anthropic key: Opus decides, the server its fallback.
    let (_tick, text, _) = init(
        Tick::new().bare(),
        &["ANTHROPIC_API_KEY"],
        &["--provider", &provider, "--model", "qwen2.5-7b"],
    );
    let config = Config::parse(&text, None).unwrap();
    assert_eq!(
        config.providers.keys().collect::<Vec<_>>(),
        ["anthropic", "local"]
    );
    assert_eq!(models(&config), vec![vec!["local/qwen2.5-7b"]; 4]);
    assert_eq!(
        escalation(&config),
        ["anthropic/claude-opus-5", "local/qwen2.5-7b"]
    );

    // A server that lists nothing (here: none answering), a URL without /v1.
    let (_tick, text, out) = init(
        Tick::new().bare(),
        &[],
        &["--provider", "box=http://127.0.0.1:1"],
    );
    let config = Config::parse(&text, None).unwrap();
    assert_eq!(config.providers["box"].base_url, "http://127.0.0.1:1/v1");
    assert_eq!(models(&config), vec![vec!["box/default"]; 4]);
    assert!(out.stdout.contains("no model listed"), "{}", out.stdout);
}

#[test]
fn a_provider_that_is_not_name_equals_url_is_a_usage_error() {
    for (bad, says) in [
        ("http://127.0.0.1:8080/v1", "is not NAME=URL"),
        ("local=127.0.0.1:8080", "is not NAME=URL"),
        ("Local=http://127.0.0.1:8080", "is not NAME=URL"),
        (
            "anthropic=http://127.0.0.1:8080",
            "names the Anthropic provider",
        ),
    ] {
        let mut tick = Tick::new()
            .bare()
            .expect_exit(2)
            .expect_stderr_contains(says);
        tick.thinker(&["init", "--provider", bad]);
        assert!(!tick.home().join(".config/thinker").exists(), "{bad}");
    }
    let mut tick = Tick::new()
        .bare()
        .expect_exit(2)
        .expect_stderr_contains("--provider");
    tick.thinker(&["init", "--model", "m"]);
}

/// The env file: next to the config, where `thinker cron` sources it from; mode 0600;
/// the variable names the config needs, commented out, never a value (even one set);
/// an existing one is kept byte for byte.
#[test]
fn the_env_file_cron_sources_is_written_once_with_names_only() {
    use std::os::unix::fs::PermissionsExt;
    let bare = Tick::new().bare();
    let empty = bin_with(&bare, &[]);
    let (mut tick, _, out) = init(
        bare.env("PATH", &empty),
        &["GROQ_API_KEY", "ANTHROPIC_API_KEY"],
        &[],
    );
    let env = tick.home().join("cfg/env");
    let mode = fs::metadata(&env).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let text = fs::read_to_string(&env).unwrap();
    assert!(!text.contains("a-key-value"));
    assert!(
        text.lines().all(|l| l.starts_with('#')),
        "only comments until the user fills it in:\n{text}"
    );
    let home = tick.home().display().to_string();
    insta::assert_snapshot!("init_env_file", text.replace(&home, "[home]"));
    assert!(
        out.stdout
            .contains(&format!("wrote {} (mode 0600", env.display())),
        "{}",
        out.stdout
    );
    // `thinker cron` sources this very file.
    let config = tick.path("cfg/config.toml");
    let cron = tick.thinker(&["cron", "--config", &config]);
    assert!(
        cron.stdout.contains(&format!(". {};", env.display())),
        "{}",
        cron.stdout
    );

    // A second init elsewhere with the same config directory keeps the env file.
    fs::write(&env, "GROQ_API_KEY=mine\n").unwrap();
    fs::remove_file(tick.home().join("cfg/config.toml")).unwrap();
    let state = tick.path("state2");
    let out = tick.thinker(&["init", "--config", &config, "--state", &state]);
    out.expect_exit(0);
    assert_eq!(fs::read_to_string(&env).unwrap(), "GROQ_API_KEY=mine\n");
    assert!(out.stdout.contains("kept "), "{}", out.stdout);
}

/// A directory holding these programs (scripts that exit 0), for `PATH`.
fn bin_with(tick: &Tick, programs: &[&str]) -> String {
    use std::os::unix::fs::PermissionsExt;
    let dir = tick.home().join("bin");
    fs::create_dir_all(&dir).unwrap();
    for p in programs {
        let file = dir.join(p);
        fs::write(&file, "#!/bin/sh\nexit 0\n").unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o755)).unwrap();
    }
    dir.display().to_string()
}

/// Issue 31: notify-send only in a desktop session; else apprise if it is there; else
/// no notifier, and then `doctor --offline` has no FAIL (the notifier a warning).
#[test]
fn the_notifier_fits_the_machine_and_doctor_passes_on_what_init_wrote() {
    let notifier = |config: &Config| config.escalation.notify_command.join(" ");

    // No desktop session, nothing on PATH: none, commented out, with the note.
    let bare = Tick::new().bare();
    let empty = bin_with(&bare, &[]);
    let (mut tick, text, out) = init(
        bare.env("PATH", &empty),
        &["GROQ_API_KEY", "ANTHROPIC_API_KEY"],
        &[],
    );
    let config = Config::parse(&text, None).unwrap();
    assert_eq!(notifier(&config), "");
    assert!(text.contains("`thinker notify --test`"), "{text}");
    assert!(
        text.contains(
            "# notify_command = [\"xargs\", \"-0\", \"notify-send\", \"--\", \"thinker\"]"
        )
    );
    assert!(out.stdout.contains("notifier: none"), "{}", out.stdout);
    let (config_path, state) = (tick.path("cfg/config.toml"), tick.path("state"));
    let doctor = tick.thinker(&[
        "doctor",
        "--offline",
        "--config",
        &config_path,
        "--state",
        &state,
    ]);
    assert!(
        doctor.stdout.contains("ok   key groq: GROQ_API_KEY is set"),
        "{}",
        doctor.stdout
    );
    assert!(
        doctor.stdout.contains("ok   state: readable, 0 entries"),
        "{}",
        doctor.stdout
    );
    assert!(
        doctor
            .stdout
            .lines()
            .any(|l| l.starts_with("warn notifier:")),
        "{}",
        doctor.stdout
    );
    assert!(
        !doctor.stdout.lines().any(|l| l.starts_with("FAIL")),
        "{}",
        doctor.stdout
    );
    assert_eq!(doctor.code, Some(0));

    // apprise on PATH: apprise, its URLs to set in the env file.
    let t = Tick::new().bare();
    let bin = bin_with(&t, &["apprise", "xargs"]);
    let (t, text, out) = init(t.env("PATH", &bin), &["GROQ_API_KEY"], &[]);
    assert_eq!(
        notifier(&Config::parse(&text, None).unwrap()),
        "apprise -t thinker"
    );
    assert!(out.stdout.contains("notifier: apprise"), "{}", out.stdout);
    let env = fs::read_to_string(t.home().join("cfg/env")).unwrap();
    assert!(env.contains("\n# APPRISE_URLS=\n"), "{env}");

    // A desktop session with notify-send (even with apprise there too): notify-send.
    for var in ["DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS"] {
        let t = Tick::new().bare();
        let bin = bin_with(&t, &["apprise", "xargs", "notify-send"]);
        let (t, text, _) = init(t.env("PATH", &bin).env(var, "x"), &["GROQ_API_KEY"], &[]);
        assert_eq!(
            notifier(&Config::parse(&text, None).unwrap()),
            "xargs -0 notify-send -- thinker",
            "{var}"
        );
        let env = fs::read_to_string(t.home().join("cfg/env")).unwrap();
        assert!(env.contains("\n# DBUS_SESSION_BUS_ADDRESS=\n"), "{env}");
    }
}
