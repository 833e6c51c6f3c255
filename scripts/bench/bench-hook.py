#!/usr/bin/env python3
"""bench-hook.py — how long the agent-facing commands take as whole processes, against
a bare `thinker --version` (the cost of starting the binary at all).

Hooks run on every prompt, so `thinker show --format prompt --for TEXT` and
`thinker hook claude-code` must cost about what starting the process costs. Target:
`show --format prompt --for` median under 2x `--version`'s.

The state is a full one (every category at its default cap: 18 entries, some due, a few
escalation records, ~6 KB), in a temp state directory; `--config /dev/null` (no config
to read beyond locating the state). Each command is run N times (default 200) after 10
warm-up runs, interleaved so load changes hit every command alike; median and p90 of the
wall time, measured around fork+exec+wait.

Usage:
  python3 scripts/bench/bench-hook.py                     # cargo build --release, then bench
  python3 scripts/bench/bench-hook.py --binary target/release/thinker --runs 500
  python3 scripts/bench/bench-hook.py --json out.json     # also the figures as JSON (bench.sh)
Python 3 standard library only. Exits 0 (2 when the setup fails; with --strict, 1 when
the target is missed).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NOW = "2026-11-22T10:05:00Z"
WORDS = ("backup database server disk invoice acme rent meeting deploy config mail "
         "alice budget friday night report printer laptop battery calendar").split()


def entry(prefix, n, strength, due=None):
    words = [WORDS[(n * 7 + k * 3) % len(WORDS)] for k in range(6)]
    e = {
        "id": f"{prefix}-{'-'.join(words[:3])}-{n}",
        "summary": " ".join(words) + f" item {n}",
        "strength": strength,
        "created": "2026-11-20T08:00:00Z",
        "last_seen": "2026-11-22T10:00:00Z",
        "source": "watcher",
    }
    if due:
        e["due"] = due
    return e


def full_state():
    return {
        "version": 1,
        "tick_count": 400,
        "last_tick": "2026-11-22T10:00:00Z",
        "active_threads": [entry("t", n, 3 + n, "2026-11-24T09:00:00Z" if n % 2 else None)
                           for n in range(5)],
        "patterns": [entry("p", 10 + n, 2 + n) for n in range(5)],
        "hunches": [entry("h", 20 + n, 1 + n) for n in range(5)],
        "insights": [entry("i", 30 + n, 4 + n) for n in range(3)],
        "escalation_history": [
            {"timestamp": "2026-11-22T09:00:00Z", "thread": "watcher",
             "reason": f"Disk {90 + n}% full on the backup host",
             "outcome": "notified: the backup host disk is almost full"} for n in range(5)
        ],
        "thread_state": {},
    }


def time_once(argv, stdin_bytes=None):
    start = time.perf_counter()
    done = subprocess.run(argv, input=stdin_bytes, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{argv} exited {done.returncode}: {done.stderr.decode(errors='replace')}")
    return elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", help="the thinker binary (default: build target/release)")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--strict", action="store_true", help="exit 1 when the target is missed")
    ap.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = ap.parse_args()

    root = Path(__file__).resolve().parents[2]
    binary = args.binary
    if not binary:
        built = subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=root, check=False)
        if built.returncode != 0:
            print("cargo build --release failed", file=sys.stderr)
            return 2
        binary = str(root / "target" / "release" / "thinker")

    with tempfile.TemporaryDirectory(prefix="thinker-bench-hook-") as tmp:
        state = Path(tmp) / "state"
        state.mkdir(mode=0o700)
        (state / "subconscious.json").write_text(json.dumps(full_state(), indent=2))
        common = ["--config", "/dev/null", "--state", str(state)]
        prompt = "the nightly backup of the database server failed again, see the deploy config"
        event = json.dumps({"session_id": "bench", "cwd": tmp, "prompt": prompt,
                            "hook_event_name": "UserPromptSubmit"}).encode()
        commands = {
            "--version": ([binary, "--version"], None),
            "show --format prompt": ([binary, "show", "--format", "prompt", "--now", NOW] + common, None),
            "show --format prompt --for": (
                [binary, "show", "--format", "prompt", "--for", prompt, "--now", NOW] + common, None),
            # The same block each time: after the first run the hook reads its session
            # record and answers nothing (the common case on a long session).
            "hook claude-code (UserPromptSubmit)": (
                [binary, "hook", "claude-code", "--now", NOW] + common, event),
        }
        times = {name: [] for name in commands}
        for _ in range(10):
            for argv, stdin in commands.values():
                time_once(argv, stdin)
        for _ in range(args.runs):
            for name, (argv, stdin) in commands.items():
                times[name].append(time_once(argv, stdin))

    base = statistics.median(times["--version"])
    print(f"{args.runs} runs each, load average {os.getloadavg()[0]:.2f}")
    print(f"{'command':<40} {'median':>9} {'p90':>9} {'/ --version':>12}")
    for name, ts in times.items():
        ts.sort()
        median = statistics.median(ts)
        p90 = ts[int(len(ts) * 0.9) - 1]
        print(f"{name:<40} {median * 1000:7.2f}ms {p90 * 1000:7.2f}ms {median / base:11.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "runs": args.runs,
            "load_average": os.getloadavg(),
            "commands": [{"command": name,
                          "median_ms": statistics.median(ts) * 1000,
                          "p90_ms": ts[int(len(ts) * 0.9) - 1] * 1000,
                          "ratio": statistics.median(ts) / base} for name, ts in times.items()],
        }, indent=2))
    ratio = statistics.median(times["show --format prompt --for"]) / base
    ok = ratio < 2.0
    print(f"target: show --format prompt --for < 2x --version: {'met' if ok else 'MISSED'} ({ratio:.2f}x)")
    return 1 if args.strict and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
