#!/usr/bin/env python3
"""What an instant tick's memory is made of at its end: the process's private pages
(the memory goal: what this process alone costs the machine) against the clean pages of
the binary and libraries it shares with the page cache and every other thinker process.

  python3 scripts/bench/bench-rss.py [--binary [LABEL=]PATH ...] [--runs 10] [--no-sources]
                               [--json F]

Starts an instant OpenAI-compatible stub on loopback, writes a four-thread config in a
temp dir — the threads' default sources (no `sources` key: the Watcher the system, the
Librarian the archive, the Dreamer a sample of them; --no-sources: `sources = []`) — and
runs `thinker tick` --runs times for each binary (two or more
binaries take turns, A B A B …, so a drifting machine treats them alike). Each tick is
traced (ptrace through ctypes: its own child, no privilege) and stopped as it exits
(PTRACE_EVENT_EXIT, before the kernel takes its memory away), and then
/proc/PID/smaps_rollup and /proc/PID/status are read:

  private   Private_Clean + Private_Dirty: the pages no other process maps now — the
            anonymous ones (heap, stacks), the relocated data a position-independent
            binary writes at its start, and whatever file page only this process has
            touched (ticks run one at a time here, so a page of the binary's code that
            the tick touched and no other process maps counts too);
  dirty     Private_Dirty: of those, the written ones (what could not be dropped and
            read again from the file);
  pss       Pss: every page divided among the processes that map it;
  anon      RssAnon (status): anonymous pages;
  rss       Rss, and VmHWM (status): the peak of the total, clean shared pages included.

Standard library only; Linux only (ptrace, /proc). Exits 2 when a tick fails.
"""
import argparse, json, os, statistics, sys, tempfile
from pathlib import Path

import proc
import stub

FIELDS = ("private", "dirty", "pss", "anon", "rss", "hwm")


def _kib(text, key):
    for line in text.splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return None


def at_exit(pid):
    """The figures (KiB) of a process stopped at PTRACE_EVENT_EXIT."""
    rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    status = Path(f"/proc/{pid}/status").read_text()
    clean, dirty = _kib(rollup, "Private_Clean"), _kib(rollup, "Private_Dirty")
    return {"private": clean + dirty, "dirty": dirty, "pss": _kib(rollup, "Pss"),
            "anon": _kib(status, "RssAnon"), "rss": _kib(rollup, "Rss"),
            "hwm": _kib(status, "VmHWM")}


def traced_tick(argv):
    """Runs argv traced to its end: (exit code, its figures at exit or None)."""
    _, figures, _, code = proc.spawn(argv, at_exit=at_exit)
    return code, figures


def binaries(specs):
    """`LABEL=PATH` or `PATH` (labelled by its file name) → [(label, path)]."""
    out = []
    for spec in specs or ["target/release/thinker"]:
        label, _, path = spec.rpartition("=")
        out.append((label or Path(path).name, path))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", action="append", metavar="[LABEL=]PATH",
                    help="a thinker binary (repeat to compare; default "
                         "target/release/thinker)")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--no-sources", action="store_true",
                    help="threads with `sources = []` instead of their default sources")
    ap.add_argument("--json", help="also write the medians and maxima (MB) to this file")
    args = ap.parse_args()
    answer = {"findings": [{"summary": "disk almost full", "importance": 5}],
              "reinforce": [], "suggest": "", "escalate": False}
    server = stub.Stub(stub.fixed(answer, 10, 5)).start()
    home = Path(tempfile.mkdtemp(prefix="thinker-rss-"))
    sources = "sources = []\n" if args.no_sources else ""
    threads = "".join(f'[threads.{t}]\nmodel = "local/{t}"\n{sources}'
                      for t in ("watcher", "librarian", "oracle", "dreamer"))
    (home / "t.toml").write_text(
        "[tick]\nskip_unchanged = false\n[providers.local]\nkind = \"openai\"\n"
        f"base_url = \"{server.url}\"\nconcurrency = 4\n" + threads)
    which = binaries(args.binary)
    for _, path in which:
        # A binary just built or copied has dirty pages in the page cache until they are
        # written back, and smaps counts them as the process's dirty pages: write them.
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    seen = {label: {k: [] for k in FIELDS} for label, _ in which}
    for _ in range(args.runs):
        for label, path in which:
            state = home / f"state-{label}"
            code, figures = traced_tick([path, "tick", "--config", str(home / "t.toml"),
                                         "--state", str(state)])
            if code not in (0, 3) or figures is None:
                sys.exit(f"{label}: the tick exited {code}" +
                         ("" if figures else " (not traced: is ptrace allowed?)"))
            for k in FIELDS:
                seen[label][k].append(figures[k])
    summary = {"runs": args.runs, "sources": "none" if args.no_sources else "default",
               "binaries": {}}
    print(f"memory at the end of an instant tick ({summary['sources']} sources), "
          f"{args.runs} ticks each, median (max), MB")
    print(f"{'binary':12} " + " ".join(f"{k:>13}" for k in FIELDS))
    for label, _ in which:
        row, out = [], {}
        for k in FIELDS:
            v = [x / 1024 for x in seen[label][k]]
            out[k] = {"median_mb": statistics.median(v), "max_mb": max(v)}
            row.append(f"{statistics.median(v):6.2f} ({max(v):5.2f})")
        summary["binaries"][label] = out
        print(f"{label:12} " + " ".join(f"{c:>13}" for c in row))
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
