//! Words as recall weighs them: a text split into lowercase alphanumeric words, stop
//! words ([`crate::matching`]'s, and the filler of questions: "what", "did", "anything",
//! "tell", …) and one-letter words left out, and each reduced to its stem by the Snowball
//! English (Porter2) stemmer, so that "payments", "paying" and "payment" meet.
//!
//! Pure: text in, words out.

use std::borrow::Cow;

use rust_stemmers::{Algorithm, Stemmer};

/// The filler of questions and requests: words that say how something is asked, not
/// what about. Besides [`crate::matching::STOP_WORDS`].
const FILLER: &[&str] = &[
    "about",
    "again",
    "all",
    "also",
    "am",
    "any",
    "anybody",
    "anyone",
    "anything",
    "around",
    "ask",
    "asked",
    "bit",
    "can",
    "check",
    "come",
    "coming",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "done",
    "else",
    "ever",
    "get",
    "give",
    "go",
    "goes",
    "going",
    "gone",
    "got",
    "had",
    "has",
    "have",
    "having",
    "hello",
    "help",
    "here",
    "hey",
    "hi",
    "how",
    "just",
    "know",
    "let",
    "lets",
    "like",
    "look",
    "made",
    "make",
    "many",
    "may",
    "might",
    "mine",
    "more",
    "most",
    "much",
    "must",
    "need",
    "needs",
    "now",
    "ok",
    "okay",
    "one",
    "ones",
    "other",
    "please",
    "quick",
    "quickly",
    "re",
    "really",
    "remember",
    "remind",
    "right",
    "said",
    "say",
    "see",
    "shall",
    "should",
    "show",
    "some",
    "something",
    "still",
    "sure",
    "tell",
    "thank",
    "thanks",
    "thing",
    "things",
    "think",
    "thinker",
    "through",
    "up",
    "very",
    "want",
    "wanted",
    "what",
    "whats",
    "when",
    "where",
    "whether",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "would",
    "yet",
    "ll",
    "ve",
    "out",
    "too",
    "always",
    "anyway",
    "yes",
    "am",
    "is",
    "isn",
    "don",
    "doesn",
    "didn",
    "won",
    "wasn",
];

/// Words so common in English that they say little about what a question is about
/// ("time", "down", "end", "work"): they count half in the question's weight, so that
/// "why is the internet down" is about the internet. Stems, as [`stem`] makes them.
const COMMON: &[&str] = &[
    "time", "day", "month", "year", "way", "peopl", "end", "start", "good", "bad", "new", "old",
    "big", "small", "long", "short", "high", "low", "late", "earli", "last", "next", "first",
    "second", "littl", "lot", "down", "run", "take", "put", "keep", "set", "use", "find", "turn",
    "move", "tri", "call", "feel", "seem", "real", "enough", "same", "differ", "abl", "part",
    "place", "case", "point", "number", "fact", "kind", "sort", "type", "alreadi", "never",
    "often", "sometim", "usual", "work", "happen", "best", "better", "great", "well", "mean",
    "thing", "world", "life", "hand", "home", "back", "left", "stuff", "sure", "night", "morn",
    "even", "write", "explain", "simpl", "give", "name", "read", "learn", "most", "less", "few",
    "each",
];

/// How much a question's word (a stem) weighs against the others: half for the
/// `COMMON` words, else whole.
pub fn weight(stem: &str) -> f64 {
    if COMMON.contains(&stem) { 0.5 } else { 1.0 }
}

/// Whether `word` (lowercase) carries no meaning for recall.
pub fn is_filler(word: &str) -> bool {
    crate::matching::STOP_WORDS.contains(&word) || FILLER.contains(&word)
}

/// The Porter2 stem of a lowercase word; numbers and words with digits stay whole.
pub fn stem(word: &str) -> String {
    if word.chars().any(|c| c.is_ascii_digit()) {
        return word.to_string();
    }
    match Stemmer::create(Algorithm::English).stem(word) {
        Cow::Borrowed(s) => s.to_string(),
        Cow::Owned(s) => s,
    }
}

/// The lowercase words of `text`, in order, duplicates kept (filler not removed).
pub fn raw_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The stems of `text`'s meaningful words, in order, duplicates kept.
pub fn terms(text: &str) -> Vec<String> {
    raw_words(text)
        .into_iter()
        .filter(|w| w.chars().nth(1).is_some() && !is_filler(w))
        .map(|w| stem(&w))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_meet_by_their_stem() {
        for (a, b) in [
            ("payments", "payment"),
            ("paying", "pay"),
            ("declined", "decline"),
            ("appointments", "appointment"),
            ("hospitalised", "hospitalise"),
            ("flights", "flight"),
            ("deploying", "deploy"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} {b}");
        }
        assert_eq!(stem("4411"), "4411");
        assert_ne!(stem("card"), stem("car"));
    }

    #[test]
    fn filler_and_short_words_are_left_out() {
        assert_eq!(
            terms("Did my rent payment go through?"),
            ["rent", "payment"]
        );
        assert_eq!(terms("What about the invoice?"), ["invoic"]);
        assert!(terms("what is it? a, I, x").is_empty());
    }
}
