//! Entry ids as a redacting provider sees them ([`Aliases`]): an id is made of its
//! summary's first words (`t-hannah-weber-emailed`), so an id beside a redacted summary
//! would still carry the name the summary no longer shows. The redactor gives such an id
//! an alias made from the redacted words (`t-name-k3f9az-emailed`: the placeholder's
//! class and code in place of the name's words), the same in every call and tick, and
//! the provider's answer gets its ids back ([`Aliases::restore`]) before anything reads
//! it, so a `reinforce`, `link` or `retire` of the alias reaches the entry.
//!
//! Pure: no I/O. Must not decide which words are personal (that is `redact`'s).

use std::collections::BTreeMap;

/// The id-shaped words of `text`, as byte ranges: an entry id as the aggregator makes
/// them — a category prefix (`t-`, `p-`, `h-`, `i-`) and words of lowercase letters
/// (any script) and digits joined by `-` (SPEC §7.4) — not glued to a letter, digit,
/// `_` or `-` on either side (`t-foo-Bar` is not the id `t-foo`, `x-t-y` holds no id).
/// A scan, no regex: most texts have a `-`, and few an id.
pub(super) fn ids(text: &str) -> Vec<std::ops::Range<usize>> {
    let word = |c: char| c.is_alphanumeric() && !c.is_uppercase();
    let glued = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-');
    // Nor part of an address, a host or a path (`mutti@t-online.de`, `/srv/t-rex`).
    let inside =
        |c: Option<char>| glued(c) || c.is_some_and(|c| matches!(c, '@' | '.' | '/' | '\\'));
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(dash) = text[at..].find('-').map(|d| at + d) {
        at = dash + 1;
        let start = dash.saturating_sub(1);
        if dash == 0
            || !matches!(bytes[start], b't' | b'p' | b'h' | b'i')
            || inside(text[..start].chars().next_back())
        {
            continue;
        }
        // Words joined by single dashes, after the prefix.
        let mut end = dash;
        while text[end..].starts_with('-') {
            let len: usize = text[end + 1..]
                .chars()
                .take_while(|c| word(*c))
                .map(char::len_utf8)
                .sum();
            if len == 0 {
                break;
            }
            end += 1 + len;
        }
        if end == dash || glued(text[end..].chars().next()) || text[end..].starts_with('@') {
            continue;
        }
        found.push(start..end);
        at = end;
    }
    found
}

/// The aliases a call's texts were given: alias → the id it stands for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Aliases {
    originals: BTreeMap<String, String>,
    aliases: BTreeMap<String, String>,
}

impl Aliases {
    pub fn is_empty(&self) -> bool {
        self.originals.is_empty()
    }

    /// How many ids were aliased.
    pub fn len(&self) -> usize {
        self.originals.len()
    }

    /// The alias `id` was given, if it was.
    pub(super) fn alias_of(&self, id: &str) -> Option<&str> {
        self.aliases.get(id).map(String::as_str)
    }

    /// Whether `alias` is taken (by another id than `id`).
    pub(super) fn taken(&self, alias: &str, id: &str) -> bool {
        self.originals.get(alias).is_some_and(|o| o != id)
    }

    pub(super) fn insert(&mut self, alias: String, id: String) {
        self.aliases.insert(id.clone(), alias.clone());
        self.originals.insert(alias, id);
    }

    /// `text` (a provider's answer) with every alias, where it stands as an id of its
    /// own, replaced by the id it stands for.
    pub fn restore(&self, text: &str) -> String {
        if self.is_empty() {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for range in ids(text) {
            if let Some(id) = self.originals.get(&text[range.clone()]) {
                out.push_str(&text[at..range.start]);
                out.push_str(id);
                at = range.end;
            }
        }
        out.push_str(&text[at..]);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_whole_words_of_their_shape() {
        let text = "[t-hannah-weber-emailed] links p-backup-2; not t-foo-Bar, nor at-home, nor x_t-y, nor x-t-y, nor t-, nor a@t-online.de, nor t-x@y, but i-jörg-2";
        let found: Vec<&str> = ids(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(found, ["t-hannah-weber-emailed", "p-backup-2", "i-jörg-2"]);
        assert_eq!(ids("t-x").first(), Some(&(0..3)));
    }

    #[test]
    fn answers_get_their_ids_back() {
        let mut a = Aliases::default();
        a.insert(
            "t-name-k3f9az-emailed".into(),
            "t-hannah-weber-emailed".into(),
        );
        let answer = r#"{"reinforce": ["t-name-k3f9az-emailed"], "links": [{"a": "t-name-k3f9az-emailed-2", "b": "t-name-k3f9az-emailed"}]}"#;
        assert_eq!(
            a.restore(answer),
            r#"{"reinforce": ["t-hannah-weber-emailed"], "links": [{"a": "t-name-k3f9az-emailed-2", "b": "t-hannah-weber-emailed"}]}"#
        );
        assert!(a.taken("t-name-k3f9az-emailed", "t-other"));
        assert!(!a.taken("t-name-k3f9az-emailed", "t-hannah-weber-emailed"));
        assert_eq!(Aliases::default().restore("x"), "x");
    }
}
