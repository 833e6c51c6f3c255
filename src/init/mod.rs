//! `thinker init`'s work: finds what this machine can use — the key variables set, a
//! llama-server, LM Studio or Ollama answering on loopback ([`local`]), a notifier
//! ([`notifier`]) — or takes the one server it is given (`init --provider NAME=URL`),
//! writes a commented config that uses them ([`mod@config_text`]), an empty state, and the env
//! file the cron line sources ([`mod@env_file`]); refuses to overwrite the config or the state,
//! keeps an env file that is there. The command itself (paths, output) is `cmd::init`.
//!
//! Asks nothing; reads no key's value (only whether it is set) and never writes one.

pub mod cloud;
pub mod config_text;
pub mod env_file;
pub mod local;
pub mod notifier;

use std::fmt::Write as _;
use std::fs;
use std::io::Write;
use std::path::Path;

pub use cloud::Cloud;
pub use config_text::config_text;
pub use env_file::{ENV_FILE, env_file};
pub use local::{LocalKind, LocalServer};
pub use notifier::Notifier;

use crate::config::Config;
use crate::error::Error;
use crate::state::State;
use crate::storage::{STATE_FILE, StateDir};

/// What `init` found on this machine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Detected {
    /// Hosted providers whose key variable is set (not empty), in [`Cloud::ALL`] order.
    pub clouds: Vec<Cloud>,
    /// The local servers that answered.
    pub locals: Vec<LocalServer>,
    /// Where they were looked for (none with `init --provider`).
    pub looked: Vec<(LocalKind, String)>,
    /// The notifier to write.
    pub notifier: Notifier,
}

impl Detected {
    /// Nothing usable was found.
    pub fn is_empty(&self) -> bool {
        self.clouds.is_empty() && self.locals.is_empty()
    }

    pub fn has(&self, cloud: Cloud) -> bool {
        self.clouds.contains(&cloud)
    }
}

/// The one OpenAI-compatible server of `init --provider NAME=URL`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OneServer {
    /// The provider's name.
    pub name: String,
    /// Its base URL.
    pub url: String,
    /// The model the threads ask for: `--model`, else the first chat model it lists.
    pub model: Option<String>,
    /// Whether the model was given (`--model`) rather than listed by the server.
    pub model_given: bool,
}

impl OneServer {
    /// The server at `url`, its model `model` or, without one, the first chat model its
    /// `/models` lists (asked within [`local`]'s timeouts).
    pub fn ask(name: &str, url: &str, model: Option<&str>) -> OneServer {
        let given = model.map(str::trim).filter(|m| !m.is_empty());
        OneServer {
            name: name.to_string(),
            url: url.to_string(),
            model: given
                .map(str::to_string)
                .or_else(|| local::list_models(url).and_then(|m| local::chat_model(&m))),
            model_given: given.is_some(),
        }
    }

    /// The model's name, or the one written when none is known.
    pub fn model_name(&self) -> &str {
        self.model.as_deref().unwrap_or(config_text::UNKNOWN_MODEL)
    }

    /// `name/model`.
    pub fn model_ref(&self) -> String {
        format!("{}/{}", self.name, self.model_name())
    }
}

/// Looks at the key variables (through `env`: set and not empty), for a local server at
/// each of its addresses (`$THINKER_LLAMA_SERVER_URL`, `$THINKER_LM_STUDIO_URL`,
/// `$THINKER_OLLAMA_URL`, else their defaults) unless `servers` is false, and for a
/// notifier.
pub fn detect(env: &dyn Fn(&str) -> Option<String>, servers: bool) -> Detected {
    let clouds = Cloud::ALL
        .into_iter()
        .filter(|c| env(c.var()).is_some_and(|v| !v.trim().is_empty()))
        .collect();
    let looked: Vec<(LocalKind, String)> = if servers {
        LocalKind::ALL
            .into_iter()
            .map(|k| (k, local::address(k, env(k.var()).as_deref())))
            .collect()
    } else {
        Vec::new()
    };
    Detected {
        clouds,
        locals: local::find(&looked),
        looked,
        notifier: Notifier::detect(env),
    }
}

/// What `init` tells a person about what it found.
pub fn detected_text(d: &Detected, server: Option<&OneServer>) -> String {
    let mut out = String::new();
    for cloud in Cloud::ALL {
        let seen = if d.has(cloud) { "set" } else { "not set" };
        let _ = writeln!(out, "{}: {seen}", cloud.var());
    }
    if let Some(s) = server {
        let model = match (&s.model, s.model_given) {
            (Some(m), true) => format!("model {m} (--model)"),
            (Some(m), false) => format!("model {m} (the first it lists)"),
            (None, _) => format!(
                "no model listed: `{}` written, set it if the server needs its id",
                s.model_name()
            ),
        };
        let _ = writeln!(out, "{}: {}, {model}", s.name, s.url);
    }
    for kind in LocalKind::ALL {
        let found: Vec<&LocalServer> = d.locals.iter().filter(|l| l.kind == kind).collect();
        for l in &found {
            let model = l
                .model()
                .map_or_else(|| "no model listed".to_string(), |m| format!("model {m}"));
            let _ = writeln!(out, "{}: answering at {}, {model}", kind.label(), l.root);
        }
        if found.is_empty()
            && let Some((_, at)) = d.looked.iter().find(|(k, _)| *k == kind)
        {
            let _ = writeln!(out, "{}: not found at {at}", kind.label());
        }
    }
    let _ = writeln!(out, "notifier: {}", d.notifier.text());
    out
}

/// What `init` did: its result for stdout, and notes for stderr.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: String,
    pub notes: String,
}

/// Writes `config_path` (for what `detected` holds, or for `server`), an empty state in
/// `state_dir`, and the env file next to the config unless one is there; returns what it
/// did, for people. Writes nothing if the config or the state already exists, and takes
/// back what it wrote when a later write fails.
pub fn init(
    config_path: &Path,
    state_dir: &Path,
    detected: &Detected,
    server: Option<&OneServer>,
) -> Result<Outcome, Error> {
    let state_path = state_dir.join(STATE_FILE);
    for existing in [config_path, state_path.as_path()] {
        if existing.exists() {
            return Err(Error::InitExists {
                path: existing.to_path_buf(),
            });
        }
    }
    // The state directory first: a path that cannot be one (under a file, a link in the
    // way) fails before the config is written, so a second `init` is not refused. If a
    // later write fails, what was made here is taken back.
    let made = !state_dir.exists();
    let dir = StateDir::create(state_dir)?;
    dir.refuse_link(STATE_FILE)?;
    let undo_dir = || {
        if made {
            let _ = fs::remove_dir(state_dir);
        }
    };
    let text = config_text(detected, server);
    if let Err(e) = write_config(config_path, &text) {
        undo_dir();
        return Err(e);
    }
    if let Err(e) = dir.save(&State::default()) {
        // The config was created by this call (create_new): take it back, so that
        // `init` can simply be run again once the state directory is fixed.
        let _ = fs::remove_file(config_path);
        return Err(e.into());
    }
    let env_path = env_file(config_path);
    let env_text = env_file::template(config_path, &env_vars(&text, detected.notifier));
    let written = match env_file::write(&env_path, &env_text) {
        Ok(w) => w,
        Err(source) => {
            let _ = fs::remove_file(config_path);
            let _ = fs::remove_file(&state_path);
            undo_dir();
            return Err(Error::InitWrite {
                path: env_path,
                source,
            });
        }
    };
    let env_line = match written {
        env_file::Written::Created => format!(
            "wrote {} (mode 0600: the variables for cron, commented out; fill in the keys)",
            env_path.display()
        ),
        env_file::Written::Kept => format!(
            "kept {} (it was there; check it names the variables above)",
            env_path.display()
        ),
    };
    let first = if detected.is_empty() && server.is_none() {
        "set one of the key variables above (or start a local server) and edit the providers, then "
    } else {
        ""
    };
    let stdout = format!(
        "{}wrote {}\nwrote {}\n{env_line}\nnext: {first}`thinker doctor` (checks keys, providers and sources), `thinker prompt watcher` (what a thread is sent) and `thinker tick --dry-run -v` (a tick that writes nothing); `thinker cron` schedules it\n",
        detected_text(detected, server),
        config_path.display(),
        state_path.display(),
    );
    let notes = if server.is_some() {
        String::new()
    } else {
        free_tier_text(detected, config_path)
    };
    Ok(Outcome { stdout, notes })
}

/// The variables the env file lists: the key variables the config `text` names, in its
/// order, then the notifier's.
fn env_vars(text: &str, notifier: Notifier) -> Vec<env_file::Var> {
    let mut vars: Vec<env_file::Var> = Vec::new();
    if let Ok(config) = Config::parse(text, None) {
        for provider in config.providers.values() {
            if let Some(var) = &provider.api_key_env
                && !vars.iter().any(|v| &v.name == var)
            {
                vars.push(env_file::Var {
                    name: var.clone(),
                    about: None,
                });
            }
        }
    }
    if let Some((name, about)) = notifier.env_var() {
        vars.push(env_file::Var {
            name: name.into(),
            about: Some(about.into()),
        });
    }
    vars
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
    let local = if d.locals.is_empty() {
        "start a local server (llama-server, LM Studio, Ollama) and add it to the threads' fallbacks"
    } else {
        "the threads fall back to the local server found"
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

    #[test]
    fn detect_reads_only_set_and_non_empty_variables() {
        let env = |var: &str| match var {
            "GEMINI_API_KEY" => Some("k".to_string()),
            "OPENAI_API_KEY" => Some("  ".to_string()),
            // Port 1 on loopback: nothing listens there.
            v if v.starts_with("THINKER_") => Some("127.0.0.1:1".to_string()),
            _ => None,
        };
        let d = detect(&env, true);
        assert_eq!(d.clouds, vec![Cloud::Gemini]);
        assert_eq!(d.locals, vec![]);
        assert_eq!(d.looked.len(), 3);
        assert!(detect(&env, false).looked.is_empty());
    }

    #[test]
    fn the_env_file_lists_the_key_variables_the_config_names() {
        let d = Detected {
            clouds: vec![Cloud::Groq, Cloud::Anthropic],
            notifier: Notifier::Apprise,
            ..Detected::default()
        };
        let names: Vec<String> = env_vars(&config_text(&d, None), d.notifier)
            .into_iter()
            .map(|v| v.name)
            .collect();
        assert_eq!(names, ["ANTHROPIC_API_KEY", "GROQ_API_KEY", "APPRISE_URLS"]);
    }
}
