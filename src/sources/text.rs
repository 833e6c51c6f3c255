//! Cleaning and capping a source's text: the shared last step of every kind.
//!
//! Cleaning is [`crate::untrusted::clean`] (the one cleaner of untrusted text); this
//! module adds decoding, one-line forms for headers and list items, and the byte caps
//! that keep the head ([`cap_head`]) or the tail ([`cap_tail`]) of a text on a char
//! boundary, and on a line end when one lies in the kept half. Must not add markers to
//! the text: truncation is a flag the prompt assembly words.

use crate::untrusted;

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
pub(super) fn one_line(text: &str, replacement: char, max_chars: usize) -> String {
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
pub(super) fn cap_head(text: &mut String, max: usize, more: bool) -> bool {
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
pub(super) fn cap_tail(text: &mut String, max: usize) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
