//! The copies of a text the output check reads: its **view**, what a browser or a phone
//! shows (compatibility forms folded by NFKC: full-width `ｈｔｔｐｓ：／／` and `８３９２` are
//! ASCII, `ﬁ` is `fi`, mathematical letters are letters; the ideographic full stop `。`,
//! which IDNA reads as a dot, is `.`, as are the other dots UTS 46 maps; the division and
//! fraction slashes are `/`; invisible characters are gone), and its **words** (the view
//! lowercased, Latin letters without their accents, `ß` as `ss`), which the vocabulary
//! of [`super::vocab`] is written against. Also its sentences, and digits spelled out
//! as words (`four one five, five five five …`).
//!
//! Pure functions on strings.

use icu_normalizer::{ComposingNormalizerBorrowed, DecomposingNormalizerBorrowed};

use crate::untrusted::is_invisible;

/// What a browser or a phone shows of `text` (see the module doc).
pub fn view(text: &str) -> String {
    let nfkc = ComposingNormalizerBorrowed::new_nfkc().normalize(text);
    nfkc.chars()
        .filter(|&c| !is_invisible(c))
        .map(|c| match c {
            '\u{3002}' | '\u{ff61}' | '\u{fe12}' | '\u{fe52}' | '\u{2024}' => '.',
            '\u{2044}' | '\u{2215}' | '\u{29f8}' => '/',
            '\u{29f5}' | '\u{29f9}' => '\\',
            c => c,
        })
        .collect()
}

/// `view` lowercased, Latin letters without their accents, `ß` as `ss`.
pub fn words(view: &str) -> String {
    let nfd = DecomposingNormalizerBorrowed::new_nfd();
    let mut out = String::with_capacity(view.len());
    for c in view.chars().flat_map(char::to_lowercase) {
        match c {
            'ß' => out.push_str("ss"),
            '\u{c0}'..='\u{24f}' | '\u{1e00}'..='\u{1eff}' => {
                let mut buf = [0u8; 4];
                for d in nfd.normalize(c.encode_utf8(&mut buf)).chars() {
                    if !matches!(d, '\u{300}'..='\u{36f}') {
                        out.push(d);
                    }
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// The sentences of `words`: cut after `.` followed by white space, a non-ASCII
/// character or the end (not inside `4.950` or `acme.com`), and at `!`, `?`, `;` and line
/// breaks.
pub fn sentences(words: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = words.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let cut = match c {
            '!' | '?' | ';' | '\n' | '\r' => true,
            '.' => next.is_none_or(|n| n.is_whitespace() || !n.is_ascii()),
            _ => false,
        };
        if cut {
            let end = i + c.len_utf8();
            if words[start..end].trim().len() > 1 {
                out.push(&words[start..end]);
            }
            start = end;
        }
    }
    if !words[start..].trim().is_empty() {
        out.push(&words[start..]);
    }
    out
}

/// What a digit word stands for (`"five"` → `"5"`, `"hundred"` → `"00"` after a digit),
/// in the screen's languages that write digits as words.
fn digit_word(word: &str) -> Option<&'static str> {
    Some(match word {
        "zero" | "oh" | "null" | "cero" | "nul" | "ноль" | "нуль" => "0",
        "one" | "eins" | "un" | "uno" | "um" | "een" | "один" => "1",
        "two" | "zwei" | "zwo" | "deux" | "dos" | "dois" | "due" | "twee" | "два" => "2",
        "three" | "drei" | "trois" | "tres" | "tre" | "drie" | "три" => "3",
        "four" | "vier" | "quatre" | "cuatro" | "quatro" | "quattro" | "четыре" => "4",
        "five" | "funf" | "cinq" | "cinco" | "cinque" | "vijf" | "пять" => "5",
        "six" | "sechs" | "seis" | "sei" | "zes" | "шесть" => "6",
        "seven" | "sieben" | "sept" | "siete" | "sete" | "sette" | "zeven" | "семь" => "7",
        "eight" | "acht" | "huit" | "ocho" | "oito" | "otto" | "восемь" => "8",
        "nine" | "neun" | "neuf" | "nueve" | "nove" | "negen" | "девять" => "9",
        _ => return None,
    })
}

/// The numbers of seven digits or more that `words` spells out, digit by digit
/// (`one eight hundred five five five …`, `double five`), as digit strings; runs of
/// digits written as digits join them (`call 0 8 0 0 …`).
pub fn spelled_numbers(words: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut digits = String::new();
    let mut spelled = 0;
    let mut repeat = 1;
    let flush = |digits: &mut String, spelled: &mut usize, found: &mut Vec<String>| {
        if digits.len() >= 7 && *spelled >= 3 {
            found.push(std::mem::take(digits));
        }
        digits.clear();
        *spelled = 0;
    };
    for token in words.split(|c: char| !c.is_alphanumeric()) {
        if token.is_empty() {
            continue;
        }
        if let Some(d) = digit_word(token) {
            for _ in 0..repeat {
                digits.push_str(d);
            }
            repeat = 1;
            spelled += 1;
        } else if matches!(token, "double" | "doppel" | "doble") {
            repeat = 2;
        } else if matches!(token, "triple" | "tripel") {
            repeat = 3;
        } else if matches!(token, "hundred" | "hundert") && !digits.is_empty() {
            digits.push_str("00");
        } else if token.len() <= 4 && token.bytes().all(|b| b.is_ascii_digit()) {
            digits.push_str(token);
        } else {
            flush(&mut digits, &mut spelled, &mut found);
            repeat = 1;
        }
    }
    flush(&mut digits, &mut spelled, &mut found);
    found
}

/// The digits a vanity number's letters stand for on a phone keypad (`FLOWERS` →
/// `3569377`).
pub fn keypad(letters: &str) -> String {
    letters
        .chars()
        .filter_map(|c| {
            let d = match c.to_ascii_uppercase() {
                c @ '0'..='9' => c,
                'A'..='C' => '2',
                'D'..='F' => '3',
                'G'..='I' => '4',
                'J'..='L' => '5',
                'M'..='O' => '6',
                'P'..='S' => '7',
                'T'..='V' => '8',
                'W'..='Z' => '9',
                _ => return None,
            };
            Some(d)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_folds_what_a_browser_folds() {
        assert_eq!(view("acme-billing\u{3002}com"), "acme-billing.com");
        assert_eq!(view("ｈｔｔｐｓ：／／x．example／y"), "https://x.example/y");
        assert_eq!(view("８３９２\u{200b}０１５５"), "83920155");
        assert_eq!(view("a\u{ff61}b\u{fe52}c"), "a.b.c");
        assert_eq!(view("evil.example\u{2215}pay"), "evil.example/pay");
    }

    #[test]
    fn words_lose_case_and_accents() {
        assert_eq!(
            words("Bitte ÜBERWEISEN Sie 4.950 €"),
            "bitte uberweisen sie 4.950 €"
        );
        assert_eq!(
            words("Réglez la façture, Straße"),
            "reglez la facture, strasse"
        );
        assert_eq!(words("Переведите 4 950"), "переведите 4 950");
        assert_eq!(words("비밀번호を"), "비밀번호を");
    }

    #[test]
    fn sentences_end_where_a_reader_sees_them_end() {
        assert_eq!(
            sentences("pay 4.950 euro. details: acme.com/x! ok"),
            ["pay 4.950 euro.", " details: acme.com/x!", " ok"]
        );
        assert_eq!(sentences("请付款.老板急用"), ["请付款.", "老板急用"]);
    }

    #[test]
    fn numbers_spelled_out_are_numbers() {
        assert_eq!(
            spelled_numbers("call four one five, five five five, zero one nine nine now"),
            ["4155550199"]
        );
        assert_eq!(
            spelled_numbers("one eight hundred double five five, 0 1 9 9"),
            ["18005550199"]
        );
        assert!(spelled_numbers("one of the two trains at 9").is_empty());
        assert_eq!(keypad("1-800-FLOWERS"), "18003569377");
    }
}
