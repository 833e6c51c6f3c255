//! Ranking the memory for a question: BM25 over each entry's words (its summary, the
//! words its other wordings add, the names of the sources it came from, the weekday and
//! month of its due date), with IDF
//! taken over the memory and the archive, stems from [`super::words`], synonyms from
//! [`super::synonyms`], and the time windows of [`super::time`]; optionally blended with
//! the cosine similarity of embeddings ([`Semantic`]).
//!
//! What is returned must clear two bars, so that a question about something else gets
//! nothing: the share of the question's weight (its words' IDF) that the entry matches
//! ([`Acceptance`]: nearly half of it with one word, less with two or more), and a score near
//! the best entry's. A question made only of time words ("anything urgent?", "what's on
//! tomorrow") gets what is due in its window instead.
//!
//! A question of two or three parts ("is my disk ok? the backup script keeps failing",
//! "my card got declined and the internet is down": [`clauses`]) is also asked part by
//! part, each against the same bars, each entry scored by the list it ranks best in (so
//! every part's best answer scores 1, like the whole's): an entry that answers one
//! part well is not dropped because another part's entry scores higher on the whole
//! (issue 32: `Disk /home is 91% full`, strength 9, lost to a strength-3 hunch about the
//! backup script).
//!
//! Pure: the state, the question, the archive's summaries, the clock in; entries out.

use std::collections::HashMap;

use super::fields;
use super::synonyms::Synonyms;
use super::time::{self, TimeAsk};
use super::words;
use crate::clock::Clock;
use crate::state::{Category, Entry, State};

/// BM25's term-frequency saturation.
const K1: f64 = 1.2;
/// BM25's length normalisation.
const B: f64 = 0.75;
/// A question's word met by a synonym counts this much of the word itself.
pub const SYNONYM_WEIGHT: f64 = 0.7;
/// …by a shared prefix of at least `PREFIX_LETTERS` letters (`config` /
/// `configuration`).
pub const PREFIX_WEIGHT: f64 = 0.8;
const PREFIX_LETTERS: usize = 5;
/// Synonyms and prefixes count this share of their weight when an entry of the memory
/// has the question's word itself.
const BACK_OFF: f64 = 0.5;
/// A source's name, or the weekday or month of the due date, counts this much of a
/// word of the summary.
const SIDE_WEIGHT: f64 = 0.5;
/// Entries in a time window the question names (or with a due date, for a question
/// that asks when) rank this much higher…
const TIME_BOOST: f64 = 1.25;
/// …and need this share of the coverage others need.
const TIME_EASE: f64 = 0.6;
/// The floor applies from this many documents (memory and archive) up.
const FLOOR_MIN_DOCS: f64 = 10.0;
/// An importance point above or below 5 moves a lexical score by this share.
const IMPORTANCE_PRIOR: f64 = 0.04;
/// A strength point above or below 5 moves it by this share.
const STRENGTH_PRIOR: f64 = 0.02;

/// The bars an entry must clear (see the module's doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Acceptance {
    /// With one word of the question matched: this share of its weight.
    pub one_word: f64,
    /// With two or more: this share.
    pub many_words: f64,
    /// The score an entry needs at least: 90 % of what one matched word found in this
    /// share of the documents (memory and archive; at least one document) gives, so a
    /// word most entries have carries nothing on its own, in a memory of 3 entries as
    /// in one of 3,000 (not below 10 documents: too few to tell a common word by).
    pub floor_share: f64,
    /// And this share of the best entry's score.
    pub relative: f64,
}

impl Default for Acceptance {
    fn default() -> Self {
        Acceptance {
            one_word: 0.45,
            many_words: 0.3,
            floor_share: 0.4,
            relative: 0.45,
        }
    }
}

/// Embeddings of the question and of the entries (by id), for the semantic rerank.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Semantic {
    pub question: Vec<f32>,
    pub entries: HashMap<String, Vec<f32>>,
    /// An entry no word of the question matches is returned from this cosine
    /// similarity up.
    pub min_similarity: f64,
    /// The similarity's share of the blended score (the lexical score's is the rest).
    pub weight: f64,
}

/// What the ranking weighs a question against besides the state.
#[derive(Clone, Copy, Debug)]
pub struct Inputs<'a> {
    /// Summaries of archived entries: they count in the IDF, and are never returned.
    pub archive: &'a [String],
    pub synonyms: &'a Synonyms,
    pub acceptance: Acceptance,
    pub semantic: Option<&'a Semantic>,
    /// How many local days ahead "what's due?" and "coming up" reach
    /// (`[recall] due_horizon_days`).
    pub due_horizon_days: u32,
}

impl Default for Inputs<'_> {
    fn default() -> Self {
        Inputs {
            archive: &[],
            synonyms: Synonyms::builtin(),
            acceptance: Acceptance::default(),
            semantic: None,
            due_horizon_days: time::DEFAULT_DUE_HORIZON_DAYS,
        }
    }
}

/// One entry's words with their weights, and its length.
struct Doc {
    terms: Vec<(String, f64)>,
    /// The surface word of each stem of the summary, for `matched`.
    surface: HashMap<String, String>,
    len: f64,
}

fn doc(entry: &Entry, clock: &Clock) -> Doc {
    let mut terms: Vec<(String, f64)> = Vec::new();
    let mut surface = HashMap::new();
    let mut add = |stem: String, weight: f64| {
        if let Some(t) = terms.iter_mut().find(|(s, _)| *s == stem) {
            t.1 += weight;
        } else {
            terms.push((stem, weight));
        }
    };
    let mut len: f64 = 0.0;
    let mut own: Vec<String> = Vec::new();
    for w in words::raw_words(&entry.summary) {
        if w.chars().nth(1).is_none() || words::is_filler(&w) {
            continue;
        }
        let s = words::stem(&w);
        surface.entry(s.clone()).or_insert(w);
        own.push(s.clone());
        add(s, 1.0);
        len += 1.0;
    }
    // The other wordings of its fact (docs/spec.md §7.2): a word the summary lacks, once
    // at a side field's weight, however many wordings say it.
    let mut extra: Vec<String> = Vec::new();
    for said in &entry.said {
        for w in words::raw_words(&said.text) {
            if w.chars().nth(1).is_none() || words::is_filler(&w) {
                continue;
            }
            let s = words::stem(&w);
            if !own.contains(&s) && !extra.contains(&s) {
                surface.entry(s.clone()).or_insert(w);
                extra.push(s);
            }
        }
    }
    for s in extra {
        add(s, SIDE_WEIGHT);
    }
    for name in fields::source_names(entry) {
        for w in words::raw_words(name) {
            if w.chars().nth(1).is_some() && !words::is_filler(&w) {
                let s = words::stem(&w);
                surface.entry(s.clone()).or_insert(w);
                add(s, SIDE_WEIGHT);
            }
        }
    }
    if let Some(due) = entry.due {
        let local = clock.zone.at(due);
        let day = time::weekday_word(chrono::Datelike::weekday(&local));
        add(words::stem(day), SIDE_WEIGHT);
        surface
            .entry(words::stem(day))
            .or_insert_with(|| day.to_string());
        let month = local.format("%B").to_string().to_lowercase();
        surface
            .entry(words::stem(&month))
            .or_insert_with(|| month.clone());
        add(words::stem(&month), SIDE_WEIGHT);
    }
    Doc {
        terms,
        surface,
        len: len.max(1.0),
    }
}

/// Document frequencies over the memory and the archive.
struct Corpus {
    df: HashMap<String, u32>,
    /// The stems of the memory's entries (not the archive's).
    in_memory: std::collections::HashSet<String>,
    docs: f64,
    avg_len: f64,
}

impl Corpus {
    fn new(docs: &[Doc], archive: &[String]) -> Corpus {
        let mut df: HashMap<String, u32> = HashMap::new();
        let mut total_len: f64 = docs.iter().map(|d| d.len).sum();
        for d in docs {
            for (s, _) in &d.terms {
                *df.entry(s.clone()).or_default() += 1;
            }
        }
        // The archive's words, stemmed once each (archived summaries repeat words).
        let mut stems: HashMap<String, String> = HashMap::new();
        let mut seen: Vec<String> = Vec::new();
        for summary in archive {
            seen.clear();
            let mut len = 0.0;
            for w in words::raw_words(summary) {
                if w.chars().nth(1).is_none() || words::is_filler(&w) {
                    continue;
                }
                len += 1.0;
                let s = stems.entry(w).or_insert_with_key(|w| words::stem(w));
                if !seen.contains(s) {
                    seen.push(s.clone());
                }
            }
            for s in seen.drain(..) {
                *df.entry(s).or_default() += 1;
            }
            total_len += len;
        }
        let n = (docs.len() + archive.len()) as f64;
        Corpus {
            df,
            in_memory: docs
                .iter()
                .flat_map(|d| d.terms.iter().map(|(s, _)| s.clone()))
                .collect(),
            docs: n.max(1.0),
            avg_len: if n > 0.0 {
                (total_len / n).max(1.0)
            } else {
                1.0
            },
        }
    }

    /// How much a question's word weighs: its IDF when the memory or the archive has
    /// it; else, when a synonym of it is there, what that synonym can give (a word the
    /// memory knows by another name); else the IDF of a word found nowhere.
    fn weight_of(&self, stem: &str, synonyms: &Synonyms) -> f64 {
        if self.df.contains_key(stem) {
            return self.idf(stem);
        }
        synonyms
            .of(stem)
            .into_iter()
            .filter(|s| self.df.contains_key(*s))
            .map(|s| SYNONYM_WEIGHT * self.idf(s))
            .reduce(f64::max)
            .unwrap_or_else(|| self.idf(stem))
    }

    fn idf(&self, stem: &str) -> f64 {
        self.idf_at(f64::from(self.df.get(stem).copied().unwrap_or(0)))
    }

    /// The IDF of a word found in `df` documents.
    fn idf_at(&self, df: f64) -> f64 {
        (1.0 + (self.docs - df + 0.5) / (df + 0.5)).ln()
    }
}

/// A question, analysed once.
#[derive(Debug)]
pub struct Question {
    pub terms: Vec<String>,
    pub time: TimeAsk,
    /// It asks when ("when is…", "what time…", "what day…"): an entry with a due date
    /// answers it better than one without.
    pub asks_when: bool,
    /// Its parts, when it asks about several matters ([`clauses`]); else none.
    pub parts: Vec<Question>,
}

impl Question {
    /// `text` analysed, with its parts, "due" and "soon" reaching
    /// [`time::DEFAULT_DUE_HORIZON_DAYS`] ahead ([`Question::with_horizon`] to change it).
    pub fn new(text: &str) -> Question {
        let mut question = Question::part(text);
        let parts = clauses(text);
        if parts.len() > 1 {
            question.parts = parts.iter().map(|p| Question::part(p)).collect();
        }
        question
    }

    /// `text` analysed as one matter.
    fn part(text: &str) -> Question {
        let raw = words::raw_words(text);
        let time = TimeAsk::parse(&raw);
        let mut terms: Vec<String> = Vec::new();
        for w in &raw {
            if w.chars().nth(1).is_none() || words::is_filler(w) || time::is_time_word(w) {
                continue;
            }
            let s = words::stem(w);
            if !terms.contains(&s) {
                terms.push(s);
            }
        }
        let asks_when = raw.iter().enumerate().any(|(i, w)| {
            w == "when"
                || (w == "what"
                    && raw
                        .get(i + 1)
                        .is_some_and(|n| matches!(n.as_str(), "time" | "day" | "date")))
        });
        Question {
            terms,
            time,
            asks_when,
            parts: Vec::new(),
        }
    }

    /// The same question with "due" and "soon" reaching `days` ahead.
    #[must_use]
    pub fn with_horizon(mut self, days: u32) -> Question {
        self.time = self.time.with_horizon(days);
        self.parts = self
            .parts
            .into_iter()
            .map(|p| p.with_horizon(days))
            .collect();
        self
    }
}

/// A question asked in more parts than this is a prompt (a paragraph of a request), not
/// a question of several matters: it is not split.
pub const MAX_CLAUSES: usize = 3;

/// The parts of a question about several matters: split at `?`, `!`, `;`, a full stop
/// before a space or the end, a line break, and the words "and", "also", "plus", "but";
/// parts with no meaningful word dropped. One part (the text itself) when there are
/// fewer than two such parts or more than [`MAX_CLAUSES`].
pub fn clauses(text: &str) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let ends = matches!(c, '?' | '!' | ';' | '\n')
            || (c == '.' && chars.peek().is_none_or(|n| n.is_whitespace()));
        if ends {
            parts.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
    }
    parts.push(current);
    let mut split: Vec<String> = Vec::new();
    for part in parts {
        let mut clause: Vec<&str> = Vec::new();
        for word in part.split_whitespace() {
            let bare = word
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            if matches!(bare.as_str(), "and" | "also" | "plus" | "but") {
                split.push(clause.join(" "));
                clause.clear();
            } else {
                clause.push(word);
            }
        }
        split.push(clause.join(" "));
    }
    let meaningful: Vec<String> = split
        .into_iter()
        .filter(|c| {
            words::raw_words(c).iter().any(|w| {
                (w.chars().nth(1).is_some() && !words::is_filler(w)) || time::is_time_word(w)
            })
        })
        .collect();
    if meaningful.len() < 2 || meaningful.len() > MAX_CLAUSES {
        return vec![text.to_string()];
    }
    meaningful
}

/// How well one question word is met in a doc: its weight, the doc's stem, and that
/// stem's (weighted) frequency.
fn best_match<'d>(
    q: &str,
    d: &'d Doc,
    synonyms: &Synonyms,
    corpus: &Corpus,
) -> Option<(f64, &'d str, f64)> {
    // Other words are weaker evidence where the memory has the word itself.
    let known = if corpus.in_memory.contains(q) {
        BACK_OFF
    } else {
        1.0
    };
    let mut best: Option<(f64, &str, f64)> = None;
    for (s, tf) in &d.terms {
        let w = if s == q {
            1.0
        } else if synonyms.meet(q, s) {
            SYNONYM_WEIGHT * known
        } else if prefix_meets(q, s) {
            PREFIX_WEIGHT * known
        } else {
            continue;
        };
        let value = w * corpus.idf(s);
        if best.is_none_or(|(bw, bs, _)| value > bw * corpus.idf(bs)) {
            best = Some((w, s, *tf));
        }
    }
    best
}

fn prefix_meets(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.chars().count() >= PREFIX_LETTERS
        && long.starts_with(short)
        && !short.chars().any(|c| c.is_ascii_digit())
}

/// One entry's lexical score for the question.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lexical {
    pub score: f64,
    /// The share of the question's weight matched, 0..=1.
    pub coverage: f64,
    /// How many of the question's words matched.
    pub words: usize,
    /// The entry's words that matched.
    pub matched: Vec<String>,
}

/// An entry the ranking returns: its category, a score in 0..=1 relative to the best
/// (1 for an id or a path named outright), and what matched.
#[derive(Clone, Debug, PartialEq)]
pub struct Scored<'a> {
    pub category: Category,
    pub entry: &'a Entry,
    pub score: f64,
    pub matched: Vec<String>,
    /// Not matched itself: linked (SPEC §7.12) to this matched entry, by this kind.
    pub linked: Option<(&'a str, crate::state::LinkKind)>,
}

/// Each doc's lexical score for the question.
fn lexical_scores(
    question: &Question,
    docs: &[Doc],
    corpus: &Corpus,
    synonyms: &Synonyms,
) -> Vec<Lexical> {
    let mass: f64 = question
        .terms
        .iter()
        .map(|q| words::weight(q) * corpus.weight_of(q, synonyms))
        .sum();
    docs.iter()
        .map(|d| {
            let mut l = Lexical::default();
            for q in &question.terms {
                let Some((w, s, tf)) = best_match(q, d, synonyms, corpus) else {
                    continue;
                };
                let idf = corpus.idf(s);
                let norm = K1 * (1.0 - B + B * d.len / corpus.avg_len);
                l.score += w * idf * tf * (K1 + 1.0) / (tf + norm);
                l.coverage += words::weight(q) * w * idf;
                l.words += 1;
                let word = d.surface.get(s).cloned().unwrap_or_else(|| s.to_string());
                if !l.matched.contains(&word) {
                    l.matched.push(word);
                }
            }
            if mass > 0.0 {
                l.coverage = (l.coverage / mass).min(1.0);
            }
            l
        })
        .collect()
}

/// A question about time alone: the entries in its windows, overdue then soonest (then
/// the most important), scored in that order.
fn by_time(
    entries: &[(Category, &Entry)],
    question: &Question,
    clock: &Clock,
) -> Vec<(usize, f64, Vec<String>)> {
    let mut picked: Vec<(usize, f64, Vec<String>)> = entries
        .iter()
        .enumerate()
        .filter(|(_, (_, e))| question.time.holds(e, clock))
        .map(|(i, _)| (i, 1.0, vec!["(time)".to_string()]))
        .collect();
    picked.sort_by(|a, b| {
        let (ea, eb) = (entries[a.0].1, entries[b.0].1);
        match (ea.due, eb.due) {
            (Some(x), Some(y)) => x.cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        }
        .then(fields::importance(eb).total_cmp(&fields::importance(ea)))
    });
    for (rank, p) in picked.iter_mut().enumerate() {
        p.1 = 1.0 / (1.0 + rank as f64 * 0.01);
    }
    picked
}

/// `picked` best first: by score, then the most important, the strongest, the category
/// order, the id.
fn order(entries: &[(Category, &Entry)], picked: &mut [(usize, f64, Vec<String>)]) {
    picked.sort_by(|a, b| {
        let (ea, eb) = (entries[a.0].1, entries[b.0].1);
        b.1.total_cmp(&a.1)
            .then(fields::importance(eb).total_cmp(&fields::importance(ea)))
            .then(fields::strength(eb).total_cmp(&fields::strength(ea)))
            .then(entries[a.0].0.cmp(&entries[b.0].0))
            .then(ea.id.cmp(&eb.id))
    });
}

/// The picks of several lists (a question's and its parts'), each entry once at its best
/// score (each list's scores are relative to its own best: every part's best answer
/// scores 1).
fn merged(lists: Vec<Vec<(usize, f64, Vec<String>)>>) -> Vec<(usize, f64, Vec<String>)> {
    let mut out: Vec<(usize, f64, Vec<String>)> = Vec::new();
    for pick in lists.into_iter().flatten() {
        match out.iter_mut().find(|o| o.0 == pick.0) {
            Some(o) if pick.1 > o.1 => *o = pick,
            Some(_) => {}
            None => out.push(pick),
        }
    }
    out
}

/// The entries named outright first, then the picks in their order; at most `max`.
fn finish<'a>(
    entries: &[(Category, &'a Entry)],
    outright: &[(Category, &'a Entry, String)],
    picked: Vec<(usize, f64, Vec<String>)>,
    max: usize,
) -> Vec<Scored<'a>> {
    let mut out: Vec<Scored<'a>> = outright
        .iter()
        .map(|(category, entry, what)| Scored {
            linked: None,
            category: *category,
            entry,
            score: 1.0,
            matched: vec![what.clone()],
        })
        .collect();
    let rest: Vec<Scored<'a>> = picked
        .into_iter()
        .filter(|(i, _, _)| !out.iter().any(|o| o.entry.id == entries[*i].1.id))
        .map(|(i, score, matched)| Scored {
            linked: None,
            category: entries[i].0,
            entry: entries[i].1,
            score: score.min(1.0),
            matched,
        })
        .collect();
    out.extend(rest);
    out.truncate(max);
    out
}

/// Ranks the state's entries for `question`; `outright` are entries named by id or
/// path (always in, first). A question of several parts: the whole's picks and each
/// part's, each entry at its best score. At most `max` returned.
pub fn rank<'a>(
    state: &'a State,
    question: &Question,
    outright: &[(Category, &'a Entry, String)],
    clock: &Clock,
    inputs: &Inputs<'_>,
    max: usize,
) -> Vec<Scored<'a>> {
    let entries: Vec<(Category, &Entry)> = state.all_entries().collect();
    let docs: Vec<Doc> = entries.iter().map(|(_, e)| doc(e, clock)).collect();
    let corpus = Corpus::new(&docs, inputs.archive);
    let memory = Memory {
        entries: &entries,
        docs: &docs,
        corpus: &corpus,
        clock,
        inputs,
    };
    let mut lists = vec![memory.pick(question, inputs.semantic)];
    lists.extend(question.parts.iter().map(|p| memory.pick(p, None)));
    let mut picked = merged(lists);
    order(&entries, &mut picked);
    finish(&entries, outright, picked, max)
}

/// The memory as ranking weighs it, built once for a question and its parts.
struct Memory<'m, 'a> {
    entries: &'m [(Category, &'a Entry)],
    docs: &'m [Doc],
    corpus: &'m Corpus,
    clock: &'m Clock,
    inputs: &'m Inputs<'m>,
}

impl Memory<'_, '_> {
    /// The entries that answer `question` with their scores relative to the best (1),
    /// blended with `semantic` when given.
    fn pick(
        &self,
        question: &Question,
        semantic: Option<&Semantic>,
    ) -> Vec<(usize, f64, Vec<String>)> {
        let (entries, docs, corpus, clock) = (self.entries, self.docs, self.corpus, self.clock);
        let acceptance = self.inputs.acceptance;
        // Below a few documents there is nothing to tell a common word by: no floor.
        let floor = if corpus.docs < FLOOR_MIN_DOCS {
            0.0
        } else {
            0.9 * corpus.idf_at((acceptance.floor_share * corpus.docs).max(1.0))
        };
        let lexical = lexical_scores(question, docs, corpus, self.inputs.synonyms);

        // An entry in a time window the question names needs less of its words ("is the
        // release going out this week?": the release due this week).
        let in_time: Vec<bool> = entries
            .iter()
            .map(|(_, e)| !question.time.is_empty() && question.time.holds(e, clock))
            .collect();
        let clears = |i: usize, l: &Lexical| {
            let ease = if in_time[i] { TIME_EASE } else { 1.0 };
            l.score >= floor
                && match l.words {
                    0 => false,
                    1 => l.coverage >= acceptance.one_word * ease,
                    _ => l.coverage >= acceptance.many_words * ease,
                }
        };
        let best = lexical
            .iter()
            .enumerate()
            .filter(|(i, l)| clears(*i, l))
            .map(|(_, l)| l.score)
            .fold(0.0_f64, f64::max);
        let mut picked: Vec<(usize, f64, Vec<String>)> = lexical
            .iter()
            .enumerate()
            .filter(|(i, l)| clears(*i, l) && l.score >= acceptance.relative * best)
            .map(|(i, l)| {
                let dated = question.asks_when && entries[i].1.due.is_some();
                let boost = if in_time[i] || dated { TIME_BOOST } else { 1.0 };
                (i, l.score * boost * prior(entries[i].1), l.matched.clone())
            })
            .collect();
        let top = picked.iter().map(|p| p.1).fold(0.0_f64, f64::max);
        for p in &mut picked {
            p.1 /= top;
        }

        if let Some(sem) = semantic {
            picked = blend(entries, &lexical, picked, best, sem);
        }

        // A question about time alone (no word of it matched): what is due in its window.
        let unmatched = question
            .terms
            .iter()
            .filter(|q| {
                !docs
                    .iter()
                    .any(|d| best_match(q, d, self.inputs.synonyms, corpus).is_some())
            })
            .count();
        if picked.is_empty() && !question.time.is_empty() && unmatched <= 1 {
            picked = by_time(entries, question, clock);
        }
        picked
    }
}

/// An entry's importance and strength as a prior on its score: ±4 % an importance
/// point from 5, ±2 % a strength point (a matter the threads judged important and keep
/// seeing ranks before a trivia of the same words).
fn prior(entry: &Entry) -> f64 {
    1.0 + IMPORTANCE_PRIOR * (fields::importance(entry) - fields::DEFAULT_IMPORTANCE)
        + STRENGTH_PRIOR * (fields::strength(entry) - 5.0)
}

/// The cosine similarity of two vectors (0 when either is empty, zero or of another
/// length).
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    if a.len() != b.len() || a.is_empty() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0_f64, 0.0_f64, 0.0_f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}

/// The lexical picks blended with the similarity, plus the entries no word matched
/// whose similarity reaches `min_similarity`.
fn blend(
    entries: &[(Category, &Entry)],
    lexical: &[Lexical],
    picked: Vec<(usize, f64, Vec<String>)>,
    best: f64,
    sem: &Semantic,
) -> Vec<(usize, f64, Vec<String>)> {
    let similarity = |i: usize| {
        sem.entries
            .get(&entries[i].1.id)
            .map_or(0.0, |v| cosine(&sem.question, v))
    };
    let w = sem.weight.clamp(0.0, 1.0);
    let mut out: Vec<(usize, f64, Vec<String>)> = picked
        .into_iter()
        .map(|(i, lex, matched)| (i, (1.0 - w) * lex + w * similarity(i).max(0.0), matched))
        .collect();
    for (i, l) in lexical.iter().enumerate() {
        if out.iter().any(|(j, _, _)| *j == i) {
            continue;
        }
        let sim = similarity(i);
        if sim >= sem.min_similarity {
            let lex = if best > 0.0 { l.score / best } else { 0.0 };
            out.push((
                i,
                (1.0 - w) * lex.min(1.0) + w * sim,
                vec![format!("(similar {sim:.2})")],
            ));
        }
    }
    out
}
