//! Sources (SPEC §6, tick step 2): gathering what a thread sees.
//!
//! [`gather`] runs all the sources of one thread concurrently and returns their texts in
//! config order, plus the failures, which belong to the journal and `doctor` and never to
//! a prompt (SPEC §4.3). Every text is *untrusted data*: it is decoded lossily, cleaned
//! by [`sanitize`] and capped in bytes here; the prompt assembly marks it as data.
//!
//! One file per kind, each owning its settings type (checked once from the config's
//! TOML table: ripgrep's low → high split), its defaults and how it is read:
//! [`command`], [`files`], [`system`], [`transcript`], [`archive`], [`maildir`], [`ics`],
//! [`sample`].
//! This module owns what they share: [`Source`] (a name and a [`SourceKind`]), reading a
//! source's table ([`Source::from_table`]), [`gather`], the names, and the result types;
//! `text` holds cleaning and caps, `read` the file reading, [`settings`] the shared
//! checks, `error` why a source failed ([`SourceError`]). **A new kind** is one new file (its `XSettings::from_table`, its `text`) and
//! one arm in [`SourceKind`], [`SourceKind::NAMES`], [`Source::from_table`] and
//! `gather_one`.
//!
//! Decisions shared by every kind:
//!
//! - **Names.** A source's `name`, else its kind, or for `command` the program's file name
//!   (`df`). Repeats are numbered `df`, `df-2`, `df-3`; a default name never takes one
//!   given explicitly to another source ([`source_names`]). A blank `name` is no name.
//! - **Cleaning.** Invalid UTF-8 becomes U+FFFD. Escape sequences (CSI `ESC [ … final`,
//!   OSC/DCS/APC/PM/SOS strings up to BEL, ST *or the end of the line*, two- and
//!   three-byte `ESC` sequences, their 8-bit C1 forms) are removed whole, so no `[31m`
//!   debris is left; every other control character except `\n` and `\t` is removed; `\r\n`
//!   and a lone `\r` become `\n`; the bidi embedding, override and isolate controls
//!   (U+202A–U+202E, U+2066–U+2069, "Trojan Source") are removed.
//! - **Caps.** `max_bytes` applies to the cleaned text (defaults: command
//!   [`DEFAULT_COMMAND_MAX_BYTES`], files [`DEFAULT_FILES_MAX_BYTES`] in total, transcript
//!   [`DEFAULT_TRANSCRIPT_MAX_BYTES`], maildir [`DEFAULT_MAILDIR_MAX_BYTES`], ics [`DEFAULT_ICS_MAX_BYTES`]; system and
//!   archive are small by construction). A cut falls on a char boundary, and on a line
//!   end when one lies in the kept half; `truncated` is then set and the prompt assembly
//!   says so. No marker is added to the text itself.
//! - **Settings.** Checked when the config is read, never at gather time: a timeout that
//!   is not a number of seconds above 0 and at most a day, a `max_bytes` outside 1 to
//!   10,000,000, a `max_entries` or `max_messages` outside 1 to 1000, an empty
//!   `command`, an unknown key or kind are config errors; the config reader adds the
//!   key's place and line.
//!
//! File work (`files`, `transcript`, `archive`, `maildir`, `ics`) runs on tokio's blocking pool
//! with a 10 s limit, so a hung network mount fails the source instead of holding the tick
//! (the stuck thread itself cannot be stopped: shut the runtime down with a timeout).
//! Must not put a source's error into its text.

pub mod archive;
pub mod command;
mod error;
pub mod files;
pub mod ics;
pub mod maildir;
mod read;
pub mod refs;
pub mod roles;
pub mod sample;
pub mod settings;
pub mod system;
mod text;
pub mod transcript;

use std::collections::HashSet;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Serialize;

pub use archive::{ArchiveSettings, DEFAULT_ARCHIVE_ENTRIES};
pub use command::{CommandSettings, DEFAULT_COMMAND_MAX_BYTES, DEFAULT_COMMAND_TIMEOUT_SECONDS};
pub use error::SourceError;
pub use files::{DEFAULT_FILES_MAX_BYTES, FilesSettings, expand_globs};
pub use ics::{DEFAULT_ICS_HOURS, DEFAULT_ICS_MAX_BYTES, DEFAULT_ICS_MAX_EVENTS, IcsSettings};
pub use maildir::{DEFAULT_MAILDIR_MAX_BYTES, MaildirSettings};
pub use sample::SampleSettings;
pub use settings::{PathError, Resolve, SettingsError};
pub use system::SystemSettings;
pub use text::{clean, sanitize};
pub use transcript::{DEFAULT_TRANSCRIPT_MAX_BYTES, TranscriptSettings};

use crate::clock::Zone;
use crate::state::State;

/// What counts as a change of the world in a source's text, for the quiet tick
/// (`crate::quiet`): each kind says, in its own file; `None` for what is not the world
/// (`archive` follows the memory, which decays by itself). Kinds that do not say count
/// their whole text.
pub fn world_view(kind: &str, text: &str) -> Option<String> {
    match kind {
        "archive" => None,
        "system" => Some(system::world(text)),
        "files" => Some(files::world(text)),
        "maildir" => Some(maildir::world(text)),
        "ics" => Some(ics::world(text)),
        _ => Some(text.to_string()),
    }
}

/// What the sources of a tick may look at besides the world.
#[derive(Debug, Clone, Copy)]
pub struct GatherContext<'a> {
    /// The subconscious now (the archive source compares against it).
    pub state: &'a State,
    /// The state directory (where `archive.jsonl` lives).
    pub state_dir: &'a Path,
    /// The previous tick: files modified after it are called out.
    pub last_tick: Option<DateTime<Utc>>,
    pub now: DateTime<Utc>,
    /// The user's zone: local days and wall-clock times shown to the threads.
    pub zone: Zone,
    /// The most any one source may read and keep, whatever its own `max_bytes`: the
    /// thread's share of the tick's input budget (`usize::MAX`: no more than its own).
    pub max_bytes: usize,
}

/// The text of one source, cleaned and capped: untrusted data for a prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceText {
    pub name: String,
    pub kind: &'static str,
    pub text: String,
    /// The source had more than its cap; `text` is cut.
    pub truncated: bool,
}

/// A source that produced nothing usable; for the journal and `doctor`, never a prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceFailure {
    pub name: String,
    pub kind: &'static str,
    pub error: String,
}

/// All the sources of one thread.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Gathered {
    /// In config order; failed sources are not here.
    pub texts: Vec<SourceText>,
    pub failures: Vec<SourceFailure>,
}

/// A source's text before it is named.
#[derive(Debug, Default)]
struct Text {
    text: String,
    truncated: bool,
}

/// A source a thread reads (SPEC §6), checked: what the rest of the program trusts.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    /// The `name` given in the config (never blank); `None`: named by default.
    pub name: Option<String>,
    pub kind: SourceKind,
    /// `private = true | false` as the config gives it (SPEC §9); `None`: by its kind
    /// (`crate::privacy` decides).
    pub private: Option<bool>,
}

/// What a source reads, with the settings of its kind.
#[derive(Debug, Clone, PartialEq)]
pub enum SourceKind {
    /// A command's output: `command = ["df", "-h"]`.
    Command(CommandSettings),
    /// Files matching globs, those changed since the last tick called out.
    Files(FilesSettings),
    /// Load, memory and disk of this machine.
    System(SystemSettings),
    /// The tail of the agent's conversation log.
    Transcript(TranscriptSettings),
    /// Forgotten entries from `archive.jsonl` that resemble what is remembered now.
    Archive(ArchiveSettings),
    /// The newest messages of a Maildir folder.
    Maildir(MaildirSettings),
    /// Calendar events ahead, from `.ics` files and vdir directories.
    Ics(IcsSettings),
    /// A few lines of what the other threads' sources see (the Dreamer's default).
    Sample(SampleSettings),
}

impl SourceKind {
    /// Every kind, as the config spells it.
    pub const NAMES: &[&str] = &[
        "command",
        "files",
        "system",
        "transcript",
        "archive",
        "maildir",
        "ics",
        "sample",
    ];

    /// The kind as the config spells it.
    pub fn name(&self) -> &'static str {
        match self {
            SourceKind::Command(_) => "command",
            SourceKind::Files(_) => "files",
            SourceKind::System(_) => "system",
            SourceKind::Transcript(_) => "transcript",
            SourceKind::Archive(_) => "archive",
            SourceKind::Maildir(_) => "maildir",
            SourceKind::Ics(_) => "ics",
            SourceKind::Sample(_) => "sample",
        }
    }
}

impl From<SourceKind> for Source {
    /// A source without a name of its own.
    fn from(kind: SourceKind) -> Source {
        Source {
            name: None,
            kind,
            private: None,
        }
    }
}

impl Source {
    /// Reads one source's table from the config: `kind` picks the kind, `name` and
    /// `private` are common, the kind checks the rest. `resolve` resolves a path the way the config
    /// file's paths are (relative to its directory, `~` expanded). The error names the
    /// key within the table; the caller adds where the table is.
    pub fn from_table(
        mut table: toml::Table,
        resolve: Resolve<'_>,
    ) -> Result<Source, SettingsError> {
        let kind = match table.remove("kind") {
            Some(toml::Value::String(kind)) => kind,
            Some(other) => {
                return Err(SettingsError::at(
                    "kind",
                    format!(
                        "{other} must be a string: one of {}",
                        SourceKind::NAMES.join(", ")
                    ),
                ));
            }
            None => {
                return Err(SettingsError {
                    field: None,
                    message: format!(
                        "missing field `kind`: give one of {}",
                        SourceKind::NAMES.join(", ")
                    ),
                });
            }
        };
        let name = match table.remove("name") {
            None => None,
            Some(toml::Value::String(name)) => Some(name).filter(|n| !n.trim().is_empty()),
            Some(other) => {
                return Err(SettingsError::at(
                    "name",
                    format!("{other} must be a string"),
                ));
            }
        };
        let private = match table.remove("private") {
            None => None,
            Some(toml::Value::Boolean(private)) => Some(private),
            Some(other) => {
                return Err(SettingsError::at(
                    "private",
                    format!("{other} must be true or false"),
                ));
            }
        };
        let kind = match kind.as_str() {
            "command" => SourceKind::Command(CommandSettings::from_table(table)?),
            "files" => SourceKind::Files(FilesSettings::from_table(table, resolve)?),
            "system" => SourceKind::System(SystemSettings::from_table(table)?),
            "transcript" => SourceKind::Transcript(TranscriptSettings::from_table(table, resolve)?),
            "archive" => SourceKind::Archive(ArchiveSettings::from_table(table)?),
            "maildir" => SourceKind::Maildir(MaildirSettings::from_table(table, resolve)?),
            "ics" => SourceKind::Ics(IcsSettings::from_table(table, resolve)?),
            "sample" => SourceKind::Sample(SampleSettings::from_table(table)?),
            other => {
                return Err(SettingsError::at(
                    "kind",
                    format!(
                        "unknown source kind `{other}`: use one of {}",
                        SourceKind::NAMES.join(", ")
                    ),
                ));
            }
        };
        Ok(Source {
            name,
            kind,
            private,
        })
    }

    /// The kind as the config spells it.
    pub fn kind(&self) -> &'static str {
        self.kind.name()
    }

    fn default_name(&self) -> String {
        match &self.kind {
            SourceKind::Command(c) => c.program_name(),
            _ => None,
        }
        .unwrap_or_else(|| self.kind().to_string())
    }
}

/// Gathers all `sources` of one thread concurrently; `texts` keep the config order.
pub async fn gather(sources: &[Source], ctx: &GatherContext<'_>) -> Gathered {
    gather_sharing(sources, ctx, None).await
}

/// [`gather`], the `ics` sources reading through the tick's `calendars` (one reading of
/// the same paths for all threads).
pub async fn gather_sharing(
    sources: &[Source],
    ctx: &GatherContext<'_>,
    calendars: Option<&ics::Calendars>,
) -> Gathered {
    let names = source_names(sources);
    let runs = sources.iter().map(|s| gather_one(s, ctx, calendars));
    let results = futures::future::join_all(runs).await;
    let mut gathered = Gathered::default();
    for ((source, name), result) in sources.iter().zip(names).zip(results) {
        let kind = source.kind();
        match result {
            Ok(t) => gathered.texts.push(SourceText {
                name,
                kind,
                text: t.text,
                truncated: t.truncated,
            }),
            Err(error) => gathered.failures.push(SourceFailure {
                name,
                kind,
                error: error.to_string(),
            }),
        }
    }
    gathered
}

/// Fits `texts` into `budget` bytes in all (the thread's share of the tick's input
/// budget): when they are over it, each keeps at most an equal share of what is left
/// once the texts shorter than their share are kept whole (the shortest first), cut
/// like a source's own cap (`text::cap_head`: a char boundary, a line end when one
/// lies in the kept half) and marked truncated. Deterministic; returns, for each text,
/// its length before a cut (`None`: kept whole).
pub fn fit(texts: &mut [SourceText], budget: usize) -> Vec<Option<usize>> {
    let total: usize = texts.iter().map(|t| t.text.len()).sum();
    let mut before = vec![None; texts.len()];
    if total <= budget {
        return before;
    }
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| (texts[i].text.len(), i));
    let mut left = budget;
    for (k, &i) in order.iter().enumerate() {
        let share = left / (order.len() - k);
        let len = texts[i].text.len();
        if len <= share {
            left -= len;
            continue;
        }
        let t = &mut texts[i];
        text::cap_head(&mut t.text, share, false);
        t.truncated = true;
        before[i] = Some(len);
        left -= t.text.len();
    }
    before
}

/// The name of each source, in order: its `name`, else its kind (for a command, the
/// program: `df`), numbered `-2`, `-3`… when repeated.
pub fn source_names(sources: &[Source]) -> Vec<String> {
    let explicit: HashSet<&str> = sources.iter().filter_map(|s| s.name.as_deref()).collect();
    let mut used: HashSet<String> = HashSet::new();
    sources
        .iter()
        .map(|s| {
            let given = s.name.as_deref();
            let base = given.map_or_else(|| s.default_name(), str::to_string);
            let taken = |n: &str, used: &HashSet<String>| {
                used.contains(n) || (given.is_none() && explicit.contains(n))
            };
            let mut name = base.clone();
            let mut i = 2;
            while taken(&name, &used) {
                name = format!("{base}-{i}");
                i += 1;
            }
            used.insert(name.clone());
            name
        })
        .collect()
}

async fn gather_one(
    source: &Source,
    ctx: &GatherContext<'_>,
    calendars: Option<&ics::Calendars>,
) -> Result<Text, SourceError> {
    match &source.kind {
        SourceKind::Command(s) => command::text(s, ctx.max_bytes).await,
        SourceKind::Files(s) => files::text(s, ctx).await,
        SourceKind::System(s) => system::text(s).await,
        SourceKind::Transcript(s) => transcript::text(s, ctx.max_bytes).await,
        SourceKind::Archive(s) => archive::text(s, ctx).await,
        SourceKind::Maildir(s) => maildir::text(s, ctx).await,
        SourceKind::Ics(s) => ics::text(s, ctx, calendars).await,
        SourceKind::Sample(s) => sample::text(s, ctx).await,
    }
}

/// Shared by the kinds' tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::{CommandSettings, GatherContext, Gathered, Source, SourceKind, gather};
    use crate::state::State;
    use crate::timestamp;
    use std::path::Path;

    pub fn ctx<'a>(state: &'a State, dir: &'a Path) -> GatherContext<'a> {
        GatherContext {
            state,
            state_dir: dir,
            last_tick: None,
            now: timestamp::parse("2026-11-22T10:05:00Z").unwrap(),
            zone: crate::clock::Zone::UTC,
            max_bytes: usize::MAX,
        }
    }

    /// A command source as the config would give it (`None`: left out).
    pub fn command(argv: &[&str], timeout: Option<f64>, max: Option<usize>) -> SourceKind {
        SourceKind::Command(CommandSettings::for_test(argv, timeout, max))
    }

    /// Gathers one source against an empty state in a fresh directory.
    pub async fn one(source: impl Into<Source>) -> Gathered {
        let state = State::default();
        let dir = tempfile::tempdir().unwrap();
        gather(&[source.into()], &ctx(&state, dir.path())).await
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::testing::{command, ctx};
    use super::*;

    fn from_toml(text: &str) -> Result<Source, SettingsError> {
        let resolve = |p: &str| -> Result<PathBuf, PathError> {
            if p.starts_with('~') {
                Err(PathError::NoHome { path: p.into() })
            } else {
                Ok(Path::new("/etc/thinker").join(p))
            }
        };
        Source::from_table(text.parse::<toml::Table>().unwrap(), &resolve)
    }

    #[test]
    fn each_kind_checks_its_settings() {
        // (table, the field the error names; "" = accepted, "-" = the source as a whole)
        let cases: &[(&str, &str)] = &[
            ("kind = 'command'\ncommand = ['df', '-h']", ""),
            (
                "kind = 'command'\ncommand = ['df']\ntimeout_seconds = 2.5\nmax_bytes = 100",
                "",
            ),
            ("kind = 'command'\ncommand = []", "command"),
            ("kind = 'command'", "-"),
            (
                "kind = 'command'\ncommand = ['df']\ntimeout_seconds = -3",
                "timeout_seconds",
            ),
            (
                "kind = 'command'\ncommand = ['df']\ntimeout_seconds = 0",
                "timeout_seconds",
            ),
            (
                "kind = 'command'\ncommand = ['df']\ntimeout_seconds = 86401",
                "timeout_seconds",
            ),
            (
                "kind = 'command'\ncommand = ['df']\ntimeout_seconds = 'x'",
                "timeout_seconds",
            ),
            (
                "kind = 'command'\ncommand = ['df']\nmax_bytes = 0",
                "max_bytes",
            ),
            (
                "kind = 'command'\ncommand = ['df']\nmax_bytes = 10000001",
                "max_bytes",
            ),
            (
                "kind = 'command'\ncommand = ['df']\nmax_bytez = 3",
                "max_bytez",
            ),
            (
                "kind = 'files'\npaths = ['notes/*.md']\nmax_bytes = 8000",
                "",
            ),
            ("kind = 'files'\npaths = ['/a', '~nobody/x']", "paths[1]"),
            (
                "kind = 'files'\npaths = ['/a']\nmax_bytes = -1",
                "max_bytes",
            ),
            (
                "kind = 'files'\npaths = ['/a']\ntimeout_seconds = 3",
                "timeout_seconds",
            ),
            ("kind = 'system'\nname = 'box'", ""),
            ("kind = 'system'\nmax_bytes = 10", "max_bytes"),
            ("kind = 'transcript'\npath = 'log.txt'\nmax_bytes = 1", ""),
            ("kind = 'transcript'\npath = '~x/log'", "path"),
            (
                "kind = 'transcript'\npath = '/x'\nmax_bytes = 1.5",
                "max_bytes",
            ),
            ("kind = 'transcript'", "-"),
            ("kind = 'archive'\nmax_entries = 1000", ""),
            ("kind = 'archive'\nmax_entries = 0", "max_entries"),
            ("kind = 'archive'\nmax_entries = 1001", "max_entries"),
            ("kind = 'mbox'", "kind"),
            ("kind = 'maildir'", "-"),
            ("kind = 'maildir'\npath = 'Mail'\nmax_messages = 20", ""),
            (
                "kind = 'maildir'\npath = '/m'\nmax_messages = 0",
                "max_messages",
            ),
            ("kind = 3", "kind"),
            ("name = 'x'", "-"),
            ("kind = 'system'\nname = 4", "name"),
            ("kind = 'system'\nprivate = true", ""),
            ("kind = 'system'\nprivate = 'yes'", "private"),
        ];
        // Every kind the config may name is read by its own file.
        for kind in SourceKind::NAMES {
            if let Err(e) = from_toml(&format!("kind = '{kind}'")) {
                assert_ne!(e.field.as_deref(), Some("kind"), "{kind}: {e}");
            }
        }
        for (text, field) in cases {
            match (from_toml(text), *field) {
                (Ok(_), "") => {}
                (Err(e), "-") => assert_eq!(e.field, None, "{text}: {e}"),
                (Err(e), f) if !f.is_empty() => {
                    assert_eq!(e.field.as_deref(), Some(f), "{text}: {e}");
                    assert!(e.to_string().starts_with(&format!("`{f}`: ")), "{e}");
                }
                (result, f) => panic!("{text}: expected {f:?}, got {result:?}"),
            }
        }
    }

    #[test]
    fn settings_are_resolved_and_defaulted_once() {
        let s = from_toml("kind = 'files'\nname = '  '\npaths = ['notes/*.md']").unwrap();
        assert_eq!(s.name, None, "a blank name is no name");
        let SourceKind::Files(f) = &s.kind else {
            panic!("{s:?}")
        };
        assert_eq!(f.patterns(), ["/etc/thinker/notes/*.md"]);
        let s = from_toml("kind = 'transcript'\npath = 't.log'").unwrap();
        let SourceKind::Transcript(t) = &s.kind else {
            panic!("{s:?}")
        };
        assert_eq!(t.path(), Path::new("/etc/thinker/t.log"));
        let s = from_toml("kind = 'command'\ncommand = ['/usr/bin/df']").unwrap();
        assert_eq!(s.default_name(), "df");
    }

    #[test]
    fn default_names_are_numbered_when_repeated() {
        let s = |name: Option<&str>| Source {
            name: name.map(Into::into),
            kind: SourceKind::System(SystemSettings {}),
            private: None,
        };
        let sources = [
            command(&["/usr/bin/df", "-h"], None, None).into(),
            command(&["df"], None, None).into(),
            s(None),
            s(Some("system")),
            s(None),
        ];
        assert_eq!(
            source_names(&sources),
            ["df", "df-2", "system-2", "system", "system-3"]
        );
    }

    #[test]
    fn the_budget_keeps_short_texts_whole_and_shares_the_rest() {
        let t = |n: usize| SourceText {
            name: format!("s{n}"),
            kind: "command",
            text: "x".repeat(n),
            truncated: false,
        };
        // (lengths, budget, lengths after) — each row names the wrong sharing it catches.
        let cases: &[(&[usize], usize, &[usize])] = &[
            (&[10, 20], 100, &[10, 20]),               // under budget: untouched
            (&[10, 1000, 1000], 310, &[10, 150, 150]), // short kept, the rest shared
            (&[1000, 10], 110, &[100, 10]),            // order does not matter, only length
            (&[50, 50, 50], 90, &[30, 30, 30]),        // equal shares
            (&[5, 0], 0, &[0, 0]),                     // nothing left
        ];
        for (lens, budget, want) in cases {
            let mut texts: Vec<SourceText> = lens.iter().map(|&n| t(n)).collect();
            let before = fit(&mut texts, *budget);
            let got: Vec<usize> = texts.iter().map(|t| t.text.len()).collect();
            assert_eq!(got, *want, "{lens:?} in {budget}");
            assert!(got.iter().sum::<usize>() <= *budget || lens.iter().sum::<usize>() <= *budget);
            for ((b, t), n) in before.iter().zip(&texts).zip(*lens) {
                assert_eq!(b.is_some(), t.truncated);
                assert_eq!(b.is_some(), t.text.len() < *n);
            }
        }
    }

    #[tokio::test]
    async fn texts_keep_config_order_and_failures_stay_out() {
        let state = State::default();
        let dir = tempfile::tempdir().unwrap();
        let sources = [
            command(&["sh", "-c", "sleep 0.3; echo first"], None, None).into(),
            command(&["thinker-no-such-program-x"], None, None).into(),
            command(&["echo", "third"], None, None).into(),
        ];
        let g = gather(&sources, &ctx(&state, dir.path())).await;
        let texts: Vec<&str> = g.texts.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["first\n", "third\n"]);
        assert_eq!(g.failures[0].name, "thinker-no-such-program-x");
    }
}
