//! Where things are (SPEC §10): the config file (`--config`, then `$THINKER_CONFIG`,
//! then the XDG config dir), the state directory (`--state`, then `[state] dir`, then
//! the XDG data dir), and `~` in a path of the file: `~` and `~/x` expand with `$HOME`,
//! `~user/x` with `/etc/passwd`, and a `~` that cannot expand is an error (never a
//! literal `~` directory).
//!
//! Must not: read the config file or create a directory.

use std::path::{Path, PathBuf};

use super::{Config, ConfigError};
use crate::sources::PathError;

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// Expands a leading `~`: `~` and `~/x` with `$HOME`, `~user` and `~user/x` with that
/// user's home directory from `/etc/passwd`. Never yields a path starting with a literal
/// `~` directory: when the home cannot be found, the message says what to do.
pub fn expand_home(p: &str) -> Result<PathBuf, PathError> {
    let Some(rest) = p.strip_prefix('~') else {
        return Ok(PathBuf::from(p));
    };
    let (user, tail) = rest.split_once('/').unwrap_or((rest, ""));
    let home = if user.is_empty() {
        home().ok_or_else(|| PathError::NoHome { path: p.into() })?
    } else {
        let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
        user_home(&passwd, user).ok_or_else(|| PathError::NoSuchUser { user: user.into() })?
    };
    Ok(if tail.is_empty() {
        home
    } else {
        home.join(tail)
    })
}

/// `user`'s home directory in the text of an `/etc/passwd` file.
fn user_home(passwd: &str, user: &str) -> Option<PathBuf> {
    passwd
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split(':').collect::<Vec<_>>())
        .find(|f| f.len() >= 7 && f[0] == user)
        .map(|f| PathBuf::from(f[5]))
        .filter(|h| h.is_absolute())
}

fn xdg(var: &str, fallback: &str) -> Result<PathBuf, ConfigError> {
    match std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
    {
        Some(p) if p.is_absolute() => Ok(p),
        _ => home().map(|h| h.join(fallback)).ok_or(ConfigError::NoHome),
    }
}

/// Where the config is read from: `--config`, else `$THINKER_CONFIG`, else
/// `$XDG_CONFIG_HOME/thinker/config.toml`.
pub fn config_path(flag: Option<&Path>) -> Result<PathBuf, ConfigError> {
    if let Some(p) = flag {
        return Ok(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os("THINKER_CONFIG").filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    Ok(xdg("XDG_CONFIG_HOME", ".config")?
        .join("thinker")
        .join("config.toml"))
}

/// The state directory: `--state`, else the config's `[state] dir`, else
/// `$XDG_DATA_HOME/thinker`.
pub fn state_dir(flag: Option<&Path>, config: Option<&Config>) -> Result<PathBuf, ConfigError> {
    if let Some(p) = flag {
        return Ok(p.to_path_buf());
    }
    if let Some(d) = config.and_then(|c| c.state_dir.clone()) {
        return Ok(d);
    }
    Ok(xdg("XDG_DATA_HOME", ".local/share")?.join("thinker"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_paths_expand_or_fail_with_the_way_out() {
        let passwd = "# comment\nroot:x:0:0:root:/root:/bin/sh\nann:x:1000:1000::/home/ann:/bin/bash\nbad:x:1:1::relative:/bin/sh\n";
        assert_eq!(user_home(passwd, "ann"), Some(PathBuf::from("/home/ann")));
        assert_eq!(user_home(passwd, "bob"), None);
        assert_eq!(user_home(passwd, "bad"), None);
        assert_eq!(expand_home("/a/~b").unwrap(), PathBuf::from("/a/~b"));
        assert_eq!(expand_home("rel/x").unwrap(), PathBuf::from("rel/x"));
        let err = expand_home("~no-such-user-here/x").unwrap_err();
        assert_eq!(
            err,
            PathError::NoSuchUser {
                user: "no-such-user-here".into()
            }
        );
        assert!(err.to_string().contains("full path"), "{err}");
        // `~` itself depends on $HOME, which tests must not change: see
        // tests/config_limits.rs for it through the binary.
    }
}
