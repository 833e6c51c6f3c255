//! The `ics` source's files: `paths` (files, vdir directories one level deep, globs)
//! found, sorted and capped at [`MAX_FILES`], and each file read (at most
//! [`MAX_FILE_BYTES`], and [`SOURCE_BYTES`] for the source in all) as a stream, twice
//! ([`read_file`], [`read_calendar`]): its components parsed one at a time and each
//! event expanded into the [`Reading`] as soon as it is read, so a file's length decides
//! neither what is held nor, past linear, how long it takes.
//!
//! Must not: parse a component, expand or list anything itself (that is `parse`,
//! `expand`, `reading` and `render`), or fail the source for one unreadable calendar of
//! several.

use std::cell::Cell;
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read as _};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::error::{CalendarError, EventError};
use super::parse::{self, Stamp};
use super::reading::Reading;
use super::stream::{MAX_COMPONENT_BYTES, pieces};
use crate::sources::error::SourceError;
use crate::sources::read::read_head;

/// At most this many calendar files are read.
pub const MAX_FILES: usize = 20_000;
/// A larger calendar file is skipped.
pub const MAX_FILE_BYTES: usize = 16 << 20;
/// At most this many bytes of calendar files are read by one source, all files together
/// (a file past it is skipped with a warning).
pub const SOURCE_BYTES: usize = 64 << 20;

fn is_glob(path: &str) -> bool {
    path.contains(['*', '?', '['])
}

/// The calendar files of `paths`, sorted, deduplicated, at most [`MAX_FILES`].
pub(super) fn calendar_files(paths: &[String]) -> Result<Vec<PathBuf>, SourceError> {
    let mut files = Vec::new();
    for p in paths {
        let found: Vec<PathBuf> = if is_glob(p) {
            let matches = glob::glob(p).map_err(|source| SourceError::CalendarGlob {
                pattern: p.clone(),
                source,
            })?;
            let found: Vec<PathBuf> = matches.filter_map(Result::ok).take(MAX_FILES).collect();
            if found.is_empty() {
                return Err(SourceError::CalendarGlobEmpty { pattern: p.clone() });
            }
            found
        } else {
            vec![PathBuf::from(p)]
        };
        for path in found {
            match std::fs::metadata(&path) {
                Ok(m) if m.is_dir() => vdir_files(&path, 1, &mut files).map_err(|source| {
                    SourceError::CalendarDirUnreadable {
                        path: path.clone(),
                        source,
                    }
                })?,
                Ok(_) => files.push(path),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return Err(SourceError::CalendarMissing { path });
                }
                Err(source) => return Err(SourceError::CalendarUnreadable { path, source }),
            }
        }
    }
    files.sort();
    files.dedup();
    if files.len() > MAX_FILES {
        tracing::warn!(
            "calendar: {} files found, only the first {MAX_FILES} are read",
            files.len()
        );
        files.truncate(MAX_FILES);
    }
    Ok(files)
}

/// The `.ics` files of a vdir directory, and of its subdirectories `depth` levels down.
fn vdir_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() && depth > 0 => {
                // An unreadable calendar of several is skipped, not fatal.
                if let Err(e) = vdir_files(&path, depth - 1, out) {
                    tracing::warn!("calendar directory {} skipped: {e}", path.display());
                }
            }
            Ok(m) if m.is_file() && name.to_ascii_lowercase().ends_with(".ics") => out.push(path),
            _ => {}
        }
        if out.len() > MAX_FILES {
            break;
        }
    }
    Ok(())
}

/// Reads one calendar file into `reading` (at most [`MAX_FILE_BYTES`], and what is left
/// of the source's `bytes_left`); the warnings about what it skipped. Streamed twice
/// ([`read_calendar`]): nothing of the file is held but one component.
pub(super) fn read_file(
    path: &Path,
    reading: &mut Reading,
    bytes_left: &mut usize,
) -> Result<Vec<String>, CalendarError> {
    let limit = MAX_FILE_BYTES.min(*bytes_left);
    let regular = std::fs::metadata(path)
        .map_err(CalendarError::Read)?
        .is_file();
    // A FIFO or a device gives its bytes once: held (within the limit) and read twice.
    let held = if regular {
        None
    } else {
        Some(read_head(path, limit + 1).map_err(CalendarError::Read)?)
    };
    // What the first pass read: one byte past the limit tells the file is over it; the
    // second pass reads no more than the first did.
    let size = Rc::new(Cell::new(0u64));
    let mut warnings = Vec::new();
    let read = read_calendar(
        |pass| -> io::Result<Box<dyn BufRead + '_>> {
            if let Some(bytes) = &held {
                if pass == 0 {
                    size.set(bytes.len() as u64);
                }
                let n = usize::try_from(size.get()).map_or(bytes.len(), |n| n.min(bytes.len()));
                return Ok(Box::new(&bytes[..n]));
            }
            let take = if pass == 0 {
                limit as u64 + 1
            } else {
                size.get()
            };
            let reader = BufReader::with_capacity(64 << 10, File::open(path)?.take(take));
            Ok(Box::new(Counting {
                inner: reader,
                count: (pass == 0).then(|| Rc::clone(&size)),
            }))
        },
        reading,
        &mut warnings,
    );
    let size = size.get();
    if size > limit as u64 {
        return Err(if limit < MAX_FILE_BYTES {
            CalendarError::SourceBytesSpent {
                mb: SOURCE_BYTES >> 20,
            }
        } else {
            CalendarError::TooLarge {
                mb: MAX_FILE_BYTES >> 20,
            }
        });
    }
    read?;
    *bytes_left -= usize::try_from(size).map_or(*bytes_left, |n| n.min(*bytes_left));
    Ok(warnings)
}

/// Reads a calendar into `reading` from what `open(pass)` gives, twice. The first pass
/// (0) takes the time zones (`VTIMEZONE`'s `X-LIC-LOCATION`) and the overrides
/// (`RECURRENCE-ID`: each replaces an occurrence of its event, and is one itself), both
/// needed before an event is expanded and either of which may come after it; the second
/// (1) reads every other event and expands it at once, but for one that surely ended
/// days before the window (a calendar's past, left unparsed: [`parse::ended_before`]).
/// A component that cannot be read is skipped with a warning; a calendar whose structure is broken is refused (by the
/// first pass, before anything is kept).
pub(super) fn read_calendar<'r>(
    mut open: impl FnMut(u8) -> io::Result<Box<dyn BufRead + 'r>>,
    reading: &mut Reading,
    warnings: &mut Vec<String>,
) -> Result<(), CalendarError> {
    let mut zones: HashMap<String, String> = HashMap::new();
    let mut overrides: Vec<(String, u64)> = Vec::new();
    pieces(open(0).map_err(CalendarError::Read)?, |p| {
        if p.oversized {
            return;
        }
        match p.name {
            "VTIMEZONE" => zones.extend(parse::timezone(p.text, p.line)),
            "VEVENT" if p.overrides => overrides.push((p.text.to_string(), p.line)),
            _ => {}
        }
    })?;
    let mut replaced: HashMap<String, Vec<Stamp>> = HashMap::new();
    for (text, line) in overrides {
        if let Some(e) = parse::event(&text, line, &zones, warnings) {
            if let (Some(uid), Some(id)) = (&e.uid, e.recurrence_id) {
                replaced.entry(uid.clone()).or_default().push(id);
            }
            reading.expand(&e, &[], warnings);
        }
    }
    let first_day = reading.first_day();
    pieces(open(1).map_err(CalendarError::Read)?, |p| {
        if p.name != "VEVENT" {
            return;
        }
        if p.oversized {
            warnings.push(format!(
                "an event skipped: {}",
                EventError::TooLarge {
                    line: p.line,
                    kb: MAX_COMPONENT_BYTES >> 10
                }
            ));
            return;
        }
        // An override was read by the first pass; a past event is left unparsed.
        if p.overrides || parse::ended_before(p.text, first_day) {
            return;
        }
        if let Some(e) = parse::event(p.text, p.line, &zones, warnings) {
            let replaced = match (&e.uid, e.recurrence_id) {
                (Some(uid), None) => replaced.get(uid).map_or(&[][..], Vec::as_slice),
                _ => &[],
            };
            reading.expand(&e, replaced, warnings);
        }
    })
}

/// A reader that counts the bytes read through it.
struct Counting<R> {
    inner: R,
    count: Option<Rc<Cell<u64>>>,
}

impl<R: io::Read> io::Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(c) = &self.count {
            c.set(c.get() + n as u64);
        }
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counting<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        if let Some(c) = &self.count {
            c.set(c.get() + amount as u64);
        }
        self.inner.consume(amount);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Zone;
    use crate::sources::ics::calendar_text;
    use crate::sources::ics::testing::{events, now, settings};

    #[test]
    fn a_vdir_is_read_one_level_deep_and_cancelled_events_stay_out() {
        assert_eq!(
            events(&["vdir"], 72, Zone::UTC),
            [
                "- Sun 22 Nov 09:30–11:00 (now, until 11:00): Design review — at Room 2.01",
                "- Mon 23 Nov 15:00–15:45 (in 1 day 4 h): Dentist — at Dr. Weber, Hauptstr. 5",
                "- Mon 23 Nov 18:30–19:30 (in 1 day 8 h): Gym",
                "- all day Tue 24 Nov – Thu 26 Nov (in 2 days): Family visit",
            ]
        );
    }

    #[test]
    fn a_missing_path_fails_the_source_with_the_way_out() {
        let e = calendar_text(
            &settings(&["google.ics", "nope.ics"], 24, 50),
            now(),
            Zone::UTC,
        )
        .unwrap_err();
        assert!(
            matches!(&e, SourceError::CalendarMissing { path } if path.ends_with("nope.ics")),
            "{e:?}"
        );
        let e = e.to_string();
        assert!(e.ends_with("nope.ics does not exist: fix `paths`, or sync the calendar first (e.g. `vdirsyncer sync`)"), "{e}");
        let e = calendar_text(&settings(&["nope/*"], 24, 50), now(), Zone::UTC).unwrap_err();
        assert!(
            matches!(&e, SourceError::CalendarGlobEmpty { pattern } if pattern.ends_with("nope/*")),
            "{e:?}"
        );
        let e = e.to_string();
        assert!(e.contains("nope/*` matches nothing: fix `paths`"), "{e}");
        // A glob of calendars (as `~/.calendars/*`), each a vdir.
        let lines = events(&["vdir/*"], 72, Zone::UTC);
        assert_eq!(lines.len(), 4, "{lines:#?}");
    }
}
