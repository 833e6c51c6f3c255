//! The names a redactor has learned from mail headers, kept keyed ([`KnownNames`]): a
//! name a header gave once (`From: Hannah Weber <…>`) is still a name when the mail has
//! left the inbox and only the memory written from it mentions "Hannah Weber".
//!
//! Nothing here holds a name in clear: each name is its placeholder (`<name-k3f9az>`,
//! itself a keyed hash) and the keyed hashes (HMAC-SHA256 with the state's
//! [`super::redact::RedactionKey`], cut to 64 bits) of its parts as a word is compared:
//! lowercase, and without accents (`jörg`, `jorg`, `joerg`), and the pieces of a
//! hyphenated part (`anna-lena`, `anna`, `lena`). A word of a text is a known name when
//! its hash is one of them. The state directory keeps them (`storage`), for as long as
//! the memory or the archive mentions a word of the name ([`KnownNames::retain`]).
//!
//! Pure: no I/O, no logging. Must not decide where a name may go (that is `privacy`'s
//! and `egress`'s).

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

/// The names learned from headers, keyed (see the module doc). Written to the state
/// directory as it serializes.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct KnownNames {
    #[serde(default)]
    version: u32,
    #[serde(default)]
    names: Vec<KnownName>,
    /// Part hash → index into `names`.
    #[serde(skip)]
    index: HashMap<u64, usize>,
}

impl PartialEq for KnownNames {
    fn eq(&self, other: &KnownNames) -> bool {
        self.names == other.names
    }
}

/// One name: its placeholder and the hashes of its parts.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct KnownName {
    placeholder: String,
    /// 16 hex digits each.
    parts: BTreeSet<String>,
    /// Learned by this process (from a text it was given), not only loaded.
    #[serde(skip)]
    learned: bool,
}

impl PartialEq for KnownName {
    /// What is kept: whether this process learned it is not.
    fn eq(&self, other: &KnownName) -> bool {
        self.placeholder == other.placeholder && self.parts == other.parts
    }
}

/// The version [`KnownNames`] is written with.
const VERSION: u32 = 1;

/// At most this many names are kept (the least recently learned go first): a bound on
/// the file and on the work of finding them.
pub const MAX_NAMES: usize = 4096;

impl KnownNames {
    /// Whether no name is known.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// How many names are known.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Reads what [`KnownNames::to_json`] wrote; `None` when it is not that.
    pub fn from_json(text: &str) -> Option<KnownNames> {
        let mut names: KnownNames = serde_json::from_str(text).ok()?;
        let valid = names.version <= VERSION
            && names.names.iter().all(|n| {
                n.placeholder.starts_with("<name-")
                    && n.parts.iter().all(|p| u64::from_str_radix(p, 16).is_ok())
            });
        if !valid {
            return None;
        }
        names.version = VERSION;
        names.reindex();
        Some(names)
    }

    /// The file's text.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        let mut text = serde_json::to_string_pretty(&KnownNames {
            version: VERSION,
            names: self.names.clone(),
            index: HashMap::new(),
        })?;
        text.push('\n');
        Ok(text)
    }

    fn reindex(&mut self) {
        self.index.clear();
        for (i, n) in self.names.iter().enumerate() {
            for p in &n.parts {
                if let Ok(h) = u64::from_str_radix(p, 16) {
                    self.index.insert(h, i);
                }
            }
        }
    }

    /// The placeholder of the name one of whose parts hashes to `hash`.
    pub(super) fn placeholder(&self, hash: u64) -> Option<&str> {
        self.index
            .get(&hash)
            .and_then(|&i| self.names.get(i))
            .map(|n| n.placeholder.as_str())
    }

    /// Adds (or refreshes) a name learned now: `placeholder` and its parts' hashes.
    pub(super) fn learn(&mut self, placeholder: String, parts: impl IntoIterator<Item = u64>) {
        let parts: BTreeSet<String> = parts.into_iter().map(|h| format!("{h:016x}")).collect();
        if parts.is_empty() {
            return;
        }
        match self.names.iter().position(|n| n.placeholder == placeholder) {
            Some(i) => {
                let mut n = self.names.remove(i);
                n.parts.extend(parts);
                n.learned = true;
                self.names.push(n);
            }
            None => self.names.push(KnownName {
                placeholder,
                parts,
                learned: true,
            }),
        }
        if self.names.len() > MAX_NAMES {
            let excess = self.names.len() - MAX_NAMES;
            self.names.drain(..excess);
        }
        self.reindex();
    }

    /// Keeps the names learned by this process and those one of whose part hashes is in
    /// `seen` (the hashes of the words of the memory and the archive): a name is kept
    /// for as long as anything that mentions it is remembered.
    pub fn retain(&mut self, seen: &std::collections::HashSet<u64>) {
        self.names.retain(|n| {
            n.learned
                || n.parts
                    .iter()
                    .any(|p| u64::from_str_radix(p, 16).is_ok_and(|h| seen.contains(&h)))
        });
        self.reindex();
    }
}

/// The forms of a word a name's part is kept under and a word is looked up as:
/// lowercase, then without accents, then with German umlauts spelled out (`jörg`, `jorg`,
/// `joerg`); distinct.
pub(super) fn forms(word: &str) -> Vec<String> {
    let lower = word.to_lowercase();
    let mut out = vec![lower.clone()];
    if !lower.is_ascii() {
        let (bare, spelled) = unaccent(&lower);
        for f in [bare, spelled] {
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
    out
}

/// `text` (lowercase) without accents (`ö` → `o`), and with German umlauts spelled out
/// (`ö` → `oe`, `ß` → `ss`).
fn unaccent(text: &str) -> (String, String) {
    let mut bare = String::with_capacity(text.len());
    let mut spelled = String::with_capacity(text.len());
    for c in text.chars() {
        let (b, s) = match c {
            'ä' => ("a", "ae"),
            'ö' => ("o", "oe"),
            'ü' => ("u", "ue"),
            'ß' => ("ss", "ss"),
            'à' | 'á' | 'â' | 'ã' | 'å' | 'ā' | 'ă' | 'ą' => ("a", "a"),
            'æ' => ("ae", "ae"),
            'ç' | 'ć' | 'č' => ("c", "c"),
            'ď' | 'đ' => ("d", "d"),
            'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ė' | 'ę' | 'ě' => ("e", "e"),
            'ì' | 'í' | 'î' | 'ï' | 'ī' | 'į' | 'ı' => ("i", "i"),
            'ł' | 'ľ' | 'ĺ' => ("l", "l"),
            'ñ' | 'ń' | 'ň' => ("n", "n"),
            'ò' | 'ó' | 'ô' | 'õ' | 'ø' | 'ō' | 'ő' => ("o", "o"),
            'œ' => ("oe", "oe"),
            'ř' | 'ŕ' => ("r", "r"),
            'ś' | 'š' | 'ş' | 'ș' => ("s", "s"),
            'ť' | 'ţ' | 'ț' => ("t", "t"),
            'ù' | 'ú' | 'û' | 'ū' | 'ů' | 'ű' | 'ų' => ("u", "u"),
            'ý' | 'ÿ' => ("y", "y"),
            'ź' | 'ż' | 'ž' => ("z", "z"),
            c => {
                bare.push(c);
                spelled.push(c);
                continue;
            }
        };
        bare.push_str(b);
        spelled.push_str(s);
    }
    (bare, spelled)
}

/// The words of a name's part that are kept: the part, and the pieces of a hyphenated
/// one of 3 letters or more (`Anna-Lena`: `anna-lena`, `anna`, `lena`), in every form.
pub(super) fn part_words(part: &str) -> Vec<String> {
    let mut words = forms(part);
    if part.contains('-') {
        for piece in part.split('-').filter(|p| p.chars().count() >= 3) {
            for f in forms(piece) {
                if !words.contains(&f) {
                    words.push(f);
                }
            }
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_fold_case_and_accents() {
        assert_eq!(forms("Jörg"), ["jörg", "jorg", "joerg"]);
        assert_eq!(forms("Weber"), ["weber"]);
        assert_eq!(part_words("Anna-Lena"), ["anna-lena", "anna", "lena"]);
    }

    #[test]
    fn the_file_reads_back_and_refuses_what_is_not_it() {
        let mut names = KnownNames::default();
        names.learn("<name-abcdef>".into(), [1, 2]);
        names.learn("<name-ghijkm>".into(), [3]);
        let text = names.to_json().unwrap();
        assert!(text.contains("\"0000000000000001\""), "{text}");
        let back = KnownNames::from_json(&text).unwrap();
        assert_eq!(back, names);
        assert_eq!(back.placeholder(3), Some("<name-ghijkm>"));
        assert_eq!(back.placeholder(4), None);
        assert!(
            KnownNames::from_json("{\"names\": [{\"placeholder\": \"Hannah\", \"parts\": []}]}")
                .is_none()
        );
        assert!(KnownNames::from_json("{\"names\": 3}").is_none());
        assert!(KnownNames::from_json("Hannah Weber").is_none());
    }

    #[test]
    fn names_are_kept_while_learned_or_mentioned() {
        let mut loaded = KnownNames::from_json(&{
            let mut n = KnownNames::default();
            n.learn("<name-aaaaaa>".into(), [1]);
            n.learn("<name-bbbbbb>".into(), [2]);
            n.to_json().unwrap()
        })
        .unwrap();
        loaded.learn("<name-cccccc>".into(), [3]);
        loaded.retain(&[2].into_iter().collect());
        let kept: Vec<&str> = loaded
            .names
            .iter()
            .map(|n| n.placeholder.as_str())
            .collect();
        assert_eq!(kept, ["<name-bbbbbb>", "<name-cccccc>"]);
    }
}
