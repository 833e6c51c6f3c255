//! Sending a prepared request and getting its answer back, whatever the wire format: the
//! HTTP clients (one per TLS trust: the compiled-in roots, the system's, plus a
//! `ca_file`; each built on its first request), each provider's `concurrency` slots and `requests_per_minute` pacing
//! (what a call waits for is kept in its [`Progress`]), the total timeout of one
//! exchange, bodies read up to `max_response_bytes`, retries with jittered backoff and
//! `Retry-After`, error bodies turned into short scrubbed messages, and reading a 2xx
//! body off the runtime thread, with its usage counted within [`Bounds`] and every text
//! scrubbed of the key before anything reads it. A connection error is led by what it
//! means in words (refused, DNS, not TLS, an untrusted certificate) and what to do.
//!
//! Calls a wire format only through [`WireFormat`] (`prepare`, `read`): it knows no
//! format by name, and no format imports it. Must not: decide what an answer means (the
//! chain's `accept` does), keep budgets, or put a key anywhere but its header.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde_json::Value;
use tokio::sync::Semaphore;

use super::key::{ApiKey, quote, scrub};
use super::usage::Bounds;
use super::wire::{CallRequest, Prepared, WireFormat};
use super::{CallError, Completion, Outcome, Progress, Waiting};
use crate::provider::config::{ModelRef, ProviderConfig, ProviderKind, TlsRoots, TlsSettings};

/// An error (non-2xx) body is read up to this many bytes (or `max_response_bytes`, if
/// lower): only an excerpt of it is ever shown.
const ERROR_BODY_BYTES: usize = 64 << 10;

/// The first wait between retries; it doubles each time, up to `retry_max_wait`.
const BACKOFF_BASE: Duration = Duration::from_millis(500);

/// The HTTP clients the providers share (one per distinct TLS trust, each built on its
/// first request), with each provider's free `concurrency` slots and its next
/// requests-per-minute turn.
pub(super) struct Transport {
    /// One per distinct [`TlsSettings`] among the providers, built when first needed: a
    /// tick that never calls a `tls_roots = "system"` provider never loads the system's
    /// certificate store.
    clients: Vec<(TlsSettings, OnceLock<Result<reqwest::Client, ClientError>>)>,
    /// Per provider, the earliest instant its next request may start.
    pacing: Mutex<HashMap<String, tokio::time::Instant>>,
    /// Per provider with a `concurrency` limit, its free slots.
    slots: HashMap<String, Arc<Semaphore>>,
}

/// One model's call as the transport carries it through its tries.
struct Call<'a> {
    config: &'a ProviderConfig,
    format: &'static dyn WireFormat,
    model: &'a ModelRef,
    key: Option<ApiKey>,
}

impl Transport {
    /// A client slot per distinct TLS trust (nothing is built yet) and a semaphore per
    /// provider with a `concurrency` limit.
    pub(super) fn new<'a>(configs: impl IntoIterator<Item = &'a ProviderConfig> + Clone) -> Self {
        let mut clients: Vec<(TlsSettings, OnceLock<_>)> = Vec::new();
        for c in configs.clone() {
            if c.kind != ProviderKind::Replay && !clients.iter().any(|(t, _)| *t == c.tls) {
                clients.push((c.tls.clone(), OnceLock::new()));
            }
        }
        let slots = configs
            .into_iter()
            .filter_map(|c| {
                let n = usize::try_from(c.concurrency?).ok()?;
                Some((
                    c.name.clone(),
                    Arc::new(Semaphore::new(n.clamp(1, Semaphore::MAX_PERMITS))),
                ))
            })
            .collect();
        Transport {
            clients,
            pacing: Mutex::new(HashMap::new()),
            slots,
        }
    }

    /// The client for this provider's TLS trust, built on first use.
    fn client(&self, config: &ProviderConfig) -> Result<&reqwest::Client, CallError> {
        let built = match self.clients.iter().find(|(t, _)| *t == config.tls) {
            Some((tls, cell)) => cell.get_or_init(|| build_client(tls)),
            // A provider the transport was not built with (never in a tick): its own.
            None => {
                return Err(CallError::Client {
                    message: format!(
                        "provider {} was not configured when the client was built",
                        config.name
                    ),
                });
            }
        };
        built.as_ref().map_err(|e| CallError::Client {
            message: format!("provider {}: {e}", config.name),
        })
    }

    /// Calls one model over HTTP in `format`, retrying on connection errors, 408, 429 and
    /// 5xx; the outcome says how large the body it sent (once per try) was.
    pub(super) async fn call(
        &self,
        config: &ProviderConfig,
        format: &'static dyn WireFormat,
        model: &ModelRef,
        req: &CallRequest,
        key: Option<ApiKey>,
        progress: &Progress,
    ) -> Outcome {
        let mut body_bytes = 0;
        let mut outcome = self
            .exchange(config, format, model, req, key, progress, &mut body_bytes)
            .await;
        outcome.body_bytes = body_bytes;
        outcome
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "the call's parts, passed through"
    )]
    async fn exchange(
        &self,
        config: &ProviderConfig,
        format: &'static dyn WireFormat,
        model: &ModelRef,
        req: &CallRequest,
        key: Option<ApiKey>,
        progress: &Progress,
        body_bytes: &mut u64,
    ) -> Outcome {
        let started = tokio::time::Instant::now();
        let fail = |error, tries| Outcome {
            result: Err(error),
            usage: None,
            latency: started.elapsed(),
            tries,
            body_bytes: 0,
        };
        let prepared = match format.prepare(config, &model.model, req, key.as_ref()) {
            Ok(p) => p,
            Err(message) => {
                return fail(
                    CallError::Client {
                        message: format!("{model}: {message}"),
                    },
                    0,
                );
            }
        };
        let client = match self.client(config) {
            Ok(c) => c,
            Err(error) => return fail(error, 0),
        };
        let call = Call {
            config,
            format,
            model,
            key,
        };
        let url = format!("{}{}", config.base_url, prepared.path);
        *body_bytes = prepared.body.len() as u64;
        let bounds = Bounds::new(req, prepared.body.len());
        let mut tries = 0u32;
        loop {
            tries += 1;
            // A free slot first, then pacing (so requests are spaced as they are sent),
            // then the request, whose timeout starts only now. The slot is free again for
            // the backoff before a retry.
            let slot = self.slot(config, progress).await;
            self.pace(config, progress).await;
            let sent = send_once(client, &call, &url, &prepared, tries).await;
            drop(slot);
            let (error, retry_after) = match sent {
                Sent::Answer(body) => {
                    return read_off_thread(&call, bounds, body, started.elapsed(), tries).await;
                }
                Sent::TooLong(error) => {
                    return Outcome {
                        result: Err(error),
                        usage: Some(bounds.usage(config, model, None, None)),
                        latency: started.elapsed(),
                        tries,
                        body_bytes: 0,
                    };
                }
                Sent::Failed {
                    error,
                    retryable: false,
                    ..
                } => return fail(error, tries),
                Sent::Failed {
                    error, retry_after, ..
                } => (error, retry_after),
            };
            if tries > config.retries {
                return fail(error, tries);
            }
            let wait = match retry_after {
                Some(d) if d > config.retry_max_wait => {
                    tracing::debug!(provider = %config.name, model = %model.model, retry_after_ms = d.as_millis() as u64,
                        "Retry-After is beyond retry_max_wait; giving up on this model");
                    return fail(error, tries);
                }
                Some(d) => d,
                None => backoff(tries, config.retry_max_wait),
            };
            tracing::debug!(provider = %config.name, model = %model.model, attempt = tries,
                wait_ms = wait.as_millis() as u64, error = %error, "retrying");
            tokio::time::sleep(wait).await;
        }
    }

    /// Waits for a free slot of this provider (none to wait for without a `concurrency`
    /// limit); the slot is held until the permit is dropped.
    async fn slot(
        &self,
        config: &ProviderConfig,
        progress: &Progress,
    ) -> Option<tokio::sync::SemaphorePermit<'_>> {
        let semaphore = self.slots.get(&config.name)?;
        if let Ok(permit) = semaphore.try_acquire() {
            return Some(permit);
        }
        progress.set(Some(Waiting::Slot {
            provider: config.name.clone(),
            concurrency: config.concurrency.unwrap_or(1),
            since: tokio::time::Instant::now(),
        }));
        tracing::debug!(provider = %config.name, "waiting for a free slot");
        // The semaphore is never closed, so this only fails if it were.
        let permit = semaphore.acquire().await.ok();
        progress.set(None);
        permit
    }

    /// Waits for this provider's next requests-per-minute slot.
    async fn pace(&self, config: &ProviderConfig, progress: &Progress) {
        let Some(rpm) = config.requests_per_minute.filter(|r| *r > 0) else {
            return;
        };
        let interval = Duration::from_mins(1) / rpm;
        let slot = {
            let mut next = self.pacing.lock().unwrap_or_else(PoisonError::into_inner);
            let now = tokio::time::Instant::now();
            let slot = next.get(&config.name).copied().unwrap_or(now).max(now);
            next.insert(config.name.clone(), slot + interval);
            slot
        };
        if slot > tokio::time::Instant::now() {
            progress.set(Some(Waiting::Pacing {
                provider: config.name.clone(),
                requests_per_minute: rpm,
                since: tokio::time::Instant::now(),
            }));
            tokio::time::sleep_until(slot).await;
            progress.set(None);
        }
    }
}

/// Sends one request and reads its response within the provider's timeout; what the
/// response means for retrying is [`Sent`].
async fn send_once(
    client: &reqwest::Client,
    call: &Call<'_>,
    url: &str,
    prepared: &Prepared,
    attempt: u32,
) -> Sent {
    let Call { config, model, .. } = *call;
    let key = call.key.as_ref();
    let t0 = tokio::time::Instant::now();
    let request = client
        .post(url)
        .headers(prepared.headers.clone())
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(prepared.body.clone());
    let cap = config.max_response_bytes;
    let exchange = async {
        let response = request.send().await?;
        let status = response.status();
        let headers = response.headers().clone();
        // An error body only needs an excerpt; an answer may not pass the cap at all.
        let body = if status.is_success() {
            read_capped(response, cap, false).await
        } else {
            read_capped(response, cap.min(ERROR_BODY_BYTES), true).await
        };
        Ok::<_, reqwest::Error>((status, headers, body))
    };
    let result = tokio::time::timeout(config.timeout, exchange).await;
    let latency_ms = t0.elapsed().as_millis() as u64;
    let (status, headers, body) = match result {
        Err(_) => {
            tracing::debug!(provider = %config.name, model = %model.model, attempt, latency_ms, "timed out");
            return Sent::Failed {
                error: CallError::Timeout {
                    model: model.to_string(),
                    after: config.timeout,
                },
                retryable: false,
                retry_after: None,
            };
        }
        Ok(Err(e)) => {
            let chain = error_chain(&e.without_url());
            let message = quote(
                &match connect_hint(&chain) {
                    Some(hint) => format!("{hint} ({chain})"),
                    None => chain,
                },
                key,
            );
            tracing::debug!(provider = %config.name, model = %model.model, attempt, latency_ms, error = %message, "request failed");
            return Sent::Failed {
                error: CallError::Connect {
                    model: model.to_string(),
                    url: url.to_string(),
                    message,
                },
                retryable: true,
                retry_after: None,
            };
        }
        Ok(Ok(parts)) => parts,
    };
    tracing::debug!(provider = %config.name, model = %model.model, attempt, status = status.as_u16(), latency_ms, "response");
    Sent::classify(call, status, &headers, body)
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport").finish_non_exhaustive()
    }
}

/// A client trusting `tls`'s roots: the compiled-in bundle (built from static data, no
/// file read) or the platform's verifier, plus `ca_file`'s certificates; HTTP/2 or 1.1
/// by ALPN, as reqwest offers by default. It follows no redirect: a 3xx is the answer
/// (an error that names where it pointed), so the key and the request body never go
/// to an address the config does not name. Every HTTP client of thinker is built here
/// (the providers', the embeddings endpoint's), so each inherits that.
pub(crate) fn build_client(tls: &TlsSettings) -> Result<reqwest::Client, ClientError> {
    let provider = rustls::crypto::ring::default_provider();
    // Installed for the platform verifier (and anything else building a rustls config).
    let _ = provider.clone().install_default();
    // Read when the config was: the file is not opened again.
    let extra = tls
        .ca_file
        .as_ref()
        .map_or_else(Vec::new, |ca| ca.certificates().to_vec());
    let builder = reqwest::Client::builder()
        .user_agent(concat!("thinker/", env!("CARGO_PKG_VERSION")))
        .redirect(reqwest::redirect::Policy::none());
    let builder = match tls.roots {
        TlsRoots::Bundled => {
            let mut roots = rustls::RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            };
            let (_, unusable) = roots.add_parsable_certificates(extra);
            if unusable > 0 {
                return Err(ClientError::UnusableRoots { unusable });
            }
            let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(provider))
                .with_safe_default_protocol_versions()
                .map_err(|source| ClientError::Tls { source })?
                .with_root_certificates(roots)
                .with_no_client_auth();
            config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
            builder.tls_backend_preconfigured(config)
        }
        TlsRoots::System => {
            let extra = extra
                .iter()
                .map(|c| reqwest::Certificate::from_der(c))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|source| ClientError::UnusableCertificate { source })?;
            builder.tls_certs_merge(extra)
        }
    };
    builder
        .build()
        .map_err(|source| ClientError::Build { source })
}

/// Why the HTTP client of a TLS trust cannot be built (on its first call).
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Certificates of `ca_file` that the bundled roots' store refused.
    #[error("{unusable} certificate(s) of ca_file cannot be used as a root; give CA certificates")]
    UnusableRoots { unusable: usize },
    /// A certificate of `ca_file` that the system's verifier refused.
    #[error("a certificate of ca_file cannot be used: {source}")]
    UnusableCertificate { source: reqwest::Error },
    #[error("setting up TLS failed: {source}")]
    Tls { source: rustls::Error },
    #[error("setting up the HTTP client failed: {}", error_chain(.source))]
    Build { source: reqwest::Error },
}

/// A response body read up to a cap.
enum Capped {
    Whole(Vec<u8>),
    /// The body passed the cap: the first `cap` bytes when asked to keep them, else
    /// nothing (a `Content-Length` over the cap is refused before any byte is read).
    Over(Vec<u8>),
}

/// Reads a body chunk by chunk, never holding more than `cap` bytes: the read stops (and
/// the connection is dropped) at the first byte past it.
async fn read_capped(
    mut response: reqwest::Response,
    cap: usize,
    keep_prefix: bool,
) -> Result<Capped, reqwest::Error> {
    let mut body = Vec::new();
    match response.content_length() {
        Some(len) if len > cap as u64 && !keep_prefix => return Ok(Capped::Over(body)),
        Some(len) => body.reserve(len.min(cap as u64) as usize),
        None => {}
    }
    while let Some(chunk) = response.chunk().await? {
        let room = cap - body.len();
        if chunk.len() > room {
            if keep_prefix {
                body.extend_from_slice(&chunk[..room]);
            }
            return Ok(Capped::Over(body));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Capped::Whole(body))
}

/// One request's outcome, before retry decisions.
enum Sent {
    Answer(Vec<u8>),
    /// A 2xx whose body passed `max_response_bytes`: answered (so probably billed), but
    /// unreadable; not retried.
    TooLong(CallError),
    Failed {
        error: CallError,
        retryable: bool,
        retry_after: Option<Duration>,
    },
}

impl Sent {
    /// What a response that arrived means: an answer, an answer too long to read, or a
    /// failure (retryable on 408, 429 and 5xx, and when the body broke off).
    fn classify(
        call: &Call<'_>,
        status: StatusCode,
        headers: &HeaderMap,
        body: Result<Capped, reqwest::Error>,
    ) -> Sent {
        let Call { config, model, .. } = *call;
        let key = call.key.as_ref();
        let cap = config.max_response_bytes;
        let model_name = model.to_string();
        let body = match body {
            Ok(Capped::Whole(b)) => b,
            Ok(Capped::Over(b)) if !status.is_success() => b,
            Ok(Capped::Over(_)) => {
                tracing::warn!(provider = %config.name, model = %model.model, max_response_bytes = cap,
                    "the response passed max_response_bytes; reading stopped");
                return Sent::TooLong(CallError::BadResponse {
                    model: model_name,
                    message: format!(
                        "the response passed max_response_bytes ({cap}); raise it if the model's answers are legitimately that long"
                    ),
                });
            }
            Err(e) => {
                return Sent::Failed {
                    error: CallError::BadResponse {
                        model: model_name,
                        message: format!(
                            "HTTP {}, but the body could not be read: {}",
                            status.as_u16(),
                            quote(&error_chain(&e.without_url()), key)
                        ),
                    },
                    retryable: true,
                    retry_after: None,
                };
            }
        };
        if status.is_success() {
            return Sent::Answer(body);
        }
        if status.is_redirection() {
            let location = headers.get(reqwest::header::LOCATION).map_or_else(
                || "an address it did not give".into(),
                |l| String::from_utf8_lossy(l.as_bytes()).into_owned(),
            );
            return Sent::Failed {
                error: CallError::Redirect {
                    model: model_name,
                    status: status.as_u16(),
                    location: quote(&location, key),
                },
                retryable: false,
                retry_after: None,
            };
        }
        let message = quote(&error_message(&body), key);
        let retry_after = retry_after(headers, SystemTime::now());
        if status == StatusCode::TOO_MANY_REQUESTS {
            return Sent::Failed {
                error: CallError::RateLimited {
                    model: model_name,
                    retry_after,
                    message,
                },
                retryable: true,
                retry_after,
            };
        }
        Sent::Failed {
            error: CallError::Http {
                model: model_name,
                status: status.as_u16(),
                message,
            },
            retryable: status == StatusCode::REQUEST_TIMEOUT || status.is_server_error(),
            retry_after,
        }
    }
}

/// An error and its causes, `: `-joined (reqwest's own text names only the URL).
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}

/// What a connection error means, in words a user can act on, from reqwest's chain of
/// causes (hyper's, rustls's and the resolver's own texts); `None` for anything else.
fn connect_hint(chain: &str) -> Option<&'static str> {
    let c = chain.to_ascii_lowercase();
    let hints: [(&[&str], &str); 7] = [
        (
            &["connection refused"],
            "connection refused: nothing listens at that address; is the server running, and is the port right?",
        ),
        (
            &[
                "dns error",
                "failed to lookup address",
                "name or service not known",
            ],
            "the host name does not resolve (DNS); check the spelling of base_url and the network",
        ),
        (
            &[
                "invalidcontenttype",
                "corrupt message",
                "wrong version number",
            ],
            "the server does not speak TLS at that address; if it is plain HTTP, use http:// in base_url",
        ),
        (
            &[
                "unknownissuer",
                "unknown issuer",
                "self-signed",
                "self signed",
            ],
            "the server's certificate is not signed by a trusted authority; give its CA in ca_file, or set tls_roots = \"system\" for a CA installed on this machine",
        ),
        (
            &["notvalidforname", "not valid for name"],
            "the server's certificate is not for this host name; check base_url",
        ),
        (
            &["expired", "notvalidyet"],
            "the server's certificate is expired or not yet valid",
        ),
        (
            &[
                "connection reset",
                "connection closed",
                "unexpected eof",
                "broken pipe",
            ],
            "the server closed the connection before answering",
        ),
    ];
    hints
        .into_iter()
        .find(|(needles, _)| needles.iter().any(|n| c.contains(n)))
        .map(|(_, hint)| hint)
}

/// The message of an error body: `error.message`, `error`, `message` or `detail`, else
/// the body itself.
fn error_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    if let Ok(v) = serde_json::from_str::<Value>(&text) {
        let found = v
            .pointer("/error/message")
            .or_else(|| v.get("error"))
            .or_else(|| v.get("message"))
            .or_else(|| v.get("detail"));
        if let Some(Value::String(s)) = found {
            return s.clone();
        }
    }
    let t = text.trim();
    if t.is_empty() {
        "(empty body)".into()
    } else if t.starts_with('<') {
        format!("(an HTML page) {t}")
    } else {
        t.to_string()
    }
}

/// How long `Retry-After` (or `retry-after-ms`) asks to wait, if it says.
pub fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let get = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = get("retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0)
            .then(|| Duration::from_secs_f64(secs.min(86_400.0)));
    }
    let date = chrono::DateTime::parse_from_rfc2822(value).ok()?;
    let at = UNIX_EPOCH + Duration::from_secs(u64::try_from(date.timestamp()).ok()?);
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// A number in `[0, 1)` from the clock: enough jitter to spread retries apart.
fn jitter() -> f64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::from(d.subsec_nanos()));
    let mixed = nanos.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
    mixed as f64 / (1u64 << 24) as f64
}

/// The wait before retry number `retry` (1-based): exponential, capped, jittered to
/// between half and all of it.
pub fn backoff(retry: u32, max: Duration) -> Duration {
    let exp = BACKOFF_BASE.saturating_mul(1u32 << retry.saturating_sub(1).min(16));
    exp.min(max).mul_f64(0.5 + 0.5 * jitter())
}

/// Bodies and answers up to this size are read on the runtime thread; larger ones on the
/// blocking pool. Reading 64 KiB (linear, bounded) takes well under a millisecond.
pub(super) const INLINE_BYTES: usize = 64 * 1024;

/// Reads a 2xx body on the blocking pool (when it is over [`INLINE_BYTES`]): decoding up to `max_response_bytes` of JSON
/// and scrubbing it is CPU work that must not hold the other threads' timers on the
/// tick's single runtime thread (SPEC §4.4).
async fn read_off_thread(
    call: &Call<'_>,
    bounds: Bounds,
    body: Vec<u8>,
    latency: Duration,
    tries: u32,
) -> Outcome {
    if body.len() <= INLINE_BYTES {
        // Small enough that reading it takes microseconds: a hand-off to the blocking
        // pool (a thread, futex wake-ups) would cost more than it saves.
        return read_answer(call, bounds, &body, latency, tries);
    }
    let (config, model, key) = (call.config.clone(), call.model.clone(), call.key.clone());
    let format = call.format;
    let read = tokio::task::spawn_blocking(move || {
        read_answer(
            &Call {
                config: &config,
                format,
                model: &model,
                key,
            },
            bounds,
            &body,
            latency,
            tries,
        )
    })
    .await;
    read.unwrap_or_else(|e| Outcome {
        result: Err(CallError::BadResponse {
            model: call.model.to_string(),
            message: quote(
                &format!("reading the response failed: {e}"),
                call.key.as_ref(),
            ),
        }),
        usage: None,
        latency,
        tries,
        body_bytes: 0,
    })
}

/// What a 2xx body says, through the wire format's reader: the answer scrubbed of the
/// key, or why there is none, with the usage to count either way.
fn read_answer(
    call: &Call<'_>,
    bounds: Bounds,
    body: &[u8],
    latency: Duration,
    tries: u32,
) -> Outcome {
    let Call { config, model, .. } = *call;
    let key = call.key.as_ref();
    let read = call.format.read(body);
    let reply = match read {
        Ok(r) => r,
        Err(error) => {
            return Outcome {
                result: Err(CallError::BadResponse {
                    model: model.to_string(),
                    message: quote(&error.to_string(), key),
                }),
                // A 2xx was answered, so probably billed: count the estimate.
                usage: Some(bounds.usage(config, model, None, None)),
                latency,
                tries,
                body_bytes: 0,
            };
        }
    };
    let usage = bounds.usage(config, model, reply.tokens_in, reply.tokens_out);
    // Scrubbed before anything reads it: a key echoed in an answer never reaches a
    // finding, an error, the state or the journal.
    let text = reply.text.map(|t| scrub(&t, key));
    let result = match text {
        _ if reply.truncated => Err(CallError::Truncated {
            model: model.to_string(),
            max_tokens: bounds.max_tokens as u32,
        }),
        Some(text) if !text.trim().is_empty() => Ok(Completion {
            text,
            model: model.clone(),
            served_model: reply
                .model
                .map(|m| scrub(&m, key))
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| model.model.clone()),
            tokens_in: usage.tokens_in,
            tokens_out: usage.tokens_out,
            cost: usage.cost,
            latency,
            attempts: tries,
        }),
        _ => Err(CallError::BadResponse {
            model: model.to_string(),
            message: "the response holds no answer text".into(),
        }),
    };
    Outcome {
        result,
        usage: Some(usage),
        latency,
        tries,
        body_bytes: 0,
    }
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    #[test]
    fn retry_after_reads_seconds_dates_and_ms() {
        let now = UNIX_EPOCH + Duration::from_secs(1_445_412_470); // Wed, 21 Oct 2015 07:27:50 GMT
        let mut h = HeaderMap::new();
        assert_eq!(retry_after(&h, now), None);
        h.insert("retry-after", HeaderValue::from_static("3"));
        assert_eq!(retry_after(&h, now), Some(Duration::from_secs(3)));
        h.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&h, now), Some(Duration::from_secs(10)));
        h.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:00:00 GMT"),
        );
        assert_eq!(retry_after(&h, now), Some(Duration::ZERO));
        h.insert("retry-after", HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&h, now), None);
        h.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&h, now), Some(Duration::from_millis(250)));
    }

    #[test]
    fn backoff_grows_and_is_capped() {
        let max = Duration::from_secs(30);
        for retry in 1..6 {
            let full = BACKOFF_BASE * (1 << (retry - 1));
            let d = backoff(retry, max);
            assert!(d >= full / 2 && d <= full, "{retry}: {d:?}");
        }
        assert!(backoff(40, Duration::from_millis(10)) <= Duration::from_millis(10));
    }

    #[test]
    fn connection_errors_are_said_in_words() {
        // (reqwest's chain, as seen from this machine's faults, what the hint must say)
        let cases = [
            (
                "error sending request: client error (Connect): tcp connect error: Connection refused (os error 111)",
                Some("nothing listens"),
            ),
            (
                "client error (Connect): dns error: failed to lookup address information: Name or service not known",
                Some("does not resolve"),
            ),
            (
                "client error (Connect): received corrupt message of type InvalidContentType",
                Some("does not speak TLS"),
            ),
            (
                "client error (Connect): invalid peer certificate: UnknownIssuer",
                Some("ca_file"),
            ),
            (
                "client error (Connect): invalid peer certificate: NotValidForName",
                Some("not for this host"),
            ),
            (
                "client error (Connect): invalid peer certificate: Expired",
                Some("expired"),
            ),
            (
                "error sending request: connection closed before message completed",
                Some("closed the connection"),
            ),
            ("error sending request: something new", None),
        ];
        for (chain, want) in cases {
            let hint = connect_hint(chain);
            match want {
                Some(w) => assert!(hint.is_some_and(|h| h.contains(w)), "{chain}: {hint:?}"),
                None => assert_eq!(hint, None, "{chain}"),
            }
        }
    }

    #[test]
    fn error_bodies_are_read_for_their_message() {
        assert_eq!(
            error_message(br#"{"error":{"message":"Invalid API Key","type":"auth"}}"#),
            "Invalid API Key"
        );
        assert_eq!(
            error_message(br#"{"error":"model not found"}"#),
            "model not found"
        );
    }

    #[test]
    fn one_client_per_tls_trust_built_only_when_first_used() {
        let config = |name: &str, url: &str, extra: &str| {
            let text =
                format!("[providers.{name}]\nkind = \"openai\"\nbase_url = \"{url}\"\n{extra}\n");
            crate::config::Config::parse(&text, None).unwrap().providers[name].clone()
        };
        let local = config("local", "http://127.0.0.1:8080/v1", "");
        let groq = config("groq", "https://api.groq.com/openai/v1", "");
        let corp = config(
            "corp",
            "https://llm.corp.example/v1",
            "tls_roots = \"system\"",
        );
        let replay = ProviderConfig {
            kind: ProviderKind::Replay,
            base_url: String::new(),
            tls: TlsSettings {
                roots: TlsRoots::System,
                ca_file: None,
            },
            name: "replay".into(),
            ..local.clone()
        };
        let transport = Transport::new([&local, &groq, &corp, &replay]);
        let trusts: Vec<_> = transport.clients.iter().map(|(t, _)| t.roots).collect();
        assert_eq!(trusts, [TlsRoots::Bundled, TlsRoots::System]);
        assert!(transport.clients.iter().all(|(_, c)| c.get().is_none()));
        transport.client(&groq).unwrap();
        assert!(transport.clients[0].1.get().is_some());
        assert!(
            transport.clients[1].1.get().is_none(),
            "system roots not loaded"
        );
        transport.client(&corp).unwrap();
        assert!(transport.clients[1].1.get().is_some());
    }

    /// A `ca_file` is read once, when the config is: the clients are built from the
    /// certificates kept then, with the file gone from the disk.
    #[test]
    fn a_ca_file_is_not_read_again_when_the_client_is_built() {
        let dir = tempfile::tempdir().unwrap();
        let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
        let ca = dir.path().join("local-ca.pem");
        std::fs::write(&ca, cert.cert.pem()).unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(
            &file,
            "[providers.b]\nkind = \"openai\"\nbase_url = \"https://localhost:8443/v1\"\nca_file = \"local-ca.pem\"\n\
             [providers.s]\nkind = \"openai\"\nbase_url = \"https://localhost:8443/v1\"\nca_file = \"local-ca.pem\"\ntls_roots = \"system\"\n",
        )
        .unwrap();
        let config = crate::config::Config::load(&file).unwrap();
        std::fs::remove_file(&ca).unwrap();
        let (bundled, system) = (&config.providers["b"], &config.providers["s"]);
        let ca_file = bundled.tls.ca_file.as_ref().unwrap();
        assert_eq!(ca_file.path(), ca);
        assert_eq!(ca_file.certificates().len(), 1);
        // The breaker's fingerprint (the config's `Debug`) names the file, as it did when
        // only the path was kept.
        assert_eq!(
            format!("{:?}", bundled.tls.ca_file),
            format!("{:?}", Some(&ca))
        );
        let transport = Transport::new([bundled, system]);
        transport.client(bundled).unwrap();
        transport.client(system).unwrap();
    }

    /// Guards the seam: the transport speaks any [`WireFormat`] it is handed (its path,
    /// headers, body and reader), and scrubs what the reader returns.
    #[tokio::test]
    async fn any_wire_format_is_sent_and_read_through_the_trait() {
        use wiremock::matchers::{body_string, header, method, path};
        use wiremock::{Mock, MockServer, ResponseTemplate};

        use crate::provider::wire::{Reply, WireError, key_headers};

        struct Echo;
        impl WireFormat for Echo {
            fn prepare(
                &self,
                config: &ProviderConfig,
                model: &str,
                _: &CallRequest,
                key: Option<&ApiKey>,
            ) -> Result<Prepared, WireError> {
                Ok(Prepared {
                    path: "/echo",
                    headers: key_headers(config, key, "authorization", "Key ")?,
                    body: model.as_bytes().to_vec(),
                })
            }
            fn read(&self, body: &[u8]) -> Result<Reply, WireError> {
                Ok(Reply {
                    text: Some(String::from_utf8_lossy(body).into_owned()),
                    tokens_in: Some(1),
                    tokens_out: Some(2),
                    ..Reply::default()
                })
            }
        }

        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/echo"))
            .and(header("authorization", "Key k-0123456789"))
            .and(body_string("m"))
            .respond_with(ResponseTemplate::new(200).set_body_string("echo k-0123456789 said hi"))
            .expect(1)
            .mount(&server)
            .await;
        let text = format!(
            "[providers.p]\nkind = \"openai\"\nbase_url = \"{}\"\napi_key_env = \"K\"\n",
            server.uri()
        );
        let config = crate::config::Config::parse(&text, None).unwrap().providers["p"].clone();
        let model = ModelRef {
            provider: "p".into(),
            model: "m".into(),
        };
        let request = CallRequest {
            system: String::new(),
            prompt: "hi".into(),
            schema: Value::Null,
            schema_name: "answer".into(),
            max_tokens: 10,
            temperature: 0.0,
            sequence: 1,
        };
        let transport = Transport::new([&config]);
        let outcome = transport
            .call(
                &config,
                &Echo,
                &model,
                &request,
                Some(ApiKey::new("k-0123456789")),
                &Progress::default(),
            )
            .await;
        let completion = outcome.result.unwrap();
        assert_eq!(completion.text, "echo [redacted] said hi");
        assert_eq!((completion.tokens_in, completion.tokens_out), (1, 2));
        assert_eq!(outcome.tries, 1);
    }
}
