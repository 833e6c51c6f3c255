//! `thinker completions SHELL` and `thinker man`: shell completions (`clap_complete`) and
//! the man pages (`clap_mangen`, roff), both generated from the clap definitions of
//! [`crate::cli::Cli`], so they cannot drift from the command line. `thinker man` prints
//! thinker's page (or one command's, `thinker man tick`) on stdout, or with `--dir DIR`
//! writes them all: `thinker.1` and a `thinker-COMMAND.1` for every command its page
//! lists. Each page has, besides clap_mangen's NAME, SYNOPSIS, DESCRIPTION and OPTIONS
//! (the global options under their own heading), an EXIT STATUS, ENVIRONMENT, FILES and
//! EXAMPLES section (the examples are the command's `--help` examples) and SEE ALSO.
//!
//! Print (or write the pages) only; must not read a config or the state.

use std::fmt::Write as _;
use std::path::Path;

use clap::CommandFactory;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, italic, roman};

use crate::cli::{Cli, ManArgs};
use crate::cmd::Context;
use crate::error::{EXIT_OK, Error};

/// Prints the completion script for `shell` on stdout.
pub fn run(ctx: &mut Context<'_>, shell: clap_complete::Shell) -> Result<u8, Error> {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "thinker", &mut buf);
    ctx.stdout(&buf)?;
    Ok(EXIT_OK)
}

/// `thinker man [COMMAND]`: that page on stdout (`thinker man > thinker.1`); `--dir DIR`:
/// every page written into DIR, their paths on stdout.
pub fn man(ctx: &mut Context<'_>, args: &ManArgs) -> Result<u8, Error> {
    let pages = pages();
    if let Some(dir) = &args.dir {
        let written = write_pages(dir, &pages)?;
        let list = written.iter().fold(String::new(), |mut out, p| {
            let _ = writeln!(out, "wrote {p}");
            out
        });
        ctx.stdout(list.as_bytes())?;
        return Ok(EXIT_OK);
    }
    let wanted = args
        .command
        .as_deref()
        .map_or_else(|| "thinker".to_string(), |c| format!("thinker-{c}"));
    // `man_command` let only a listed command through: its page is there.
    let page = pages
        .iter()
        .find(|p| p.name == wanted)
        .or_else(|| pages.first());
    if let Some(page) = page {
        ctx.stdout(page.text.as_bytes())?;
    }
    Ok(EXIT_OK)
}

/// One man page: its name (`thinker`, `thinker-tick`) and its roff.
#[derive(Debug)]
pub struct Page {
    pub name: String,
    pub text: String,
}

impl Page {
    /// The file it is written to: `thinker-tick.1`.
    pub fn file_name(&self) -> String {
        format!("{}.1", self.name)
    }
}

/// thinker's page, then one for each command it lists (in the order of `--help`).
pub fn pages() -> Vec<Page> {
    let mut cli = Cli::command().disable_help_subcommand(true);
    cli.build();
    let mut pages = vec![page(&cli, None)];
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        pages.push(page(sub, Some(sub.get_name())));
    }
    pages
}

/// Writes every page into `dir` (created if need be); returns their paths.
fn write_pages(dir: &Path, pages: &[Page]) -> Result<Vec<String>, Error> {
    let failed = |path: &Path| {
        let path = path.display().to_string();
        move |e: std::io::Error| Error::Output {
            what: "the man pages",
            source: std::io::Error::new(e.kind(), format!("{path}: {e}")),
        }
    };
    std::fs::create_dir_all(dir).map_err(failed(dir))?;
    let mut written = Vec::with_capacity(pages.len());
    for page in pages {
        let path = dir.join(page.file_name());
        std::fs::write(&path, &page.text).map_err(failed(&path))?;
        written.push(path.display().to_string());
    }
    Ok(written)
}

/// The page of `cmd` (`command`: `None` for thinker's own).
fn page(cmd: &clap::Command, command: Option<&str>) -> Page {
    let name = cmd
        .get_display_name()
        .unwrap_or_else(|| cmd.get_name())
        .to_string();
    let examples = cmd.get_after_help().map(ToString::to_string);
    // clap_mangen would print the examples as they are under EXTRA: they are EXAMPLES.
    let man = Man::new(cmd.clone().after_help(None::<&str>));
    let mut text = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = man.render(&mut text);
    let text = String::from_utf8_lossy(&text).into_owned();
    let mut ours = Roff::new();
    exit_status(&mut ours, command);
    environment(&mut ours, command);
    files(&mut ours);
    examples_section(&mut ours, &name, examples.as_deref());
    see_also(&mut ours, command);
    // Without the preamble clap_mangen's part already has (it defines the apostrophe).
    let preamble = Roff::new().render();
    let ours = ours.render();
    let ours = ours.strip_prefix(&preamble).unwrap_or(&ours);
    // Before VERSION, where clap_mangen ends the page.
    let at = text.find("\n.SH VERSION").map_or(text.len(), |i| i + 1);
    let text = format!("{}{ours}{}", &text[..at], &text[at..]);
    Page { name, text }
}

/// One `.TP` item: `term` in bold, then `text`.
fn item(roff: &mut Roff, term: &str, text: &str) {
    roff.control("TP", []);
    roff.text([bold(term)]);
    roff.text([roman(text)]);
}

/// EXIT STATUS: the codes this command returns (SPEC §1).
#[expect(
    clippy::too_many_lines,
    reason = "one table of every command's codes, read top to bottom"
)]
fn exit_status(roff: &mut Roff, command: Option<&str>) {
    roff.control("SH", ["EXIT STATUS"]);
    let codes: &[(&str, &str)] = match command {
        None => &[
            (
                "0",
                "Success; for tick: the tick ran and its state is written.",
            ),
            (
                "1",
                "Failed; for tick: nothing was written (an unreadable state, a failed write). doctor: a check failed; screen: something was detected; replay: the journal does not reproduce its states.",
            ),
            (
                "2",
                "A usage or config error: a bad option, a config key out of range, no config.",
            ),
            (
                "3",
                "tick: the tick ran and its state is written, but at least one thread failed or a message to the user was given up (thinker held lists it).",
            ),
            (
                "75",
                "tick, release, discard: another tick holds the lock; skipped, nothing touched.",
            ),
        ],
        Some("tick") => &[
            ("0", "The tick ran and its state is written."),
            (
                "1",
                "The tick failed and nothing was written (an unreadable state, a failed write).",
            ),
            (
                "2",
                "A usage or config error: a bad option, a config key out of range, no config.",
            ),
            (
                "3",
                "The tick ran and its state is written, but at least one thread failed, or a message to the user was given up after its tries (thinker held lists it).",
            ),
            (
                "75",
                "Another tick holds the lock: skipped, nothing touched.",
            ),
        ],
        Some("doctor") => &[
            (
                "0",
                "No check failed (warn lines may say what could be better).",
            ),
            (
                "1",
                "At least one check failed: the FAIL lines say what to fix.",
            ),
            ("2", "A usage error."),
        ],
        Some("screen") => &[
            ("0", "Nothing was detected."),
            ("1", "Something was detected in at least one input."),
            ("2", "An input could not be read, or a usage error."),
        ],
        Some("notify") => &[
            ("0", "The test message went out."),
            (
                "1",
                "It did not: no notifier, or the notifier failed (the line says how).",
            ),
            ("2", "A usage or config error."),
        ],
        Some("release" | "discard") => &[
            ("0", "The message was sent (release) or dropped (discard)."),
            (
                "1",
                "The send failed, or may have half-delivered: the message still waits.",
            ),
            (
                "2",
                "No waiting message has that id (or the prefix is ambiguous or too short), or a usage error.",
            ),
            ("75", "A tick holds the lock: try again in a moment."),
        ],
        Some("replay") => &[
            ("0", "The journal reproduces every state it recorded."),
            (
                "1",
                "It does not (the report says where), or the journal cannot be read.",
            ),
            ("2", "A usage or config error (a --set that is no setting)."),
        ],
        Some(_) => &[
            ("0", "Success."),
            (
                "1",
                "It failed: an unreadable state or journal, a write that failed.",
            ),
            (
                "2",
                "A usage or config error: a bad option, a config key out of range.",
            ),
        ],
    };
    for (code, text) in codes {
        item(roff, code, text);
    }
}

/// ENVIRONMENT: what thinker reads from its environment.
fn environment(roff: &mut Roff, command: Option<&str>) {
    roff.control("SH", ["ENVIRONMENT"]);
    let mut vars: Vec<(&str, &str)> = vec![
        (
            "THINKER_CONFIG",
            "The config file when --config is not given.",
        ),
        (
            "XDG_CONFIG_HOME, XDG_DATA_HOME, HOME",
            "Where the config (XDG_CONFIG_HOME/thinker/config.toml) and the state directory (XDG_DATA_HOME/thinker) are by default, and what ~ means in the config.",
        ),
        (
            "GROQ_API_KEY, ANTHROPIC_API_KEY, …",
            "The API keys: each provider of the config names the variable that holds its key (api_key_env). thinker reads them and never writes or prints a value.",
        ),
        (
            "TZ",
            "The zone local times are shown in, and the budgets' day unless [budget] timezone names one.",
        ),
        (
            "NO_COLOR",
            "Set and not empty: no colour, even on a terminal (show, log, stats, doctor).",
        ),
        (
            "THINKER_LOG",
            "A tracing filter for the diagnostics on stderr (e.g. thinker=debug), over -v and -q.",
        ),
    ];
    if matches!(command, None | Some("init")) {
        vars.extend([
            (
                "THINKER_LLAMA_SERVER_URL, THINKER_LM_STUDIO_URL, THINKER_OLLAMA_URL",
                "Where init looks for a llama-server, LM Studio and Ollama (default http://127.0.0.1:8080, :1234 and :11434).",
            ),
            (
                "DISPLAY, WAYLAND_DISPLAY, DBUS_SESSION_BUS_ADDRESS, PATH",
                "Whether init writes notify-send as the notifier (a desktop session), else apprise when it is on PATH.",
            ),
        ]);
    }
    for (var, text) in vars {
        item(roff, var, text);
    }
}

/// FILES: the config, the env file and the state directory's files (SPEC §2).
fn files(roff: &mut Roff) {
    use crate::storage::{ARCHIVE_FILE, BACKUP_FILE, FEEDBACK_FILE, LOCK_FILE, STATE_FILE};
    roff.control("SH", ["FILES"]);
    item(
        roff,
        "~/.config/thinker/config.toml",
        "The config (TOML, every key commented in the one init writes).",
    );
    item(
        roff,
        &format!("~/.config/thinker/{}", crate::init::ENV_FILE),
        "The API keys for scheduled ticks, one KEY=value a line, mode 0600: written by init with the variable names only, read by the crontab line, the systemd unit and the Kubernetes Secret that thinker cron prints.",
    );
    item(
        roff,
        "~/.local/share/thinker/",
        "The state directory (mode 0700, files 0600):",
    );
    let state: [(&str, &str); 11] = [
        (STATE_FILE, "the subconscious, written atomically"),
        (BACKUP_FILE, "its previous version"),
        (LOCK_FILE, "held by a tick for its whole run"),
        (
            "journal.jsonl",
            "one line per tick (rotated to journal-*.jsonl)",
        ),
        (ARCHIVE_FILE, "every entry that left the memory, and why"),
        (
            FEEDBACK_FILE,
            "the agent's verdicts, until the next tick applies them",
        ),
        (
            "ledger.json",
            "tokens and cost per day, the providers' breakers",
        ),
        (
            "deliveries.jsonl",
            "what release, discard and notify --test did, one line a step",
        ),
        (
            "redaction.key",
            "the key of the aliases redaction gives names (never sent)",
        ),
        (
            "redaction-names.json",
            "the names redaction learned, kept keyed while the memory mentions them",
        ),
        (
            "embeddings.json",
            "the entries' embeddings, when [recall] embeddings is set",
        ),
    ];
    roff.control("RS", []);
    for (file, what) in state {
        roff.control("TP", []);
        roff.text([italic(file)]);
        roff.text([roman(format!(
            "{}{}.",
            what[..1].to_uppercase(),
            &what[1..]
        ))]);
    }
    roff.control("RE", []);
}

/// EXAMPLES: the command's `--help` examples (`# what` lines, then the command).
fn examples_section(roff: &mut Roff, name: &str, examples: Option<&str>) {
    roff.control("SH", ["EXAMPLES"]);
    let mut what = String::new();
    let mut any = false;
    for line in examples.unwrap_or_default().lines().skip(1) {
        let line = line.trim();
        if let Some(comment) = line.strip_prefix("# ") {
            what = comment.to_string();
        } else if !line.is_empty() {
            roff.control("TP", []);
            roff.text([bold(line)]);
            if !what.is_empty() {
                roff.text([roman(format!("{}.", what.trim_end_matches('.')))]);
            }
            what.clear();
            any = true;
        }
    }
    if !any {
        item(
            roff,
            &format!("{} --help", name.replacen('-', " ", 1)),
            "What it takes.",
        );
    }
}

/// SEE ALSO: thinker's page from a command's, the commands' from thinker's.
fn see_also(roff: &mut Roff, command: Option<&str>) {
    roff.control("SH", ["SEE ALSO"]);
    let text = if command.is_some() {
        "thinker(1); thinker man --dir DIR writes every page.".to_string()
    } else {
        "The page of each command above (thinker man COMMAND); thinker man --dir DIR writes them all.".to_string()
    };
    roff.text([roman(text)]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_a_page_with_the_four_sections_and_its_examples() {
        let pages = pages();
        let cli = Cli::command();
        assert_eq!(pages.len(), cli.get_subcommands().count() + 1);
        for page in &pages {
            for section in ["EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES"] {
                assert!(
                    page.text.contains(&format!(".SH \"{section}\""))
                        || page.text.contains(&format!(".SH {section}\n")),
                    "{}: no {section}\n{}",
                    page.name,
                    page.text
                );
            }
            assert!(!page.text.contains(".SH EXTRA"), "{}", page.name);
        }
        let tick = pages.iter().find(|p| p.name == "thinker-tick").unwrap();
        assert!(
            tick.text.contains("thinker tick \\-\\-dry\\-run \\-v"),
            "{}",
            tick.text
        );
    }
}
