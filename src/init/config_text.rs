//! The config `thinker init` writes: `config/default.toml` (every key commented) with its
//! providers replaced by the ones chosen, each thread's `model` / `fallback` and the
//! escalation's model set among them, and the notifier line set for this machine.
//!
//! Found by detection: free or cheap hosted models for the threads, the local servers as
//! fallbacks (first for the dreamer), Anthropic's only when nothing else is there; Opus
//! for the escalation when an Anthropic key is set, else the escalation's model left
//! commented out. Nothing found: the default config as it is (its notifier line
//! excepted), with a comment saying what to set. One server (`init --provider`): every
//! thread on it, no fallback; the escalation on Opus when an Anthropic key is set (that
//! server its fallback), else on that server too.
//!
//! Text only: must not do I/O.

use std::fmt::Write as _;

use super::cloud::Cloud;
use super::local::{LocalKind, LocalServer};
use super::notifier::Notifier;
use super::{Detected, OneServer};
use crate::config::DEFAULT_CONFIG;

/// The model a thread asks an OpenAI-compatible server for when none is known: what
/// llama-server accepts for the one model it serves.
pub const UNKNOWN_MODEL: &str = "default";

/// The config for what was found, or for one server.
pub fn config_text(d: &Detected, server: Option<&OneServer>) -> String {
    if server.is_none() && d.is_empty() {
        let vars: Vec<&str> = Cloud::ALL
            .map(Cloud::var)
            .into_iter()
            .chain(LocalKind::ALL.map(LocalKind::label))
            .collect();
        return format!(
            "# `thinker init` found no provider: none of {} was set or answering.\n\
             # This is the default config, which uses Groq and Ollama: set GROQ_API_KEY (free at\n\
             # https://console.groq.com), or start a local server and run\n\
             # `thinker init --provider local=http://127.0.0.1:8080/v1` instead, or change the\n\
             # providers below; then `thinker doctor`.\n\n{}",
            vars.join(", "),
            notifier_block(DEFAULT_CONFIG, d.notifier)
        );
    }
    let (head, rest) = split(DEFAULT_CONFIG, "[providers.groq]");
    let (_, rest) = split(rest, "# --- Threads");
    let (threads, escalation) = split(rest, "# --- Escalation");
    let mut out = header(d, server);
    out.push_str(head);
    if let Some(s) = server {
        out.push_str(&server_table(s));
        if d.has(Cloud::Anthropic) {
            out.push_str(Cloud::Anthropic.table());
            out.push('\n');
        }
    } else {
        for cloud in &d.clouds {
            if cloud.free_tier() {
                out.push_str(FREE_TIER_COMMENT);
            }
            out.push_str(cloud.table());
            out.push('\n');
        }
        for (local, name) in d.locals.iter().zip(local_names(&d.locals)) {
            out.push_str(&local_table(local, &name));
        }
    }
    out.push_str(&threads_block(threads, &|thread| match server {
        Some(s) => (s.model_ref(), Vec::new()),
        None => thread_models(d, thread),
    }));
    out.push_str(&notifier_block(
        &escalation_block(escalation, d, server),
        d.notifier,
    ));
    out
}

/// The comment on top: what init found, or the server it was given.
fn header(d: &Detected, server: Option<&OneServer>) -> String {
    if let Some(s) = server {
        let escalation = if d.has(Cloud::Anthropic) {
            "The escalation asks Claude Opus (ANTHROPIC_API_KEY was set), that server\n# as its fallback."
        } else {
            "So does the escalation (no ANTHROPIC_API_KEY was set)."
        };
        return format!(
            "# Written by `thinker init --provider {}={}`.\n\
             # Every thread asks that server for `{}`, with no fallback.\n\
             # {escalation}\n# Check it with `thinker doctor`.\n\n",
            s.name,
            s.url,
            s.model_name()
        );
    }
    let found: Vec<String> = d
        .clouds
        .iter()
        .map(|c| c.var().to_string())
        .chain(
            d.locals
                .iter()
                .map(|l| format!("{} at {}", article(l.kind), l.root)),
        )
        .collect();
    format!(
        "# Written by `thinker init`, which found: {}.\n# Check it with `thinker doctor`.\n\n",
        found.join(", ")
    )
}

/// "a llama-server", "an Ollama", "LM Studio".
fn article(kind: LocalKind) -> String {
    match kind {
        LocalKind::LlamaServer => "a llama-server".into(),
        LocalKind::LmStudio => "LM Studio".into(),
        LocalKind::Ollama => "an Ollama".into(),
    }
}

/// The providers' names of the local servers: their kind's, `-<port>` added to a second
/// one of a kind.
pub fn local_names(locals: &[LocalServer]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for l in locals {
        let base = l.kind.provider().to_string();
        let name = if names.contains(&base) {
            let port = l.root.rsplit(':').next().unwrap_or("2");
            format!("{base}-{port}")
        } else {
            base
        };
        names.push(name);
    }
    names
}

/// A local server's table.
fn local_table(l: &LocalServer, name: &str) -> String {
    let mut out = format!("[providers.{name}]\n");
    if l.kind.native_ollama() {
        let _ = writeln!(
            out,
            "kind = \"ollama\"\nbase_url = \"{}\"\ntimeout_seconds = 120\n\
             # Ollama answers one request at a time unless OLLAMA_NUM_PARALLEL says otherwise.\n\
             concurrency = 1",
            l.base_url()
        );
        if super::local::chat_model(&l.models).is_none() {
            let _ = writeln!(
                out,
                "# Pull the model first: `ollama pull {}`.",
                super::local::OLLAMA_DEFAULT_MODEL
            );
        }
    } else {
        let _ = writeln!(
            out,
            "# {} on this machine (private text reaches it as it is: [privacy]). It answers one\n\
             # request at a time here: raise concurrency to its slots (llama-server's --parallel).\n\
             kind = \"openai\"\nbase_url = \"{}\"\ntimeout_seconds = 120",
            l.kind.label(),
            l.base_url()
        );
        if l.model().is_none() {
            let _ = writeln!(
                out,
                "# It listed no model: the threads ask for `{UNKNOWN_MODEL}`, which llama-server takes for\n\
                 # the one it serves. Another server needs the model's id: `curl {}/models`.",
                l.base_url()
            );
        }
    }
    out.push('\n');
    out
}

/// `init --provider`'s table.
fn server_table(s: &OneServer) -> String {
    let mut out = format!(
        "[providers.{}]\n\
         # The OpenAI-compatible server `thinker init --provider` was given. On this machine\n\
         # (localhost, 127.x.x.x, ::1) private text reaches it as it is, and it answers one\n\
         # request at a time: raise concurrency to its slots (llama-server's --parallel).\n\
         # A server that wants a key: api_key_env = \"NAME_OF_ITS_VARIABLE\".\n\
         kind = \"openai\"\nbase_url = \"{}\"\ntimeout_seconds = 120\n",
        s.name, s.url
    );
    if s.model.is_none() {
        let _ = writeln!(
            out,
            "# It listed no model and none was given (--model): the threads ask for `{UNKNOWN_MODEL}`,\n\
             # which llama-server takes for the one it serves. Another server needs the model's\n\
             # id in each `model` below: `curl {}/models` lists them.",
            s.url
        );
    }
    out.push('\n');
    out
}

/// Above a free tier's table: what leaves, and how to keep mail local.
const FREE_TIER_COMMENT: &str = "\
# REMOTE, FREE TIER: what thinker sends this provider leaves this machine, and a free
# tier's terms may allow it to train on what it receives. Private text (mail,
# transcripts, files in the agent's memory directory) reaches it with personal data
# replaced ([privacy] private_to = \"redacted\", the default). To keep mail on this
# machine, set private_to = \"local\" under [privacy] and give the threads a local model
# (Ollama) first or as a fallback; `thinker prompt watcher --as-sent` shows what leaves.
";

/// `text` split before `marker` (all of it first when the marker is missing).
fn split<'a>(text: &'a str, marker: &str) -> (&'a str, &'a str) {
    text.find(marker).map_or((text, ""), |at| text.split_at(at))
}

/// The providers the threads use, best first: hosted free or cheap ones, then the local
/// servers; Anthropic only when nothing else is there. Each with its (light, for watcher
/// and librarian; stronger, for oracle and dreamer) models.
fn thread_providers(d: &Detected) -> Vec<(String, (String, String))> {
    let mut list: Vec<(String, (String, String))> = d
        .clouds
        .iter()
        .filter(|c| **c != Cloud::Anthropic)
        .map(|c| {
            let (light, heavy) = c.models();
            (c.name().to_string(), (light.to_string(), heavy.to_string()))
        })
        .collect();
    for (l, name) in d.locals.iter().zip(local_names(&d.locals)) {
        let model = l.model().unwrap_or_else(|| UNKNOWN_MODEL.to_string());
        list.push((name, (model.clone(), model)));
    }
    if list.is_empty() && d.has(Cloud::Anthropic) {
        let (light, heavy) = Cloud::Anthropic.models();
        list.push((
            Cloud::Anthropic.name().into(),
            (light.to_string(), heavy.to_string()),
        ));
    }
    list
}

/// The `model` and `fallback` of each thread.
pub fn thread_models(d: &Detected, thread: &str) -> (String, Vec<String>) {
    let list = thread_providers(d);
    let strong = matches!(thread, "oracle" | "dreamer");
    let pick = |(p, (light, heavy)): &(String, (String, String))| {
        format!("{p}/{}", if strong { heavy } else { light })
    };
    let mut order: Vec<String> = list.iter().map(pick).collect();
    // The dreamer runs rarely and its musings need no speed: a local model first.
    if thread == "dreamer"
        && let Some(first_local) = d.locals.first()
    {
        let name = &local_names(&d.locals)[0];
        let model = first_local
            .model()
            .unwrap_or_else(|| UNKNOWN_MODEL.to_string());
        let local = format!("{name}/{model}");
        order.retain(|m| *m != local);
        order.insert(0, local);
    }
    let mut rest = order.split_off(1.min(order.len()));
    rest.truncate(2);
    (order.pop().unwrap_or_default(), rest)
}

/// `models` as a TOML array of strings.
fn quoted(models: &[String]) -> String {
    let quoted: Vec<String> = models.iter().map(|m| format!("\"{m}\"")).collect();
    format!("[{}]", quoted.join(", "))
}

/// The threads' part of the default config with each thread's models replaced.
fn threads_block(block: &str, models: &dyn Fn(&str) -> (String, Vec<String>)) -> String {
    let mut out = String::new();
    let mut thread = "";
    for line in block.lines() {
        if let Some(name) = line
            .strip_prefix("[threads.")
            .and_then(|l| l.strip_suffix(']'))
        {
            thread = name;
        }
        if line.starts_with("fallback = ") {
            continue;
        }
        if line.starts_with("model = ") && !thread.is_empty() {
            let (model, fallback) = models(thread);
            let _ = writeln!(out, "model = \"{model}\"");
            if !fallback.is_empty() {
                let _ = writeln!(out, "fallback = {}", quoted(&fallback));
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The escalation's part: Opus when an Anthropic key is set (one server: that server its
/// fallback); else one server's model, or the model commented out with what to set.
fn escalation_block(block: &str, d: &Detected, server: Option<&OneServer>) -> String {
    let anthropic = d.has(Cloud::Anthropic);
    let mut out = String::new();
    for line in block.lines() {
        let is_model = line.starts_with("model = ");
        let is_fallback = line.starts_with("# fallback = ") || line.starts_with("fallback = ");
        match (server, anthropic) {
            (Some(s), true) if is_fallback => {
                let _ = writeln!(out, "fallback = {}", quoted(&[s.model_ref()]));
            }
            (Some(s), false) if is_model => {
                let _ = writeln!(
                    out,
                    "# No ANTHROPIC_API_KEY was set: the server's model decides. A frontier model decides\n\
                     # better: set the key, add [providers.anthropic] (kind = \"anthropic\",\n\
                     # api_key_env = \"ANTHROPIC_API_KEY\") and put \"anthropic/claude-opus-5\" here.\n\
                     model = \"{}\"",
                    s.model_ref()
                );
            }
            (None, false) if is_model => {
                let _ = writeln!(
                    out,
                    "# No ANTHROPIC_API_KEY was set: without a model, an escalation is recorded as\n\
                     # failed. Set the key, add a [providers.anthropic] table (kind = \"anthropic\",\n\
                     # api_key_env = \"ANTHROPIC_API_KEY\") and uncomment:\n# {line}"
                );
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// `text` with its (first, uncommented) `notify_command` line set for `notifier`: the
/// comment line just above it, the default's, moves along with it.
fn notifier_block(text: &str, notifier: Notifier) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let Some(at) = lines
        .iter()
        .position(|l| l.starts_with("notify_command = "))
    else {
        return text.to_string();
    };
    let comment = at
        .checked_sub(1)
        .map(|i| lines[i])
        .filter(|l| l.starts_with("# notify-send"));
    let from = if comment.is_some() { at - 1 } else { at };
    let mut out = String::new();
    for l in &lines[..from] {
        out.push_str(l);
        out.push('\n');
    }
    out.push_str(&notifier.config_lines(comment, lines[at]));
    for l in &lines[at + 1..] {
        out.push_str(l);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn local(kind: LocalKind, port: u16, models: &[&str]) -> LocalServer {
        LocalServer {
            kind,
            root: format!("http://127.0.0.1:{port}"),
            models: models.iter().map(|m| (*m).to_string()).collect(),
        }
    }

    /// Every subset of the hosted providers, with and without each kind of local server,
    /// under each notifier.
    fn every_environment() -> Vec<Detected> {
        let locals = [
            vec![],
            vec![local(LocalKind::Ollama, 11434, &[])],
            vec![local(LocalKind::LlamaServer, 8080, &["qwen"])],
            vec![
                local(LocalKind::LmStudio, 1234, &[]),
                local(LocalKind::LlamaServer, 8080, &["qwen"]),
                local(LocalKind::LlamaServer, 8081, &[]),
            ],
        ];
        let mut all = Vec::new();
        for mask in 0u32..(1 << Cloud::ALL.len()) {
            let clouds: Vec<Cloud> = Cloud::ALL
                .into_iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, c)| c)
                .collect();
            for (i, locals) in locals.iter().enumerate() {
                let notifier = [Notifier::Desktop, Notifier::Apprise, Notifier::None][i % 3];
                all.push(Detected {
                    clouds: clouds.clone(),
                    locals: locals.clone(),
                    notifier,
                    ..Detected::default()
                });
            }
        }
        all
    }

    fn escalation(config: &Config) -> Vec<String> {
        config
            .escalation
            .models
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    fn notifier_of(config: &Config) -> Notifier {
        match config.escalation.notify_command.first().map(String::as_str) {
            Some("xargs") => Notifier::Desktop,
            Some("apprise") => Notifier::Apprise,
            None => Notifier::None,
            Some(other) => panic!("{other}"),
        }
    }

    #[test]
    fn every_written_config_parses_and_uses_only_what_was_found() {
        for d in every_environment() {
            let text = config_text(&d, None);
            let config =
                Config::parse(&text, None).unwrap_or_else(|e| panic!("{d:?}: {e}\n{text}"));
            config.check_threads().unwrap();
            assert_eq!(notifier_of(&config), d.notifier, "{d:?}");
            if d.is_empty() {
                assert!(text.starts_with("# `thinker init` found no provider"));
                continue;
            }
            let mut expected: Vec<String> = d.clouds.iter().map(|c| c.name().into()).collect();
            expected.extend(local_names(&d.locals));
            expected.sort();
            assert_eq!(
                config.providers.keys().cloned().collect::<Vec<_>>(),
                expected,
                "{d:?}"
            );
            for t in config.threads.iter().flatten() {
                for m in &t.models {
                    assert!(config.providers.contains_key(&m.provider), "{d:?}: {m}");
                }
                // A thread's primary model is Anthropic's only when nothing cheaper exists.
                if t.models[0].provider == "anthropic" {
                    assert_eq!(d.clouds, vec![Cloud::Anthropic], "{d:?}");
                    assert!(d.locals.is_empty());
                }
            }
            if d.has(Cloud::Anthropic) {
                assert_eq!(
                    escalation(&config),
                    vec!["anthropic/claude-opus-5"],
                    "{d:?}"
                );
            } else {
                assert!(escalation(&config).is_empty(), "{d:?}");
            }
        }
    }

    #[test]
    fn one_server_takes_every_thread_and_the_escalation_unless_anthropic() {
        let server = OneServer {
            name: "local".into(),
            url: "http://127.0.0.1:8080/v1".into(),
            model: Some("qwen2.5".into()),
            model_given: false,
        };
        for clouds in [vec![], vec![Cloud::Groq, Cloud::Anthropic]] {
            let d = Detected {
                clouds: clouds.clone(),
                ..Detected::default()
            };
            let text = config_text(&d, Some(&server));
            let config = Config::parse(&text, None).unwrap_or_else(|e| panic!("{e}\n{text}"));
            for t in config.threads.iter().flatten() {
                let models: Vec<String> = t.models.iter().map(ToString::to_string).collect();
                assert_eq!(models, vec!["local/qwen2.5"], "{text}");
            }
            let anthropic = clouds.contains(&Cloud::Anthropic);
            let names: Vec<&String> = config.providers.keys().collect();
            let want = if anthropic {
                vec!["anthropic", "local"]
            } else {
                vec!["local"]
            };
            assert_eq!(names, want);
            assert_eq!(config.providers["local"].base_url, server.url);
            let want = if anthropic {
                vec!["anthropic/claude-opus-5", "local/qwen2.5"]
            } else {
                vec!["local/qwen2.5"]
            };
            assert_eq!(escalation(&config), want, "{text}");
        }
        let unknown = OneServer {
            model: None,
            ..server
        };
        let text = config_text(&Detected::default(), Some(&unknown));
        assert!(text.contains("model = \"local/default\""), "{text}");
        assert!(
            text.contains("`curl http://127.0.0.1:8080/v1/models`"),
            "{text}"
        );
    }

    #[test]
    fn threads_prefer_free_tiers_and_the_dreamer_a_local_model() {
        let d = Detected {
            clouds: vec![Cloud::Groq, Cloud::OpenAi, Cloud::Anthropic],
            locals: vec![local(LocalKind::Ollama, 11434, &["llama3.2:latest"])],
            ..Detected::default()
        };
        assert_eq!(
            thread_models(&d, "watcher"),
            (
                "groq/openai/gpt-oss-20b".into(),
                vec!["openai/gpt-5-nano".into(), "ollama/llama3.2:latest".into()]
            )
        );
        assert_eq!(thread_models(&d, "oracle").0, "groq/openai/gpt-oss-120b");
        assert_eq!(
            thread_models(&d, "dreamer"),
            (
                "ollama/llama3.2:latest".into(),
                vec![
                    "groq/openai/gpt-oss-120b".into(),
                    "openai/gpt-5-mini".into()
                ]
            )
        );
    }

    #[test]
    fn a_second_server_of_a_kind_is_named_by_its_port() {
        let locals = [
            local(LocalKind::LlamaServer, 8080, &[]),
            local(LocalKind::LlamaServer, 8081, &[]),
            local(LocalKind::Ollama, 11434, &[]),
        ];
        assert_eq!(
            local_names(&locals),
            vec!["llamacpp", "llamacpp-8081", "ollama"]
        );
    }
}
