//! `thinker init` detecting providers (issue 12), through the binary: a table of
//! environments (key variables set or not, a fake Ollama — a `TcpListener` on loopback,
//! found through `THINKER_OLLAMA_URL` — or a closed port) → the config written parses and
//! uses exactly the providers found; one written config is snapshotted.

use std::collections::BTreeSet;
use std::fs;
use std::net::TcpListener;

use thinker::config::Config;

use crate::support::Tick;

/// A row: the variables set, whether Ollama is up, the providers in the config written,
/// the escalation's model.
type Row<'a> = (&'a [&'a str], bool, &'a [&'a str], Option<&'a str>);

/// An address on loopback that refuses connections (port 1).
const CLOSED: &str = "127.0.0.1:1";

/// Runs `init` in a fresh home with `vars` set (and `THINKER_OLLAMA_URL`), returns the
/// setup, the config text and stderr.
fn init(vars: &[&str], ollama: &str) -> (Tick, String, String) {
    let mut tick = Tick::new().bare().env("THINKER_OLLAMA_URL", ollama);
    for var in vars {
        tick = tick.env(var, "a-key-value");
    }
    let (config, state) = (tick.path("cfg/config.toml"), tick.path("state"));
    let out = tick.thinker(&["init", "--config", &config, "--state", &state]);
    out.expect_exit(0);
    let text = fs::read_to_string(&config).unwrap();
    assert!(!text.contains("a-key-value"), "a key's value was written");
    (tick, text, out.stderr)
}

#[test]
fn the_config_written_parses_and_uses_the_providers_found() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let ollama = listener.local_addr().unwrap().to_string();
    #[rustfmt::skip]
    let table: &[Row] = &[
        // vars set, Ollama up, providers in the config, escalation model
        (&[], false, &["anthropic", "groq", "ollama"], Some("anthropic/claude-opus-5")),
        (&["GROQ_API_KEY"], false, &["groq"], None),
        (&["ANTHROPIC_API_KEY"], false, &["anthropic"], Some("anthropic/claude-opus-5")),
        (&["GEMINI_API_KEY", "OPENROUTER_API_KEY"], false, &["gemini", "openrouter"], None),
        (&["OPENAI_API_KEY", "ANTHROPIC_API_KEY"], true, &["anthropic", "ollama", "openai"], Some("anthropic/claude-opus-5")),
        (&[], true, &["ollama"], None),
        (&["GROQ_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"], true,
         &["anthropic", "gemini", "groq", "ollama", "openai", "openrouter"], Some("anthropic/claude-opus-5")),
    ];
    for (vars, up, providers, escalation) in table {
        let (_tick, text, stderr) = init(vars, if *up { &ollama } else { CLOSED });
        let config = Config::parse(&text, None).unwrap_or_else(|e| panic!("{vars:?}: {e}"));
        config.check_threads().unwrap();
        let names: BTreeSet<&str> = config.providers.keys().map(String::as_str).collect();
        assert_eq!(names, providers.iter().copied().collect(), "{vars:?} {up}");
        let primary = config.escalation.models.first().map(ToString::to_string);
        assert_eq!(primary.as_deref(), *escalation, "{vars:?} {up}");
        if *up {
            assert!(
                text.contains(&format!("base_url = \"http://{ollama}\"")),
                "{text}"
            );
            assert!(
                stderr.contains(&format!("ollama: answering at http://{ollama}")),
                "{stderr}"
            );
        } else {
            assert!(stderr.contains("ollama: not found"), "{stderr}");
        }
        if vars.is_empty() && !up {
            assert!(
                text.starts_with("# `thinker init` found no provider"),
                "{text}"
            );
        }
        for var in *vars {
            assert!(stderr.contains(&format!("{var}: set")), "{stderr}");
        }
        assert!(stderr.contains("`thinker doctor`"), "{stderr}");
        assert!(stderr.contains("`thinker tick --dry-run -v`"), "{stderr}");
    }
}

#[test]
fn a_written_config() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let ollama = listener.local_addr().unwrap().to_string();
    let (_tick, text, _) = init(&["GROQ_API_KEY", "ANTHROPIC_API_KEY"], &ollama);
    insta::assert_snapshot!(
        "init_groq_anthropic_ollama",
        text.replace(&ollama, "127.0.0.1:[PORT]")
    );
}

/// The walkthrough of the README: `init` with a key, then `doctor --offline` passes.
#[test]
fn doctor_passes_on_what_init_wrote() {
    let (mut tick, _, _) = init(&["GROQ_API_KEY", "ANTHROPIC_API_KEY"], CLOSED);
    let (config, state) = (tick.path("cfg/config.toml"), tick.path("state"));
    let out = tick.thinker(&[
        "doctor",
        "--offline",
        "--config",
        &config,
        "--state",
        &state,
    ]);
    assert!(
        out.stdout.contains("ok   key groq: GROQ_API_KEY is set"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("ok   state: readable, 0 entries"),
        "{}",
        out.stdout
    );
    // The default notifier (`xargs … notify-send`) is the one check that depends on the
    // machine: nothing else fails.
    let fails: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("FAIL"))
        .collect();
    assert!(
        fails.is_empty()
            || fails
                == [
                    "FAIL notifier: `notify-send` not found on PATH: install it, or change [escalation] notify_command"
                ],
        "{}",
        out.stdout
    );
    assert_eq!(out.code, Some(i32::from(!fails.is_empty())));
}
