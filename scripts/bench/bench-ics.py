#!/usr/bin/env python3
"""The `ics` source on large calendars: parse time by number of events (linear, not
quadratic), and a whole tick's peak memory when two threads read the same 64 MB vdir.

  python3 scripts/bench/bench-ics.py [--binary target/release/thinker] [--runs 3]
                                     [--sizes 1250,2500,...] [--quick] [--json F]

1. Size. For each N: one `.ics` of N past events (each with a title and a place, ~150
   bytes) followed by one real event 3 hours after now; then the same with N events
   after the window (from 2030): a past event is left unparsed, a later one is parsed
   and expanded, so the second series times the parser itself.
   `thinker prompt watcher` (the watcher's one source: that calendar) reads, parses and
   expands it; the wall time and the child's peak RSS are measured, and the real event
   must be in the prompt (it was lost past 10,000 events). Per-event time is wall / N.
2. Two threads, one vdir. A vdir of 64 MB (4 files of 15.9 MiB of past events, plus the
   real event in the last; or, with --quick, one file), read by the watcher (24 h) and
   the oracle (72 h) as `config/default.toml` writes them, in one `thinker tick` against
   the loopback stub: the tick's peak RSS (VmHWM, proc.py's sampled_peak) and wall time,
   and whether both threads' prompts listed the real event.

Standard library only; Linux only (/proc).
"""
import argparse, json, statistics, subprocess, sys, tempfile
from pathlib import Path

import proc
import stub

NOW = "2026-11-22T10:05:00Z"


def past_event(i: int, first_year: int = 2000) -> str:
    # One an hour from first_year on, within 20 years: 2000 is long before now; 2030
    # after the window (each such event is parsed, then found to be past the window).
    day, hour = divmod(i, 24)
    y, rest = first_year + day // 336 % 20, day % 336
    m, d = 1 + rest // 28, 1 + rest % 28
    return (f"BEGIN:VEVENT\r\nUID:past-{i}@bench.example\r\n"
            f"DTSTART:{y:04d}{m:02d}{d:02d}T{hour:02d}0000Z\r\nDURATION:PT30M\r\n"
            f"SUMMARY:Past meeting number {i}\r\nLOCATION:Room {i % 40}\r\nEND:VEVENT\r\n")


REAL = ("BEGIN:VEVENT\r\nUID:real@bench.example\r\nDTSTAMP:20261122T000000Z\r\n"
        "DTSTART:20261122T130000Z\r\nDTEND:20261122T140000Z\r\n"
        "SUMMARY:Dentist appointment (the real one)\r\nEND:VEVENT\r\n")
HEAD = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//thinker//bench//EN\r\n"
TAIL = "END:VCALENDAR\r\n"


def write_calendar(path: Path, n: int, real: bool, start: int = 0, first_year: int = 2000):
    with path.open("w") as f:
        f.write(HEAD)
        for i in range(start, start + n):
            f.write(past_event(i, first_year))
        if real:
            f.write(REAL)
        f.write(TAIL)


def events_for_bytes(size: int) -> int:
    return size // len(past_event(123456))


def config(home: Path, sources: str, url: str = "http://127.0.0.1:9/v1") -> Path:
    path = home / "t.toml"
    path.write_text(
        "[tick]\nskip_unchanged = false\ndeadline_seconds = 60\nthread_timeout_seconds = 60\n"
        f"[providers.local]\nkind = \"openai\"\nbase_url = \"{url}\"\n" + sources)
    return path


def sizes(args) -> list:
    if args.sizes:
        return [int(s) for s in args.sizes.split(",")]
    if args.quick:
        return [1250, 2500, 5000, 10000]
    return [1250, 2500, 5000, 10000, 20000, 50000]


def by_size(args, first_year: int) -> list:
    rows = []
    for n in sizes(args):
        home = Path(tempfile.mkdtemp(prefix="thinker-ics-"))
        cal = home / "big.ics"
        write_calendar(cal, n, True, first_year=first_year)
        cfg = config(home, "[threads.watcher]\nmodel = \"local/watcher\"\n"
                           f"[[threads.watcher.sources]]\nkind = \"ics\"\npaths = [\"{cal}\"]\n")
        argv = [args.binary, "prompt", "watcher", "--now", NOW, "--config", str(cfg),
                "--state", str(home / "state")]
        walls, peaks = [], []
        for _ in range(args.runs):
            code, wall, peak = proc.sampled_peak(argv)
            if code != 0:
                sys.exit(f"{n} events: thinker prompt exited {code}")
            walls.append(wall)
            peaks.append(peak)
        out = subprocess.run(argv, capture_output=True, text=True)
        found = "Dentist appointment (the real one)" in out.stdout
        row = {"events": n, "when": "past" if first_year < 2026 else "later",
               "bytes": cal.stat().st_size, "runs": args.runs,
               "wall_ms_median": statistics.median(walls),
               "us_per_event": statistics.median(walls) * 1000 / n,
               "rss_mb_max": max(peaks), "real_event_found": found}
        rows.append(row)
        print(f"{n:>7} {row['when']:5} events {row['bytes'] / 1e6:6.1f} MB  wall {row['wall_ms_median']:8.0f} ms"
              f"  {row['us_per_event']:6.1f} µs/event  peak {row['rss_mb_max']:5.1f} MB"
              f"  real event {'found' if found else 'LOST'}", file=sys.stderr)
        subprocess.run(["rm", "-rf", str(home)], check=False)
    return rows


def two_threads(args) -> dict:
    home = Path(tempfile.mkdtemp(prefix="thinker-ics-vdir-"))
    vdir = home / "calendars" / "work"
    vdir.mkdir(parents=True)
    files = 1 if args.quick else 4
    per_file = events_for_bytes(int(15.9 * (1 << 20)))
    for k in range(files):
        write_calendar(vdir / f"cal-{k}.ics", per_file, k == files - 1, start=k * per_file)
    total = sum(p.stat().st_size for p in vdir.iterdir())
    prompts = []
    answer = stub.fixed(stub.ANSWER, 10, 5)

    def recording(request):
        prompts.append(request.raw.decode("utf-8", "replace"))
        return answer(request)

    server = stub.Stub(recording).start()
    glob = home / "calendars" / "*"
    cfg = config(home, (
        "[threads.watcher]\nmodel = \"local/watcher\"\n"
        f"[[threads.watcher.sources]]\nkind = \"ics\"\nname = \"calendar\"\npaths = [\"{glob}\"]\n"
        "[threads.oracle]\nmodel = \"local/oracle\"\n"
        f"[[threads.oracle.sources]]\nkind = \"ics\"\nname = \"calendar\"\npaths = [\"{glob}\"]\n"
        "hours = 72\n"), server.url)
    walls, peaks = [], []
    for _ in range(args.runs):
        code, wall, peak = proc.sampled_peak([args.binary, "tick", "--now", NOW, "--config",
                                              str(cfg), "--state", str(home / "state")])
        if code != 0:
            sys.exit(f"the two-thread tick exited {code}")
        walls.append(wall)
        peaks.append(peak)
    listed = sum("Dentist appointment (the real one)" in body for body in prompts)
    row = {"files": files, "bytes": total, "events": files * per_file + 1, "runs": args.runs,
           "wall_ms_median": statistics.median(walls), "rss_mb_max": max(peaks),
           "rss_mb_median": statistics.median(peaks), "prompts": len(prompts),
           "prompts_listing_the_real_event": listed}
    print(f"two threads, one vdir of {files} files, {total / 1e6:.1f} MB, {row['events']} events:"
          f" wall {row['wall_ms_median']:.0f} ms  peak {row['rss_mb_max']:.1f} MB,"
          f" the real event in {listed} of {len(prompts)} prompts", file=sys.stderr)
    server.close()
    subprocess.run(["rm", "-rf", str(home)], check=False)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default="target/release/thinker")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", help="comma-separated numbers of past events")
    ap.add_argument("--quick", action="store_true", help="up to 10,000 events, a 16 MB vdir")
    ap.add_argument("--skip-vdir", action="store_true")
    ap.add_argument("--json", help="also write the rows to this file")
    args = ap.parse_args()
    out = {"by_size": by_size(args, 2000) + by_size(args, 2030)}
    if not args.skip_vdir:
        out["two_threads"] = two_threads(args)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
