//! The plain copy of a text that the redactor's number and address patterns read a
//! second time, with the map from each of its bytes back to the original: digits of any
//! script (full-width `４１１１`, Arabic-Indic, Devanagari, mathematical `𝟒`…) become
//! ASCII digits, full-width ASCII (`＋`, `＠`, `．`, `Ａ`) becomes ASCII, the ideographic
//! space a space, and a run of single characters spaced one by one
//! (`D E 8 9 3 7 …`, `j a n e @ e x a m p l e . o r g`) is joined. A value written so is
//! then the value itself, with the same normal form and so the same placeholder.
//!
//! Pure: no I/O. Must not decide what is personal (that is `redact`'s).

use std::ops::Range;

/// A text's plain copy and where each of its bytes came from.
pub(super) struct Plain {
    pub(super) text: String,
    /// For each byte of `text`, the original byte range of the character it came from.
    origin: Vec<(usize, usize)>,
}

impl Plain {
    /// The plain copy of `text`, or `None` when it would be `text` itself (the common
    /// case: nothing is built).
    pub(super) fn of(text: &str) -> Option<Plain> {
        if !needs_plain(text) {
            return None;
        }
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let joined = spaced_runs(&chars);
        let mut plain = Plain {
            text: String::with_capacity(text.len()),
            origin: Vec::with_capacity(text.len()),
        };
        let mut changed = false;
        for (k, &(at, c)) in chars.iter().enumerate() {
            let end = at + c.len_utf8();
            if joined.get(k).copied().unwrap_or(false) {
                changed = true;
                continue;
            }
            let p = plain_char(c);
            changed |= p != c;
            let mut buf = [0u8; 4];
            for _ in p.encode_utf8(&mut buf).bytes() {
                plain.origin.push((at, end));
            }
            plain.text.push(p);
        }
        changed.then_some(plain)
    }

    /// The original span of the plain byte range `range`.
    pub(super) fn original(&self, range: Range<usize>) -> Option<Range<usize>> {
        if range.start >= range.end {
            return None;
        }
        let first = self.origin.get(range.start)?;
        let last = self.origin.get(range.end - 1)?;
        Some(first.0..last.1)
    }
}

/// Whether `text` has anything the plain copy changes: a character [`plain_char`]
/// changes, or a run of spaced single characters.
fn needs_plain(text: &str) -> bool {
    if !text.is_ascii() && text.chars().any(|c| plain_char(c) != c) {
        return true;
    }
    // `x y z …`: a character, a space, a character…; found from space to space (a
    // memchr), so a text is not read byte by byte. Only ASCII characters count here,
    // which is what the spaced values of interest are once full-width ones have been
    // caught; [`spaced_runs`] decides exactly.
    let bytes = text.as_bytes();
    let mut run = 0;
    let mut last: Option<usize> = None;
    for (at, _) in text.match_indices(' ') {
        let single = last.is_some_and(|l| at == l + 2 && !bytes[l + 1].is_ascii_whitespace());
        run = if single { run + 1 } else { 0 };
        // The run's first and last characters stand outside its spaces.
        if run + 2 >= MIN_SPACED {
            return true;
        }
        last = Some(at);
    }
    false
}

/// The fewest characters spaced one by one that are joined: fewer is ordinary text ("a
/// b c", "I a m").
const MIN_SPACED: usize = 8;

/// For each character of `chars`, whether it is a space between two characters of a
/// spaced run (which the plain copy leaves out). A character of the run stands alone
/// between white space; the last one may have a sentence's punctuation after it
/// (`… 0 0;`).
fn spaced_runs(chars: &[(usize, char)]) -> Vec<bool> {
    let mut joined = vec![false; chars.len()];
    let visible = |k: usize| chars.get(k).is_some_and(|&(_, c)| !c.is_whitespace());
    let space = |k: usize| {
        chars
            .get(k)
            .is_some_and(|&(_, c)| c == ' ' || c == '\u{3000}')
    };
    let closing = |k: usize| {
        chars
            .get(k)
            .is_some_and(|&(_, c)| matches!(c, '.' | ',' | ';' | ':' | '!' | '?' | ')' | ']'))
    };
    // A character alone: white space (or the end) after it, or closing punctuation and
    // then white space.
    let alone = |k: usize| visible(k) && (!visible(k + 1) || closing(k + 1) && !visible(k + 2));
    let mut k = 0;
    while k < chars.len() {
        let starts = visible(k) && (k == 0 || !visible(k - 1)) && space(k + 1) && alone(k + 2);
        if !starts {
            k += 1;
            continue;
        }
        let mut end = k; // the last single character of the run
        while space(end + 1) && alone(end + 2) {
            end += 2;
        }
        let singles = (end - k) / 2 + 1;
        if singles >= MIN_SPACED {
            for s in (k + 1..end).step_by(2) {
                joined[s] = true;
            }
        }
        k = end + 1;
    }
    joined
}

/// A character as the plain copy writes it: a digit of any script as its ASCII digit,
/// full-width ASCII as ASCII, the ideographic space as a space; anything else as it is.
pub(super) fn plain_char(c: char) -> char {
    let u = c as u32;
    match u {
        // ASCII, and the Latin letters of European text: no digit among them.
        0..=0x24f => c,
        0xff01..=0xff5e => char::from_u32(u - 0xff01 + 0x21).unwrap_or(c),
        0x3000 => ' ',
        0xfe6b => '@',
        _ if !c.is_numeric() => c,
        _ => digit(u).map_or(c, |d| char::from(b'0' + d)),
    }
}

/// The zeros of the decimal digit runs of Unicode (category Nd) outside ASCII that
/// people or tools write numbers in.
const DIGIT_ZEROS: &[u32] = &[
    0x0660, 0x06f0, 0x07c0, 0x0966, 0x09e6, 0x0a66, 0x0ae6, 0x0b66, 0x0be6, 0x0c66, 0x0ce6, 0x0d66,
    0x0de6, 0x0e50, 0x0ed0, 0x0f20, 0x1040, 0x1090, 0x17e0, 0x1810, 0x1946, 0x19d0, 0x1a80, 0x1a90,
    0x1b50, 0x1bb0, 0x1c40, 0x1c50, 0xa620, 0xa8d0, 0xa900, 0xa9d0, 0xa9f0, 0xaa50, 0xabf0, 0xff10,
    0x1_04a0, 0x1_1066, 0x1_e950,
];

/// The value of a non-ASCII decimal digit.
fn digit(u: u32) -> Option<u8> {
    // Mathematical digits: bold, double-struck, sans-serif, sans-serif bold, monospace.
    if (0x1_d7ce..=0x1_d7ff).contains(&u) {
        return u8::try_from((u - 0x1_d7ce) % 10).ok();
    }
    DIGIT_ZEROS
        .iter()
        .find(|&&zero| (zero..zero + 10).contains(&u))
        .and_then(|zero| u8::try_from(u - zero).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(text: &str) -> String {
        Plain::of(text).map_or_else(|| text.to_string(), |p| p.text)
    }

    #[test]
    fn digits_of_any_script_and_full_width_become_ascii() {
        assert_eq!(plain("＋４９ ３０ １２３４５６７"), "+49 30 1234567");
        assert_eq!(plain("٠١٧١ ١٢٣٤٥٦٧"), "0171 1234567");
        assert_eq!(plain("𝟒𝟏𝟏𝟏"), "4111");
        assert_eq!(plain("ａｎａ＠ｅｘａｍｐｌｅ．ｏｒｇ"), "ana@example.org");
        assert!(Plain::of("plain ASCII, 2024-01-15, a b c").is_none());
        assert!(Plain::of("Grüße, Jörg").is_none());
    }

    #[test]
    fn spaced_runs_are_joined_and_map_back() {
        let text = "IBAN: D E 8 9 3 7 0 4 0 0 4 4 0 5 3 2 0 1 3 0 0 0 thanks";
        let p = Plain::of(text).unwrap();
        assert_eq!(p.text, "IBAN: DE89370400440532013000 thanks");
        let at = p.text.find("DE89").unwrap();
        let span = p.original(at..at + "DE89370400440532013000".len()).unwrap();
        assert_eq!(&text[span], "D E 8 9 3 7 0 4 0 0 4 4 0 5 3 2 0 1 3 0 0 0");
        assert_eq!(
            plain("mail j a n e @ e x a m p l e . o r g now"),
            "mail jane@example.org now"
        );
        assert_eq!(
            plain("IBAN D E 8 9 3 7 0 4 0 0 4 4 0 5 3 2 0 1 3 0 0 0; thanks"),
            "IBAN DE89370400440532013000; thanks"
        );
        // Short runs are prose.
        assert!(Plain::of("a b c d and I a m here").is_none());
    }
}
