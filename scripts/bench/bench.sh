#!/usr/bin/env bash
# scripts/bench/bench.sh — regenerates BENCHMARKS.md, entirely, from one run on this machine.
#
#   scripts/bench/bench.sh            # the full run: about 15 minutes on 2 cores (warm builds)
#   scripts/bench/bench.sh --quick    # a smoke run (about 2 minutes): few samples, small grids
#   scripts/bench/bench.sh --out F    # write F instead of BENCHMARKS.md
#   scripts/bench/bench.sh --keep DIR # keep the JSON results (bench-report.py --results DIR)
#   scripts/bench/bench.sh --week-before BIN  # also the week with an earlier binary, beside
#
# Builds the release binary (cargo build --release --locked) and, for the memory table, the
# same code linked -no-pie (cargo rustc -- -C link-arg=-no-pie: one more link, and one to
# put the default build back), runs the criterion benches
# (benches/aggregate.rs, benches/screen.rs), the scale bench (benches/scale.rs), the
# replay engine's (benches/replay.rs) and the redaction corpus's (benches/redact.rs), then
# the whole-process scripts beside this one (scripts/bench/) against stubs on loopback:
# bench-tick.py (http, https, 1 s threads, the Python reference reference_tick.py side by
# side), bench-rss.py (private memory, PIE and -no-pie in turn), bench-input.py (hostile
# sources), bench-ics.py (large calendars, two threads on one vdir), bench-hook.py, bench-recall.py (recall@3 before and after, unrelated
# prompts), bench-idle.py, bench-scale.py and bench-week.py (a synthetic week: what is
# remembered until it matters; about 4 minutes), each writing JSON into a temp
# directory; bench-report.py turns those into the Markdown. They share stub.py (the
# OpenAI-compatible stub server) and proc.py (a tick as a child, its VmHWM under ptrace).
# Needs: cargo, python3 >= 3.11 (standard library only), openssl (the https row), Linux.
# No network, no API key. Not part of CI's tests (too slow, machine-dependent).
set -euo pipefail

usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; }

quick=0
out=BENCHMARKS.md
keep=
week_before=
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --out) out="$2"; shift ;;
        --keep) keep="$2"; shift ;;
        --week-before) week_before="$2"; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "bench.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done

cd "$(dirname "$0")/../.."
for tool in cargo python3; do
    command -v "$tool" >/dev/null || { echo "bench.sh: $tool is needed and not on PATH" >&2; exit 2; }
done
python3 -c 'import sys, tomllib' 2>/dev/null || { echo "bench.sh: python3 >= 3.11 is needed (tomllib)" >&2; exit 2; }
command -v openssl >/dev/null || echo "bench.sh: no openssl: the https row will say so" >&2

results=$(mktemp -d "${TMPDIR:-/tmp}/thinker-bench-XXXXXX")
trap 'rm -rf "$results"' EXIT
target=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
binary="$target/release/thinker"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date +%s)
step() { echo "== $* ($(($(date +%s) - started)) s)" >&2; }

step "linking the release binary -no-pie (the memory table's comparison)"
cargo rustc --release --locked --quiet --bin thinker -- -C link-arg=-no-pie
cp "$binary" "$results/thinker-no-pie"
step "building the release binary"
cargo build --release --locked --quiet
# `cargo bench` below builds the binary again into the same place with the bench
# profile (symbols, line tables). The whole-process figures are the release binary's,
# so it is measured from a copy.
cp "$binary" "$results/thinker"
binary="$results/thinker"

if [ "$quick" = 1 ]; then
    criterion=(--warm-up-time 0.5 --measurement-time 1 --sample-size 10)
    scale_ticks=(--ticks 1000)
    replay_ticks=(--ticks 1000)
    tick_args=(--runs 10 --rss-runs 3 --slow-runs 2)
    hook_args=(--runs 30)
    idle_args=(--ticks 48)
    scale_args=(--quick --replay-ticks 300)
    week_args=(--quick)
else
    criterion=(--warm-up-time 1 --measurement-time 4)
    scale_ticks=()
    replay_ticks=()
    tick_args=(--runs 30 --rss-runs 10 --slow-runs 5)
    hook_args=(--runs 200)
    idle_args=()
    scale_args=()
    week_args=()
fi

# Criterion keeps its last results under target/criterion; the report reads them, so
# the old ones go first (only this bench output, never the build).
rm -rf "$target/criterion"
step "cargo bench --bench aggregate"
cargo bench --locked --quiet --bench aggregate -- "${criterion[@]}" >&2
step "cargo bench --bench screen"
cargo bench --locked --quiet --bench screen -- "${criterion[@]}" >&2
step "cargo bench --bench screen_corpus"
cargo bench --locked --quiet --bench screen_corpus -- --json "$results/screen-corpus.json" >&2
step "cargo bench --bench scale"
cargo bench --locked --quiet --bench scale -- --json "$results/scale.json" "${scale_ticks[@]}" >&2

step "cargo bench --bench replay"
cargo bench --locked --quiet --bench replay -- --json "$results/replay-engine.json" "${replay_ticks[@]}" >&2

step "cargo bench --bench redact"
cargo bench --locked --quiet --bench redact -- --json "$results/redact.json" >&2

step "scripts/bench/bench-tick.py"
python3 scripts/bench/bench-tick.py --binary "$binary" --reference --https \
    --json "$results/tick.json" "${tick_args[@]}" >&2
step "scripts/bench/bench-rss.py"
python3 scripts/bench/bench-rss.py --binary pie="$binary" --binary no-pie="$results/thinker-no-pie" \
    --json "$results/rss.json" \
    --runs "$([ "$quick" = 1 ] && echo 3 || echo 10)" >&2
step "scripts/bench/bench-input.py"
python3 scripts/bench/bench-input.py --binary "$binary" --json "$results/input.json" \
    $([ "$quick" = 1 ] && echo "--quick --runs 1" || echo "--runs 3") >&2
step "scripts/bench/bench-ics.py"
python3 scripts/bench/bench-ics.py --binary "$binary" --json "$results/ics.json" \
    $([ "$quick" = 1 ] && echo "--quick --runs 1" || echo "--runs 3") >&2
step "scripts/bench/bench-hook.py"
python3 scripts/bench/bench-hook.py --binary "$binary" --json "$results/hook.json" "${hook_args[@]}" >&2
step "scripts/bench/bench-idle.py"
python3 scripts/bench/bench-idle.py --binary "$binary" --json "$results/idle.json" "${idle_args[@]}" >&2
step "scripts/bench/bench-recall.py"
# With THINKER_LLAMA_EMBED_URL (llama-server --embeddings --pooling mean), with
# embeddings too.
recall_args=(--runs "$([ "$quick" = 1 ] && echo 1 || echo 5)")
[ -n "${THINKER_LLAMA_EMBED_URL:-}" ] && recall_args+=(--embeddings "$THINKER_LLAMA_EMBED_URL")
python3 scripts/bench/bench-recall.py --binary "$binary" --json "$results/recall.json" "${recall_args[@]}" >&2
step "scripts/bench/bench-scale.py"
python3 scripts/bench/bench-scale.py --binary "$binary" --json "$results/scale-ticks.json" \
    "${scale_args[@]}" >&2

# The week with each stand-in: perfect (week.json), realistic and harsh (a cheap real
# model: scripts/bench/cheap_model.py); an earlier binary beside it with the perfect and
# the realistic one.
for stand_in in perfect realistic harsh; do
    name=week; [ "$stand_in" = perfect ] || name="week-$stand_in"
    step "scripts/bench/bench-week.py --stand-in $stand_in"
    python3 scripts/bench/bench-week.py --binary "$binary" --stand-in "$stand_in" \
        --json "$results/$name.json" --progress "${week_args[@]}" >&2
done
if [ -n "$week_before" ]; then
    for stand_in in perfect realistic; do
        name=week-before; [ "$stand_in" = perfect ] || name="week-before-$stand_in"
        step "scripts/bench/bench-week.py --binary $week_before --stand-in $stand_in"
        python3 scripts/bench/bench-week.py --binary "$week_before" --stand-in "$stand_in" \
            --json "$results/$name.json" --progress "${week_args[@]}" >&2
    done
fi

step "cargo bench --bench identity"
cargo bench --locked --quiet --bench identity -- --json "$results/identity.json" >&2

step "writing $out"
report=(--results "$results" --criterion "$target/criterion" --binary "$binary"
    --load-before "$load_before" --elapsed "$(($(date +%s) - started))")
[ "$quick" = 1 ] && report+=(--quick)
python3 scripts/bench/bench-report.py "${report[@]}" >"$results/BENCHMARKS.md"
mv "$results/BENCHMARKS.md" "$out"
if [ -n "$keep" ]; then
    mkdir -p "$keep" && cp "$results"/*.json "$keep"/
fi
step "done: $out"
