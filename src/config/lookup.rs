//! The line of a key in the config file's text, for error messages: `key_line` finds
//! `providers.g.retries` or `threads.watcher.sources[1].max_bytes` (or, for a key left
//! out, its nearest table) through the TOML parser's spans.
//!
//! Only called when there is an error: the text is parsed again then. Must not: judge a
//! value.

/// The line (1-based) of the key an error names, e.g. `providers.g.retries`,
/// `threads.watcher.sources[1].max_bytes` or `memory.caps.patterns`. When the key is not
/// in the file (a default, or an inherited value), the line of the nearest table that is.
pub(super) fn key_line(text: &str, key: &str) -> Option<usize> {
    let doc = toml::de::DeTable::parse(text).ok()?;
    let mut segments = Vec::new();
    for part in key.split('.') {
        let (name, indices) = part.split_once('[').unwrap_or((part, ""));
        segments.push(Segment::Key(name));
        for i in indices.split('[') {
            if let Ok(n) = i.trim_end_matches(']').parse::<usize>() {
                segments.push(Segment::Index(n));
            }
        }
    }
    let span = find_span(doc.get_ref(), &segments)?;
    Some(text.get(..span.start)?.matches('\n').count() + 1)
}

#[derive(Clone, Copy)]
enum Segment<'k> {
    Key(&'k str),
    Index(usize),
}

/// The span of the deepest part of `path` found under `table`.
fn find_span(
    table: &toml::de::DeTable<'_>,
    path: &[Segment<'_>],
) -> Option<std::ops::Range<usize>> {
    let keys: Vec<&str> = path
        .iter()
        .map_while(|s| match s {
            Segment::Key(k) => Some(*k),
            Segment::Index(_) => None,
        })
        .collect();
    // A name may itself contain dots (`[providers."a.b"]`): the longest one first.
    for n in (1..=keys.len()).rev() {
        let name = keys[..n].join(".");
        if let Some((k, v)) = table.iter().find(|(k, _)| k.get_ref().as_ref() == name) {
            return Some(find_value(v, &path[n..]).unwrap_or_else(|| k.span()));
        }
    }
    None
}

fn find_value(
    value: &toml::Spanned<toml::de::DeValue<'_>>,
    path: &[Segment<'_>],
) -> Option<std::ops::Range<usize>> {
    match (value.get_ref(), path.first()?) {
        (toml::de::DeValue::Table(t), Segment::Key(_)) => find_span(t, path),
        (toml::de::DeValue::Array(a), Segment::Index(i)) => {
            let item = a.get(*i)?;
            Some(find_value(item, &path[1..]).unwrap_or_else(|| item.span()))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_left_out_points_at_its_table() {
        let text = "[providers.p]\nkind = \"ollama\"\n[tick]\ndeadline_seconds = 60\n";
        assert_eq!(key_line(text, "providers.p.retries"), Some(1));
        assert_eq!(key_line(text, "tick.deadline_seconds"), Some(4));
        assert_eq!(key_line(text, "escalation.model"), None);
        let dotted = "[providers.\"a.b\"]\nkind = \"ollama\"\nretries = 3\n";
        assert_eq!(key_line(dotted, "providers.a.b.retries"), Some(3));
    }
}
