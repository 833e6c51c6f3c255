#!/usr/bin/env bash
# e2e-chromium.sh — a real browser for the report's end-to-end test: Debian's `chromium`
# package (headless), which tests/report_html.rs runs on the page `thinker report --html`
# writes (a DOM dump, a screenshot, the console log).
#
# Subcommands:
#   build    Idempotent: uses $THINKER_CHROMIUM or /usr/bin/chromium when present,
#            otherwise installs the `chromium` package with apt-get (as root, or through
#            sudo; `apt-get update` once if the first try fails), checks that it starts
#            (`--version`), then prints the binary's path on stdout — the value for
#            THINKER_CHROMIUM:
#                export THINKER_CHROMIUM=$(scripts/e2e-chromium.sh build)
#            Exit 1 when it cannot be installed or does not start.
#
# Environment:
#   THINKER_CHROMIUM   a browser to use instead (any Chromium or Chrome binary)
#
# Progress and errors go to stderr; only the path goes to stdout.

set -euo pipefail

DEFAULT=/usr/bin/chromium

log() { printf '[e2e-chromium] %s\n' "$*" >&2; }
die() { printf '[e2e-chromium] ERROR: %s\n' "$*" >&2; exit 1; }

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
    command -v apt-get >/dev/null || die "no apt-get here: install Chromium yourself and set THINKER_CHROMIUM"
    log "installing Debian's chromium package"
    local start=$SECONDS
    if ! DEBIAN_FRONTEND=noninteractive as_root apt-get install -y chromium >&2; then
        log "apt-get install failed; running apt-get update once and retrying"
        as_root apt-get update >&2 || die "apt-get update failed (not root and no sudo, or no network)"
        DEBIAN_FRONTEND=noninteractive as_root apt-get install -y chromium >&2 \
            || die "apt-get install chromium failed"
    fi
    log "installed in $((SECONDS - start)) s"
}

cmd_build() {
    local browser="${THINKER_CHROMIUM:-}"
    if [[ -n "$browser" ]]; then
        [[ -x "$browser" ]] || die "THINKER_CHROMIUM=$browser is not an executable file"
    else
        browser="$DEFAULT"
        if [[ -x "$browser" ]]; then
            log "already installed: $browser"
        else
            install
            [[ -x "$browser" ]] || die "the chromium package did not install $browser"
        fi
    fi
    local version
    version=$("$browser" --version 2>/dev/null) || die "$browser does not start (--version failed)"
    log "$version"
    echo "$browser"
}

case "${1:-}" in
    build) shift; cmd_build "$@" ;;
    *) usage ;;
esac
