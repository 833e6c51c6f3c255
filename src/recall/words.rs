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
    "about", "again", "all", "also", "am", "any", "anybody", "anyone", "anything", "around",
    "ask", "asked", "bit", "can", "check", "come", "coming", "could", "did", "do", "does",
    "doing", "done", "else", "ever", "get", "give", "go", "goes", "going", "gone", "got",
    "had", "has", "have", "having", "hello", "help", "here", "hey", "hi", "how", "just",
    "know", "let", "lets", "like", "look", "made", "make", "many", "may", "might", "mine",
    "more", "most", "much", "must", "need", "needs", "now", "ok", "okay", "one", "ones",
    "other", "please", "quick", "quickly", "re", "really", "remember", "remind", "right",
    "said", "say", "see", "shall", "should", "show", "some", "something", "still", "sure",
    "tell", "thank", "thanks", "thing", "things", "think", "thinker", "through", "up",
    "very", "want", "wanted", "what", "whats", "when", "where", "whether", "which", "while",
    "who", "whom", "whose", "why", "will", "would", "yet", "ll", "ve",
];

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
            ("hospitalised", "hospitalis"),
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
        assert_eq!(terms("Did my rent payment go through?"), ["rent", "payment"]);
        assert_eq!(terms("What about the invoice?"), ["invoic"]);
        assert!(terms("what is it? a, I, x").is_empty());
    }
}
