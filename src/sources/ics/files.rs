//! The `ics` source's files: `paths` (files, vdir directories one level deep, globs)
//! found, sorted and capped at [`MAX_FILES`], and each file read (at most
//! [`MAX_FILE_BYTES`], and [`SOURCE_BYTES`] for the source in all), unfolded, parsed and
//! expanded into its occurrences ([`file_occurrences`]).
//!
//! Must not: list or parse anything itself (that is `parse`, `expand` and `render`), or
//! fail the source for one unreadable calendar of several.

use std::path::{Path, PathBuf};

use super::Window;
use super::error::CalendarError;
use super::expand::{Occurrence, expand_all};
use super::parse::{parse_unfolded, unfold_capped};
use crate::clock::Zone;
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
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
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
fn vdir_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
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

/// The occurrences in one file, and warnings about events skipped.
pub(super) fn file_occurrences(
    path: &Path,
    window: Window,
    zone: Zone,
    max_events: usize,
    budget: &mut usize,
    bytes_left: &mut usize,
) -> Result<(Vec<Occurrence>, Vec<String>), CalendarError> {
    let limit = MAX_FILE_BYTES.min(*bytes_left);
    let bytes = read_head(path, limit + 1).map_err(CalendarError::Read)?;
    if bytes.len() > limit {
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
    *bytes_left -= bytes.len();
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    // The file's text goes once unfolded (and its long lines cut): the parser works on
    // the smaller copy.
    let unfolded = unfold_capped(&text);
    drop(text);
    let (events, mut warnings) = parse_unfolded(&unfolded)?;
    drop(unfolded);
    let found = expand_all(&events, window, zone, max_events, budget, &mut warnings);
    Ok((found, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;
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
