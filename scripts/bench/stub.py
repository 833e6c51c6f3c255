"""stub.py — the OpenAI-compatible stub server the bench scripts tick against.

One chat-completions endpoint on 127.0.0.1 (an ephemeral port), served from daemon
threads of the calling process (http.server, one thread per request, HTTP/1.1). Every
POST is answered by the script's `answer` callable: it gets a `Request` (the raw body,
the parsed one, the request's number) and returns a `Reply` (the assistant message's
content and the usage to report); the stub wraps it in a chat.completion. An exception
in `answer` is printed on stderr and answered 500, so that a bug shows instead of
hanging the tick.

    import stub
    server = stub.Stub(stub.fixed(ANSWER, 900, 40)).start()
    config = f'base_url = "{server.url}"'        # http://127.0.0.1:PORT/v1
    server.delay = 1.0                            # every answer after 1 s
    server.requests                               # POSTs seen so far
    server.close()

`Stub(..., tls=(cert, key))` serves the same over TLS (url: https://…). Standard
library only. Imported by the scripts beside it (a script's own directory is on
sys.path), never run.
"""

import http.server
import json
import ssl
import sys
import threading
import time
from dataclasses import dataclass
from typing import Optional


@dataclass
class Request:
    raw: bytes  # the body as sent
    body: dict  # the body parsed
    n: int  # 1 for the first request this server saw

    @property
    def model(self):
        return self.body.get("model", "?")


@dataclass
class Reply:
    content: str  # the assistant message's content
    prompt_tokens: int
    completion_tokens: int
    model: Optional[str] = None  # default: the request's


# The answer a tick's thread gets when nothing more is asked: one finding.
ANSWER = {
    "findings": [{"summary": "The benchmark stub answered this thread", "importance": 4}],
    "reinforce": [],
    "suggest": "",
    "escalate": False,
}


def fixed(answer, prompt_tokens, completion_tokens):
    """An `answer` callable giving the same JSON answer and usage to every request."""
    content = json.dumps(answer)
    return lambda request: Reply(content, prompt_tokens, completion_tokens)


class Stub(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, answer, tls=None, label="stub"):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.answer = answer
        self.label = label
        self.delay = 0.0
        self.requests = 0
        self.lock = threading.Lock()
        self.scheme = "http"
        if tls is not None:
            cert, key = tls
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(cert, key)
            self.socket = context.wrap_socket(self.socket, server_side=True)
            self.scheme = "https"

    def start(self):
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    @property
    def port(self):
        return self.server_address[1]

    @property
    def url(self):
        """The provider's base_url: SCHEME://127.0.0.1:PORT/v1."""
        return f"{self.scheme}://127.0.0.1:{self.port}/v1"

    def close(self):
        self.shutdown()
        self.server_close()


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # TCP_NODELAY, as API servers set it. http.server sends the headers and the body in
    # two writes; with Nagle's algorithm on, the body of a reply on a kept-alive
    # connection waits for the client's delayed ACK of the headers: a 40 ms stall a
    # client that reuses its connections (thinker's four threads on one provider) pays
    # and a client that opens one per request (the Python reference) does not.
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def do_POST(self):  # noqa: N802 (http.server's naming)
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        server = self.server
        with server.lock:
            server.requests += 1
            n = server.requests
        if server.delay:
            time.sleep(server.delay)
        try:
            request = Request(raw, json.loads(raw or b"{}"), n)
            reply = server.answer(request)
            data = json.dumps({
                "id": "chatcmpl-bench", "object": "chat.completion",
                "model": reply.model or request.model,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": reply.content}}],
                "usage": {"prompt_tokens": reply.prompt_tokens,
                          "completion_tokens": reply.completion_tokens,
                          "total_tokens": reply.prompt_tokens + reply.completion_tokens},
            }).encode()
            status = 200
        except Exception as e:  # noqa: BLE001 — a bug here must show, not hang the tick
            print(f"{server.label} error: {e!r}", file=sys.stderr)
            data, status = b'{"error": {"message": "stand-in error"}}', 500
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
