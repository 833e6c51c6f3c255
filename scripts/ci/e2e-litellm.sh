#!/usr/bin/env bash
# e2e-litellm.sh — a real LiteLLM proxy for thinker's end-to-end tests.
#
# Installs a pinned LiteLLM proxy from PyPI (wheels only, ~1-6 minutes depending on the
# network) into a venv cached OUTSIDE the repository, in
#
#     ${THINKER_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/thinker-e2e}/litellm-<version>
#
# and runs it on loopback in front of an OpenAI-compatible upstream (the llama-server of
# scripts/ci/e2e-llama-server.sh), so that thinker's `anthropic` kind can be tested against
# LiteLLM's Anthropic Messages endpoint (/v1/messages) translated to chat completions.
#
# Subcommands:
#   build                      Idempotent: installs the venv once (exit 1 if pip fails).
#   start PORT UPSTREAM_URL    Starts the proxy on 127.0.0.1:PORT routing model `smollm2`
#                              (THINKER_LITELLM_MODEL) to UPSTREAM_URL/v1 (an OpenAI-style
#                              server), waits until it answers, prints its PID on stdout.
#                              Log and config: $CACHE/litellm-PORT.{log,yaml}.
#   stop PID                   Stops a proxy started by `start`.
#
# Environment:
#   THINKER_E2E_CACHE             cache directory (see above)
#   THINKER_E2E_START_TIMEOUT     seconds `start` waits for the proxy (default 90)
#   THINKER_LITELLM_MODEL         the model name routed upstream (default smollm2)
#   PYTHON                        python used to create the venv (default python3)
#
# Why this version: 1.100.5 translates Anthropic structured outputs (`output_config.format`
# and the beta's `output_format`) into the upstream's `response_format` on /v1/messages,
# and its dependencies resolve from PyPI here (later releases need certifi>=2026.10.19).
#
# Progress and errors go to stderr; only the requested data goes to stdout.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CACHE="$(ci_cache_dir)"
LITELLM_VERSION="1.100.5"
VENV="$CACHE/litellm-$LITELLM_VERSION"
STAMP="$VENV/.installed"
START_TIMEOUT="${THINKER_E2E_START_TIMEOUT:-90}"
MODEL="${THINKER_LITELLM_MODEL:-smollm2}"

usage() {
    cat >&2 <<EOF
usage: $0 build
       $0 start PORT UPSTREAM_URL
       $0 stop PID
cache: $CACHE
EOF
    exit 2
}

# The proxy never reaches the internet: the local model cost map, no telemetry.
export LITELLM_LOCAL_MODEL_COST_MAP=True LITELLM_TELEMETRY=False

cmd_build() {
    if [[ -f "$STAMP" ]]; then
        log "already installed: $VENV"
        return
    fi
    mkdir -p "$CACHE"
    if ci_lock "$CACHE/.litellm.lock" && [[ -f "$STAMP" ]]; then
        log "installed by a concurrent run: $VENV"
        return
    fi
    local py="${PYTHON:-python3}"
    command -v "$py" >/dev/null || die "$py not found (needed to install LiteLLM from PyPI)"
    log "installing litellm[proxy]==$LITELLM_VERSION (wheels only) into $VENV"
    local start=$SECONDS
    rm -rf "$VENV"
    "$py" -m venv "$VENV" || die "could not create a venv with $py (is the venv module installed?)"
    if ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        --only-binary=:all: "litellm[proxy]==$LITELLM_VERSION"; then
        rm -rf "$VENV"
        die "pip install litellm[proxy]==$LITELLM_VERSION failed"
    fi
    "$VENV/bin/litellm" --version >/dev/null 2>&1 || { rm -rf "$VENV"; die "the installed litellm does not run"; }
    touch "$STAMP"
    log "installed in $((SECONDS - start)) s"
}

cmd_start() {
    local port="${1:-}" upstream="${2:-}"
    [[ "$port" =~ ^[0-9]+$ && -n "$upstream" ]] || usage
    [[ -f "$STAMP" ]] || die "not installed yet: run '$0 build'"
    command -v curl >/dev/null || die "curl is required"
    upstream="${upstream%/}"

    local config="$CACHE/litellm-$port.yaml" logfile="$CACHE/litellm-$port.log"
    # use_chat_completions_url_for_anthropic_messages: /v1/messages to an OpenAI-style
    # upstream goes to its /v1/chat/completions, not to /v1/responses (llama-server has
    # no Responses API).
    cat >"$config" <<EOF
model_list:
  - model_name: $MODEL
    litellm_params:
      model: openai/$MODEL
      api_base: $upstream/v1
      api_key: none
litellm_settings:
  use_chat_completions_url_for_anthropic_messages: true
  telemetry: false
EOF
    "$VENV/bin/litellm" --config "$config" --host 127.0.0.1 --port "$port" \
        </dev/null >"$logfile" 2>&1 &
    local pid=$!

    ci_wait_http "http://127.0.0.1:$port/health/liveliness" "$pid" "$START_TIMEOUT" "$logfile" litellm 0.5
    log "litellm ready on http://127.0.0.1:$port (pid $pid, model $MODEL -> $upstream/v1, log $logfile)"
    echo "$pid"
}

cmd_stop() {
    local pid="${1:-}"
    [[ "$pid" =~ ^[0-9]+$ ]] || usage
    ci_stop "$pid" cmdline litellm
}

case "${1:-}" in
    build) shift; cmd_build "$@" ;;
    start) shift; cmd_start "$@" ;;
    stop) shift; cmd_stop "$@" ;;
    *) usage ;;
esac
