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
      Python process's pages, see proc.py). Targets: median < 25 ms, peak RSS < 20 MB.
  (b) slow answers: every request answered after --delay seconds (default 1 s), the
      four concurrently; tick wall time / delay over a few runs. Target <= 1.10: the
      threads wait together, not one after the other.

  (reference) with --reference: the same phases run by scripts/bench/reference_tick.py, the
      minimal Python orchestrator users would otherwise write, on the same config and
      stub, in the same run (what it does not do: its docstring).
  (default) with --reference: the threads' default sources (no `sources` key: the
      Watcher the system, the Librarian the archive, the Dreamer a sample of them), the
      thinker tick and the reference taking turns (A B A B …, after a warm-up of each),
      --runs pairs; the ratio thinker / reference pair by pair, its median against the
      target <= 0.15 (the reference gathers no source: it is the same floor).
  (https) with --https: the instant phase against the same stub behind TLS (python
      `ssl`, a self-signed certificate made by `openssl req -x509`, trusted through the
      provider's `ca_file`); a binary without the `ca_file` key is reported "n/a".

All ticks of a phase share ONE state directory (as cron's ticks do: the state, ledger
and journal are read and written each time); each phase starts with a fresh one.

Usage:
  python3 scripts/bench/bench-tick.py                      # cargo build --release, then bench
  python3 scripts/bench/bench-tick.py --binary target/release/thinker --runs 50
  python3 scripts/bench/bench-tick.py --reference --https --json out.json   # as bench.sh does
Python 3 standard library only. Exits 0 (2 when the setup fails; with --strict, 1 when a
target is missed).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import proc
import stub

REPO = Path(__file__).resolve().parents[2]
THREADS = ("watcher", "librarian", "oracle", "dreamer")
TARGET_MEDIAN_MS = 25.0
TARGET_RSS_MB = 20.0
TARGET_RATIO = 1.10
TARGET_VS_REFERENCE = 0.15


def config_text(base_url: str, sources=False) -> str:
    lines = [
        # The quiet tick off: every tick calls the four threads (on, a world that never
        # changes would skip them all after the first tick).
        "[tick]", "deadline_seconds = 30", "thread_timeout_seconds = 20",
        "skip_unchanged = false", "",
        "[providers.stub]", 'kind = "openai"', f'base_url = "{base_url}"',
        "retries = 0", "price_in = 0.5", "price_out = 1.5",
        # The stub stands for a remote API that takes the four calls at once (a loopback
        # provider is limited to one request at a time by default).
        "concurrency = 4", "",
    ]
    # `sources = []`: a thread without the key gets its default sources (the Watcher the
    # system, the Librarian the archive, the Dreamer a sample of the others'): the
    # `default` phase (sources=True).
    for t in THREADS:
        lines += [f"[threads.{t}]", f'model = "stub/{t}"'] + ([] if sources else ["sources = []"])
        lines.append("")
    return "\n".join(lines)


def run_tick(argv, home: Path, trace=False):
    """One tick as a child process: (wall s, own peak RSS MB, ru_maxrss MB, code, stderr)."""
    env = {"HOME": str(home), "TZ": "UTC", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    with tempfile.TemporaryFile() as err:
        wall, peak, maxrss, code = proc.spawn(argv, env, err,
                                              at_exit=proc.vm_hwm_mb if trace else None)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    return wall, peak, maxrss, code, stderr


def thinker_argv(binary, config: Path):
    return lambda state: [binary, "tick", "--config", str(config), "--state", str(state)]


def reference_argv(config: Path):
    """The Python reference orchestrator (scripts/bench/reference_tick.py) on the same config."""
    script = str(Path(__file__).resolve().parent / "reference_tick.py")
    return lambda state: [sys.executable, script, "--config", str(config), "--state", str(state)]


def percentile(values, p):
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * p // 100))
    return ordered[int(rank) - 1]


def phase(argv_for, base, name, runs, warmup, trace=False, fail_ok=False):
    """Runs warmup + runs ticks on one state directory; their (wall, peak, maxrss).

    With fail_ok, a first tick that fails returns its stderr instead of exiting."""
    state = base / f"state-{name}"
    results = []
    for i in range(warmup + runs):
        wall, peak, maxrss, code, stderr = run_tick(argv_for(state), base, trace)
        if code != 0:
            if fail_ok and i == 0:
                return stderr
            print(f"{name}: tick {i + 1} exited {code}:\n{stderr}", file=sys.stderr)
            sys.exit(2)
        if i >= warmup:
            results.append((wall, peak, maxrss))
    return results


def paired(a_for, b_for, base, name, runs, warmup=2):
    """A and B ticks taking turns, each on its own state directory: their walls (s) and
    the ratios A/B pair by pair."""
    states = (base / f"state-{name}-a", base / f"state-{name}-b")
    walls_a, walls_b = [], []
    for i in range(warmup + runs):
        pair = []
        for argv_for, state in zip((a_for, b_for), states):
            wall, _, _, code, stderr = run_tick(argv_for(state), base)
            if code != 0:
                print(f"{name}: tick {i + 1} exited {code}:\n{stderr}", file=sys.stderr)
                sys.exit(2)
            pair.append(wall)
        if i >= warmup:
            walls_a.append(pair[0])
            walls_b.append(pair[1])
    return walls_a, walls_b, [a / b for a, b in zip(walls_a, walls_b)]


def self_signed(base: Path):
    """A self-signed certificate for 127.0.0.1 (openssl req -x509): (cert, key) or None."""
    cert, key = base / "stub-cert.pem", base / "stub-key.pem"
    made = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert),
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
         "-addext", "basicConstraints=critical,CA:FALSE",
         "-addext", "extendedKeyUsage=serverAuth"],
        capture_output=True, check=False)
    return (cert, key) if made.returncode == 0 else None


def summary(fast, memory, slow, delay):
    """The figures of one orchestrator's phases, as a dict (None where not measured)."""
    walls_ms = [f[0] * 1000 for f in fast]
    peaks = [m[1] for m in memory if m[1] is not None]
    out = {
        "runs": len(fast),
        "wall_ms_median": statistics.median(walls_ms),
        "wall_ms_p90": percentile(walls_ms, 90),
        "wall_ms_min": min(walls_ms),
        "wall_ms_max": max(walls_ms),
        "rss_mb_median": statistics.median(peaks) if peaks else None,
        "rss_mb_max": max(peaks) if peaks else None,
        "ru_maxrss_mb_max": max(f[2] for f in fast),
    }
    if slow:
        ratios = [f[0] / delay for f in slow]
        out.update(ratio_median=statistics.median(ratios), ratio_max=max(ratios),
                   slow_runs=len(slow))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", help="thinker binary (default: cargo build --release)")
    ap.add_argument("--runs", type=int, default=30, help="instant-answer ticks (default 30)")
    ap.add_argument("--slow-runs", type=int, default=5, help="slow-answer ticks (default 5)")
    ap.add_argument("--delay", type=float, default=1.0, help="slow answer delay, s (default 1)")
    ap.add_argument("--rss-runs", type=int, default=10,
                    help="traced ticks for peak RSS (default 10)")
    ap.add_argument("--reference", action="store_true",
                    help="also run scripts/bench/reference_tick.py the same way, side by side")
    ap.add_argument("--https", action="store_true",
                    help="also tick against an https stub (self-signed, provider ca_file)")
    ap.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
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

    server = stub.Stub(stub.fixed(stub.ANSWER, 900, 40)).start()
    base_url = server.url
    results = {"delay_s": args.delay}

    with tempfile.TemporaryDirectory(prefix="thinker-bench-") as tmp:
        base = Path(tmp)
        config = base / "thinker.toml"
        config.write_text(config_text(base_url))
        thinker = thinker_argv(binary, config)

        fast = phase(thinker, base, "instant", args.runs, warmup=2)
        fast_requests = server.requests
        memory = phase(thinker, base, "memory", args.rss_runs, warmup=0, trace=True)
        if args.reference:
            reference = reference_argv(config)
            ref_fast = phase(reference, base, "ref-instant", args.runs, warmup=2)
            ref_memory = phase(reference, base, "ref-memory", args.rss_runs, warmup=0,
                               trace=True)
        if args.reference:
            default_config = base / "thinker-default.toml"
            default_config.write_text(config_text(base_url, sources=True))
            a, b, ratios = paired(thinker_argv(binary, default_config),
                                  reference_argv(default_config), base, "default", args.runs)
            ms = [x * 1000 for x in a]
            results["default_sources"] = {
                "runs": len(ratios),
                "wall_ms_median": statistics.median(ms),
                "wall_ms_p90": percentile(ms, 90),
                "reference_wall_ms_median": statistics.median(x * 1000 for x in b),
                "ratio_median": statistics.median(ratios),
                "ratio_max": max(ratios),
            }
        server.delay = args.delay
        slow = phase(thinker, base, "slow", args.slow_runs, warmup=0)
        if args.reference:
            ref_slow = phase(reference, base, "ref-slow", args.slow_runs, warmup=0)
            results["reference"] = summary(ref_fast, ref_memory, ref_slow, args.delay)
        server.delay = 0.0
        if args.https:
            results["https"] = https_phase(binary, base, args)
        floor = proc.spawn(["/bin/true"], {})[2]
    server.close()

    results["thinker"] = summary(fast, memory, slow, args.delay)
    results["load_average"] = os.getloadavg()
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))

    t = results["thinker"]
    med, p90, maxrss = t["wall_ms_median"], t["wall_ms_p90"], t["ru_maxrss_mb_max"]
    ratio_med, ratio_max = t["ratio_median"], t["ratio_max"]
    peaks = [m[1] for m in memory if m[1] is not None]
    # Without ptrace, ru_maxrss is all there is: an upper bound, see proc.py.
    rss_max = max(peaks) if peaks else maxrss
    rss_text = (f"{statistics.median(peaks):.1f} / {max(peaks):.1f} MB" if peaks
                else f"<= {maxrss:.1f} MB (ptrace unavailable)")

    def verdict(ok):
        return "ok" if ok else "MISSED"

    walls_ms = [f[0] * 1000 for f in fast]
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
    if args.reference:
        r = results["reference"]
        rows += [
            ("reference (Python): (a) wall, median / p90",
             f"{r['wall_ms_median']:.1f} / {r['wall_ms_p90']:.1f} ms", "", ""),
            ("reference (Python): (a) peak RSS, median / max",
             f"{r['rss_mb_median'] or 0:.1f} / {r['rss_mb_max'] or 0:.1f} MB", "", ""),
            (f"reference (Python): (b) wall / {args.delay:g} s, median",
             f"{r['ratio_median']:.3f}", "", ""),
        ]
        d = results["default_sources"]
        rows += [
            ("default sources: wall median / p90",
             f"{d['wall_ms_median']:.1f} / {d['wall_ms_p90']:.1f} ms", "", ""),
            ("default sources: reference (Python) wall, median",
             f"{d['reference_wall_ms_median']:.1f} ms", "", ""),
            ("default sources: thinker / reference, median (max) of pairs",
             f"{d['ratio_median']:.3f} ({d['ratio_max']:.3f})",
             f"<= {TARGET_VS_REFERENCE:.2f}", verdict(d["ratio_median"] <= TARGET_VS_REFERENCE)),
        ]
    if args.https:
        h = results["https"]
        if h.get("unsupported"):
            rows.append(("https (ca_file)", "n/a", "", h["unsupported"]))
        else:
            rows += [
                ("https (ca_file): (a) wall, median / p90",
                 f"{h['wall_ms_median']:.1f} / {h['wall_ms_p90']:.1f} ms", "", ""),
                ("https (ca_file): (a) peak RSS, median / max",
                 f"{h['rss_mb_median'] or 0:.1f} / {h['rss_mb_max'] or 0:.1f} MB", "", ""),
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


def https_phase(binary, base: Path, args):
    """Instant ticks against the same stub behind TLS (python ssl, a self-signed
    certificate the provider trusts through `ca_file`). A binary without the `ca_file`
    key refuses the config: reported as unsupported, not as a failure."""
    made = self_signed(base)
    if made is None:
        return {"unsupported": "openssl could not make a certificate"}
    cert, key = made
    tls = stub.Stub(stub.fixed(stub.ANSWER, 900, 40), tls=(cert, key)).start()
    try:
        url = tls.url
        text = config_text(url).replace("concurrency = 4",
                                        f'concurrency = 4\nca_file = "{cert}"')
        config = base / "thinker-https.toml"
        config.write_text(text)
        thinker = thinker_argv(binary, config)
        probe = phase(thinker, base, "https-probe", 1, warmup=0, fail_ok=True)
        if isinstance(probe, str):
            if "ca_file" in probe:
                return {"unsupported": "no ca_file support"}
            return {"unsupported": f"the https tick failed: {probe.strip()[:200]}"}
        fast = phase(thinker, base, "https-instant", args.runs, warmup=2)
        memory = phase(thinker, base, "https-memory", args.rss_runs, warmup=0, trace=True)
        return summary(fast, memory, None, args.delay)
    finally:
        tls.close()


if __name__ == "__main__":
    sys.exit(main())
