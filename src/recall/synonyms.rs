//! The synonym table: groups of words a person uses for the same thing in the
//! assistant's domain (bill / invoice / payment, declined / blocked / refused, doctor /
//! GP / appointment, …). The built-in groups are data (`synonyms.txt`, compiled in);
//! the config adds groups (`[recall] synonyms`). Every word is stemmed as
//! [`super::words::stem`] does, so one form of a word is enough.
//!
//! Pure: groups in, look-ups out.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::words;

/// The built-in groups, one a line (`#` starts a comment).
pub const BUILTIN: &str = include_str!("synonyms.txt");

/// Stems and the stems that mean the same.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Synonyms {
    groups: Vec<Vec<String>>,
    by_stem: HashMap<String, Vec<usize>>,
}

impl Synonyms {
    /// The built-in table, read once.
    pub fn builtin() -> &'static Synonyms {
        static TABLE: OnceLock<Synonyms> = OnceLock::new();
        TABLE.get_or_init(|| {
            let mut table = Synonyms::default();
            for line in BUILTIN.lines() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                table.add(line.split_whitespace());
            }
            table
        })
    }

    /// The built-in table and `extra` groups (from the config).
    pub fn with_groups(extra: &[Vec<String>]) -> Synonyms {
        let mut table = Synonyms::builtin().clone();
        for group in extra {
            table.add(group.iter().map(String::as_str));
        }
        table
    }

    /// Adds a group; words are lowercased and stemmed, and a group of fewer than two
    /// distinct stems is ignored. A word of several (`a&e`, `new york`) becomes the stem
    /// of each of its words.
    pub fn add<'w>(&mut self, group: impl IntoIterator<Item = &'w str>) {
        let mut stems: Vec<String> = Vec::new();
        for word in group {
            for w in words::raw_words(word) {
                let s = words::stem(&w);
                if !stems.contains(&s) {
                    stems.push(s);
                }
            }
        }
        if stems.len() < 2 {
            return;
        }
        let index = self.groups.len();
        for s in &stems {
            self.by_stem.entry(s.clone()).or_default().push(index);
        }
        self.groups.push(stems);
    }

    /// The stems that mean the same as `stem` (itself left out), each once.
    pub fn of(&self, stem: &str) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for &g in self.by_stem.get(stem).into_iter().flatten() {
            for s in &self.groups[g] {
                if s != stem && !out.contains(&s.as_str()) {
                    out.push(s);
                }
            }
        }
        out
    }

    /// Whether `a` and `b` (stems) are in one group.
    pub fn meet(&self, a: &str, b: &str) -> bool {
        let (Some(ga), Some(gb)) = (self.by_stem.get(a), self.by_stem.get(b)) else {
            return false;
        };
        ga.iter().any(|g| gb.contains(g))
    }

    /// How many groups the table holds.
    pub fn len(&self) -> usize {
        self.groups.len()
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line of the built-in table is a group of at least two stems.
    #[test]
    fn every_builtin_line_is_a_group() {
        let lines = BUILTIN
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
            .count();
        assert_eq!(Synonyms::builtin().len(), lines);
        assert!(lines >= 40, "{lines}");
    }

    /// The paraphrases the recall benchmark's questions use, in stems.
    #[test]
    fn the_table_joins_what_people_say_for_the_same_thing() {
        let t = Synonyms::builtin();
        for (a, b) in [
            ("bill", "invoice"),
            ("payment", "pay"),
            ("paid", "payment"),
            ("declined", "blocked"),
            ("refused", "declined"),
            ("doctor", "gp"),
            ("electricity", "energy"),
            ("hospital", "ward"),
            ("dad", "father"),
            ("flight", "trip"),
        ] {
            assert!(t.meet(&words::stem(a), &words::stem(b)), "{a} {b}");
        }
        assert!(!t.meet(&words::stem("invoice"), &words::stem("hospital")));
    }

    #[test]
    fn config_groups_extend_the_table() {
        let t = Synonyms::with_groups(&[vec!["Octopus".into(), "electricity".into()]]);
        assert!(t.meet("octopus", &words::stem("power")) || t.meet("octopus", "electr"));
        assert!(
            t.of("octopus")
                .contains(&words::stem("electricity").as_str())
        );
        // A group of one word is ignored.
        let one = Synonyms::with_groups(&[vec!["alone".into()]]);
        assert!(one.of("alon").is_empty());
    }
}
