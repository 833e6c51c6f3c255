#!/usr/bin/env bash
# e2e-mcp.sh — the official MCP Python SDK, for driving `thinker mcp` from a client
# nobody here wrote (tests/mcp/client.py, run by tests/mcp.rs).
#
# Installs a pinned `mcp` from PyPI (wheels only; well under a minute) into a venv cached
# OUTSIDE the repository, in
#
#     ${THINKER_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/thinker-e2e}/mcp-venv
#
# and reuses it while it holds that version.
#
# Subcommands:
#   build    Idempotent: installs the venv once (exit 1 if pip fails), then prints the
#            venv's python on stdout — the value for THINKER_MCP_PYTHON:
#                export THINKER_MCP_PYTHON=$(scripts/ci/e2e-mcp.sh build)
#
# Environment:
#   THINKER_E2E_CACHE   cache directory (see above)
#   PYTHON              python used to create the venv (default python3; mcp needs >= 3.10)
#
# Progress and errors go to stderr; only the python path goes to stdout.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CACHE="$(ci_cache_dir)"
MCP_VERSION="2.3.0"
VENV="$CACHE/mcp-venv"
STAMP="$VENV/.installed-mcp-$MCP_VERSION"

usage() {
    printf 'usage: %s build\ncache: %s\n' "$0" "$CACHE" >&2
    exit 2
}

install() {
    local py="${PYTHON:-python3}"
    command -v "$py" >/dev/null || die "$py not found (needed to install the MCP Python SDK from PyPI)"
    log "installing mcp==$MCP_VERSION (wheels only) into $VENV"
    local start=$SECONDS
    rm -rf "$VENV"
    "$py" -m venv "$VENV" || die "could not create a venv with $py (is the venv module installed?)"
    if ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        --only-binary=:all: "mcp==$MCP_VERSION"; then
        rm -rf "$VENV"
        die "pip install mcp==$MCP_VERSION failed"
    fi
    "$VENV/bin/python" -c 'import mcp.client.stdio' || { rm -rf "$VENV"; die "the installed mcp does not import"; }
    touch "$STAMP"
    log "installed in $((SECONDS - start)) s"
}

cmd_build() {
    if [[ -f "$STAMP" ]]; then
        log "already installed: $VENV (mcp $MCP_VERSION)"
    else
        mkdir -p "$CACHE"
        ci_lock "$CACHE/.mcp.lock" || true
        if [[ -f "$STAMP" ]]; then
            log "installed by a concurrent run: $VENV"
        else
            install
        fi
    fi
    echo "$VENV/bin/python"
}

case "${1:-}" in
    build) shift; cmd_build "$@" ;;
    *) usage ;;
esac
