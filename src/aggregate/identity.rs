//! Rule 2 of docs/spec.md §7: when two reports are one fact.
//!
//! Cheap models rephrase what they report: they reorder clauses, abbreviate, swap words
//! for synonyms, cut a sentence short or put "Reminder:" in front. Raw-token Jaccard
//! breaks on that. A summary's [`Key`] is what identifies the fact it states:
//!
//! - **weighted terms**: codes (a word mixing letters and digits, or a number of three
//!   digits or more: `TP1367`, `4411`) and amounts (a number with a currency: `€4,950.00`,
//!   `4950 EUR`, `4.950 Euro` are one) weigh 3; names (a capitalised word inside the
//!   sentence) 2; other words 1 (stemmed by recall's Porter2 stemmer, common
//!   abbreviations spelled out); times (`06:05`, `6.05am`, `9pm` → one time) and dates
//!   (`12 Nov`, `November 12th`, `2026-11-12`, `12/11` → one month-day) 1; a weekday
//!   (`Thu`, `Thursday`, or a date's) and a year ½. Stop words and the words that only
//!   frame a report (`reminder`, `update`, `now`, `new`, `moved`…) weigh nothing;
//! - **the references** the finding cites (the short labels of the mails, events, files
//!   and outputs it came from), kept apart from the terms.
//!
//! Two keys are compared by their shared weight — a word also meets its synonym in
//! recall's table, at three quarters of its weight. The similarity is the mean of a
//! weighted Jaccard similarity, whose union counts the words each side says and the
//! other does not (the lighter side's) `SWAP_PENALTY` more times — a word swapped for
//! another (`physio` / `dentist`, `water bill` / `phone bill`) is what tells two near
//! facts apart, where a paraphrase mostly adds or drops words — and the overlap
//! coefficient (shared weight over the lighter key), so that a sentence cut short still
//! meets its whole form. A **veto** keeps apart what must stay apart: both keys carry
//! codes and share none, or amounts and share none (two bills from one sender, two
//! flights), or both name someone or something and neither names anything the other
//! says (two venues, two people). Times and dates never veto: a fact whose time moved is
//! the same fact, moved.
//!
//! An entry's key also holds the terms of the other wordings its fact was reported in
//! (its `said`): two keys compare wording against wording and take the best pair, and
//! the vetoes read the codes, amounts and names of all the wordings of each side.
//!
//! [`Score::same`]: with a shared reference, any compatible summary (no veto, similarity
//! at least `with_ref`) is the same fact; without one, the similarity must reach `text`
//! (`memory.match_threshold`). The weights, the penalty and the thresholds were chosen
//! on the tune split of the paraphrase corpus (`tests/fixtures/identity/`; `cargo bench
//! --bench identity`), never on its blind split.
//!
//! Pure: no I/O, no clock (a key's relative day words — `today`, `tomorrow` — and a
//! date's year are read against an anchor date the caller passes: the finding's tick,
//! or the entry's creation), deterministic.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use chrono::{Datelike as _, NaiveDate, Weekday};
use regex::Regex;

use crate::recall::synonyms::Synonyms;
use crate::recall::words::stem;

/// What a term is; codes and amounts veto (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    Word,
    Name,
    Number,
    Year,
    Time,
    Day,
    Date,
    Amount,
    Code,
}

impl Class {
    /// How much a term of this class identifies a fact.
    pub fn weight(self) -> f64 {
        match self {
            Class::Word | Class::Number | Class::Time | Class::Date => 1.0,
            Class::Day | Class::Year => 0.5,
            Class::Name => 2.0,
            Class::Amount | Class::Code => 3.0,
        }
    }

    fn vetoes(self) -> bool {
        matches!(self, Class::Code | Class::Amount)
    }
}

/// One identifying term of a summary.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Term {
    pub text: String,
    pub class: Class,
}

/// What identifies the fact a summary states (see the module doc).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Key {
    /// Distinct terms, sorted; a term met twice keeps its heavier class.
    terms: Vec<Term>,
    /// The references cited, sorted and distinct.
    refs: Vec<String>,
    /// The terms of the other wordings the fact was reported in (an entry's `said`),
    /// each like `terms`.
    also: Vec<Vec<Term>>,
    /// With other wordings: the terms of all of them, like `terms` (what the vetoes
    /// read), made once with the key rather than at every comparison.
    all: Vec<Term>,
}

/// How two keys compare.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Score {
    /// 0..=1: the mean of the weighted Jaccard similarity (its union counting words
    /// swapped for others `SWAP_PENALTY` more times) and the overlap coefficient.
    pub similarity: f64,
    /// Its two parts.
    pub jaccard: f64,
    pub overlap: f64,
    /// The weight of words each says and the other does not, the lighter side's: a
    /// word swapped for another (`physio` / `dentist`), where a paraphrase mostly adds.
    pub swapped: f64,
    pub shared: f64,
    pub union: f64,
    /// Both carry codes (or amounts) and share none of them.
    pub veto: bool,
    /// They cite a reference in common.
    pub shared_ref: bool,
}

impl Score {
    pub const NONE: Score = Score {
        similarity: 0.0,
        jaccard: 0.0,
        overlap: 0.0,
        swapped: 0.0,
        shared: 0.0,
        union: 0.0,
        veto: false,
        shared_ref: false,
    };

    /// Whether the two keys are one fact: not vetoed, and similar enough (less so when
    /// they cite the same item).
    pub fn same(self, thresholds: Thresholds) -> bool {
        !self.veto
            && self.similarity > 0.0
            && if self.shared_ref {
                self.similarity >= thresholds.with_ref
            } else {
                self.similarity >= thresholds.text
            }
    }

    /// How strongly a candidate is the fact: its similarity, and [`REF_EVIDENCE`] more
    /// when they cite an item in common — so a compatible report about the same mail
    /// beats a loose text match, but not a report that says the same thing.
    pub fn rank(self) -> f64 {
        self.similarity + if self.shared_ref { REF_EVIDENCE } else { 0.0 }
    }
}

/// The similarities at which two keys are one fact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// Without a shared reference (`memory.match_threshold`).
    pub text: f64,
    /// With one: the finding cites the entry's item, so it only needs to be compatible.
    pub with_ref: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            text: DEFAULT_THRESHOLD,
            with_ref: DEFAULT_REF_THRESHOLD,
        }
    }
}

/// The default of `memory.match_threshold`.
pub const DEFAULT_THRESHOLD: f64 = 0.65;
/// What citing a common item adds to a candidate's rank ([`Score::rank`]).
pub const REF_EVIDENCE: f64 = 0.35;
/// A word swapped for another counts this many times over in the Jaccard part's union.
const SWAP_PENALTY: f64 = 2.0;
/// The similarity a finding that cites an entry's item needs to be that entry.
pub const DEFAULT_REF_THRESHOLD: f64 = 0.3;
/// A synonym meets its word at this share of the word's weight.
const SYNONYM_SHARE: f64 = 0.75;

/// Words that frame a report rather than identify its fact (besides the stop words).
const FRAMING: &[&str] = &[
    "reminder",
    "remind",
    "reminds",
    "reminded",
    "update",
    "updated",
    "updates",
    "note",
    "notice",
    "fyi",
    "alert",
    "please",
    "pls",
    "plz",
    "now",
    "new",
    "still",
    "again",
    "currently",
    "just",
    "heads",
    "important",
    "urgent",
    "asap",
    "soon",
    "re",
    "fwd",
    "fw",
    "regarding",
    "moved",
    "changed",
    "rescheduled",
    "instead",
    "info",
    "via",
    "per",
    "has",
    "have",
    "had",
    "will",
    "would",
    "should",
    "must",
    "need",
    "needs",
    "do",
    "does",
    "did",
    "get",
    "got",
    "also",
    "only",
    "very",
    "up",
    "out",
    "off",
    "yet",
    "all",
    "any",
    "some",
    "user",
    "users",
    "user's",
];

/// Abbreviations a model writes for a word (lowercase).
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("appt", "appointment"),
    ("appts", "appointments"),
    ("mtg", "meeting"),
    ("mtgs", "meetings"),
    ("dept", "department"),
    ("inv", "invoice"),
    ("pmt", "payment"),
    ("pymt", "payment"),
    ("acct", "account"),
    ("amt", "amount"),
    ("msg", "message"),
    ("msgs", "messages"),
    ("tel", "phone"),
    ("govt", "government"),
    ("doc", "document"),
    ("docs", "documents"),
    ("req", "request"),
    ("reqd", "required"),
    ("bday", "birthday"),
    ("hr", "hour"),
    ("hrs", "hours"),
    ("mins", "minutes"),
    ("wk", "week"),
    ("wks", "weeks"),
    ("yr", "year"),
    ("yrs", "years"),
    ("tmrw", "tomorrow"),
    ("tmr", "tomorrow"),
    ("tmw", "tomorrow"),
    ("tonite", "tonight"),
    ("flt", "flight"),
    ("dep", "departure"),
    ("arr", "arrival"),
    ("approx", "approximately"),
    ("mgr", "manager"),
    ("cust", "customer"),
    ("svc", "service"),
    ("srv", "server"),
    ("cert", "certificate"),
    ("certs", "certificates"),
    ("config", "configuration"),
    ("db", "database"),
    ("env", "environment"),
    ("prod", "production"),
    ("repo", "repository"),
    ("subs", "subscription"),
    ("sub", "subscription"),
    ("ins", "insurance"),
    ("med", "medication"),
    ("meds", "medication"),
    ("rx", "prescription"),
    ("dr", "doctor"),
    ("bal", "balance"),
    ("pkg", "package"),
    ("deliv", "delivery"),
    ("eta", "arrival"),
    ("sched", "schedule"),
];

/// Word stems that mean the same for identity, beyond recall's table (a verb and its
/// noun where the stemmer keeps them apart).
const SAME_STEMS: &[(&str, &str)] = &[
    ("departur", "depart"),
    ("leav", "depart"),
    ("left", "depart"),
    ("arriv", "arrival"),
    ("cancell", "cancel"),
    ("expiri", "expir"),
    ("renewal", "renew"),
    ("failur", "fail"),
];

const MONTHS: &[(&str, u32)] = &[
    ("jan", 1),
    ("january", 1),
    ("feb", 2),
    ("february", 2),
    ("mar", 3),
    ("march", 3),
    ("apr", 4),
    ("april", 4),
    ("may", 5),
    ("jun", 6),
    ("june", 6),
    ("jul", 7),
    ("july", 7),
    ("aug", 8),
    ("august", 8),
    ("sep", 9),
    ("sept", 9),
    ("september", 9),
    ("oct", 10),
    ("october", 10),
    ("nov", 11),
    ("november", 11),
    ("dec", 12),
    ("december", 12),
];

const WEEKDAYS: &[(&str, Weekday)] = &[
    ("mon", Weekday::Mon),
    ("monday", Weekday::Mon),
    ("tue", Weekday::Tue),
    ("tues", Weekday::Tue),
    ("tuesday", Weekday::Tue),
    ("wed", Weekday::Wed),
    ("weds", Weekday::Wed),
    ("wednesday", Weekday::Wed),
    ("thu", Weekday::Thu),
    ("thur", Weekday::Thu),
    ("thurs", Weekday::Thu),
    ("thursday", Weekday::Thu),
    ("fri", Weekday::Fri),
    ("friday", Weekday::Fri),
    ("sat", Weekday::Sat),
    ("saturday", Weekday::Sat),
    ("sun", Weekday::Sun),
    ("sunday", Weekday::Sun),
];

/// One piece of a summary, before terms are made.
#[derive(Debug)]
enum Piece {
    Time(u32, u32),
    Amount(String),
    /// A word as written, and whether it starts a sentence (or the summary).
    Word(String, bool),
}

static PIECES: LazyLock<Option<Regex>> = LazyLock::new(|| {
    // Times (`06:05`, `6.05 pm`, `14h30`, `9pm`), amounts (a currency before or after
    // a number), then words (letters and digits, inner `-`, `'`, `.`, `,` or `/` kept
    // when digits sit on both sides: `4,950`, `8392.0155`, `2026-11-12`).
    Regex::new(
        r"(?xi)
        (?P<time>\b(?P<h>\d{1,2})(?:[:.h](?P<m>\d{2}))?\s?(?P<ap>a\.?m\b\.?|p\.?m\b\.?)
            | \b(?P<h2>\d{1,2})[:h](?P<m2>\d{2})\b)
        | (?P<amount>(?:[€£$¥₹]|\b(?:eur|usd|gbp|chf|sek|nok|dkk|pln|jpy|inr)\b)\s?\d+(?:[.,'’]\d+)*
            | \b\d+(?:[.,'’]\d+)*\s?(?:[€£$¥₹]|(?:eur|euros?|usd|gbp|chf|dollars?|pounds?|bucks|kr|sek|nok|dkk|pln|zł|yen|rupees?)\b))
        | (?P<spaced>\b(?-i:[A-Z]{2,3})\x20\d{2,6}\b)
        | (?P<word>[\p{L}\p{N}]+(?:[-'’][\p{L}\p{N}]+|[.,/][0-9][\p{L}\p{N}]*)*)
        | (?P<stop>[.!?;:])
        ",
    )
    .ok()
});

/// The digits of a number as a person means it: separators out, a decimal part of one
/// or two digits dropped (`4,950.00` and `4.950` and `4950` are one amount).
fn number_digits(text: &str) -> String {
    // The number alone: a currency's letters or sign around it are not its parts.
    let start = text.find(|c: char| c.is_ascii_digit()).unwrap_or(0);
    let end = text
        .rfind(|c: char| c.is_ascii_digit())
        .map_or(text.len(), |i| i + 1);
    let text = text.get(start..end).unwrap_or(text);
    let mut parts: Vec<&str> = text
        .split(['.', ',', '\'', '’', ' '])
        .filter(|p| !p.is_empty())
        .collect();
    if parts.len() > 1 && parts.last().is_some_and(|p| p.len() <= 2) {
        parts.pop();
    }
    let digits: String = parts
        .concat()
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let trimmed = digits.trim_start_matches('0');
    if trimmed.is_empty() {
        "0".to_string()
    } else {
        trimmed.to_string()
    }
}

fn pieces(summary: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut sentence_start = true;
    let Some(re) = PIECES.as_ref() else {
        return out;
    };
    for caps in re.captures_iter(summary) {
        if caps.name("time").is_some() {
            let (h, m, ap) = match caps.name("h") {
                Some(h) => (h, caps.name("m"), caps.name("ap")),
                None => match caps.name("h2") {
                    Some(h) => (h, caps.name("m2"), None),
                    None => continue,
                },
            };
            let mut hour: u32 = h.as_str().parse().unwrap_or(99);
            let minute: u32 = m.map_or(Some(0), |m| m.as_str().parse().ok()).unwrap_or(99);
            if let Some(ap) = ap {
                let pm = ap.as_str().to_ascii_lowercase().starts_with('p');
                hour = match (hour, pm) {
                    (12, false) => 0,
                    (h, true) if h < 12 => h + 12,
                    (h, _) => h,
                };
            }
            if hour < 24 && minute < 60 {
                out.push(Piece::Time(hour, minute));
            }
            sentence_start = false;
        } else if let Some(code) = caps.name("spaced") {
            // `TP 1367`: a code written with a space is the code.
            out.push(Piece::Word(code.as_str().replace(' ', ""), false));
            sentence_start = false;
        } else if let Some(amount) = caps.name("amount") {
            out.push(Piece::Amount(number_digits(amount.as_str())));
            sentence_start = false;
        } else if let Some(word) = caps.name("word") {
            out.push(Piece::Word(word.as_str().to_string(), sentence_start));
            sentence_start = false;
        } else {
            sentence_start = true;
        }
    }
    out
}

/// The date `day` of `month` nearest to `anchor` (within half a year), if it exists.
fn nearest_date(month: u32, day: u32, anchor: NaiveDate) -> Option<NaiveDate> {
    [anchor.year() - 1, anchor.year(), anchor.year() + 1]
        .into_iter()
        .filter_map(|y| NaiveDate::from_ymd_opt(y, month, day))
        .min_by_key(|d| (d.signed_duration_since(anchor).num_days().abs(), *d))
}

fn month_of(word: &str) -> Option<u32> {
    MONTHS.iter().find(|(m, _)| *m == word).map(|(_, n)| *n)
}

fn weekday_of(word: &str) -> Option<Weekday> {
    WEEKDAYS.iter().find(|(w, _)| *w == word).map(|(_, d)| *d)
}

/// A day of the month written as `12`, `12th`, `1st`.
fn day_number(word: &str) -> Option<u32> {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &word[digits.len()..];
    if !matches!(suffix, "" | "st" | "nd" | "rd" | "th") || digits.is_empty() || digits.len() > 2 {
        return None;
    }
    digits.parse().ok().filter(|d| (1..=31).contains(d))
}

fn is_framing(word: &str) -> bool {
    crate::matching::STOP_WORDS.contains(&word) || FRAMING.contains(&word)
}

/// The stem a word is compared by: its abbreviation spelled out, stemmed, and folded
/// with the stems that mean the same.
fn word_stem(lower: &str) -> String {
    let spelled = ABBREVIATIONS
        .iter()
        .find(|(a, _)| *a == lower)
        .map_or(lower, |(_, w)| w);
    let s = stem(spelled);
    SAME_STEMS
        .iter()
        .find(|(from, _)| *from == s)
        .map_or(s, |(_, to)| (*to).to_string())
}

impl Key {
    /// The key of `summary`, its relative days and years read against `anchor`, citing
    /// `refs`.
    pub fn new<'r>(
        summary: &str,
        anchor: NaiveDate,
        refs: impl IntoIterator<Item = &'r str>,
    ) -> Key {
        let refs: BTreeSet<String> = refs
            .into_iter()
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
        Key {
            terms: terms_of(summary, anchor),
            refs: refs.into_iter().collect(),
            also: Vec::new(),
            all: Vec::new(),
        }
    }

    /// Adds the other wordings the fact was reported in, each with the day it was said
    /// (an entry's `said`): compared like the summary (see [`compare`]).
    #[must_use]
    pub fn with_said<'s>(mut self, said: impl IntoIterator<Item = (&'s str, NaiveDate)>) -> Key {
        for (text, day) in said {
            let terms = terms_of(text, day);
            if !terms.is_empty() && terms != self.terms && !self.also.contains(&terms) {
                self.also.push(terms);
            }
        }
        if !self.also.is_empty() {
            self.all = distinct(self.wordings().flatten().cloned().collect());
        }
        self
    }

    /// The key's terms.
    pub fn terms(&self) -> &[Term] {
        &self.terms
    }

    /// The references it cites.
    pub fn refs(&self) -> &[String] {
        &self.refs
    }

    /// Adds references (an entry's, beside its summary).
    #[must_use]
    pub fn with_refs<'r>(mut self, refs: impl IntoIterator<Item = &'r str>) -> Key {
        let mut all: BTreeSet<String> = self.refs.into_iter().collect();
        all.extend(refs.into_iter().map(str::to_ascii_lowercase));
        self.refs = all.into_iter().collect();
        self
    }

    fn weight(&self) -> f64 {
        weight(&self.terms)
    }

    /// Its summary's terms, then each other wording's.
    fn wordings(&self) -> impl Iterator<Item = &[Term]> {
        std::iter::once(self.terms.as_slice()).chain(self.also.iter().map(Vec::as_slice))
    }

    /// The terms of all its wordings, sorted and distinct (each its heaviest class).
    fn all_terms(&self) -> &[Term] {
        if self.also.is_empty() {
            &self.terms
        } else {
            &self.all
        }
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

/// The terms of `summary`, its relative days and years read against `anchor` (sorted,
/// distinct, each its heaviest class).
fn terms_of(summary: &str, anchor: NaiveDate) -> Vec<Term> {
    let mut terms: Vec<Term> = Vec::new();
    let mut add = |text: String, class: Class| terms.push(Term { text, class });
    let pieces = pieces(summary);
    let mut used = vec![false; pieces.len()];
    let lower = |i: usize| match &pieces[i] {
        Piece::Word(w, _) => Some(w.to_lowercase()),
        _ => None,
    };
    // Dates first: a month word beside a day number (`12 Nov`, `Nov 12th`), or ISO.
    for i in 0..pieces.len() {
        let Some(word) = lower(i) else { continue };
        if let Some((m, d)) = day_slash_month(&word) {
            if let Some(date) = nearest_date(m, d, anchor) {
                add_date(&mut add, date);
                used[i] = true;
            }
            continue;
        }
        if let Some((y, m, d)) = iso_date(&word) {
            if let Some(date) = NaiveDate::from_ymd_opt(y, m, d) {
                add_date(&mut add, date);
                used[i] = true;
            }
            continue;
        }
        let Some(month) = month_of(&word) else {
            continue;
        };
        let day_at = [i + 1, i.wrapping_sub(1)]
            .into_iter()
            .filter(|&j| j < pieces.len() && !used[j])
            .find_map(|j| lower(j).and_then(|w| day_number(&w)).map(|d| (j, d)));
        if let Some((j, day)) = day_at
            && let Some(date) = nearest_date(month, day, anchor)
        {
            add_date(&mut add, date);
            used[i] = true;
            used[j] = true;
        }
    }
    for (i, piece) in pieces.iter().enumerate() {
        if used[i] {
            continue;
        }
        match piece {
            Piece::Time(h, m) => add(format!("{h:02}{m:02}"), Class::Time),
            Piece::Amount(digits) => add(digits.clone(), Class::Amount),
            Piece::Word(word, starts) => {
                let lower = word.to_lowercase();
                word_terms(&lower, word, *starts, anchor, &mut add);
            }
        }
    }
    // A weekday alone names the coming such day (today's, or within the week): "the
    // car Tuesday" said on Monday is tomorrow's, and meets a summary that gives the
    // date. Only when nothing in the summary is a date, which would say which
    // Tuesday; it keeps a weekday's weight (a day, not a date).
    if !terms.iter().any(|t| t.class == Class::Date) {
        for t in terms.iter_mut().filter(|t| t.class == Class::Day) {
            if let Some(date) = WEEKDAYS
                .iter()
                .find(|(n, _)| *n == t.text)
                .and_then(|(_, day)| coming(*day, anchor))
            {
                t.text = format!("{:02}-{:02}", date.month(), date.day());
            }
        }
    }
    distinct(terms)
}

/// `terms` sorted, each text once with its heaviest class.
fn distinct(mut terms: Vec<Term>) -> Vec<Term> {
    // Sorted by text, then class ascending.
    terms.sort();
    let mut out: Vec<Term> = Vec::with_capacity(terms.len());
    for t in terms {
        match out.last_mut() {
            Some(last) if last.text == t.text => {
                if t.class.weight() > last.class.weight() {
                    last.class = t.class;
                }
            }
            _ => out.push(t),
        }
    }
    out
}

fn add_date(add: &mut impl FnMut(String, Class), date: NaiveDate) {
    add(
        format!("{:02}-{:02}", date.month(), date.day()),
        Class::Date,
    );
    add(weekday_name(date.weekday()).to_string(), Class::Day);
}

fn weekday_name(day: Weekday) -> &'static str {
    match day {
        Weekday::Mon => "mon",
        Weekday::Tue => "tue",
        Weekday::Wed => "wed",
        Weekday::Thu => "thu",
        Weekday::Fri => "fri",
        Weekday::Sat => "sat",
        Weekday::Sun => "sun",
    }
}

/// `27/11`: day and month, as most of the world writes them; `11/27`, whose second
/// number cannot be a month, is read the American way. Returns (month, day).
fn day_slash_month(word: &str) -> Option<(u32, u32)> {
    let (a, b) = word.split_once('/')?;
    if a.is_empty() || b.is_empty() || a.len() > 2 || b.len() > 2 {
        return None;
    }
    let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
    match (a, b) {
        (1..=31, 1..=12) => Some((b, a)),
        (1..=12, 13..=31) => Some((a, b)),
        _ => None,
    }
}

/// `2026-11-12` (or `2026/11/12`, `2026.11.12`).
fn iso_date(word: &str) -> Option<(i32, u32, u32)> {
    let mut parts = word.split(['-', '/', '.']);
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || y.len() != 4 || m.len() > 2 || d.len() > 2 {
        return None;
    }
    Some((y.parse().ok()?, m.parse().ok()?, d.parse().ok()?))
}

/// The terms of one word (`lower` its lowercase, `word` as written).
fn word_terms(
    lower: &str,
    word: &str,
    sentence_start: bool,
    anchor: NaiveDate,
    add: &mut impl FnMut(String, Class),
) {
    let has_digit = lower.chars().any(|c| c.is_ascii_digit());
    let has_letter = lower.chars().any(char::is_alphabetic);
    if has_digit && !has_letter {
        let digits = number_digits(lower);
        match digits.len() {
            4 if (1900..=2100).contains(&digits.parse::<u32>().unwrap_or(0))
                && !lower.contains(['.', ',']) =>
            {
                add(digits, Class::Year);
            }
            0..=2 => add(digits, Class::Number),
            _ => add(digits, Class::Code),
        }
        return;
    }
    if has_digit {
        // `TP-1367`, `A4`, `12th` (a day alone: a small number).
        if let Some(day) = day_number(lower) {
            add(day.to_string(), Class::Number);
            return;
        }
        let code: String = lower.chars().filter(|c| c.is_alphanumeric()).collect();
        add(code, Class::Code);
        return;
    }
    // Words joined by `-` or `'` are compared part by part (`follow-up`, `user's`).
    if lower.contains(['-', '\'', '’']) {
        let capital = !sentence_start && word.chars().next().is_some_and(char::is_uppercase);
        for (part, written) in lower
            .split(['-', '\'', '’'])
            .zip(word.split(['-', '\'', '’']))
        {
            if part.chars().nth(1).is_some() {
                single_word(part, written, !capital, anchor, add);
            }
        }
        return;
    }
    single_word(lower, word, sentence_start, anchor, add);
}

fn single_word(
    lower: &str,
    word: &str,
    sentence_start: bool,
    anchor: NaiveDate,
    add: &mut impl FnMut(String, Class),
) {
    if lower.chars().nth(1).is_none() {
        return;
    }
    let spelled = ABBREVIATIONS
        .iter()
        .find(|(a, _)| *a == lower)
        .map_or(lower, |(_, w)| w);
    if let Some(day) = weekday_of(spelled) {
        add(weekday_name(day).to_string(), Class::Day);
        return;
    }
    match spelled {
        "today" | "tonight" => return add_day(anchor, add),
        "tomorrow" => {
            if let Some(d) = anchor.succ_opt() {
                add_day(d, add);
            }
            return;
        }
        "yesterday" => {
            if let Some(d) = anchor.pred_opt() {
                add_day(d, add);
            }
            return;
        }
        _ => {}
    }
    if is_framing(lower) || is_framing(spelled) {
        return;
    }
    let capital = word.chars().next().is_some_and(char::is_uppercase);
    let all_caps = word.chars().count() > 1 && word.chars().all(|c| !c.is_lowercase());
    let class = if (capital && !sentence_start) || all_caps {
        Class::Name
    } else {
        Class::Word
    };
    add(word_stem(spelled), class);
}

/// The first `day` on or after `anchor`.
fn coming(day: Weekday, anchor: NaiveDate) -> Option<NaiveDate> {
    let ahead = (7 + day.num_days_from_monday() - anchor.weekday().num_days_from_monday()) % 7;
    anchor.checked_add_days(chrono::Days::new(u64::from(ahead)))
}

/// A relative day word: the weekday and date it names.
fn add_day(date: NaiveDate, add: &mut impl FnMut(String, Class)) {
    add_date(add, date);
}

/// How two keys compare (see the module doc). A key with other wordings (an entry's
/// `said`) is the fact each of them states: the similarity is the best of every wording
/// of one against every wording of the other, and the vetoes read the codes, amounts and
/// names of all the wordings of each.
pub fn compare(a: &Key, b: &Key, synonyms: &Synonyms) -> Score {
    let shared_ref = a.refs.iter().any(|r| b.refs.binary_search(r).is_ok());
    if a.also.is_empty() && b.also.is_empty() {
        return score(&a.terms, &b.terms, shared_ref, synonyms);
    }
    let mut best = Score {
        shared_ref,
        ..Score::NONE
    };
    for ta in a.wordings() {
        for tb in b.wordings() {
            let s = score(ta, tb, shared_ref, synonyms);
            if s.similarity > best.similarity {
                best = s;
            }
        }
    }
    best.veto = veto(a.all_terms(), b.all_terms(), shared_ref);
    best
}

/// How two wordings compare: [`compare`] of one wording each.
fn score(a: &[Term], b: &[Term], shared_ref: bool, synonyms: &Synonyms) -> Score {
    if a.is_empty() || b.is_empty() {
        return Score {
            shared_ref,
            ..Score::NONE
        };
    }
    let mut shared = 0.0;
    let mut b_used = vec![false; b.len()];
    let mut a_left: Vec<&Term> = Vec::new();
    let mut a_alone = 0.0;
    for t in a {
        match b.binary_search_by(|x| x.text.cmp(&t.text)) {
            Ok(j) => {
                b_used[j] = true;
                shared += t.class.weight().max(b[j].class.weight());
            }
            Err(_) => a_left.push(t),
        }
    }
    for t in a_left {
        if !matches!(t.class, Class::Word | Class::Name) {
            continue;
        }
        let found = b.iter().enumerate().find(|(j, x)| {
            !b_used[*j]
                && matches!(x.class, Class::Word | Class::Name)
                && synonyms.meet(&t.text, &x.text)
        });
        if let Some((j, x)) = found {
            b_used[j] = true;
            shared += SYNONYM_SHARE * t.class.weight().min(x.class.weight());
        } else {
            a_alone += t.class.weight();
        }
    }
    let b_alone: f64 = b
        .iter()
        .zip(&b_used)
        .filter(|(t, used)| !**used && matches!(t.class, Class::Word | Class::Name))
        .map(|(t, _)| t.class.weight())
        .sum();
    // Within one cited item, two codes of different shapes are two of the item's names
    // for one fact (a flight number and its booking reference): one code shared.
    if shared_ref && codes_name_one_item(a, b) {
        shared += Class::Code.weight();
    }
    let (wa, wb) = (weight(a), weight(b));
    let union = wa + wb - shared;
    let swapped = f64::min(a_alone, b_alone);
    let penalised = union + SWAP_PENALTY * swapped;
    let jaccard = if penalised > 0.0 {
        shared / penalised
    } else {
        0.0
    };
    let overlap = shared / wa.min(wb);
    Score {
        similarity: f64::midpoint(jaccard, overlap.min(1.0)),
        jaccard,
        overlap: overlap.min(1.0),
        swapped,
        shared,
        union,
        veto: veto(a, b, shared_ref),
        shared_ref,
    }
}

/// The sum of the weights of `terms`.
fn weight(terms: &[Term]) -> f64 {
    terms.iter().map(|t| t.class.weight()).sum()
}

/// Whether what `a` and `b` say keeps them apart (see the module doc).
fn veto(a: &[Term], b: &[Term], shared_ref: bool) -> bool {
    // One item may name a fact by two codes (a flight number and a booking reference):
    // within an item, only codes of one shape tell two facts apart (invoices 4411 and
    // 4412).
    let codes_differ = if shared_ref {
        codes_of_a_shape_differ(a, b)
    } else {
        vetoed(a, b, Class::Code)
    };
    codes_differ || vetoed(a, b, Class::Amount) || names_differ(a, b)
}

/// Both name someone or something (a capitalised word inside the sentence) and neither
/// names anything the other says in any form: two places, two people, two shops.
fn names_differ(a: &[Term], b: &[Term]) -> bool {
    fn names(k: &[Term]) -> Vec<&str> {
        k.iter()
            .filter(|t| t.class == Class::Name)
            .map(|t| t.text.as_str())
            .collect()
    }
    let (na, nb) = (names(a), names(b));
    let said = |k: &[Term], n: &str| k.binary_search_by(|t| t.text.as_str().cmp(n)).is_ok();
    !na.is_empty()
        && !nb.is_empty()
        && !na.iter().any(|n| said(b, n))
        && !nb.iter().any(|n| said(a, n))
}

/// The shape of a code: its letters as `a`, its digits as `9` (`tp1367` → `aa9999`).
fn shape(code: &str) -> String {
    code.chars()
        .map(|c| if c.is_ascii_digit() { '9' } else { 'a' })
        .collect()
}

/// The codes among `terms`.
fn codes(terms: &[Term]) -> impl Iterator<Item = &str> {
    terms
        .iter()
        .filter(|t| t.class == Class::Code)
        .map(|t| t.text.as_str())
}

/// Both carry codes, share none, and two of them have one shape.
fn codes_of_a_shape_differ(a: &[Term], b: &[Term]) -> bool {
    !share_a_code(a, b) && codes(a).any(|x| codes(b).any(|y| shape(x) == shape(y)))
}

/// Both carry codes, share none, and no two of them have one shape (with a shared
/// reference: see [`compare`]).
fn codes_name_one_item(a: &[Term], b: &[Term]) -> bool {
    codes(a).next().is_some()
        && codes(b).next().is_some()
        && !share_a_code(a, b)
        && !codes_of_a_shape_differ(a, b)
}

/// Whether `a` and `b` share a code.
fn share_a_code(a: &[Term], b: &[Term]) -> bool {
    codes(a).any(|x| codes(b).any(|y| x == y))
}

/// Both carry terms of `class` and share none.
fn vetoed(a: &[Term], b: &[Term], class: Class) -> bool {
    fn of(k: &[Term], class: Class) -> Vec<&str> {
        k.iter()
            .filter(|t| t.class == class)
            .map(|t| t.text.as_str())
            .collect()
    }
    debug_assert!(class.vetoes());
    let (ta, tb) = (of(a, class), of(b, class));
    !ta.is_empty() && !tb.is_empty() && !ta.iter().any(|t| tb.contains(t))
}

/// The least share of a finding's weight an item must hold for [`ground`] to name it.
pub const GROUNDED: f64 = 0.5;
/// How far the best item's share must be ahead of the next one's for [`ground`].
pub const GROUND_MARGIN: f64 = 0.2;

/// The item a finding that cites nothing came from (docs/spec.md §6): of `items` (each
/// shown item's reference and the key of its text), the one that holds the most of the
/// finding's weight — at least [`GROUNDED`], [`GROUND_MARGIN`] ahead of any other, and
/// not vetoed (a code, an amount or a name the finding says and the item does not). A
/// cheap model that forgets to cite still writes its item's words: the dentist's mail
/// holds "check-up" and "Wednesday", the flight's its number. `None` when no item or
/// more than one could be it.
pub fn ground<'a>(
    finding: &Key,
    items: &'a [(String, Key)],
    synonyms: &Synonyms,
) -> Option<&'a str> {
    let weight = finding.weight();
    if weight <= 0.0 {
        return None;
    }
    let mut held: Vec<(f64, &str)> = items
        .iter()
        .map(|(r, item)| {
            let score = compare(finding, item, synonyms);
            let share = if score.veto {
                0.0
            } else {
                score.shared / weight
            };
            (share, r.as_str())
        })
        .collect();
    held.sort_by(|a, b| b.0.total_cmp(&a.0));
    let best = held.first()?;
    let next = held.get(1).map_or(0.0, |n| n.0);
    (best.0 >= GROUNDED && best.0 - next >= GROUND_MARGIN).then_some(best.1)
}

/// Whether `wording`, said on `day`, is worth keeping as another wording of the fact
/// an entry states as `summary` (read against `created`): it says at least as much as
/// the summary (its weight is no less) and something the summary does not (a term the
/// summary lacks). A report cut short adds nothing but the chance of meeting another
/// fact by the few words left, and is not kept (docs/spec.md §7.2).
pub fn adds_a_wording(summary: &str, created: NaiveDate, wording: &str, day: NaiveDate) -> bool {
    let (own, other) = (terms_of(summary, created), terms_of(wording, day));
    weight(&other) >= weight(&own)
        && other
            .iter()
            .any(|t| own.binary_search_by(|o| o.text.cmp(&t.text)).is_err())
}

/// Whether two keys are one fact at `thresholds`.
pub fn same(a: &Key, b: &Key, thresholds: Thresholds, synonyms: &Synonyms) -> bool {
    compare(a, b, synonyms).same(thresholds)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 23).unwrap_or_default()
    }

    fn key(s: &str) -> Key {
        Key::new(s, day(), [])
    }

    fn texts(s: &str) -> Vec<(String, Class)> {
        key(s)
            .terms()
            .iter()
            .map(|t| (t.text.clone(), t.class))
            .collect()
    }

    fn score(a: &str, b: &str) -> Score {
        compare(&key(a), &key(b), Synonyms::builtin())
    }

    #[test]
    fn times_dates_and_days_are_one_term_whatever_their_spelling() {
        for (a, b) in [
            ("departs 06:05", "departs 6.05am"),
            ("at 9pm", "at 21:00"),
            ("at 14h30", "at 2:30 pm"),
            ("on Thu", "on Thursday"),
            ("on 12 Nov", "on November 12th"),
            ("on 2026-11-12", "on Nov 12"),
            ("on 12/11", "on 12 Nov"),
        ] {
            let (ka, kb) = (texts(a), texts(b));
            let shared: Vec<_> = ka.iter().filter(|t| kb.contains(t)).collect();
            assert!(
                shared
                    .iter()
                    .any(|(_, c)| matches!(c, Class::Time | Class::Date | Class::Day)),
                "{a:?} {ka:?} / {b:?} {kb:?}"
            );
        }
        // 12 Nov 2026 is a Thursday: the date carries its weekday.
        assert!(texts("due 12 Nov").contains(&("thu".to_string(), Class::Day)));
        assert!(texts("due tomorrow").contains(&("tue".to_string(), Class::Day)));
    }

    #[test]
    fn amounts_fold_their_separators_and_currency() {
        for text in ["€4,950.00", "4.950 Euro", "EUR 4950", "4950 EUR", "$4,950"] {
            assert!(
                texts(text).contains(&("4950".to_string(), Class::Amount)),
                "{text}: {:?}",
                texts(text)
            );
        }
        assert_eq!(
            texts("invoice 4411"),
            [
                ("4411".to_string(), Class::Code),
                ("invoic".to_string(), Class::Word)
            ]
        );
        assert!(texts("Flight TP-1367").contains(&("tp1367".to_string(), Class::Code)));
    }

    #[test]
    fn framing_words_and_stop_words_weigh_nothing() {
        assert_eq!(texts("Reminder: the rent is due"), texts("rent due"));
        assert_eq!(texts("Update: new appt"), texts("appointment"));
    }

    #[test]
    fn a_paraphrase_of_the_issue_meets_its_fact() {
        let s = score(
            "TP1367 Lisbon flight Fri now departs 06:05 (was 09:40)",
            "Flight TP1367 to Lisbon on Friday rescheduled: new departure 06:05 instead of 09:40",
        );
        assert!(!s.veto);
        assert!(s.same(Thresholds::default()), "{s:?}");
    }

    #[test]
    fn two_bills_from_one_sender_stay_apart() {
        for (a, b) in [
            ("ACME invoice 4411 overdue", "ACME invoice 4412 overdue"),
            (
                "ACME bill of €120 due Friday",
                "ACME bill of €80 due Friday",
            ),
        ] {
            let s = score(a, b);
            assert!(s.veto, "{a} / {b}");
            assert!(!s.same(Thresholds::default()));
        }
    }

    #[test]
    fn a_shared_reference_needs_only_compatibility() {
        let a = Key::new("Parcel from DHL needs a signature", day(), ["m3fq9k"]);
        let b = Key::new("Sign for the DHL delivery", day(), ["m3fq9k"]);
        let c = Key::new("School closed on Friday", day(), ["m3fq9k"]);
        let syn = Synonyms::builtin();
        assert!(compare(&a, &b, syn).same(Thresholds::default()));
        assert!(!compare(&a, &c, syn).same(Thresholds::default()));
    }

    #[test]
    fn a_weekday_alone_is_read_as_the_coming_day_it_names() {
        let at = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap();
        let monday = at(2026, 11, 23);
        let cases: &[(&str, NaiveDate, &str)] = &[
            ("Car service Tuesday", monday, "11-24"),
            ("Car service Monday", monday, "11-23"),
            ("Car service on Sun", monday, "11-29"),
            // Over a month's and a year's end.
            ("Party Friday", at(2026, 12, 30), "01-01"),
        ];
        for (summary, anchor, want) in cases {
            let k = Key::new(summary, *anchor, []);
            assert!(
                k.terms().contains(&Term {
                    text: (*want).to_string(),
                    class: Class::Day
                }),
                "{summary}: {:?}",
                k.terms()
            );
        }
        // A date in the summary says which day: the weekday stays a weekday.
        let k = Key::new("Car service Tuesday 1 Dec", monday, []);
        assert!(
            k.terms()
                .iter()
                .any(|t| t.text == "12-01" && t.class == Class::Date)
        );
        assert!(!k.terms().iter().any(|t| t.text == "11-24"));
        // "Tuesday" said on Monday meets the date that Tuesday is, and "tomorrow".
        let syn = Synonyms::builtin();
        let bare = Key::new("drop the car at the garage Tuesday", monday, []);
        for other in ["car at the garage on 24 Nov", "car at the garage tomorrow"] {
            let s = compare(&bare, &Key::new(other, monday, []), syn);
            let t = compare(
                &Key::new("drop the car at the garage", monday, []),
                &Key::new(other, monday, []),
                syn,
            );
            assert!(s.shared > t.shared, "{other}: {s:?} / {t:?}");
        }
    }

    #[test]
    fn within_one_cited_item_two_codes_of_two_shapes_are_one_fact() {
        let syn = Synonyms::builtin();
        let (a, b) = (
            "Earlier departure for TP1367",
            "Booking QX7P2M: departure changed to 06:05 on 27/11",
        );
        let cited = |s: &str| Key::new(s, day(), ["mqjzcg"]);
        let s = compare(&cited(a), &cited(b), syn);
        assert!(s.same(Thresholds::default()), "{s:?}");
        // Without the item in common, two codes are two things.
        assert!(
            !compare(&Key::new(a, day(), []), &Key::new(b, day(), []), syn)
                .same(Thresholds::default())
        );
        // Codes of one shape in one item still tell two facts apart.
        let s = compare(
            &cited("ACME invoice 4411 due"),
            &cited("ACME invoice 4412 due"),
            syn,
        );
        assert!(s.veto, "{s:?}");
    }

    #[test]
    fn an_entry_is_known_by_every_wording_it_was_reported_in() {
        let syn = Synonyms::builtin();
        let monday = day();
        let entry = |said: &[&str]| {
            Key::new("Package waiting at the post office", monday, ["msdd6o"])
                .with_said(said.iter().map(|t| (*t, monday)))
        };
        let finding = Key::new("Pick up the DHL package by Saturday", monday, ["msdd6o"]);
        // By its summary alone it shares one word with the finding: two facts.
        assert!(!compare(&entry(&[]), &finding, syn).same(Thresholds::default()));
        // Once it was also reported with the sender, the code and the day, it is one.
        let said = ["DHL parcel 00340434 waiting at the post office until Sat 28 Nov"];
        let s = compare(&entry(&said), &finding, syn);
        assert!(s.same(Thresholds::default()), "{s:?}");
        // Either way round, and the same as comparing with that wording alone.
        let t = compare(&finding, &entry(&said), syn);
        assert!((s.similarity - t.similarity).abs() < 1e-12);
        let alone = compare(&Key::new(said[0], monday, ["msdd6o"]), &finding, syn);
        assert!((s.similarity - alone.similarity).abs() < 1e-12);
        // A wording's relative day is read against the day it was said: "tomorrow"
        // said on Tuesday 24 Nov is the 25th.
        let tuesday = NaiveDate::from_ymd_opt(2026, 11, 24).unwrap_or_default();
        let dated = Key::new("Collect the parcel on 25 Nov", tuesday, []);
        let said_on = |d| {
            Key::new("Parcel at the post office", monday, [])
                .with_said([("Collect the parcel tomorrow", d)])
        };
        let (right, wrong) = (
            compare(&said_on(tuesday), &dated, syn),
            compare(&said_on(monday), &dated, syn),
        );
        assert!(right.similarity > wrong.similarity, "{right:?} / {wrong:?}");
    }

    #[test]
    fn a_wording_is_kept_only_when_it_says_more() {
        let summary = "Package waiting at the post office";
        for (wording, kept) in [
            (
                "DHL parcel 00340434 waiting at the post office until Sat 28 Nov",
                true,
            ),
            ("Pick up the DHL package by Saturday", true),
            // Cut short, or the same terms in another order: nothing more.
            ("Package waiting at the", false),
            ("Reminder: at the post office, package waiting", false),
        ] {
            assert_eq!(
                adds_a_wording(summary, day(), wording, day()),
                kept,
                "{wording}"
            );
        }
    }

    #[test]
    fn the_vetoes_read_every_wording_of_each_side() {
        let syn = Synonyms::builtin();
        // A wording without the invoice's number does not let another invoice in.
        let entry = Key::new("ACME invoice 4411 overdue", day(), [])
            .with_said([("ACME invoice overdue, pay this week", day())]);
        let other = Key::new("ACME invoice 4412 overdue, pay this week", day(), []);
        let s = compare(&entry, &other, syn);
        assert!(s.veto && !s.same(Thresholds::default()), "{s:?}");
        // Nor one without its amount another bill.
        let entry = Key::new("Water bill of €120 due Friday", day(), [])
            .with_said([("Water bill due Friday", day())]);
        let other = Key::new("Water bill of €80 due Friday", day(), []);
        assert!(compare(&entry, &other, syn).veto);
    }

    #[test]
    fn similarity_is_symmetric_and_bounded() {
        let cases = [
            ("Disk /home 91% full", "disk home is 93% full now"),
            ("", "anything"),
            (
                "Dentist Thursday 10:00",
                "Dentist appt moved to Friday 10:00",
            ),
        ];
        for (a, b) in cases {
            let (x, y) = (score(a, b), score(b, a));
            assert!((x.similarity - y.similarity).abs() < 1e-12, "{a} / {b}");
            assert!((0.0..=1.0).contains(&x.similarity));
            assert_eq!(x.veto, y.veto);
        }
    }
}
