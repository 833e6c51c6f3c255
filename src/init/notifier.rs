//! The notifier `thinker init` writes (`[escalation] notify_command`): `notify-send`
//! only where a desktop session exists (`DISPLAY`, `WAYLAND_DISPLAY` or a session bus,
//! `DBUS_SESSION_BUS_ADDRESS`) and it is on `PATH`; else `apprise` when it is on `PATH`
//! (its URLs to set: `APPRISE_URLS` in the env file, or its own config file); else none,
//! the command left commented out with a note saying what to set. A local mailbox (`mail`)
//! is never picked by itself: on a machine nobody reads mail on, a notification would be
//! recorded as sent and reach no one.
//!
//! Must not: run a notifier, or read anything but the variables named here and `PATH`.

use std::ffi::OsStr;

use crate::escalation::notify::{self, Readiness};

/// The desktop notifier of the default config: `notify-send` takes the message as an
/// argument, so `xargs` hands stdin over.
pub const NOTIFY_SEND: &[&str] = &["xargs", "-0", "notify-send", "--", "thinker"];
/// apprise: the message on stdin is the body, `-t` its title; the URLs come from
/// `APPRISE_URLS` or apprise's config file.
pub const APPRISE: &[&str] = &["apprise", "-t", "thinker"];
/// The variables whose presence says a desktop session is there.
pub const DESKTOP_VARS: [&str; 3] = ["DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS"];

/// Which notifier `init` writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Notifier {
    /// `notify-send`: a desktop session, and it is installed.
    Desktop,
    /// `apprise`: on `PATH`, its URLs still to set.
    Apprise,
    /// None found: `notify_command` commented out.
    #[default]
    None,
}

impl Notifier {
    /// Chooses from the environment (`env`) and the `PATH` it holds.
    pub fn detect(env: &dyn Fn(&str) -> Option<String>) -> Notifier {
        let path = env("PATH");
        let path = path.as_deref().map(OsStr::new);
        let runs = |argv: &[&str]| {
            let argv: Vec<String> = argv.iter().map(|s| (*s).to_string()).collect();
            matches!(notify::check(&argv, path), Readiness::Found(_))
        };
        let desktop = DESKTOP_VARS
            .iter()
            .any(|v| env(v).is_some_and(|v| !v.trim().is_empty()));
        if desktop && runs(NOTIFY_SEND) {
            Notifier::Desktop
        } else if runs(APPRISE) {
            Notifier::Apprise
        } else {
            Notifier::None
        }
    }

    /// For people: which, and what is left to do.
    pub fn text(self) -> &'static str {
        match self {
            Notifier::Desktop => "notify-send (a desktop session)",
            Notifier::Apprise => {
                "apprise (no desktop session): set its URLs, APPRISE_URLS in the env file"
            }
            Notifier::None => {
                "none (no desktop session, no apprise on PATH): set one under [escalation] in the config"
            }
        }
    }

    /// The variable the env file lists for it, with what to put there.
    pub fn env_var(self) -> Option<(&'static str, &'static str)> {
        match self {
            Notifier::Desktop => Some((
                "DBUS_SESSION_BUS_ADDRESS",
                "notify-send from cron needs your desktop session's bus: what\n# `echo $DBUS_SESSION_BUS_ADDRESS` prints in that session (a systemd timer has it already).",
            )),
            Notifier::Apprise => Some((
                "APPRISE_URLS",
                "Where apprise sends a notification: one or more of its URLs, e.g. ntfys://ntfy.sh/your-topic\n# or mailtos://user:password@example.com (or put them in ~/.config/apprise/apprise.yml).",
            )),
            Notifier::None => None,
        }
    }

    /// The config's notifier lines in place of the default's `notify_command` line.
    pub fn config_lines(self, comment: Option<&str>, line: &str) -> String {
        let comment = comment.map(|c| format!("{c}\n")).unwrap_or_default();
        match self {
            Notifier::Desktop => format!("{comment}{line}\n"),
            Notifier::Apprise => format!(
                "# `thinker init` found no desktop session, and apprise on PATH: it sends the message\n\
                 # (stdin) to every service its URLs name. Set them: APPRISE_URLS in the env file\n\
                 # next to this config (for cron), or apprise's own config file.\n\
                 notify_command = {}\n{comment}# {line}\n",
                toml_list(APPRISE),
            ),
            Notifier::None => format!(
                "# `thinker init` found no desktop session (DISPLAY, WAYLAND_DISPLAY,\n\
                 # DBUS_SESSION_BUS_ADDRESS) and no apprise on PATH, so no notifier is set: a\n\
                 # `notify` decision is recorded as failed (`thinker show` and `thinker log` list it,\n\
                 # `thinker doctor` warns). Set [escalation] webhook, or one of the commands below,\n\
                 # then try it with `thinker notify --test`.\n\
                 {comment}# {line}\n"
            ),
        }
    }
}

/// `argv` as a TOML array.
fn toml_list(argv: &[&str]) -> String {
    let quoted: Vec<String> = argv.iter().map(|a| format!("\"{a}\"")).collect();
    format!("[{}]", quoted.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A directory holding these programs (empty scripts, executable).
    fn path_with(programs: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for p in programs {
            let file = dir.path().join(p);
            std::fs::write(&file, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        dir
    }

    /// A row: the variables set, the `PATH` directory, the notifier chosen.
    type Row<'a> = (&'a [(&'a str, &'a str)], &'a tempfile::TempDir, Notifier);

    #[test]
    fn notify_send_only_in_a_desktop_session_else_apprise_else_none() {
        let all = path_with(&["xargs", "notify-send", "apprise"]);
        let desktop_less = path_with(&["xargs", "apprise"]);
        let bare = path_with(&["xargs"]);
        let table: [Row; 7] = [
            (&[("DISPLAY", ":0")], &all, Notifier::Desktop),
            (&[("WAYLAND_DISPLAY", "wayland-0")], &all, Notifier::Desktop),
            (
                &[("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus")],
                &all,
                Notifier::Desktop,
            ),
            (&[("DISPLAY", " ")], &all, Notifier::Apprise),
            (&[], &all, Notifier::Apprise),
            // A desktop without notify-send installed.
            (&[("DISPLAY", ":0")], &desktop_less, Notifier::Apprise),
            (&[], &bare, Notifier::None),
        ];
        for (vars, path, want) in table {
            let path = path.path().display().to_string();
            let env = |var: &str| {
                if var == "PATH" {
                    return Some(path.clone());
                }
                vars.iter()
                    .find(|(v, _)| *v == var)
                    .map(|(_, x)| (*x).to_string())
            };
            assert_eq!(Notifier::detect(&env), want, "{vars:?}");
        }
    }
}
