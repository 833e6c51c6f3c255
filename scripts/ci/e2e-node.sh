#!/usr/bin/env bash
# e2e-node.sh — node, for the OpenClaw plugin's end-to-end test: Debian's `nodejs`
# package, which tests/hook_openclaw.rs uses to run examples/openclaw/thinker-recall
# (through tests/openclaw/host.mjs) against the real binary.
#
# Subcommands:
#   build    Idempotent: uses $THINKER_NODE, else `node` on PATH, when present;
#            otherwise installs the `nodejs` package with apt-get (as root, or through
#            sudo; `apt-get update` once if the first try fails), checks that it runs
#            (`--version`, ES modules: 18 or newer), then prints the binary's path on
#            stdout — the value for THINKER_NODE:
#                export THINKER_NODE=$(scripts/ci/e2e-node.sh build)
#            Exit 1 when it cannot be installed or does not run.
#
# Environment:
#   THINKER_NODE   a node to use instead
#
# Progress and errors go to stderr; only the path goes to stdout.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
    printf 'usage: %s build\n' "$0" >&2
    exit 2
}

cmd_build() {
    local node="${THINKER_NODE:-}"
    if [[ -n "$node" ]]; then
        [[ -x "$node" ]] || die "THINKER_NODE=$node is not an executable file"
    else
        node=$(command -v node || true)
        if [[ -z "$node" ]]; then
            ci_apt_install nodejs node THINKER_NODE
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
