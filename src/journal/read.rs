//! Reading the journal back (`journal.jsonl` and its rotated files, in the order of
//! [`super::files::journal_files`]) into [`Tick`]s: each tick's [`JournalLine`] with the
//! [`EscalationLine`] of the same `run` joined to it (one join, the same in both modes).
//!
//! Two modes, one line shape ([`super::line`]):
//! Embeddings calls' lines (egress only, [`EmbeddingsLine`]) are kept apart by
//! [`lenient`] for the egress ledger and passed over by [`strict`].
//!
//! - [`lenient`] (`log`, `stats`, `doctor`, the MCP status): a line that does not read (torn
//!   by a kill, corrupt) is skipped and counted with its file and line number for the
//!   caller's one warning ([`Skipped`]); it never stops the read. An escalation line whose
//!   tick line is lost stands alone (with [`JournalLine::lost`]). Reads only the files a
//!   [`Span`] needs.
//! - [`strict`] (`replay`, `explain`, `report`): a replay that skipped a line would compute
//!   wrong states, so the read stops at the first line that does not read, or an
//!   escalation line with no tick before it, and says where ([`Stop`]).
//!
//! Reads only: must not write, lock or rotate (that is `storage`), nor render (that is
//! the commands).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};

use super::files::start_of;
use super::line::{EmbeddingsLine, EscalationLine, JournalLine, Line};
use crate::archive::Archived;
use crate::storage::ARCHIVE_FILE;
use crate::timestamp;

/// A journal or archive file that exists but cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read {}: {source} (check its permissions, or pass --state the right directory)", path.display())]
    Read { path: PathBuf, source: io::Error },
    #[error("cannot list the state directory {}: {source} (pass --state the right directory)", path.display())]
    List { path: PathBuf, source: io::Error },
    /// A FIFO or a device would hang the read or never end.
    #[error("{} is not a regular file, so it was not read; move it aside (`mv {} {}.aside`)", path.display(), path.display(), path.display())]
    NotRegular { path: PathBuf },
}

/// A tick with its escalation line, if it had one.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    pub line: JournalLine,
    pub escalation: Option<EscalationLine>,
}

impl Tick {
    /// The tick's cost and its escalation's.
    pub fn cost(&self) -> f64 {
        self.line.cost + self.escalation.as_ref().map_or(0.0, |e| e.escalation.cost)
    }
}

/// Joins an escalation line to its tick: the latest one with the same run (run numbers
/// restart when the ledger is deleted), unless that one already has its escalation line.
/// Gives the line back when there is no such tick.
fn join(ticks: &mut [Tick], esc: Box<EscalationLine>) -> Result<(), Box<EscalationLine>> {
    match ticks.iter_mut().rev().find(|t| t.line.run == esc.run) {
        Some(tick) if tick.escalation.is_none() => {
            tick.escalation = Some(*esc);
            Ok(())
        }
        _ => Err(esc),
    }
}

/// A line that was skipped: where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unreadable {
    pub file: String,
    /// 1-based.
    pub line: usize,
}

/// Lines that could not be read, for the one warning a command prints.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Skipped(pub Vec<Unreadable>);

impl Skipped {
    /// One line for people: how many, and where the first few are; `None` when none.
    pub fn warning(&self, what: &str) -> Option<String> {
        let n = self.0.len();
        if n == 0 {
            return None;
        }
        let places: Vec<String> = self
            .0
            .iter()
            .take(3)
            .map(|u| format!("{} line {}", u.file, u.line))
            .collect();
        let more = if n > 3 { ", …" } else { "" };
        let lines = if n == 1 { "line" } else { "lines" };
        Some(format!(
            "skipped {n} unreadable {what} {lines} ({}{more}): torn by a killed tick or corrupt; the rest was read",
            places.join(", ")
        ))
    }
}

/// Which part of the journal to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Span {
    /// Everything.
    All,
    /// At least the last `n` ticks (whole files are read, newest first, until there are).
    Last(usize),
    /// The ticks at or after this instant (older rotated files are not opened).
    Since(DateTime<Utc>),
}

/// The journal as read leniently: ticks in file order, the embeddings calls' lines
/// (egress only), and what was skipped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lenient {
    pub ticks: Vec<Tick>,
    pub embeddings: Vec<EmbeddingsLine>,
    pub skipped: Skipped,
}

/// The journal files of `dir` in order ([`super::files::journal_files`]).
fn journal_files(dir: &Path) -> Result<Vec<PathBuf>, ReadError> {
    super::files::journal_files(dir).map_err(|source| ReadError::List {
        path: dir.to_path_buf(),
        source,
    })
}

/// Reads `span` of the journal in `dir` leniently (no journal yet: no ticks).
pub fn lenient(dir: &Path, span: Span) -> Result<Lenient, ReadError> {
    let files = journal_files(dir)?;
    let chosen: &[PathBuf] = match span {
        Span::All => &files,
        Span::Since(since) => {
            // A rotated file is older than `since` when the next file starts before it.
            let first = files
                .iter()
                .enumerate()
                .rev()
                .find(|(_, p)| start_of(p).is_some_and(|s| s <= since))
                .map_or(0, |(i, _)| i);
            &files[first..]
        }
        Span::Last(n) => {
            let mut first = files.len();
            let mut ticks = 0;
            while first > 0 && ticks < n {
                first -= 1;
                ticks += count_ticks(&files[first])?;
            }
            &files[first..]
        }
    };
    let mut journal = Lenient::default();
    for path in chosen {
        let Some(bytes) = read_bytes(path)? else {
            continue;
        };
        for (i, line) in lines(&bytes) {
            match serde_json::from_slice::<Line>(line) {
                Ok(Line::Tick(tick)) => journal.ticks.push(Tick {
                    line: *tick,
                    escalation: None,
                }),
                Ok(Line::Escalation(esc)) => {
                    if let Err(esc) = join(&mut journal.ticks, esc) {
                        journal.ticks.push(Tick {
                            line: JournalLine::lost(esc.time, esc.run),
                            escalation: Some(*esc),
                        });
                    }
                }
                Ok(Line::Embeddings(line)) => journal.embeddings.push(*line),
                Err(_) => journal.skipped.0.push(Unreadable {
                    file: name_of(path),
                    line: i + 1,
                }),
            }
        }
    }
    if let Span::Since(since) = span {
        journal.ticks.retain(|t| t.line.time >= since);
        journal.embeddings.retain(|e| e.time >= since);
    }
    Ok(journal)
}

/// Where and why a strict read stopped before the end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stop {
    pub file: String,
    /// 1-based.
    pub line: usize,
    pub why: String,
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} line {}: {}", self.file, self.line, self.why)
    }
}

/// The journal as read strictly: every tick up to the first line that does not read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Strict {
    pub ticks: Vec<Tick>,
    /// Set when a line could not be read: nothing after it was read.
    pub stopped: Option<Stop>,
    /// Lines left unread after the stop (0 when the bad line was the last one: a torn
    /// tail, typically a tick killed mid-write).
    pub unread: usize,
}

/// Reads every journal file of `dir` in order, up to the first unreadable line.
pub fn strict(dir: &Path) -> Result<Strict, ReadError> {
    let mut journal = Strict::default();
    let files = journal_files(dir)?;
    for (n, path) in files.iter().enumerate() {
        let Some(bytes) = read_bytes(path)? else {
            continue;
        };
        let all: Vec<(usize, &[u8])> = lines(&bytes).collect();
        for (k, &(i, line)) in all.iter().enumerate() {
            if let Err(why) = take(&mut journal.ticks, line) {
                let rest_files: usize = files[n + 1..]
                    .iter()
                    .filter_map(|p| fs::read(p).ok())
                    .map(|b| b.split(|&c| c == b'\n').filter(|l| !l.is_empty()).count())
                    .sum();
                journal.unread = all.len() - k - 1 + rest_files;
                journal.stopped = Some(Stop {
                    file: name_of(path),
                    line: i + 1,
                    why: why.to_string(),
                });
                return Ok(journal);
            }
        }
    }
    Ok(journal)
}

/// Why a strict read stops at a line ([`Stop::why`] says it).
#[derive(Debug, thiserror::Error)]
enum LineError {
    /// The line ends mid-value: a tick killed while writing it.
    #[error("the line is cut short (torn by a killed tick?)")]
    Torn(#[source] serde_json::Error),
    #[error("it does not read as a journal line ({0})")]
    Unreadable(#[source] serde_json::Error),
    /// An escalation line whose run has no tick line (without one already joined) before it.
    #[error(
        "an escalation line of run {run} at {} has no tick line before it",
        timestamp::format(*.time)
    )]
    Orphan { run: u64, time: DateTime<Utc> },
}

/// Reads one line into `ticks`, or says why it cannot.
fn take(ticks: &mut Vec<Tick>, line: &[u8]) -> Result<(), LineError> {
    let parsed: Line = serde_json::from_slice(line).map_err(|e| {
        if e.is_eof() {
            LineError::Torn(e)
        } else {
            LineError::Unreadable(e)
        }
    })?;
    match parsed {
        Line::Tick(line) => ticks.push(Tick {
            line: *line,
            escalation: None,
        }),
        Line::Escalation(esc) => join(ticks, esc).map_err(|esc| LineError::Orphan {
            run: esc.run,
            time: esc.time,
        })?,
        // An embeddings call's egress: nothing a replay computes from.
        Line::Embeddings(_) => {}
    }
    Ok(())
}

/// The lines of `bytes` that are not blank, with their 0-based index.
fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, line)| !line.iter().all(u8::is_ascii_whitespace))
}

/// The file name of `path`, for a message.
pub(crate) fn name_of(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The bytes of `path`; `None` when it is gone. Links are followed (the tick appends
/// through them); a FIFO or a device is never opened.
pub(crate) fn read_bytes(path: &Path) -> Result<Option<Vec<u8>>, ReadError> {
    match fs::metadata(path) {
        Ok(meta) if !meta.is_file() => {
            return Err(ReadError::NotRegular {
                path: path.to_path_buf(),
            });
        }
        _ => {}
    }
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        // Rotated away between the listing and the read: its lines are in the next file.
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ReadError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Roughly how many tick lines `path` holds (for [`Span::Last`]): lines with `"threads"`.
fn count_ticks(path: &Path) -> Result<usize, ReadError> {
    let Some(bytes) = read_bytes(path)? else {
        return Ok(0);
    };
    Ok(bytes
        .split(|&b| b == b'\n')
        .filter(|l| l.windows(9).any(|w| w == b"\"threads\""))
        .count())
}

/// `archive.jsonl` from `since` on (by `removed_at`), and the lines that did not read.
pub fn read_archive(
    dir: &Path,
    since: DateTime<Utc>,
) -> Result<(Vec<Archived>, Skipped), ReadError> {
    let path = dir.join(ARCHIVE_FILE);
    let mut skipped = Skipped::default();
    let Some(bytes) = read_bytes(&path)? else {
        return Ok((Vec::new(), skipped));
    };
    let mut out = Vec::new();
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match Archived::parse(line) {
            Some(a) if a.removed_at >= since => out.push(a),
            Some(_) => {}
            None => skipped.0.push(Unreadable {
                file: ARCHIVE_FILE.into(),
                line: i + 1,
            }),
        }
    }
    Ok((out, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::RemovalReason;
    use crate::journal::Status;

    const TICK: &str = r#"{"time":"2026-11-22T10:00:00Z","duration_ms":900,"run":7,"tick_count":3,"exit_code":0,"threads":[{"thread":"watcher","status":"answered","latency_ms":800,"tokens_in":100,"tokens_out":10,"cost":null,"findings":1,"reinforce":0}],"aggregate":{"applied":true,"added":["a"],"reinforced":[],"weakened":[],"decayed":["b"],"pruned":[],"budget":[]},"tokens_in":100,"tokens_out":10,"cost":0.5}"#;
    const ESC: &str = r#"{"time":"2026-11-22T10:00:00Z","run":7,"tick_count":3,"escalation":{"duration_ms":5,"tokens_in":1,"tokens_out":1,"cost":0.25,"records":[{"timestamp":"2026-11-22T10:00:00Z","thread":"watcher","reason":"disk","outcome":"notified: sent"}],"new_field":1}}"#;

    fn write(dir: &Path, name: &str, text: &str) {
        fs::write(dir.join(name), text).unwrap();
    }

    fn at(t: &str, run: u64) -> String {
        TICK.replace("2026-11-22T10:00:00Z", t)
            .replace("\"run\":7", &format!("\"run\":{run}"))
    }

    /// Lenient: each line shape read, unreadable lines skipped and reported by place,
    /// the escalation line joined to its tick by run.
    #[test]
    fn lenient_skips_and_reports_a_broken_line_and_joins_by_run() {
        let tmp = tempfile::tempdir().unwrap();
        let older = at("2026-11-22T09:00:00Z", 6);
        let minimal = r#"{"time":"2026-11-22T10:05:00Z","threads":[]}"#;
        write(
            tmp.path(),
            "journal.jsonl",
            &format!("{older}\nnot json\n{TICK}\n{ESC}\n\n{minimal}\n{{\"time\":\"2026-11-22T10:1"),
        );
        let j = lenient(tmp.path(), Span::All).unwrap();
        assert_eq!(j.ticks.len(), 3);
        let t = &j.ticks[1];
        assert_eq!((t.line.run, t.line.threads[0].cost), (7, 0.0));
        assert_eq!(t.line.threads[0].status, Status::Answered);
        assert_eq!(
            (t.line.aggregate.added.len(), t.line.aggregate.removed()),
            (1, 1)
        );
        let esc = t.escalation.as_ref().unwrap();
        assert_eq!(
            crate::journal::line::outcome_word(&esc.escalation.records[0]),
            "notified"
        );
        assert!((t.cost() - 0.75).abs() < 1e-9);
        assert!(j.ticks[0].escalation.is_none() && j.ticks[2].line.exit_code == 0);
        assert_eq!(
            j.ticks[2].line.rules, 1,
            "a line without rules is of version 1"
        );
        let places: Vec<usize> = j.skipped.0.iter().map(|u| u.line).collect();
        assert_eq!(places, [2, 7]);
        let warning = j.skipped.warning("journal").unwrap();
        assert!(
            warning.starts_with(
                "skipped 2 unreadable journal lines (journal.jsonl line 2, journal.jsonl line 7)"
            ),
            "{warning}"
        );
    }

    /// An escalation line whose tick is lost stands alone when read leniently; a second
    /// escalation line of the same run is not joined to a tick that has one.
    #[test]
    fn lenient_keeps_an_escalation_line_without_its_tick() {
        let tmp = tempfile::tempdir().unwrap();
        write(
            tmp.path(),
            "journal.jsonl",
            &format!("{ESC}\n{TICK}\n{ESC}\n{ESC}\n"),
        );
        let j = lenient(tmp.path(), Span::All).unwrap();
        let shape: Vec<(usize, bool)> = j
            .ticks
            .iter()
            .map(|t| (t.line.threads.len(), t.escalation.is_some()))
            .collect();
        assert_eq!(shape, [(0, true), (1, true), (0, true)]);
        assert!(j.skipped.0.is_empty());
    }

    /// Strict: the read stops at the first line that does not read and says where, and
    /// how many lines are left unread; an escalation line needs its tick.
    #[test]
    fn strict_refuses_a_broken_line_and_an_escalation_without_its_tick() {
        let tmp = tempfile::tempdir().unwrap();
        write(
            tmp.path(),
            "journal.jsonl",
            &format!("{TICK}\n{ESC}\nnot json\n\n{TICK}\n{{\"time\":\"2026-11-22T10:1"),
        );
        let j = strict(tmp.path()).unwrap();
        assert_eq!(j.ticks.len(), 1);
        assert!(j.ticks[0].escalation.is_some(), "joined by run");
        let stop = j.stopped.unwrap();
        assert_eq!(
            (stop.file.as_str(), stop.line, j.unread),
            ("journal.jsonl", 3, 2)
        );
        assert!(
            stop.why.starts_with("it does not read as a journal line"),
            "{}",
            stop.why
        );

        write(
            tmp.path(),
            "journal.jsonl",
            &format!("{TICK}\n{{\"time\":\"2026-11-22T10:1"),
        );
        let j = strict(tmp.path()).unwrap();
        let stop = j.stopped.unwrap();
        assert_eq!((stop.line, j.unread), (2, 0));
        assert_eq!(stop.why, "the line is cut short (torn by a killed tick?)");

        let other_run = ESC.replace("\"run\":7", "\"run\":8");
        write(
            tmp.path(),
            "journal.jsonl",
            &format!("{TICK}\n{other_run}\n"),
        );
        let j = strict(tmp.path()).unwrap();
        assert_eq!(j.ticks.len(), 1);
        let stop = j.stopped.unwrap();
        assert_eq!(
            stop.why,
            "an escalation line of run 8 at 2026-11-22T10:00:00Z has no tick line before it"
        );
    }

    /// The join: the latest tick of the run that has no escalation line yet.
    /// An embeddings call's line (egress only) is kept apart by the lenient read, within
    /// the span, and passed over by the strict one; it is no tick.
    #[test]
    fn embeddings_lines_are_kept_apart_and_passed_over_by_a_replay() {
        let tmp = tempfile::tempdir().unwrap();
        let emb = |t: &str| {
            format!(
                r#"{{"time":"{t}","embeddings":{{"model":"emb/m","purpose":"question","texts":1,"egress":{{"provider":"emb","reach":"remote","private":"redacted","bytes":80,"requests":1}}}}}}"#
            )
        };
        write(
            tmp.path(),
            "journal.jsonl",
            &format!(
                "{}\n{TICK}\n{}\n{ESC}\n",
                emb("2026-11-22T09:00:00Z"),
                emb("2026-11-22T10:01:00Z")
            ),
        );
        let j = lenient(tmp.path(), Span::All).unwrap();
        assert_eq!((j.ticks.len(), j.embeddings.len()), (1, 2));
        assert!(j.skipped.0.is_empty());
        assert!(j.ticks[0].escalation.is_some(), "the join is not disturbed");
        let e = &j.embeddings[1].embeddings;
        assert_eq!(
            (e.purpose, e.egress.bytes, e.egress.provider.as_str()),
            (crate::embeddings::Purpose::Question, 80, "emb")
        );
        let since = lenient(
            tmp.path(),
            Span::Since(timestamp::parse("2026-11-22T10:00:00Z").unwrap()),
        )
        .unwrap();
        assert_eq!(since.embeddings.len(), 1);
        let s = strict(tmp.path()).unwrap();
        assert_eq!((s.ticks.len(), s.stopped.is_none()), (1, true));
        assert_eq!(count_ticks(&tmp.path().join("journal.jsonl")).unwrap(), 1);
    }

    #[test]
    fn the_join_attaches_an_escalation_line_to_the_latest_tick_of_its_run() {
        let tick = |run: u64| Tick {
            line: JournalLine::lost(timestamp::parse("2026-11-22T10:00:00Z").unwrap(), run),
            escalation: None,
        };
        let esc = |run: u64| match serde_json::from_str::<Line>(
            &ESC.replace("\"run\":7", &format!("\"run\":{run}")),
        )
        .unwrap()
        {
            Line::Escalation(e) => e,
            _ => unreachable!(),
        };
        // Run numbers restart when the ledger is deleted: the later tick of run 1 wins.
        let mut ticks = vec![tick(1), tick(2), tick(1)];
        assert!(join(&mut ticks, esc(1)).is_ok());
        assert!(ticks[2].escalation.is_some() && ticks[0].escalation.is_none());
        assert!(
            join(&mut ticks, esc(1)).is_err(),
            "a tick takes one escalation line"
        );
        assert!(join(&mut ticks, esc(3)).is_err(), "no tick of run 3");
        assert!(join(&mut ticks, esc(2)).is_ok());
    }

    /// Rotated files come first, by their stamp; `Since` and `Last` open only what they
    /// need, and still see across files.
    #[test]
    fn rotated_files_are_read_in_time_order() {
        let tmp = tempfile::tempdir().unwrap();
        write(
            tmp.path(),
            "journal-2026-10.jsonl",
            &format!("{}\n", at("2026-10-31T23:55:00Z", 1)),
        );
        write(
            tmp.path(),
            "journal-2026-09.jsonl",
            &format!("{}\n", at("2026-09-30T10:00:00Z", 0)),
        );
        write(
            tmp.path(),
            "journal.jsonl",
            &format!("{}\n", at("2026-11-01T00:00:00Z", 2)),
        );
        write(tmp.path(), "journal-notes.txt", "not a journal");
        let runs = |span| -> Vec<u64> {
            lenient(tmp.path(), span)
                .unwrap()
                .ticks
                .iter()
                .map(|t| t.line.run)
                .collect()
        };
        assert_eq!(runs(Span::All), [0, 1, 2]);
        let strict_runs: Vec<u64> = strict(tmp.path())
            .unwrap()
            .ticks
            .iter()
            .map(|t| t.line.run)
            .collect();
        assert_eq!(strict_runs, [0, 1, 2]);
        assert_eq!(runs(Span::Last(2)), [1, 2]);
        assert_eq!(
            runs(Span::Since(
                timestamp::parse("2026-10-31T00:00:00Z").unwrap()
            )),
            [1, 2]
        );
        assert_eq!(
            runs(Span::Since(
                timestamp::parse("2026-12-01T00:00:00Z").unwrap()
            )),
            [] as [u64; 0]
        );
        fs::create_dir(tmp.path().join("journal-2026-08.jsonl")).unwrap();
        let err = lenient(tmp.path(), Span::All).unwrap_err().to_string();
        assert!(
            err.contains("journal-2026-08.jsonl is not a regular file"),
            "{err}"
        );
        let empty = tempfile::tempdir().unwrap();
        assert!(
            lenient(&empty.path().join("none"), Span::All)
                .unwrap()
                .ticks
                .is_empty()
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(32))]

        /// Whatever storage's rotation did (by month or by size), the reader gives back
        /// every line in the order it was appended, `Last(n)` ends with the last n, and
        /// `Since(t)` is exactly the lines at or after t (times never go backwards).
        #[test]
        fn the_reader_sees_what_the_rotating_writer_wrote(
            gaps in proptest::collection::vec(0i64..20 * 86_400, 1..40),
            max_bytes in proptest::option::of(60u64..400),
            last in 1usize..10,
            cut in 0usize..40,
        ) {
            use crate::journal::files::JournalRotation;
            use crate::storage::{JOURNAL_FILE, StateDir};
            let tmp = tempfile::tempdir().unwrap();
            let rotation = max_bytes.map_or(JournalRotation::Month, |max_bytes| {
                JournalRotation::Size { max_bytes }
            });
            let dir = StateDir::create(tmp.path()).unwrap().with_journal_rotation(rotation);
            let mut t = timestamp::parse("2026-10-30T00:00:00Z").unwrap();
            let mut times = Vec::new();
            for (run, gap) in gaps.iter().enumerate() {
                t += chrono::TimeDelta::seconds(*gap);
                times.push(t);
                let line = serde_json::json!({
                    "time": timestamp::format(t), "run": run, "threads": []
                });
                dir.append_lines(JOURNAL_FILE, &[line]).unwrap();
            }
            let runs = |span| -> Vec<u64> {
                lenient(tmp.path(), span).unwrap().ticks.iter().map(|t| t.line.run).collect()
            };
            let all: Vec<u64> = (0..gaps.len() as u64).collect();
            proptest::prop_assert_eq!(runs(Span::All), all.clone());
            let tail = runs(Span::Last(last));
            proptest::prop_assert!(tail.len() >= last.min(all.len()));
            proptest::prop_assert_eq!(&all[all.len() - tail.len()..], &tail[..]);
            let since = times[cut.min(times.len() - 1)];
            let want: Vec<u64> = all.iter().copied().filter(|&r| times[r as usize] >= since).collect();
            proptest::prop_assert_eq!(runs(Span::Since(since)), want);
            proptest::prop_assert!(lenient(tmp.path(), Span::All).unwrap().skipped.0.is_empty());
            proptest::prop_assert!(strict(tmp.path()).unwrap().stopped.is_none());
        }
    }

    #[test]
    fn the_archive_is_read_from_a_time_on() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(
            tmp.path().join(ARCHIVE_FILE),
            "{\"id\":\"a\",\"summary\":\"A\",\"strength\":10,\"created\":\"2026-11-20T10:00:00Z\",\"last_seen\":\"2026-11-21T10:00:00Z\",\"category\":\"patterns\",\"removed_at\":\"2026-11-22T10:00:00Z\",\"reason\":\"pruned\"}\n{\"id\":\"b\",\"summary\":\"B\",\"strength\":0,\"created\":\"2026-10-20T10:00:00Z\",\"last_seen\":\"2026-10-21T10:00:00Z\",\"category\":\"hunches\",\"removed_at\":\"2026-11-01T10:00:00Z\",\"reason\":\"retired: done\"}\n{torn",
        )
        .unwrap();
        let (archived, skipped) = read_archive(
            tmp.path(),
            timestamp::parse("2026-11-15T00:00:00Z").unwrap(),
        )
        .unwrap();
        assert_eq!(archived.len(), 1);
        assert_eq!(
            (archived[0].entry.strength.to_string(), archived[0].reason),
            ("10".to_string(), RemovalReason::Pruned)
        );
        assert_eq!(
            skipped.0,
            [Unreadable {
                file: "archive.jsonl".into(),
                line: 3
            }]
        );
    }
}
