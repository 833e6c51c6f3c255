//! Summary normalization and token similarity.
//!
//! Owns the stop-word list, the tokenizer (entry ids are made from its tokens) and the
//! plain token Jaccard similarity the `archive` source uses. Whether two reports are one
//! fact is no longer decided here: that is `aggregate::identity` (SPEC §7.2). Pure
//! functions.

use std::cmp::Ordering;

/// Words that carry no meaning for matching.
pub const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "by",
    "from", "is", "are", "was", "were", "be", "been", "being", "it", "its", "this", "that",
    "these", "those", "as", "into", "about", "over", "than", "then", "there", "their", "they",
    "we", "you", "i", "he", "she", "his", "her", "our", "your", "my", "me", "us", "not", "no",
    "so", "if",
];

/// Whether `word` (lowercase) is one of [`STOP_WORDS`]; a `match` the compiler turns into
/// a length switch, far cheaper than scanning the list.
fn is_stop_word(word: &str) -> bool {
    matches!(
        word,
        "a" | "an"
            | "the"
            | "and"
            | "or"
            | "but"
            | "of"
            | "to"
            | "in"
            | "on"
            | "at"
            | "for"
            | "with"
            | "by"
            | "from"
            | "is"
            | "are"
            | "was"
            | "were"
            | "be"
            | "been"
            | "being"
            | "it"
            | "its"
            | "this"
            | "that"
            | "these"
            | "those"
            | "as"
            | "into"
            | "about"
            | "over"
            | "than"
            | "then"
            | "there"
            | "their"
            | "they"
            | "we"
            | "you"
            | "i"
            | "he"
            | "she"
            | "his"
            | "her"
            | "our"
            | "your"
            | "my"
            | "me"
            | "us"
            | "not"
            | "no"
            | "so"
            | "if"
    )
}

/// Calls `f` with each meaningful token of `summary`, lowercase, in order.
fn for_each_token(summary: &str, mut f: impl FnMut(&str)) {
    let mut word = String::new();
    for raw in summary.split(|c: char| !c.is_alphanumeric()) {
        if raw.is_empty() {
            continue;
        }
        word.clear();
        if raw.is_ascii() {
            word.push_str(raw);
            word.make_ascii_lowercase();
        } else {
            word.extend(raw.chars().flat_map(char::to_lowercase));
        }
        if word.chars().nth(1).is_some() && !is_stop_word(&word) {
            f(&word);
        }
    }
}

/// The meaningful tokens of a summary, in order, duplicates kept: lowercase, split on
/// anything not alphanumeric, one-character tokens and stop words dropped.
pub fn tokens(summary: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_token(summary, |t| out.push(t.to_string()));
    out
}

/// FNV-1a: a fixed, fast hash, so token sets compare as integers. Two different words
/// share a 64-bit hash with a probability of about 2^-64 per pair.
fn fnv1a(word: &str) -> u64 {
    word.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The ASCII fast path of [`TokenSet::new`]: the same tokens as [`for_each_token`]
/// (ASCII alphanumerics, lowercased), hashed as they are read, with no allocation.
fn ascii_token_hashes(bytes: &[u8], out: &mut Vec<u64>) {
    const LONGEST_STOP_WORD: usize = 5;
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    let mut len = 0;
    let mut short = [0u8; LONGEST_STOP_WORD];
    let mut finish = |hash: u64, len: usize, short: &[u8; LONGEST_STOP_WORD]| {
        let is_stop =
            len <= LONGEST_STOP_WORD && std::str::from_utf8(&short[..len]).is_ok_and(is_stop_word);
        if len > 1 && !is_stop {
            out.push(hash);
        }
    };
    for &b in bytes {
        if b.is_ascii_alphanumeric() {
            let lower = b.to_ascii_lowercase();
            hash = (hash ^ u64::from(lower)).wrapping_mul(0x0100_0000_01b3);
            if len < LONGEST_STOP_WORD {
                short[len] = lower;
            }
            len += 1;
        } else if len > 0 {
            finish(hash, len, &short);
            hash = 0xcbf2_9ce4_8422_2325;
            len = 0;
        }
    }
    if len > 0 {
        finish(hash, len, &short);
    }
}

/// The set of tokens of a summary, ready for [`similarity`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenSet(Vec<u64>);

impl TokenSet {
    pub fn new(summary: &str) -> TokenSet {
        let mut t = Vec::with_capacity(12);
        if summary.is_ascii() {
            ascii_token_hashes(summary.as_bytes(), &mut t);
        } else {
            for_each_token(summary, |w| t.push(fnv1a(w)));
        }
        t.sort_unstable();
        t.dedup();
        TokenSet(t)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Jaccard similarity as an exact fraction `shared / union`, so that ties compare exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Similarity {
    pub shared: usize,
    pub union: usize,
}

impl Similarity {
    pub const ZERO: Similarity = Similarity {
        shared: 0,
        union: 1,
    };

    pub fn value(self) -> f64 {
        self.shared as f64 / self.union as f64
    }

    /// Whether this similarity reaches `threshold` (e.g. 0.6).
    pub fn reaches(self, threshold: f64) -> bool {
        self.shared > 0 && self.value() >= threshold
    }
}

impl PartialOrd for Similarity {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Similarity {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.shared * other.union).cmp(&(other.shared * self.union))
    }
}

/// Jaccard similarity of two token sets; two empty sets are not similar at all.
pub fn similarity(a: &TokenSet, b: &TokenSet) -> Similarity {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < a.0.len() && j < b.0.len() {
        match a.0[i].cmp(&b.0[j]) {
            Ordering::Less => i += 1,
            Ordering::Greater => j += 1,
            Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.0.len() + b.0.len() - shared;
    if union == 0 {
        Similarity::ZERO
    } else {
        Similarity { shared, union }
    }
}

/// Whether two summaries match at `threshold`.
pub fn matches(a: &str, b: &str, threshold: f64) -> bool {
    similarity(&TokenSet::new(a), &TokenSet::new(b)).reaches(threshold)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_drops_stop_words_short_tokens_and_punctuation() {
        assert_eq!(
            tokens("The invoice from ACME is 3 days overdue, again!"),
            vec!["invoice", "acme", "days", "overdue", "again"]
        );
        assert!(tokens("a I x of").is_empty());
    }

    #[test]
    fn stop_word_match_agrees_with_the_list() {
        for w in STOP_WORDS {
            assert!(is_stop_word(w), "{w}");
        }
        assert!(!is_stop_word("disk"));
        assert_eq!(tokens("Ärger ÜBER Straße"), vec!["ärger", "über", "straße"]);
    }

    #[test]
    fn ascii_fast_path_agrees_with_the_general_tokenizer() {
        for text in [
            "The DISK is full, 91%!",
            "a an I x9 xy-z",
            "über ÜBER disk",
            "",
            "  it's  ",
        ] {
            let mut general: Vec<u64> = tokens(text).iter().map(|w| fnv1a(w)).collect();
            general.sort_unstable();
            general.dedup();
            assert_eq!(TokenSet::new(text).0, general, "{text}");
        }
    }

    #[test]
    fn jaccard_threshold_is_inclusive() {
        // 3 shared of 5 in the union: exactly 0.6.
        let a = TokenSet::new("disk almost full backup");
        let b = TokenSet::new("disk almost full server");
        let s = similarity(&a, &b);
        assert_eq!((s.shared, s.union), (3, 5));
        assert!(s.reaches(0.6));
        assert!(!s.reaches(0.61));
    }

    #[test]
    fn empty_summaries_never_match() {
        assert!(!matches("the a", "of it", 0.0));
        assert!(!matches("", "", 0.6));
    }

    #[test]
    fn similarity_orders_exactly() {
        let two_thirds = Similarity {
            shared: 2,
            union: 3,
        };
        let four_sixths = Similarity {
            shared: 4,
            union: 6,
        };
        assert_eq!(two_thirds.cmp(&four_sixths), Ordering::Equal);
        assert!(
            Similarity {
                shared: 3,
                union: 4
            } > two_thirds
        );
    }
}
