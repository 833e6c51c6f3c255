//! A provider's settings, as the config file gives them and the provider layer reads
//! them: [`ProviderConfig`] and its parts ([`ProviderKind`], [`StructuredOutput`],
//! [`TlsSettings`], [`BreakerSettings`]), [`ModelRef`] (`provider/model`), a `ca_file` read
//! once into its certificates ([`CaFile`], or why it cannot be: [`CaFileError`]) and the breaker's [`fingerprint`] of a
//! provider's config and key, keyed with the state's secret ([`Fingerprint`];
//! [`fingerprints`]: every provider's, the keys read through the function it is given).
//!
//! `crate::config` validates the file into these types; everything below it (the
//! providers, the breaker, privacy, egress, the budgets) takes them from here. Must not:
//! import `crate::config`, read a key's value itself (callers hand it, or the way to read
//! it, to [`fingerprint`] and [`fingerprints`]), or do
//! I/O beyond reading the `ca_file` it is given.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::CertificateDer;
use serde::Deserialize;

use crate::untrusted;
use crate::untrusted::redact::RedactionKey;

/// The wire format a provider speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    Openai,
    Anthropic,
    Ollama,
    Replay,
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProviderKind::Openai => "openai",
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::Ollama => "ollama",
            ProviderKind::Replay => "replay",
        })
    }
}

/// Which certificate authorities a provider's `https://` server is checked against
/// (`tls_roots`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TlsRoots {
    /// The Mozilla roots compiled into the binary (`webpki-roots`): nothing is read from
    /// the disk, so a tick pays nothing for them.
    #[default]
    Bundled,
    /// The platform's verifier and certificate store (`/etc/ssl/certs`, the keychain), for
    /// a corporate CA installed on the machine; loading it costs a few milliseconds.
    System,
}

/// A provider's TLS trust: `tls_roots` and `ca_file`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TlsSettings {
    pub roots: TlsRoots,
    /// A PEM file of extra roots trusted besides `roots` (a self-signed local server, a
    /// company CA), read and checked to hold certificates when the config is read.
    pub ca_file: Option<CaFile>,
}

/// A `ca_file`: where it is and the certificates it held when the config was read. The
/// file is read once, there; the transport trusts these certificates without reading it
/// again.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct CaFile {
    path: PathBuf,
    certificates: Arc<[CertificateDer<'static>]>,
}

impl CaFile {
    /// Reads the PEM file at `path` (resolved); the error says what is wrong with it.
    pub fn read(path: &Path) -> Result<CaFile, CaFileError> {
        Ok(CaFile {
            path: path.to_path_buf(),
            certificates: ca_certificates(path)?.into(),
        })
    }

    /// The file's path, as the config resolved it.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The certificates read from it (at least one).
    pub fn certificates(&self) -> &[CertificateDer<'static>] {
        &self.certificates
    }
}

/// Written as its path alone: a provider's [`fingerprint`] is its config's `Debug`, which
/// names the file (as it always has) and not its bytes.
impl fmt::Debug for CaFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.path, f)
    }
}

/// The certificates of a PEM file (`ca_file`); the error says what is wrong with it.
fn ca_certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, CaFileError> {
    use rustls::pki_types::pem::PemObject as _;
    let bytes = std::fs::read(path).map_err(|source| CaFileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|source| CaFileError::Pem {
            path: path.to_path_buf(),
            source,
        })?;
    if certs.is_empty() {
        return Err(CaFileError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(certs)
}

/// Why a `ca_file` cannot be used (it is read with the config).
#[derive(Debug, thiserror::Error)]
pub enum CaFileError {
    #[error("cannot read {}: {source}; give the path of a PEM file of CA certificates", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{} is not a readable PEM file ({source}); give a file of `-----BEGIN CERTIFICATE-----` blocks",
        .path.display()
    )]
    Pem {
        path: PathBuf,
        source: rustls::pki_types::pem::Error,
    },
    #[error(
        "{} holds no certificate; give a PEM file of `-----BEGIN CERTIFICATE-----` blocks",
        .path.display()
    )]
    Empty { path: PathBuf },
}

/// How a provider is asked for the answer schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StructuredOutput {
    /// The kind's best feature: OpenAI `json_schema`, Anthropic forced tool use, Ollama
    /// `format` with the schema.
    Auto,
    /// OpenAI `response_format: {"type": "json_schema", ...}`; Ollama `format` with the
    /// schema; Anthropic structured outputs, `output_config: {"format": {"type":
    /// "json_schema", ...}}`.
    JsonSchema,
    /// OpenAI `{"type": "json_object", "schema": ...}` (llama-cpp-python's server).
    JsonObjectSchema,
    /// OpenAI `{"type": "json_object"}`; Ollama `format: "json"`.
    JsonObject,
    /// Anthropic forced tool use (the default for that kind).
    Tool,
    /// Anthropic structured outputs in the beta's form: a top-level `output_format:
    /// {"type": "json_schema", ...}` with `anthropic-beta: structured-outputs-2025-11-13`
    /// (for gateways that know only that form).
    OutputFormat,
    /// No structured-output parameter; the prompt alone asks for JSON.
    None,
}

impl StructuredOutput {
    /// The name used in the config file.
    pub fn as_str(self) -> &'static str {
        match self {
            StructuredOutput::Auto => "auto",
            StructuredOutput::JsonSchema => "json_schema",
            StructuredOutput::JsonObjectSchema => "json_object_schema",
            StructuredOutput::JsonObject => "json_object",
            StructuredOutput::Tool => "tool",
            StructuredOutput::OutputFormat => "output_format",
            StructuredOutput::None => "none",
        }
    }
}

/// One configured provider.
#[derive(Clone, Debug, PartialEq)]
pub struct ProviderConfig {
    pub name: String,
    pub kind: ProviderKind,
    /// Without a trailing slash.
    pub base_url: String,
    /// The environment variable that holds the API key (never the key itself).
    pub api_key_env: Option<String>,
    pub timeout: Duration,
    pub retries: u32,
    pub retry_max_wait: Duration,
    pub requests_per_minute: Option<u32>,
    /// At most this many requests in flight at once (`None`: no limit); calls beyond it
    /// wait their turn before they are sent.
    pub concurrency: Option<u32>,
    pub structured_output: StructuredOutput,
    /// USD per million input tokens.
    pub price_in: f64,
    /// USD per million output tokens.
    pub price_out: f64,
    pub daily_tokens: Option<u64>,
    pub daily_cost: Option<f64>,
    /// `replay` only: where answers are read from.
    pub replay_dir: Option<PathBuf>,
    pub anthropic_version: String,
    /// The most bytes of one response body that are read; a 2xx body that passes it
    /// fails the model.
    pub max_response_bytes: usize,
    /// When to stop calling a provider that refuses the key or the quota.
    pub breaker: BreakerSettings,
    /// Personal data (addresses, phone numbers, cards, IBANs, key shapes, passwords,
    /// names from mail headers) is replaced by placeholders in everything this provider
    /// is sent (default: on when private text reaches it only redacted or not at all:
    /// a remote, untrusted provider unless `private_to = "any"`).
    pub redact: bool,
    /// On this machine (SPEC §9): the base URL's host is a loopback address, or the
    /// config says `local = true` (a LAN server one trusts); `replay` is local.
    pub local: bool,
    /// `trusted = true`: a remote provider allowed to receive private text.
    pub trusted: bool,
    /// Which roots an `https://` server's certificate is checked against.
    pub tls: TlsSettings,
}

/// `provider/model`, as a thread's `model` and `fallback` name it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ModelRef {
    pub provider: String,
    pub model: String,
}

impl fmt::Display for ModelRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.provider, self.model)
    }
}

/// `breaker_failures` when the provider's table does not say.
pub const DEFAULT_BREAKER_FAILURES: u32 = 3;
/// `breaker_hours` when the provider's table does not say.
pub const DEFAULT_BREAKER_HOURS: u32 = 6;

/// A provider's breaker settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BreakerSettings {
    /// Consecutive refusals that open it.
    pub failures: u32,
    /// How long it stays open.
    pub hours: u32,
}

impl Default for BreakerSettings {
    fn default() -> Self {
        BreakerSettings {
            failures: DEFAULT_BREAKER_FAILURES,
            hours: DEFAULT_BREAKER_HOURS,
        }
    }
}

/// The breaker's fingerprint of a provider's config and its key's value now ([`fingerprint`]):
/// it tells that either changed without keeping anything of the key.
///
/// Written: `k1-` and 32 hex digits (128 bits) of HMAC-SHA256 keyed with the state's
/// secret (`redaction.key`), so a ledger alone does not let anyone test guesses of a
/// short key. Also matched, never written: the unkeyed 48-bit FNV hash older versions
/// wrote ([`Fingerprint::matches`]), so that an upgrade neither closes an open breaker
/// nor counts a changed key's refusals against the new one; the tick then writes the
/// keyed one in its place (`breaker::Breakers::new`).
#[derive(Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// `None` without the state's secret (`doctor` before the first tick): only an older
    /// version's fingerprint can match.
    keyed: Option<String>,
    legacy: String,
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.written())
    }
}

impl Fingerprint {
    /// What the ledger keeps: the keyed fingerprint (empty without the state's secret:
    /// matches nothing).
    pub fn written(&self) -> &str {
        self.keyed.as_deref().unwrap_or("")
    }

    /// Whether a fingerprint kept in the ledger is this one: the keyed one, or the one
    /// an older version wrote of the same config and key.
    pub fn matches(&self, recorded: &str) -> bool {
        !recorded.is_empty() && (self.keyed.as_deref() == Some(recorded) || recorded == self.legacy)
    }

    /// A fingerprint that is `text` (tests of what reads them).
    #[cfg(test)]
    pub fn fixed(text: &str) -> Fingerprint {
        Fingerprint {
            keyed: Some(text.into()),
            legacy: text.into(),
        }
    }
}

/// The prefix of a keyed [`Fingerprint`].
const KEYED_PREFIX: &str = "k1-";

/// The fingerprint of a provider's config and its key's value (`None`: no key), keyed
/// with the state's `secret` (`None`: not known here).
pub fn fingerprint(
    config: &ProviderConfig,
    key: Option<&str>,
    secret: Option<&RedactionKey>,
) -> Fingerprint {
    let described = format!("{config:?}");
    let key = key.unwrap_or("");
    let keyed = secret.map(|secret| {
        // The key's hex form is its 256 bits as HMAC key bytes (the file's own text).
        let hmac = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, secret.to_hex().as_bytes());
        let mut ctx = ring::hmac::Context::with_key(&hmac);
        for part in ["thinker breaker fingerprint", &described, key] {
            ctx.update(part.as_bytes());
            ctx.update(&[0]);
        }
        let tag = ctx.sign();
        tag.as_ref()[..16]
            .iter()
            .fold(String::from(KEYED_PREFIX), |mut s, b| {
                use std::fmt::Write as _;
                let _ = write!(s, "{b:02x}");
                s
            })
    });
    Fingerprint {
        keyed,
        legacy: untrusted::fence_id(&[&described, key]),
    }
}

/// Each provider's [`fingerprint`], its key's value read by `env` from its `api_key_env`,
/// keyed with the state's `secret`: what the tick checks its breakers against, and what
/// `doctor` must check them against to say what the tick will do.
pub fn fingerprints(
    configs: &BTreeMap<String, ProviderConfig>,
    secret: Option<&RedactionKey>,
    env: impl Fn(&str) -> Option<String>,
) -> BTreeMap<String, Fingerprint> {
    configs
        .iter()
        .map(|(name, c)| {
            let key = c.api_key_env.as_deref().and_then(&env);
            (name.clone(), fingerprint(c, key.as_deref(), secret))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ca_file_that_cannot_be_used_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.pem");
        assert!(matches!(
            CaFile::read(&missing),
            Err(CaFileError::Read { path, .. }) if path == missing
        ));
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "no certificate here\n").unwrap();
        let err = CaFile::read(&empty).unwrap_err();
        assert!(
            matches!(&err, CaFileError::Empty { path } if *path == empty),
            "{err:?}"
        );
        assert!(
            err.to_string().ends_with(
                " holds no certificate; give a PEM file of `-----BEGIN CERTIFICATE-----` blocks"
            ),
            "{err}"
        );
    }
}
