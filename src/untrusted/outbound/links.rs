//! The hosts a text names, read as a browser or a phone would, and the site each belongs
//! to.
//!
//! The text is read in its [view](super::text::view) (full-width forms and Unicode dots
//! folded), so `acme-billing。com/rechnung` names `acme-billing.com`. Three shapes name a
//! host ([`Shape`]):
//! - **an address with a scheme**: `https://…`, and what a browser makes of the lenient
//!   forms (`https:\\evil.example\pay`, `https:evil.example`); parsed by the `url` crate
//!   (WHATWG), so IDNA, the user part of `https://bank.example@evil.example/` and IPv4
//!   in any spelling (`http://0xCB.0x00.0x71.0x36/`) come out as the browser has them;
//! - **`www.` or a path**: `www.host`, `host/…`, `host?…`, `host#…`, `host:port/…`, an IPv4
//!   address with a path (`185.23.77.4/invoice`; a CIDR block such as `10.0.0.0/16` has no
//!   path);
//! - **a bare host**: a domain name alone (`example.org`), named whenever its top-level
//!   domain is in the public suffix list (the `psl` crate): a mention, not yet a link.
//!
//! Without a scheme, a host needs a top-level domain of the public suffix list, or one of
//! the names reserved for examples (`.example`, `.test`, `.invalid`, RFC 2606: examples
//! stand for real sites); `www.` any top-level domain of letters. An intranet name
//! (`payments-api.internal`, `nas.local`) names a host only with a scheme. `notes.md` is a mention of a host (`.md`
//! is Moldova's), which is harmless: a mention vouches, it is not a link.
//!
//! Text analysis only, no regex built (the tick runs [`mentions`] on every source).

use url::{Host, Url};

/// How a host is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Shape {
    /// With a scheme (`https://…`).
    Scheme,
    /// With `www.` in front or a path after it.
    Clickable,
    /// A domain name alone.
    Bare,
}

/// A host a text names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mention {
    /// The host as a browser has it: lowercase, IDNA (ASCII), an IP address in its
    /// canonical form (`[::1]` for IPv6).
    pub host: String,
    /// How it is written.
    pub shape: Shape,
    /// Byte offsets in the view where the address starts and ends.
    pub start: usize,
    pub end: usize,
    /// The address as written, lowercased (scheme, host, path), for words such as `login`.
    pub address: String,
}

/// Every host `view` names, in order of appearance (repeats kept).
pub fn mentions(view: &str) -> Vec<Mention> {
    let mut found = Vec::new();
    let mut taken: Vec<(usize, usize)> = Vec::new();
    schemes(view, &mut found, &mut taken);
    hosts(view, &taken, &mut found);
    found.sort_by_key(|m| m.start);
    found
}

/// A host's site: its registrable domain by the public suffix list (`mail.bank.example`
/// → `bank.example`, `shop.co.uk` → `shop.co.uk`, `evil.github.io` → `evil.github.io`); an
/// IP address, or a name with no label before its suffix, is its own site.
pub fn site(host: &str) -> String {
    let host = host.trim_end_matches('.').to_lowercase();
    if host.starts_with('[') || host.parse::<std::net::Ipv4Addr>().is_ok() {
        return host;
    }
    psl::domain_str(&host).map_or(host.clone(), str::to_string)
}

/// `name` (a configured domain, in any script) as a host is compared: lowercase IDNA
/// ASCII; `None` when it is no host name.
pub fn host_name(name: &str) -> Option<String> {
    let name = name.trim().trim_start_matches("*.").trim_end_matches('.');
    let url = Url::parse(&format!("http://{name}/")).ok()?;
    host_string(&url)
}

/// Schemes a browser opens without `//` after the colon (`https:evil.example`).
const SPECIAL: &[&str] = &["http", "https", "ftp", "ws", "wss"];

/// Addresses with a scheme: `scheme://…`, `scheme:\\…` and, for a web scheme,
/// `scheme:host…`.
fn schemes(view: &str, found: &mut Vec<Mention>, taken: &mut Vec<(usize, usize)>) {
    let bytes = view.as_bytes();
    for (colon, _) in view.match_indices(':') {
        let start = bytes[..colon]
            .iter()
            .rposition(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))
            .map_or(0, |p| p + 1);
        // A scheme starts with a letter: skip the digits, dots and dashes before it.
        let Some(start) = (start..colon).find(|&i| bytes[i].is_ascii_alphabetic()) else {
            continue;
        };
        let scheme = view[start..colon].to_ascii_lowercase();
        if scheme.len() < 2 || scheme == "file" {
            continue;
        }
        let rest = &view[colon + 1..];
        let slashes = rest.starts_with("//")
            || rest.starts_with("\\\\")
            || rest.starts_with("/\\")
            || rest.starts_with("\\/");
        let special = SPECIAL.contains(&scheme.as_str());
        let lenient = special
            && rest
                .chars()
                .next()
                .is_some_and(|c| c.is_alphanumeric() || c == '/' || c == '\\');
        if !slashes && !lenient {
            continue;
        }
        let end = colon + 1 + address_len(rest);
        // Another scheme makes the host readable too (`hxxps://evil.example`).
        let as_web = if special {
            view[start..end].to_string()
        } else {
            format!("http{}", &view[colon..end])
        };
        // An address no browser parses (a punycode label that does not decode) still
        // sends the reader somewhere: its host as written.
        let Some(host) = Url::parse(&as_web)
            .ok()
            .and_then(|url| host_string(&url))
            .or_else(|| raw_host(&view[colon + 1..end]))
        else {
            continue;
        };
        if !(host.contains('.') || host.starts_with('[')) {
            continue;
        }
        taken.push((start, end));
        found.push(Mention {
            host,
            shape: Shape::Scheme,
            start,
            end,
            address: view[start..end].to_lowercase(),
        });
    }
}

/// The host of an address written after its scheme's colon, as written, lowercase:
/// after the slashes and any userinfo, up to a path, port, query or fragment; `None`
/// unless it is dotted with a top-level domain of letters.
fn raw_host(rest: &str) -> Option<String> {
    let rest = rest.trim_start_matches(['/', '\\']);
    let authority = rest.split(['/', '\\', '?', '#']).next()?;
    let host = authority.rsplit('@').next()?.split(':').next()?;
    let host = host.trim_end_matches('.').to_lowercase();
    (host.contains('.') && has_letter_tld(&host)).then_some(host)
}

/// How many bytes of `rest` (after a scheme's colon, or after a host) belong to the
/// address: up to white space or a character that never is part of one written in text,
/// the punctuation that ends a sentence cut off; an address in CJK text ends where the
/// CJK text starts again.
fn address_len(rest: &str) -> usize {
    let mut end = 0;
    let mut ascii = false;
    for (i, c) in rest.char_indices() {
        if c.is_whitespace() || matches!(c, '<' | '>' | '"' | '`' | '|' | '{' | '}' | '^') {
            break;
        }
        if is_cjk(c) && ascii {
            break;
        }
        ascii |= c.is_ascii_alphanumeric();
        end = i + c.len_utf8();
    }
    let mut address = &rest[..end];
    loop {
        let trimmed = address.trim_end_matches(['.', ',', ';', ':', '!', '?', '*', '\'']);
        let trimmed = if trimmed.ends_with(')') && !trimmed.contains('(') {
            &trimmed[..trimmed.len() - 1]
        } else {
            trimmed
        };
        if trimmed.len() == address.len() {
            break;
        }
        address = trimmed;
    }
    address.len()
}

/// Whether `c` is a CJK ideograph, kana, Hangul or CJK punctuation: text that a host
/// written in Latin letters is glued to (`详情请访问acme.example/pay`).
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{2e80}'..='\u{33ff}'
        | '\u{3400}'..='\u{4dbf}'
        | '\u{4e00}'..='\u{9fff}'
        | '\u{a960}'..='\u{a97f}'
        | '\u{ac00}'..='\u{d7ff}'
        | '\u{f900}'..='\u{faff}'
        | '\u{ff00}'..='\u{ffef}'
        | '\u{1100}'..='\u{11ff}'
        | '\u{20000}'..='\u{2ffff}')
}

/// Whether `c` can be part of a host name as written in text.
fn is_host_char(c: char) -> bool {
    (c.is_alphanumeric() && !is_cjk(c)) || c == '-' || c == '.'
}

/// Hosts without a scheme, outside the addresses `taken` by [`schemes`].
fn hosts(view: &str, taken: &[(usize, usize)], found: &mut Vec<Mention>) {
    let mut chars = view.char_indices().peekable();
    let mut prev: Option<char> = None;
    while let Some((start, c)) = chars.next() {
        if !is_host_char(c) || prev.is_some_and(is_host_char) {
            prev = Some(c);
            continue;
        }
        let mut end = start + c.len_utf8();
        let mut last = c;
        while let Some(&(i, n)) = chars.peek() {
            if !is_host_char(n) {
                break;
            }
            end = i + n.len_utf8();
            last = n;
            chars.next();
        }
        let before = prev;
        prev = Some(last);
        if taken.iter().any(|&(a, b)| start < b && end > a) {
            continue;
        }
        if let Some(m) = host_at(view, start, end, before) {
            found.push(m);
        }
    }
}

/// The host a run of host characters `view[start..end]` names, if it names one.
fn host_at(view: &str, start: usize, end: usize, before: Option<char>) -> Option<Mention> {
    let run = &view[start..end];
    let lead = run.len() - run.trim_start_matches(['.', '-']).len();
    let name = run.trim_matches(['.', '-']);
    let (start, end) = (start + lead, start + lead + name.len());
    if !name.contains('.') || name.contains("..") {
        return None;
    }
    // Inside a path, a query or a `key=value`, or a cashtag: not a host of its own.
    if before.is_some_and(|b| {
        matches!(
            b,
            '/' | '\\' | '=' | '?' | '&' | '#' | '%' | '~' | '+' | '_' | '$' | '€' | '£' | '¥'
        )
    }) {
        return None;
    }
    let after = &view[end..];
    let next = after.chars().next();
    if next == Some('@') {
        // The user part of an address (`paypal.com@evil.example/`) or of a mail address.
        return None;
    }
    let path = path_len(after);
    let mail_domain = before == Some('@');
    if mail_domain && path == 0 {
        return None;
    }
    let ip = name.parse::<std::net::Ipv4Addr>().is_ok();
    let www = name
        .get(..4)
        .is_some_and(|w| w.eq_ignore_ascii_case("www."));
    let shape = if www || path > 0 {
        Shape::Clickable
    } else {
        Shape::Bare
    };
    let named = if ip {
        path > 0 && !cidr(after)
    } else if www {
        has_letter_tld(name)
    } else {
        tld_ok(name)
    };
    if !named {
        return None;
    }
    let url = Url::parse(&format!("http://{name}/")).ok()?;
    let host = host_string(&url)?;
    Some(Mention {
        host,
        shape,
        start,
        end: end + path,
        address: view[start..end + path].to_lowercase(),
    })
}

/// The length of the path (with a port before it) that follows a host: `/…`, `?…`,
/// `#…`, `\…` (a browser reads it as `/`), `:8080/…`; 0 when none does.
fn path_len(after: &str) -> usize {
    let rest = match after.strip_prefix(':') {
        Some(port) => {
            let digits = port.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 || !port[digits..].starts_with(['/', '?', '#']) {
                return 0;
            }
            &after[1 + digits..]
        }
        None => after,
    };
    let Some(first) = rest.chars().next() else {
        return 0;
    };
    if !matches!(first, '/' | '?' | '#' | '\\') {
        return 0;
    }
    if first == '\\' && !rest[1..].starts_with(|c: char| c.is_alphanumeric()) {
        return 0;
    }
    after.len() - rest.len() + address_len(rest)
}

/// Whether what follows an IPv4 address is a CIDR prefix length (`/16`), not a path.
fn cidr(after: &str) -> bool {
    let Some(rest) = after.strip_prefix('/') else {
        return false;
    };
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    (1..=2).contains(&digits)
        && !rest[digits..].starts_with(|c: char| c.is_alphanumeric() || c == '/' || c == '.')
}

/// Whether `name`'s top-level domain makes it a host: one of the public suffix list, or a
/// name reserved for examples.
fn tld_ok(name: &str) -> bool {
    let Some(tld) = name.rsplit('.').next() else {
        return false;
    };
    if !has_letter_tld(name) {
        return false;
    }
    let Some(ascii) = host_name(tld) else {
        return false;
    };
    matches!(ascii.as_str(), "example" | "test" | "invalid")
        || psl::suffix(ascii.as_bytes()).is_some_and(|s| s.is_known())
}

/// Whether the last label of `name` is two or more letters (or punycode).
fn has_letter_tld(name: &str) -> bool {
    name.rsplit('.').next().is_some_and(|t| {
        t.starts_with("xn--") || (t.chars().count() >= 2 && t.chars().all(char::is_alphabetic))
    })
}

/// The host of a parsed address as it is compared: a domain lowercase ASCII, an IP
/// address in its canonical form.
fn host_string(url: &Url) -> Option<String> {
    match url.host()? {
        Host::Domain(d) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            (!d.is_empty()).then_some(d)
        }
        Host::Ipv4(ip) => Some(ip.to_string()),
        Host::Ipv6(ip) => Some(format!("[{ip}]")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts_of(text: &str) -> Vec<(String, Shape)> {
        mentions(text)
            .into_iter()
            .map(|m| (m.host, m.shape))
            .collect()
    }

    fn one(host: &str, shape: Shape) -> Vec<(String, Shape)> {
        vec![(host.to_string(), shape)]
    }

    #[test]
    fn addresses_read_as_a_browser_reads_them() {
        use Shape::*;
        let cases: &[(&str, Vec<(String, Shape)>)] = &[
            (
                "see https://acme-billing.com/x",
                one("acme-billing.com", Scheme),
            ),
            ("https:\\\\evil.example\\pay", one("evil.example", Scheme)),
            ("at https:evil.example/pay now", one("evil.example", Scheme)),
            (
                "https://bank.example@evil.example/",
                one("evil.example", Scheme),
            ),
            ("http://0xCB.0x00.0x71.0x36/i", one("203.0.113.54", Scheme)),
            ("http://3405803777/i", one("203.0.113.1", Scheme)),
            ("hxxps://evil.example/x", one("evil.example", Scheme)),
            ("http://[::1]:8080/", one("[::1]", Scheme)),
            (
                "详情请访问https://acme.example/pay完成",
                one("acme.example", Scheme),
            ),
            ("evil.example/@pay", one("evil.example", Clickable)),
            ("185.23.77.4/invoice", one("185.23.77.4", Clickable)),
            ("www.Bank.example", one("www.bank.example", Clickable)),
            ("docs.rs/regex", one("docs.rs", Clickable)),
            (
                "api.example.com:8443/health",
                one("api.example.com", Clickable),
            ),
            ("acme-billing.zip", one("acme-billing.zip", Bare)),
            (
                "Certificate for example.org expires",
                one("example.org", Bare),
            ),
            ("bücher.de", one("xn--bcher-kva.de", Bare)),
            (
                "詳しくはacme-pay.jp/infoをご覧ください",
                one("acme-pay.jp", Clickable),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(&hosts_of(text), want, "{text}");
        }
    }

    #[test]
    fn what_names_no_host() {
        for text in [
            "payments-api.internal is down",
            "nas.local/share",
            "mail ana@example.org",
            "route 10.20.0.0/16 withdrawn",
            "ping 192.168.1.40 failed",
            "version 5.2.1 and v1.2.3",
            "db.example.org:5432 refused",
            "mailto:x Details: none",
            "file:///etc/passwd",
            "e.g. this, i.e. that",
            "14:30 at gate B12.",
        ] {
            let found: Vec<(String, Shape)> = hosts_of(text)
                .into_iter()
                .filter(|(_, s)| *s != Shape::Bare)
                .collect();
            assert!(found.is_empty(), "{text}: {found:?}");
        }
        assert!(hosts_of("payments-api.internal is down").is_empty());
        assert_eq!(
            hosts_of("db.example.org:5432 refused"),
            one("db.example.org", Shape::Bare)
        );
    }

    #[test]
    fn sites_by_the_public_suffix_list() {
        assert_eq!(site("mail.google.com."), "google.com");
        assert_eq!(site("shop.co.uk"), "shop.co.uk");
        assert_eq!(site("a.b.shop.co.uk"), "shop.co.uk");
        assert_eq!(site("evil.github.io"), "evil.github.io");
        assert_eq!(site("192.168.1.10"), "192.168.1.10");
        assert_eq!(site("[::1]"), "[::1]");
        assert_eq!(site("status.acme.example"), "acme.example");
        assert_eq!(host_name("Bücher.DE."), Some("xn--bcher-kva.de".into()));
        assert_eq!(host_name("*.mycorp.example"), Some("mycorp.example".into()));
    }
}
