#!/usr/bin/env python3
"""What an instant tick's peak memory is made of: its own (anonymous) pages and the
binary's and libraries' file-backed pages (clean, shared with every other thinker
process, evictable), which `VmHWM` / `ru_maxrss` count together.

  python3 scripts/bench-rss.py [--binary target/release/thinker] [--runs 10] [--json F]

Starts an instant OpenAI-compatible stub on loopback, writes a four-thread config with no
sources in a temp dir, runs `thinker tick` --runs times and samples /proc/PID/status every
0.5 ms while it runs (a sample can miss a peak by a little: VmHWM, the kernel's own peak of
the total, is exact). Standard library only; Linux only.
"""
import argparse, json, re, subprocess, sys, tempfile, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class Stub(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        answer = {"findings": [{"summary": "disk almost full", "importance": 5}],
                  "reinforce": [], "suggest": "", "escalate": False}
        out = json.dumps({"id": "x", "object": "chat.completion", "model": body["model"],
                          "choices": [{"index": 0, "finish_reason": "stop",
                                       "message": {"role": "assistant",
                                                   "content": json.dumps(answer)}}],
                          "usage": {"prompt_tokens": 10, "completion_tokens": 5}}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *_):
        pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default="target/release/thinker")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--json", help="also write the medians and maxima (MB) to this file")
    args = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Stub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    home = Path(tempfile.mkdtemp(prefix="thinker-rss-"))
    threads = "".join(f'[threads.{t}]\nmodel = "local/{t}"\nsources = []\n'
                      for t in ("watcher", "librarian", "oracle", "dreamer"))
    (home / "t.toml").write_text(
        "[tick]\nskip_unchanged = false\n[providers.local]\nkind = \"openai\"\n"
        f"base_url = \"http://127.0.0.1:{server.server_port}/v1\"\nconcurrency = 4\n" + threads)
    keys = ("RssAnon", "RssFile", "VmHWM")
    peaks = {k: [] for k in keys}
    for _ in range(args.runs):
        p = subprocess.Popen([args.binary, "tick", "--config", str(home / "t.toml"),
                              "--state", str(home / "state")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        peak = dict.fromkeys(keys, 0)
        while p.poll() is None:
            try:
                status = Path(f"/proc/{p.pid}/status").read_text()
            except OSError:
                break
            for k in keys:
                m = re.search(rf"^{k}:\s+(\d+)", status, re.M)
                if m:
                    peak[k] = max(peak[k], int(m.group(1)))
            time.sleep(0.0005)
        if p.wait() not in (0, 3):
            sys.exit(f"the tick exited {p.returncode}")
        for k in keys:
            peaks[k].append(peak[k])
    summary = {"runs": args.runs}
    for k in keys:
        v = sorted(peaks[k])
        print(f"{k:8} median {v[len(v) // 2] / 1024:5.1f} MB  max {v[-1] / 1024:5.1f} MB"
              f"  ({args.runs} ticks)")
        summary[k] = {"median_mb": v[len(v) // 2] / 1024, "max_mb": v[-1] / 1024}
    if args.json:
        Path(args.json).write_text(json.dumps(summary))


if __name__ == "__main__":
    main()
