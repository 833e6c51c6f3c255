//! Reading the journal for a replay: every line exactly, in order, across the rotated
//! files ([`crate::history::journal_files`]), into [`Recorded`] ticks with their parsed
//! answers, verdicts, state digests, bases and escalation records.
//!
//! Strict where `history` is lenient: a replay that skipped a line would compute wrong
//! states, so the read stops at the first line that does not parse (a torn line, a
//! corrupt one) and says where. Reads only; must not write, lock or rotate.

use std::fs;
use std::path::Path;

use chrono::{DateTime, Utc};
use serde::Deserialize;

use crate::aggregate::Status;
use crate::aggregate::feedback::Verdict;
use crate::answer::Answer;
use crate::history::{HistoryError, journal_files, name_of, read_bytes};
use crate::state::{EscalationRecord, State};
use crate::thread::ThreadName;
use crate::timestamp;

/// One thread's part of a recorded tick.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct RecordedThread {
    pub thread: ThreadName,
    pub status: Status,
    /// The answer as the aggregator took it; absent in journals written before answers
    /// were recorded.
    #[serde(default)]
    pub answer: Option<Answer>,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(flatten)]
    pub usage: Spent,
}

/// What a thread's or an escalation's calls used, and from which provider.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct Spent {
    #[serde(default)]
    pub provider: Option<String>,
    #[serde(default)]
    pub tokens_in: u64,
    #[serde(default)]
    pub tokens_out: u64,
    #[serde(default)]
    pub cost: f64,
}

/// A tick line as a replay needs it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct TickLine {
    #[serde(with = "timestamp::serde_utc")]
    pub time: DateTime<Utc>,
    /// The memory rules the tick applied (absent: version 1, before state version 2).
    #[serde(default = "rules_v1")]
    pub rules: u32,
    #[serde(default)]
    pub run: u64,
    #[serde(default)]
    pub tick_count: u64,
    pub threads: Vec<RecordedThread>,
    #[serde(default)]
    pub verdicts: Vec<Verdict>,
    /// The digest of the state the tick left (absent in older journals).
    #[serde(default)]
    pub state: Option<String>,
    /// The state the tick started from, when it was not the one thinker last wrote.
    #[serde(default)]
    pub base: Option<serde_json::Value>,
}

fn rules_v1() -> u32 {
    1
}

/// The escalation work of a recorded tick, as a replay needs it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct EscalationWork {
    #[serde(default)]
    pub records: Vec<EscalationRecord>,
    #[serde(flatten)]
    pub usage: Spent,
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
struct EscalationLine {
    #[serde(with = "timestamp::serde_utc")]
    time: DateTime<Utc>,
    #[serde(default)]
    run: u64,
    escalation: EscalationWork,
    #[serde(default)]
    state: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Line {
    Tick(Box<TickLine>),
    Escalation(Box<EscalationLine>),
}

/// A tick of the journal, with its escalation phase when it had one.
#[derive(Clone, Debug, PartialEq)]
pub struct Recorded {
    pub line: TickLine,
    /// The state the tick started from, read from `base` (None when absent; a base that
    /// does not load is a [`Stop`]).
    pub base: Option<State>,
    pub escalation: Option<EscalationWork>,
    /// The digest of the state the escalation phase left.
    pub escalation_state: Option<String>,
}

impl Recorded {
    /// Whether every thread that answered has its answer recorded.
    pub fn has_answers(&self) -> bool {
        self.line
            .threads
            .iter()
            .all(|t| t.status != Status::Answered || t.answer.is_some())
    }
}

/// Where and why reading stopped before the end.
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

/// The journal as a replay reads it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Journal {
    pub ticks: Vec<Recorded>,
    /// Set when a line could not be read: nothing after it was read.
    pub stopped: Option<Stop>,
    /// Lines left unread after the stop (0 when the bad line was the last one: a torn
    /// tail, typically a tick killed mid-write).
    pub unread: usize,
}

/// Reads every journal file of `dir` in order, up to the first unreadable line.
pub fn read(dir: &Path) -> Result<Journal, HistoryError> {
    let mut journal = Journal::default();
    let files = journal_files(dir)?;
    for (n, path) in files.iter().enumerate() {
        let Some(bytes) = read_bytes(path)? else {
            continue;
        };
        let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        for (i, line) in lines.iter().enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if let Err(why) = take(&mut journal, line) {
                let rest_here = lines[i + 1..]
                    .iter()
                    .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
                    .count();
                let rest_files: usize = files[n + 1..]
                    .iter()
                    .filter_map(|p| fs::read(p).ok())
                    .map(|b| b.split(|&c| c == b'\n').filter(|l| !l.is_empty()).count())
                    .sum();
                journal.unread = rest_here + rest_files;
                journal.stopped = Some(Stop {
                    file: name_of(path),
                    line: i + 1,
                    why,
                });
                return Ok(journal);
            }
        }
    }
    Ok(journal)
}

/// Reads one line into the journal, or says why it cannot.
fn take(journal: &mut Journal, line: &[u8]) -> Result<(), String> {
    let parsed: Line = serde_json::from_slice(line).map_err(|e| {
        if e.is_eof() {
            "the line is cut short (torn by a killed tick?)".to_string()
        } else {
            format!("it does not read as a journal line ({e})")
        }
    })?;
    match parsed {
        Line::Tick(line) => {
            let base = match &line.base {
                None => None,
                Some(value) => Some(
                    State::from_json(&value.to_string())
                        .map_err(|e| format!("its recorded base state does not load: {e}"))?,
                ),
            };
            journal.ticks.push(Recorded {
                line: *line,
                base,
                escalation: None,
                escalation_state: None,
            });
        }
        Line::Escalation(esc) => {
            // Its tick is the latest with the same run (see `history`).
            match journal
                .ticks
                .iter_mut()
                .rev()
                .find(|t| t.line.run == esc.run)
            {
                Some(tick) if tick.escalation.is_none() => {
                    tick.escalation = Some(esc.escalation);
                    tick.escalation_state = esc.state;
                }
                _ => {
                    return Err(format!(
                        "an escalation line of run {} at {} has no tick line before it",
                        esc.run,
                        timestamp::format(esc.time)
                    ));
                }
            }
        }
    }
    Ok(())
}
