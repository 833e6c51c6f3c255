//! Redaction of personal data and secrets from text sent to a third party (SPEC §9):
//! e-mail addresses (IDN, fullwidth `＠`, quoted local parts, IP-literal domains, and
//! spelled-out "name at example dot org"), phone numbers (international, with a trunk
//! `(0)` or a `/` too, national, North American with dashes, dots or spaces), card
//! numbers (Luhn-checked, with spaces, dashes or dots), IBANs (mod-97-checked, any case,
//! spaces or dashes) — numbers and addresses also in full-width characters, in other
//! scripts' digits or spaced letter by letter (their plain copy, `plain`) — key and
//! token shapes (one table, [`SECRET_SHAPES`]: the providers thinker knows and the
//! common services) and the value after a password word (`password: Tr0ub4dor&3-horse`),
//! and the names that mail headers give (`From: Jörg Müller <…>`: the whole name and its
//! parts, wherever they appear in the same text, and — once learned, [`Redactor::learn`]
//! — in any text) become placeholders: `<email-k3f9az>`, `<phone-…>`, `<card-…>`,
//! `<iban-…>`, `<secret-…>`, `<name-…>`. Entry ids whose words hold such a value get an
//! alias made of the redacted words ([`Redactor::redact_request`], `super::alias`).
//!
//! **Stable, and revealing nothing.** A placeholder is a keyed hash (HMAC-SHA256 with the
//! state directory's [`RedactionKey`]) of the value's class and normal form (an address
//! lowercased and spelled out, a number's digits), cut to 6 characters of a 32-letter
//! alphabet: the same value gets the same placeholder in every thread, every tick and
//! every call for as long as the key lives, so a remembered "`<email-k3f9az>` owes 500
//! EUR" still means the same person next week; without the key nobody can tell which
//! value it stands for, not even by hashing every phone number. Two values share a
//! placeholder with a chance of about n²/2³¹ among n values of a class.
//!
//! **Idempotent.** A placeholder is never redacted again, and the text is redacted
//! again until nothing changes (a value freed by a replacement), so redacting redacted
//! text changes nothing. Redaction applies only to what is sent: nothing maps a
//! placeholder back (only an id's alias, in the answer: [`Aliases::restore`]), and no
//! answer, state or note of the user's is rewritten.
//!
//! Names come only from header lines in the same text (`From:`, `To:`, `Cc:`,
//! `Reply-To:`, `Sender:` and their German, French, Spanish, Dutch forms) whose entry
//! carries an address: a bare `To: buy milk` names nobody. The parts of a name (3 or more
//! letters, capitalized, not a word such as "Support" or "Billing") are replaced where
//! they stand alone, by the whole name's placeholder — unless the address is a role's
//! (`info@`, `no-reply@`, `newsletter@`: an organisation, whose name is replaced only
//! whole). Names in prose that no header gives ("lunch with Sarah") are not found,
//! unless a header gave them before: a redactor made [`Redactor::with_names`] learns the
//! names of a person from every text it is given and replaces their capitalized parts
//! in any text after, keyed ([`super::names`]); the tick keeps them in the state
//! directory while the memory mentions them, so the memory written from a mail that has
//! left the inbox is redacted as the mail was.
//!
//! Pure: no I/O, no logging of what it redacts; the only randomness is
//! [`RedactionKey::random`], which makes a state directory's key once (and an ephemeral
//! one for callers without a state).
//! Must not decide which provider gets redacted text (that is `crate::privacy`'s).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use std::sync::{LazyLock, OnceLock, RwLock};

use aho_corasick::AhoCorasick;

use regex::Regex;

use super::alias::{self, Aliases};
use super::gates::{self, gate};
use super::names::{self, KnownNames};
use super::plain::{Plain, plain_char};

/// What a redacted value was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    Email,
    Phone,
    Card,
    Iban,
    Secret,
    Name,
}

impl Class {
    /// Every class, in the order of a [`Tally`].
    pub const ALL: [Class; 6] = [
        Class::Email,
        Class::Phone,
        Class::Card,
        Class::Iban,
        Class::Secret,
        Class::Name,
    ];

    /// The placeholder's word (`email` in `<email-k3f9az>`), also the category's name in
    /// the egress ledger.
    pub fn word(self) -> &'static str {
        match self {
            Class::Email => "email",
            Class::Phone => "phone",
            Class::Card => "card",
            Class::Iban => "iban",
            Class::Secret => "secret",
            Class::Name => "name",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// The per-state secret placeholders are keyed with (`redaction.key` in the state
/// directory, written by `storage`). Its `Debug` shows nothing of it.
#[derive(Clone, PartialEq, Eq)]
pub struct RedactionKey([u8; 32]);

impl fmt::Debug for RedactionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RedactionKey([hidden])")
    }
}

impl RedactionKey {
    pub const fn from_bytes(bytes: [u8; 32]) -> RedactionKey {
        RedactionKey(bytes)
    }

    /// A fresh key from the operating system's random source; `None` when it fails.
    pub fn random() -> Option<RedactionKey> {
        use ring::rand::SecureRandom as _;
        let mut bytes = [0u8; 32];
        ring::rand::SystemRandom::new().fill(&mut bytes).ok()?;
        Some(RedactionKey(bytes))
    }

    /// The key as the file holds it: 64 lowercase hex digits.
    pub fn to_hex(&self) -> String {
        self.0.iter().fold(String::with_capacity(64), |mut s, b| {
            use std::fmt::Write as _;
            let _ = write!(s, "{b:02x}");
            s
        })
    }

    /// Reads 64 hex digits (surrounding white space ignored); `None` otherwise.
    pub fn from_hex(text: &str) -> Option<RedactionKey> {
        let text = text.trim();
        if text.len() != 64 || !text.is_ascii() {
            return None;
        }
        let mut bytes = [0u8; 32];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(RedactionKey(bytes))
    }
}

/// How many values of each class a redaction replaced (occurrences, not distinct values).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally([u64; 6]);

impl Tally {
    pub fn get(&self, class: Class) -> u64 {
        self.0[class.index()]
    }

    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }

    /// The classes with a count, in [`Class::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (Class, u64)> + '_ {
        Class::ALL
            .into_iter()
            .map(|c| (c, self.get(c)))
            .filter(|(_, n)| *n > 0)
    }

    pub fn add(&mut self, other: &Tally) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a = a.saturating_add(b);
        }
    }

    fn count(&mut self, class: Class) {
        self.0[class.index()] = self.0[class.index()].saturating_add(1);
    }

    /// By category name, for the egress ledger.
    pub fn by_word(&self) -> BTreeMap<String, u64> {
        self.iter()
            .map(|(c, n)| (c.word().to_string(), n))
            .collect()
    }
}

/// Redacts text with stable keyed placeholders (see the module doc). Cheap to build.
/// Its only memory is the names it was given or has learned ([`Redactor::with_names`],
/// [`Redactor::learn`]), keyed.
pub struct Redactor {
    key: ring::hmac::Key,
    /// The names learned from headers, kept keyed (`None`: it neither knows nor learns
    /// any but those of the text it redacts).
    names: Option<RwLock<KnownNames>>,
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Redactor([keyed])")
    }
}

/// A text's redacted form and what was replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted {
    pub text: String,
    pub tally: Tally,
}

/// One redactable value (or a placeholder to keep) found in a text.
struct Found {
    /// `None`: a placeholder already there, kept as it is (or an id's alias, `fixed`).
    class: Option<Class>,
    start: usize,
    end: usize,
    /// What identifies the value (so `A@x.com` and `a at x dot com` are one person).
    key: String,
    /// The replacement, when it is known already: a learned name's placeholder, an id's
    /// alias.
    fixed: Option<String>,
}

/// Builds [`SECRET_SHAPES`] and [`SECRET_PATTERN`] from one table, so the pattern the
/// redactor and the gates use is the table, row for row.
macro_rules! secret_shapes {
    ($first_issuer:literal => $first:literal $(, $issuer:literal => $pattern:literal)* $(,)?) => {
        /// Key and token shapes, one row per issuer: `(issuer, pattern)`. First the
        /// providers thinker knows — the clouds `thinker init` writes (Groq, Gemini,
        /// OpenRouter, OpenAI, Anthropic) and the OpenAI-compatible services SPEC §9
        /// names — then the common token shapes of other services. Every row has a
        /// literal of its own (a prefix), so the gate in front of the pattern stays
        /// selective: a shape with none (Mistral's or Cohere's bare 32–40 characters)
        /// is only found after a key word (`api_key = …`, `Bearer …`).
        pub const SECRET_SHAPES: &[(&str, &str)] = &[($first_issuer, $first) $(, ($issuer, $pattern))*];

        /// Every row of [`SECRET_SHAPES`], as one alternation.
        pub(super) const SECRET_PATTERN: &str = concat!("(?:", $first $(, "|", $pattern)*, ")");
    };
}

secret_shapes! {
    "private key (PEM)" =>
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\z)",
    // The providers thinker knows.
    "OpenAI, Anthropic, OpenRouter, DeepSeek (`sk-`, `sk-proj-`, `sk-ant-api03-`, `sk-or-v1-`)" =>
        r"(?-u:\b)sk-(?:proj-|ant-(?:api[0-9][0-9]-|admin[0-9][0-9]-)?|or-v1-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
    "Groq (`gsk_`)" => r"(?-u:\b)gsk_[A-Za-z0-9]{20,}",
    "Gemini, Google Cloud (`AIza`)" => r"(?-u:\b)AIza[0-9A-Za-z_-]{35}",
    "Google OAuth access token (`ya29.`)" => r"(?-u:\b)ya29\.[0-9A-Za-z_-]{20,}",
    "Replicate (`r8_`)" => r"(?-u:\b)r8_[A-Za-z0-9]{20,}",
    "xAI (`xai-`)" => r"(?-u:\b)xai-[A-Za-z0-9]{20,}",
    "Perplexity (`pplx-`)" => r"(?-u:\b)pplx-[A-Za-z0-9]{20,}",
    "Cerebras (`csk-`)" => r"(?-u:\b)csk-[A-Za-z0-9]{20,}",
    "Fireworks (`fw_`)" => r"(?-u:\b)fw_[A-Za-z0-9]{20,}",
    "Hugging Face (`hf_`)" => r"(?-u:\b)hf_[A-Za-z0-9]{30,}",
    "LangSmith (`lsv2_`)" => r"(?-u:\b)lsv2_(?:pt|sk)_[A-Za-z0-9_]{20,}",
    "Tavily (`tvly-`)" => r"(?-u:\b)tvly-(?:dev-)?[A-Za-z0-9]{20,}",
    // The common token shapes.
    "GitHub (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`)" => r"(?-u:\b)gh[pousr]_[A-Za-z0-9]{30,}",
    "GitHub fine-grained (`github_pat_`)" => r"(?-u:\b)github_pat_[A-Za-z0-9_]{40,}",
    "GitLab (`glpat-`)" => r"(?-u:\b)glpat-[A-Za-z0-9_-]{20,}",
    "AWS access key id (`AKIA`, `ASIA`)" => r"(?-u:\b)(?:AKIA|ASIA)[0-9A-Z]{16}",
    "Slack (`xoxb-`, `xoxp-`, …)" => r"(?-u:\b)xox[abposr]-[A-Za-z0-9-]{10,}",
    "Stripe (`sk_live_`, `rk_test_`, …)" => r"(?-u:\b)(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",
    "npm (`npm_`)" => r"(?-u:\b)npm_[A-Za-z0-9]{36}",
    "PyPI (`pypi-`)" => r"(?-u:\b)pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}",
    "Docker Hub (`dckr_pat_`)" => r"(?-u:\b)dckr_pat_[A-Za-z0-9_-]{20,}",
    "DigitalOcean (`dop_v1_`)" => r"(?-u:\b)do[opr]_v1_[a-f0-9]{64}",
    "Shopify (`shpat_`, …)" => r"(?-u:\b)shp(?:at|ca|pa|ss)_[A-Za-z0-9]{32}",
    "SendGrid (`SG.`)" => r"(?-u:\b)SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
    "Notion (`ntn_`)" => r"(?-u:\b)ntn_[A-Za-z0-9]{40,}",
    "Linear (`lin_api_`)" => r"(?-u:\b)lin_api_[A-Za-z0-9]{40}",
    "JSON Web Token (`eyJ…`)" =>
        r"(?-u:\b)eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
}

/// A value next to a key, token, secret or password word (`api_key = "…"`, `Bearer …`).
pub(super) const SECRET_VALUE_PATTERN: &str = r#"(?i)(?:(?:api[_-]?key|apikey|access[_-]?key|secret(?:[_-]?key)?|client[_-]?secret|token|access[_-]?token|auth[_-]?token|password|passwd|pwd|private[_-]?key)["']?\s*[:=]\s*["']?|bearer\s+|authorization:\s*(?:basic|bearer)?\s*)([A-Za-z0-9_\-+/=.~]{12,})"#;

/// The two secret patterns, each built the first time a text gets past its gate (the
/// literals every match contains, generated in `gates`): most texts hold none, and
/// masking them builds nothing.
pub(super) static SECRET: Gated = Gated::new(SECRET_PATTERN, gates::SECRET);
pub(super) static SECRET_VALUE: Gated = Gated::new(SECRET_VALUE_PATTERN, gates::SECRET_VALUE);

/// A regex behind a gate of literals (see [`SECRET`]).
pub(super) struct Gated {
    pattern: &'static str,
    literals: &'static [&'static [u8]],
    gate: OnceLock<Option<AhoCorasick>>,
    regex: OnceLock<Option<Regex>>,
}

impl Gated {
    /// For tests: whether the gate lets `text` through wherever the pattern matches it
    /// (`Some(matched)`), or stops a text the pattern matches (`None`).
    #[cfg(test)]
    pub(super) fn sound_for(&self, text: &str) -> Option<bool> {
        let matched = Regex::new(self.pattern).ok()?.is_match(text);
        let passes = gate(self.literals.iter().copied()).is_none_or(|g| g.is_match(text));
        (!matched || passes).then_some(matched)
    }

    const fn new(pattern: &'static str, literals: &'static [&'static [u8]]) -> Gated {
        Gated {
            pattern,
            literals,
            gate: OnceLock::new(),
            regex: OnceLock::new(),
        }
    }

    /// The regex if `text` gets past the gate (built now if it was not), else `None`.
    fn for_text(&self, text: &str) -> Option<&Regex> {
        let gate = self
            .gate
            .get_or_init(|| gate(self.literals.iter().copied()));
        if gate.as_ref().is_some_and(|g| !g.is_match(text)) {
            return None;
        }
        self.regex
            .get_or_init(|| Regex::new(self.pattern).ok())
            .as_ref()
    }
}

fn regex(pattern: &str) -> Option<Regex> {
    Regex::new(pattern).ok()
}

/// A placeholder this or an earlier version wrote (`<email-k3f9az>`, `<email-1>`): kept.
static PLACEHOLDER: LazyLock<Option<Regex>> =
    LazyLock::new(|| regex(r"<(?:email|phone|card|iban|secret|name)-[a-z0-9]{1,12}>"));

/// One label of a domain, any script (lengths are not checked: a longer one is no less
/// personal).
const LABEL: &str = r"[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?";

/// Addresses as written: a local part (any script, or quoted), `@` / `＠` / `﹫`, and a
/// domain (any script, the fullwidth dot too, an IDNA `xn--` top level) or an IP literal.
/// The ideographic full stop `。` ends a sentence, not a label.
static EMAIL: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(&format!(
        r#"(?:"[^"\n]{{1,64}}"|[\p{{L}}\p{{N}}][\p{{L}}\p{{N}}._%+'-]*)[@＠﹫](?:{LABEL}(?:[.．]{LABEL})*[.．](?:[xX][nN]--[a-zA-Z0-9-]{{2,59}}|\p{{L}}{{2,24}})|\[(?:[iI][pP][vV]6:)?[0-9A-Fa-f:.]{{2,45}}\])"#
    ))
});

/// Spelled-out addresses: `name at example dot org`, `name [at] example [dot] org`,
/// `name(at)example.org`, `name @ example . org`. Checked further in [`obfuscated`].
static OBFUSCATED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    let at = r"(?:[ \t]*[\[\(\{<][ \t]*(?:at|@)[ \t]*[\]\)\}>][ \t]*|[ \t]+at[ \t]+|[ \t]+@[ \t]+)";
    let dot = r"(?:[ \t]*[\[\(\{<][ \t]*(?:dot|\.)[ \t]*[\]\)\}>][ \t]*|[ \t]+dot[ \t]+|[ \t]+\.[ \t]+|\.)";
    regex(&format!(
        r"(?i)(?P<local>[\p{{L}}\p{{N}}][\p{{L}}\p{{N}}._%+-]*)(?P<at>{at})(?P<domain>{LABEL}(?:{dot}{LABEL}){{1,4}})"
    ))
});

/// The separators between a spelled-out domain's labels.
static SPELLED_DOT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(
        r"(?i)[ \t]*[\[\(\{<][ \t]*(?:dot|\.)[ \t]*[\]\)\}>][ \t]*|[ \t]+dot[ \t]+|[ \t]+\.[ \t]+|\.",
    )
});

/// Top-level domains a fully spelled-out address may end in ("x at y dot com"): ordinary
/// prose says "at" and "dot" too.
const SPELLED_TLDS: &[&str] = &[
    "com", "org", "net", "edu", "gov", "io", "de", "uk", "fr", "es", "it", "nl", "be", "ch", "at",
    "eu", "info", "biz", "co", "me", "us", "ca", "au", "dev", "app", "ai", "se", "no", "dk", "fi",
    "pl", "cz", "pt", "ie", "jp", "cn", "in", "br", "mx", "ru", "nz", "za",
];

/// Words that are not a spelled-out address's local part or first domain label ("look at
/// the dot com bubble").
const SPELLED_STOP: &[&str] = &[
    "a", "an", "the", "this", "that", "our", "my", "your", "his", "her", "their", "its", "home",
    "work", "least", "all", "first", "last", "once", "noon", "night", "me", "us", "him", "them",
    "it", "one", "look", "looking", "arrive", "arrived", "meet", "be", "is", "are", "was", "were",
    "and", "or", "of", "to", "in", "on", "for", "with",
];

/// IBAN shapes, any case, in groups of four separated by nothing, spaces or dashes.
static IBAN: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(r"(?i)(?-u:\b)[A-Z]{2}[0-9]{2}(?:[ -]?[A-Z0-9]{4}){2,7}(?:[ -]?[A-Z0-9]{1,3})?(?-u:\b)")
});

/// Card shapes: 13 to 19 digits in one run, in groups of four (the last shorter) or
/// Amex's 4-6-5, separated by spaces, dashes or dots.
static CARD: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(
        r"(?-u:\b)(?:[0-9]{13,19}|[0-9]{4}(?:[ .-][0-9]{4}){2}[ .-][0-9]{1,7}|[0-9]{4}[ .-][0-9]{6}[ .-][0-9]{5})(?-u:\b)",
    )
});

/// Phone shapes: international (`+49 30 1234567`, `+1 (555) 123-4567`, `+1.555.123.4567`,
/// `+49 (0) 30 / 1234 5678`),
/// national with a trunk zero (`030 1234 5678`, `06 12 34 56 78`, `06.12.34.56.78`,
/// `(030) 1234567`, `089 / 55 66 77 0`), North American (`(555) 123-4567`, `555-123-4567`, `555.123.4567`,
/// `555 123 4567`, `1-800-555-0199`). Dates, versions and ids do not start with `+`, `(`
/// or `0` and a group of digits, or have too few digits.
static PHONE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(concat!(
        r"\+[0-9]{1,3}(?:(?:[ .-]| ?/ ?)?\(?[0-9]{1,5}\)?){2,6}(?-u:\b)",
        r"|(?-u:\b)0[0-9]{1,4}(?:(?:[ /.-]| / )[0-9]{2,8}){1,4}(?:[ .-][0-9])?(?-u:\b)",
        r"|\(0[0-9]{1,4}\) ?[0-9]{2,8}(?:[ /-][0-9]{2,8}){0,3}(?-u:\b)",
        r"|\([0-9]{3}\) ?[0-9]{3}[ .-][0-9]{4}(?-u:\b)",
        r"|(?-u:\b)1[ .-][0-9]{3}[ .-][0-9]{3}[ .-][0-9]{4}(?-u:\b)",
        r"|(?-u:\b)[0-9]{3}[-. ][0-9]{3}[-. ][0-9]{4}(?-u:\b)",
    ))
});

/// A password word: where [`find_passwords`] looks for a value after it.
static PASSWORD: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(
        r"(?i)(?-u:\b)(?:password|passwort|passwd|pwd|pw|passcode|passphrase|kennwort|pin|mot de passe|contraseña|senha|wachtwoord)(?-u:\b)",
    )
});

/// What may follow a password word before its value: a few words ("for the NAS", "für
/// das Online-Banking"), then a separator (`:`, `=`, "is", "ist", "lautet", "est").
static PASSWORD_TAIL: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(
        r"(?i)^(?P<words>(?:[ \t]+[\p{L}][\p{L}\-]{0,24}){0,4}?)(?P<sep>[ \t]*[:=][ \t]*|[ \t]+(?:is|ist|lautet|est|es)[ \t]+)(?P<value>[^\s]{1,128})",
    )
});

/// A value right after a password word, without a separator (`passcode 441902`).
static PASSWORD_BARE: LazyLock<Option<Regex>> =
    LazyLock::new(|| regex(r"^[ \t]+(?P<value>[^\s]{4,128})"));

/// Words after a password word that are not a password ("password: reset required").
const NOT_A_PASSWORD: &[&str] = &[
    "reset",
    "required",
    "expired",
    "expires",
    "changed",
    "change",
    "updated",
    "update",
    "incorrect",
    "invalid",
    "wrong",
    "protected",
    "forgotten",
    "forgot",
    "sent",
    "below",
    "above",
    "attached",
    "none",
    "n/a",
    "same",
    "unchanged",
    "see",
    "the",
    "your",
    "a",
    "an",
    "enabled",
    "disabled",
    "set",
    "missing",
    "required.",
    "hidden",
    "manager",
    "policy",
    "***",
    "****",
    "********",
    "redacted",
    "[redacted]",
    "<redacted>",
    "needed",
    "strong",
    "weak",
    "too",
    "not",
    "empty",
    "blank",
    "optional",
];

/// Mail header lines that may name people with their addresses.
static HEADER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    regex(
        r"(?im)^[ \t]*(?:from|to|cc|bcc|reply-to|sender|von|an|kopie|de|à|a|para|van|aan)[ \t]*:[ \t]*(?P<value>[^\n]+)$",
    )
});

/// Words that are not a person's name where a header names a sender ("ACME Billing",
/// "IT Support Team"): their parts are not replaced on their own.
const NOT_A_NAME: &[&str] = &[
    "team",
    "support",
    "service",
    "services",
    "billing",
    "info",
    "news",
    "newsletter",
    "sales",
    "admin",
    "noreply",
    "no-reply",
    "reply",
    "notifications",
    "notification",
    "notify",
    "alerts",
    "alert",
    "office",
    "mail",
    "mailer",
    "daemon",
    "postmaster",
    "bank",
    "account",
    "accounts",
    "security",
    "calendar",
    "customer",
    "customers",
    "care",
    "help",
    "helpdesk",
    "desk",
    "the",
    "and",
    "from",
    "for",
    "via",
    "inc",
    "ltd",
    "llc",
    "gmbh",
    "corp",
    "company",
    "group",
    "shop",
    "store",
    "online",
    "digital",
    "official",
    "events",
    "event",
    "updates",
    "update",
    "marketing",
    "hello",
    "contact",
    "system",
    "systems",
    "bot",
    "robot",
    "automated",
    "invoice",
    "invoices",
    "payments",
    "payment",
    "receipt",
    "receipts",
    "orders",
    "order",
    "delivery",
    "shipping",
    "club",
    "school",
    "university",
    "college",
    "hospital",
    "clinic",
    "practice",
    "herr",
    "frau",
    "mrs",
    "family",
    "familie",
    "dept",
    "department",
    "finance",
    "legal",
    "board",
    "council",
    "city",
    "community",
    "project",
    "projects",
    "developers",
    "travel",
    "tickets",
    "booking",
    "hotel",
    "airlines",
    "airline",
    "post",
    "weekly",
    "daily",
    "digest",
    "you",
    "me",
    "undisclosed",
    "recipients",
    "list",
    "members",
    "everyone",
    "all",
];

/// A call's texts as a redacting provider is sent them ([`Redactor::redact_request`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    /// The texts redacted, in the order given.
    pub texts: Vec<String>,
    pub tally: Tally,
    /// The ids given an alias: the answer gets them back through [`Aliases::restore`].
    pub aliases: Aliases,
}

impl Redactor {
    /// A redactor whose placeholders are keyed with `key`.
    pub fn new(key: &RedactionKey) -> Redactor {
        Redactor {
            key: ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &key.0),
            names: None,
        }
    }

    /// This redactor knowing `names` (learned earlier, as the state directory keeps
    /// them), and learning more from the texts it is given ([`Redactor::learn`]).
    #[must_use]
    pub fn with_names(mut self, names: KnownNames) -> Redactor {
        self.keep_names(names);
        self
    }

    /// [`Redactor::with_names`] in place.
    pub fn keep_names(&mut self, names: KnownNames) {
        self.names = Some(RwLock::new(names));
    }

    /// Learns the names the header lines of `text` give (a person's, with their parts):
    /// from then on they are replaced wherever they stand as words, in any text, even
    /// without a header beside them. Does nothing unless it keeps names
    /// ([`Redactor::with_names`]).
    pub fn learn(&self, text: &str) {
        let Some(lock) = &self.names else {
            return;
        };
        let learned: Vec<(String, Vec<u64>)> = header_names(text)
            .into_iter()
            .filter(|n| !n.parts.is_empty())
            .map(|n| {
                let hashes = n
                    .parts
                    .iter()
                    .flat_map(|p| names::part_words(p))
                    .map(|w| self.part_hash(&w))
                    .collect();
                (self.placeholder(Class::Name, &n.key), hashes)
            })
            .collect();
        if learned.is_empty() {
            return;
        }
        let mut names = lock
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for (placeholder, hashes) in learned {
            names.learn(placeholder, hashes);
        }
    }

    /// The names to keep: those learned since this redactor was made, and the others
    /// while a word of `memory` (the memory's and the archive's texts) is one of their
    /// parts. `None` when it keeps no names ([`Redactor::with_names`]); `memory` is read
    /// only when it knows some.
    pub fn names_to_keep<S: AsRef<str>>(
        &self,
        memory: impl IntoIterator<Item = S>,
    ) -> Option<KnownNames> {
        let mut names = self
            .names
            .as_ref()?
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        if names.is_empty() {
            return Some(names);
        }
        let mut seen = HashSet::new();
        for text in memory {
            for word in text
                .as_ref()
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| w.chars().nth(2).is_some())
            {
                seen.insert(self.part_hash(&word.to_lowercase()));
            }
        }
        names.retain(&seen);
        Some(names)
    }

    /// The keyed hash a name's part (in one of its [`names::forms`]) is kept under.
    fn part_hash(&self, word: &str) -> u64 {
        let mut ctx = ring::hmac::Context::with_key(&self.key);
        ctx.update(b"name part\0");
        ctx.update(word.as_bytes());
        let tag = ctx.sign();
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&tag.as_ref()[..8]);
        u64::from_be_bytes(bytes)
    }

    /// The placeholder of the known name one of whose parts `word` (lowercase) is.
    fn known_name(&self, names: &KnownNames, word: &str) -> Option<String> {
        if names.is_empty() {
            return None;
        }
        names.placeholder(self.part_hash(word)).map(str::to_string)
    }

    /// A call's texts (its system text and prompt) redacted for one provider, with the
    /// entry ids they show given aliases made from redacted words (one alias per id
    /// across the texts; see [`super::alias`]).
    pub fn redact_request(&self, texts: &[&str]) -> Sent {
        let mut tally = Tally::default();
        let mut aliases = Aliases::default();
        let texts = texts
            .iter()
            .map(|t| self.redact_with(t, &mut tally, &mut aliases))
            .collect();
        Sent {
            texts,
            tally,
            aliases,
        }
    }

    /// `text` with every redactable value replaced by its placeholder.
    pub fn redact(&self, text: &str) -> String {
        self.redact_counted(text).text
    }

    /// `text` redacted, with what was replaced.
    ///
    /// A value that overlapped another one can stand alone once that one is a
    /// placeholder (`ghp_…sk-proj-…ana@example.org`: the address after the token), so
    /// the text is redacted again until nothing changes (at most `MAX_PASSES` times; a
    /// text with nothing redactable is read once).
    pub fn redact_counted(&self, text: &str) -> Redacted {
        let mut tally = Tally::default();
        let text = self.redact_with(text, &mut tally, &mut Aliases::default());
        Redacted { text, tally }
    }

    /// `text` redacted again until nothing changes (see [`Redactor::redact_counted`]).
    fn redact_with(&self, text: &str, tally: &mut Tally, aliases: &mut Aliases) -> String {
        let names = self
            .names
            .as_ref()
            .map(|l| l.read().unwrap_or_else(std::sync::PoisonError::into_inner));
        let names = names.as_deref();
        let mut out = self.redact_once(text, names, tally, aliases);
        if out == text {
            return out;
        }
        for _ in 1..MAX_PASSES {
            let next = self.redact_once(&out, names, tally, aliases);
            if next == out {
                break;
            }
            out = next;
        }
        out
    }

    fn redact_once(
        &self,
        text: &str,
        names: Option<&KnownNames>,
        tally: &mut Tally,
        aliases: &mut Aliases,
    ) -> String {
        let lookup = |word: &str| names.and_then(|n| self.known_name(n, word));
        let known: Option<&Lookup<'_>> = names.is_some_and(|n| !n.is_empty()).then_some(&lookup);
        let mut spans = find_spans(text, known);
        self.alias_ids(text, &mut spans, &lookup, aliases);
        let found = spans.into_sorted();
        if found.iter().all(|f| f.class.is_none() && f.fixed.is_none()) {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        // The end (in `out`) and text of the last name placeholder written.
        let mut last_name: Option<(usize, String)> = None;
        for f in found {
            let gap = &text[at..f.start];
            let replacement = match (f.fixed, f.class) {
                (Some(fixed), _) => fixed,
                (None, Some(class)) => self.placeholder(class, &f.key),
                (None, None) => {
                    out.push_str(gap);
                    out.push_str(&text[f.start..f.end]);
                    at = f.end;
                    last_name = None;
                    continue;
                }
            };
            // "Hannah Weber" found as two words of one name: one placeholder.
            let same_name = f.class == Some(Class::Name)
                && last_name
                    .as_ref()
                    .is_some_and(|(end, p)| *end == out.len() && *p == replacement)
                && !gap.is_empty()
                && gap.chars().all(|c| c == ' ' || c == '\t');
            at = f.end;
            if same_name {
                continue;
            }
            out.push_str(gap);
            out.push_str(&replacement);
            if let Some(class) = f.class {
                tally.count(class);
            }
            last_name = (f.class == Some(Class::Name)).then_some((out.len(), replacement));
        }
        out.push_str(&text[at..]);
        out
    }

    /// Gives the entry ids of `text` whose words hold a personal value an alias made of
    /// the redacted words (see [`super::alias`]): a word that is a name's part (a name
    /// found in the text or a known one), a piece of an address's local part found in
    /// the text, or a part of a number or key found in it becomes the value's
    /// placeholder without its brackets (`name-k3f9az`). The alias is the same for the
    /// same id in every text; one that another id of the text (or another alias) holds
    /// gets a keyed suffix.
    fn alias_ids(&self, text: &str, spans: &mut Spans, known: &Lookup<'_>, aliases: &mut Aliases) {
        let ids = alias::ids(text);
        if ids.is_empty() {
            return;
        }
        // The words of the names and the addresses' local parts found in the text.
        let mut words: HashMap<String, String> = HashMap::new();
        for f in spans.0.values() {
            let Some(class @ (Class::Name | Class::Email)) = f.class else {
                continue;
            };
            let value = &text[f.start..f.end];
            let value = match class {
                Class::Email => value.split(['@', '＠', '﹫']).next().unwrap_or_default(),
                _ => value,
            };
            let code = bare(
                &f.fixed
                    .clone()
                    .unwrap_or_else(|| self.placeholder(class, &f.key)),
            );
            for piece in value
                .split(|c: char| !c.is_alphanumeric())
                .filter(|p| p.chars().nth(2).is_some())
            {
                for form in names::forms(piece) {
                    words.entry(form).or_insert_with(|| code.clone());
                }
            }
        }
        let taken: HashSet<&str> = ids.iter().map(|r| &text[r.clone()]).collect();
        for range in ids {
            let id = &text[range.clone()];
            // Part of a longer value (`mutti@t-online.example`): the value is replaced.
            if spans.0.values().any(|f| {
                f.start < range.end
                    && f.end > range.start
                    && (f.start < range.start || f.end > range.end)
            }) {
                continue;
            }
            let alias = match aliases.alias_of(id) {
                Some(a) => Some(a.to_string()),
                None => self.alias_of(text, range.clone(), spans, &words, known),
            };
            let Some(mut alias) = alias else {
                continue;
            };
            if aliases.alias_of(id).is_none() {
                if (taken.contains(alias.as_str()) && alias != id) || aliases.taken(&alias, id) {
                    alias = format!("{alias}-{}", self.id_code(id));
                }
                aliases.insert(alias.clone(), id.to_string());
            }
            spans.replace(Found {
                class: None,
                start: range.start,
                end: range.end,
                key: String::new(),
                fixed: Some(alias),
            });
        }
    }

    /// Four characters of a keyed hash of `id`: what tells two ids with one alias apart.
    fn id_code(&self, id: &str) -> String {
        let mut ctx = ring::hmac::Context::with_key(&self.key);
        ctx.update(b"id\0");
        ctx.update(id.as_bytes());
        let tag = ctx.sign();
        let bits = u32::from_be_bytes([
            tag.as_ref()[0],
            tag.as_ref()[1],
            tag.as_ref()[2],
            tag.as_ref()[3],
        ]);
        (0..4)
            .map(|i| ALPHABET[((bits >> (27 - 5 * i)) & 31) as usize] as char)
            .collect()
    }

    /// The alias of the id at `range` of `text`, `None` when no word of it is personal.
    fn alias_of(
        &self,
        text: &str,
        range: std::ops::Range<usize>,
        spans: &Spans,
        words: &HashMap<String, String>,
        known: &Lookup<'_>,
    ) -> Option<String> {
        let id = &text[range.clone()];
        let (prefix, rest) = id.split_at(2);
        let mut parts: Vec<String> = Vec::new();
        let mut changed = false;
        let mut at = range.start + 2;
        for word in rest.split('-') {
            let (start, end) = (at, at + word.len());
            at = end + 1;
            let code = words
                .get(word)
                .cloned()
                .or_else(|| {
                    (word.chars().nth(2).is_some() && !word.chars().all(|c| c.is_ascii_digit()))
                        .then(|| known(word))
                        .flatten()
                        .map(|p| bare(&p))
                })
                .or_else(|| {
                    spans
                        .overlapping(start..end)
                        .and_then(|f| f.class.map(|c| bare(&self.placeholder(c, &f.key))))
                });
            match code {
                Some(code) => {
                    changed = true;
                    if parts.last() != Some(&code) {
                        parts.push(code);
                    }
                }
                None => parts.push(word.to_string()),
            }
        }
        changed.then(|| format!("{prefix}{}", parts.join("-")))
    }

    /// The placeholder of a value of `class` whose normal form is `key`.
    pub fn placeholder(&self, class: Class, key: &str) -> String {
        let mut ctx = ring::hmac::Context::with_key(&self.key);
        ctx.update(class.word().as_bytes());
        ctx.update(&[0]);
        ctx.update(key.as_bytes());
        let tag = ctx.sign();
        let bytes = tag.as_ref();
        let bits = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        let code: String = (0..6)
            .map(|i| ALPHABET[((bits >> (27 - 5 * i)) & 31) as usize] as char)
            .collect();
        format!("<{}-{code}>", class.word())
    }
}

/// A placeholder without its brackets, as an id's alias writes it: `name-k3f9az`.
fn bare(placeholder: &str) -> String {
    placeholder
        .trim_start_matches('<')
        .trim_end_matches('>')
        .to_string()
}

/// The placeholders' alphabet: 32 letters and digits, none that reads as another
/// (no `l`, `o`, `0`, `1`), so no placeholder is a number.
const ALPHABET: &[u8; 32] = b"abcdefghijkmnpqrstuvwxyz23456789";

/// `text` with every key or token shape replaced by `<secret>` (no numbering, no
/// state): for evidence and messages that must never carry a secret, such as a
/// detection's excerpt of a URL that carries a key.
/// Repeated like [`Redactor::redact`] until nothing changes.
pub fn mask_secrets(text: &str) -> String {
    let mut out = mask_once(text);
    if out == text {
        return out;
    }
    for _ in 1..MAX_PASSES {
        let next = mask_once(&out);
        if next == out {
            break;
        }
        out = next;
    }
    out
}

/// How many times a text is redacted (or masked) at most, until nothing changes.
const MAX_PASSES: usize = 4;

fn mask_once(text: &str) -> String {
    let mut spans = Spans::default();
    find_secrets(text, &mut spans);
    let found = spans.into_sorted();
    if found.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for f in found {
        out.push_str(&text[at..f.start]);
        out.push_str("<secret>");
        at = f.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Where the first pass of [`Redactor::redact`] replaces values in `text`, with their
/// classes (placeholders already there are not listed): what the redaction benchmark
/// compares with its corpus.
pub fn spans(text: &str) -> Vec<(std::ops::Range<usize>, Class)> {
    find(text)
        .into_iter()
        .filter_map(|f| f.class.map(|c| (f.start..f.end, c)))
        .collect()
}

/// Whether `text` holds anything [`Redactor::redact`] would replace.
pub fn has_redactable(text: &str) -> bool {
    find(text).iter().any(|f| f.class.is_some())
}

/// The values found so far, none overlapping, by start.
#[derive(Default)]
struct Spans(BTreeMap<usize, Found>);

impl Spans {
    /// Adds `f` unless it overlaps a value found before it (or is empty).
    fn add(&mut self, f: Found) {
        if f.start >= f.end {
            return;
        }
        let before = self.0.range(..f.end).next_back();
        if before.is_some_and(|(_, o)| o.end > f.start) {
            return;
        }
        self.0.insert(f.start, f);
    }

    fn into_sorted(self) -> Vec<Found> {
        self.0.into_values().collect()
    }

    /// A value found that overlaps `range`: the last one to start before its end, if it
    /// ends after its start (the values do not overlap, so one that starts earlier ends
    /// earlier).
    fn overlapping(&self, range: std::ops::Range<usize>) -> Option<&Found> {
        self.0
            .range(..range.end)
            .next_back()
            .map(|(_, f)| f)
            .filter(|f| f.end > range.start)
    }

    /// Adds `f` in place of every value found that overlaps it.
    fn replace(&mut self, f: Found) {
        let overlapping: Vec<usize> = self
            .0
            .range(..f.end)
            .filter(|(_, o)| o.end > f.start)
            .map(|(at, _)| *at)
            .collect();
        for at in overlapping {
            self.0.remove(&at);
        }
        self.add(f);
    }
}

/// A lookup of a lowercase word among the known names: its name's placeholder.
type Lookup<'a> = dyn Fn(&str) -> Option<String> + 'a;

/// Every redactable value in `text`, in order, none overlapping (see [`find_spans`]),
/// with no known name.
fn find(text: &str) -> Vec<Found> {
    find_spans(text, None).into_sorted()
}

/// Every redactable value in `text`: the placeholders already there (kept), then
/// secrets, passwords, e-mail addresses (as written, then spelled out), IBANs, cards,
/// phones, the addresses and numbers of its plain copy (digits of any script, full-width
/// characters, values spaced letter by letter: [`Plain`]), the names the headers give,
/// and the words that are known names (`known`: a lowercase word's placeholder).
fn find_spans(text: &str, known: Option<&Lookup<'_>>) -> Spans {
    let mut spans = Spans::default();
    if let Some(re) = PLACEHOLDER.as_ref() {
        for m in re.find_iter(text) {
            spans.add(Found {
                class: None,
                start: m.start(),
                end: m.end(),
                key: String::new(),
                fixed: None,
            });
        }
    }
    find_secrets(text, &mut spans);
    find_passwords(text, &mut spans);
    find_emails(text, &mut spans);
    find_numbers(text, &mut spans);
    // Line by line: a value is written on one line, and most lines need no plain copy.
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if let Some(plain) = Plain::of(line) {
            let mut inner = Spans::default();
            find_emails(&plain.text, &mut inner);
            find_numbers(&plain.text, &mut inner);
            for f in inner.into_sorted() {
                if let Some(range) = plain.original(f.start..f.end) {
                    spans.add(Found {
                        start: offset + range.start,
                        end: offset + range.end,
                        ..f
                    });
                }
            }
        }
        offset += line.len();
    }
    find_names(text, &mut spans);
    if let Some(known) = known {
        find_known_names(text, &mut spans, known);
    }
    spans
}

/// The words of `text` that are known names (see [`super::names`]): capitalized words of
/// three letters or more (`Hannah`, `Müller`, `O'Brien`, `Anna-Lena`; `Hannah's` as
/// `Hannah`), each its name's placeholder.
fn find_known_names(text: &str, spans: &mut Spans, known: &Lookup<'_>) {
    let mut start = None;
    let word_char = |c: char| c.is_alphabetic() || matches!(c, '\'' | '’' | '-');
    let ends = text
        .char_indices()
        .map(|(i, c)| (i, Some(c)))
        .chain(std::iter::once((text.len(), None)));
    for (i, c) in ends {
        match (start, c.is_some_and(word_char)) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                start = None;
                let raw = &text[s..i];
                let word = raw.trim_matches(['\'', '’', '-']);
                let s = s + (raw.len() - raw.trim_start_matches(['\'', '’', '-']).len());
                if !word.chars().next().is_some_and(char::is_uppercase)
                    || word.chars().nth(2).is_none()
                {
                    continue;
                }
                let lower = word.to_lowercase();
                // The word, or its stem before an apostrophe (`Hannah's`).
                let stem = lower.split(['\'', '’']).next().unwrap_or_default();
                let hit = known(&lower).map(|p| (p, word.len())).or_else(|| {
                    (stem.len() < lower.len() && stem.chars().nth(2).is_some())
                        .then(|| known(stem))
                        .flatten()
                        .map(|p| (p, word.find(['\'', '’']).unwrap_or(word.len())))
                });
                if let Some((placeholder, len)) = hit {
                    spans.add(Found {
                        class: Some(Class::Name),
                        start: s,
                        end: s + len,
                        key: String::new(),
                        fixed: Some(placeholder),
                    });
                }
            }
            _ => {}
        }
    }
}

fn found(class: Class, start: usize, end: usize, key: impl Into<String>) -> Found {
    Found {
        class: Some(class),
        start,
        end,
        key: key.into(),
        fixed: None,
    }
}

/// The key and token shapes in `text`: what [`find`] finds first, and all that masking
/// needs (so masking never builds the other patterns).
fn find_secrets(text: &str, spans: &mut Spans) {
    if let Some(re) = SECRET.for_text(text) {
        for m in re.find_iter(text) {
            spans.add(found(Class::Secret, m.start(), m.end(), m.as_str()));
        }
    }
    if let Some(re) = SECRET_VALUE.for_text(text) {
        for c in re.captures_iter(text) {
            if let Some(v) = c.get(1).filter(|v| looks_secret(v.as_str())) {
                spans.add(found(Class::Secret, v.start(), v.end(), v.as_str()));
            }
        }
    }
}

/// The values after password words (any characters but white space, surrounding quotes
/// and trailing punctuation left out).
fn find_passwords(text: &str, spans: &mut Spans) {
    let lower = text.to_ascii_lowercase();
    let gated = [
        "pass",
        "pw",
        "pin",
        "kennwort",
        "contrase",
        "senha",
        "wachtwoord",
    ]
    .iter()
    .any(|w| lower.contains(w));
    let (true, Some(word), Some(tail), Some(bare)) = (
        gated,
        PASSWORD.as_ref(),
        PASSWORD_TAIL.as_ref(),
        PASSWORD_BARE.as_ref(),
    ) else {
        return;
    };
    for w in word.find_iter(text) {
        let rest = &text[w.end()..];
        // With a separator: any value but a plain word after a worded one ("the
        // password is required"). Without: a value with a digit in it.
        let (value, worded, bare_value) = if let Some(c) = tail.captures(rest) {
            let (Some(sep), Some(value)) = (c.name("sep"), c.name("value")) else {
                continue;
            };
            let worded = sep.as_str().trim().chars().all(char::is_alphabetic);
            (value, worded, false)
        } else if let Some(value) = bare.captures(rest).and_then(|c| c.name("value")) {
            (value, true, true)
        } else {
            continue;
        };
        let raw = value.as_str();
        let lead = raw.len()
            - raw
                .trim_start_matches(['"', '\'', '“', '‘', '`', '('])
                .len();
        // A sentence's end is not the password's: `.`, `,`, `;`, `:`, closing quotes; a
        // `!` or `?` may well be part of it.
        let inner =
            raw[lead..].trim_end_matches(['"', '\'', '”', '’', '`', ')', '.', ',', ';', ':']);
        if inner.chars().count() < 4 {
            continue;
        }
        let lower = inner.to_lowercase();
        let plain_word = inner
            .chars()
            .all(|ch| ch.is_alphabetic() && ch.is_lowercase());
        let has_digit = inner.chars().any(|c| c.is_ascii_digit());
        if NOT_A_PASSWORD.contains(&lower.as_str())
            || (worded && plain_word)
            || (bare_value && !has_digit)
        {
            continue;
        }
        let start = w.end() + value.start() + lead;
        spans.add(found(Class::Secret, start, start + inner.len(), inner));
    }
}

/// E-mail addresses as written, then spelled out.
fn find_emails(text: &str, spans: &mut Spans) {
    if let Some(re) = EMAIL.as_ref() {
        for m in re.find_iter(text) {
            spans.add(found(
                Class::Email,
                m.start(),
                m.end(),
                normal_address(m.as_str()),
            ));
        }
    }
    let lower = text.to_ascii_lowercase();
    if !(lower.contains("at") || lower.contains('@')) {
        return;
    }
    if let Some(re) = OBFUSCATED.as_ref() {
        // A match that is prose ("me at kaito.w") may hide an address that starts inside
        // it ("kaito.w at gmail dot com"): the search goes on from its "at".
        let mut at = 0;
        while let Some(c) = re.captures_at(text, at) {
            let (Some(m), Some(sep)) = (c.get(0), c.name("at")) else {
                break;
            };
            if let Some(address) = obfuscated(&c) {
                spans.add(found(Class::Email, m.start(), m.end(), address));
                at = m.end();
            } else {
                at = sep.end();
            }
        }
    }
}

/// An address's normal form: lowercased, full-width characters (`＠`, `．`, `ａ`) and
/// other `@`s and dots made plain.
fn normal_address(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '﹫' => '@',
            '。' => '.',
            c => plain_char(c),
        })
        .collect::<String>()
        .to_lowercase()
}

/// A spelled-out address's normal form (`name@example.org`), or `None` when the match
/// is ordinary prose: an "at" or a spaced `@` with a stop word as the name or the domain
/// ("visit us at example.com", "look at the dot com bubble") or a top level that is not
/// a known one.
fn obfuscated(c: &regex::Captures<'_>) -> Option<String> {
    let local = c.name("local")?.as_str();
    let at = c.name("at")?.as_str().trim().to_ascii_lowercase();
    let domain = c.name("domain")?.as_str();
    let worded_at = at == "at";
    let spaced_at = at == "@";
    let labels: Vec<&str> = SPELLED_DOT.as_ref()?.split(domain).collect();
    let tld = labels.last()?.to_lowercase();
    if !(2..=24).contains(&tld.chars().count()) || !tld.chars().all(char::is_alphabetic) {
        return None;
    }
    // `[at]`, `(at)`: marked as an address. A word or a spaced `@` is prose as often:
    // the top level must be a known one, and neither side a common word.
    let marked = !worded_at && !spaced_at;
    if !marked && !SPELLED_TLDS.contains(&tld.as_str()) {
        return None;
    }
    let first = labels.first()?.to_lowercase();
    let name = local.to_lowercase();
    if !marked && (SPELLED_STOP.contains(&name.as_str()) || SPELLED_STOP.contains(&first.as_str()))
    {
        return None;
    }
    Some(format!(
        "{name}@{}",
        labels
            .iter()
            .map(|l| l.to_lowercase())
            .collect::<Vec<_>>()
            .join(".")
    ))
}

/// IBANs, then cards, then phones.
fn find_numbers(text: &str, spans: &mut Spans) {
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return;
    }
    if let Some(re) = IBAN.as_ref() {
        for m in re.find_iter(text) {
            if let Some((len, compact)) = valid_iban_prefix(m.as_str()) {
                spans.add(found(Class::Iban, m.start(), m.start() + len, compact));
            }
        }
    }
    if let Some(re) = CARD.as_ref() {
        for m in re.find_iter(text) {
            let digits: String = m.as_str().chars().filter(char::is_ascii_digit).collect();
            let after_iban_head = text[..m.start()]
                .trim_end()
                .rsplit(' ')
                .next()
                .is_some_and(|w| w.len() == 4 && w[..2].bytes().all(|b| b.is_ascii_uppercase()));
            if (13..=19).contains(&digits.len()) && luhn_valid(&digits) && !after_iban_head {
                spans.add(found(Class::Card, m.start(), m.end(), digits));
            }
        }
    }
    if let Some(re) = PHONE.as_ref() {
        for m in re.find_iter(text) {
            // `+49 (0) 30 …` is `+49 30 …`: the trunk zero is not dialled from abroad.
            let international = m.as_str().starts_with('+');
            let digits: String = if international {
                m.as_str().replacen("(0)", "", 1)
            } else {
                m.as_str().to_string()
            }
            .chars()
            .filter(char::is_ascii_digit)
            .collect();
            if (8..=15).contains(&digits.len())
                && !looks_like_date(m.as_str())
                && !glued_to_digits(text, m.start(), m.end())
            {
                spans.add(found(Class::Phone, m.start(), m.end(), digits));
            }
        }
    }
}

/// The longest prefix of an IBAN-shaped match, cut at a separator or group, that is a
/// valid IBAN (a word of four letters after it can look like one more group): its length
/// and compact upper-case form.
fn valid_iban_prefix(shape: &str) -> Option<(usize, String)> {
    let mut ends: Vec<usize> = shape
        .char_indices()
        .filter(|(_, c)| *c == ' ' || *c == '-')
        .map(|(i, _)| i)
        .collect();
    ends.push(shape.len());
    if ends.len() == 1 {
        // No separators: groups of four after the head.
        ends = (15..=shape.len()).rev().collect();
    } else {
        ends.reverse();
    }
    for end in ends {
        let compact: String = shape[..end]
            .chars()
            .filter(|c| *c != ' ' && *c != '-')
            .collect::<String>()
            .to_ascii_uppercase();
        if iban_valid(&compact) {
            return Some((end, compact));
        }
    }
    None
}

/// A name a mail header gives (`From: Jörg Müller <joerg@…>`): the way it is written
/// and its parts.
struct HeaderName {
    /// The forms to find whole, longest first: as written, and "First Last" for
    /// "Last, First".
    forms: Vec<String>,
    /// Parts replaced on their own: capitalized, 3 letters or more, not in
    /// [`NOT_A_NAME`].
    parts: Vec<String>,
    /// The name's normal form (lowercase, single spaces): its placeholder's key.
    key: String,
}

/// The names the header lines of `text` give with an address.
fn header_names(text: &str) -> Vec<HeaderName> {
    let lower = text.to_ascii_lowercase();
    let Some(re) = HEADER.as_ref().filter(|_| lower.contains(':')) else {
        return Vec::new();
    };
    let mut names: Vec<HeaderName> = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for c in re.captures_iter(text) {
        let Some(value) = c.name("value") else {
            continue;
        };
        for item in address_list(value.as_str()) {
            let Some((name, address)) = display_name(&item) else {
                continue;
            };
            if let Some(mut n) = header_name(&name)
                && seen.insert(n.key.clone())
            {
                // A role address (`info@`, `no-reply@`) names an organisation: its name is
                // replaced whole, its words ("Weekly Rust") not on their own.
                if is_role_address(&address) {
                    n.parts.clear();
                }
                names.push(n);
            }
        }
    }
    names
}

/// Local parts of addresses that belong to a role or a system, not a person.
const ROLE_ADDRESSES: &[&str] = &[
    "noreply",
    "no-reply",
    "donotreply",
    "do-not-reply",
    "info",
    "billing",
    "support",
    "service",
    "notify",
    "notifications",
    "notification",
    "newsletter",
    "news",
    "hello",
    "team",
    "contact",
    "mailer-daemon",
    "postmaster",
    "helpdesk",
    "admin",
    "ops",
    "office",
    "sales",
    "booking",
    "orders",
    "invoice",
    "invoices",
    "alerts",
    "alert",
    "bot",
    "system",
    "kontakt",
    "buchhaltung",
    "rechnung",
    "praxis",
    "bounce",
    "bounces",
    "mail",
    "webmaster",
];

/// Whether an address's local part (or a word of it) is a role's.
fn is_role_address(address: &str) -> bool {
    let local = address
        .trim()
        .trim_start_matches('<')
        .split(['@', '＠'])
        .next()
        .unwrap_or_default()
        .to_lowercase();
    ROLE_ADDRESSES.contains(&local.as_str())
        || local
            .split(['.', '-', '_', '+'])
            .any(|w| ROLE_ADDRESSES.contains(&w))
}

/// A header's value split at the commas between its entries (not those in quotes or
/// `<…>`).
fn address_list(value: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut current = String::new();
    let (mut quoted, mut angle) = (false, false);
    for ch in value.chars() {
        match ch {
            '"' => quoted = !quoted,
            '<' if !quoted => angle = true,
            '>' if !quoted => angle = false,
            ',' if !quoted && !angle => {
                items.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(ch);
    }
    items.push(current);
    items
}

/// The display name and the address of one entry that carries an address:
/// `Name <addr>`, `"Last, First" <addr>`, `addr (Name)`.
fn display_name(item: &str) -> Option<(String, String)> {
    let item = item.trim();
    if let Some(open) = item.find('<') {
        let rest = &item[open..];
        // An address as written: a placeholder a pass put there is not one (`cc <email-…>`
        // was `cc bob@…`, which names nobody).
        if !rest.contains(['@', '＠']) {
            return None;
        }
        let name = item[..open].trim().trim_matches(['"', '\'']).trim();
        return (!name.is_empty()).then(|| (name.to_string(), rest.to_string()));
    }
    let open = item.find('(')?;
    let address = item[..open].trim();
    if !address.contains(['@', '＠']) {
        return None;
    }
    let name = item[open + 1..].trim_end().strip_suffix(')')?.trim();
    (!name.is_empty()).then(|| (name.to_string(), address.to_string()))
}

/// A display name checked to look like a name: 1 to 5 words of letters (and `'`, `-`,
/// `.`), 64 characters at most, no address or placeholder in it.
fn header_name(name: &str) -> Option<HeaderName> {
    if name.chars().count() > 64 || name.contains('@') || name.contains('<') {
        return None;
    }
    let (written, reordered) = match name.split_once(',') {
        Some((last, first)) => {
            let (last, first) = (last.trim(), first.trim());
            (name.to_string(), Some(format!("{first} {last}")))
        }
        None => (name.to_string(), None),
    };
    let words: Vec<&str> = written
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    let wordlike = |w: &&str| {
        w.chars().next().is_some_and(char::is_alphabetic)
            && w.chars()
                .all(|c| c.is_alphabetic() || matches!(c, '\'' | '’' | '-' | '.'))
    };
    if words.is_empty() || words.len() > 5 || !words.iter().all(wordlike) {
        return None;
    }
    // A single word of two letters ("Me", "IT") is not worth finding elsewhere.
    if words.len() == 1 && words[0].chars().count() < 3 {
        return None;
    }
    let single = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut forms = vec![single(&written)];
    if let Some(r) = reordered {
        forms.push(single(&r));
    }
    forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
    forms.dedup();
    let parts = words
        .iter()
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| {
            w.chars().count() >= 3
                && w.chars().next().is_some_and(char::is_uppercase)
                && !NOT_A_NAME.contains(&w.to_lowercase().as_str())
        })
        .map(str::to_string)
        .collect();
    // A name made only of such words (a company, a team) is still replaced whole.
    let key = single(&written.replace(',', " ")).to_lowercase();
    Some(HeaderName { forms, parts, key })
}

/// The names the headers of `text` give, wherever they stand in it: whole forms first,
/// then their parts, each only as a whole word.
fn find_names(text: &str, spans: &mut Spans) {
    let names = header_names(text);
    if names.is_empty() {
        return;
    }
    for name in &names {
        for form in &name.forms {
            for (at, _) in text.match_indices(form.as_str()) {
                if whole_word(text, at, at + form.len()) {
                    spans.add(found(Class::Name, at, at + form.len(), name.key.clone()));
                }
            }
        }
    }
    for name in &names {
        for part in &name.parts {
            for (at, _) in text.match_indices(part.as_str()) {
                if whole_word(text, at, at + part.len()) {
                    spans.add(found(Class::Name, at, at + part.len(), name.key.clone()));
                }
            }
        }
    }
}

/// Whether `text[start..end]` is not part of a longer word.
fn whole_word(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    let inner = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    !inner(before) && !inner(after)
}

/// A value next to a key word is a secret when it mixes character classes (not a word
/// like `reset` or `required`, not a placeholder like `<secret-…>`).
fn looks_secret(v: &str) -> bool {
    let lower = v.bytes().any(|b| b.is_ascii_lowercase());
    let upper = v.bytes().any(|b| b.is_ascii_uppercase());
    let digit = v.bytes().any(|b| b.is_ascii_digit());
    let classes = usize::from(lower) + usize::from(upper) + usize::from(digit);
    classes >= 2 && v.len() >= 12 || v.len() >= 24 && (digit || upper)
}

/// Whether a match is part of a longer run of digit groups (an account number, an id):
/// a digit right before or after it, or one separator away.
fn glued_to_digits(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].bytes().rev().take(2).collect::<Vec<_>>();
    let after = text[end..].bytes().take(2).collect::<Vec<_>>();
    let near = |bytes: &[u8]| match bytes {
        [d, ..] if d.is_ascii_digit() => true,
        [b' ' | b'-' | b'/' | b'.', d, ..] => d.is_ascii_digit(),
        _ => false,
    };
    near(&before) || near(&after)
}

/// Dates such as `2024-01-15`, `01/02/2024` or `15.01.2024` in a phone-shaped match.
fn looks_like_date(s: &str) -> bool {
    let groups: Vec<&str> = s.split(['-', '/', '.', ' ']).collect();
    groups.len() == 3
        && groups.iter().any(|g| g.len() == 4)
        && groups.iter().filter(|g| g.len() <= 2).count() == 2
}

/// The Luhn check of a card number's digits.
pub fn luhn_valid(digits: &str) -> bool {
    let mut sum = 0;
    for (i, b) in digits.bytes().rev().enumerate() {
        let mut d = u32::from(b.wrapping_sub(b'0'));
        if d > 9 {
            return false;
        }
        if i % 2 == 1 {
            d *= 2;
            if d > 9 {
                d -= 9;
            }
        }
        sum += d;
    }
    !digits.is_empty() && sum % 10 == 0
}

/// The ISO 13616 check of an IBAN without spaces: 15 to 34 characters, mod 97 = 1.
pub fn iban_valid(iban: &str) -> bool {
    if !(15..=34).contains(&iban.len()) || !iban.is_ascii() {
        return false;
    }
    let (head, tail) = iban.split_at(4);
    if !head[..2].bytes().all(|b| b.is_ascii_uppercase()) {
        return false;
    }
    let mut rem: u32 = 0;
    for c in tail.chars().chain(head.chars()) {
        let v = match c {
            '0'..='9' => c as u32 - '0' as u32,
            'A'..='Z' => c as u32 - 'A' as u32 + 10,
            _ => return false,
        };
        rem = if v >= 10 {
            (rem * 100 + v) % 97
        } else {
            (rem * 10 + v) % 97
        };
    }
    rem == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redactor() -> Redactor {
        Redactor::new(&RedactionKey::from_bytes([7; 32]))
    }

    /// Regression (fuzz): a value that overlapped a key shape (an address glued to a
    /// token) was left in, and redacting the result took it: redaction was not
    /// idempotent.
    #[test]
    fn a_value_freed_by_a_placeholder_is_redacted_too() {
        let text = "ghp_abcdefghijklmnopqrstuvwxyz0123456789sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ana@example.org";
        let r = redactor();
        let once = r.redact(text);
        assert_eq!(r.redact(&once), once);
        assert!(!has_redactable(&once), "{once}");
        let masked = mask_secrets(text);
        assert_eq!(mask_secrets(&masked), masked);
    }

    #[test]
    fn placeholders_are_keyed_stable_and_reveal_nothing() {
        let r = redactor();
        let a = r.placeholder(Class::Email, "ana@example.org");
        assert!(
            a.starts_with("<email-") && a.len() == "<email-abcdef>".len(),
            "{a}"
        );
        assert_eq!(a, redactor().placeholder(Class::Email, "ana@example.org"));
        let other = Redactor::new(&RedactionKey::from_bytes([8; 32]));
        assert_ne!(a, other.placeholder(Class::Email, "ana@example.org"));
        assert_ne!(a, r.placeholder(Class::Email, "bob@example.org"));
        let text = "Ana <ana@example.org> and bob@example.net; again ANA@example.org";
        let out = r.redact(text);
        assert_eq!(out.matches(&a).count(), 2, "{out}");
        assert!(!out.contains("example"), "{out}");
    }

    #[test]
    fn the_key_reads_back_and_never_shows() {
        let key = RedactionKey::from_bytes([0xab; 32]);
        assert_eq!(RedactionKey::from_hex(&key.to_hex()), Some(key.clone()));
        assert_eq!(format!("{key:?}"), "RedactionKey([hidden])");
        assert_eq!(RedactionKey::from_hex("abc"), None);
        assert_eq!(RedactionKey::from_hex(&"zz".repeat(32)), None);
    }

    #[test]
    fn checked_numbers_only() {
        let r = redactor();
        for keep in [
            "order 4111 1111 1111 1112",
            "ref DE89 3704 0044 0532 0130 01",
            "on 2024-01-15",
            "v1.2.3456",
            "id 12345678",
            "01/02/2024",
            "10:30-11:45",
            "15.01.2024",
            "ip 192.168.10.254",
        ] {
            assert_eq!(r.redact(keep), keep);
        }
    }

    #[test]
    fn counts_by_class() {
        let r = redactor();
        let out = r.redact_counted("a@b.de, c@d.de, +49 30 1234567, a@b.de");
        assert_eq!(out.tally.get(Class::Email), 3);
        assert_eq!(out.tally.get(Class::Phone), 1);
        assert_eq!(out.tally.total(), 4);
        assert_eq!(
            out.tally.by_word(),
            BTreeMap::from([("email".into(), 3), ("phone".into(), 1)])
        );
    }

    /// Regression (issue 30): a name from a mail that had left the inbox was no
    /// longer known, so the memory written from the mail sent it in clear.
    #[test]
    fn learned_names_are_replaced_without_their_header() {
        let r = redactor().with_names(KnownNames::default());
        let memory = "Hannah Weber emailed; Hannah's invoice is due; hannah is a word; HANNAH";
        assert_eq!(r.redact(memory), memory, "nothing learned yet");
        r.learn("From: Hannah Weber <hannah@example.org>\nSubject: invoice");
        let name = r.placeholder(Class::Name, "hannah weber");
        let out = r.redact_counted(memory);
        assert_eq!(
            out.text,
            format!("{name} emailed; {name}'s invoice is due; hannah is a word; {name}")
        );
        assert_eq!(
            out.tally.get(Class::Name),
            3,
            "one placeholder for the two words"
        );
        // A redactor that keeps no names learns none.
        let plain = redactor();
        plain.learn("From: Hannah Weber <hannah@example.org>");
        assert_eq!(plain.redact(memory), memory);
    }

    /// Names are kept while the memory mentions them (an id's words count), and those
    /// learned now always.
    #[test]
    fn names_are_kept_while_the_memory_mentions_them() {
        let first = redactor().with_names(KnownNames::default());
        first.learn("From: Hannah Weber <hannah@example.org>\nTo: Jörg Müller <j@example.de>");
        let kept = first.names_to_keep(["nothing of them"]).unwrap();
        assert_eq!(kept.len(), 2, "learned by this process");
        let text = kept.to_json().unwrap();
        assert!(
            !text.to_lowercase().contains("hannah") && !text.contains("jörg"),
            "{text}"
        );
        // The next tick loads them: kept while a word of the memory is one of theirs.
        let next = redactor().with_names(KnownNames::from_json(&text).unwrap());
        let keep = |memory: &str| next.names_to_keep([memory]).unwrap().len();
        assert_eq!(keep("[t-jorg-muller-owes] 500 EUR"), 1);
        assert_eq!(keep("Backup fails on Mondays"), 0);
        assert!(redactor().names_to_keep(["Hannah"]).is_none());
        assert_eq!(
            next.redact("Joerg Mueller owes 500 EUR"),
            format!(
                "{} owes 500 EUR",
                next.placeholder(Class::Name, "jörg müller")
            )
        );
    }

    /// Regression (issue 30): an entry id kept the name its redacted summary no longer
    /// showed (`[t-hannah-weber-emailed]` beside `<name-…> emailed`). It gets an alias
    /// made of the redacted words, and the answer gets the id back.
    #[test]
    fn ids_that_carry_a_personal_word_get_an_alias() {
        let r = redactor().with_names(KnownNames::default());
        let prompt = "From: Hannah Weber <hannah@example.org>\n\
                      - [t-hannah-weber-emailed] Hannah Weber emailed (links: connects [p-ana-souza-calls])\n\
                      - [t-name-CODE-emailed] an entry a redacted answer made\n\
                      - [p-backup-fails-mondays] Backup fails\n\
                      - [h-call-0301-234567] call back\n\
                      reinforce one of: t-hannah-weber-emailed, p-backup-fails-mondays";
        let name = r.placeholder(Class::Name, "hannah weber");
        let code = name
            .trim_start_matches('<')
            .trim_end_matches('>')
            .to_string();
        let prompt = prompt.replace("name-CODE", &code);
        r.learn("From: Ana Souza <ana.souza@example.org>");
        let sent = r.redact_request(&["", &prompt]);
        let out = &sent.texts[1];
        for gone in ["hannah", "Hannah", "souza", "0301", "234567"] {
            assert!(!out.contains(gone), "{gone} in {out}");
        }
        let alias = format!("t-{code}-emailed-");
        assert!(
            out.contains(&format!("[{alias}")),
            "a taken alias gets a suffix: {out}"
        );
        assert!(
            out.contains(&format!("[t-{code}-emailed] an entry")),
            "{out}"
        );
        assert!(
            out.contains("[p-backup-fails-mondays]") && out.contains("[h-call-phone-"),
            "{out}"
        );
        assert_eq!(sent.aliases.len(), 3, "{:?}", sent.aliases);
        // The same id gets the same alias in every call.
        assert_eq!(r.redact_request(&[&prompt]).texts[0], *out);
        // The answer's ids come back.
        let given = out[out.find(&alias).unwrap()..].split(']').next().unwrap();
        let answer = format!(r#"{{"reinforce": ["{given}", "t-{code}-emailed"]}}"#);
        assert_eq!(
            sent.aliases.restore(&answer),
            format!(r#"{{"reinforce": ["t-hannah-weber-emailed", "t-{code}-emailed"]}}"#)
        );
        // Redacting what was sent changes nothing.
        assert_eq!(r.redact_request(&[out]).texts[0], *out);
    }

    /// Regression (issue 30): spellings the probe sent verbatim — a trunk zero in
    /// brackets and a slash, full-width and other scripts' digits, a value spaced letter
    /// by letter — are the value, with its placeholder.
    #[test]
    fn spellings_of_one_value_share_its_placeholder() {
        let r = redactor();
        let one = |a: &str, b: &str, class: Class| {
            let (x, y) = (r.redact(a), r.redact(b));
            assert!(x.contains(&format!("<{class}-")), "{a} → {x}");
            assert_eq!(x, y.replace(b, a), "{a} and {b}");
            let (px, py) = (spans(a), spans(b));
            assert_eq!((px.len(), py.len()), (1, 1), "{a}: {px:?}; {b}: {py:?}");
        };
        one("+49 (0) 30 / 1234 5678", "+49 30 12345678", Class::Phone);
        one("＋４９ ３０ １２３４５６７", "+49 30 1234567", Class::Phone);
        one("٠١٧١ ١٢٣٤٥٦٧", "0171 1234567", Class::Phone);
        one(
            "４１１１ １１１１ １１１１ １１１１",
            "4111 1111 1111 1111",
            Class::Card,
        );
        one("𝟒𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏𝟏", "4111111111111111", Class::Card);
        one(
            "D E 8 9 3 7 0 4 0 0 4 4 0 5 3 2 0 1 3 0 0 0",
            "DE89 3704 0044 0532 0130 00",
            Class::Iban,
        );
        one(
            "j a n e @ e x a m p l e . o r g",
            "jane@example.org",
            Class::Email,
        );
        one(
            "ｊａｎｅ＠ｅｘａｍｐｌｅ．ｏｒｇ",
            "jane@example.org",
            Class::Email,
        );
    }

    /// An id-shaped word inside an address (`t-online`) is the address's: it is replaced
    /// with it, once (a pass that aliased it freed the address's start, so every pass
    /// changed the text).
    #[test]
    fn an_id_inside_a_value_is_the_value_s() {
        let r = redactor();
        let text = "mailto:mutti.meier@t-online.example for the photos";
        let out = r.redact_request(&[text]);
        assert_eq!(
            out.texts[0],
            format!(
                "mailto:{} for the photos",
                r.placeholder(Class::Email, "mutti.meier@t-online.example")
            )
        );
        assert!(out.aliases.is_empty());
    }

    #[test]
    fn keys_and_tokens() {
        let r = redactor();
        let text = "OPENAI=sk-proj-abcdefghijklmnopqrstuv12 gh ghp_0123456789abcdefghijABCDEFGHIJklmn \
                    aws AKIAIOSFODNN7EXAMPLE api_key: \"Zx8fQ2mN7pL4kR9s\" password reset";
        let out = r.redact_counted(text);
        assert_eq!(out.tally.get(Class::Secret), 4, "{}", out.text);
        assert!(out.text.ends_with("\" password reset"), "{}", out.text);
        assert_eq!(r.redact(&out.text), out.text);
    }
}
