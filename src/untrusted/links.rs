//! Links made inert for a message the user asked thinker to send though it was held for
//! a link (`thinker release`): every link [`super::outbound::read`] finds keeps its text
//! but cannot be clicked or pasted as it is — its scheme `http(s)://` becomes
//! `hxxp(s)[:]//` and the dots of its host `[.]` (`https://bank.example.evil/login` →
//! `hxxps[:]//bank[.]example[.]evil/login`), the way security teams pass on a suspicious
//! address. Nothing a defanged text holds reads as a link any more.
//!
//! Must not: decide when a text is defanged (the caller's policy), or do I/O.

/// `text` with every link defanged (see the module doc). Idempotent.
pub fn defang(text: &str) -> String {
    let mut hosts: Vec<String> = super::outbound::read(text)
        .links
        .into_iter()
        .map(|l| l.host)
        .filter(|h| h.contains('.'))
        .collect();
    // Longer hosts first, so `bank.example` does not half-defang `www.bank.example`.
    hosts.sort_by_key(|h| std::cmp::Reverse(h.len()));
    let mut out = text.to_string();
    for host in &hosts {
        out = map_ascii_case(&out, host, |found| found.replace('.', "[.]"));
    }
    for scheme in ["https://", "http://"] {
        // `http://` → `hxxp[:]//`, each letter's case kept.
        out = map_ascii_case(&out, scheme, |found| {
            let name: String = found
                .trim_end_matches("://")
                .chars()
                .enumerate()
                .map(|(i, c)| match (i, c.is_ascii_uppercase()) {
                    (1 | 2, true) => 'X',
                    (1 | 2, false) => 'x',
                    _ => c,
                })
                .collect();
            format!("{name}[:]//")
        });
    }
    out
}

/// `text` with every ASCII-case-insensitive occurrence of `needle` replaced by what
/// `with` makes of it (as written).
fn map_ascii_case(text: &str, needle: &str, with: impl Fn(&str) -> String) -> String {
    if needle.is_empty() {
        return text.to_string();
    }
    let lower = text.to_ascii_lowercase();
    let needle = needle.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while let Some(found) = lower[at..].find(&needle) {
        let start = at + found;
        out.push_str(&text[at..start]);
        out.push_str(&with(&text[start..start + needle.len()]));
        at = start + needle.len();
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Table: a text and what it becomes.
    #[test]
    fn links_are_defanged_and_the_rest_kept() {
        let cases = [
            (
                "Log in at https://bank.example.evil/login now",
                "Log in at hxxps[:]//bank[.]example[.]evil/login now",
            ),
            (
                "see HTTP://WWW.Example.org/a and www.example.org",
                "see HXXP[:]//WWW[.]Example[.]org/a and www[.]example[.]org",
            ),
            ("the disk is 95% full.", "the disk is 95% full."),
            (
                "call http://10.0.0.1:8080/x",
                "call hxxp[:]//10[.]0[.]0[.]1:8080/x",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(defang(text), want, "{text}");
            assert_eq!(defang(want), want, "idempotent: {want}");
        }
    }

    #[test]
    fn a_defanged_text_links_to_nothing() {
        let text = "pay at https://pay.evil.example/x or www.evil.example";
        assert!(super::super::outbound::read(&defang(text)).links.is_empty());
    }
}
