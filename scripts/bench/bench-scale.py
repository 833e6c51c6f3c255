#!/usr/bin/env python3
"""bench-scale.py — whole `thinker tick` processes at scale, and the figures around a
tick that need the real binary: what a tick costs when its sources are full, how it
grows with their number and size, what a tick's prompts weigh, how soon an event
surfaces, how fast a journal replays.

Sections (all by default; --sections picks some):

  caps       a tick with every source near its cap (a Maildir of 400 messages, an .ics of
             300 events in the window, 20 memory files and a transcript far over their
             byte caps, a command printing 1 MB, the system, an archive.jsonl of 1 MB)
             and a state at its token budget (18 entries of ~230 characters: ~1,900 of
             the 2,000 tokens, full thread histories, 10 escalation records): wall time
             and peak RSS, the state copied afresh before each tick.
  grid       a tick's wall time and peak RSS against the number of sources (1, 4, 16, 64
             `files` sources, spread over the four threads) and the size of each one's
             text (1 KiB to 1 MiB, each source's max_bytes set to its size: the text is
             read, cleaned, screened and sent whole).
  prompt     tokens per tick for the built-in prompts on a typical state (18 entries,
             a Maildir of 5 mails, a memory file, an archive, a calendar): `thinker
             prompt THREAD` per thread (bytes, bytes / 4, and llama-server's own count
             when one answers at $LLAMA_SERVER_URL, default http://127.0.0.1:8080), and
             the bytes of the request a tick actually sends (schema included).
  surfacing  from a new mail landing in the watched Maildir to its finding being in
             `thinker show --format prompt` and in the hook's answer: the tick that
             sees it plus the read, measured (the model answers at once here; the wait
             for the next cron tick, cadence / 2 on average, is added in the report).
  replay     ticks per second of `thinker replay --json` over a journal of --replay-ticks
             (10,000) real ticks; "n/a" when the binary has no `replay` command.

Every tick runs against an OpenAI-compatible stub on loopback (stub.py's, instant answers
with one finding; peak RSS is the child's own VmHWM, read under ptrace by proc.py as for
bench-tick.py). All times are whole processes (fork, exec, wait).

Usage:
  python3 scripts/bench/bench-scale.py --binary target/release/thinker --json out.json
  python3 scripts/bench/bench-scale.py --quick --sections caps,grid
Python 3 standard library only. Exits 0 (2 when the setup fails).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from datetime import datetime, timedelta, timezone
from pathlib import Path

import proc
import stub

REPO = Path(__file__).resolve().parents[2]

THREADS = ("watcher", "librarian", "oracle", "dreamer")
START = datetime(2026, 11, 22, 8, 0, tzinfo=timezone.utc)
PROSE = ("Following up on Tuesday's call: the vendor confirmed the delivery for the second "
         "week of December, and the budget review moves to Thursday. Please send comments "
         "on the draft by Friday noon; Maria will merge them into the final version.\n")
WORDS = ("backup database server disk invoice acme rent meeting deploy config mail alice "
         "budget friday night report printer laptop battery calendar garden flight tax "
         "dentist router certificate newsletter pipeline quarterly review").split()


def stamp(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def env_for(home: Path):
    return {"HOME": str(home), "TZ": "UTC", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}


class Server:
    """The stub (stub.py) with a settable answer: `answer(model, n)` when set, else
    stub.ANSWER; keeps the request bodies' sizes and models when asked."""

    def __init__(self):
        self.answer = None
        self.bodies = []
        self.keep_bodies = False
        self.lock = threading.Lock()
        self.stub = stub.Stub(self.reply).start()
        self.url = self.stub.url

    def reply(self, request):
        with self.lock:
            if self.keep_bodies:
                self.bodies.append((request.model, len(request.raw)))
        answer = self.answer(request.model, request.n) if self.answer else stub.ANSWER
        return stub.Reply(json.dumps(answer), len(request.raw) // 4, 40)

    def close(self):
        self.stub.close()


def provider(url, extra=""):
    return (f'[tick]\ndeadline_seconds = 600\nthread_timeout_seconds = 600\n'
            f'skip_unchanged = false\n\n[providers.stub]\nkind = "openai"\n'
            f'base_url = "{url}"\nretries = 0\nconcurrency = 4\ntimeout_seconds = 600\n'
            f'{extra}\n')


def thread_tables(sources_of):
    """`[threads.T]` tables, each with the TOML source tables sources_of(T) gives."""
    out = []
    for t in THREADS:
        out.append(f'[threads.{t}]\nmodel = "stub/{t}"\n')
        srcs = sources_of(t)
        if not srcs:
            out.append("sources = []\n")
        for src in srcs:
            out.append(f"[[threads.{t}.sources]]\n{src}\n")
    return "\n".join(out)


def run(argv, home, trace=False, stdin=None):
    """One process: (wall s, own peak RSS MB or None, exit code, stdout, stderr)."""
    if stdin is not None or not trace:
        start = time.perf_counter()
        done = subprocess.run(argv, input=stdin, capture_output=True, env=env_for(home),
                              check=False)
        wall = time.perf_counter() - start
        return wall, None, done.returncode, done.stdout, done.stderr.decode(errors="replace")
    with tempfile.TemporaryFile() as err:
        wall, peak, _, code = proc.spawn(argv, env_for(home), err, at_exit=proc.vm_hwm_mb)
        err.seek(0)
        return wall, peak, code, b"", err.read().decode(errors="replace")


def tick_argv(binary, home, now=None):
    argv = [binary, "tick", "--config", str(home / "thinker.toml"), "--state",
            str(home / "state")]
    return argv + (["--now", stamp(now)] if now else [])


def measure_ticks(binary, home, runs, traced, template=None):
    """Wall times (s) of `runs` ticks and peaks (MB) of `traced` ones; with a template
    state directory, each tick starts from a fresh copy of it."""
    walls, peaks = [], []
    for i in range(runs + traced):
        if template is not None:
            shutil.rmtree(home / "state", ignore_errors=True)
            shutil.copytree(template, home / "state")
        # Five minutes apart from the fixtures' morning: calendar windows and ages are
        # the same on every run, whatever the real time.
        now = START + timedelta(minutes=5 * (i + 1))
        wall, peak, code, _, err = run(tick_argv(binary, home, now), home, trace=i >= runs)
        if code != 0:
            sys.exit(f"tick exited {code} in {home}:\n{err}")
        (walls if i < runs else peaks).append(wall if i < runs else peak)
    peaks = [p for p in peaks if p is not None]
    return {"wall_ms_median": statistics.median(walls) * 1000,
            "wall_ms_min": min(walls) * 1000,
            "rss_mb_max": max(peaks) if peaks else None, "runs": runs}


# --- fixtures ---------------------------------------------------------------------------

def entry(prefix, n, strength, words=6):
    ws = [WORDS[(n * 7 + k * 3) % len(WORDS)] for k in range(words)]
    return {"id": f"{prefix}-{'-'.join(ws[:3])}-{n}", "summary": " ".join(ws) + f" item {n}",
            "strength": strength, "created": "2026-11-20T08:00:00Z",
            "last_seen": "2026-11-22T07:55:00Z", "source": "watcher"}


def state_json(words=6):
    """A full state at the default caps (18 entries); words=28 puts the memory just
    under its default token budget (~1,900 of 2,000 tokens)."""
    history = [[f"{WORDS[k]} {WORDS[k + 1]} finding of tick {h}" for k in range(3)]
               for h in range(3)]
    return {
        "version": 1, "tick_count": 400, "last_tick": "2026-11-22T07:55:00Z",
        "active_threads": [entry("t", n, 3 + n, words) for n in range(5)],
        "patterns": [entry("p", 10 + n, 2 + n, words) for n in range(5)],
        "hunches": [entry("h", 20 + n, 1 + n, words) for n in range(5)],
        "insights": [entry("i", 30 + n, 4 + n, words) for n in range(3)],
        "escalation_history": [
            {"timestamp": "2026-11-22T07:00:00Z", "thread": "watcher",
             "reason": f"Disk {90 + n}% full on the backup host",
             "outcome": "notified: the backup host disk is almost full"} for n in range(10)],
        "thread_state": {t: {"last_findings": history[0], "history": history,
                             "focus_hint": "look at the calendar; check the mail",
                             "novelty_pressure": 1} for t in THREADS},
    }


def mail(n, words=40):
    body = " ".join(WORDS[(n + k) % len(WORDS)] for k in range(words))
    date = (START - timedelta(minutes=n)).strftime("%a, %d %b %Y %H:%M:%S +0000")
    return (f"From: Anna <anna{n}@example.org>\r\nTo: sam@example.org\r\n"
            f"Subject: Update number {n} on the {WORDS[n % len(WORDS)]}\r\nDate: {date}\r\n"
            f"Message-ID: <{n}@example.org>\r\n\r\n{body}\r\n")


def maildir(path: Path, count, words=40):
    for d in ("cur", "new", "tmp"):
        (path / d).mkdir(parents=True, exist_ok=True)
    for n in range(count):
        (path / "cur" / f"{n}.M{n}P1.host:2,S").write_text(mail(n, words))


def calendar(path: Path, events):
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//bench//EN"]
    for n in range(events):
        at = START + timedelta(minutes=3 * n + 30)
        lines += ["BEGIN:VEVENT", f"UID:e{n}@bench", f"DTSTART:{at:%Y%m%dT%H%M%SZ}",
                  f"DTEND:{at + timedelta(minutes=30):%Y%m%dT%H%M%SZ}",
                  f"SUMMARY:Meeting {n} about the {WORDS[n % len(WORDS)]}",
                  f"LOCATION:Room {n % 12}", "END:VEVENT"]
    lines.append("END:VCALENDAR")
    path.write_text("\r\n".join(lines) + "\r\n")


def archive(path: Path, size):
    with path.open("w") as f:
        n = 0
        while f.tell() < size:
            e = entry("p", 100 + n, 0, 12)
            f.write(json.dumps(dict(e, removed_at="2026-11-21T10:00:00Z",
                                    reason="decayed")) + "\n")
            n += 1


def prose(size, seed=0):
    line = PROSE.replace("Tuesday", WORDS[seed % len(WORDS)])
    return (line * (size // len(line) + 1))[:size]


# --- sections ---------------------------------------------------------------------------

def section_caps(binary, server, base, quick):
    home = base / "caps"
    (home / "memory").mkdir(parents=True)
    maildir(home / "Mail", 100 if quick else 400, 200)
    calendar(home / "calendar.ics", 300)
    for n in range(20):
        (home / "memory" / f"2026-11-{n + 1:02}.md").write_text(prose(100_000, n))
    (home / "transcript.jsonl").write_text(prose(1_000_000))
    (home / "big.log").write_text(prose(1_000_000, 3))
    template = home / "template"
    template.mkdir(mode=0o700)
    state = state_json(28)
    (template / "subconscious.json").write_text(json.dumps(state, indent=2))
    # The budget's measure (bytes / 4 of the four categories as the file lays them out).
    memory = {k: state[k] for k in ("active_threads", "patterns", "hunches", "insights")}
    memory_tokens = len(json.dumps(memory, indent=2)) // 4
    archive(template / "archive.jsonl", 1_000_000)
    sources = {
        "watcher": ['kind = "system"',
                    f'kind = "maildir"\nname = "inbox"\npath = "{home / "Mail"}"',
                    f'kind = "command"\nname = "log"\ncommand = ["cat", "{home / "big.log"}"]'],
        "librarian": [f'kind = "files"\nname = "memory"\npaths = ["{home / "memory"}/*.md"]',
                      'kind = "archive"',
                      f'kind = "transcript"\npath = "{home / "transcript.jsonl"}"'],
        "oracle": [f'kind = "ics"\nname = "calendar"\npaths = ["{home / "calendar.ics"}"]\n'
                   f'hours = 72'],
        "dreamer": [],
    }
    (home / "thinker.toml").write_text(provider(server.url) + thread_tables(sources.get))
    server.keep_bodies, server.bodies = True, []
    run(tick_argv(binary, home, START), home)  # warm the page cache
    sent = sum(size for _, size in server.bodies)
    server.keep_bodies = False
    out = measure_ticks(binary, home, 3 if quick else 10, 2 if quick else 5, template)
    out.update(request_bytes=sent, memory_tokens=memory_tokens,
               state_bytes=len((template / "subconscious.json").read_bytes()),
               archive_bytes=(template / "archive.jsonl").stat().st_size)
    return out


def section_grid(binary, server, base, quick):
    counts = (1, 16) if quick else (1, 4, 16, 64)
    sizes = (1024, 64 * 1024) if quick else (1024, 16 * 1024, 256 * 1024, 1024 * 1024)
    rows = []
    for count in counts:
        for size in sizes:
            home = base / f"grid-{count}-{size}"
            (home / "src").mkdir(parents=True)
            per = {t: [] for t in THREADS}
            for n in range(count):
                path = home / "src" / f"{n}.txt"
                path.write_text(prose(size, n))
                per[THREADS[n % 4]].append(
                    f'kind = "files"\nname = "f{n}"\npaths = ["{path}"]\nmax_bytes = {size}')
            (home / "thinker.toml").write_text(provider(server.url) + thread_tables(per.get))
            big = count * size >= 16 * 1024 * 1024
            out = measure_ticks(binary, home, 1 if (quick or big) else 3, 1)
            rows.append(dict(out, sources=count, size=size))
            print(f"  grid {count} x {size}: {out['wall_ms_median']:.0f} ms, "
                  f"{out['rss_mb_max']} MB", file=sys.stderr)
    return rows


def typical_home(home: Path, url):
    (home / "memory").mkdir(parents=True)
    maildir(home / "Mail", 5)
    calendar(home / "calendar.ics", 4)
    (home / "memory" / "2026-11-21.md").write_text(
        "# Notes\n\nSam prefers calls in the morning. The dentist moved to Thursday 9:00.\n"
        "Budget review: send the numbers to Alice by Friday.\n")
    state = home / "state"
    state.mkdir(mode=0o700)
    (state / "subconscious.json").write_text(json.dumps(state_json(), indent=2))
    archive(state / "archive.jsonl", 4000)
    sources = {
        "watcher": ['kind = "system"', f'kind = "maildir"\nname = "inbox"\npath = "{home / "Mail"}"'],
        "librarian": [f'kind = "files"\nname = "memory"\npaths = ["{home / "memory"}/*.md"]',
                      'kind = "archive"'],
        "oracle": [f'kind = "ics"\nname = "calendar"\npaths = ["{home / "calendar.ics"}"]'],
        "dreamer": [],
    }
    (home / "thinker.toml").write_text(provider(url) + thread_tables(sources.get))


def llama_count(text):
    url = os.environ.get("LLAMA_SERVER_URL", "http://127.0.0.1:8080").rstrip("/")
    try:
        request = urllib.request.Request(f"{url}/tokenize", method="POST",
                                         data=json.dumps({"content": text}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as response:
            return len(json.load(response)["tokens"])
    except (OSError, ValueError, KeyError):
        return None


def section_prompt(binary, server, base, quick):
    home = base / "prompt"
    typical_home(home, server.url)
    rows = []
    for t in THREADS:
        _, _, code, out, err = run([binary, "prompt", t, "--now", stamp(START), "--config",
                                    str(home / "thinker.toml"), "--state",
                                    str(home / "state")], home, stdin=b"")
        if code != 0:
            sys.exit(f"thinker prompt {t} exited {code}: {err}")
        text = out.decode()
        rows.append({"thread": t, "bytes": len(out), "estimate": len(out) // 4,
                     "llama": llama_count(text)})
    server.keep_bodies, server.bodies = True, []
    _, _, code, _, err = run(tick_argv(binary, home, START), home)
    server.keep_bodies = False
    if code != 0:
        sys.exit(f"the typical tick exited {code}: {err}")
    request = dict(server.bodies)
    for row in rows:
        row["request_bytes"] = request.get(row["thread"])
    return rows


def section_surfacing(binary, server, base, quick):
    home = base / "surfacing"
    typical_home(home, server.url)
    config = (home / "thinker.toml").read_text().replace("skip_unchanged = false",
                                                         "skip_unchanged = true")
    (home / "thinker.toml").write_text(config)
    marker = {"summary": ""}

    def answer(model, n):
        findings = []
        if model == "watcher" and marker["summary"]:
            findings = [{"summary": marker["summary"], "importance": 8}]
        return {"findings": findings, "reinforce": [], "suggest": "", "escalate": False}

    server.answer = answer
    common = ["--config", str(home / "thinker.toml"), "--state", str(home / "state")]
    rows = []
    runs = 3 if quick else 10
    try:
        now = START
        run(tick_argv(binary, home, now), home)  # the world before the event
        for i in range(runs):
            now += timedelta(minutes=5)
            word = f"INV{4700 + i}"
            # Words of its own each time, so it never matches (reinforces) an earlier one.
            topic = " ".join(WORDS[(3 * i + k) % len(WORDS)] for k in range(3))
            marker["summary"] = f"Mail {word} about the {topic} is overdue"
            t0 = time.perf_counter()
            path = home / "Mail" / "new" / f"{1000 + i}.M1P1.host"
            path.write_text(mail(1000 + i).replace("Subject: Update", f"Subject: {word} Update"))
            _, _, code, _, err = run(tick_argv(binary, home, now), home)
            t1 = time.perf_counter()
            _, _, _, shown, _ = run([binary, "show", "--format", "prompt", "--now", stamp(now)]
                                    + common, home, stdin=b"")
            t2 = time.perf_counter()
            event = json.dumps({"session_id": f"bench-{i}", "cwd": str(home),
                                "hook_event_name": "UserPromptSubmit",
                                "prompt": f"what did mail {word} say about the {topic}?"}).encode()
            _, _, _, hooked, _ = run([binary, "hook", "claude-code", "--now", stamp(now)]
                                     + common, home, stdin=event)
            t3 = time.perf_counter()
            if code != 0 or word.encode() not in shown:
                sys.exit(f"surfacing run {i}: tick exit {code}, {word} not shown: {err}")
            rows.append({"tick_ms": (t1 - t0) * 1000, "show_ms": (t2 - t1) * 1000,
                         "hook_ms": (t3 - t2) * 1000, "in_hook": word.encode() in hooked})
            marker["summary"] = ""
    finally:
        server.answer = None
    return {"runs": runs,
            "tick_ms_median": statistics.median(r["tick_ms"] for r in rows),
            "show_ms_median": statistics.median(r["show_ms"] for r in rows),
            "hook_ms_median": statistics.median(r["hook_ms"] for r in rows),
            "in_hook": sum(r["in_hook"] for r in rows)}


def section_replay(binary, server, base, quick, ticks):
    home = base / "replay"
    probe = subprocess.run([binary, "replay", "--help"], capture_output=True, check=False)
    if probe.returncode != 0:
        return {"unsupported": "no `thinker replay` in this binary"}
    # No sources: the journal is what is measured, and sourceless ticks make it soonest.
    home.mkdir(parents=True)
    (home / "thinker.toml").write_text(provider(server.url) + thread_tables(lambda t: []))

    def answer(model, n):
        return {"findings": [{"summary": f"{WORDS[(n * 7) % len(WORDS)]} "
                                         f"{WORDS[(n * 3 + 1) % len(WORDS)]} needs a look "
                                         f"{n % 40}", "importance": n % 10}],
                "reinforce": [], "suggest": "", "escalate": n % 97 == 0,
                "escalate_reason": "the backup host disk is almost full"}

    server.answer = answer
    try:
        now = START
        built = time.perf_counter()
        for n in range(ticks):
            _, _, code, _, err = run(tick_argv(binary, home, now), home)
            if code not in (0, 3):
                sys.exit(f"replay journal tick {n} exited {code}: {err}")
            now += timedelta(minutes=5)
        built = time.perf_counter() - built
    finally:
        server.answer = None
    common = ["--config", str(home / "thinker.toml"), "--state", str(home / "state")]
    walls, peak = [], None
    for i in range(3 if quick else 5):
        wall, p, code, _, err = run([binary, "replay", "--json"] + common, home, trace=i == 0)
        if code != 0:
            return {"unsupported": f"`thinker replay --json` exited {code}: {err.strip()[:200]}"}
        if i == 0:
            peak = p
        else:
            walls.append(wall)
    wall = statistics.median(walls)
    return {"ticks": ticks, "wall_ms_median": wall * 1000, "ticks_per_s": ticks / wall,
            "rss_mb": peak, "journal_build_s": built}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", help="thinker binary (default: cargo build --release)")
    ap.add_argument("--sections", default="caps,grid,prompt,surfacing,replay")
    ap.add_argument("--quick", action="store_true", help="fewer runs and a smaller grid")
    ap.add_argument("--replay-ticks", type=int, default=10_000)
    ap.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = ap.parse_args()
    binary = args.binary
    if not binary:
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=REPO, check=True)
        binary = str(REPO / "target" / "release" / "thinker")
    server = Server()
    results = {}
    with tempfile.TemporaryDirectory(prefix="thinker-bench-scale-") as tmp:
        base = Path(tmp)
        for name in args.sections.split(","):
            began = time.perf_counter()
            if name == "replay":
                results[name] = section_replay(binary, server, base, args.quick,
                                               args.replay_ticks)
            else:
                section = globals()[f"section_{name}"]
                results[name] = section(binary, server, base, args.quick)
            print(f"{name} ({time.perf_counter() - began:.0f} s): "
                  f"{json.dumps(results[name])}")
    server.close()
    results["load_average"] = os.getloadavg()
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
