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
use std::sync::LazyLock;

use regex::Regex;

/// An entry id as the aggregator makes them: a category prefix (`t-`, `p-`, `h-`,
/// `i-`) and lowercase words of any script joined by `-` (SPEC §7.4). Checked further by
/// [`ids`]: not part of a longer word.
static ID: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?-u:\b)[tphi]-[\p{Ll}\p{Lo}\p{Lm}\p{M}\p{Nd}]+(?:-[\p{Ll}\p{Lo}\p{Lm}\p{M}\p{Nd}]+)*",
    )
    .ok()
});

/// The id-shaped words of `text`, as byte ranges: not glued to a letter, digit, `_`
/// or `-` on either side (`t-foo-Bar` is not the id `t-foo`, `x-t-y` holds no id).
pub(super) fn ids(text: &str) -> Vec<std::ops::Range<usize>> {
    let Some(re) = ID.as_ref().filter(|_| text.contains('-')) else {
        return Vec::new();
    };
    re.find_iter(text)
        .filter(|m| {
            let glued =
                |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-');
            !glued(text[..m.start()].chars().next_back()) && !glued(text[m.end()..].chars().next())
        })
        .map(|m| m.range())
        .collect()
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
        let text = "[t-hannah-weber-emailed] links p-backup-2; not t-foo-Bar, nor at-home, nor x_t-y, nor x-t-y";
        let found: Vec<&str> = ids(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(found, ["t-hannah-weber-emailed", "p-backup-2"]);
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
