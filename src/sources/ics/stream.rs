//! A calendar read as a stream, so that neither its size nor its number of events
//! decides what is held or how long the parser takes: logical lines unfolded as they are
//! read ([`Lines`]: RFC 5545 §3.1, each cut to [`MAX_LINE_BYTES`]), and the components
//! of the `VCALENDAR` handed over one at a time ([`pieces`]: an event with its alarms, a
//! time zone), each with its text, its first line's number and whether it overrides
//! an occurrence. The structure is checked as it goes: nesting past [`MAX_NESTING`]
//! (the parser recurses), an `END` that closes another component, a component never
//! closed, text outside any component, a file without `BEGIN:VCALENDAR`.
//!
//! **Why pieces, and why `\r\n`.** The `icalendar` parser reads a property's value up to
//! `\r\n` first, then `\n`: on text whose lines end in `\n` alone it scans the whole rest
//! of its input for a `\r\n` at every property, which made a calendar's parse quadratic
//! (5,000 past events took 5.5 s). A piece's lines end in `\r\n`, so that scan stops at
//! the line's end, and a piece is parsed alone, so no scan can pass it: the parse is
//! linear in the file, and holds one piece at a time (at most [`MAX_COMPONENT_BYTES`]).
//!
//! Must not: parse a property's value (that is `parse`), or keep more than the piece in
//! hand and one line read ahead.

use std::io::{self, BufRead};

use super::error::CalendarError;

/// Components nested deeper than this (VCALENDAR > VEVENT > VALARM is 3) are refused.
pub const MAX_NESTING: usize = 8;
/// The longest logical line (a property with its folded continuations) kept: the rest
/// of a longer one is dropped as it is read, so a 15 MB `SUMMARY` costs nothing.
pub(super) const MAX_LINE_BYTES: usize = 64 << 10;
/// A component (an event with its alarms, a time zone) whose text passes this is not
/// parsed: it is skipped with a warning.
pub const MAX_COMPONENT_BYTES: usize = 1 << 20;

/// The logical lines of a calendar: a line break followed by a space or a tab joins the
/// lines (`\r\n` or `\n`); each line cut to [`MAX_LINE_BYTES`] on a char boundary as it
/// is read; a leading BOM dropped; bytes that are not UTF-8 replaced.
pub(super) struct Lines<R> {
    reader: R,
    /// The next physical line, read ahead to see whether it continues this one.
    ahead: Option<Vec<u8>>,
    /// The logical lines given so far (the number of the last one).
    number: u64,
    started: bool,
}

impl<R: BufRead> Lines<R> {
    pub(super) fn new(reader: R) -> Lines<R> {
        Lines {
            reader,
            ahead: None,
            number: 0,
            started: false,
        }
    }

    /// The number of the last line given (1-based; folded lines count as one).
    pub(super) fn number(&self) -> u64 {
        self.number
    }

    /// The next logical line, or `None` at the end.
    pub(super) fn next_line(&mut self) -> io::Result<Option<String>> {
        let mut line = match self.ahead.take() {
            Some(l) => l,
            None => match physical(&mut self.reader, MAX_LINE_BYTES + 4)? {
                Some(l) => l,
                None => return Ok(None),
            },
        };
        if !self.started {
            self.started = true;
            if line.starts_with(b"\xef\xbb\xbf") {
                line.drain(..3);
            }
        }
        while let Some(next) = physical(&mut self.reader, MAX_LINE_BYTES + 4)? {
            if let Some(b' ' | b'\t') = next.first() {
                let room = (MAX_LINE_BYTES + 4).saturating_sub(line.len());
                line.extend_from_slice(&next[1..next.len().min(room + 1)]);
            } else {
                self.ahead = Some(next);
                break;
            }
        }
        self.number += 1;
        let mut text = match String::from_utf8(line) {
            Ok(text) => text,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        };
        text.truncate(text.floor_char_boundary(MAX_LINE_BYTES));
        Ok(Some(text))
    }
}

/// One physical line of `reader` without its `\n` (and `\r`), at most `cap` bytes of it
/// kept (the rest read and dropped); `None` at the end.
fn physical(reader: &mut impl BufRead, cap: usize) -> io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    let mut read_any = false;
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(read_any.then_some(line));
        }
        read_any = true;
        let (chunk, used, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], i + 1, true),
            None => (buf, buf.len(), false),
        };
        let room = cap.saturating_sub(line.len());
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        reader.consume(used);
        if done {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(Some(line));
        }
    }
}

/// A component of the calendar as [`pieces`] hands it over.
#[derive(Debug)]
pub(super) struct Piece<'a> {
    /// Its name, upper case (`VEVENT`, `VTIMEZONE`…).
    pub(super) name: &'a str,
    /// Its text, every line ending in `\r\n` (see the module's doc); cut when
    /// `oversized`.
    pub(super) text: &'a str,
    /// The number of its `BEGIN` line in the file (folded lines counted as one).
    pub(super) line: u64,
    /// It has a `RECURRENCE-ID` of its own: it overrides an occurrence.
    pub(super) overrides: bool,
    /// Its text passed [`MAX_COMPONENT_BYTES`]: not to be parsed.
    pub(super) oversized: bool,
}

/// The piece being read.
struct Building {
    name: String,
    text: String,
    line: u64,
    /// The nesting depth its own properties are at.
    depth: usize,
    overrides: bool,
    oversized: bool,
}

impl Building {
    fn push(&mut self, line: &str) {
        if self.text.len() + line.len() + 2 > MAX_COMPONENT_BYTES {
            self.oversized = true;
        } else {
            self.text.push_str(line);
            self.text.push_str("\r\n");
        }
    }
}

/// `line` starts with `prefix`, in any case.
fn starts_with_ci(line: &str, prefix: &str) -> bool {
    line.get(..prefix.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(prefix))
}

/// Hands each component of the calendar `reader` reads to `each`, one at a time: the
/// children of a `VCALENDAR` (and a component outside one). Fails when the calendar's
/// structure is broken (a component never closed, an `END` that closes another one,
/// text outside any component: the line is said) or nested past [`MAX_NESTING`], when it
/// has no `BEGIN:VCALENDAR`, or when it cannot be read; what `each` was given until then
/// stays given.
pub(super) fn pieces<R: BufRead>(
    reader: R,
    mut each: impl FnMut(Piece<'_>),
) -> Result<(), CalendarError> {
    let mut lines = Lines::new(reader);
    // The components open, with their BEGIN line's number.
    let mut open: Vec<(String, u64)> = Vec::new();
    let mut building: Option<Building> = None;
    let mut saw_calendar = false;
    let mut stray: Option<u64> = None;
    while let Some(line) = lines.next_line().map_err(CalendarError::Read)? {
        let number = lines.number();
        if starts_with_ci(&line, "BEGIN:") {
            let name = line[6..].trim().to_ascii_uppercase();
            if open.len() >= MAX_NESTING {
                return Err(CalendarError::TooDeep { max: MAX_NESTING });
            }
            let in_calendar = open.len() == 1 && open[0].0 == "VCALENDAR";
            if open.is_empty() && name == "VCALENDAR" {
                saw_calendar = true;
            } else if building.is_none() && (open.is_empty() || in_calendar) {
                building = Some(Building {
                    name: name.clone(),
                    text: String::new(),
                    line: number,
                    depth: open.len() + 1,
                    overrides: false,
                    oversized: false,
                });
            }
            // Written in upper case: the parser matches an END to its BEGIN by case.
            if let Some(b) = &mut building {
                b.push(&format!("BEGIN:{name}"));
            }
            open.push((name, number));
        } else if starts_with_ci(&line, "END:") {
            let name = line[4..].trim();
            match open.last() {
                Some((o, _)) if o.eq_ignore_ascii_case(name) => {}
                _ => return Err(CalendarError::Invalid { line: Some(number) }),
            }
            let closed = open.pop().map(|(name, _)| name).unwrap_or_default();
            if let Some(b) = &mut building {
                b.push(&format!("END:{closed}"));
                if open.len() < b.depth {
                    each(Piece {
                        name: &b.name,
                        text: &b.text,
                        line: b.line,
                        overrides: b.overrides,
                        oversized: b.oversized,
                    });
                    building = None;
                }
            }
        } else if open.is_empty() {
            if !line.trim().is_empty() {
                stray.get_or_insert(number);
            }
        } else if let Some(b) = &mut building {
            if open.len() == b.depth && property_is(&line, "RECURRENCE-ID") {
                b.overrides = true;
            }
            b.push(&line);
        }
        // Else: a property of the calendar itself, not needed.
    }
    if !saw_calendar {
        return Err(CalendarError::NotICalendar);
    }
    if let Some((_, line)) = open.last() {
        return Err(CalendarError::Invalid { line: Some(*line) });
    }
    match stray {
        Some(line) => Err(CalendarError::Invalid { line: Some(line) }),
        None => Ok(()),
    }
}

/// Whether `line` is a property named `name` (in any case).
fn property_is(line: &str, name: &str) -> bool {
    starts_with_ci(line, name) && matches!(line.as_bytes().get(name.len()), Some(b';' | b':'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        let mut lines = Lines::new(text.as_bytes());
        let mut out = Vec::new();
        while let Some(l) = lines.next_line().unwrap() {
            out.push(l);
        }
        out
    }

    /// A piece as handed over: name, text, line, overrides, oversized.
    type Owned = (String, String, u64, bool, bool);

    fn all(text: &str) -> Result<Vec<Owned>, CalendarError> {
        let mut out = Vec::new();
        pieces(text.as_bytes(), |p| {
            out.push((
                p.name.to_string(),
                p.text.to_string(),
                p.line,
                p.overrides,
                p.oversized,
            ));
        })?;
        Ok(out)
    }

    #[test]
    fn unfolding_joins_continuations_and_caps_long_lines() {
        assert_eq!(
            lines("\u{feff}A:1\r\nB:hello \r\n world\r\n\tagain\nC:3"),
            ["A:1", "B:hello worldagain", "C:3"]
        );
        assert_eq!(lines(" x\n"), [" x"], "a first line is not a continuation");
        let long = format!("S:{}\n c\nE:1", "é".repeat(MAX_LINE_BYTES));
        let out = lines(&long);
        assert!(
            out[0].len() <= MAX_LINE_BYTES && out[0].starts_with("S:é"),
            "{}",
            out[0].len()
        );
        assert_eq!(out[1], "E:1");
        // Bytes that are not UTF-8 are replaced, a char split by a fold is whole again.
        let mut bytes = b"S:caf\xc3\r\n \xa9 \xff\r\n".to_vec();
        bytes.extend_from_slice(b"E:1");
        let mut l = Lines::new(&bytes[..]);
        assert_eq!(l.next_line().unwrap().unwrap(), "S:café \u{fffd}");
        // The same as the parser's own unfolding where no line is long.
        for text in [
            "1 hello world\r\n2 hello \r\n   world\r\n3 hello \r\n world\r\n4 hello world",
            "a\n b\n\tc\nd",
        ] {
            assert_eq!(
                lines(text).join("\n"),
                icalendar::parser::unfold(text).replace("\r\n", "\n")
            );
        }
    }

    #[test]
    fn the_calendars_components_are_handed_over_one_at_a_time() {
        let text = "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VTIMEZONE\nTZID:X\nBEGIN:STANDARD\n\
                    TZOFFSETTO:+0100\nEND:STANDARD\nEND:VTIMEZONE\nbegin:vevent\nUID:a\n\
                    SUMMARY:long\n  title\nBEGIN:VALARM\nRECURRENCE-ID:x\nEND:VALARM\n\
                    END:VEVENT\nBEGIN:VEVENT\nUID:a\nRECURRENCE-ID;TZID=X:20261124T093000\n\
                    END:VEVENT\nEND:VCALENDAR\n";
        let got = all(text).unwrap();
        let names: Vec<(&str, u64, bool)> = got
            .iter()
            .map(|(n, _, line, over, _)| (n.as_str(), *line, *over))
            .collect();
        assert_eq!(
            names,
            [
                ("VTIMEZONE", 3, false),
                ("VEVENT", 9, false),
                ("VEVENT", 16, true)
            ],
            "an alarm's RECURRENCE-ID is not the event's"
        );
        assert_eq!(
            got[1].1,
            "BEGIN:VEVENT\r\nUID:a\r\nSUMMARY:long title\r\nBEGIN:VALARM\r\nRECURRENCE-ID:x\r\nEND:VALARM\r\nEND:VEVENT\r\n"
        );
        // Each piece parses alone.
        for (_, text, ..) in &got {
            assert!(icalendar::parser::read_calendar(text).is_ok(), "{text}");
        }
    }

    /// Table: a broken structure fails the file, naming the line where it is.
    #[test]
    fn a_broken_structure_is_refused_naming_its_line() {
        let e = |text: &str| all(text).unwrap_err().to_string();
        let invalid = |line: u64| CalendarError::Invalid { line: Some(line) }.to_string();
        assert_eq!(
            e("BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:x\n"),
            invalid(2),
            "never closed"
        );
        assert_eq!(
            e("BEGIN:VCALENDAR\nBEGIN:VEVENT\nEND:VTODO\nEND:VCALENDAR\n"),
            invalid(3),
            "closes another"
        );
        assert_eq!(
            e("junk\nBEGIN:VCALENDAR\nEND:VCALENDAR\n"),
            invalid(1),
            "outside any component"
        );
        assert_eq!(
            e("From: a@b\n\nhello"),
            CalendarError::NotICalendar.to_string()
        );
        let deep = format!("BEGIN:VCALENDAR\n{}", "BEGIN:X\n".repeat(100_000));
        assert!(matches!(
            all(&deep),
            Err(CalendarError::TooDeep { max: MAX_NESTING })
        ));
        assert!(
            all("\n\nBEGIN:VCALENDAR\nEND:VCALENDAR\n\n")
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_component_past_its_bound_is_handed_over_cut_and_marked() {
        let line = format!("DESCRIPTION:{}\n", "x".repeat(60_000));
        let text = format!(
            "BEGIN:VCALENDAR\nBEGIN:VEVENT\n{}END:VEVENT\nBEGIN:VEVENT\nUID:ok\nEND:VEVENT\nEND:VCALENDAR\n",
            line.repeat(20)
        );
        let got = all(&text).unwrap();
        assert_eq!(got.len(), 2);
        assert!(got[0].4 && got[0].1.len() <= MAX_COMPONENT_BYTES);
        assert!(!got[1].4 && got[1].1.contains("UID:ok"));
    }
}
