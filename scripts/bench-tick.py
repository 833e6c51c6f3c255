#!/usr/bin/env python3
"""bench-tick.py — how long a whole `thinker tick` process takes, and how much memory.

Runs the real binary (release build) against an OpenAI-compatible stub server on
loopback, started in this process (http.server, one thread per request). Four threads,
each on its own model of the stub, no sources (so the figures are the tick itself: start,
config, state, four HTTP calls, aggregation, atomic write, journal), a fixed small
answer with `usage`.

  (a) instant answers: N ticks (default 30) after 2 warm-up ticks; median and p90 wall
      time of the whole process, and its peak RSS (the child's own VmHWM as it exits,
      read under ptrace; ru_maxrss from os.wait4 is shown too, but it counts this
      Python process's pages, see spawn()). Targets: median < 25 ms, peak RSS < 20 MB.
  (b) slow answers: every request answered after --delay seconds (default 1 s), the
      four concurrently; tick wall time / delay over a few runs. Target <= 1.10: the
      threads wait together, not one after the other.

All ticks of a phase share ONE state directory (as cron's ticks do: the state, ledger
and journal are read and written each time); each phase starts with a fresh one.

Usage:
  python3 scripts/bench-tick.py                      # cargo build --release, then bench
  python3 scripts/bench-tick.py --binary target/release/thinker --runs 50
Python 3 standard library only. Exits 0 (2 when the setup fails; with --strict, 1 when a
target is missed).
"""

import argparse
import ctypes
import http.server
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
THREADS = ("watcher", "librarian", "oracle", "dreamer")
ANSWER = {
    "findings": [{"summary": "The benchmark stub answered this thread", "importance": 4}],
    "reinforce": [],
    "suggest": "",
    "escalate": False,
}
TARGET_MEDIAN_MS = 25.0
TARGET_RSS_MB = 20.0
TARGET_RATIO = 1.10


class Stub(http.server.ThreadingHTTPServer):
    daemon_threads = True
    delay = 0.0
    requests = 0
    lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):  # noqa: N802 (http.server's naming)
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        with self.server.lock:
            self.server.requests += 1
        if self.server.delay:
            time.sleep(self.server.delay)
        reply = json.dumps({
            "id": "chatcmpl-bench", "object": "chat.completion",
            "model": body.get("model", "?"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": json.dumps(ANSWER)}}],
            "usage": {"prompt_tokens": 900, "completion_tokens": 40, "total_tokens": 940},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


def config_text(base_url: str) -> str:
    lines = [
        "[tick]", "deadline_seconds = 30", "thread_timeout_seconds = 20", "",
        "[providers.stub]", 'kind = "openai"', f'base_url = "{base_url}"',
        "retries = 0", "price_in = 0.5", "price_out = 1.5",
        # The stub stands for a remote API that takes the four calls at once (a loopback
        # provider is limited to one request at a time by default).
        "concurrency = 4", "",
    ]
    for t in THREADS:
        lines += [f"[threads.{t}]", f'model = "stub/{t}"', ""]
    return "\n".join(lines)


# Peak RSS. `ru_maxrss` from wait4 is not the child's own figure: Linux folds the
# high-water mark of the memory the child had before its exec (this Python process's,
# copied by fork, 20+ MB here) into it, so a /bin/true started from here "peaks" at
# Python's size. The exact figure is the child's VmHWM just before it exits, read while
# it is stopped at PTRACE_EVENT_EXIT (ptrace through ctypes: its own child, no privilege).
_libc = ctypes.CDLL(None, use_errno=True)
_libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
_libc.ptrace.restype = ctypes.c_long
PTRACE_TRACEME, PTRACE_CONT, PTRACE_SETOPTIONS = 0, 7, 0x4200
PTRACE_O_TRACEEXIT, PTRACE_EVENT_EXIT = 0x40, 6


def _traceme():
    _libc.ptrace(PTRACE_TRACEME, 0, None, None)  # on failure the child just runs untraced


def _vm_hwm_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return None


def spawn(argv, env, stderr, trace):
    """Runs argv to its end: (wall seconds, own peak RSS MB or None, ru_maxrss MB, code).

    Traced runs are for memory only: a preexec_fn makes Python fork (copying its 20 MB)
    instead of vfork, and the two ptrace stops add their share; that would be timed too.
    """
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=stderr, env=env, preexec_fn=_traceme if trace else None)
    traced, peak = False, None
    while True:
        _, status, usage = os.wait4(child.pid, 0)
        if not os.WIFSTOPPED(status):
            break
        sig, event = os.WSTOPSIG(status), status >> 16
        if sig == signal.SIGTRAP and not traced:  # stopped at its exec
            traced = True
            _libc.ptrace(PTRACE_SETOPTIONS, child.pid, None, PTRACE_O_TRACEEXIT)
            sig = 0
        elif sig == signal.SIGTRAP and event == PTRACE_EVENT_EXIT:
            peak = _vm_hwm_mb(child.pid)
            sig = 0
        _libc.ptrace(PTRACE_CONT, child.pid, None, sig)  # passes other signals on
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    # Linux reports ru_maxrss in KiB.
    return wall, peak, usage.ru_maxrss / 1024.0, child.returncode


def run_tick(binary: str, config: Path, state: Path, home: Path, trace=False):
    """One tick as a child process: (wall s, own peak RSS MB, ru_maxrss MB, code, stderr)."""
    env = {"HOME": str(home), "TZ": "UTC", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    with tempfile.TemporaryFile() as err:
        wall, peak, maxrss, code = spawn(
            [binary, "tick", "--config", str(config), "--state", str(state)], env, err, trace)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    return wall, peak, maxrss, code, stderr


def percentile(values, p):
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * p // 100))
    return ordered[int(rank) - 1]


def phase(binary, base, name, runs, warmup, trace=False):
    state = base / f"state-{name}"
    results = []
    for i in range(warmup + runs):
        wall, peak, maxrss, code, stderr = run_tick(
            binary, base / "thinker.toml", state, base, trace)
        if code != 0:
            print(f"{name}: tick {i + 1} exited {code}:\n{stderr}", file=sys.stderr)
            sys.exit(2)
        if i >= warmup:
            results.append((wall, peak, maxrss))
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", help="thinker binary (default: cargo build --release)")
    ap.add_argument("--runs", type=int, default=30, help="instant-answer ticks (default 30)")
    ap.add_argument("--slow-runs", type=int, default=5, help="slow-answer ticks (default 5)")
    ap.add_argument("--delay", type=float, default=1.0, help="slow answer delay, s (default 1)")
    ap.add_argument("--rss-runs", type=int, default=10,
                    help="traced ticks for peak RSS (default 10)")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args()

    binary = args.binary
    if not binary:
        print("building: cargo build --release", file=sys.stderr)
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=REPO, check=True)
        binary = str(REPO / "target" / "release" / "thinker")
    if not os.access(binary, os.X_OK):
        print(f"no executable at {binary}", file=sys.stderr)
        return 2

    server = Stub(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"

    with tempfile.TemporaryDirectory(prefix="thinker-bench-") as tmp:
        base = Path(tmp)
        (base / "thinker.toml").write_text(config_text(base_url))

        fast = phase(binary, base, "instant", args.runs, warmup=2)
        fast_requests = server.requests
        memory = phase(binary, base, "memory", args.rss_runs, warmup=0, trace=True)
        server.delay = args.delay
        slow = phase(binary, base, "slow", args.slow_runs, warmup=0)
        floor = spawn(["/bin/true"], {}, subprocess.DEVNULL, trace=False)[2]
    server.shutdown()

    walls_ms = [f[0] * 1000 for f in fast]
    peaks = [m[1] for m in memory if m[1] is not None]
    maxrss = max(f[2] for f in fast)
    ratios = [f[0] / args.delay for f in slow]
    med, p90 = statistics.median(walls_ms), percentile(walls_ms, 90)
    ratio_med, ratio_max = statistics.median(ratios), max(ratios)
    # Without ptrace, ru_maxrss is all there is: an upper bound, see spawn().
    rss_max = max(peaks) if peaks else maxrss
    rss_text = (f"{statistics.median(peaks):.1f} / {max(peaks):.1f} MB" if peaks
                else f"<= {maxrss:.1f} MB (ptrace unavailable)")

    def verdict(ok):
        return "ok" if ok else "MISSED"

    rows = [
        ("(a) wall, median", f"{med:.1f} ms", f"< {TARGET_MEDIAN_MS:.0f} ms",
         verdict(med < TARGET_MEDIAN_MS)),
        ("(a) wall, p90", f"{p90:.1f} ms", "", ""),
        ("(a) wall, min / max", f"{min(walls_ms):.1f} / {max(walls_ms):.1f} ms", "", ""),
        ("(a) peak RSS (VmHWM), median / max", rss_text, f"< {TARGET_RSS_MB:.0f} MB",
         verdict(rss_max < TARGET_RSS_MB)),
        ("(a) ru_maxrss (wait4), max", f"{maxrss:.1f} MB", "", f"floor {floor:.1f} MB"),
        (f"(b) wall / {args.delay:g} s, median", f"{ratio_med:.3f}", f"<= {TARGET_RATIO:.2f}",
         verdict(ratio_med <= TARGET_RATIO)),
        (f"(b) wall / {args.delay:g} s, max", f"{ratio_max:.3f}", "", ""),
    ]
    print(f"thinker tick benchmark: {binary}")
    print(f"(a) {len(fast)} timed ticks after 2 warm-up ticks, then {len(memory)} traced "
          f"for memory, instant answers ({fast_requests} requests in the timed ticks); "
          f"(b) {len(slow)} ticks, each answer after {args.delay:g} s. "
          f"One state directory per phase, shared by its ticks.")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    width = max(len(r[0]) for r in rows)
    print(f"\n{'measure':<{width}}  {'value':>16}  {'target':>9}  ")
    for name, value, target, ok in rows:
        print(f"{name:<{width}}  {value:>16}  {target:>9}  {ok}")
    missed = any(r[3] == "MISSED" for r in rows)
    return 1 if (missed and args.strict) else 0


if __name__ == "__main__":
    sys.exit(main())
