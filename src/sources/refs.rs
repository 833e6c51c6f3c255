//! The short references of what a thread is shown (docs/spec.md §6): every mail, event
//! and file a source lists, and every other source's output as a whole, gets a label of
//! six characters — its kind's letter (`m` mail, `e` event, `f` file, `c` command, `s`
//! system, `t` transcript) and five of a hash of what names the
//! item for good (a mail's `Message-ID`, an event's `UID` and occurrence, a file's path,
//! a source's name) — shown as `[m3fq9k]` where the item starts. A finding cites the
//! references it came from (`refs`), and the aggregator keeps them with the entry: cheap
//! models copy a short label far more reliably than they reproduce a sentence, so the
//! label, not the wording, says which item a report is about.
//!
//! A reference is the same in every tick and thread while its item exists, and says
//! nothing of its item (five base-32 characters of a 64-bit FNV-1a hash).
//!
//! The labels a source showed are read back from its text where its renderer puts them
//! (at a line's start: `[m…] ` for a mail, `- [e…] ` for an event, `== [f…] ` for a file),
//! so a label cut off by the thread's input budget is not counted as shown; a finding's
//! reference that no source of its thread showed this tick is dropped by the tick.
//!
//! Pure: text in, labels out.

/// The letters a reference may use after its kind's letter.
const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

/// Characters of the hash in a reference.
const HASH_CHARS: usize = 5;

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The reference of the item of `kind` (its letter) named by `key`.
pub fn reference(kind: char, key: &str) -> String {
    let mut hash = fnv1a(key.as_bytes());
    let mut out = String::with_capacity(1 + HASH_CHARS);
    out.push(kind);
    for _ in 0..HASH_CHARS {
        out.push(char::from(ALPHABET[(hash & 31) as usize]));
        hash >>= 5;
    }
    out
}

/// How a reference is shown: `[m3fq9k]`.
pub fn label(reference: &str) -> String {
    format!("[{reference}]")
}

/// Whether `text` is a reference as [`reference()`] makes them.
pub fn is_reference(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 1 + HASH_CHARS
        && b[0].is_ascii_lowercase()
        && b[1..].iter().all(|c| ALPHABET.contains(c))
}

/// The reference a renderer put at the start of `line`, if any.
fn label_at(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix("== ")
        .or_else(|| line.strip_prefix("- "))
        .unwrap_or(line);
    let rest = rest.strip_prefix('[')?;
    let r = &rest[..rest.find(']')?];
    is_reference(r).then_some(r)
}

/// The references shown in `text` where a renderer puts them, in order, each once.
pub fn shown(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in text.lines().filter_map(label_at) {
        if !out.iter().any(|o| o == r) {
            out.push(r.to_string());
        }
    }
    out
}

/// Each reference shown in `text` ([`shown`]) with its item's text: the lines from its
/// label to the next label or the end (an item shown twice, both parts). Lines before
/// the first label are no item's.
pub fn items(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut at: Option<usize> = None;
    for line in text.lines() {
        if let Some(r) = label_at(line) {
            at = Some(out.iter().position(|(o, _)| o == r).unwrap_or_else(|| {
                out.push((r.to_string(), String::new()));
                out.len() - 1
            }));
        }
        if let Some(i) = at {
            out[i].1.push_str(line);
            out[i].1.push('\n');
        }
    }
    out
}

/// The reference of a source shown as a whole — a command's output, the system's
/// figures, the transcript — labelled in front of its text; `None` for the kinds whose
/// renderers label each item (mail, calendars, files) and for those that list memory
/// entries by their ids (the archive, the sample).
pub fn whole_source(kind: &str, name: &str) -> Option<String> {
    let letter = match kind {
        "command" => 'c',
        "system" => 's',
        "transcript" => 't',
        _ => return None,
    };
    Some(reference(letter, name))
}

/// `text` with the label of its source in front, when the source is shown whole.
pub fn label_whole(kind: &str, name: &str, text: &str) -> Option<String> {
    whole_source(kind, name).map(|r| format!("{} {text}", label(&r)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_is_stable_short_and_its_kind_s() {
        let r = reference('m', "<20261122.4411@acme.example>");
        assert_eq!(r, reference('m', "<20261122.4411@acme.example>"));
        assert_ne!(r, reference('m', "<20261122.4412@acme.example>"));
        assert_eq!(r.len(), 6);
        assert!(r.starts_with('m'));
        assert!(is_reference(&r));
        assert!(!is_reference("m3fq9"));
        assert!(!is_reference("M3FQ9K"));
        assert!(!is_reference("m3fq9k1"));
    }

    #[test]
    fn labels_are_read_back_where_renderers_put_them() {
        let a = reference('m', "a");
        let e = reference('e', "b");
        let f = reference('f', "c");
        let text = format!(
            "3 messages:\n\n{} Sun 22 Nov · unread\nFrom: x\nSubject: y\nbody mentions [{}] too\n\n- {} Thu 10:00 dentist\n== {} notes.md ==\n{} again\n",
            label(&a),
            reference('m', "elsewhere"),
            label(&e),
            label(&f),
            label(&a)
        );
        assert_eq!(shown(&text), [a.clone(), e.clone(), f.clone()]);
        assert!(shown("[not a ref] x\n[m3fq9] y").is_empty());
        // Each label's item: its lines up to the next label; a label met again, both.
        let items = items(&text);
        let of = |r: &str| items.iter().find(|(o, _)| o == r).map(|(_, t)| t.as_str());
        assert_eq!(items.len(), 3);
        let mail = of(&a).unwrap();
        assert!(
            mail.contains("Subject: y") && mail.contains("again"),
            "{mail}"
        );
        assert!(
            !mail.contains("3 messages") && !mail.contains("dentist"),
            "{mail}"
        );
        assert_eq!(
            of(&e),
            Some(format!("- {} Thu 10:00 dentist\n", label(&e)).as_str())
        );
        assert!(of(&f).unwrap().starts_with("== "));
    }
}
