//! A `[providers.<name>]` table validated into a [`ProviderConfig`]
//! (`crate::provider::config` owns the type): the connection, structured output, the
//! replay directory, pacing, prices, TLS trust (the `ca_file` read and parsed here, once)
//! and the response cap, each error naming `providers.<name>.<key>` and its line.
//!
//! Must not: make a connection, or read a key's value (only `api_key_env`'s name).

use std::path::PathBuf;
use std::time::Duration;

use super::raw::RawProvider;
use super::validate::{MAX_DAILY_COST, MAX_PRICE, Validator};
use super::{
    CaFile, ConfigError, DEFAULT_LOOPBACK_CONCURRENCY, DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_PROVIDER_TIMEOUT, MAX_RESPONSE_BYTES_RANGE, ProviderConfig, ProviderKind,
    StructuredOutput, TlsSettings,
};
use crate::provider::config::{BreakerSettings, DEFAULT_BREAKER_FAILURES, DEFAULT_BREAKER_HOURS};

impl Validator<'_> {
    /// `[providers.<name>]`, validated part by part in the order its errors are reported:
    /// the name, the connection, structured output, the replay directory, pacing, prices,
    /// the response cap.
    pub(super) fn provider(
        &self,
        name: &str,
        p: RawProvider,
        private_to: crate::privacy::PrivateTo,
    ) -> Result<ProviderConfig, ConfigError> {
        if name.is_empty() || name.contains('/') {
            return Err(self.err(
                format!("providers.{name}"),
                "a provider name cannot be empty or contain `/`",
            ));
        }
        let base_url = self.connection(
            name,
            p.kind,
            p.base_url.as_deref(),
            p.api_key_env.as_deref(),
        )?;
        let structured_output = self.structured_output(name, p.kind, p.structured_output)?;
        let replay_dir = self.replay_dir(name, p.kind, p.dir.as_deref())?;
        let pacing = self.pacing(name, &p, &base_url)?;
        let prices = self.prices(name, &p)?;
        // SPEC §9: local by the base URL's host unless the config says otherwise.
        let local = p
            .local
            .unwrap_or(p.kind == ProviderKind::Replay || is_loopback(&base_url));
        let trusted = p.trusted.unwrap_or(false);
        let redact = p
            .redact
            .unwrap_or(private_to.access(local, trusted) != crate::privacy::Access::Full);
        let tls = self.tls(name, &p)?;
        Ok(ProviderConfig {
            name: name.to_string(),
            kind: p.kind,
            base_url,
            api_key_env: p.api_key_env,
            timeout: pacing.timeout,
            retries: pacing.retries,
            retry_max_wait: pacing.retry_max_wait,
            requests_per_minute: pacing.requests_per_minute,
            concurrency: pacing.concurrency,
            structured_output,
            price_in: prices.price_in,
            price_out: prices.price_out,
            daily_tokens: p.daily_tokens,
            daily_cost: prices.daily_cost,
            replay_dir,
            anthropic_version: p.anthropic_version.unwrap_or_else(|| "2023-06-01".into()),
            max_response_bytes: self.max_response_bytes(name, p.max_response_bytes)?,
            redact,
            local,
            trusted,
            tls,
            breaker: BreakerSettings {
                failures: self.int(
                    &provider_key(name, "breaker_failures"),
                    p.breaker_failures,
                    DEFAULT_BREAKER_FAILURES,
                    1..=1000,
                )?,
                hours: self.int(
                    &provider_key(name, "breaker_hours"),
                    p.breaker_hours,
                    DEFAULT_BREAKER_HOURS,
                    1..=8760,
                )?,
            },
        })
    }

    /// The provider's `base_url` (its kind's default when left out) and `api_key_env`;
    /// returns the base URL without a trailing `/`.
    fn connection(
        &self,
        name: &str,
        kind: ProviderKind,
        base_url: Option<&str>,
        api_key_env: Option<&str>,
    ) -> Result<String, ConfigError> {
        let key = |k: &str| provider_key(name, k);
        let base_url = match (kind, base_url) {
            (_, Some(url)) => {
                let parsed = reqwest::Url::parse(url)
                    .map_err(|e| self.err(key("base_url"), format!("`{url}` is not a URL: {e}")))?;
                if !matches!(parsed.scheme(), "http" | "https") {
                    return Err(self.err(
                        key("base_url"),
                        format!("`{url}` must start with http:// or https://"),
                    ));
                }
                url.trim_end_matches('/').to_string()
            }
            (ProviderKind::Anthropic, None) => "https://api.anthropic.com".into(),
            (ProviderKind::Ollama, None) => "http://127.0.0.1:11434".into(),
            (ProviderKind::Replay, None) => String::new(),
            (ProviderKind::Openai, None) => {
                return Err(self.err(
                    key("base_url"),
                    "an openai provider needs base_url, e.g. \"https://api.groq.com/openai/v1\"",
                ));
            }
        };
        if let Some(env) = api_key_env
            && (env.is_empty() || env.contains('=') || env.chars().any(char::is_whitespace))
        {
            return Err(self.err(
                key("api_key_env"),
                "must be the NAME of an environment variable, not the key itself",
            ));
        }
        Ok(base_url)
    }

    /// `structured_output` (default `auto`): one of the modes the provider's kind offers.
    fn structured_output(
        &self,
        name: &str,
        kind: ProviderKind,
        structured_output: Option<StructuredOutput>,
    ) -> Result<StructuredOutput, ConfigError> {
        let structured_output = structured_output.unwrap_or(StructuredOutput::Auto);
        let allowed: &[StructuredOutput] = match kind {
            ProviderKind::Openai => &[
                StructuredOutput::JsonSchema,
                StructuredOutput::JsonObjectSchema,
                StructuredOutput::JsonObject,
            ],
            ProviderKind::Anthropic => &[
                StructuredOutput::Tool,
                StructuredOutput::JsonSchema,
                StructuredOutput::OutputFormat,
            ],
            ProviderKind::Ollama => &[StructuredOutput::JsonSchema, StructuredOutput::JsonObject],
            ProviderKind::Replay => &[],
        };
        if !matches!(
            structured_output,
            StructuredOutput::Auto | StructuredOutput::None
        ) && !allowed.contains(&structured_output)
        {
            return Err(self.err(
                provider_key(name, "structured_output"),
                format!(
                    "not available for kind {kind}; use one of: {}",
                    ["auto", "none"]
                        .into_iter()
                        .chain(allowed.iter().map(|s| s.as_str()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        Ok(structured_output)
    }

    /// `dir`: required by replay providers, refused by every other kind.
    fn replay_dir(
        &self,
        name: &str,
        kind: ProviderKind,
        dir: Option<&str>,
    ) -> Result<Option<PathBuf>, ConfigError> {
        let key = provider_key(name, "dir");
        match (kind, dir) {
            (ProviderKind::Replay, Some(d)) => Ok(Some(self.resolve(&key, d)?)),
            (ProviderKind::Replay, None) => Err(self.err(
                key,
                "a replay provider needs dir, the directory its answers are read from",
            )),
            (_, Some(_)) => Err(self.err(key, "only replay providers take dir")),
            (_, None) => Ok(None),
        }
    }

    /// How calls are paced and bounded: `concurrency` (default 1 on a loopback
    /// `base_url`), `timeout_seconds`, `retries`, `retry_max_wait_seconds`,
    /// `requests_per_minute`.
    fn pacing(&self, name: &str, p: &RawProvider, base_url: &str) -> Result<Pacing, ConfigError> {
        let key = |k: &str| provider_key(name, k);
        let concurrency = match p.concurrency {
            Some(0) => {
                return Err(self.err(
                    key("concurrency"),
                    "must be 1 or more (leave it out for the default: 1 on a loopback \
                     server, no limit elsewhere)",
                ));
            }
            Some(n) => Some(n),
            None if is_loopback(base_url) => Some(DEFAULT_LOOPBACK_CONCURRENCY),
            None => None,
        };
        Ok(Pacing {
            concurrency,
            timeout: self.seconds(
                &key("timeout_seconds"),
                p.timeout_seconds,
                DEFAULT_PROVIDER_TIMEOUT,
            )?,
            retries: self.int(&key("retries"), p.retries, 2, 0..=10)?,
            retry_max_wait: self.seconds(
                &key("retry_max_wait_seconds"),
                p.retry_max_wait_seconds,
                30.0,
            )?,
            requests_per_minute: match p.requests_per_minute {
                Some(0) => {
                    return Err(self.err(
                        key("requests_per_minute"),
                        "must be 1 or more (leave it out for no limit)",
                    ));
                }
                Some(n) => Some(self.int(&key("requests_per_minute"), Some(n), n, 1..=60_000)?),
                None => None,
            },
        })
    }

    /// `price_in` and `price_out` (USD per million tokens, default 0) and `daily_cost`.
    fn prices(&self, name: &str, p: &RawProvider) -> Result<Prices, ConfigError> {
        let key = |k: &str| provider_key(name, k);
        Ok(Prices {
            price_in: self
                .money(&key("price_in"), p.price_in, MAX_PRICE)?
                .unwrap_or(0.0),
            price_out: self
                .money(&key("price_out"), p.price_out, MAX_PRICE)?
                .unwrap_or(0.0),
            daily_cost: self.money(&key("daily_cost"), p.daily_cost, MAX_DAILY_COST)?,
        })
    }

    /// `tls_roots` (default `bundled`) and `ca_file` (read now, and only now: a file that
    /// is missing or holds no certificate is an error naming the key and the file; the
    /// transport is handed its certificates); replay providers take neither.
    fn tls(&self, name: &str, p: &RawProvider) -> Result<TlsSettings, ConfigError> {
        if p.kind == ProviderKind::Replay {
            for (k, set) in [
                ("tls_roots", p.tls_roots.is_some()),
                ("ca_file", p.ca_file.is_some()),
            ] {
                if set {
                    return Err(self.err(
                        provider_key(name, k),
                        "a replay provider makes no connection; remove it",
                    ));
                }
            }
        }
        let key = provider_key(name, "ca_file");
        let ca_file = match p.ca_file.as_deref() {
            Some(file) => {
                let path = self.resolve(&key, file)?;
                Some(CaFile::read(&path).map_err(|e| self.err(&key, e.to_string()))?)
            }
            None => None,
        };
        Ok(TlsSettings {
            roots: p.tls_roots.unwrap_or_default(),
            ca_file,
        })
    }

    /// `max_response_bytes`, within [`MAX_RESPONSE_BYTES_RANGE`].
    fn max_response_bytes(&self, name: &str, v: Option<u64>) -> Result<usize, ConfigError> {
        match v {
            None => Ok(DEFAULT_MAX_RESPONSE_BYTES),
            Some(n) if MAX_RESPONSE_BYTES_RANGE.contains(&n) => Ok(n as usize),
            Some(n) => Err(self.err(
                provider_key(name, "max_response_bytes"),
                format!(
                    "{n} is out of range: give between {} (1 KiB) and {} (1 GiB) bytes",
                    MAX_RESPONSE_BYTES_RANGE.start(),
                    MAX_RESPONSE_BYTES_RANGE.end()
                ),
            )),
        }
    }
}

/// `providers.<name>.<k>`, the key a provider's error names.
fn provider_key(name: &str, k: &str) -> String {
    format!("providers.{name}.{k}")
}

/// A provider's validated pacing and bounds (see [`Validator::pacing`]).
struct Pacing {
    concurrency: Option<u32>,
    timeout: Duration,
    retries: u32,
    retry_max_wait: Duration,
    requests_per_minute: Option<u32>,
}

/// A provider's validated prices and daily cost limit (see [`Validator::prices`]).
struct Prices {
    price_in: f64,
    price_out: f64,
    daily_cost: Option<f64>,
}

/// Whether `url` names this machine: `localhost` (or a `*.localhost` name), 127.0.0.0/8,
/// `::1`, the unspecified addresses (`0.0.0.0`, `::`), or an IPv4-mapped loopback.
fn is_loopback(url: &str) -> bool {
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return false;
    };
    match parsed.host_str() {
        Some(host) => {
            let host = host.trim_start_matches('[').trim_end_matches(']');
            host.eq_ignore_ascii_case("localhost")
                || host.to_ascii_lowercase().ends_with(".localhost")
                || host.parse::<std::net::IpAddr>().is_ok_and(|ip| {
                    // 0.0.0.0 / :: as a destination reach this machine; an IPv4-mapped
                    // address is its IPv4 address.
                    let ip = ip.to_canonical();
                    ip.is_loopback() || ip.is_unspecified()
                })
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, ConfigError, TlsRoots};
    use std::path::Path;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Some(Path::new("/etc/thinker/config.toml")))
    }

    #[test]
    fn concurrency_defaults_to_one_on_loopback_and_is_validated() {
        let provider = |url: &str, extra: &str| {
            parse(&format!(
                "[providers.p]\nkind = \"openai\"\nbase_url = \"{url}\"\n{extra}"
            ))
            .map(|c| c.providers["p"].concurrency)
        };
        for url in [
            "http://127.0.0.1:8080/v1",
            "http://127.3.4.5/v1",
            "http://localhost:11434/v1",
            "http://LOCALHOST/v1",
            "http://[::1]:8080/v1",
            "http://0.0.0.0:8080/v1",
            "http://[::ffff:127.0.0.1]:8080/v1",
        ] {
            assert_eq!(provider(url, "").unwrap(), Some(1), "{url}");
        }
        for url in [
            "https://api.groq.com/openai/v1",
            "http://192.168.1.5:8080/v1",
            "http://[::2]/v1",
        ] {
            assert_eq!(provider(url, "").unwrap(), None, "{url}");
        }
        assert_eq!(
            provider("http://127.0.0.1/v1", "concurrency = 3").unwrap(),
            Some(3)
        );
        assert_eq!(
            provider("https://api.groq.com/openai/v1", "concurrency = 2").unwrap(),
            Some(2)
        );
        let err = provider("http://127.0.0.1/v1", "concurrency = 0")
            .unwrap_err()
            .to_string();
        assert!(err.contains("providers.p.concurrency"), "{err}");
        let ollama = parse("[providers.o]\nkind = \"ollama\"\n").unwrap();
        assert_eq!(ollama.providers["o"].concurrency, Some(1));
    }

    #[test]
    fn output_format_is_an_anthropic_mode() {
        let c =
            parse("[providers.a]\nkind = \"anthropic\"\nstructured_output = \"output_format\"\n")
                .unwrap();
        assert_eq!(
            c.providers["a"].structured_output,
            StructuredOutput::OutputFormat
        );
        let err = parse("[providers.o]\nkind = \"openai\"\nbase_url = \"https://x\"\nstructured_output = \"output_format\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("providers.o.structured_output"), "{err}");
    }

    #[test]
    fn api_key_env_refuses_a_literal_key() {
        let err = parse("[providers.g]\nkind = \"openai\"\nbase_url = \"https://x\"\napi_key_env = \"sk-abc def\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("providers.g.api_key_env"), "{err}");
        assert!(
            !err.contains("sk-abc"),
            "the would-be key must not be echoed: {err}"
        );
    }

    #[test]
    fn tls_roots_and_ca_file_are_checked_naming_the_key_and_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        std::fs::write(dir.path().join("ca.pem"), cert.cert.pem()).unwrap();
        std::fs::write(dir.path().join("empty.pem"), "nothing here\n").unwrap();
        std::fs::write(
            dir.path().join("broken.pem"),
            "-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n",
        )
        .unwrap();
        let config = dir.path().join("thinker.toml");
        let with = |kind: &str, extra: &str| {
            let url = if kind == "replay" {
                "dir = \"answers\""
            } else {
                "base_url = \"https://x\""
            };
            let text = format!("[providers.p]\nkind = \"{kind}\"\n{url}\n{extra}\n");
            Config::parse(&text, Some(&config)).map(|c| c.providers["p"].tls.clone())
        };
        assert_eq!(with("openai", "").unwrap(), TlsSettings::default());
        assert_eq!(
            with("openai", "tls_roots = \"system\"").unwrap().roots,
            TlsRoots::System
        );
        let ok = with("ollama", "ca_file = \"ca.pem\"").unwrap();
        assert_eq!(
            ok.ca_file.as_ref().map(CaFile::path),
            Some(dir.path().join("ca.pem").as_path())
        );
        assert_eq!(ok.roots, TlsRoots::Bundled);
        // (extra lines, what the error must say)
        let cases = [
            (
                "tls_roots = \"mozilla\"",
                vec!["tls_roots", "bundled", "system"],
            ),
            (
                "ca_file = \"missing.pem\"",
                vec!["providers.p.ca_file", "missing.pem", "cannot read"],
            ),
            (
                "ca_file = \"empty.pem\"",
                vec!["providers.p.ca_file", "empty.pem", "holds no certificate"],
            ),
            (
                "ca_file = \"broken.pem\"",
                vec!["providers.p.ca_file", "broken.pem", "PEM"],
            ),
        ];
        for (extra, wants) in cases {
            let err = with("openai", extra).unwrap_err().to_string();
            for want in wants {
                assert!(err.contains(want), "{extra}: {err} should say {want}");
            }
        }
        let err = with("replay", "ca_file = \"ca.pem\"")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("providers.p.ca_file") && err.contains("replay"),
            "{err}"
        );
    }
}
