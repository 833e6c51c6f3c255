#!/usr/bin/env python3
"""reference_tick.py — the tick a user would otherwise write: a minimal Python
orchestrator, standard library only, to set thinker's figures beside (BENCHMARKS.md).

It reads the same thinker config (TOML): each enabled thread's `model = "provider/model"`
and that provider's `base_url` and `api_key_env`; calls the four threads' models in
parallel (urllib on a thread pool), each with one prompt (a short instruction, the JSON
answer shape, the current memory as JSON); reads each answer's JSON; and merges the
findings naively into `reference.json` in the state directory: a finding whose summary
equals (case-folded) a remembered one bumps its count, any other is appended, the newest
50 are kept; written to a temp file and renamed into place.

What it does NOT do (all of which thinker does in its tick): gather sources (files,
commands, mail, calendars, the system), screen or fence untrusted text, redact, retry,
fall back to another model, honour a timeout per thread and a deadline per tick beyond
urllib's per-request timeout, pace or cap concurrency per provider, keep daily token or
cost budgets or circuit breakers, skip unchanged worlds, decay or reinforce by
similarity, prune to caps and a token budget, escalate, take a lock against an
overlapping run, fsync, keep a backup, an archive or a journal. Only OpenAI-compatible
providers (`kind = "openai"`, `POST {base_url}/chat/completions`).

Usage:
  python3 scripts/bench/reference_tick.py --config thinker.toml --state DIR
Exit 0 when at least one thread answered, 1 when none did, 2 on a bad config.
"""

import argparse
import concurrent.futures
import json
import os
import sys
import tomllib
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

THREADS = ("watcher", "librarian", "oracle", "dreamer")
KEEP = 50
INSTRUCTION = {
    "watcher": "You watch the user's machine and inbox. Report what needs attention now.",
    "librarian": "You keep the user's notes. Report what connects to what is remembered.",
    "oracle": "You look ahead. Report what is coming up and needs preparing.",
    "dreamer": "You wander. Report an unexpected idea linking what is remembered.",
}
SHAPE = ('Answer with JSON only: {"findings": [{"summary": "...", "importance": 0-10}], '
         '"suggest": "..."}')


def call(thread, url, model, key, memory, timeout):
    prompt = f"{INSTRUCTION[thread]}\n\n{SHAPE}\n\nWhat is remembered:\n{json.dumps(memory)}"
    body = json.dumps({
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
        "response_format": {"type": "json_object"},
        "max_tokens": 1024,
    }).encode()
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(f"{url.rstrip('/')}/chat/completions", data=body,
                                     headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=timeout) as response:
        reply = json.load(response)
    return json.loads(reply["choices"][0]["message"]["content"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", required=True)
    ap.add_argument("--state", required=True)
    args = ap.parse_args()
    try:
        config = tomllib.loads(Path(args.config).read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        print(f"cannot read the config {args.config}: {e}", file=sys.stderr)
        return 2
    providers = config.get("providers", {})
    timeout = float(config.get("tick", {}).get("thread_timeout_seconds", 90))
    jobs = {}
    for thread in THREADS:
        table = config.get("threads", {}).get(thread)
        if not table or table.get("enabled", True) is False:
            continue
        name, _, model = table["model"].partition("/")
        provider = providers.get(name)
        if provider is None or provider.get("kind") != "openai":
            print(f"{thread}: provider {name!r} is not an openai one", file=sys.stderr)
            return 2
        key = os.environ.get(provider.get("api_key_env", ""), "")
        jobs[thread] = (provider["base_url"], model, key)

    state_dir = Path(args.state)
    state_dir.mkdir(parents=True, exist_ok=True)
    path = state_dir / "reference.json"
    try:
        memory = json.loads(path.read_text())
    except (OSError, ValueError):
        memory = {"findings": []}

    answers = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(jobs) or 1) as pool:
        futures = {pool.submit(call, t, *job, memory, timeout): t for t, job in jobs.items()}
        for future in concurrent.futures.as_completed(futures):
            thread = futures[future]
            try:
                answers[thread] = future.result()
            except Exception as e:  # noqa: BLE001 (a failed thread must not stop the others)
                print(f"{thread}: {e}", file=sys.stderr)
    if not answers:
        return 1

    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    known = {f["summary"].casefold(): f for f in memory["findings"]}
    for thread, answer in answers.items():
        for finding in answer.get("findings", []):
            summary = str(finding.get("summary", "")).strip()
            if not summary:
                continue
            if summary.casefold() in known:
                known[summary.casefold()]["count"] += 1
                known[summary.casefold()]["last_seen"] = now
            else:
                entry = {"summary": summary, "thread": thread,
                         "importance": finding.get("importance", 0),
                         "count": 1, "first_seen": now, "last_seen": now}
                memory["findings"].append(entry)
                known[summary.casefold()] = entry
    memory["findings"] = memory["findings"][-KEEP:]
    memory["last_tick"] = now
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(memory, indent=2))
    os.replace(tmp, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
