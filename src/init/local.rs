//! The model servers `thinker init` looks for on this machine: llama.cpp's llama-server
//! (port 8080), LM Studio (1234) and Ollama (11434), each at an address a variable can
//! move (`THINKER_LLAMA_SERVER_URL`, `THINKER_LM_STUDIO_URL`, `THINKER_OLLAMA_URL`: tests,
//! a server elsewhere), and the models each lists.
//!
//! A server is told by what it answers, not by its port: `/health` answering
//! `{"status":"ok"}` (or 503 while its model loads) is llama-server, its models those of
//! `/v1/models`; an Ollama tag list
//! at `/api/tags` is Ollama; an OpenAI model list alone is LM Studio (or another
//! OpenAI-compatible server, written the same way). Each question is one plain HTTP/1.1
//! GET over TCP with short timeouts (300 ms to connect, 1.5 s for the whole answer, at most
//! 256 KiB read); the three addresses are asked at once.
//!
//! Must not: send anything but those GETs, follow a redirect, speak TLS (an `https://`
//! address is not probed), or take longer than its timeouts.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// How long a connect may take: the server is on this machine, or not there.
const CONNECT_TIMEOUT: Duration = Duration::from_millis(300);
/// How long one question may take, answer read whole.
const ANSWER_TIMEOUT: Duration = Duration::from_millis(1500);
/// The most of an answer read.
const MAX_ANSWER_BYTES: usize = 256 << 10;

/// A kind of local server `init` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum LocalKind {
    LlamaServer,
    LmStudio,
    Ollama,
}

impl LocalKind {
    /// In the order `init` reports them.
    pub const ALL: [LocalKind; 3] = [
        LocalKind::LlamaServer,
        LocalKind::LmStudio,
        LocalKind::Ollama,
    ];

    /// Its name for people.
    pub fn label(self) -> &'static str {
        match self {
            LocalKind::LlamaServer => "llama-server",
            LocalKind::LmStudio => "LM Studio",
            LocalKind::Ollama => "Ollama",
        }
    }

    /// Its provider's name in the config.
    pub fn provider(self) -> &'static str {
        match self {
            LocalKind::LlamaServer => "llamacpp",
            LocalKind::LmStudio => "lmstudio",
            LocalKind::Ollama => "ollama",
        }
    }

    /// The variable that moves where it is looked for.
    pub fn var(self) -> &'static str {
        match self {
            LocalKind::LlamaServer => "THINKER_LLAMA_SERVER_URL",
            LocalKind::LmStudio => "THINKER_LM_STUDIO_URL",
            LocalKind::Ollama => "THINKER_OLLAMA_URL",
        }
    }

    /// Its default address.
    pub fn default_url(self) -> &'static str {
        match self {
            LocalKind::LlamaServer => "http://127.0.0.1:8080",
            LocalKind::LmStudio => "http://127.0.0.1:1234",
            LocalKind::Ollama => "http://127.0.0.1:11434",
        }
    }

    /// Whether the config speaks to it with the `ollama` kind (else `openai`).
    pub fn native_ollama(self) -> bool {
        self == LocalKind::Ollama
    }
}

/// A server that answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalServer {
    pub kind: LocalKind,
    /// Scheme, host and port: `http://127.0.0.1:8080`.
    pub root: String,
    /// The models it lists, as it names them (embedding models last).
    pub models: Vec<String>,
}

impl LocalServer {
    /// The provider's `base_url`: the root for Ollama's own API, `/v1` for the others.
    pub fn base_url(&self) -> String {
        if self.kind.native_ollama() {
            self.root.clone()
        } else {
            format!("{}/v1", self.root)
        }
    }

    /// The model the threads use: the first chat model it lists; without one, Ollama's
    /// `llama3.2` (to pull) or `None`.
    pub fn model(&self) -> Option<String> {
        chat_model(&self.models).or_else(|| {
            self.kind
                .native_ollama()
                .then(|| OLLAMA_DEFAULT_MODEL.to_string())
        })
    }
}

/// The model written for an Ollama that lists none yet (`ollama pull llama3.2`).
pub const OLLAMA_DEFAULT_MODEL: &str = "llama3.2";

/// The first model of `models` that is not for embeddings or reranking.
pub fn chat_model(models: &[String]) -> Option<String> {
    models.iter().find(|m| !is_embedding(m)).cloned()
}

fn is_embedding(model: &str) -> bool {
    let m = model.to_ascii_lowercase();
    m.contains("embed") || m.contains("rerank")
}

/// The address to look at for `kind`: its variable's (`http://` added to a bare
/// `host:port`, a trailing `/v1` cut), else its default.
pub fn address(kind: LocalKind, var: Option<&str>) -> String {
    match var.map(str::trim).filter(|v| !v.is_empty()) {
        None => kind.default_url().to_string(),
        Some(v) => root_of(v),
    }
}

/// `http://host:port` of a URL or a bare `host:port` (any path cut, `/v1` among them).
pub fn root_of(url: &str) -> String {
    let (scheme, rest) = match url.split_once("://") {
        Some((scheme, rest)) => (scheme, rest),
        None => ("http", url),
    };
    let host = rest.split('/').next().unwrap_or(rest);
    format!("{scheme}://{host}")
}

/// Looks at every address at once; the servers that answered, in [`LocalKind::ALL`]
/// order of the address they were found at, each root once.
pub fn find(addresses: &[(LocalKind, String)]) -> Vec<LocalServer> {
    let found: Vec<Option<LocalServer>> = std::thread::scope(|scope| {
        let asks: Vec<_> = addresses
            .iter()
            .map(|(_, root)| scope.spawn(move || identify(root)))
            .collect();
        asks.into_iter()
            .map(|ask| ask.join().ok().flatten())
            .collect()
    });
    let mut servers: Vec<LocalServer> = Vec::new();
    for server in found.into_iter().flatten() {
        if !servers.iter().any(|s| s.root == server.root) {
            servers.push(server);
        }
    }
    servers
}

/// What answers at `root`, if anything known does.
pub fn identify(root: &str) -> Option<LocalServer> {
    let server = |kind, models| {
        Some(LocalServer {
            kind,
            root: root.to_string(),
            models,
        })
    };
    let openai_models = || {
        get(root, "/v1/models")
            .filter(|a| a.status == 200)
            .and_then(|a| model_ids(&a.body, "data", "id"))
    };
    // Nothing answering in HTTP: no need to ask again.
    let health = get(root, "/health")?;
    // llama-server's own words: `{"status":"ok"}`, or a 503 while its model loads.
    let ok = health.status == 200
        && serde_json::from_slice::<serde_json::Value>(&health.body)
            .is_ok_and(|v| v.get("status").and_then(serde_json::Value::as_str) == Some("ok"));
    let loading = health.status == 503
        && String::from_utf8_lossy(&health.body)
            .to_ascii_lowercase()
            .contains("loading");
    if ok || loading {
        return server(LocalKind::LlamaServer, openai_models().unwrap_or_default());
    }
    if let Some(models) = get(root, "/api/tags")
        .filter(|a| a.status == 200)
        .and_then(|a| model_ids(&a.body, "models", "name"))
    {
        return server(LocalKind::Ollama, models);
    }
    openai_models().and_then(|models| server(LocalKind::LmStudio, models))
}

/// The models an OpenAI-compatible server at `base_url` lists (`GET {base_url}/models`);
/// `None` when it does not answer with a list (or is `https://`: not probed).
pub fn list_models(base_url: &str) -> Option<Vec<String>> {
    let root = root_of(base_url);
    let path = base_url.strip_prefix(&root).unwrap_or("");
    get(&root, &format!("{}/models", path.trim_end_matches('/')))
        .filter(|a| a.status == 200)
        .and_then(|a| model_ids(&a.body, "data", "id"))
}

/// The `key` of each object of the list `list` in a JSON body: `{"data": [{"id": …}]}`;
/// `None` when the body is not such an object.
fn model_ids(body: &[u8], list: &str, key: &str) -> Option<Vec<String>> {
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    let items = value.get(list)?.as_array()?;
    let mut ids: Vec<String> = items
        .iter()
        .filter_map(|m| m.get(key).and_then(serde_json::Value::as_str))
        .filter(|id| !id.is_empty() && id.len() <= 200 && !id.contains(['"', '\\', '\n']))
        .map(str::to_string)
        .collect();
    // Chat models first, in the server's order.
    ids.sort_by_key(|id| is_embedding(id));
    Some(ids)
}

/// An HTTP answer: its status and body.
#[derive(Debug)]
struct Answer {
    status: u16,
    body: Vec<u8>,
}

/// `GET path` at `root` (`http://host:port`), within the timeouts; `None` when nothing
/// answers in HTTP.
fn get(root: &str, path: &str) -> Option<Answer> {
    let host = root.strip_prefix("http://")?;
    let with_port = if host
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
    {
        host.to_string()
    } else {
        format!("{host}:80")
    };
    let addr = with_port.to_socket_addrs().ok()?.next()?;
    let started = Instant::now();
    let mut stream = TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT).ok()?;
    stream.set_write_timeout(Some(ANSWER_TIMEOUT)).ok()?;
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: application/json\r\nUser-Agent: thinker-init\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        let left = ANSWER_TIMEOUT.checked_sub(started.elapsed())?;
        stream.set_read_timeout(Some(left)).ok()?;
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                raw.extend_from_slice(&buf[..n]);
                if raw.len() >= MAX_ANSWER_BYTES || complete(&raw) {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            // A timeout with the head read: what came is what there is.
            Err(_) if head_end(&raw).is_some() => break,
            Err(_) => return None,
        }
    }
    parse(&raw)
}

/// Where the head ends (after its blank line).
fn head_end(raw: &[u8]) -> Option<usize> {
    raw.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

/// A header's value in `head` (case-insensitive name).
fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().skip(1).find_map(|line| {
        let (n, v) = line.split_once(':')?;
        n.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// Whether the whole answer is in: its `Content-Length` read, or a chunked body's last
/// chunk (servers may keep the connection open despite `Connection: close`).
fn complete(raw: &[u8]) -> bool {
    let Some(end) = head_end(raw) else {
        return false;
    };
    let head = String::from_utf8_lossy(&raw[..end]);
    if let Some(len) = header(&head, "content-length").and_then(|v| v.parse::<usize>().ok()) {
        return raw.len() - end >= len;
    }
    header(&head, "transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
        && raw.ends_with(b"0\r\n\r\n")
}

/// The status and the body of a raw answer (a chunked body put together).
fn parse(raw: &[u8]) -> Option<Answer> {
    let end = head_end(raw)?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let status_line = head.lines().next()?;
    let mut words = status_line.split_whitespace();
    if !words.next()?.starts_with("HTTP/1.") {
        return None;
    }
    let status = words.next()?.parse::<u16>().ok()?;
    let mut body = raw[end..].to_vec();
    if header(&head, "transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        body = dechunk(&body);
    } else if let Some(len) = header(&head, "content-length").and_then(|v| v.parse::<usize>().ok())
    {
        body.truncate(len);
    }
    Some(Answer { status, body })
}

/// A chunked body's chunks, joined (as far as they are whole).
fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(line_end) = body.windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&body[..line_end]);
        let size_text = size_text.split(';').next().unwrap_or("").trim();
        let Ok(size) = usize::from_str_radix(size_text, 16) else {
            break;
        };
        let start = line_end + 2;
        if size == 0 || body.len() < start + size {
            break;
        }
        out.extend_from_slice(&body[start..start + size]);
        body = body.get(start + size + 2..).unwrap_or_default();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// A server on loopback answering each request with `reply(path)` (status, body),
    /// until it has answered `n`.
    fn serve(n: usize, reply: fn(&str) -> (u16, &'static str)) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let root = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming().take(n) {
                let mut stream = stream.unwrap();
                let mut buf = [0u8; 4096];
                let got = stream.read(&mut buf).unwrap();
                let request = String::from_utf8_lossy(&buf[..got]).to_string();
                let path = request.split_whitespace().nth(1).unwrap_or("").to_string();
                let (status, body) = reply(&path);
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{body}\r\n0\r\n\r\n",
                    body.len()
                );
            }
        });
        root
    }

    #[test]
    fn servers_are_told_apart_by_what_they_answer() {
        let llama = serve(2, |path| match path {
            "/health" => (200, r#"{"status":"ok"}"#),
            "/v1/models" => (
                200,
                r#"{"object":"list","data":[{"id":"qwen2.5-1.5b-instruct"}]}"#,
            ),
            _ => (404, "{}"),
        });
        let found = identify(&llama).unwrap();
        assert_eq!(found.kind, LocalKind::LlamaServer);
        assert_eq!(found.model().as_deref(), Some("qwen2.5-1.5b-instruct"));
        assert_eq!(found.base_url(), format!("{llama}/v1"));

        let ollama = serve(2, |path| match path {
            "/api/tags" => (
                200,
                r#"{"models":[{"name":"nomic-embed-text:latest"},{"name":"llama3.2:latest"}]}"#,
            ),
            _ => (404, "404 page not found"),
        });
        let found = identify(&ollama).unwrap();
        assert_eq!(found.kind, LocalKind::Ollama);
        assert_eq!(found.model().as_deref(), Some("llama3.2:latest"));
        assert_eq!(found.base_url(), ollama);

        let lmstudio = serve(3, |path| match path {
            "/v1/models" => (
                200,
                r#"{"data":[{"id":"text-embedding-nomic"},{"id":"google/gemma-3-4b"}],"object":"list"}"#,
            ),
            _ => (404, r#"{"error":"Unexpected endpoint"}"#),
        });
        let found = identify(&lmstudio).unwrap();
        assert_eq!(found.kind, LocalKind::LmStudio);
        assert_eq!(found.model().as_deref(), Some("google/gemma-3-4b"));

        // Something else on the port: a web page everywhere.
        let other = serve(3, |_| (200, "<html>hello</html>"));
        assert_eq!(identify(&other), None);
        // Nothing there.
        assert_eq!(identify("http://127.0.0.1:1"), None);
    }

    #[test]
    fn a_loading_llama_server_is_found_without_models() {
        let loading = serve(2, |_| {
            (503, r#"{"error":{"code":503,"message":"Loading model"}}"#)
        });
        let found = identify(&loading).unwrap();
        assert_eq!(
            (found.kind, found.models.len()),
            (LocalKind::LlamaServer, 0)
        );
        assert_eq!(found.model(), None);
    }

    #[test]
    fn addresses_take_a_bare_host_and_port_and_lose_their_path() {
        assert_eq!(address(LocalKind::Ollama, None), "http://127.0.0.1:11434");
        assert_eq!(
            address(LocalKind::LlamaServer, Some("127.0.0.1:5555")),
            "http://127.0.0.1:5555"
        );
        assert_eq!(
            address(LocalKind::LmStudio, Some("http://10.0.0.2:1234/v1/")),
            "http://10.0.0.2:1234"
        );
    }

    #[test]
    fn a_chunked_body_is_put_together() {
        assert_eq!(dechunk(b"3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n"), b"abcde");
        assert_eq!(dechunk(b"5\r\nab"), b"");
        let answer = parse(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA").unwrap();
        assert_eq!((answer.status, answer.body.as_slice()), (200, &b"ok"[..]));
        assert!(parse(b"SSH-2.0-OpenSSH\r\n\r\n").is_none());
    }
}
