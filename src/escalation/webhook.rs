//! The built-in webhook notifier (`[escalation.webhook]`): the message posted as JSON to
//! a URL, in the shape its server reads — ntfy's JSON publishing, Gotify's message API,
//! a Slack-compatible incoming webhook (Slack, Mattermost, Rocket.Chat, Discord's
//! `/slack` endpoint), or plain `{"title", "message"}` — over the HTTP client and TLS
//! trust (`tls_roots`, `ca_file`) the providers use (`provider::build_client`).
//!
//! | `format` | posted to | body |
//! |---|---|---|
//! | `ntfy` | the server of the topic URL (`https://ntfy.sh/alerts` → `https://ntfy.sh/`) | `{"topic": "alerts", "title", "message"}` |
//! | `gotify` | `…/message` (added unless the URL ends with it) | `{"title", "message", "priority": 8}` |
//! | `slack` | the URL | `{"text": message}` (no title: the message says who it is from) |
//! | `json` | the URL | `{"title", "message"}` |
//!
//! A token (`token_env`, read when the message is sent) goes in a header only:
//! `X-Gotify-Key` for Gotify, `Authorization: Bearer` for the others. The URL may come
//! from the environment too (`url_env`): a Slack or Discord webhook URL is itself the
//! secret. **Errors name the URL's scheme and host only**, never its path or query (an
//! ntfy topic, a Slack hook's path, a `?token=` are secrets), and a server's answer is
//! quoted with the token taken out.
//!
//! **Whether it delivered** ([`WebhookError::may_have_delivered`]): a refused or failed
//! connection, or an answer other than 2xx, did not deliver (the server said so), so the
//! tick may try again; a timeout or a connection lost once the request was sent may have
//! delivered, so it is never sent again by a tick (no message is ever delivered twice).
//!
//! Must not: read the clock, touch the state directory, follow the message's content
//! (it is a value in the JSON, never a header or part of the URL), or show a secret.

use std::time::Duration;

use reqwest::Url;
use serde_json::{Value, json};

use crate::provider::config::TlsSettings;
use crate::untrusted;

/// How much of an error answer's body is read (only an excerpt is shown).
const ERROR_BODY_BYTES: usize = 4096;
/// How many characters of an error answer are quoted.
const EXCERPT_CHARS: usize = 200;
/// Gotify's priority for thinker's messages (8 and above: a sound on Android).
pub const GOTIFY_PRIORITY: u8 = 8;
/// The title when `[escalation.webhook] title` does not set one.
pub const DEFAULT_TITLE: &str = "thinker";

/// The JSON shape a webhook server reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WebhookFormat {
    /// ntfy's JSON publishing: `{"topic", "title", "message"}` to the server's root.
    Ntfy,
    /// Gotify's `POST /message`: `{"title", "message", "priority"}`, `X-Gotify-Key`.
    Gotify,
    /// A Slack-compatible incoming webhook: `{"text"}`.
    Slack,
    /// `{"title", "message"}` as it is (any receiver of your own).
    #[default]
    Json,
}

impl WebhookFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            WebhookFormat::Ntfy => "ntfy",
            WebhookFormat::Gotify => "gotify",
            WebhookFormat::Slack => "slack",
            WebhookFormat::Json => "json",
        }
    }
}

/// Where the webhook's URL comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UrlSource {
    /// Written in the config (`url`).
    Given(String),
    /// Read from this environment variable when a message is sent (`url_env`).
    Env(String),
}

/// `[escalation.webhook]`, as the config validated it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookSettings {
    pub url: UrlSource,
    pub format: WebhookFormat,
    /// The variable holding a token for the server, read when a message is sent.
    pub token_env: Option<String>,
    pub title: String,
    pub tls: TlsSettings,
}

/// Why a webhook did not take the message.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    #[error(
        "the webhook's URL variable {var} is not set (or empty) in the tick's environment; set it (e.g. in the env file `thinker cron` reads) or give [escalation.webhook] url"
    )]
    NoUrl { var: String },
    #[error(
        "the webhook URL (from {origin}) is not an http:// or https:// URL; fix [escalation.webhook] {origin}"
    )]
    BadUrl { origin: &'static str },
    #[error(
        "the webhook's token variable {var} is not set (or empty); set it, or remove [escalation.webhook] token_env"
    )]
    NoToken { var: String },
    #[error(
        "webhook {site}: the HTTP client cannot be built: {why}; check [escalation.webhook] ca_file and tls_roots"
    )]
    Client { site: String, why: String },
    #[error(
        "webhook {site}: cannot connect: {why}; is the server up and the URL right? (tried again on the next ticks)"
    )]
    Connect { site: String, why: String },
    #[error("webhook {site} answered HTTP {status}{}; check the URL, the token and the format ({format})", if body.is_empty() { String::new() } else { format!(": {body}") })]
    Status {
        site: String,
        status: u16,
        body: String,
        format: &'static str,
    },
    #[error(
        "webhook {site}: no answer within {seconds} s (it may have reached you, so it is not sent again); raise [escalation] notify_timeout_seconds if the server is slow"
    )]
    TimedOut { site: String, seconds: f64 },
    #[error(
        "webhook {site}: the exchange failed after the request was sent: {why} (it may have reached you, so it is not sent again)"
    )]
    Lost { site: String, why: String },
}

impl WebhookError {
    /// Whether the message may have reached the server: then it is never sent again by
    /// a tick. Every other error is a message that did not go out.
    pub fn may_have_delivered(&self) -> bool {
        matches!(
            self,
            WebhookError::TimedOut { .. } | WebhookError::Lost { .. }
        )
    }
}

/// The server answered 2xx.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Posted {
    /// `https://ntfy.sh` (scheme and host only).
    pub site: String,
    pub status: u16,
}

/// The URL's scheme and host (and port), for messages: never its path or query.
pub fn site_of(url: &Url) -> String {
    let host = url.host_str().unwrap_or("?");
    match url.port() {
        Some(port) => format!("{}://{host}:{port}", url.scheme()),
        None => format!("{}://{host}", url.scheme()),
    }
}

/// Where the message is posted and the JSON body, for `format`, the configured `url`,
/// a `title` and the `message` (its trailing newline cut).
pub fn request(format: WebhookFormat, url: &Url, title: &str, message: &str) -> (Url, Value) {
    let message = message.trim_end_matches('\n');
    match format {
        WebhookFormat::Ntfy => {
            // `https://ntfy.sh/alerts` → topic `alerts`, posted to `https://ntfy.sh/`.
            let mut base = url.clone();
            let topic = url
                .path_segments()
                .and_then(|mut s| s.rfind(|p| !p.is_empty()))
                .unwrap_or_default()
                .to_string();
            if let Ok(mut segments) = base.path_segments_mut() {
                segments.pop_if_empty().pop().push("");
            }
            base.set_query(None);
            (
                base,
                json!({"topic": topic, "title": title, "message": message}),
            )
        }
        WebhookFormat::Gotify => {
            let mut endpoint = url.clone();
            let ends_with_message = url
                .path_segments()
                .and_then(|mut s| s.rfind(|p| !p.is_empty()))
                == Some("message");
            if !ends_with_message && let Ok(mut segments) = endpoint.path_segments_mut() {
                segments.pop_if_empty().push("message");
            }
            (
                endpoint,
                json!({"title": title, "message": message, "priority": GOTIFY_PRIORITY}),
            )
        }
        // The message starts with its own `thinker (…)` frame: no title.
        WebhookFormat::Slack => (url.clone(), json!({"text": message})),
        WebhookFormat::Json => (url.clone(), json!({"title": title, "message": message})),
    }
}

/// The URL as configured or read from its variable (`env` reads one).
pub fn resolve_url(
    source: &UrlSource,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Url, WebhookError> {
    let (text, origin) = match source {
        UrlSource::Given(url) => (url.clone(), "url"),
        UrlSource::Env(var) => (
            env(var)
                .filter(|v| !v.trim().is_empty())
                .ok_or_else(|| WebhookError::NoUrl { var: var.clone() })?,
            "url_env",
        ),
    };
    Url::parse(text.trim())
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
        .ok_or(WebhookError::BadUrl { origin })
}

/// Posts `message` as `settings` say, waiting at most `timeout` for the whole exchange.
pub async fn post(
    settings: &WebhookSettings,
    message: &str,
    timeout: Duration,
) -> Result<Posted, WebhookError> {
    let env = |var: &str| std::env::var(var).ok();
    let url = resolve_url(&settings.url, &env)?;
    let site = site_of(&url);
    let token = match &settings.token_env {
        None => None,
        Some(var) => Some(
            env(var)
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty())
                .ok_or_else(|| WebhookError::NoToken { var: var.clone() })?,
        ),
    };
    let client =
        crate::provider::build_client(&settings.tls).map_err(|e| WebhookError::Client {
            site: site.clone(),
            why: e.to_string(),
        })?;
    let (endpoint, body) = request(settings.format, &url, &settings.title, message);
    let mut builder = client.post(endpoint).timeout(timeout).json(&body);
    if let Some(token) = &token {
        builder = match settings.format {
            WebhookFormat::Gotify => builder.header("X-Gotify-Key", token),
            _ => builder.bearer_auth(token),
        };
    }
    let hide = |text: &str| -> String {
        let mut text = text.to_string();
        for secret in token.iter().chain(std::iter::once(&url.to_string())) {
            if !secret.is_empty() {
                text = text.replace(secret.as_str(), "[secret]");
            }
        }
        untrusted::excerpt(&text, EXCERPT_CHARS)
    };
    let exchange = async {
        let response = builder.send().await?;
        let status = response.status();
        let mut kept = Vec::new();
        let mut response = response;
        while let Some(chunk) = response.chunk().await? {
            let room = ERROR_BODY_BYTES.saturating_sub(kept.len());
            kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
        }
        Ok::<_, reqwest::Error>((status, kept))
    };
    match exchange.await {
        Ok((status, _)) if status.is_success() => Ok(Posted {
            site,
            status: status.as_u16(),
        }),
        Ok((status, body)) => Err(WebhookError::Status {
            site,
            status: status.as_u16(),
            body: hide(&String::from_utf8_lossy(&body)),
            format: settings.format.as_str(),
        }),
        Err(e) if e.is_timeout() => Err(WebhookError::TimedOut {
            site,
            seconds: timeout.as_secs_f64(),
        }),
        Err(e) => {
            let unsent = e.is_connect() || e.is_builder();
            let why = hide(&crate::provider::error_chain(&e.without_url()));
            if unsent {
                Err(WebhookError::Connect { site, why })
            } else {
                Err(WebhookError::Lost { site, why })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    /// Table: a format and its configured URL → where it posts and what.
    #[test]
    fn each_format_posts_its_shape_where_its_server_reads_it() {
        let cases = [
            (
                WebhookFormat::Ntfy,
                "https://ntfy.sh/nas-alerts",
                "https://ntfy.sh/",
                json!({"topic": "nas-alerts", "title": "thinker", "message": "NAS full"}),
            ),
            (
                WebhookFormat::Ntfy,
                "https://push.example.org/ntfy/alerts/?x=1",
                "https://push.example.org/ntfy/",
                json!({"topic": "alerts", "title": "thinker", "message": "NAS full"}),
            ),
            (
                WebhookFormat::Gotify,
                "https://gotify.example.org",
                "https://gotify.example.org/message",
                json!({"title": "thinker", "message": "NAS full", "priority": 8}),
            ),
            (
                WebhookFormat::Gotify,
                "https://gotify.example.org/message",
                "https://gotify.example.org/message",
                json!({"title": "thinker", "message": "NAS full", "priority": 8}),
            ),
            (
                WebhookFormat::Slack,
                "https://hooks.slack.com/services/T0/B0/XYZ",
                "https://hooks.slack.com/services/T0/B0/XYZ",
                json!({"text": "NAS full"}),
            ),
            (
                WebhookFormat::Json,
                "http://127.0.0.1:8080/hook",
                "http://127.0.0.1:8080/hook",
                json!({"title": "thinker", "message": "NAS full"}),
            ),
        ];
        for (format, given, endpoint, body) in cases {
            let (to, sent) = request(format, &url(given), "thinker", "NAS full\n");
            assert_eq!(
                (to.as_str(), &sent),
                (endpoint, &body),
                "{format:?} {given}"
            );
        }
    }

    #[test]
    fn a_site_is_its_scheme_and_host_never_its_path() {
        assert_eq!(
            site_of(&url(
                "https://hooks.slack.com/services/T0/B0/SECRET?token=x"
            )),
            "https://hooks.slack.com"
        );
        assert_eq!(
            site_of(&url("http://127.0.0.1:8080/a")),
            "http://127.0.0.1:8080"
        );
    }

    #[test]
    fn the_url_comes_from_the_config_or_its_variable() {
        let env = |var: &str| (var == "HOOK").then(|| "https://example.org/h".to_string());
        assert_eq!(
            resolve_url(&UrlSource::Env("HOOK".into()), &env)
                .unwrap()
                .as_str(),
            "https://example.org/h"
        );
        let missing = resolve_url(&UrlSource::Env("NONE".into()), &env).unwrap_err();
        assert!(missing.to_string().contains("NONE"), "{missing}");
        for bad in ["ftp://example.org/", "not a url", "file:///etc/passwd"] {
            assert!(
                matches!(
                    resolve_url(&UrlSource::Given(bad.into()), &env),
                    Err(WebhookError::BadUrl { origin: "url" })
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn only_a_lost_exchange_may_have_delivered() {
        let site = || "https://x".to_string();
        assert!(
            WebhookError::TimedOut {
                site: site(),
                seconds: 1.0
            }
            .may_have_delivered()
        );
        assert!(
            WebhookError::Lost {
                site: site(),
                why: String::new()
            }
            .may_have_delivered()
        );
        assert!(
            !WebhookError::Status {
                site: site(),
                status: 500,
                body: String::new(),
                format: "json"
            }
            .may_have_delivered()
        );
        assert!(
            !WebhookError::Connect {
                site: site(),
                why: String::new()
            }
            .may_have_delivered()
        );
    }
}
