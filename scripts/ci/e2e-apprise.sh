#!/usr/bin/env bash
# e2e-apprise.sh — the Apprise CLI (https://github.com/caronc/apprise), the notifier most
# headless setups reach ntfy, Gotify, Telegram, Slack or e-mail through, for the
# end-to-end test that runs it as thinker's `notify_command` (tests/notify_apprise.rs):
# a tick delivers through the real `apprise` to a loopback receiver the test runs.
#
# Installs a pinned `apprise` from PyPI (wheels only; well under a minute) into a venv
# cached OUTSIDE the repository, in
#
#     ${THINKER_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/thinker-e2e}/apprise-venv
#
# and reuses it while it holds that version.
#
# Subcommands:
#   build    Idempotent: installs the venv once (exit 1 if pip fails), then prints the
#            path of the venv's `apprise` on stdout — the value for THINKER_APPRISE:
#                export THINKER_APPRISE=$(scripts/ci/e2e-apprise.sh build)
#
# Environment:
#   THINKER_E2E_CACHE   cache directory (see above)
#   PYTHON              python used to create the venv (default python3; apprise needs >= 3.9)
#
# Progress and errors go to stderr; only the program's path goes to stdout.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CACHE="$(ci_cache_dir)"
APPRISE_VERSION="2.3.0"
VENV="$CACHE/apprise-venv"
STAMP="$VENV/.installed-apprise-$APPRISE_VERSION"

usage() {
    printf 'usage: %s build\ncache: %s\n' "$0" "$CACHE" >&2
    exit 2
}

install() {
    local py="${PYTHON:-python3}"
    command -v "$py" >/dev/null || die "$py not found (needed to install Apprise from PyPI)"
    log "installing apprise==$APPRISE_VERSION (wheels only) into $VENV"
    local start=$SECONDS
    rm -rf "$VENV"
    "$py" -m venv "$VENV" || die "could not create a venv with $py (is the venv module installed?)"
    if ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        --only-binary=:all: "apprise==$APPRISE_VERSION"; then
        rm -rf "$VENV"
        die "pip install apprise==$APPRISE_VERSION failed"
    fi
    "$VENV/bin/apprise" --version >/dev/null || { rm -rf "$VENV"; die "the installed apprise does not run"; }
    touch "$STAMP"
    log "installed in $((SECONDS - start)) s"
}

cmd_build() {
    if [[ -f "$STAMP" ]]; then
        log "already installed: $VENV (apprise $APPRISE_VERSION)"
    else
        mkdir -p "$CACHE"
        ci_lock "$CACHE/.apprise.lock" || true
        if [[ -f "$STAMP" ]]; then
            log "installed by a concurrent run: $VENV"
        else
            install
        fi
    fi
    echo "$VENV/bin/apprise"
}

case "${1:-}" in
    build) shift; cmd_build "$@" ;;
    *) usage ;;
esac
