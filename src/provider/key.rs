//! The API key that never shows: [`ApiKey`] (a redacted `Debug`, no `Display`, sent only
//! as a header value marked sensitive), [`scrub`] (every whole or partial echo of the key
//! taken out of provider text) and [`quote`] (server text as an error may show it:
//! scrubbed, cut to an excerpt by [`crate::untrusted::excerpt`], scrubbed again).
//!
//! Must not: log, store or format a key anywhere but the one header that carries it. The
//! generic cleaning and cutting of untrusted text is not here but in
//! [`crate::untrusted`]; this module adds only what needs the key.

use std::collections::HashSet;
use std::fmt;

use reqwest::header::HeaderValue;

use crate::untrusted;
use crate::untrusted::redact::mask_secrets;

/// Server text put in an error is cut to this many characters (and an `…`).
pub const EXCERPT_CHARS: usize = 200;

/// An API key. Its `Debug` is redacted and it has no `Display`: the only way to the
/// text is [`ApiKey::expose`], used to build one header value (marked sensitive).
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: &str) -> Self {
        ApiKey(key.to_string())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    /// A header value carrying `prefix` + the key, marked sensitive so that no `Debug` of
    /// the request shows it.
    pub fn header(&self, prefix: &str) -> Option<HeaderValue> {
        let mut v = HeaderValue::from_str(&format!("{prefix}{}", self.0)).ok()?;
        v.set_sensitive(true);
        Some(v)
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}

/// The shortest run of a key's characters that counts as an echo of it: a server that
/// masks the middle of a key (`sk-ZQX7vK93p***Fs6A`) must not publish its ends.
pub const KEY_RUN: usize = 8;

/// What a scrubbed key is replaced with.
pub const REDACTED: &str = "[redacted]";

/// `text` with every echo of the key replaced by [`REDACTED`]: the whole key, and any run
/// of [`KEY_RUN`] or more consecutive characters of it (overlapping and adjacent runs
/// merge into one). A key shorter than [`KEY_RUN`] is replaced only where it appears
/// whole. Linear in the text: each window of [`KEY_RUN`] characters is looked up in a set
/// of the key's windows.
pub fn scrub(text: &str, key: Option<&ApiKey>) -> String {
    let Some(key) = key.map(ApiKey::expose).filter(|k| !k.is_empty()) else {
        return text.to_string();
    };
    let grams: HashSet<String> = windows(key)
        .map(|(s, e, visible)| visible.unwrap_or_else(|| key[s..e].to_string()))
        .collect();
    if grams.is_empty() {
        return text.replace(key, REDACTED);
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut run: Option<(usize, usize)> = None;
    for (s, e, visible) in windows(text) {
        if !grams.contains(visible.as_deref().unwrap_or(&text[s..e])) {
            continue;
        }
        run = match run {
            Some((start, end)) if s <= end => Some((start, end.max(e))),
            Some((start, end)) => {
                out.push_str(&text[copied..start]);
                out.push_str(REDACTED);
                copied = end;
                Some((s, e))
            }
            None => Some((s, e)),
        };
    }
    if let Some((start, end)) = run {
        out.push_str(&text[copied..start]);
        out.push_str(REDACTED);
        copied = end;
    }
    out.push_str(&text[copied..]);
    out
}

/// The byte ranges of every window of [`KEY_RUN`] consecutive visible characters of
/// `text` (see [`VisibleChars`]; a range spans any invisible ones between its
/// characters), with those characters when the range holds anything else too.
fn windows(text: &str) -> impl Iterator<Item = (usize, usize, Option<String>)> + '_ {
    let mut ring = [(0usize, 0usize, ' '); KEY_RUN];
    VisibleChars::new(text)
        .enumerate()
        .filter_map(move |(j, (start, end, c))| {
            ring[j % KEY_RUN] = (start, end, c);
            if j + 1 < KEY_RUN {
                return None;
            }
            let first = (j + 1) % KEY_RUN;
            let (start, end) = (ring[first].0, end);
            let chars = || (0..KEY_RUN).map(|k| ring[(first + k) % KEY_RUN].2);
            let width: usize = chars().map(char::len_utf8).sum();
            Some((
                start,
                end,
                (width != end - start).then(|| chars().collect()),
            ))
        })
}

/// The characters of `text` a reader (or later cleaning, or a JSON reader) keeps, each
/// with the byte range it was written in: not control characters, not the bytes of an
/// escape sequence (`ESC [ … final`, `ESC x`, C1 `CSI … final`), not invisible format
/// characters — and JSON string escapes read as the characters they stand for (`\u0073`
/// is `s`; `\u200b`, `\n` are invisible), since an answer's JSON is unescaped after the
/// scrub (`\u200b` between a key's characters left 17 of them in the state). A
/// key broken up by any of those is still a key once read.
struct VisibleChars<'a> {
    text: &'a str,
    at: usize,
    escape: Escape,
}

#[derive(Clone, Copy, PartialEq)]
enum Escape {
    None,
    /// Just after `ESC`.
    Start,
    /// Inside a control sequence, before its final byte.
    Csi,
}

impl<'a> VisibleChars<'a> {
    fn new(text: &'a str) -> Self {
        VisibleChars {
            text,
            at: 0,
            escape: Escape::None,
        }
    }

    /// The JSON escape at `at` (which holds a `\`): the character it stands for and its
    /// length in bytes, `None` when it is not one.
    fn json_escape(&self, at: usize) -> Option<(char, usize)> {
        let rest = &self.text.as_bytes()[at + 1..];
        let simple = match rest.first()? {
            b'"' => Some('"'),
            b'\\' => Some('\\'),
            b'/' => Some('/'),
            b'b' => Some('\u{8}'),
            b'f' => Some('\u{c}'),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            _ => None,
        };
        if let Some(c) = simple {
            return Some((c, 2));
        }
        let hex = |b: &[u8]| -> Option<u32> {
            let s = std::str::from_utf8(b.get(..4)?).ok()?;
            if !s.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            u32::from_str_radix(s, 16).ok()
        };
        if rest.first() != Some(&b'u') {
            return None;
        }
        let unit = hex(&rest[1..])?;
        if (0xd800..0xdc00).contains(&unit) && rest.get(5..7) == Some(b"\\u") {
            let low = hex(&rest[7..])?;
            if (0xdc00..0xe000).contains(&low) {
                let c = char::from_u32(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00))?;
                return Some((c, 12));
            }
        }
        Some((char::from_u32(unit)?, 6))
    }
}

impl Iterator for VisibleChars<'_> {
    type Item = (usize, usize, char);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let at = self.at;
            let c = self.text[at..].chars().next()?;
            self.at += c.len_utf8();
            match self.escape {
                Escape::Start => {
                    self.escape = if c == '[' { Escape::Csi } else { Escape::None };
                    continue;
                }
                Escape::Csi if ('\u{20}'..='\u{3f}').contains(&c) => continue,
                Escape::Csi => {
                    self.escape = Escape::None;
                    if ('\u{40}'..='\u{7e}').contains(&c) {
                        continue;
                    }
                }
                Escape::None => {}
            }
            match c {
                '\u{1b}' => {
                    self.escape = Escape::Start;
                    continue;
                }
                '\u{9b}' => {
                    self.escape = Escape::Csi;
                    continue;
                }
                '\\' => {
                    if let Some((decoded, len)) = self.json_escape(at) {
                        self.at = at + len;
                        if decoded.is_control() || untrusted::is_invisible(decoded) {
                            continue;
                        }
                        return Some((at, at + len, decoded));
                    }
                }
                _ => {}
            }
            if c.is_control() || untrusted::is_invisible(c) {
                continue;
            }
            return Some((at, self.at, c));
        }
    }
}

/// Server text as an error may quote it: scrubbed of this provider's key and masked of
/// every key and token shape ([`mask_secrets`]: another provider's key, echoed by a
/// proxy or a router, is a key too), cut to an excerpt of [`EXCERPT_CHARS`] (cleaned of
/// control, escape and invisible characters, white space collapsed), and scrubbed and
/// masked again (cleaning can join the pieces of a key split by control characters).
pub fn quote(text: &str, key: Option<&ApiKey>) -> String {
    let clean = |text: &str| mask_secrets(&scrub(text, key));
    clean(&untrusted::excerpt(&clean(text), EXCERPT_CHARS + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_scrubbed_and_redacted() {
        let k = ApiKey::new("sk-secret-123");
        assert_eq!(format!("{k:?}"), "ApiKey([redacted])");
        assert_eq!(
            scrub("bad key sk-secret-123!", Some(&k)),
            "bad key [redacted]!"
        );
        let v = k.header("Bearer ").unwrap();
        assert!(!format!("{v:?}").contains("secret"));
    }

    #[test]
    fn partial_echoes_of_a_key_are_scrubbed() {
        let k = ApiKey::new("sk-ZQX7vK93pAbCdEfFs6A");
        let s = |t: &str| scrub(t, Some(&k));
        // The issue's 401: the key's first 12 characters, its middle masked.
        assert_eq!(
            s("Incorrect API key provided: sk-ZQX7vK93p***Fs6A."),
            "Incorrect API key provided: [redacted]***Fs6A."
        );
        assert_eq!(s("Bearer sk-ZQX7vK93pAbCdEfFs6A"), "Bearer [redacted]");
        // Any 8-character run, anywhere; shorter runs are left.
        assert_eq!(s("…93pAbCdE…"), "…[redacted]…");
        assert_eq!(s("93pAbCd and Fs6A"), "93pAbCd and Fs6A");
        // Back-to-back and overlapping echoes become one.
        assert_eq!(
            s("sk-ZQX7vK93pAbCdEfFs6Ask-ZQX7vK93pAbCdEfFs6A!"),
            "[redacted]!"
        );
        assert_eq!(
            s("[sk-ZQX7vK] and [EdEfFs6A]"),
            "[[redacted]] and [EdEfFs6A]"
        );
        // Broken up by control or zero-width characters, with text in any script around.
        assert_eq!(s("ключ sk-ZQX\u{7}7vK9\u{200b}3pA ✓"), "ключ [redacted] ✓");
        // A short key: whole matches only.
        let short = ApiKey::new("abc123");
        assert_eq!(scrub("abc123 abc12", Some(&short)), "[redacted] abc12");
        assert_eq!(scrub("anything", None), "anything");
    }

    /// Regression (a hostile probe): a model answer whose JSON puts `\u200b` escapes
    /// between a key's characters left 17 characters of the key in `subconscious.json`
    /// and the journal (the JSON is unescaped after the scrub).
    #[test]
    fn keys_spelled_with_json_escapes_are_scrubbed() {
        let k = ApiKey::new("sk-ZQX7vK93pAbCdEfFs6A");
        let s = |t: &str| scrub(t, Some(&k));
        let cases = [
            r#"{"summary": "key sk-\u200bZQX7\u200bvK93\u200bpAbC\u200bdEfFs6A"}"#,
            r#"{"summary": "\u0073\u006b-ZQX7vK93pAbCd"}"#,
            r#"{"summary": "sk-ZQX\n7vK9\t3pA"}"#,
            r#"{"summary": "sk-ZQX\udb40\udc417vK93pA"}"#,
        ];
        for text in cases {
            let out = s(text);
            assert!(out.contains(REDACTED), "{text} → {out}");
            let value: serde_json::Value = serde_json::from_str(&out).unwrap();
            let read = untrusted::clean(value["summary"].as_str().unwrap());
            assert!(!read.contains("ZQX7vK9"), "{text} → {read}");
        }
        // Escapes that spell nothing of the key are left as they are.
        let plain = r#"{"a": "caf\u00e9 \"quoted\" \\ path"}"#;
        assert_eq!(s(plain), plain);
    }

    #[test]
    fn quoting_scrubs_what_cleaning_joins() {
        let k = ApiKey::new("sk-ZQX7vK93pAbCdEfFs6A");
        let quoted = quote(
            &format!("{}  {}", "x".repeat(190), "sk-ZQX7vK93pAbCd"),
            Some(&k),
        );
        assert!(!quoted.contains("sk-ZQX7v"), "{quoted}");
    }

    /// Regression (issue 30): another provider's key in an error body was journaled
    /// verbatim.
    #[test]
    fn quoting_masks_any_key_shape() {
        let k = ApiKey::new("sk-ZQX7vK93pAbCdEfFs6A");
        let body = r#"{"error": "upstream groq refused gsk_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 (and r8_AbCdEfGhIjKlMnOpQrStUvWxYz01234)"}"#;
        let quoted = quote(body, Some(&k));
        assert!(
            !quoted.contains("gsk_Ab") && !quoted.contains("r8_Ab") && quoted.contains("<secret>"),
            "{quoted}"
        );
    }

    #[test]
    fn quotes_are_cut_clean_lines() {
        let quoted = quote(&format!("a\x1b[31m\n\n b {}", "x".repeat(500)), None);
        assert!(quoted.starts_with("a b xxx"), "{quoted}");
        assert_eq!(quoted.chars().count(), EXCERPT_CHARS + 1);
        assert!(quoted.ends_with('…'));
    }
}
