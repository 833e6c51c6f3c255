//! Redaction of personal data and secrets from text sent to a third party: e-mail
//! addresses, phone numbers, card numbers (Luhn-checked), IBANs (mod-97-checked) and
//! API-key and token shapes become placeholders (`<email-1>`, `<phone-2>`, `<card-1>`,
//! `<iban-1>`, `<secret-1>`).
//!
//! A [`Redactor`] numbers what it has seen: the same value gets the same placeholder
//! for as long as the redactor lives (one tick: create one per tick and pass it to every
//! call that leaves the machine), so threads can still tell two people apart without
//! learning who they are. Placeholders never look like anything redactable, so
//! redacting redacted text changes nothing.
//!
//! Pure: no I/O, no logging of what it redacts. Must not decide which provider gets
//! redacted text (that is the caller's: `redact = false` per provider).

use std::collections::HashMap;
use std::fmt;
use std::sync::{LazyLock, OnceLock};

use aho_corasick::AhoCorasick;

use regex::Regex;

use super::gates;
use super::screen::gate;

/// What a redacted value was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    Email,
    Phone,
    Card,
    Iban,
    Secret,
}

impl Class {
    /// The placeholder's word (`email` in `<email-1>`).
    pub fn word(self) -> &'static str {
        match self {
            Class::Email => "email",
            Class::Phone => "phone",
            Class::Card => "card",
            Class::Iban => "iban",
            Class::Secret => "secret",
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// Redacts text, numbering what it has seen (see the module doc).
#[derive(Debug, Default, Clone)]
pub struct Redactor {
    seen: HashMap<(Class, String), usize>,
    counts: HashMap<Class, usize>,
}

/// One redactable value found in a text.
struct Found {
    class: Class,
    start: usize,
    end: usize,
    /// What identifies the value (so `A@x.com` and `a@x.com` are one person).
    key: String,
}

/// Key and token shapes: private keys, then the prefixed tokens of the common services.
pub(super) const SECRET_PATTERN: &str = concat!(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\z)",
    r"|(?-u:\b)(?:sk-(?:proj-|ant-(?:api[0-9][0-9]-)?|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}|glpat-[A-Za-z0-9_-]{20,}",
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}|xox[abposr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}",
    r"|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{36}",
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})",
);

/// A value next to a key, token, secret or password word (`api_key = "…"`, `Bearer …`).
pub(super) const SECRET_VALUE_PATTERN: &str = r#"(?i)(?:(?:api[_-]?key|apikey|access[_-]?key|secret(?:[_-]?key)?|client[_-]?secret|token|access[_-]?token|auth[_-]?token|password|passwd|pwd|private[_-]?key)["']?\s*[:=]\s*["']?|bearer\s+|authorization:\s*(?:basic|bearer)?\s*)([A-Za-z0-9_\-+/=.~]{12,})"#;

/// The two secret patterns, each built the first time a text gets past its gate (the
/// literals every match contains, generated in `gates`): most texts hold none, and
/// masking them builds nothing.
pub(super) static SECRET: Gated = Gated::new(SECRET_PATTERN, gates::SECRET);
pub(super) static SECRET_VALUE: Gated = Gated::new(SECRET_VALUE_PATTERN, gates::SECRET_VALUE);

/// A regex behind a gate of literals (see [`SECRET`]).
pub(super) struct Gated {
    pattern: &'static str,
    literals: &'static [&'static [u8]],
    gate: OnceLock<Option<AhoCorasick>>,
    regex: OnceLock<Option<Regex>>,
}

impl Gated {
    /// For tests: whether the gate lets `text` through wherever the pattern matches it
    /// (`Some(matched)`), or stops a text the pattern matches (`None`).
    #[cfg(test)]
    pub(super) fn sound_for(&self, text: &str) -> Option<bool> {
        let matched = Regex::new(self.pattern).ok()?.is_match(text);
        let passes = gate(self.literals.iter().copied()).is_none_or(|g| g.is_match(text));
        (!matched || passes).then_some(matched)
    }

    const fn new(pattern: &'static str, literals: &'static [&'static [u8]]) -> Gated {
        Gated {
            pattern,
            literals,
            gate: OnceLock::new(),
            regex: OnceLock::new(),
        }
    }

    /// The regex if `text` gets past the gate (built now if it was not), else `None`.
    fn for_text(&self, text: &str) -> Option<&Regex> {
        let gate = self
            .gate
            .get_or_init(|| gate(self.literals.iter().copied()));
        if gate.as_ref().is_some_and(|g| !g.is_match(text)) {
            return None;
        }
        self.regex
            .get_or_init(|| Regex::new(self.pattern).ok())
            .as_ref()
    }
}

static EMAIL: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)(?-u:\b)[a-z0-9][a-z0-9._%+-]*@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\.[a-z]{2,24}(?-u:\b)").ok()
});

static IBAN: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?-u:\b)").ok()
});

/// Card shapes: 13 to 19 digits in one run, in groups of four (the last shorter), or
/// Amex's 4-6-5.
static CARD: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?-u:\b)(?:[0-9]{13,19}|[0-9]{4}(?:[ -][0-9]{4}){2}[ -][0-9]{1,7}|[0-9]{4}[ -][0-9]{6}[ -][0-9]{5})(?-u:\b)",
    )
    .ok()
});

/// Phone shapes: international (`+49 30 1234567`, `+1 (555) 123-4567`), national with a
/// trunk zero (`030 1234 5678`, `06 12 34 56 78`), North American (`(555) 123-4567`,
/// `555-123-4567`). Dates, versions and ids do not start with `+`, `(` or `0` and
/// a group of digits, or have too few digits.
static PHONE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(concat!(
        r"\+[0-9]{1,3}(?:[ .-]?\(?[0-9]{1,4}\)?){2,5}(?-u:\b)",
        r"|(?-u:\b)0[0-9]{1,4}(?:[ /-][0-9]{2,8}){1,4}(?-u:\b)",
        r"|\([0-9]{3}\) ?[0-9]{3}[ .-][0-9]{4}(?-u:\b)",
        r"|(?-u:\b)[0-9]{3}-[0-9]{3}-[0-9]{4}(?-u:\b)",
    ))
    .ok()
});

impl Redactor {
    /// A redactor that has seen nothing yet.
    pub fn new() -> Redactor {
        Redactor::default()
    }

    /// `text` with every redactable value replaced by its placeholder.
    ///
    /// A value that overlapped another one can stand alone once that one is a
    /// placeholder (`ghp_…sk-proj-…ana@example.org`: the address after the token), so
    /// the text is redacted again until nothing changes (at most `MAX_PASSES` times;
    /// a text with nothing redactable is read once).
    pub fn redact(&mut self, text: &str) -> String {
        let mut out = self.redact_once(text);
        if out == text {
            return out;
        }
        for _ in 1..MAX_PASSES {
            let next = self.redact_once(&out);
            if next == out {
                break;
            }
            out = next;
        }
        out
    }

    fn redact_once(&mut self, text: &str) -> String {
        let found = find(text);
        if found.is_empty() {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for f in found {
            out.push_str(&text[at..f.start]);
            let placeholder = self.placeholder(f.class, f.key);
            out.push_str(&placeholder);
            at = f.end;
        }
        out.push_str(&text[at..]);
        out
    }

    /// How many distinct values of `class` this redactor has replaced.
    pub fn count(&self, class: Class) -> usize {
        self.counts.get(&class).copied().unwrap_or(0)
    }

    fn placeholder(&mut self, class: Class, key: String) -> String {
        let n = if let Some(&n) = self.seen.get(&(class, key.clone())) {
            n
        } else {
            let n = self.counts.entry(class).or_insert(0);
            *n += 1;
            let n = *n;
            self.seen.insert((class, key), n);
            n
        };
        format!("<{}-{n}>", class.word())
    }
}

/// `text` with every key or token shape replaced by `<secret>` (no numbering, no
/// state): for evidence and messages that must never carry a secret, such as a
/// detection's excerpt of a URL that carries a key.
/// Repeated like [`Redactor::redact`] until nothing changes.
pub fn mask_secrets(text: &str) -> String {
    let mut out = mask_once(text);
    if out == text {
        return out;
    }
    for _ in 1..MAX_PASSES {
        let next = mask_once(&out);
        if next == out {
            break;
        }
        out = next;
    }
    out
}

/// How many times a text is redacted (or masked) at most, until nothing changes.
const MAX_PASSES: usize = 4;

fn mask_once(text: &str) -> String {
    let found = find_secrets(text);
    if found.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for f in found {
        out.push_str(&text[at..f.start]);
        out.push_str("<secret>");
        at = f.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Whether `text` holds anything [`Redactor::redact`] would replace.
pub fn has_redactable(text: &str) -> bool {
    !find(text).is_empty()
}

/// Every redactable value in `text`, in order, none overlapping (secrets first, then
/// e-mail addresses, IBANs, cards, phones).
fn find(text: &str) -> Vec<Found> {
    let mut found = find_secrets(text);
    if let Some(re) = EMAIL.as_ref() {
        for m in re.find_iter(text) {
            add(
                found_at(Class::Email, m.start(), m.end(), &m.as_str().to_lowercase()),
                &mut found,
            );
        }
    }
    if let Some(re) = IBAN.as_ref() {
        for m in re.find_iter(text) {
            let compact: String = m.as_str().chars().filter(|c| *c != ' ').collect();
            if iban_valid(&compact) {
                add(
                    found_at(Class::Iban, m.start(), m.end(), &compact),
                    &mut found,
                );
            }
        }
    }
    if let Some(re) = CARD.as_ref() {
        for m in re.find_iter(text) {
            let digits: String = m.as_str().chars().filter(char::is_ascii_digit).collect();
            let after_iban_head = text[..m.start()]
                .trim_end()
                .rsplit(' ')
                .next()
                .is_some_and(|w| w.len() == 4 && w[..2].bytes().all(|b| b.is_ascii_uppercase()));
            if (13..=19).contains(&digits.len()) && luhn_valid(&digits) && !after_iban_head {
                add(
                    found_at(Class::Card, m.start(), m.end(), &digits),
                    &mut found,
                );
            }
        }
    }
    if let Some(re) = PHONE.as_ref() {
        for m in re.find_iter(text) {
            let digits: String = m.as_str().chars().filter(char::is_ascii_digit).collect();
            if (8..=15).contains(&digits.len())
                && !looks_like_date(m.as_str())
                && !glued_to_digits(text, m.start(), m.end())
            {
                add(
                    found_at(Class::Phone, m.start(), m.end(), &digits),
                    &mut found,
                );
            }
        }
    }
    found.sort_by_key(|f| f.start);
    found
}

/// The key and token shapes in `text`, in order, none overlapping: what [`find`] finds
/// first, and all that masking needs (so masking never builds the other patterns).
fn find_secrets(text: &str) -> Vec<Found> {
    let mut found: Vec<Found> = Vec::new();
    if let Some(re) = SECRET.for_text(text) {
        for m in re.find_iter(text) {
            add(
                found_at(Class::Secret, m.start(), m.end(), m.as_str()),
                &mut found,
            );
        }
    }
    if let Some(re) = SECRET_VALUE.for_text(text) {
        for c in re.captures_iter(text) {
            if let Some(v) = c.get(1).filter(|v| looks_secret(v.as_str())) {
                add(
                    found_at(Class::Secret, v.start(), v.end(), v.as_str()),
                    &mut found,
                );
            }
        }
    }
    found.sort_by_key(|f| f.start);
    found
}

/// Adds `f` unless it overlaps a value found before it.
fn add(f: Found, found: &mut Vec<Found>) {
    if !found.iter().any(|o| o.start < f.end && f.start < o.end) {
        found.push(f);
    }
}

fn found_at(class: Class, start: usize, end: usize, key: &str) -> Found {
    Found {
        class,
        start,
        end,
        key: key.to_string(),
    }
}

/// A value next to a key word is a secret when it mixes character classes (not a word
/// like `reset` or `required`, not a placeholder like `<secret-1>`).
fn looks_secret(v: &str) -> bool {
    let lower = v.bytes().any(|b| b.is_ascii_lowercase());
    let upper = v.bytes().any(|b| b.is_ascii_uppercase());
    let digit = v.bytes().any(|b| b.is_ascii_digit());
    let classes = usize::from(lower) + usize::from(upper) + usize::from(digit);
    classes >= 2 && v.len() >= 12 || v.len() >= 24 && (digit || upper)
}

/// Whether a match is part of a longer run of digit groups (an account number, an id):
/// a digit right before or after it, or one separator away.
fn glued_to_digits(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].bytes().rev().take(2).collect::<Vec<_>>();
    let after = text[end..].bytes().take(2).collect::<Vec<_>>();
    let near = |bytes: &[u8]| match bytes {
        [d, ..] if d.is_ascii_digit() => true,
        [b' ' | b'-' | b'/' | b'.', d, ..] => d.is_ascii_digit(),
        _ => false,
    };
    near(&before) || near(&after)
}

/// Dates such as `2024-01-15` or `01/02/2024` in a phone-shaped match.
fn looks_like_date(s: &str) -> bool {
    let groups: Vec<&str> = s.split(['-', '/', '.', ' ']).collect();
    groups.len() == 3
        && groups.iter().any(|g| g.len() == 4)
        && groups.iter().filter(|g| g.len() <= 2).count() == 2
}

/// The Luhn check of a card number's digits.
pub fn luhn_valid(digits: &str) -> bool {
    let mut sum = 0;
    for (i, b) in digits.bytes().rev().enumerate() {
        let mut d = u32::from(b.wrapping_sub(b'0'));
        if d > 9 {
            return false;
        }
        if i % 2 == 1 {
            d *= 2;
            if d > 9 {
                d -= 9;
            }
        }
        sum += d;
    }
    !digits.is_empty() && sum % 10 == 0
}

/// The ISO 13616 check of an IBAN without spaces: 15 to 34 characters, mod 97 = 1.
pub fn iban_valid(iban: &str) -> bool {
    if !(15..=34).contains(&iban.len()) || !iban.is_ascii() {
        return false;
    }
    let (head, tail) = iban.split_at(4);
    let mut rem: u32 = 0;
    for c in tail.chars().chain(head.chars()) {
        let v = match c {
            '0'..='9' => c as u32 - '0' as u32,
            'A'..='Z' => c as u32 - 'A' as u32 + 10,
            _ => return false,
        };
        rem = if v >= 10 {
            (rem * 100 + v) % 97
        } else {
            (rem * 10 + v) % 97
        };
    }
    rem == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (fuzz): a value that overlapped a key shape (an address glued to a
    /// token) was left in, and redacting the result took it: redaction was not
    /// idempotent.
    #[test]
    fn a_value_freed_by_a_placeholder_is_redacted_too() {
        let text = "ghp_abcdefghijklmnopqrstuvwxyz0123456789sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ana@example.org";
        let mut r = Redactor::new();
        let once = r.redact(text);
        assert_eq!(r.redact(&once), once);
        assert!(!has_redactable(&once), "{once}");
        let masked = mask_secrets(text);
        assert_eq!(mask_secrets(&masked), masked);
    }

    #[test]
    fn classes_and_stable_placeholders() {
        let mut r = Redactor::new();
        let text = "Ana <ana@example.org> and bob@example.net; again ANA@example.org";
        assert_eq!(
            r.redact(text),
            "Ana <<email-1>> and <email-2>; again <email-1>"
        );
        assert_eq!(r.redact("bob@example.net"), "<email-2>");
        assert_eq!(r.count(Class::Email), 2);
    }

    #[test]
    fn checked_numbers_only() {
        let mut r = Redactor::new();
        assert_eq!(r.redact("card 4111 1111 1111 1111 ok"), "card <card-1> ok");
        assert_eq!(
            r.redact("order 4111 1111 1111 1112"),
            "order 4111 1111 1111 1112"
        );
        assert_eq!(
            r.redact("IBAN DE89 3704 0044 0532 0130 00."),
            "IBAN <iban-1>."
        );
        assert_eq!(
            r.redact("ref DE89 3704 0044 0532 0130 01"),
            "ref DE89 3704 0044 0532 0130 01"
        );
    }

    #[test]
    fn phones_but_not_dates_or_versions() {
        let mut r = Redactor::new();
        assert_eq!(r.redact("call +49 30 1234567 now"), "call <phone-1> now");
        assert_eq!(r.redact("or (555) 123-4567"), "or <phone-2>");
        assert_eq!(r.redact("or 06 12 34 56 78"), "or <phone-3>");
        for keep in [
            "on 2024-01-15",
            "v1.2.3456",
            "id 12345678",
            "01/02/2024",
            "10:30-11:45",
        ] {
            assert_eq!(r.redact(keep), keep);
        }
    }

    #[test]
    fn keys_and_tokens() {
        let mut r = Redactor::new();
        let text = "OPENAI=sk-proj-abcdefghijklmnopqrstuv12 gh ghp_0123456789abcdefghijABCDEFGHIJklmn \
                    aws AKIAIOSFODNN7EXAMPLE api_key: \"Zx8fQ2mN7pL4kR9s\" password reset";
        let out = r.redact(text);
        assert_eq!(
            out,
            "OPENAI=<secret-1> gh <secret-2> aws <secret-3> api_key: \"<secret-4>\" password reset"
        );
        assert_eq!(r.clone().redact(&out), out);
    }
}
