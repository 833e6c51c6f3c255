//! `thinker screen [FILE...]`: the injection screen ([`crate::untrusted::screen`]) on any
//! text — files, or standard input when none is given (or `-`). Prints each detection
//! (file, kind, score, evidence, rule, byte span) and the neutralised text, or all of it
//! as JSON (`--json`). Exit 0 when nothing was detected, 1 when something was (like
//! grep), 2 when a file could not be read (named on stderr; the other files are still
//! screened). Needs no config and writes nothing.
//!
//! Text that is not UTF-8 is read with its invalid bytes as U+FFFD; spans count bytes of
//! that text. Must not act on what it finds.

use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::cli::ScreenArgs;
use crate::cmd::Context;
use crate::error::{self, EXIT_FAILED, EXIT_OK, EXIT_USAGE, Error};
use crate::untrusted::clean;
use crate::untrusted::screen::{Detection, ScreenContext, Screened, screen};

/// What went wrong reading an input.
#[derive(Debug, thiserror::Error)]
pub enum ScreenError {
    #[error("cannot read {}: {source} (check the path and its permissions)", path.display())]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read standard input: {0} (pass the text as a FILE instead)")]
    Stdin(#[source] std::io::Error),
}

/// One screened input, as `--json` prints it.
#[derive(Debug, Serialize)]
struct FileReport<'a> {
    file: String,
    detected: bool,
    detections: &'a [Detection],
    neutralised: &'a str,
}

#[derive(Debug, Serialize)]
struct Report<'a> {
    detected: bool,
    files: Vec<FileReport<'a>>,
}

const STDIN_NAME: &str = "(stdin)";

pub fn run(ctx: &mut Context<'_>, args: &ScreenArgs) -> Result<u8, Error> {
    let screen_ctx = ScreenContext {
        now: args.dates.then_some(ctx.clock.now),
    };
    let inputs: Vec<Option<&Path>> = if args.files.is_empty() {
        vec![None]
    } else {
        args.files
            .iter()
            .map(|p| (p.as_os_str() != "-").then_some(p.as_path()))
            .collect()
    };
    let mut screened: Vec<(String, Screened)> = Vec::new();
    let mut unreadable = false;
    for input in inputs {
        let (name, bytes) = match read(input) {
            Ok(read) => read,
            Err(e) => {
                ctx.stderr(&format!("thinker: {e}\n"))?;
                unreadable = true;
                continue;
            }
        };
        let text = String::from_utf8_lossy(&bytes);
        screened.push((name, screen(&text, &screen_ctx)));
    }
    let detected = screened.iter().any(|(_, s)| s.detected());
    let out = if args.json {
        json(&screened, detected)?
    } else {
        human(&screened)
    };
    ctx.stdout(out.as_bytes())?;
    Ok(if unreadable {
        EXIT_USAGE
    } else if detected {
        EXIT_FAILED
    } else {
        EXIT_OK
    })
}

fn read(input: Option<&Path>) -> Result<(String, Vec<u8>), ScreenError> {
    match input {
        None => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(ScreenError::Stdin)?;
            Ok((STDIN_NAME.to_string(), bytes))
        }
        Some(path) => std::fs::read(path)
            .map(|bytes| (path.display().to_string(), bytes))
            .map_err(|source| ScreenError::Unreadable {
                path: path.to_path_buf(),
                source,
            }),
    }
}

fn json(screened: &[(String, Screened)], detected: bool) -> Result<String, Error> {
    let report = Report {
        detected,
        files: screened
            .iter()
            .map(|(name, s)| FileReport {
                file: clean_name(name),
                detected: s.detected(),
                detections: &s.detections,
                neutralised: &s.neutralised,
            })
            .collect(),
    };
    error::to_json_pretty(&report, "the screen report")
}

/// For people: per file, its detections and its neutralised text (cleaned: no escape
/// sequences or invisible characters reach the terminal), indented.
fn human(screened: &[(String, Screened)]) -> String {
    let mut out = String::new();
    for (name, s) in screened {
        let name = clean_name(name);
        if !s.detected() {
            let _ = writeln!(out, "{name}: clean");
            continue;
        }
        let n = s.detections.len();
        let _ = writeln!(
            out,
            "{name}: {n} detection{}",
            if n == 1 { "" } else { "s" }
        );
        for d in &s.detections {
            let _ = writeln!(
                out,
                "  {:<21} {:.2}  \"{}\"  ({}, bytes {}..{})",
                d.kind.label(),
                d.score,
                d.evidence,
                d.rule,
                d.start(),
                d.end()
            );
        }
        out.push_str("  neutralised:\n");
        for line in clean(&s.neutralised).lines() {
            if !line.trim().is_empty() {
                out.push_str("    ");
                out.push_str(line);
            }
            out.push('\n');
        }
    }
    out
}

fn clean_name(name: &str) -> String {
    crate::untrusted::clean_line(name)
}
