//! The stdio transport of `thinker mcp`: JSON-RPC messages one per line on stdin and
//! stdout, as MCP's stdio transport frames them, for rmcp's server (`rmcp::transport::
//! Transport`).
//!
//! **Every request is answered** (a request line of 8 to 16 MB got no answer
//! at all, though the server stayed up): a line longer than [`MAX_REQUEST_BYTES`] is read
//! to its end without being kept (its first [`HEAD_BYTES`] aside, where its `id` is
//! looked for) and answered with a JSON-RPC error that names the limit; well-formed JSON
//! that is not a message the server knows is answered with an "invalid request" error
//! carrying its `id`. A line that is not JSON at all, or a notification (no `id`), is
//! dropped: there is no request to answer, and answering unreadable input can start an
//! error storm with a client that echoes it (rmcp's reasoning too).
//!
//! Reading is cancel-safe — rmcp polls `receive` in a `select!` and drops it when another
//! branch is ready — because the partial line lives in the transport, not in the future;
//! replies are written whole under one lock, the error replies by a task of their own,
//! so a dropped future never leaves half a line on stdout.
//!
//! Must not: answer a tool (that is `crate::mcp`'s), or write anything but whole
//! JSON-RPC lines to stdout.

use std::io;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// The longest request line read: the tools' arguments are a few KB (a text to recall,
/// a verdict and its note).
pub const MAX_REQUEST_BYTES: usize = 1 << 20;
/// How much of a longer line is kept to find its `id`.
pub const HEAD_BYTES: usize = 64 << 10;

/// JSON-RPC's "Invalid Request" code.
const INVALID_REQUEST: i64 = -32600;

/// The server's side of stdio.
pub struct Stdio<R, W> {
    read: BufReader<R>,
    write: Arc<Mutex<W>>,
    /// The line read so far (at most [`MAX_REQUEST_BYTES`]).
    line: Vec<u8>,
    /// The line passed the limit: its head and its length so far.
    over: Option<(Vec<u8>, usize)>,
}

impl<R, W> std::fmt::Debug for Stdio<R, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stdio")
            .field("line", &self.line.len())
            .finish_non_exhaustive()
    }
}

/// What one read of a line gave.
enum Line {
    /// A whole line is in `self.line`.
    Whole,
    /// A line past the limit ended: its head and length.
    Over(Vec<u8>, usize),
    Eof,
    Failed(io::Error),
}

impl<R, W> Stdio<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    pub fn new(read: R, write: W) -> Self {
        Stdio {
            read: BufReader::new(read),
            write: Arc::new(Mutex::new(write)),
            line: Vec::new(),
            over: None,
        }
    }

    /// Reads on until a line ends, keeping at most the limit of it (cancel-safe: what was
    /// read stays in `self`).
    async fn read_line(&mut self) -> Line {
        loop {
            let available = match self.read.fill_buf().await {
                Ok([]) => return Line::Eof,
                Ok(bytes) => bytes,
                Err(e) => return Line::Failed(e),
            };
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            if let Some((head, bytes)) = &mut self.over {
                let room = HEAD_BYTES.saturating_sub(head.len());
                head.extend_from_slice(&available[..take.min(room)]);
                *bytes += take;
            } else if self.line.len() + take > MAX_REQUEST_BYTES {
                let mut head = std::mem::take(&mut self.line);
                let bytes = head.len() + take;
                head.truncate(HEAD_BYTES);
                let room = HEAD_BYTES - head.len();
                head.extend_from_slice(&available[..take.min(room)]);
                self.over = Some((head, bytes));
            } else {
                self.line.extend_from_slice(&available[..take]);
            }
            self.read.consume(take);
            if newline.is_some() {
                return match self.over.take() {
                    Some((head, bytes)) => Line::Over(head, bytes),
                    None => Line::Whole,
                };
            }
        }
    }

    /// Writes one JSON-RPC error for request `id`, whole, from a task of its own.
    fn answer_error(&self, id: &Value, message: &str) {
        let line = json!({"jsonrpc": "2.0", "id": id,
                          "error": {"code": INVALID_REQUEST, "message": message}});
        let mut bytes = line.to_string().into_bytes();
        bytes.push(b'\n');
        let write = Arc::clone(&self.write);
        tokio::spawn(async move {
            let mut w = write.lock().await;
            if let Err(e) = w.write_all(&bytes).await.and(w.flush().await) {
                tracing::error!("thinker mcp: cannot answer the client: {e}");
            }
        });
    }
}

impl<R, W> rmcp::transport::Transport<RoleServer> for Stdio<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let bytes = serde_json::to_vec(&item).map(|mut b| {
            b.push(b'\n');
            b
        });
        let write = Arc::clone(&self.write);
        async move {
            let bytes = bytes.map_err(io::Error::other)?;
            let mut w = write.lock().await;
            w.write_all(&bytes).await?;
            w.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Line::Eof => return None,
                Line::Failed(e) => {
                    tracing::error!("thinker mcp: cannot read from the client: {e}");
                    return None;
                }
                Line::Over(head, bytes) => {
                    let id = request_id(&head);
                    tracing::warn!(
                        "thinker mcp: a request of {bytes} bytes is over the limit of {MAX_REQUEST_BYTES}: answered with an error"
                    );
                    if !id.is_null() || looks_like_request(&head) {
                        self.answer_error(
                            &id,
                            &format!(
                                "the request is {bytes} bytes, over thinker mcp's limit of {MAX_REQUEST_BYTES} bytes (1 MiB) a request: send less (a shorter `text` to recall, a shorter note)"
                            ),
                        );
                    }
                }
                Line::Whole => {
                    let line = std::mem::take(&mut self.line);
                    let mut text = line.strip_suffix(b"\n").unwrap_or(&line);
                    text = text.strip_suffix(b"\r").unwrap_or(text);
                    text = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(text);
                    if text.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(text) {
                        Ok(message) => return Some(message),
                        Err(e) => {
                            let value: Option<Value> = serde_json::from_slice(text).ok();
                            match value.as_ref().and_then(|v| v.get("id")) {
                                Some(id) if !id.is_null() => {
                                    self.answer_error(id, &format!("invalid request: {e}"));
                                }
                                // Not JSON, or a notification: nothing to answer.
                                _ => tracing::debug!("thinker mcp: dropped a line: {e}"),
                            }
                        }
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.lock().await.flush().await
    }
}

/// Whether the start of a line reads like a JSON object (a request whose `id` lies past
/// what was kept is still answered, with a `null` id).
fn looks_like_request(head: &[u8]) -> bool {
    head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// The `id` of the JSON-RPC request whose text starts with `head`: the value of the key
/// `id` at the top level of the object (not one inside `params`), when it is a number or
/// a string that `head` holds whole; else `null`.
pub fn request_id(head: &[u8]) -> Value {
    let mut depth = 0usize;
    let mut i = 0;
    while i < head.len() {
        match head[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let Some(end) = string_end(head, i) else {
                    return Value::Null;
                };
                if depth == 1 && &head[i + 1..end] == b"id" {
                    let mut j = end + 1;
                    while head.get(j).is_some_and(u8::is_ascii_whitespace) {
                        j += 1;
                    }
                    if head.get(j) == Some(&b':') {
                        return value_at(head, j + 1).unwrap_or(Value::Null);
                    }
                }
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    Value::Null
}

/// The index of the `"` that closes the string opening at `start`.
fn string_end(text: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// A number or a string starting at `at` (after white space).
fn value_at(text: &[u8], mut at: usize) -> Option<Value> {
    while text.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    let end = if text.get(at) == Some(&b'"') {
        string_end(text, at)? + 1
    } else {
        at + text[at..]
            .iter()
            .take_while(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
            .count()
    };
    let value: Value = serde_json::from_slice(text.get(at..end)?).ok()?;
    (value.is_number() || value.is_string()).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_found_at_the_top_level_only() {
        // (head, id) — each row names the wrong scan it catches.
        let cases: &[(&str, Value)] = &[
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"#,
                json!(7),
            ),
            (
                r#"{"method":"x","params":{"id":"inner"},"id":"outer"}"#,
                json!("outer"),
            ),
            (
                r#"{"params":{"arguments":{"id":"p-x","text":"aaa"#,
                Value::Null,
            ),
            (r#"{"method":"x \"id\": 5","id" : "a\"b"}"#, json!("a\"b")),
            (r#"{"id":null}"#, Value::Null),
            (r#"{"id":{"x":1}}"#, Value::Null),
            ("not json", Value::Null),
            (r#"{"id":-3.5e2,"#, json!(-350.0)),
        ];
        for (head, want) in cases {
            assert_eq!(request_id(head.as_bytes()), *want, "{head}");
        }
    }
}
