//! Rule 4 of SPEC §7: entry ids are the category prefix plus the first three tokens of
//! the normalized summary, with `-2`, `-3`… when taken; unique across the whole state.

use std::collections::HashSet;

use crate::matching::tokens;
use crate::state::Category;

/// The id a new entry of `category` with `summary` gets, given the ids already `taken`.
pub fn make_id<S: std::hash::BuildHasher>(
    category: Category,
    summary: &str,
    taken: &HashSet<String, S>,
) -> String {
    let words = tokens(summary);
    let stem = if words.is_empty() {
        "entry".to_string()
    } else {
        words
            .iter()
            .take(3)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join("-")
    };
    let base = format!("{}{stem}", category.id_prefix());
    if !taken.contains(&base) {
        return base;
    }
    // Among `taken.len() + 1` suffixes at least one is free.
    (2..=taken.len() + 2)
        .map(|n| format!("{base}-{n}"))
        .find(|candidate| !taken.contains(candidate))
        .unwrap_or(base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_take_three_tokens_and_count_up_when_taken() {
        let mut taken = HashSet::new();
        let id = make_id(
            Category::Patterns,
            "The backup job fails every Monday",
            &taken,
        );
        assert_eq!(id, "p-backup-job-fails");
        taken.insert(id);
        assert_eq!(
            make_id(Category::Patterns, "Backup job fails again", &taken),
            "p-backup-job-fails-2"
        );
        assert_eq!(make_id(Category::Hunches, "it is a", &taken), "h-entry");
    }
}
