//! `thinker cron`: prints how to run the tick every five minutes — a crontab line, a
//! systemd user `.service` + `.timer` pair (`--systemd`), or a Kubernetes CronJob with its
//! PersistentVolumeClaim (`--kubernetes`) — for the resolved config and state paths and
//! this binary's own path (`std::env::current_exe`, else `thinker`). Keys come from one
//! env file of `KEY=value` lines next to the config (`<config dir>/env`), read by all
//! three: sourced with `set -a` by cron, `EnvironmentFile=` by systemd, a Secret made
//! with `kubectl create secret generic --from-env-file` on Kubernetes.
//!
//! Prints only: it must not install anything (no `crontab -`, no `systemctl`), read
//! the env file, or print a key.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::cli::CronArgs;
use crate::cmd::Context;
use crate::error::{EXIT_OK, Error};
use crate::storage::CRON_LOG_FILE;

/// What every form needs.
#[derive(Debug)]
struct Setup<'a> {
    exe: PathBuf,
    config: PathBuf,
    state: PathBuf,
    env: PathBuf,
    name: &'a str,
}

pub fn run(ctx: &mut Context<'_>, args: &CronArgs) -> Result<u8, Error> {
    let resolved = ctx.optional_config()?;
    let config = ctx.config_path()?;
    if resolved.config.is_none() {
        ctx.stderr(&format!(
            "note: there is no config at {} yet: `thinker init` writes one\n",
            config.display()
        ))?;
    }
    let env = config
        .parent()
        .map_or_else(|| PathBuf::from("env"), |d| d.join("env"));
    let setup = Setup {
        exe: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("thinker")),
        config,
        state: resolved.state_dir,
        env,
        name: &args.name,
    };
    let text = if args.systemd {
        systemd(&setup)
    } else if args.kubernetes {
        kubernetes(&setup)
    } else {
        crontab(&setup)
    };
    ctx.stdout(text.as_bytes())?;
    Ok(EXIT_OK)
}

/// `path` as one POSIX shell word.
fn sh(path: &Path) -> String {
    let text = path.display().to_string();
    let safe = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+,:@=".contains(&b));
    if safe {
        text
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// `path` as one argument of a systemd `ExecStart=` (quoted; `%` and `$` doubled: they
/// are specifiers and variables there).
fn unit_word(path: &Path) -> String {
    let text = path
        .display()
        .to_string()
        .replace('\\', r"\\")
        .replace('"', "\\\"")
        .replace('%', "%%")
        .replace('$', "$$");
    if text.bytes().any(|b| b.is_ascii_whitespace() || b == b'"') {
        format!("\"{text}\"")
    } else {
        text
    }
}

/// The `PATH` a scheduled tick runs with: this binary's directory, then the usual ones
/// (cron's own PATH is `/usr/bin:/bin`, which misses tools the command sources run).
fn path_var(exe: &Path) -> String {
    let mut dirs: Vec<String> = Vec::new();
    if let Some(dir) = exe.parent().filter(|d| !d.as_os_str().is_empty()) {
        dirs.push(dir.display().to_string());
    }
    for d in ["/usr/local/bin", "/usr/bin", "/bin"] {
        if !dirs.iter().any(|x| x == d) {
            dirs.push(d.into());
        }
    }
    dirs.join(":")
}

fn crontab(s: &Setup<'_>) -> String {
    let log = s.state.join(CRON_LOG_FILE);
    let (env, log_word) = (sh(&s.env), sh(&log));
    let command = format!(
        "PATH={}; umask 077; [ -r {env} ] && {{ set -a; . {env}; set +a; }}; out=$({} tick --config {} --state {} 2>&1) || {{ s=$?; printf '%s exit %s\\n%s\\n' \"$(date -u +%FT%TZ)\" \"$s\" \"$out\" >> {log_word}; }}",
        sh(Path::new(&path_var(&s.exe))),
        sh(&s.exe),
        sh(&s.config),
        sh(&s.state),
    );
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# thinker: a tick every 5 minutes. Add the line below with `crontab -e`."
    );
    let _ = writeln!(
        out,
        "# Keys: {} holds one KEY=value a line (e.g. GROQ_API_KEY=...); chmod 600 it.",
        s.env.display()
    );
    let _ = writeln!(
        out,
        "# A healthy tick prints nothing, so cron mails nothing; a failed tick's output goes"
    );
    let _ = writeln!(
        out,
        "# to {} (with the time and exit code). Every tick is in `thinker log`.",
        log.display()
    );
    // `%` ends a crontab command line unless escaped.
    let _ = writeln!(out, "*/5 * * * * {}", command.replace('%', r"\%"));
    out
}

fn systemd(s: &Setup<'_>) -> String {
    let name = s.name;
    let env = s.env.display().to_string().replace('%', "%%");
    format!(
        r"# ~/.config/systemd/user/{name}.service
[Unit]
Description=thinker: one tick of background cognition
Wants=network-online.target
After=network-online.target

[Service]
Type=oneshot
# Keys: one KEY=value a line (chmod 600); `-`: a missing file is the tick's to report.
EnvironmentFile=-{env}
Environment=PATH={path}
UMask=0077
Nice=10
ExecStart={exe} tick --config {config} --state {state}

# ~/.config/systemd/user/{name}.timer
[Unit]
Description=thinker: a tick every 5 minutes

[Timer]
OnCalendar=*:0/5
# A tick still running when the next is due: systemd starts no second one.
AccuracySec=10s

[Install]
WantedBy=timers.target

# Then: systemctl --user daemon-reload && systemctl --user enable --now {name}.timer
# Ticking while you are logged out: loginctl enable-linger $USER
# A failed tick: systemctl --user status {name}.service; journalctl --user -u {name}.service
",
        path = path_var(&s.exe).replace('%', "%%").replace('$', "$$"),
        exe = unit_word(&s.exe),
        config = unit_word(&s.config),
        state = unit_word(&s.state),
    )
}

fn kubernetes(s: &Setup<'_>) -> String {
    let name = s.name;
    format!(
        r#"# thinker as a Kubernetes CronJob, one per agent (`thinker cron --kubernetes --name NAME`).
# Keys:   kubectl create secret generic {name}-keys --from-env-file={env}
# Config: kubectl create configmap {name}-config --from-file=config.toml={config}
#         (paths in it are read inside the container: keep prompts and replay dirs out)
# Image:  any image with the thinker binary on its PATH and the tools your command sources
#         run, e.g. FROM debian:stable-slim + COPY thinker /usr/local/bin/thinker
# Then:   kubectl apply -f {name}.yaml; `kubectl logs job/<job>` shows a failed tick.
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: {name}-state
spec:
  accessModes: ["ReadWriteOnce"]
  resources:
    requests:
      storage: 1Gi
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: {name}
spec:
  schedule: "*/5 * * * *"
  # One tick at a time: the state is a single file under a lock.
  concurrencyPolicy: Forbid
  startingDeadlineSeconds: 240
  successfulJobsHistoryLimit: 1
  failedJobsHistoryLimit: 3
  jobTemplate:
    spec:
      backoffLimit: 0
      # Above [tick] deadline_seconds + the escalation's timeouts.
      activeDeadlineSeconds: 900
      template:
        spec:
          restartPolicy: Never
          securityContext:
            runAsNonRoot: true
            runAsUser: 10001
            fsGroup: 10001
          containers:
            - name: thinker
              image: thinker:latest
              args: ["tick", "--config", "/etc/thinker/config.toml", "--state", "/var/lib/thinker"]
              envFrom:
                - secretRef:
                    name: {name}-keys
              volumeMounts:
                - name: state
                  mountPath: /var/lib/thinker
                - name: config
                  mountPath: /etc/thinker
                  readOnly: true
          volumes:
            - name: state
              persistentVolumeClaim:
                claimName: {name}-state
            - name: config
              configMap:
                name: {name}-config
"#,
        env = sh(&s.env),
        config = sh(&s.config),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_quoted_for_the_shell_and_for_systemd() {
        assert_eq!(sh(Path::new("/usr/bin/thinker")), "/usr/bin/thinker");
        assert_eq!(sh(Path::new("/home/a b/it's")), r"'/home/a b/it'\''s'");
        assert_eq!(sh(Path::new("/x/100%")), "'/x/100%'");
        assert_eq!(unit_word(Path::new("/opt/thinker")), "/opt/thinker");
        assert_eq!(unit_word(Path::new("/a b/%h$x")), r#""/a b/%%h$$x""#);
    }

    #[test]
    fn the_crontab_line_escapes_every_percent() {
        let s = Setup {
            exe: "/opt/t%/thinker".into(),
            config: "/c/config.toml".into(),
            state: "/s".into(),
            env: "/c/env".into(),
            name: "thinker",
        };
        let text = crontab(&s);
        let line = text.lines().last().unwrap();
        assert!(line.starts_with("*/5 * * * * PATH='/opt/t\\%:"), "{line}");
        assert!(!line.replace(r"\%", "").contains('%'), "{line}");
        assert!(line.contains(">> /s/cron.log"), "{line}");
    }
}
