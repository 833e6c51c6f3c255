//! `thinker init`'s work: finds which providers this machine can use (the key variables
//! set in the environment, a local Ollama answering on its port), writes a commented
//! config that uses them, and an empty state; refuses to overwrite either. The command
//! itself (paths, output) is `cmd::init`.
//!
//! The config is `config/default.toml` (every key commented) with its providers replaced
//! by the ones found and the threads' and the escalation's models chosen among them:
//! free or cheap models for the threads, Opus for the escalation when an Anthropic key is
//! set. Nothing found: the default config as it is, with a comment saying what to set.
//! Asks nothing; reads no key's value (only whether it is set) and never writes one.

use std::fmt::Write as _;
use std::fs;
use std::io::Write;
use std::net::{TcpStream, ToSocketAddrs};
use std::path::Path;
use std::time::Duration;

use crate::config::DEFAULT_CONFIG;
use crate::error::Error;
use crate::state::State;
use crate::storage::{STATE_FILE, StateDir};

/// Ollama's default address.
pub const OLLAMA_DEFAULT_URL: &str = "http://127.0.0.1:11434";
/// The variable that moves where `init` looks for Ollama (tests, a remote Ollama).
pub const OLLAMA_URL_VAR: &str = "THINKER_OLLAMA_URL";
/// How long the connect to Ollama may take: it is on this machine, or not there.
const OLLAMA_CONNECT_TIMEOUT: Duration = Duration::from_millis(300);

/// A hosted provider `init` knows, found by its key variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cloud {
    Groq,
    Gemini,
    OpenRouter,
    OpenAi,
    Anthropic,
}

impl Cloud {
    /// In the order of preference for the threads: free tiers first.
    pub const ALL: [Cloud; 5] = [
        Cloud::Groq,
        Cloud::Gemini,
        Cloud::OpenRouter,
        Cloud::OpenAi,
        Cloud::Anthropic,
    ];

    /// The provider's name in the config.
    pub fn name(self) -> &'static str {
        match self {
            Cloud::Groq => "groq",
            Cloud::Gemini => "gemini",
            Cloud::OpenRouter => "openrouter",
            Cloud::OpenAi => "openai",
            Cloud::Anthropic => "anthropic",
        }
    }

    /// The variable that holds its key.
    pub fn var(self) -> &'static str {
        match self {
            Cloud::Groq => "GROQ_API_KEY",
            Cloud::Gemini => "GEMINI_API_KEY",
            Cloud::OpenRouter => "OPENROUTER_API_KEY",
            Cloud::OpenAi => "OPENAI_API_KEY",
            Cloud::Anthropic => "ANTHROPIC_API_KEY",
        }
    }

    /// A remote free tier, whose terms may allow training on what it receives: `init`
    /// says so in the config and in its output (SPEC §9).
    pub fn free_tier(self) -> bool {
        matches!(self, Cloud::Groq | Cloud::Gemini | Cloud::OpenRouter)
    }

    /// The thread models: (light, for watcher and librarian; stronger, for oracle and
    /// dreamer).
    fn models(self) -> (&'static str, &'static str) {
        match self {
            Cloud::Groq => ("openai/gpt-oss-20b", "openai/gpt-oss-120b"),
            Cloud::Gemini => ("gemini-2.5-flash-lite", "gemini-2.5-flash"),
            Cloud::OpenRouter => ("openai/gpt-oss-20b:free", "openai/gpt-oss-120b:free"),
            Cloud::OpenAi => ("gpt-5-nano", "gpt-5-mini"),
            Cloud::Anthropic => ("claude-haiku-4-5", "claude-haiku-4-5"),
        }
    }

    /// Its `[providers.<name>]` table, commented.
    fn table(self) -> &'static str {
        match self {
            Cloud::Groq => {
                "[providers.groq]
# Groq's free tier: about 30 requests a minute per model.
kind = \"openai\"
base_url = \"https://api.groq.com/openai/v1\"
api_key_env = \"GROQ_API_KEY\"
requests_per_minute = 30
# gpt-oss-120b's prices, the dearer of the two models used below.
price_in = 0.15
price_out = 0.60
"
            }
            Cloud::Gemini => {
                "[providers.gemini]
# Google's OpenAI-compatible endpoint; the free tier allows about 10 requests a minute.
kind = \"openai\"
base_url = \"https://generativelanguage.googleapis.com/v1beta/openai\"
api_key_env = \"GEMINI_API_KEY\"
requests_per_minute = 10
# gemini-2.5-flash's paid prices (the free tier costs nothing, within its limits).
price_in = 0.30
price_out = 2.50
"
            }
            Cloud::OpenRouter => {
                "[providers.openrouter]
# OpenRouter: models ending in `:free` cost nothing (about 20 requests a minute and a
# daily cap). Set price_in / price_out if you choose paid models here.
kind = \"openai\"
base_url = \"https://openrouter.ai/api/v1\"
api_key_env = \"OPENROUTER_API_KEY\"
requests_per_minute = 20
"
            }
            Cloud::OpenAi => {
                "[providers.openai]
kind = \"openai\"
base_url = \"https://api.openai.com/v1\"
api_key_env = \"OPENAI_API_KEY\"
# gpt-5-mini's prices, the dearer of the two models used below.
price_in = 0.25
price_out = 2.0
"
            }
            Cloud::Anthropic => {
                "[providers.anthropic]
kind = \"anthropic\"
base_url = \"https://api.anthropic.com\"
api_key_env = \"ANTHROPIC_API_KEY\"
# Claude Opus's prices (the escalation's model): what the budget counts for every call.
price_in = 5.0
price_out = 25.0
"
            }
        }
    }
}

/// What `init` found on this machine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Detected {
    /// Hosted providers whose key variable is set (not empty), in [`Cloud::ALL`] order.
    pub clouds: Vec<Cloud>,
    /// The base URL of an Ollama that accepted a connection.
    pub ollama: Option<String>,
}

impl Detected {
    /// Nothing usable was found.
    pub fn is_empty(&self) -> bool {
        self.clouds.is_empty() && self.ollama.is_none()
    }

    fn has(&self, cloud: Cloud) -> bool {
        self.clouds.contains(&cloud)
    }
}

/// Looks at the key variables (through `env`: set and not empty) and for an Ollama at
/// `$THINKER_OLLAMA_URL` or its default address (a TCP connect of at most 300 ms).
pub fn detect(env: &dyn Fn(&str) -> Option<String>) -> Detected {
    let clouds = Cloud::ALL
        .into_iter()
        .filter(|c| env(c.var()).is_some_and(|v| !v.trim().is_empty()))
        .collect();
    let url = ollama_url(env(OLLAMA_URL_VAR).as_deref());
    let ollama = listening(&url).then_some(url);
    Detected { clouds, ollama }
}

/// Ollama's base URL from `$THINKER_OLLAMA_URL` (`http://` added to a bare `host:port`),
/// else the default.
fn ollama_url(var: Option<&str>) -> String {
    match var.map(str::trim).filter(|v| !v.is_empty()) {
        None => OLLAMA_DEFAULT_URL.to_string(),
        Some(v) if v.starts_with("http://") || v.starts_with("https://") => {
            v.trim_end_matches('/').to_string()
        }
        Some(v) => format!("http://{}", v.trim_end_matches('/')),
    }
}

/// Whether something accepts a TCP connection at the URL's host and port.
fn listening(url: &str) -> bool {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .unwrap_or(url);
    let host_port = rest.split('/').next().unwrap_or(rest);
    let with_port = if host_port
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
    {
        host_port.to_string()
    } else {
        format!("{host_port}:11434")
    };
    with_port
        .to_socket_addrs()
        .ok()
        .and_then(|mut addrs| addrs.next())
        .is_some_and(|addr| TcpStream::connect_timeout(&addr, OLLAMA_CONNECT_TIMEOUT).is_ok())
}

/// The providers the threads use, best first: hosted free or cheap ones, then Ollama;
/// Anthropic only when nothing else is there.
fn thread_providers(d: &Detected) -> Vec<(String, (&'static str, &'static str))> {
    let mut list: Vec<(String, (&'static str, &'static str))> = d
        .clouds
        .iter()
        .filter(|c| **c != Cloud::Anthropic)
        .map(|c| (c.name().to_string(), c.models()))
        .collect();
    if d.ollama.is_some() {
        list.push(("ollama".into(), ("llama3.2", "llama3.2")));
    }
    if list.is_empty() && d.has(Cloud::Anthropic) {
        list.push(("anthropic".into(), Cloud::Anthropic.models()));
    }
    list
}

/// The `model` and `fallback` lines of each thread.
fn thread_models(d: &Detected, thread: &str) -> (String, Vec<String>) {
    let list = thread_providers(d);
    let strong = matches!(thread, "oracle" | "dreamer");
    let pick = |(p, (light, heavy)): &(String, (&str, &str))| {
        format!("{p}/{}", if strong { heavy } else { light })
    };
    let mut order: Vec<String> = list.iter().map(pick).collect();
    // The dreamer runs rarely and its musings need no speed: a local model first.
    if thread == "dreamer" && d.ollama.is_some() {
        order.retain(|m| !m.starts_with("ollama/"));
        order.insert(0, "ollama/llama3.2".into());
    }
    let mut rest = order.split_off(1.min(order.len()));
    rest.truncate(2);
    (order.pop().unwrap_or_default(), rest)
}

/// The config `init` writes for what was found.
pub fn config_text(d: &Detected) -> String {
    if d.is_empty() {
        return format!(
            "# `thinker init` found no provider: none of {} was set, and no Ollama answered\n\
             # at {OLLAMA_DEFAULT_URL}. This is the default config, which uses Groq and Ollama:\n\
             # set GROQ_API_KEY (free at https://console.groq.com), or start Ollama, or change the\n\
             # providers below; then `thinker doctor`.\n\n{DEFAULT_CONFIG}",
            Cloud::ALL.map(Cloud::var).join(", ")
        );
    }
    let (head, rest) = split(DEFAULT_CONFIG, "[providers.groq]");
    let (_, rest) = split(rest, "# --- Threads");
    let (threads, escalation) = split(rest, "# --- Escalation");
    let mut out = String::new();
    let found: Vec<String> = d
        .clouds
        .iter()
        .map(|c| c.var().to_string())
        .chain(d.ollama.iter().map(|u| format!("an Ollama at {u}")))
        .collect();
    let _ = writeln!(
        out,
        "# Written by `thinker init`, which found: {}.\n# Check it with `thinker doctor`.\n",
        found.join(", ")
    );
    out.push_str(head);
    for cloud in &d.clouds {
        if cloud.free_tier() {
            out.push_str(FREE_TIER_COMMENT);
        }
        out.push_str(cloud.table());
        out.push('\n');
    }
    if let Some(url) = &d.ollama {
        let _ = writeln!(
            out,
            "[providers.ollama]\nkind = \"ollama\"\nbase_url = \"{url}\"\ntimeout_seconds = 120\n\
             # Ollama answers one request at a time unless OLLAMA_NUM_PARALLEL says otherwise.\n\
             concurrency = 1\n# Pull the model first: `ollama pull llama3.2`.\n"
        );
    }
    out.push_str(&threads_block(threads, d));
    out.push_str(&escalation_block(escalation, d));
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

/// The threads' part of the default config with each thread's models replaced.
fn threads_block(block: &str, d: &Detected) -> String {
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
            let (model, fallback) = thread_models(d, thread);
            let _ = writeln!(out, "model = \"{model}\"");
            if !fallback.is_empty() {
                let quoted: Vec<String> = fallback.iter().map(|m| format!("\"{m}\"")).collect();
                let _ = writeln!(out, "fallback = [{}]", quoted.join(", "));
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The escalation's part: Opus when an Anthropic key is set, else the model commented
/// out with what to set.
fn escalation_block(block: &str, d: &Detected) -> String {
    if d.has(Cloud::Anthropic) {
        return block.to_string();
    }
    let mut out = String::new();
    for line in block.lines() {
        if line.starts_with("model = ") {
            let _ = writeln!(
                out,
                "# No ANTHROPIC_API_KEY was set: without a model, an escalation is recorded as\n\
                 # failed. Set the key, add a [providers.anthropic] table (kind = \"anthropic\",\n\
                 # api_key_env = \"ANTHROPIC_API_KEY\") and uncomment:\n# {line}"
            );
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// What `init` tells a person about what it found, and what to do next.
pub fn detected_text(d: &Detected) -> String {
    let mut out = String::new();
    for cloud in Cloud::ALL {
        let seen = if d.has(cloud) { "set" } else { "not set" };
        let _ = writeln!(out, "{}: {seen}", cloud.var());
    }
    match &d.ollama {
        Some(url) => {
            let _ = writeln!(out, "ollama: answering at {url}");
        }
        None => {
            let _ = writeln!(out, "ollama: not found");
        }
    }
    out
}

/// Writes `config_path` (for what `detected` holds) and an empty state in `state_dir`;
/// returns what it did, for people. Writes nothing if either already exists.
pub fn init(config_path: &Path, state_dir: &Path, detected: &Detected) -> Result<String, Error> {
    let state_path = state_dir.join(STATE_FILE);
    for existing in [config_path, state_path.as_path()] {
        if existing.exists() {
            return Err(Error::InitExists {
                path: existing.to_path_buf(),
            });
        }
    }
    // The state directory first: a path that cannot be one (under a file, a link in the
    // way) fails before the config is written, so a second `init` is not refused. If the
    // config then cannot be written, a directory made here is taken back.
    let made = !state_dir.exists();
    let dir = StateDir::create(state_dir)?;
    dir.refuse_link(STATE_FILE)?;
    if let Err(e) = write_config(config_path, &config_text(detected)) {
        if made {
            let _ = fs::remove_dir(state_dir);
        }
        return Err(e);
    }
    if let Err(e) = dir.save(&State::default()) {
        // The config was created by this call (create_new): take it back, so that
        // `init` can simply be run again once the state directory is fixed.
        let _ = fs::remove_file(config_path);
        return Err(e.into());
    }
    let first = if detected.is_empty() {
        "set one of the key variables above (or start Ollama) and edit the providers, then "
    } else {
        ""
    };
    Ok(format!(
        "{}wrote {}\nwrote {}\n{}next: {first}`thinker doctor` (checks keys, providers and sources), `thinker prompt watcher` (what a thread is sent) and `thinker tick --dry-run -v` (a tick that writes nothing)\n",
        detected_text(detected),
        config_path.display(),
        state_path.display(),
        free_tier_text(detected, config_path),
    ))
}

/// What `init` says when it wrote a remote free tier: that what it is sent leaves, and
/// how to keep mail local. Empty otherwise.
pub fn free_tier_text(d: &Detected, config_path: &Path) -> String {
    let free: Vec<&str> = d
        .clouds
        .iter()
        .filter(|c| c.free_tier())
        .map(|c| c.name())
        .collect();
    if free.is_empty() {
        return String::new();
    }
    let local = if d.ollama.is_some() {
        "the threads fall back to Ollama on this machine"
    } else {
        "start Ollama (or another local server) and add it to the threads' fallbacks"
    };
    format!(
        "note: {} {} a remote free tier: what thinker sends {} leaves this machine, and free tiers may train on it. Private text (mail, transcripts, memory files) is sent with personal data replaced. To keep mail on this machine, set private_to = \"local\" under [privacy] in {} ({local}); `thinker prompt watcher --as-sent` shows what leaves.\n",
        free.join(", "),
        if free.len() == 1 { "is" } else { "are" },
        if free.len() == 1 { "it" } else { "them" },
        config_path.display(),
    )
}

/// Writes the config `text` at `path` (never over an existing file).
fn write_config(path: &Path, text: &str) -> Result<(), Error> {
    let werr = |at: &Path| {
        let at = at.to_path_buf();
        move |source| Error::InitWrite { path: at, source }
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(werr(parent))?;
    }
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(werr(path))?;
    file.write_all(text.as_bytes()).map_err(werr(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    /// Every subset of the hosted providers, with and without Ollama.
    fn every_environment() -> Vec<Detected> {
        let mut all = Vec::new();
        for mask in 0u32..(1 << Cloud::ALL.len()) {
            let clouds: Vec<Cloud> = Cloud::ALL
                .into_iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, c)| c)
                .collect();
            for ollama in [None, Some(OLLAMA_DEFAULT_URL.to_string())] {
                all.push(Detected {
                    clouds: clouds.clone(),
                    ollama,
                });
            }
        }
        all
    }

    #[test]
    fn every_written_config_parses_and_uses_only_what_was_found() {
        for d in every_environment() {
            let text = config_text(&d);
            let config =
                Config::parse(&text, None).unwrap_or_else(|e| panic!("{d:?}: {e}\n{text}"));
            config.check_threads().unwrap();
            if d.is_empty() {
                assert_eq!(text.lines().count(), DEFAULT_CONFIG.lines().count() + 5);
                continue;
            }
            let mut expected: Vec<String> = d.clouds.iter().map(|c| c.name().into()).collect();
            if d.ollama.is_some() {
                expected.push("ollama".into());
            }
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
                    assert!(d.ollama.is_none());
                }
            }
            let escalation: Vec<String> = config
                .escalation
                .models
                .iter()
                .map(ToString::to_string)
                .collect();
            if d.has(Cloud::Anthropic) {
                assert_eq!(escalation, vec!["anthropic/claude-opus-5"], "{d:?}");
            } else {
                assert!(escalation.is_empty(), "{d:?}: {escalation:?}");
            }
        }
    }

    #[test]
    fn threads_prefer_free_tiers_and_the_dreamer_a_local_model() {
        let d = Detected {
            clouds: vec![Cloud::Groq, Cloud::OpenAi, Cloud::Anthropic],
            ollama: Some(OLLAMA_DEFAULT_URL.into()),
        };
        assert_eq!(
            thread_models(&d, "watcher"),
            (
                "groq/openai/gpt-oss-20b".into(),
                vec!["openai/gpt-5-nano".into(), "ollama/llama3.2".into()]
            )
        );
        assert_eq!(thread_models(&d, "oracle").0, "groq/openai/gpt-oss-120b");
        assert_eq!(
            thread_models(&d, "dreamer"),
            (
                "ollama/llama3.2".into(),
                vec![
                    "groq/openai/gpt-oss-120b".into(),
                    "openai/gpt-5-mini".into()
                ]
            )
        );
    }

    #[test]
    fn detect_reads_only_set_and_non_empty_variables() {
        let env = |var: &str| match var {
            "GEMINI_API_KEY" => Some("k".to_string()),
            "OPENAI_API_KEY" => Some("  ".to_string()),
            // Port 1 on loopback: nothing listens there.
            OLLAMA_URL_VAR => Some("127.0.0.1:1".to_string()),
            _ => None,
        };
        let d = detect(&env);
        assert_eq!(d.clouds, vec![Cloud::Gemini]);
        assert_eq!(d.ollama, None);
    }

    #[test]
    fn the_ollama_url_takes_a_bare_address() {
        assert_eq!(ollama_url(None), OLLAMA_DEFAULT_URL);
        assert_eq!(ollama_url(Some("127.0.0.1:5555")), "http://127.0.0.1:5555");
        assert_eq!(
            ollama_url(Some("http://10.0.0.2:11434/")),
            "http://10.0.0.2:11434"
        );
    }

    #[test]
    fn a_listening_port_is_found() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        assert!(listening(&url));
        drop(listener);
        assert!(!listening("http://127.0.0.1:1"));
    }
}
