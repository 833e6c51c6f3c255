//! What every HTTP wire format shares: the API key that never shows (scrubbed, whole or
//! in part, from all provider text), sending with a total timeout, bodies read up to
//! `max_response_bytes`, requests-per-minute spacing, retries with backoff and
//! `Retry-After`, reading bodies that are not what they should be (off the runtime
//! thread), usage read tolerantly and bounded, and bounded, scrubbed error text.

use std::collections::HashSet;
use std::fmt;
use std::sync::PoisonError;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{CallError, CallRequest, Completion, Outcome, Progress, Providers, Usage, Waiting};
use crate::config::{ModelRef, ProviderConfig, ProviderKind};

/// Server text put in an error is cut to this many characters.
pub const EXCERPT_CHARS: usize = 200;

/// An error (non-2xx) body is read up to this many bytes (or `max_response_bytes`, if
/// lower): only an excerpt of it is ever shown.
const ERROR_BODY_BYTES: usize = 64 << 10;

/// The first wait between retries; it doubles each time, up to `retry_max_wait`.
const BACKOFF_BASE: Duration = Duration::from_millis(500);

/// An API key. Its `Debug` is redacted and it has no `Display`: the only way to the
/// text is [`ApiKey::expose`], used to build one header value (marked sensitive).
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: &str) -> Self {
        ApiKey(key.to_string())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    /// A header value carrying `prefix` + the key, marked sensitive so that no `Debug` of
    /// the request shows it.
    pub fn header(&self, prefix: &str) -> Option<HeaderValue> {
        let mut v = HeaderValue::from_str(&format!("{prefix}{}", self.0)).ok()?;
        v.set_sensitive(true);
        Some(v)
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}

/// The shortest run of a key's characters that counts as an echo of it: a server that
/// masks the middle of a key (`sk-ZQX7vK93p***Fs6A`) must not publish its ends.
pub const KEY_RUN: usize = 8;

/// What a scrubbed key is replaced with.
pub const REDACTED: &str = "[redacted]";

/// `text` with every echo of the key replaced by [`REDACTED`]: the whole key, and any run
/// of [`KEY_RUN`] or more consecutive characters of it (overlapping and adjacent runs
/// merge into one). A key shorter than [`KEY_RUN`] is replaced only where it appears
/// whole. Linear in the text: each window of [`KEY_RUN`] characters is looked up in a set
/// of the key's windows.
pub fn scrub(text: &str, key: Option<&ApiKey>) -> String {
    let Some(key) = key.map(ApiKey::expose).filter(|k| !k.is_empty()) else {
        return text.to_string();
    };
    let grams: HashSet<String> = windows(key)
        .map(|(s, e, visible)| visible.unwrap_or_else(|| key[s..e].to_string()))
        .collect();
    if grams.is_empty() {
        return text.replace(key, REDACTED);
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut run: Option<(usize, usize)> = None;
    for (s, e, visible) in windows(text) {
        if !grams.contains(visible.as_deref().unwrap_or(&text[s..e])) {
            continue;
        }
        run = match run {
            Some((start, end)) if s <= end => Some((start, end.max(e))),
            Some((start, end)) => {
                out.push_str(&text[copied..start]);
                out.push_str(REDACTED);
                copied = end;
                Some((s, e))
            }
            None => Some((s, e)),
        };
    }
    if let Some((start, end)) = run {
        out.push_str(&text[copied..start]);
        out.push_str(REDACTED);
        copied = end;
    }
    out.push_str(&text[copied..]);
    out
}

/// The byte ranges of every window of [`KEY_RUN`] consecutive visible characters of
/// `text` (see [`visible_chars`]; a range spans any invisible ones between its
/// characters), with those characters when the range holds invisible ones too.
fn windows(text: &str) -> impl Iterator<Item = (usize, usize, Option<String>)> + '_ {
    let mut ring = [(0usize, ' '); KEY_RUN];
    visible_chars(text)
        .enumerate()
        .filter_map(move |(j, (i, c))| {
            ring[j % KEY_RUN] = (i, c);
            if j + 1 < KEY_RUN {
                return None;
            }
            let first = (j + 1) % KEY_RUN;
            let (start, end) = (ring[first].0, i + c.len_utf8());
            let chars = || (0..KEY_RUN).map(|k| ring[(first + k) % KEY_RUN].1);
            let width: usize = chars().map(char::len_utf8).sum();
            Some((
                start,
                end,
                (width != end - start).then(|| chars().collect()),
            ))
        })
}

/// The characters of `text` a reader (or later cleaning) keeps: not control characters,
/// not the bytes of an escape sequence (`ESC [ … final`, `ESC x`, C1 `CSI … final`), not
/// invisible format characters. A key broken up by those is still a key once cleaned.
fn visible_chars(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    #[derive(Clone, Copy, PartialEq)]
    enum Escape {
        None,
        /// Just after `ESC`.
        Start,
        /// Inside a control sequence, before its final byte.
        Csi,
    }
    let mut escape = Escape::None;
    text.char_indices().filter(move |&(_, c)| {
        match escape {
            Escape::Start => {
                escape = if c == '[' { Escape::Csi } else { Escape::None };
                return false;
            }
            Escape::Csi if ('\u{20}'..='\u{3f}').contains(&c) => return false,
            Escape::Csi => {
                escape = Escape::None;
                if ('\u{40}'..='\u{7e}').contains(&c) {
                    return false;
                }
            }
            Escape::None => {}
        }
        match c {
            '\u{1b}' => escape = Escape::Start,
            '\u{9b}' => escape = Escape::Csi,
            _ => {}
        }
        !(c.is_control() || is_invisible(c))
    })
}

/// Invisible format characters (as `untrusted` cleaning removes them): bidi controls,
/// zero-width characters, soft hyphen, the tag characters and the like.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{61c}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{e0000}'..='\u{e007f}'
    )
}

/// White space collapsed, control characters dropped, cut to [`EXCERPT_CHARS`].
pub fn excerpt(text: &str) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let clean: String = collapsed.chars().filter(|c| !c.is_control()).collect();
    if clean.chars().count() <= EXCERPT_CHARS {
        clean
    } else {
        let mut cut: String = clean.chars().take(EXCERPT_CHARS).collect();
        cut.push('…');
        cut
    }
}

/// Server text as an error may quote it: scrubbed, cut to an excerpt, and scrubbed again
/// (cleaning the excerpt can join the pieces of a key split by control characters).
pub fn quote(text: &str, key: Option<&ApiKey>) -> String {
    scrub(&excerpt(&scrub(text, key)), key)
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

/// A request ready to send: path under the base URL, headers, JSON body.
pub struct Prepared {
    pub path: &'static str,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

/// What a wire format read from a 2xx body.
#[derive(Debug, Default, PartialEq)]
pub struct Reply {
    /// `None` or empty: the response held no answer.
    pub text: Option<String>,
    pub model: Option<String>,
    /// `None` when the response does not say (or says something unreadable).
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
    /// The model stopped at the token limit.
    pub truncated: bool,
}

/// A token count as servers actually write it: an integer, a float (rounded), or a
/// numeric string. Negative, non-finite, other or absent: `None` (unknown), so an odd
/// `usage` never rejects an answer.
pub fn tokens(value: Option<&Value>) -> Option<u64> {
    let number = match value? {
        Value::Number(n) => return n.as_u64().or_else(|| whole(n.as_f64()?)),
        Value::String(s) => s.trim(),
        _ => return None,
    };
    number
        .parse::<u64>()
        .ok()
        .or_else(|| whole(number.parse::<f64>().ok()?))
}

/// A float as a token count: rounded; `None` when negative or not finite (`as`
/// saturates at `u64::MAX`, which the caller's bound then clamps).
fn whole(n: f64) -> Option<u64> {
    (n.is_finite() && n >= 0.0).then(|| n.round() as u64)
}

/// Adds a header; `name` must be a valid lowercase header name.
pub fn header(headers: &mut HeaderMap, name: &'static str, value: HeaderValue) {
    headers.insert(HeaderName::from_static(name), value);
}

/// A chat message, as the OpenAI, Ollama and Anthropic wire formats all write it.
#[derive(serde::Serialize)]
pub struct Message<'a> {
    pub role: &'static str,
    pub content: &'a str,
}

/// The system message (when there is one), then the user's prompt.
pub fn chat_messages(req: &CallRequest) -> Vec<Message<'_>> {
    let mut messages = Vec::with_capacity(2);
    if !req.system.is_empty() {
        messages.push(Message {
            role: "system",
            content: &req.system,
        });
    }
    messages.push(Message {
        role: "user",
        content: &req.prompt,
    });
    messages
}

/// Headers carrying the key as `name: {prefix}{key}`; none without a key.
pub fn key_headers(
    config: &ProviderConfig,
    key: Option<&ApiKey>,
    name: &'static str,
    prefix: &str,
) -> Result<HeaderMap, String> {
    let mut headers = HeaderMap::new();
    if let Some(key) = key {
        let value = key.header(prefix).ok_or_else(|| {
            format!(
                "the API key in `{}` has characters an HTTP header cannot carry",
                config.api_key_env.as_deref().unwrap_or("?")
            )
        })?;
        header(&mut headers, name, value);
    }
    Ok(headers)
}

/// Serializes a request body.
pub fn body(value: &impl serde::Serialize) -> Result<Vec<u8>, String> {
    serde_json::to_vec(value).map_err(|e| format!("cannot serialize the request: {e}"))
}

/// Reads a JSON body as `T`, saying plainly what was wrong when it is not. The message
/// quotes the whole body: callers scrub it, then cut it with [`excerpt`].
pub fn decode<T: DeserializeOwned>(body: &[u8]) -> Result<T, String> {
    serde_json::from_slice(body).map_err(|e| {
        let text = String::from_utf8_lossy(body);
        let t = text.trim_start();
        if t.is_empty() {
            "the body is empty".to_string()
        } else if t.starts_with('<') {
            format!("expected JSON, got HTML: {t}")
        } else if e.is_eof() {
            format!("the JSON body is cut off after {} bytes: {t}", body.len())
        } else if e.is_syntax() {
            format!("the body is not JSON ({e}): {t}")
        } else {
            format!("unexpected JSON ({e}): {t}")
        }
    })
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

impl Providers {
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

/// Calls one model over HTTP, retrying on connection errors, 408, 429 and 5xx.
pub async fn call(
    p: &Providers,
    config: &ProviderConfig,
    model: &ModelRef,
    req: &CallRequest,
    progress: &Progress,
) -> Outcome {
    let started = tokio::time::Instant::now();
    let fail = |error, tries| Outcome {
        result: Err(error),
        usage: None,
        latency: started.elapsed(),
        tries,
    };
    let key = match p.key(config) {
        Ok(k) => k,
        Err(e) => return fail(e, 0),
    };
    let prepared = match config.kind {
        ProviderKind::Openai => super::openai::prepare(config, &model.model, req, key.as_ref()),
        ProviderKind::Anthropic => {
            super::anthropic::prepare(config, &model.model, req, key.as_ref())
        }
        ProviderKind::Ollama => super::ollama::prepare(config, &model.model, req, key.as_ref()),
        ProviderKind::Replay => Err("replay is not an HTTP provider".to_string()),
    };
    let prepared = match prepared {
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
    let url = format!("{}{}", config.base_url, prepared.path);
    let bounds = Bounds::new(req, prepared.body.len());
    let mut tries = 0u32;
    loop {
        tries += 1;
        // A free slot first, then pacing (so requests are spaced as they are sent), then
        // the request, whose timeout starts only now. The slot is free again for the
        // backoff before a retry.
        let slot = p.slot(config, progress).await;
        p.pace(config, progress).await;
        let sent = send_once(p, config, model, &url, &prepared, key.as_ref(), tries).await;
        drop(slot);
        match sent {
            Sent::Answer(body) => {
                let latency = started.elapsed();
                return read_off_thread(config, model, bounds, body, key.as_ref(), latency, tries)
                    .await;
            }
            Sent::TooLong(error) => {
                return Outcome {
                    result: Err(error),
                    usage: Some(bounds.usage(config, model, None, None)),
                    latency: started.elapsed(),
                    tries,
                };
            }
            Sent::Failed {
                error,
                retryable,
                retry_after,
            } => {
                if !retryable || tries > config.retries {
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
    }
}

async fn send_once(
    p: &Providers,
    config: &ProviderConfig,
    model: &ModelRef,
    url: &str,
    prepared: &Prepared,
    key: Option<&ApiKey>,
    attempt: u32,
) -> Sent {
    let t0 = tokio::time::Instant::now();
    let request = p
        .client
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
    let model_name = model.to_string();
    let (status, headers, body) = match result {
        Err(_) => {
            tracing::debug!(provider = %config.name, model = %model.model, attempt, latency_ms, "timed out");
            return Sent::Failed {
                error: CallError::Timeout {
                    model: model_name,
                    after: config.timeout,
                },
                retryable: false,
                retry_after: None,
            };
        }
        Ok(Err(e)) => {
            let message = quote(&error_chain(&e.without_url()), key);
            tracing::debug!(provider = %config.name, model = %model.model, attempt, latency_ms, error = %message, "request failed");
            return Sent::Failed {
                error: CallError::Connect {
                    model: model_name,
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
    let message = quote(&error_message(&body), key);
    let retry_after = retry_after(&headers, SystemTime::now());
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

/// Slack over one token per byte sent, for chat templates and tool preambles.
const USAGE_SLACK_IN: u64 = 2048;
/// Slack over `max_tokens` for the output a server reports.
const USAGE_SLACK_OUT: u64 = 256;

/// What one request could use at most, to tell an impossible reported usage, and what
/// to count when the response does not say.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    /// The chain's estimate of the prompt: (system + prompt bytes) / 4.
    estimate_in: u64,
    max_tokens: u64,
    /// A token is at least a byte of the request body, plus [`USAGE_SLACK_IN`].
    max_in: u64,
    /// `max_tokens` plus [`USAGE_SLACK_OUT`].
    max_out: u64,
}

impl Bounds {
    fn new(req: &CallRequest, sent_bytes: usize) -> Self {
        let max_tokens = u64::from(req.max_tokens);
        Bounds {
            estimate_in: super::prompt_estimate(req),
            max_tokens,
            max_in: (sent_bytes as u64).saturating_add(USAGE_SLACK_IN),
            max_out: max_tokens.saturating_add(USAGE_SLACK_OUT),
        }
    }

    /// The usage to count: the reported one, clamped to the bounds; the estimate where
    /// the response does not say; a non-finite cost as 0. Both are flagged and logged.
    fn usage(
        &self,
        config: &ProviderConfig,
        model: &ModelRef,
        tokens_in: Option<u64>,
        tokens_out: Option<u64>,
    ) -> Usage {
        let estimated = tokens_in.is_none() || tokens_out.is_none();
        let reported_in = tokens_in.unwrap_or(self.estimate_in);
        let reported_out = tokens_out.unwrap_or(self.max_tokens);
        let tokens_in = reported_in.min(self.max_in);
        let tokens_out = reported_out.min(self.max_out);
        let mut clamped = (tokens_in, tokens_out) != (reported_in, reported_out);
        let mut cost = super::cost(config, tokens_in, tokens_out);
        if !cost.is_finite() {
            cost = 0.0;
            clamped = true;
        }
        if clamped {
            tracing::warn!(provider = %config.name, model = %model.model, reported_in, reported_out,
                counted_in = tokens_in, counted_out = tokens_out,
                "the reported usage is more than the request could cost; counted the bound instead");
        } else if estimated {
            tracing::debug!(provider = %config.name, model = %model.model,
                "the response does not say what it used; counted the estimate");
        }
        Usage {
            tokens_in,
            tokens_out,
            cost,
            clamped,
            estimated,
        }
    }
}

/// Reads a 2xx body on the blocking pool: decoding up to `max_response_bytes` of JSON
/// and scrubbing it is CPU work that must not hold the other threads' timers on the
/// tick's single runtime thread (SPEC §4.4).
async fn read_off_thread(
    config: &ProviderConfig,
    model: &ModelRef,
    bounds: Bounds,
    body: Vec<u8>,
    key: Option<&ApiKey>,
    latency: Duration,
    tries: u32,
) -> Outcome {
    let (owned_config, owned_model, owned_key) = (config.clone(), model.clone(), key.cloned());
    let read = tokio::task::spawn_blocking(move || {
        read_answer(
            &owned_config,
            &owned_model,
            bounds,
            &body,
            owned_key.as_ref(),
            latency,
            tries,
        )
    })
    .await;
    read.unwrap_or_else(|e| Outcome {
        result: Err(CallError::BadResponse {
            model: model.to_string(),
            message: quote(&format!("reading the response failed: {e}"), key),
        }),
        usage: None,
        latency,
        tries,
    })
}

fn read_answer(
    config: &ProviderConfig,
    model: &ModelRef,
    bounds: Bounds,
    body: &[u8],
    key: Option<&ApiKey>,
    latency: Duration,
    tries: u32,
) -> Outcome {
    let read = match config.kind {
        ProviderKind::Openai => super::openai::read(body),
        ProviderKind::Anthropic => super::anthropic::read(body),
        ProviderKind::Ollama => super::ollama::read(body),
        ProviderKind::Replay => Err("replay is not an HTTP provider".to_string()),
    };
    let reply = match read {
        Ok(r) => r,
        Err(message) => {
            return Outcome {
                result: Err(CallError::BadResponse {
                    model: model.to_string(),
                    message: quote(&message, key),
                }),
                // A 2xx was answered, so probably billed: count the estimate.
                usage: Some(bounds.usage(config, model, None, None)),
                latency,
                tries,
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
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
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
    fn keys_are_scrubbed_and_redacted() {
        let k = ApiKey::new("sk-secret-123");
        assert_eq!(format!("{k:?}"), "ApiKey([redacted])");
        assert_eq!(
            scrub("bad key sk-secret-123!", Some(&k)),
            "bad key [redacted]!"
        );
        let v = k.header("Bearer ").unwrap();
        assert!(!format!("{v:?}").contains("secret"));
    }

    #[test]
    fn partial_echoes_of_a_key_are_scrubbed() {
        let k = ApiKey::new("sk-ZQX7vK93pAbCdEfFs6A");
        let s = |t: &str| scrub(t, Some(&k));
        // The issue's 401: the key's first 12 characters, its middle masked.
        assert_eq!(
            s("Incorrect API key provided: sk-ZQX7vK93p***Fs6A."),
            "Incorrect API key provided: [redacted]***Fs6A."
        );
        assert_eq!(s("Bearer sk-ZQX7vK93pAbCdEfFs6A"), "Bearer [redacted]");
        // Any 8-character run, anywhere; shorter runs are left.
        assert_eq!(s("…93pAbCdE…"), "…[redacted]…");
        assert_eq!(s("93pAbCd and Fs6A"), "93pAbCd and Fs6A");
        // Back-to-back and overlapping echoes become one.
        assert_eq!(
            s("sk-ZQX7vK93pAbCdEfFs6Ask-ZQX7vK93pAbCdEfFs6A!"),
            "[redacted]!"
        );
        assert_eq!(
            s("[sk-ZQX7vK] and [EdEfFs6A]"),
            "[[redacted]] and [EdEfFs6A]"
        );
        // Broken up by control or zero-width characters, with text in any script around.
        assert_eq!(s("ключ sk-ZQX\u{7}7vK9\u{200b}3pA ✓"), "ключ [redacted] ✓");
        // A short key: whole matches only.
        let short = ApiKey::new("abc123");
        assert_eq!(scrub("abc123 abc12", Some(&short)), "[redacted] abc12");
        assert_eq!(scrub("anything", None), "anything");
    }

    #[test]
    fn quoting_scrubs_what_cleaning_joins() {
        let k = ApiKey::new("sk-ZQX7vK93pAbCdEfFs6A");
        let quoted = quote(
            &format!("{}  {}", "x".repeat(190), "sk-ZQX7vK93pAbCd"),
            Some(&k),
        );
        assert!(!quoted.contains("sk-ZQX7v"), "{quoted}");
    }

    #[test]
    fn token_counts_are_read_tolerantly() {
        let t = |v: Value| tokens(Some(&v));
        assert_eq!(t(serde_json::json!(1200)), Some(1200));
        assert_eq!(t(serde_json::json!(79.5)), Some(80));
        assert_eq!(t(serde_json::json!(" 42 ")), Some(42));
        assert_eq!(t(serde_json::json!("1.2e3")), Some(1200));
        assert_eq!(t(serde_json::json!(u64::MAX)), Some(u64::MAX));
        assert_eq!(t(serde_json::json!(1e30)), Some(u64::MAX));
        for odd in [
            serde_json::json!(-1),
            serde_json::json!(-0.5),
            serde_json::json!("lots"),
            serde_json::json!("-3"),
            serde_json::json!(null),
            serde_json::json!([1]),
            serde_json::json!({"n": 1}),
        ] {
            assert_eq!(t(odd.clone()), None, "{odd}");
        }
        assert_eq!(tokens(None), None);
    }

    #[test]
    fn bad_bodies_are_described() {
        let d = |b: &str| decode::<Value>(b.as_bytes()).unwrap_err();
        assert!(d("").contains("empty"));
        assert!(d("<html><body>502</body></html>").contains("HTML"));
        assert!(d(r#"{"choices": [{"mess"#).contains("cut off"));
        assert!(d("hello").contains("not JSON"));
        assert_eq!(excerpt(&"x".repeat(500)).chars().count(), EXCERPT_CHARS + 1);
        assert_eq!(
            error_message(br#"{"error":{"message":"Invalid API Key","type":"auth"}}"#),
            "Invalid API Key"
        );
        assert_eq!(
            error_message(br#"{"error":"model not found"}"#),
            "model not found"
        );
    }
}
