#!/usr/bin/env python3
"""bench-idle.py — tokens a day at the default cadence: what idleness costs.

Runs a simulated day of ticks (every 5 minutes, 288 ticks, `--now` stepping from 00:00
UTC) of the real binary against a counting OpenAI-compatible stub on loopback, in three
worlds:

  (off)   the quiet tick off (`skip_unchanged = false`): every due thread is called;
  (idle)  the quiet tick on, nothing changes all day;
  (mail)  the quiet tick on, one new mail an hour in the watched Maildir.

Threads as in config/default.toml: the Watcher every tick (system + a Maildir), the
Librarian every tick (memory files + the archive), the Oracle every 3rd tick (a calendar
file), the Dreamer every 6th outside 23:00-07:00 (no sources). The stub answers "nothing
found" and reports usage as the request's bytes / 4 in and 30 out, so the token figures
are the size of what thinker sends. Prints requests and tokens per day for each world.

Usage:
  python3 scripts/bench-idle.py                       # cargo build --release, then run
  python3 scripts/bench-idle.py --binary target/debug/thinker
Python 3 standard library only.
"""

import argparse
import http.server
import json
import subprocess
import sys
import tempfile
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ANSWER = {"findings": [], "reinforce": [], "suggest": "", "escalate": False}


class Stub(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.lock = threading.Lock()
        self.reset()

    def reset(self):
        self.requests = 0
        self.tokens = 0


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        req = json.loads(body)
        tokens_in = len(body) // 4
        with self.server.lock:
            self.server.requests += 1
            self.server.tokens += tokens_in + 30
        answer = {
            "id": "x", "object": "chat.completion", "model": req.get("model", "m"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": json.dumps(ANSWER)}}],
            "usage": {"prompt_tokens": tokens_in, "completion_tokens": 30,
                      "total_tokens": tokens_in + 30},
        }
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


MAIL = """From: Anna <anna@example.org>\r
To: sam@example.org\r
Subject: Update number {n}\r
Date: {date}\r
Message-ID: <{n}@example.org>\r
\r
Here is update number {n} on the project.\r
"""

CALENDAR = """BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//bench//EN\r
BEGIN:VEVENT\r
UID:dentist@bench\r
DTSTART:20261123T150000Z\r
DTEND:20261123T154500Z\r
SUMMARY:Dentist\r
END:VEVENT\r
END:VCALENDAR\r
"""


def config(home: Path, url: str, quiet: bool) -> str:
    return f"""
[tick]
deadline_seconds = 60
thread_timeout_seconds = 30
skip_unchanged = {"true" if quiet else "false"}

[providers.stub]
kind = "openai"
base_url = "{url}/v1"
retries = 0

[threads.watcher]
model = "stub/watcher"
[[threads.watcher.sources]]
kind = "system"
[[threads.watcher.sources]]
kind = "maildir"
name = "inbox"
path = "{home / 'Mail'}"

[threads.librarian]
model = "stub/librarian"
[[threads.librarian.sources]]
kind = "files"
name = "memory"
paths = ["{home / 'memory'}/*.md"]
[[threads.librarian.sources]]
kind = "archive"

[threads.oracle]
model = "stub/oracle"
every = 3
[[threads.oracle.sources]]
kind = "ics"
name = "calendar"
paths = ["{home / 'calendar.ics'}"]

[threads.dreamer]
model = "stub/dreamer"
every = 6
quiet_hours = ["23:00-07:00"]
sources = []
"""


def day(binary: str, stub: Stub, quiet: bool, mail_every: int | None) -> tuple[int, int]:
    stub.reset()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        for d in ("Mail/cur", "Mail/new", "Mail/tmp", "memory"):
            (home / d).mkdir(parents=True)
        (home / "memory/2026-11-20.md").write_text("Sam prefers mornings for calls.\n")
        (home / "calendar.ics").write_text(CALENDAR)
        url = f"http://127.0.0.1:{stub.server_address[1]}"
        (home / "thinker.toml").write_text(config(home, url, quiet))
        start = datetime(2026, 11, 22, tzinfo=timezone.utc)
        for n in range(288):
            now = start + timedelta(minutes=5 * n)
            # Mid-hour, so that a mail never lands on the tick of a thread's hourly call.
            if mail_every and n % mail_every == mail_every // 2:
                date = now.strftime("%a, %d %b %Y %H:%M:%S +0000")
                (home / f"Mail/new/{n}.M1P1.host").write_text(MAIL.format(n=n, date=date))
            stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ")
            r = subprocess.run(
                [binary, "tick", "--now", stamp, "--config", str(home / "thinker.toml"),
                 "--state", str(home / "state"), "-q"],
                capture_output=True, text=True,
                env={"HOME": str(home), "TZ": "UTC", "PATH": "/usr/bin:/bin"},
            )
            if r.returncode not in (0, 3):
                sys.exit(f"tick {n} exited {r.returncode}: {r.stderr}")
    return stub.requests, stub.tokens


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--binary")
    args = p.parse_args()
    binary = args.binary
    if not binary:
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=REPO, check=True)
        binary = str(REPO / "target/release/thinker")
    stub = Stub()
    threading.Thread(target=stub.serve_forever, daemon=True).start()
    worlds = [
        ("quiet tick off, nothing changes", False, None),
        ("quiet tick on, nothing changes", True, None),
        ("quiet tick on, one mail an hour", True, 12),
    ]
    print(f"{'world':<36} {'requests/day':>12} {'tokens/day':>11}")
    for name, quiet, mail in worlds:
        requests, tokens = day(binary, stub, quiet, mail)
        print(f"{name:<36} {requests:>12} {tokens:>11}")


if __name__ == "__main__":
    main()
