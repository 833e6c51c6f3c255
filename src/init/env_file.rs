//! The env file `thinker init` writes next to the config (`<config dir>/env`): the file
//! the crontab line of `thinker cron` sources (`set -a; . FILE`), its systemd unit reads
//! (`EnvironmentFile=`) and its Kubernetes Secret is made from (`--from-env-file`). A
//! template: comments, and each variable the config names (the providers' `api_key_env`,
//! the notifier's) as a commented-out `# NAME=` line to fill in. Created with mode 0600,
//! never over an existing file (or a link).
//!
//! Must not: write a value (not even one set in this environment), or touch an existing
//! file.

use std::fmt::Write as _;
use std::fs;
use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Its name, in the config's directory.
pub const ENV_FILE: &str = "env";

/// The env file of the config at `config_path`: the one `thinker cron` names.
pub fn env_file(config_path: &Path) -> PathBuf {
    config_path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from(ENV_FILE), |d| d.join(ENV_FILE))
}

/// A variable the template lists: its name and, when it is not an API key, what to put
/// there (one or more comment lines, without their `# `).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Var {
    pub name: String,
    pub about: Option<String>,
}

/// The template for these variables (keys first, in config order).
pub fn template(config_path: &Path, vars: &[Var]) -> String {
    let mut out = format!(
        "# Environment for scheduled ticks, written by `thinker init` for {}.\n\
         # `thinker cron` prints a crontab line that reads this file (`set -a; . FILE`), a\n\
         # systemd unit that does (EnvironmentFile=) and the kubectl command that makes a\n\
         # Kubernetes Secret of it (--from-env-file). One NAME=value a line: no `export`, no\n\
         # spaces around `=`, no quotes. Keep it private (mode 0600): it holds your keys.\n",
        config_path.display()
    );
    let (keys, others): (Vec<&Var>, Vec<&Var>) = vars.iter().partition(|v| v.about.is_none());
    if keys.is_empty() {
        out.push_str("#\n# No provider of the config names a key variable (api_key_env).\n");
    } else {
        out.push_str(
            "#\n# The API keys the config's providers name (api_key_env): uncomment and set.\n",
        );
        for v in keys {
            let _ = writeln!(out, "# {}=", v.name);
        }
    }
    for v in others {
        let _ = writeln!(
            out,
            "#\n# {}\n# {}=",
            v.about.as_deref().unwrap_or_default(),
            v.name
        );
    }
    out
}

/// What [`write()`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    Created,
    /// A file (or link) was there: left as it was.
    Kept,
}

/// Creates `path` with `text`, mode 0600; leaves an existing file (or link) alone.
pub fn write(path: &Path, text: &str) -> std::io::Result<Written> {
    let mut file = match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Ok(Written::Kept),
        Err(e) => return Err(e),
    };
    // Whatever the umask left: 0600.
    file.set_permissions(fs::Permissions::from_mode(0o600))?;
    file.write_all(text.as_bytes())?;
    Ok(Written::Created)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_env_file_is_next_to_the_config() {
        assert_eq!(
            env_file(Path::new("/home/a/.config/thinker/config.toml")),
            Path::new("/home/a/.config/thinker/env")
        );
        assert_eq!(env_file(Path::new("config.toml")), Path::new("env"));
    }

    #[test]
    fn the_template_names_each_variable_and_sets_none() {
        let vars = [
            Var {
                name: "GROQ_API_KEY".into(),
                about: None,
            },
            Var {
                name: "APPRISE_URLS".into(),
                about: Some("Where apprise sends.".into()),
            },
        ];
        let text = template(Path::new("/c/config.toml"), &vars);
        assert!(text.contains("\n# GROQ_API_KEY=\n"), "{text}");
        assert!(
            text.contains("# Where apprise sends.\n# APPRISE_URLS=\n"),
            "{text}"
        );
        // Sourced by sh: nothing but comments.
        assert!(text.lines().all(|l| l.starts_with('#')), "{text}");
    }

    #[test]
    fn an_existing_file_or_link_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(ENV_FILE);
        assert_eq!(write(&path, "# new\n").unwrap(), Written::Created);
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        fs::write(&path, "GROQ_API_KEY=mine\n").unwrap();
        assert_eq!(write(&path, "# new\n").unwrap(), Written::Kept);
        assert_eq!(fs::read_to_string(&path).unwrap(), "GROQ_API_KEY=mine\n");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).unwrap();
        assert_eq!(write(&link, "# new\n").unwrap(), Written::Kept);
        assert!(!dir.path().join("nowhere").exists());
    }
}
