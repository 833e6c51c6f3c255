#!/usr/bin/env python3
"""bench-idle.py — tokens a day at the default cadence: what idleness costs.

Runs a simulated day of ticks (every 5 minutes, 288 ticks, `--now` stepping from 00:00
UTC) of the real binary against a counting OpenAI-compatible stub on loopback, in four
worlds:

  (off)   the quiet tick off (`skip_unchanged = false`): every due thread is called;
  (idle)  the quiet tick on, nothing changes all day;
  (mail)  the quiet tick on, one new mail an hour in the watched Maildir;
  (busy)  the quiet tick on, a new mail every tick, and every answer brings two findings
          (so the memory fills up and every prompt carries a full subconscious).

Sources: the Watcher system + a Maildir, the Librarian memory files + the archive, the
Oracle a calendar file, the Dreamer none. Cadence (`every`, `quiet_hours`) and models as
in config/default.toml (read from it); the cost is each thread's tokens at the prices of
its model's provider there (a provider without prices, such as a local Ollama, is free).
The stub reports usage as the request's bytes / 4 in and the answer's bytes / 4 out (at
least 30), so the token figures are the size of what thinker sends. Prints requests,
tokens and cost per day for each world.

Usage:
  python3 scripts/bench/bench-idle.py                       # cargo build --release, then run
  python3 scripts/bench/bench-idle.py --binary target/debug/thinker
  python3 scripts/bench/bench-idle.py --ticks 72 --json out.json   # a quarter day, scaled
Python 3 standard library only.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import tomllib
from datetime import datetime, timedelta, timezone
from pathlib import Path

import stub

REPO = Path(__file__).resolve().parents[2]
ANSWER = {"findings": [], "reinforce": [], "suggest": "", "escalate": False}


class Counter:
    """The stub's answers (empty, or two findings when busy) and what it counted: usage
    is the request's bytes / 4 in and the answer's bytes / 4 out (at least 30)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.reset()

    def reset(self, findings=False):
        self.requests = 0
        self.tokens = 0
        self.findings = findings
        # model -> [requests, tokens in, tokens out]
        self.by_model = {}

    def answer(self, request):
        tokens_in = len(request.raw) // 4
        with self.lock:
            self.requests += 1
            n = self.requests
        content = ANSWER
        if self.findings:
            content = dict(ANSWER, findings=[
                {"summary": f"Anna's update number {n} needs a reply by {day}",
                 "importance": 5} for day in ("friday", "monday")])
        content = json.dumps(content)
        tokens_out = max(30, len(content) // 4)
        with self.lock:
            self.tokens += tokens_in + tokens_out
            counts = self.by_model.setdefault(request.model, [0, 0, 0])
            counts[0] += 1
            counts[1] += tokens_in
            counts[2] += tokens_out
        return stub.Reply(content, tokens_in, tokens_out)


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


def config(home: Path, url: str, quiet: bool, cadence: dict) -> str:
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
{cadence['watcher']}
[[threads.watcher.sources]]
kind = "system"
[[threads.watcher.sources]]
kind = "maildir"
name = "inbox"
path = "{home / 'Mail'}"

[threads.librarian]
model = "stub/librarian"
{cadence['librarian']}
[[threads.librarian.sources]]
kind = "files"
name = "memory"
paths = ["{home / 'memory'}/*.md"]
[[threads.librarian.sources]]
kind = "archive"

[threads.oracle]
model = "stub/oracle"
{cadence['oracle']}
[[threads.oracle.sources]]
kind = "ics"
name = "calendar"
paths = ["{home / 'calendar.ics'}"]

[threads.dreamer]
model = "stub/dreamer"
{cadence['dreamer']}
sources = []
"""


def defaults():
    """Cadence lines and (price_in, price_out) per thread, from config/default.toml."""
    config = tomllib.loads((REPO / "config" / "default.toml").read_text())
    cadence, prices = {}, {}
    for thread in ("watcher", "librarian", "oracle", "dreamer"):
        table = config["threads"][thread]
        lines = []
        if "every" in table:
            lines.append(f"every = {table['every']}")
        if "quiet_hours" in table:
            lines.append(f"quiet_hours = {json.dumps(table['quiet_hours'])}")
        cadence[thread] = "\n".join(lines)
        provider = config["providers"].get(table["model"].split("/", 1)[0], {})
        prices[thread] = (provider.get("price_in", 0.0), provider.get("price_out", 0.0),
                          table["model"])
    return cadence, prices


def day(binary, server, counter, quiet, mail_every, busy, ticks, cadence):
    counter.reset(findings=busy)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        for d in ("Mail/cur", "Mail/new", "Mail/tmp", "memory"):
            (home / d).mkdir(parents=True)
        (home / "memory/2026-11-20.md").write_text("Sam prefers mornings for calls.\n")
        (home / "calendar.ics").write_text(CALENDAR)
        url = f"http://127.0.0.1:{server.port}"
        (home / "thinker.toml").write_text(config(home, url, quiet, cadence))
        start = datetime(2026, 11, 22, tzinfo=timezone.utc)
        for n in range(ticks):
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
    return counter.requests, counter.tokens, dict(counter.by_model)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--binary")
    p.add_argument("--ticks", type=int, default=288,
                   help="ticks simulated (default 288, a day); figures scaled to a day")
    p.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = p.parse_args()
    binary = args.binary
    if not binary:
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=REPO, check=True)
        binary = str(REPO / "target/release/thinker")
    cadence, prices = defaults()
    counter = Counter()
    server = stub.Stub(counter.answer).start()
    worlds = [
        ("quiet tick off, nothing changes", False, None, False),
        ("quiet tick on, nothing changes", True, None, False),
        ("quiet tick on, one mail an hour", True, 12, False),
        ("busy: a mail every tick, two findings an answer", True, 1, True),
    ]
    scale = 288 / args.ticks
    rows = []
    print(f"{'world':<50} {'requests/day':>12} {'tokens/day':>11} {'USD/day':>9}")
    for name, quiet, mail, busy in worlds:
        requests, tokens, by_model = day(binary, server, counter, quiet, mail, busy, args.ticks,
                                         cadence)
        cost = 0.0
        for thread, (price_in, price_out, _) in prices.items():
            _, tin, tout = by_model.get(thread, (0, 0, 0))
            cost += (tin * price_in + tout * price_out) / 1e6
        row = {"world": name, "requests": round(requests * scale),
               "tokens": round(tokens * scale), "cost_usd": cost * scale,
               "by_thread": {t: {"requests": round(c[0] * scale),
                                 "tokens_in": round(c[1] * scale),
                                 "tokens_out": round(c[2] * scale)}
                             for t, c in by_model.items()}}
        rows.append(row)
        print(f"{name:<50} {row['requests']:>12} {row['tokens']:>11} {row['cost_usd']:>9.4f}")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "ticks": args.ticks, "scaled_to_day": scale != 1,
            "models": {t: {"model": m, "price_in": pi, "price_out": po}
                       for t, (pi, po, m) in prices.items()},
            "cadence": cadence, "worlds": rows}, indent=2))


if __name__ == "__main__":
    main()
