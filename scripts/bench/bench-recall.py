#!/usr/bin/env python3
"""bench-recall.py — how well `thinker show --for` finds what a person asks about.

Over the realistic memory of tests/fixtures/recall/ (49 entries of many kinds, with
provenance and due dates, and an archive of 60), asks every question of
questions.json (`tune`: the pairs recall was tuned on; `held_out`: never tuned on,
reported apart) and every unrelated prompt, as `thinker show --format prompt --for Q`
(at the fixture's instant, or the pair's own third element, in UTC), and counts:

- recall@3: the expected entry among the first three shown;
- for the unrelated prompts, the entries surfaced (all prompts together) and the prompts
  that got any;
- the median wall time of one `show --for` process (without embeddings).

"before" is today's recall as of commit e1f393b (word overlap: two words and 30 %),
reproduced here in Python (`legacy_recall`; `--baseline BIN` runs an old binary instead,
which is how the port was checked: it agrees on every question). "after" is the binary.
With `--previous BIN` (and `--previous-label TEXT`, e.g. the commit it was built from),
"previous" is an earlier build's, for a change's before and after (issue 32).
With `--embeddings URL` (an OpenAI-compatible server with `/v1/embeddings`, e.g.
llama-server started with `--embeddings --pooling mean`), "after + embeddings" too: a
tick refreshes the cache (one thread on a replay provider that finds nothing), then the
questions are asked with `[recall] embeddings` set.

Usage:
  python3 scripts/bench/bench-recall.py --binary target/release/thinker [--json OUT]
      [--embeddings http://127.0.0.1:PORT] [--baseline OLD_BINARY] [--runs N]
      [--previous EARLIER_BUILD --previous-label TEXT]
Python 3 standard library only.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "recall"
NOW = "2026-11-24T09:00:00Z"
TOP = 3

# --- today's recall (commit e1f393b, src/recall.rs), ported ---------------------------

STOP_WORDS = set(
    "a an the and or but of to in on at for with by from is are was were be been being it "
    "its this that these those as into about over than then there their they we you i he "
    "she his her our your my me us not no so if".split()
)
SUFFIXES = ["ations", "ation", "ings", "ing", "edly", "ed", "ies", "es", "ly", "s"]
CATEGORIES = ["active_threads", "patterns", "hunches", "insights"]


def tokens(text):
    out = []
    for raw in re.split(r"[^\w]|_", text):
        w = raw.lower()
        if len(w) > 1 and w not in STOP_WORDS:
            out.append(w)
    return out


def old_stem(w):
    for s in SUFFIXES:
        if w.endswith(s) and len(w) - len(s) >= 3:
            return w[: -len(s)]
    return w


def words_meet(a, b):
    if a == b or old_stem(a) == old_stem(b):
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) >= 4 and long_.startswith(short)


def paths(text):
    out = []
    for w in re.split(r"[\s`\"'(),]", text):
        w = w.rstrip(":.;!?").lower()
        base, dot, ext = w.rpartition(".")
        has_ext = bool(dot) and base != "" and 1 <= len(ext) <= 5 and ext.isalnum() \
            and ext.isascii() and not ext.isdigit()
        if len(w) >= 3 and (("/" in w and any(c.isalnum() for c in w)) or has_ext):
            out.append(w)
    return out


def path_meets(q, e):
    bq = [p for p in q.split("/") if p] or [q]
    be = [p for p in e.split("/") if p] or [e]
    return q == e or q.endswith("/" + e) or e.endswith("/" + q) or (bq[-1] == be[-1] and "." in be[-1])


def names_id(lower, id_):
    id_ = id_.lower()
    if len(id_) < 3:
        return False
    for m in re.finditer(re.escape(id_), lower):
        before = lower[m.start() - 1] if m.start() > 0 else None
        after = lower[m.end()] if m.end() < len(lower) else None
        ok = lambda c: c is None or not (c.isalnum() or c in "-_")
        if ok(before) and ok(after):
            return True
    return False


def legacy_recall(state, text):
    """The ids today's recall shows for `text`, best first."""
    qwords = sorted(set(tokens(text)))
    qpaths = paths(text)
    lower = text.lower()
    ranked = []
    for ci, cat in enumerate(CATEGORIES):
        for e in state.get(cat, []):
            if names_id(lower, e["id"]):
                ranked.append((1.0, e["strength"], ci, e["id"]))
                continue
            if any(path_meets(q, p) for p in paths(e["summary"]) for q in qpaths):
                ranked.append((1.0, e["strength"], ci, e["id"]))
                continue
            own = sorted(set(tokens(e["summary"])))
            if not own:
                continue
            matched = [w for w in own if any(words_meet(q, w) for q in qwords)]
            score = len(matched) / len(own)
            asked = sum(1 for q in qwords if any(words_meet(q, w) for w in own))
            coverage = asked / len(qwords) if qwords else 0.0
            clears = (len(matched) >= 2 and score >= 0.3) or (matched and score >= 0.5) \
                or (asked >= 2 and coverage >= 0.5)
            if clears:
                ranked.append((max(score, coverage * 0.9), e["strength"], ci, e["id"]))
    ranked.sort(key=lambda r: (-r[0], -r[1], r[2], r[3]))
    return [r[3] for r in ranked[:5]]


# --- running the binary ---------------------------------------------------------------

def shown_ids(text):
    return re.findall(r"^- \[([^\]]+)\]", text, re.M)


class Thinker:
    def __init__(self, binary, state_dir, config=None):
        self.binary = binary
        self.state_dir = state_dir
        self.config = config
        self.env = dict(os.environ, TZ="UTC", XDG_CONFIG_HOME=str(state_dir / "no-config"))
        self.env.pop("THINKER_CONFIG", None)

    def args(self):
        a = [self.binary]
        if self.config:
            a += ["--config", str(self.config)]
        return a + ["--state", str(self.state_dir)]

    def ask(self, question, now=NOW):
        started = time.perf_counter()
        out = subprocess.run(self.args() + ["show", "--format", "prompt", "--for", question, "--now", now],
                             capture_output=True, text=True, env=self.env, check=False)
        took = time.perf_counter() - started
        if out.returncode != 0:
            sys.exit(f"bench-recall: show --for {question!r} failed: {out.stderr}")
        return shown_ids(out.stdout), took


def measure(ask, data):
    """recall@3 per split, unrelated surfaced, and per-question misses. `ask(question,
    now)`: a pair's third element is the instant it is asked at (else the fixture's)."""
    out = {}
    for split in ("tune", "held_out"):
        hits, misses = 0, []
        for question, want, *at in data[split]:
            ids = ask(question, at[0] if at else NOW)
            if want in ids[:TOP]:
                hits += 1
            else:
                misses.append({"question": question, "want": want, "got": ids[:TOP]})
        out[split] = {"pairs": len(data[split]), "found": hits,
                      "recall_at_3": hits / len(data[split]), "misses": misses}
    pairs = data["tune"] + data["held_out"]
    found = out["tune"]["found"] + out["held_out"]["found"]
    out["all"] = {"pairs": len(pairs), "found": found, "recall_at_3": found / len(pairs)}
    surfaced, prompts, noisy = 0, 0, []
    for prompt in data["unrelated"]:
        ids = ask(prompt, NOW)
        surfaced += len(ids)
        if ids:
            prompts += 1
            noisy.append({"prompt": prompt, "got": ids})
    out["unrelated"] = {"prompts": len(data["unrelated"]), "entries_surfaced": surfaced,
                        "prompts_with_any": prompts, "noisy": noisy}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=str(REPO / "target" / "release" / "thinker"))
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--embeddings", help="base URL of an OpenAI-compatible embeddings server")
    ap.add_argument("--embeddings-model", default="smollm2")
    ap.add_argument("--baseline", help="an old thinker binary to measure 'before' with")
    ap.add_argument("--runs", type=int, default=3, help="timing passes over the questions")
    ap.add_argument("--previous", help="an earlier build to measure beside this one")
    ap.add_argument("--previous-label", default="an earlier build",
                    help="what the earlier build is (e.g. its commit)")
    args = ap.parse_args()
    data = json.loads((FIXTURE / "questions.json").read_text())
    state = json.loads((FIXTURE / "subconscious.json").read_text())
    results = {"entries": sum(len(state[c]) for c in CATEGORIES),
               "archive": len((FIXTURE / "archive.jsonl").read_text().splitlines())}

    with tempfile.TemporaryDirectory(prefix="thinker-bench-recall-") as tmp:
        tmp = Path(tmp)
        state_dir = tmp / "state"
        state_dir.mkdir(mode=0o700)
        shutil.copy(FIXTURE / "subconscious.json", state_dir / "subconscious.json")
        shutil.copy(FIXTURE / "archive.jsonl", state_dir / "archive.jsonl")

        if args.baseline:
            old = Thinker(args.baseline, state_dir)
            results["before"] = measure(lambda q, now: old.ask(q, now)[0], data)
            results["before"]["measured_with"] = "the baseline binary"
        else:
            results["before"] = measure(lambda q, now: legacy_recall(state, q), data)
            results["before"]["measured_with"] = "the Python port of commit e1f393b's recall"

        if args.previous:
            previous = Thinker(args.previous, state_dir)
            results["previous"] = measure(lambda q, now: previous.ask(q, now)[0], data)
            results["previous"]["measured_with"] = args.previous_label

        thinker = Thinker(args.binary, state_dir)
        results["after"] = measure(lambda q, now: thinker.ask(q, now)[0], data)
        times = []
        questions = [p[0] for p in data["tune"] + data["held_out"]] + data["unrelated"]
        for _ in range(max(1, args.runs)):
            for q in questions:
                times.append(thinker.ask(q)[1])
        results["after"]["show_for_ms"] = {
            "median": statistics.median(times) * 1000,
            "p90": sorted(times)[int(len(times) * 0.9)] * 1000,
            "runs": len(times),
        }

        if args.embeddings:
            results["after_embeddings"] = with_embeddings(args, tmp, data)

    text = json.dumps(results, indent=2)
    if args.json:
        Path(args.json).write_text(text + "\n")
    summary(results)


def with_embeddings(args, tmp, data):
    """A tick embeds the memory, then the questions are asked with embeddings on."""
    state_dir = tmp / "state-emb"
    state_dir.mkdir(mode=0o700)
    shutil.copy(FIXTURE / "subconscious.json", state_dir / "subconscious.json")
    shutil.copy(FIXTURE / "archive.jsonl", state_dir / "archive.jsonl")
    answers = tmp / "answers" / "watcher"
    answers.mkdir(parents=True)
    (answers / "1.json").write_text('{"findings": [], "reinforce": [], "escalate": false}')
    config = tmp / "config.toml"
    config.write_text(f"""
[providers.quiet]
kind = "replay"
dir = "{tmp / 'answers'}"

[providers.embed]
kind = "openai"
base_url = "{args.embeddings.rstrip('/')}/v1"
timeout_seconds = 300

[threads.watcher]
model = "quiet/watcher"

[recall]
embeddings = "embed/{args.embeddings_model}"
embeddings_timeout_ms = 10000
""")
    thinker = Thinker(args.binary, state_dir, config)
    started = time.perf_counter()
    tick = subprocess.run(thinker.args() + ["-v", "tick", "--now", NOW], capture_output=True, text=True,
                          env=thinker.env, check=False)
    took = time.perf_counter() - started
    if not (state_dir / "embeddings.json").exists():
        sys.exit(f"bench-recall: the tick made no embeddings cache:\n{tick.stderr}")
    # The tick decayed the memory a little: the questions are asked of the fixture.
    shutil.copy(FIXTURE / "subconscious.json", state_dir / "subconscious.json")
    out = measure(lambda q, now: thinker.ask(q, now)[0], data)
    times = [thinker.ask(p[0])[1] for p in data["tune"][:20]]
    out["show_for_ms"] = {"median": statistics.median(times) * 1000, "runs": len(times)}
    out["tick_embedding_s"] = took
    out["model"] = args.embeddings_model
    return out


def summary(results):
    def line(name, r):
        if not r:
            return
        print(f"{name:>18}: recall@3 tune {r['tune']['found']}/{r['tune']['pairs']} "
              f"({r['tune']['recall_at_3']:.0%}), held-out {r['held_out']['found']}/"
              f"{r['held_out']['pairs']} ({r['held_out']['recall_at_3']:.0%}), all "
              f"{r['all']['recall_at_3']:.0%}; unrelated: {r['unrelated']['entries_surfaced']} "
              f"entries over {r['unrelated']['prompts_with_any']}/{r['unrelated']['prompts']} prompts"
              + (f"; show --for median {r['show_for_ms']['median']:.1f} ms"
                 if "show_for_ms" in r else ""))
    print(f"memory: {results['entries']} entries, archive {results['archive']}")
    line("before", results.get("before"))
    line("previous", results.get("previous"))
    line("after", results.get("after"))
    line("after + embeddings", results.get("after_embeddings"))


if __name__ == "__main__":
    main()
