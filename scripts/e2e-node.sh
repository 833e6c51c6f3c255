#!/usr/bin/env bash
# e2e-node.sh — node, for the OpenClaw plugin's end-to-end test: Debian's `nodejs`
# package, which tests/openclaw_plugin.rs uses to run examples/openclaw/thinker-recall
# (through tests/openclaw/host.mjs) against the real binary.
#
# Subcommands:
#   build    Idempotent: uses $THINKER_NODE, else `node` on PATH, when present;
#            otherwise installs the `nodejs` package with apt-get (as root, or through
#            sudo; `apt-get update` once if the first try fails), checks that it runs
#            (`--version`, ES modules: 18 or newer), then prints the binary's path on
#            stdout — the value for THINKER_NODE:
#                export THINKER_NODE=$(scripts/e2e-node.sh build)
#            Exit 1 when it cannot be installed or does not run.
#
# Environment:
#   THINKER_NODE   a node to use instead
#
# Progress and errors go to stderr; only the path goes to stdout.

set -euo pipefail

log() { printf '[e2e-node] %s\n' "$*" >&2; }
die() { printf '[e2e-node] ERROR: %s\n' "$*" >&2; exit 1; }

usage() {
    printf 'usage: %s build\n' "$0" >&2
    exit 2
}

as_root() {
    if [[ "$(id -u)" -eq 0 ]]; then
        "$@"
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        sudo -n "$@"
    else
        return 1
    fi
}

install() {
    command -v apt-get >/dev/null || die "no apt-get here: install node yourself and set THINKER_NODE"
    log "installing Debian's nodejs package"
    local start=$SECONDS
    if ! DEBIAN_FRONTEND=noninteractive as_root apt-get install -y nodejs >&2; then
        log "apt-get install failed; running apt-get update once and retrying"
        as_root apt-get update >&2 || die "apt-get update failed (not root and no sudo, or no network)"
        DEBIAN_FRONTEND=noninteractive as_root apt-get install -y nodejs >&2 \
            || die "apt-get install nodejs failed"
    fi
    log "installed in $((SECONDS - start)) s"
}

cmd_build() {
    local node="${THINKER_NODE:-}"
    if [[ -n "$node" ]]; then
        [[ -x "$node" ]] || die "THINKER_NODE=$node is not an executable file"
    else
        node=$(command -v node || true)
        if [[ -z "$node" ]]; then
            install
            node=$(command -v node || command -v nodejs || true)
            [[ -n "$node" ]] || die "the nodejs package installed no node on PATH"
        else
            log "already installed: $node"
        fi
    fi
    local version
    version=$("$node" --version 2>/dev/null) || die "$node does not run (--version failed)"
    local major="${version#v}"
    major="${major%%.*}"
    [[ "$major" =~ ^[0-9]+$ && "$major" -ge 18 ]] || die "$node is $version: 18 or newer is needed"
    log "node $version"
    echo "$node"
}

case "${1:-}" in
    build) shift; cmd_build "$@" ;;
    *) usage ;;
esac
