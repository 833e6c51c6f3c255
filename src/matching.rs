//! Summary normalization and similarity (SPEC §7.2).
//!
//! Owns the stop-word list, the tokenizer and the Jaccard similarity that decide when a
//! finding is "the same thing" as an existing entry or another finding. Pure functions.

use std::cmp::Ordering;

/// Words that carry no meaning for matching.
pub const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "by",
    "from", "is", "are", "was", "were", "be", "been", "being", "it", "its", "this", "that",
    "these", "those", "as", "into", "about", "over", "than", "then", "there", "their", "they",
    "we", "you", "i", "he", "she", "his", "her", "our", "your", "my", "me", "us", "not", "no",
    "so", "if",
];

/// The meaningful tokens of a summary, in order, duplicates kept: lowercase, split on
/// anything not alphanumeric, one-character tokens and stop words dropped.
pub fn tokens(summary: &str) -> Vec<String> {
    summary
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| t.chars().count() > 1 && !STOP_WORDS.contains(t))
        .map(str::to_string)
        .collect()
}

/// The set of tokens of a summary, ready for [`similarity`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenSet(Vec<String>);

impl TokenSet {
    pub fn new(summary: &str) -> TokenSet {
        let mut t = tokens(summary);
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
