//! Sources (SPEC §6, tick step 2): gathering what a thread sees.
//!
//! [`gather`] runs all the sources of one thread concurrently and returns their texts in
//! config order, plus the failures, which belong to the journal and `doctor` and never to
//! a prompt (SPEC §4.3). Every text is *untrusted data*: it is decoded lossily, cleaned
//! by [`sanitize`] and capped in bytes here; the prompt assembly marks it as data.
//!
//! Decisions, per kind:
//!
//! - **Names.** A source's `name`, else its kind, or for `command` the program's file name
//!   (`df`). Repeats are numbered `df`, `df-2`, `df-3`; a default name never takes one
//!   given explicitly to another source ([`source_names`]).
//! - **Cleaning.** Invalid UTF-8 becomes U+FFFD. Escape sequences (CSI `ESC [ … final`,
//!   OSC/DCS/APC/PM/SOS strings up to BEL, ST *or the end of the line*, two- and
//!   three-byte `ESC` sequences, their 8-bit C1 forms) are removed whole, so no `[31m`
//!   debris is left; every other control character except `\n` and `\t` is removed; `\r\n`
//!   and a lone `\r` become `\n`; the bidi embedding, override and isolate controls
//!   (U+202A–U+202E, U+2066–U+2069, "Trojan Source") are removed.
//! - **Caps.** `max_bytes` applies to the cleaned text (defaults: command
//!   [`DEFAULT_COMMAND_MAX_BYTES`], files [`DEFAULT_FILES_MAX_BYTES`] in total, transcript
//!   [`DEFAULT_TRANSCRIPT_MAX_BYTES`]; system and archive are small by construction). A
//!   cut falls on a char boundary, and on a line end when one lies in the kept half;
//!   `truncated` is then set and the prompt assembly says so. No marker is added to the
//!   text itself.
//! - **`command`**: argv, no shell; stdin `/dev/null`; stdout read up to `max_bytes + 1`
//!   bytes, then the process is killed (a command that prints forever returns at once,
//!   marked truncated); stderr is drained concurrently and only its first 1 KiB is kept,
//!   for error messages. Timeout `timeout_seconds` (default 10 s; a value that is not a
//!   positive number takes the default) → failure `timed out after N s`, the process is
//!   killed. Program not found → failure naming it. Non-zero exit: with output, the
//!   output is used; with none (blank), a failure with the exit code or signal and the
//!   first line of stderr. Exit 0 with no output is an empty text. Only the direct child
//!   is killed (killing a process group needs `unsafe` or a new dependency); once it has
//!   exited, its pipes are read for 200 ms more and then let go, so a background process
//!   it started that keeps them open cannot hold the source until the timeout.
//! - **`files`**: each glob expanded (at most 10,000 matches each), sorted, deduplicated,
//!   regular files only (symlinks followed). Files modified after `last_tick` come first,
//!   headed `== PATH (changed since last tick) ==`, the others `== PATH ==`; in each
//!   group the most recently modified first, ties by path. On the first tick
//!   (`last_tick = None`) nothing is called out as changed. Files are read in that order
//!   until the total cap, a blank line between them; the file that crosses the cap is
//!   cut (marked truncated) and the rest are left out. A file with a NUL byte in what is
//!   read is shown as `(binary file, not shown)`. Paths in headers have control
//!   characters replaced with `?`. An unreadable file, a bad pattern or an unreadable
//!   directory is skipped; only when nothing at all could be read is it a failure.
//!   **A glob that matches nothing is neither text nor failure**: the text is empty
//!   (an empty memory directory is normal, and telling the model about the runner's
//!   configuration is what SPEC §4.3 forbids); `doctor` can call [`expand_globs`].
//! - **`system`**: `load L1 L5 L15 (N cpus)`, `memory X available of Y`, `swap X used
//!   of Y` (when there is swap), `up 3 days 4 h`, one `disk MOUNT P% used (X free)` line
//!   per distinct mount of `/` and `$HOME` (from `df -Pk`, 3 s timeout). Missing pieces
//!   are skipped; a failure only when nothing at all is available.
//! - **`transcript`**: the last `max_bytes` of the file, starting after a line end
//!   (unless the only line end lies in the second half: then at a char boundary, so one
//!   huge line still shows its end). A missing file is a failure.
//! - **`archive`**: the last 256 KiB of `archive.jsonl`, read leniently (bad lines
//!   skipped; an entry needs `id` and `summary`). Deduplicated by id, the latest removal
//!   winning (`removed_at`, then file order). An archived entry that is back in the
//!   state (same id and same summary) is left out. Each is scored by its best Jaccard
//!   similarity to a current entry; those above 0 are shown, best first, ties the most
//!   recently removed first, at most `max_entries` (default [`DEFAULT_ARCHIVE_ENTRIES`]);
//!   when nothing resembles, the most recently removed. No archive file → empty text.
//!
//! File work (`files`, `transcript`, `archive`) runs on tokio's blocking pool with a
//! 10 s limit, so a hung network mount fails the source instead of holding the tick
//! (the stuck thread itself cannot be stopped: shut the runtime down with a timeout).

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, SystemTime};

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt};

use crate::config::SourceConfig;
use crate::matching::{Similarity, TokenSet, similarity};
use crate::state::State;
use crate::storage::ARCHIVE_FILE;
use crate::timestamp;
use crate::untrusted;

/// Default timeout of a `command` source.
pub const DEFAULT_COMMAND_TIMEOUT_SECONDS: f64 = 10.0;
/// Default cap of a `command` source's output.
pub const DEFAULT_COMMAND_MAX_BYTES: usize = 4000;
/// Default cap of a `files` source, all files together.
pub const DEFAULT_FILES_MAX_BYTES: usize = 8000;
/// Default cap of a `transcript` source.
pub const DEFAULT_TRANSCRIPT_MAX_BYTES: usize = 6000;
/// Default number of entries an `archive` source shows.
pub const DEFAULT_ARCHIVE_ENTRIES: usize = 5;

/// How much of the end of `archive.jsonl` is read.
const ARCHIVE_TAIL_BYTES: usize = 256 * 1024;
/// How much of a command's stderr is kept for its error message.
const STDERR_KEEP: usize = 1024;
/// How long a pipe is still read once the process has exited (a process it started
/// may keep the pipe open).
const PIPE_GRACE: Duration = Duration::from_millis(200);
/// Time limit of the file-reading sources (a hung network mount cannot hold a tick).
const FILE_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest stderr line quoted in a failure, in chars.
const ERROR_LINE_CHARS: usize = 200;
/// Longest id or summary shown for an archived entry, in chars.
const ARCHIVE_FIELD_CHARS: usize = 300;
/// At most this many paths are taken from one glob.
const MAX_GLOB_MATCHES: usize = 10_000;
/// Timeout of `df` for the system source.
const DF_TIMEOUT: Duration = Duration::from_secs(3);
/// Cap of `df` output.
const DF_MAX_BYTES: usize = 16 * 1024;

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

/// Gathers all `sources` of one thread concurrently; `texts` keep the config order.
pub async fn gather(sources: &[SourceConfig], ctx: &GatherContext<'_>) -> Gathered {
    let names = source_names(sources);
    let runs = sources.iter().map(|s| gather_one(s, ctx));
    let results = futures::future::join_all(runs).await;
    let mut gathered = Gathered::default();
    for ((source, name), result) in sources.iter().zip(names).zip(results) {
        let kind = kind(source);
        match result {
            Ok(t) => gathered.texts.push(SourceText {
                name,
                kind,
                text: t.text,
                truncated: t.truncated,
            }),
            Err(error) => gathered.failures.push(SourceFailure { name, kind, error }),
        }
    }
    gathered
}

/// The kind of a source as the config spells it.
pub fn kind(source: &SourceConfig) -> &'static str {
    match source {
        SourceConfig::Command { .. } => "command",
        SourceConfig::Files { .. } => "files",
        SourceConfig::System { .. } => "system",
        SourceConfig::Transcript { .. } => "transcript",
        SourceConfig::Archive { .. } => "archive",
    }
}

fn explicit_name(source: &SourceConfig) -> Option<&str> {
    match source {
        SourceConfig::Command { name, .. }
        | SourceConfig::Files { name, .. }
        | SourceConfig::System { name }
        | SourceConfig::Transcript { name, .. }
        | SourceConfig::Archive { name, .. } => name.as_deref().filter(|n| !n.trim().is_empty()),
    }
}

fn default_name(source: &SourceConfig) -> String {
    if let SourceConfig::Command { command, .. } = source
        && let Some(program) = command.first()
        && let Some(file) = Path::new(program).file_name()
    {
        return file.to_string_lossy().into_owned();
    }
    kind(source).to_string()
}

/// The name of each source, in order: its `name`, else its kind (for a command, the
/// program: `df`), numbered `-2`, `-3`… when repeated.
pub fn source_names(sources: &[SourceConfig]) -> Vec<String> {
    let explicit: HashSet<&str> = sources.iter().filter_map(explicit_name).collect();
    let mut used: HashSet<String> = HashSet::new();
    sources
        .iter()
        .map(|s| {
            let given = explicit_name(s);
            let base = given.map_or_else(|| default_name(s), str::to_string);
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

async fn gather_one(source: &SourceConfig, ctx: &GatherContext<'_>) -> Result<Text, String> {
    match source {
        SourceConfig::Command {
            command,
            timeout_seconds,
            max_bytes,
            ..
        } => {
            let seconds = timeout_seconds
                .filter(|s| s.is_finite() && *s > 0.0)
                .unwrap_or(DEFAULT_COMMAND_TIMEOUT_SECONDS)
                .min(86_400.0);
            let timeout = Duration::try_from_secs_f64(seconds)
                .unwrap_or(Duration::from_secs(DEFAULT_COMMAND_TIMEOUT_SECONDS as u64));
            let max = max_bytes.unwrap_or(DEFAULT_COMMAND_MAX_BYTES);
            let out = run_command(command, timeout, max)
                .await
                .map_err(|e| match e {
                    CommandError::TimedOut => format!("timed out after {seconds} s"),
                    CommandError::Other(m) => m,
                })?;
            let mut text = sanitize(&out.bytes);
            let truncated = cap_head(&mut text, max, out.truncated);
            Ok(Text { text, truncated })
        }
        SourceConfig::Files {
            paths, max_bytes, ..
        } => {
            let paths = paths.clone();
            let max = max_bytes.unwrap_or(DEFAULT_FILES_MAX_BYTES);
            let last_tick = ctx.last_tick;
            blocking(move || files_text(&paths, max, last_tick)).await
        }
        SourceConfig::System { .. } => system_text().await,
        SourceConfig::Transcript {
            path, max_bytes, ..
        } => {
            let path = PathBuf::from(path);
            let max = max_bytes.unwrap_or(DEFAULT_TRANSCRIPT_MAX_BYTES);
            blocking(move || transcript_text(&path, max)).await
        }
        SourceConfig::Archive { max_entries, .. } => {
            let path = ctx.state_dir.join(ARCHIVE_FILE);
            let current: Vec<(String, String)> = ctx
                .state
                .all_entries()
                .map(|(_, e)| (e.id.clone(), e.summary.clone()))
                .collect();
            let max = max_entries.unwrap_or(DEFAULT_ARCHIVE_ENTRIES);
            blocking(move || archive_text(&path, &current, max)).await
        }
    }
}

/// Runs blocking file work off the async threads, within [`FILE_TIMEOUT`].
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    match tokio::time::timeout(FILE_TIMEOUT, tokio::task::spawn_blocking(f)).await {
        Ok(Ok(result)) => result,
        Ok(Err(e)) => Err(format!("internal error: {e}")),
        Err(_) => Err(format!("timed out after {} s", FILE_TIMEOUT.as_secs())),
    }
}

// ---------------------------------------------------------------------------------------
// Cleaning and capping.

/// Decodes `bytes` (invalid UTF-8 becomes U+FFFD) and [`clean`]s the text.
pub fn sanitize(bytes: &[u8]) -> String {
    clean(&String::from_utf8_lossy(bytes))
}

/// The one cleaner of untrusted text ([`untrusted::clean`]): escape sequences removed
/// whole, controls but `\n` and `\t` dropped, bidi and zero-width characters removed.
pub fn clean(text: &str) -> String {
    untrusted::clean(text)
}

/// One line for a header or a list item: control characters (newlines too) become
/// `replacement`, at most `max_chars` chars.
fn one_line(text: &str, replacement: char, max_chars: usize) -> String {
    let mut out: String = clean(text)
        .chars()
        .map(|c| if c.is_control() { replacement } else { c })
        .take(max_chars + 1)
        .collect();
    if out.chars().count() > max_chars {
        let keep: String = out.chars().take(max_chars.saturating_sub(1)).collect();
        out = keep + "…";
    }
    out
}

/// Cuts `text` to at most `max` bytes, keeping the beginning: at a char boundary, and
/// after the last line end if that keeps at least half. `more`: the text is known to go
/// on (its source was cut before cleaning), so a partial last line goes too. Returns
/// whether the text is cut.
fn cap_head(text: &mut String, max: usize, more: bool) -> bool {
    if text.len() <= max && !more {
        return false;
    }
    let mut cut = text.floor_char_boundary(max);
    if let Some(nl) = text[..cut].rfind('\n')
        && (nl + 1) * 2 >= cut
    {
        cut = nl + 1;
    }
    text.truncate(cut);
    true
}

/// Cuts `text` to at most `max` bytes, keeping the end: at a char boundary, and after
/// the first line end if that keeps at least half. Returns whether it cut.
fn cap_tail(text: &mut String, max: usize) -> bool {
    if text.len() <= max {
        return false;
    }
    let mut start = text.ceil_char_boundary(text.len() - max);
    if let Some(nl) = text[start..].find('\n')
        && nl * 2 <= text.len() - start
    {
        start += nl + 1;
    }
    text.drain(..start);
    true
}

// ---------------------------------------------------------------------------------------
// command

/// What a command printed.
#[derive(Debug)]
struct CommandOutput {
    /// At most `max` bytes of stdout.
    bytes: Vec<u8>,
    /// There was more; the process was killed.
    truncated: bool,
}

#[derive(Debug)]
enum CommandError {
    TimedOut,
    Other(String),
}

/// Runs `argv` (no shell) and reads at most `max` bytes of its stdout.
async fn run_command(
    argv: &[String],
    timeout: Duration,
    max: usize,
) -> Result<CommandOutput, CommandError> {
    let Some((program, arguments)) = argv.split_first() else {
        return Err(CommandError::Other(
            "no program given (command = [])".into(),
        ));
    };
    let mut child = tokio::process::Command::new(program)
        .args(arguments)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| CommandError::Other(spawn_error(program, &e)))?;
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let (done_tx, done_rx) = tokio::sync::oneshot::channel::<()>();
    let child_ref = &mut child;
    let out_part = async move {
        let mut buf = Vec::new();
        let mut exited = None;
        let read = {
            let limit = u64::try_from(max.saturating_add(1)).unwrap_or(u64::MAX);
            let read = read_limited(stdout, limit, &mut buf);
            tokio::pin!(read);
            tokio::select! {
                r = &mut read => r,
                s = child_ref.wait() => {
                    // Exited, but something it started may hold stdout open.
                    exited = Some(s);
                    tokio::time::timeout(PIPE_GRACE, &mut read).await.unwrap_or(Ok(()))
                }
            }
        };
        let over = buf.len() > max;
        if over {
            let _ = child_ref.start_kill();
        }
        let status = match exited {
            Some(s) => s,
            None => child_ref.wait().await,
        };
        let _ = done_tx.send(());
        (buf, over, read, status)
    };
    let err_part = async move {
        let mut buf = Vec::new();
        if let Some(mut s) = stderr {
            let drain = drain(&mut s, &mut buf);
            tokio::select! {
                () = drain => {}
                () = async {
                    let _ = done_rx.await;
                    tokio::time::sleep(PIPE_GRACE).await;
                } => {}
            }
        }
        buf
    };
    let outcome = tokio::time::timeout(timeout, async { tokio::join!(out_part, err_part) }).await;
    let Ok(((mut buf, over, read, status), err)) = outcome else {
        let _ = child.kill().await;
        return Err(CommandError::TimedOut);
    };
    if over {
        buf.truncate(max);
        return Ok(CommandOutput {
            bytes: buf,
            truncated: true,
        });
    }
    let has_output = buf.iter().any(|b| !b.is_ascii_whitespace());
    let status =
        status.map_err(|e| CommandError::Other(format!("cannot wait for `{program}`: {e}")))?;
    if status.success() || has_output {
        return Ok(CommandOutput {
            bytes: buf,
            truncated: false,
        });
    }
    if let Err(e) = read {
        return Err(CommandError::Other(format!(
            "cannot read the output of `{program}`: {e}"
        )));
    }
    let mut message = format!("`{program}` {}", describe_exit(status));
    if let Some(line) = first_line(&err) {
        let _ = write!(message, ": {line}");
    }
    Err(CommandError::Other(message))
}

/// Reads at most `limit` bytes of `r` into `buf`.
async fn read_limited(
    r: Option<impl AsyncRead + Unpin>,
    limit: u64,
    buf: &mut Vec<u8>,
) -> io::Result<()> {
    match r {
        Some(r) => r.take(limit).read_to_end(buf).await.map(|_| ()),
        None => Ok(()),
    }
}

/// Reads `r` to its end, keeping the first [`STDERR_KEEP`] bytes in `keep`.
async fn drain(r: &mut (impl AsyncRead + Unpin), keep: &mut Vec<u8>) {
    let mut chunk = [0u8; 4096];
    loop {
        match r.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let room = STDERR_KEEP.saturating_sub(keep.len());
                keep.extend_from_slice(&chunk[..n.min(room)]);
            }
        }
    }
}

fn spawn_error(program: &str, e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => {
            format!("program `{program}` not found (is it installed and on PATH?)")
        }
        io::ErrorKind::PermissionDenied => format!("program `{program}` cannot be run: {e}"),
        _ => format!("cannot run `{program}`: {e}"),
    }
}

fn describe_exit(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with code {code} and printed nothing"),
        (None, Some(signal)) => format!("was killed by signal {signal} and printed nothing"),
        (None, None) => format!("failed ({status}) and printed nothing"),
    }
}

/// The first non-blank line of a command's stderr, cleaned and bounded.
fn first_line(stderr: &[u8]) -> Option<String> {
    let text = sanitize(stderr);
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| one_line(l, ' ', ERROR_LINE_CHARS))
}

// ---------------------------------------------------------------------------------------
// files

/// The regular files the globs match: sorted, deduplicated, with their modification
/// time; and what went wrong on the way (bad patterns, unreadable directories or files).
pub fn expand_globs(patterns: &[String]) -> (Vec<(PathBuf, SystemTime)>, Vec<String>) {
    let mut errors = Vec::new();
    let mut paths = Vec::new();
    for pattern in patterns {
        match glob::glob(pattern) {
            Err(e) => errors.push(format!("`{pattern}` is not a valid glob: {e}")),
            Ok(found) => {
                for p in found.take(MAX_GLOB_MATCHES) {
                    match p {
                        Ok(p) => paths.push(p),
                        Err(e) => errors.push(e.to_string()),
                    }
                }
            }
        }
    }
    paths.sort();
    paths.dedup();
    let mut files = Vec::with_capacity(paths.len());
    for p in paths {
        match std::fs::metadata(&p) {
            Ok(m) if m.is_file() => {
                files.push((p, m.modified().unwrap_or(SystemTime::UNIX_EPOCH)));
            }
            Ok(_) => {}
            Err(e) => errors.push(format!("{}: {e}", p.display())),
        }
    }
    (files, errors)
}

fn files_text(
    patterns: &[String],
    max: usize,
    last_tick: Option<DateTime<Utc>>,
) -> Result<Text, String> {
    let (files, mut errors) = expand_globs(patterns);
    let mut files: Vec<(PathBuf, SystemTime, bool)> = files
        .into_iter()
        .map(|(p, mtime)| {
            let changed = last_tick.is_some_and(|t| DateTime::<Utc>::from(mtime) > t);
            (p, mtime, changed)
        })
        .collect();
    files.sort_by(|a, b| {
        b.2.cmp(&a.2)
            .then_with(|| b.1.cmp(&a.1))
            .then_with(|| a.0.cmp(&b.0))
    });
    let mut out = String::new();
    let mut truncated = false;
    let mut read_any = false;
    for (path, _, changed) in &files {
        let header = format!(
            "{}== {}{} ==\n",
            if out.is_empty() { "" } else { "\n" },
            one_line(&path.to_string_lossy(), '?', 1000),
            if *changed {
                " (changed since last tick)"
            } else {
                ""
            }
        );
        let room = max.saturating_sub(out.len() + header.len());
        if room == 0 {
            truncated = true;
            break;
        }
        let bytes = match read_head(path, room.saturating_add(1)) {
            Ok(b) => b,
            Err(e) => {
                errors.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        read_any = true;
        let (mut body, cut) = if bytes.contains(&0) {
            ("(binary file, not shown)\n".to_string(), false)
        } else {
            let over = bytes.len() > room;
            (sanitize(&bytes), over)
        };
        let cut = cap_head(&mut body, room, cut);
        if !body.is_empty() && !body.ends_with('\n') && body.len() < room {
            body.push('\n');
        }
        out.push_str(&header);
        out.push_str(&body);
        if cut {
            truncated = true;
            break;
        }
    }
    if !read_any && !errors.is_empty() {
        let more = errors.len() - 1;
        let mut message = format!("nothing could be read: {}", one_line(&errors[0], ' ', 300));
        if more > 0 {
            let _ = write!(message, " (and {more} more problems)");
        }
        return Err(message);
    }
    Ok(Text {
        text: out,
        truncated,
    })
}

/// The first `limit` bytes of a file.
fn read_head(path: &Path, limit: usize) -> io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let mut buf = Vec::new();
    file.take(u64::try_from(limit).unwrap_or(u64::MAX))
        .read_to_end(&mut buf)?;
    Ok(buf)
}

// ---------------------------------------------------------------------------------------
// transcript and archive: the tail of a file

/// The last bytes of a file.
#[derive(Debug)]
struct Tail {
    bytes: Vec<u8>,
    /// `bytes` begin at the start of the file or right after a `\n`.
    at_line_start: bool,
    /// The file is longer than `bytes`.
    cut: bool,
}

/// Reads the last `max` bytes of `path` (one more is read to see whether they begin a
/// line).
fn read_tail(path: &Path, max: usize) -> io::Result<Tail> {
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let max64 = u64::try_from(max).unwrap_or(u64::MAX);
    if len <= max64 {
        let mut bytes = Vec::new();
        file.take(max64).read_to_end(&mut bytes)?;
        return Ok(Tail {
            bytes,
            at_line_start: true,
            cut: false,
        });
    }
    file.seek(SeekFrom::Start(len - max64 - 1))?;
    let mut bytes = Vec::new();
    file.take(max64 + 1).read_to_end(&mut bytes)?;
    let at_line_start = bytes.first() == Some(&b'\n');
    if !bytes.is_empty() {
        bytes.remove(0);
    }
    Ok(Tail {
        bytes,
        at_line_start,
        cut: true,
    })
}

/// Drops a partial first line (when a line end lies in the first half) or else a partial
/// first char.
fn skip_partial_line(tail: &Tail) -> &[u8] {
    let b = &tail.bytes[..];
    if tail.at_line_start {
        return b;
    }
    match b.iter().position(|&c| c == b'\n') {
        Some(nl) if nl * 2 <= b.len() => &b[nl + 1..],
        _ => {
            let skip = b
                .iter()
                .take(3)
                .take_while(|&&c| (0x80..0xc0).contains(&c))
                .count();
            &b[skip..]
        }
    }
}

fn transcript_text(path: &Path, max: usize) -> Result<Text, String> {
    let tail = read_tail(path, max).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut text = sanitize(skip_partial_line(&tail));
    let cut = cap_tail(&mut text, max);
    Ok(Text {
        text,
        truncated: tail.cut || cut,
    })
}

/// One entry of `archive.jsonl`, as far as the archive source cares.
#[derive(Debug, Clone)]
struct Forgotten {
    id: String,
    summary: String,
    removed_at: Option<DateTime<Utc>>,
    reason: Option<String>,
    /// Line number in what was read: later lines were appended later.
    line: usize,
}

impl Forgotten {
    fn parse(line: &str, index: usize) -> Option<Forgotten> {
        let v: Value = serde_json::from_str(line).ok()?;
        let text = |k: &str| {
            v.get(k)
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        Some(Forgotten {
            id: text("id")?,
            summary: text("summary")?,
            removed_at: text("removed_at").and_then(|t| timestamp::parse(&t)),
            reason: text("reason"),
            line: index,
        })
    }

    /// Later removals sort greater.
    fn recency(&self) -> (Option<DateTime<Utc>>, usize) {
        (self.removed_at, self.line)
    }

    fn render(&self, out: &mut String) {
        let mut notes = Vec::new();
        if let Some(t) = self.removed_at {
            notes.push(format!("removed {}", t.format("%Y-%m-%d")));
        }
        if let Some(r) = &self.reason {
            notes.push(one_line(r, ' ', 40));
        }
        let _ = write!(
            out,
            "- [{}] {}",
            one_line(&self.id, ' ', ARCHIVE_FIELD_CHARS),
            one_line(&self.summary, ' ', ARCHIVE_FIELD_CHARS)
        );
        if !notes.is_empty() {
            let _ = write!(out, " ({})", notes.join(", "));
        }
        out.push('\n');
    }
}

/// Forgotten entries that resemble the `current` (id, summary) entries.
fn archive_text(path: &Path, current: &[(String, String)], max: usize) -> Result<Text, String> {
    let tail = match read_tail(path, ARCHIVE_TAIL_BYTES) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Text::default()),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let bytes = if tail.at_line_start {
        &tail.bytes[..]
    } else {
        // A partial first line cannot parse anyway.
        let start = tail
            .bytes
            .iter()
            .position(|&c| c == b'\n')
            .map_or(tail.bytes.len(), |nl| nl + 1);
        &tail.bytes[start..]
    };
    let text = String::from_utf8_lossy(bytes);
    let mut latest: HashMap<String, Forgotten> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let Some(f) = Forgotten::parse(line, i) else {
            continue;
        };
        match latest.get(&f.id) {
            Some(seen) if seen.recency() > f.recency() => {}
            _ => {
                latest.insert(f.id.clone(), f);
            }
        }
    }
    let remembered: HashSet<(&str, &str)> = current
        .iter()
        .map(|(id, s)| (id.as_str(), s.as_str()))
        .collect();
    let sets: Vec<TokenSet> = current.iter().map(|(_, s)| TokenSet::new(s)).collect();
    let mut scored: Vec<(Similarity, Forgotten)> = latest
        .into_values()
        .filter(|f| !remembered.contains(&(f.id.as_str(), f.summary.as_str())))
        .map(|f| {
            let own = TokenSet::new(&f.summary);
            let best = sets
                .iter()
                .map(|s| similarity(&own, s))
                .max()
                .unwrap_or(Similarity::ZERO);
            (best, f)
        })
        .collect();
    let by_recency =
        |a: &Forgotten, b: &Forgotten| b.recency().cmp(&a.recency()).then_with(|| a.id.cmp(&b.id));
    let resembling = scored.iter().any(|(s, _)| s.shared > 0);
    if resembling {
        scored.retain(|(s, _)| s.shared > 0);
        scored.sort_by(|(sa, a), (sb, b)| sb.cmp(sa).then_with(|| by_recency(a, b)));
    } else {
        scored.sort_by(|(_, a), (_, b)| by_recency(a, b));
    }
    let mut out = String::new();
    for (_, f) in scored.iter().take(max) {
        f.render(&mut out);
    }
    Ok(Text {
        text: out,
        truncated: false,
    })
}

// ---------------------------------------------------------------------------------------
// system

async fn system_text() -> Result<Text, String> {
    let mut lines = Vec::new();
    let cpus = std::thread::available_parallelism().map_or(0, std::num::NonZero::get);
    if let Ok(s) = tokio::fs::read_to_string("/proc/loadavg").await
        && let Some(l) = load_line(&s, cpus)
    {
        lines.push(l);
    }
    if let Ok(s) = tokio::fs::read_to_string("/proc/meminfo").await {
        lines.extend(memory_lines(&s));
    }
    if let Ok(s) = tokio::fs::read_to_string("/proc/uptime").await
        && let Some(l) = uptime_line(&s)
    {
        lines.push(l);
    }
    let mut df = vec!["df".to_string(), "-Pk".to_string(), "/".to_string()];
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        df.push(home.to_string_lossy().into_owned());
    }
    if let Ok(out) = run_command(&df, DF_TIMEOUT, DF_MAX_BYTES).await {
        lines.extend(disk_lines(&String::from_utf8_lossy(&out.bytes)));
    }
    if lines.is_empty() {
        return Err("no system information: /proc is not readable and `df` failed".into());
    }
    let mut text = lines.join("\n");
    text.push('\n');
    Ok(Text {
        text: clean(&text),
        truncated: false,
    })
}

/// `load 0.52 0.40 0.31 (2 cpus)` from `/proc/loadavg`.
fn load_line(loadavg: &str, cpus: usize) -> Option<String> {
    let f: Vec<&str> = loadavg.split_whitespace().take(3).collect();
    if f.len() < 3 || f.iter().any(|x| x.parse::<f64>().is_err()) {
        return None;
    }
    let mut line = format!("load {} {} {}", f[0], f[1], f[2]);
    if cpus > 0 {
        let _ = write!(line, " ({cpus} cpu{})", if cpus == 1 { "" } else { "s" });
    }
    Some(line)
}

/// `memory 3.1 GiB available of 23.5 GiB` (and swap, when there is some) from
/// `/proc/meminfo`.
fn memory_lines(meminfo: &str) -> Vec<String> {
    let kib = |key: &str| {
        meminfo.lines().find_map(|l| {
            let rest = l.strip_prefix(key)?.strip_prefix(':')?;
            rest.split_whitespace().next()?.parse::<u64>().ok()
        })
    };
    let mut lines = Vec::new();
    if let (Some(total), Some(available)) = (kib("MemTotal"), kib("MemAvailable")) {
        lines.push(format!(
            "memory {} available of {}",
            human(available * 1024),
            human(total * 1024)
        ));
    }
    if let (Some(total), Some(free)) = (kib("SwapTotal"), kib("SwapFree"))
        && total > 0
    {
        lines.push(format!(
            "swap {} used of {}",
            human(total.saturating_sub(free) * 1024),
            human(total * 1024)
        ));
    }
    lines
}

/// `up 3 days 4 h` from `/proc/uptime`.
fn uptime_line(uptime: &str) -> Option<String> {
    let secs: f64 = uptime.split_whitespace().next()?.parse().ok()?;
    if !secs.is_finite() || secs < 0.0 {
        return None;
    }
    let s = secs as u64;
    let (days, hours, minutes) = (s / 86_400, s % 86_400 / 3600, s % 3600 / 60);
    Some(match (days, hours) {
        (0, 0) => format!("up {minutes} min"),
        (0, _) => format!("up {hours} h {minutes} min"),
        (1, _) => format!("up 1 day {hours} h"),
        _ => format!("up {days} days {hours} h"),
    })
}

/// `disk / 61% used (80 GiB free)`, one line per distinct mount point, from `df -Pk`.
fn disk_lines(df: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut lines = Vec::new();
    for line in df.lines().skip(1) {
        let f: Vec<&str> = line.split_whitespace().collect();
        // Filesystem names may hold spaces: find `blocks used available NN%` anywhere.
        let Some(i) = (1..f.len().saturating_sub(4)).find(|&i| {
            f[i..i + 3].iter().all(|x| x.parse::<u64>().is_ok())
                && f[i + 3]
                    .strip_suffix('%')
                    .is_some_and(|p| p.parse::<u64>().is_ok())
        }) else {
            continue;
        };
        let mount = f[i + 4..].join(" ");
        if !seen.insert(mount.clone()) {
            continue;
        }
        let available: u64 = f[i + 2].parse().unwrap_or(0);
        lines.push(format!(
            "disk {mount} {} used ({} free)",
            f[i + 3],
            human(available * 1024)
        ));
    }
    lines
}

/// Bytes for people: `512 MiB`, `3.1 GiB`, `80 GiB` (one decimal below 100), `1.8 TiB`.
fn human(bytes: u64) -> String {
    const MIB: f64 = 1024.0 * 1024.0;
    const GIB: f64 = MIB * 1024.0;
    const TIB: f64 = GIB * 1024.0;
    let b = bytes as f64;
    if b < GIB {
        format!("{:.0} MiB", b / MIB)
    } else if b < 100.0 * GIB {
        format!("{:.1} GiB", b / GIB)
    } else if b < TIB {
        format!("{:.0} GiB", b / GIB)
    } else {
        format!("{:.1} TiB", b / TIB)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Entry;

    fn ctx<'a>(state: &'a State, dir: &'a Path) -> GatherContext<'a> {
        GatherContext {
            state,
            state_dir: dir,
            last_tick: None,
            now: timestamp::parse("2026-11-22T10:05:00Z").unwrap(),
        }
    }

    fn command(argv: &[&str], timeout: Option<f64>, max: Option<usize>) -> SourceConfig {
        SourceConfig::Command {
            name: None,
            command: argv.iter().map(ToString::to_string).collect(),
            timeout_seconds: timeout,
            max_bytes: max,
        }
    }

    async fn one(source: SourceConfig) -> Gathered {
        let state = State::default();
        let dir = tempfile::tempdir().unwrap();
        gather(&[source], &ctx(&state, dir.path())).await
    }

    fn entry(id: &str, summary: &str) -> Entry {
        let t = timestamp::parse("2026-11-01T00:00:00Z").unwrap();
        Entry {
            id: id.into(),
            summary: summary.into(),
            strength: 3,
            created: t,
            last_seen: t,
            due: None,
            source: None,
            extra: serde_json::Map::new(),
        }
    }

    #[tokio::test]
    async fn command_output_is_captured() {
        let g = one(command(&["echo", "hello", "world"], None, None)).await;
        assert!(g.failures.is_empty(), "{g:?}");
        assert_eq!(g.texts.len(), 1);
        let t = &g.texts[0];
        assert_eq!((t.name.as_str(), t.kind), ("echo", "command"));
        assert_eq!(t.text, "hello world\n");
        assert!(!t.truncated);
    }

    #[tokio::test]
    async fn command_timeout_is_a_failure() {
        let g = one(command(&["sleep", "5"], Some(0.2), None)).await;
        assert!(g.texts.is_empty());
        assert_eq!(g.failures.len(), 1);
        assert_eq!(g.failures[0].name, "sleep");
        assert_eq!(g.failures[0].error, "timed out after 0.2 s");
    }

    #[tokio::test]
    async fn missing_program_is_named() {
        let g = one(command(&["thinker-no-such-program-x"], None, None)).await;
        assert!(g.texts.is_empty());
        let e = &g.failures[0].error;
        assert!(
            e.contains("`thinker-no-such-program-x`") && e.contains("not found"),
            "{e}"
        );
    }

    #[tokio::test]
    async fn endless_output_is_cut_and_the_command_killed() {
        let g = one(command(&["yes"], Some(30.0), Some(1001))).await;
        assert!(g.failures.is_empty(), "{g:?}");
        let t = &g.texts[0];
        assert!(t.truncated);
        // Cut after the last whole line.
        assert_eq!(t.text, "y\n".repeat(500));
    }

    #[tokio::test]
    async fn failing_command_reports_code_and_stderr_but_keeps_output() {
        let g = one(command(
            &["sh", "-c", "echo 'boom: disk gone' >&2; exit 3"],
            None,
            None,
        ))
        .await;
        let e = &g.failures[0].error;
        assert!(e.contains("code 3") && e.contains("boom: disk gone"), "{e}");

        let g = one(command(&["sh", "-c", "echo partial; exit 1"], None, None)).await;
        assert!(g.failures.is_empty());
        assert_eq!(g.texts[0].text, "partial\n");
    }

    #[tokio::test]
    async fn output_is_kept_when_a_background_child_holds_the_pipe() {
        let g = one(command(&["sh", "-c", "sleep 5 & echo hi"], Some(2.0), None)).await;
        assert!(g.failures.is_empty(), "{g:?}");
        assert_eq!(g.texts[0].text, "hi\n");
    }

    #[tokio::test]
    async fn control_characters_are_stripped() {
        let g = one(command(
            &[
                "printf",
                "\\033[31mred\\033[0m \\033]0;title\\007ok\\r\\n\\001bell\\007\\n",
            ],
            None,
            None,
        ))
        .await;
        assert_eq!(g.texts[0].text, "red ok\nbell\n");
    }

    #[test]
    fn clean_removes_sequences_and_keeps_text() {
        assert_eq!(clean("a\tb\nc"), "a\tb\nc");
        assert_eq!(clean("\x1b[1;31mX\x1b[m"), "X");
        assert_eq!(clean("\x1b(Bx\x1bcy"), "xy");
        assert_eq!(clean("\u{9b}2Jz"), "z");
        assert_eq!(clean("safe\u{202e}txt.exe"), "safetxt.exe");
        // An unterminated OSC swallows only its own line.
        assert_eq!(clean("\x1b]8;;http://x\nnext"), "\nnext");
        assert_eq!(clean("1\r2\r\n3"), "1\n2\n3");
        assert_eq!(sanitize(b"ok \xff\xfe end"), "ok \u{fffd}\u{fffd} end");
        assert_eq!(clean("Ärger ✓"), "Ärger ✓");
    }

    #[test]
    fn caps_respect_char_and_line_boundaries() {
        let mut s = "ab\ncd".to_string();
        assert!(cap_head(&mut s, 4, false));
        assert_eq!(s, "ab\n");
        let mut s = "ééé".to_string(); // 6 bytes, no line end
        assert!(cap_head(&mut s, 3, false));
        assert_eq!(s, "é");
        let mut s = "short".to_string();
        assert!(!cap_head(&mut s, 5, false));
        let mut s = "ab\ncd".to_string(); // known to go on: the partial line goes
        assert!(cap_head(&mut s, 10, true));
        assert_eq!(s, "ab\n");
        let mut s = "ab\ncdef".to_string();
        assert!(cap_tail(&mut s, 5));
        assert_eq!(s, "cdef");
        let mut s = "éééé".to_string();
        assert!(cap_tail(&mut s, 5));
        assert_eq!(s, "éé");
    }

    #[test]
    fn default_names_are_numbered_when_repeated() {
        let s = |name: Option<&str>| SourceConfig::System {
            name: name.map(Into::into),
        };
        let sources = [
            command(&["/usr/bin/df", "-h"], None, None),
            command(&["df"], None, None),
            s(None),
            s(Some("system")),
            s(None),
        ];
        assert_eq!(
            source_names(&sources),
            ["df", "df-2", "system-2", "system", "system-3"]
        );
    }

    fn write(path: &Path, text: &str, mtime: &str) {
        std::fs::write(path, text).unwrap();
        let t: SystemTime = timestamp::parse(mtime).unwrap().into();
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }

    #[tokio::test]
    async fn changed_files_come_first_and_the_cap_holds() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(&d.join("a.md"), "old a\n", "2026-11-20T00:00:00Z");
        write(&d.join("b.md"), "new b\n", "2026-11-22T10:00:00Z");
        write(&d.join("c.md"), "older c\n", "2026-11-19T00:00:00Z");
        std::fs::create_dir(d.join("sub.md")).unwrap(); // not a regular file
        let pattern = format!("{}/*.md", d.display());
        let state = State::default();
        let mut cx = ctx(&state, d);
        cx.last_tick = timestamp::parse("2026-11-22T09:00:00Z");
        let source = |max| SourceConfig::Files {
            name: None,
            paths: vec![pattern.clone(), format!("{}/a.*", d.display())],
            max_bytes: max,
        };
        let g = gather(&[source(None)], &cx).await;
        let p = |f: &str| d.join(f).display().to_string();
        assert_eq!(
            g.texts[0].text,
            format!(
                "== {} (changed since last tick) ==\nnew b\n\n== {} ==\nold a\n\n== {} ==\nolder c\n",
                p("b.md"),
                p("a.md"),
                p("c.md")
            )
        );
        assert!(!g.texts[0].truncated && g.failures.is_empty());

        let full = g.texts[0].text.len();
        let g = gather(&[source(Some(full - 3))], &cx).await;
        let t = &g.texts[0];
        assert!(t.truncated && t.text.len() <= full - 3, "{t:?}");
        assert!(
            t.text.contains("new b\n") && t.text.contains("old a\n"),
            "{t:?}"
        );
        assert!(!t.text.contains("older c"));

        // No match: empty text, no failure.
        let g = gather(
            &[SourceConfig::Files {
                name: None,
                paths: vec![format!("{}/*.txt", d.display())],
                max_bytes: None,
            }],
            &cx,
        )
        .await;
        assert_eq!(g.texts[0].text, "");
        assert!(g.failures.is_empty());
    }

    #[tokio::test]
    async fn a_bad_glob_with_nothing_read_is_a_failure() {
        let g = one(SourceConfig::Files {
            name: Some("notes".into()),
            paths: vec!["/tmp/[".into()],
            max_bytes: None,
        })
        .await;
        assert!(g.texts.is_empty());
        assert_eq!(g.failures[0].name, "notes");
        assert!(g.failures[0].error.contains("not a valid glob"), "{g:?}");
    }

    #[tokio::test]
    async fn transcript_tail_starts_at_a_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.log");
        let lines = (0..100).fold(String::new(), |mut s, i| {
            let _ = writeln!(s, "line {i:03}");
            s
        });
        std::fs::write(&path, &lines).unwrap();
        let source = |max| SourceConfig::Transcript {
            name: None,
            path: path.display().to_string(),
            max_bytes: Some(max),
        };
        // 9 bytes a line; 40 bytes hold 4 whole lines and part of a fifth.
        let g = one(source(40)).await;
        let t = &g.texts[0];
        assert_eq!(t.text, "line 096\nline 097\nline 098\nline 099\n");
        assert!(t.truncated);
        // Exactly on a line boundary.
        let g = one(source(18)).await;
        assert_eq!(g.texts[0].text, "line 098\nline 099\n");
        // Whole file.
        let g = one(source(10_000)).await;
        assert_eq!(g.texts[0].text, lines);
        assert!(!g.texts[0].truncated);
        // Missing file.
        let g = one(SourceConfig::Transcript {
            name: None,
            path: "/nonexistent/t.log".into(),
            max_bytes: None,
        })
        .await;
        assert!(g.failures[0].error.contains("/nonexistent/t.log"));
    }

    fn archived(id: &str, summary: &str, removed: &str, reason: &str) -> String {
        serde_json::json!({
            "id": id, "summary": summary, "strength": 0,
            "created": "2026-11-01T00:00:00Z", "last_seen": "2026-11-02T00:00:00Z",
            "category": "patterns", "removed_at": removed, "reason": reason,
        })
        .to_string()
            + "\n"
    }

    #[tokio::test]
    async fn archive_shows_what_resembles_the_present() {
        let dir = tempfile::tempdir().unwrap();
        let mut text = String::new();
        text += &archived(
            "p-backup-job-fails",
            "Backup job fails Mondays",
            "2026-11-10T00:00:00Z",
            "pruned",
        );
        text += &archived(
            "h-cat-food",
            "Cat food running low",
            "2026-11-21T00:00:00Z",
            "decayed",
        );
        text += "not json\n{\"id\": \"x\"}\n";
        text += &archived(
            "t-disk-full",
            "Disk almost full on server",
            "2026-11-15T00:00:00Z",
            "decayed",
        );
        // The same id removed again later: the later removal wins.
        text += &archived(
            "p-backup-job-fails",
            "Backup job fails on Mondays",
            "2026-11-20T00:00:00Z",
            "decayed",
        );
        text += &archived(
            "t-still-here",
            "Still remembered item",
            "2026-11-21T00:00:00Z",
            "budget",
        );
        std::fs::write(dir.path().join(ARCHIVE_FILE), text).unwrap();

        let mut state = State::default();
        state.patterns.push(entry(
            "p-backup-failed",
            "Backup failed again on Monday night",
        ));
        state
            .active_threads
            .push(entry("t-server", "Server disk usage rising"));
        state
            .active_threads
            .push(entry("t-still-here", "Still remembered item"));
        let source = |max| SourceConfig::Archive {
            name: None,
            max_entries: max,
        };
        let g = gather(&[source(None)], &ctx(&state, dir.path())).await;
        assert_eq!(
            g.texts[0].text,
            "- [t-disk-full] Disk almost full on server (removed 2026-11-15, decayed)\n\
             - [p-backup-job-fails] Backup job fails on Mondays (removed 2026-11-20, decayed)\n"
        );
        let g = gather(&[source(Some(1))], &ctx(&state, dir.path())).await;
        assert_eq!(g.texts[0].text.lines().count(), 1);

        // Nothing resembles: the most recently removed.
        let empty = State::default();
        let g = gather(&[source(Some(2))], &ctx(&empty, dir.path())).await;
        let t = &g.texts[0].text;
        assert!(
            t.starts_with("- [t-still-here]") && t.contains("[h-cat-food]"),
            "{t}"
        );

        // No archive: empty text, no failure.
        let none = tempfile::tempdir().unwrap();
        let g = gather(&[source(None)], &ctx(&state, none.path())).await;
        assert_eq!(g.texts[0].text, "");
        assert!(g.failures.is_empty());
    }

    #[test]
    fn system_parsers() {
        assert_eq!(
            load_line("0.52 0.40 0.31 1/123 4567\n", 2).unwrap(),
            "load 0.52 0.40 0.31 (2 cpus)"
        );
        assert_eq!(
            memory_lines(
                "MemTotal:       24641536 kB\nMemFree: 1 kB\nMemAvailable:    3250585 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n"
            ),
            ["memory 3.1 GiB available of 23.5 GiB"]
        );
        assert_eq!(uptime_line("273600.5 100.0").unwrap(), "up 3 days 4 h");
        assert_eq!(uptime_line("4000 1").unwrap(), "up 1 h 6 min");
        let df = "Filesystem     1024-blocks     Used Available Capacity Mounted on\n\
                  /dev/vda         264212084 18208844  77077044      20% /\n\
                  /dev/vda         264212084 18208844  77077044      20% /\n\
                  my disk 100 50 50 50% /mnt/my disk\n";
        assert_eq!(
            disk_lines(df),
            [
                "disk / 20% used (73.5 GiB free)",
                "disk /mnt/my disk 50% used (0 MiB free)"
            ]
        );
    }

    #[tokio::test]
    async fn system_reports_something_on_linux() {
        let g = one(SourceConfig::System { name: None }).await;
        assert!(g.failures.is_empty(), "{g:?}");
        let t = &g.texts[0].text;
        assert!(t.contains("load ") && t.contains("memory "), "{t}");
        assert!(t.contains("disk /"), "{t}");
    }

    #[tokio::test]
    async fn texts_keep_config_order_and_failures_stay_out() {
        let state = State::default();
        let dir = tempfile::tempdir().unwrap();
        let sources = [
            command(&["sh", "-c", "sleep 0.3; echo first"], None, None),
            command(&["thinker-no-such-program-x"], None, None),
            command(&["echo", "third"], None, None),
        ];
        let g = gather(&sources, &ctx(&state, dir.path())).await;
        let texts: Vec<&str> = g.texts.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["first\n", "third\n"]);
        assert_eq!(g.failures[0].name, "thinker-no-such-program-x");
    }
}
