//! Reading the tick journal back (`journal.jsonl` and its rotated files, SPEC §2) and the
//! archive, for `thinker log` and `thinker stats`.
//!
//! Owns the reader's shape of a journal line — tolerant: every field has a default, so a
//! line written by an older or newer version reads; unknown fields are ignored — the
//! order of the files (rotated ones by the stamp in their name, `journal.jsonl` last),
//! and the join of a tick's line with its escalation line (same `run`, the escalation
//! line after it). A line that does not parse (torn by a kill, corrupt) is skipped and
//! counted with its file and line number for the caller's one warning; it never stops
//! the read. Reads only: it must not write, lock or rotate (that is `storage`), nor
//! render (that is the commands).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer};

use crate::storage::{ARCHIVE_FILE, journal_file_order, journal_file_start};
use crate::timestamp;

/// A journal or archive file that exists but cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("cannot read {}: {source} (check its permissions, or pass --state the right directory)", path.display())]
    Read { path: PathBuf, source: io::Error },
    #[error("cannot list the state directory {}: {source} (pass --state the right directory)", path.display())]
    List { path: PathBuf, source: io::Error },
    /// A FIFO or a device would hang the read or never end.
    #[error("{} is not a regular file, so it was not read; move it aside (`mv {} {}.aside`)", path.display(), path.display(), path.display())]
    NotRegular { path: PathBuf },
}

/// A number that may be written as `null` (a non-finite cost) or be missing: 0.
fn lenient<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

fn time<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
    let text = String::deserialize(d)?;
    timestamp::parse(&text)
        .ok_or_else(|| serde::de::Error::custom(format!("`{text}` is not a time")))
}

/// One model tried for a thread (or for an escalation).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Attempt {
    /// `provider/model`.
    pub model: String,
    #[serde(deserialize_with = "lenient")]
    pub latency_ms: u64,
    #[serde(deserialize_with = "lenient")]
    pub tokens_in: u64,
    #[serde(deserialize_with = "lenient")]
    pub tokens_out: u64,
    #[serde(deserialize_with = "lenient")]
    pub cost: f64,
    /// Refused before any call (budget, breaker): not a call.
    pub skipped: bool,
    pub error: Option<String>,
    /// What left the machine for it (SPEC §9); absent in lines of older versions.
    pub egress: Option<crate::egress::Egress>,
}

/// Why a thread did not run.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Skip {
    /// `disabled`, `cadence`, `quiet_hours`, `budget`, `breaker`, or a newer one.
    pub reason: String,
    /// `cadence`: runs every this many ticks.
    pub every: Option<u64>,
    /// `quiet_hours`: the window.
    pub window: Option<String>,
    /// `budget`, `breaker`: what was spent or refused.
    pub detail: Option<String>,
}

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)?;
        match (&self.every, &self.window, &self.detail) {
            (Some(n), _, _) => write!(f, " (every {n} ticks)"),
            (_, Some(w), _) => write!(f, " {w}"),
            (_, _, Some(d)) => write!(f, ": {d}"),
            _ => Ok(()),
        }
    }
}

/// What one thread did in a tick.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct ThreadLine {
    pub thread: String,
    /// `answered`, `failed` or `skipped`.
    pub status: String,
    pub skip: Option<Skip>,
    pub provider: Option<String>,
    pub model: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub latency_ms: u64,
    #[serde(deserialize_with = "lenient")]
    pub tokens_in: u64,
    #[serde(deserialize_with = "lenient")]
    pub tokens_out: u64,
    #[serde(deserialize_with = "lenient")]
    pub cost: f64,
    pub error: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub findings: usize,
    #[serde(deserialize_with = "lenient")]
    pub reinforce: usize,
    pub attempts: Vec<Attempt>,
}

/// What the aggregator did, by id.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Aggregate {
    pub applied: bool,
    pub added: Vec<String>,
    pub reinforced: Vec<String>,
    pub weakened: Vec<String>,
    pub decayed: Vec<String>,
    pub pruned: Vec<String>,
    pub budget: Vec<String>,
    /// Removed for the agent's word (a newer version's field; empty when absent).
    pub rejected: Vec<String>,
}

impl Aggregate {
    /// Entries removed, for any reason.
    pub fn removed(&self) -> usize {
        self.decayed.len() + self.pruned.len() + self.budget.len() + self.rejected.len()
    }
}

/// An escalation record as a line carries it.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Record {
    pub thread: String,
    pub reason: String,
    pub outcome: String,
}

impl Record {
    /// The outcome's first word: `pending`, `suppressed`, `notified`, `dismissed`…
    pub fn outcome_word(&self) -> &str {
        let word = self.outcome.split([':', ' ']).next().unwrap_or_default();
        if word.is_empty() { "pending" } else { word }
    }
}

/// The primary model's decision.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Decision {
    pub action: String,
}

/// What an escalation phase did (the `escalation` field of its line).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Escalation {
    #[serde(deserialize_with = "lenient")]
    pub duration_ms: u64,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub latency_ms: Option<u64>,
    #[serde(deserialize_with = "lenient")]
    pub tokens_in: u64,
    #[serde(deserialize_with = "lenient")]
    pub tokens_out: u64,
    #[serde(deserialize_with = "lenient")]
    pub cost: f64,
    pub attempts: Vec<Attempt>,
    pub decision: Option<Decision>,
    pub errors: Vec<String>,
    pub records: Vec<Record>,
}

/// A tick's line.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct TickLine {
    #[serde(deserialize_with = "time")]
    pub time: DateTime<Utc>,
    #[serde(default, deserialize_with = "lenient")]
    pub duration_ms: u64,
    #[serde(default, deserialize_with = "lenient")]
    pub run: u64,
    #[serde(default, deserialize_with = "lenient")]
    pub tick_count: u64,
    #[serde(default, deserialize_with = "lenient")]
    pub exit_code: u8,
    pub threads: Vec<ThreadLine>,
    #[serde(default)]
    pub aggregate: Aggregate,
    /// Escalation records raised this tick.
    #[serde(default)]
    pub escalations: Vec<Record>,
    #[serde(default)]
    pub warnings: Vec<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub tokens_in: u64,
    #[serde(default, deserialize_with = "lenient")]
    pub tokens_out: u64,
    #[serde(default, deserialize_with = "lenient")]
    pub cost: f64,
}

/// An escalation's line.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct EscalationLine {
    #[serde(deserialize_with = "time")]
    pub time: DateTime<Utc>,
    #[serde(default, deserialize_with = "lenient")]
    pub run: u64,
    pub escalation: Escalation,
}

/// Either shape of a journal line: told apart by `threads` / `escalation`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Line {
    Tick(Box<TickLine>),
    Escalation(Box<EscalationLine>),
}

/// A tick with its escalation line, if it had one.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    pub line: TickLine,
    pub escalation: Option<EscalationLine>,
}

impl Tick {
    /// The tick's cost and its escalation's.
    pub fn cost(&self) -> f64 {
        self.line.cost + self.escalation.as_ref().map_or(0.0, |e| e.escalation.cost)
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

/// The journal as read: ticks in file order, and what was skipped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Journal {
    pub ticks: Vec<Tick>,
    pub skipped: Skipped,
}

/// A rotated file's stamp and its number among files of that stamp.
type FileOrder = (DateTime<Utc>, u32);

/// The journal files of `dir`, oldest first: rotated ones by the stamp in their name
/// (then by name), `journal.jsonl` last.
pub fn journal_files(dir: &Path) -> Result<Vec<PathBuf>, HistoryError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(HistoryError::List {
                path: dir.to_path_buf(),
                source,
            });
        }
    };
    let mut files: Vec<(Option<FileOrder>, String)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let order = journal_file_order(&name)?;
            Some((order, name))
        })
        .collect();
    // By stamp, then by number (`journal-<stamp>.2.jsonl` after `journal-<stamp>.jsonl`);
    // `None` (the current file) after every rotated one.
    files.sort_by(|a, b| match (a.0, b.0) {
        (Some(x), Some(y)) => x.cmp(&y).then_with(|| a.1.cmp(&b.1)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.1.cmp(&b.1),
    });
    Ok(files.into_iter().map(|(_, name)| dir.join(name)).collect())
}

/// Reads `span` of the journal in `dir` (no journal yet: no ticks).
pub fn read_journal(dir: &Path, span: Span) -> Result<Journal, HistoryError> {
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
    let mut journal = Journal::default();
    for path in chosen {
        read_file(path, &mut journal)?;
    }
    if let Span::Since(since) = span {
        journal.ticks.retain(|t| t.line.time >= since);
    }
    Ok(journal)
}

fn start_of(path: &Path) -> Option<DateTime<Utc>> {
    journal_file_start(path.file_name()?.to_str()?)?
}

pub(crate) fn name_of(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

pub(crate) fn read_bytes(path: &Path) -> Result<Option<Vec<u8>>, HistoryError> {
    // Links are followed (the tick appends through them); a FIFO is never opened.
    match fs::metadata(path) {
        Ok(meta) if !meta.is_file() => {
            return Err(HistoryError::NotRegular {
                path: path.to_path_buf(),
            });
        }
        _ => {}
    }
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        // Rotated away between the listing and the read: its lines are in the next file.
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(HistoryError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Roughly how many tick lines `path` holds (for [`Span::Last`]): lines with `"threads"`.
fn count_ticks(path: &Path) -> Result<usize, HistoryError> {
    let Some(bytes) = read_bytes(path)? else {
        return Ok(0);
    };
    Ok(bytes
        .split(|&b| b == b'\n')
        .filter(|l| l.windows(9).any(|w| w == b"\"threads\""))
        .count())
}

fn read_file(path: &Path, journal: &mut Journal) -> Result<(), HistoryError> {
    let Some(bytes) = read_bytes(path)? else {
        return Ok(());
    };
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Line>(line) {
            Ok(Line::Tick(tick)) => journal.ticks.push(Tick {
                line: *tick,
                escalation: None,
            }),
            Ok(Line::Escalation(esc)) => {
                // Its tick is the latest one with the same run (run numbers restart when
                // the ledger is deleted); a tick already joined takes no second line.
                match journal
                    .ticks
                    .iter_mut()
                    .rev()
                    .find(|t| t.line.run == esc.run)
                {
                    Some(tick) if tick.escalation.is_none() => tick.escalation = Some(*esc),
                    _ => journal.ticks.push(Tick {
                        line: TickLine {
                            time: esc.time,
                            duration_ms: 0,
                            run: esc.run,
                            tick_count: 0,
                            exit_code: 0,
                            threads: Vec::new(),
                            aggregate: Aggregate::default(),
                            escalations: Vec::new(),
                            warnings: Vec::new(),
                            tokens_in: 0,
                            tokens_out: 0,
                            cost: 0.0,
                        },
                        escalation: Some(*esc),
                    }),
                }
            }
            Err(_) => journal.skipped.0.push(Unreadable {
                file: name_of(path),
                line: i + 1,
            }),
        }
    }
    Ok(())
}

/// An archived entry: when it was made and removed, why, and its strength then.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Archived {
    #[serde(default)]
    pub id: String,
    /// A number with up to two decimals since state version 2.
    #[serde(default, deserialize_with = "lenient")]
    pub strength: f64,
    #[serde(default, deserialize_with = "optional_time")]
    pub created: Option<DateTime<Utc>>,
    #[serde(deserialize_with = "time")]
    pub removed_at: DateTime<Utc>,
    #[serde(default)]
    pub reason: String,
}

fn optional_time<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
    Ok(Option::<String>::deserialize(d)?.and_then(|t| timestamp::parse(&t)))
}

/// `archive.jsonl` from `since` on (by `removed_at`), and what was skipped.
pub fn read_archive(
    dir: &Path,
    since: DateTime<Utc>,
) -> Result<(Vec<Archived>, Skipped), HistoryError> {
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
        match serde_json::from_slice::<Archived>(line) {
            Ok(a) if a.removed_at >= since => out.push(a),
            Ok(_) => {}
            Err(_) => skipped.0.push(Unreadable {
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

    const TICK: &str = r#"{"time":"2026-11-22T10:00:00Z","duration_ms":900,"run":7,"tick_count":3,"exit_code":0,"threads":[{"thread":"watcher","status":"answered","latency_ms":800,"tokens_in":100,"tokens_out":10,"cost":null,"findings":1,"reinforce":0}],"aggregate":{"applied":true,"added":["a"],"reinforced":[],"weakened":[],"decayed":["b"],"pruned":[],"budget":[]},"tokens_in":100,"tokens_out":10,"cost":0.5}"#;
    const ESC: &str = r#"{"time":"2026-11-22T10:00:00Z","run":7,"tick_count":3,"escalation":{"duration_ms":5,"tokens_in":1,"tokens_out":1,"cost":0.25,"records":[{"timestamp":"2026-11-22T10:00:00Z","thread":"watcher","reason":"disk","outcome":"notified: sent"}],"new_field":1}}"#;

    fn write(dir: &Path, name: &str, text: &str) {
        fs::write(dir.join(name), text).unwrap();
    }

    /// Table: each line shape, and what is skipped.
    #[test]
    fn lines_are_read_tolerantly_and_joined_by_run() {
        let tmp = tempfile::tempdir().unwrap();
        let older = TICK
            .replace("10:00:00Z", "09:00:00Z")
            .replace("\"run\":7", "\"run\":6");
        let minimal = r#"{"time":"2026-11-22T10:05:00Z","threads":[]}"#;
        write(
            tmp.path(),
            "journal.jsonl",
            &format!("{older}\nnot json\n{TICK}\n{ESC}\n\n{minimal}\n{{\"time\":\"2026-11-22T10:1"),
        );
        let j = read_journal(tmp.path(), Span::All).unwrap();
        assert_eq!(j.ticks.len(), 3);
        let t = &j.ticks[1];
        assert_eq!((t.line.run, t.line.threads[0].cost), (7, 0.0));
        assert_eq!(
            (t.line.aggregate.added.len(), t.line.aggregate.removed()),
            (1, 1)
        );
        let esc = t.escalation.as_ref().unwrap();
        assert_eq!(esc.escalation.records[0].outcome_word(), "notified");
        assert!((t.cost() - 0.75).abs() < 1e-9);
        assert!(j.ticks[0].escalation.is_none() && j.ticks[2].line.exit_code == 0);
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

    /// Rotated files come first, by their stamp; `Since` and `Last` open only what they
    /// need, and still see across files.
    #[test]
    fn rotated_files_are_read_in_time_order() {
        let tmp = tempfile::tempdir().unwrap();
        let at = |t: &str, run: u64| {
            TICK.replace("2026-11-22T10:00:00Z", t)
                .replace("\"run\":7", &format!("\"run\":{run}"))
        };
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
            read_journal(tmp.path(), span)
                .unwrap()
                .ticks
                .iter()
                .map(|t| t.line.run)
                .collect()
        };
        assert_eq!(runs(Span::All), [0, 1, 2]);
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
        let err = read_journal(tmp.path(), Span::All).unwrap_err().to_string();
        assert!(
            err.contains("journal-2026-08.jsonl is not a regular file"),
            "{err}"
        );
        let empty = tempfile::tempdir().unwrap();
        assert!(
            read_journal(&empty.path().join("none"), Span::All)
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
            use crate::storage::{JOURNAL_FILE, JournalRotation, StateDir};
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
                read_journal(tmp.path(), span).unwrap().ticks.iter().map(|t| t.line.run).collect()
            };
            let all: Vec<u64> = (0..gaps.len() as u64).collect();
            proptest::prop_assert_eq!(runs(Span::All), all.clone());
            let tail = runs(Span::Last(last));
            proptest::prop_assert!(tail.len() >= last.min(all.len()));
            proptest::prop_assert_eq!(&all[all.len() - tail.len()..], &tail[..]);
            let since = times[cut.min(times.len() - 1)];
            let want: Vec<u64> = all.iter().copied().filter(|&r| times[r as usize] >= since).collect();
            proptest::prop_assert_eq!(runs(Span::Since(since)), want);
            proptest::prop_assert!(read_journal(tmp.path(), Span::All).unwrap().skipped.0.is_empty());
        }
    }

    #[test]
    fn the_archive_is_read_from_a_time_on() {
        let tmp = tempfile::tempdir().unwrap();
        write(
            tmp.path(),
            "archive.jsonl",
            "{\"id\":\"a\",\"strength\":10,\"created\":\"2026-11-20T10:00:00Z\",\"removed_at\":\"2026-11-22T10:00:00Z\",\"reason\":\"pruned\"}\n{\"id\":\"b\",\"removed_at\":\"2026-11-01T10:00:00Z\"}\n{torn",
        );
        let (archived, skipped) = read_archive(
            tmp.path(),
            timestamp::parse("2026-11-15T00:00:00Z").unwrap(),
        )
        .unwrap();
        assert_eq!(archived.len(), 1);
        assert_eq!(
            (archived[0].strength, archived[0].reason.as_str()),
            (10.0, "pruned")
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
