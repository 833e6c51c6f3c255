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
#                export THINKER_CHROMIUM=$(scripts/ci/e2e-chromium.sh build)
#            Exit 1 when it cannot be installed or does not start.
#
# Environment:
#   THINKER_CHROMIUM   a browser to use instead (any Chromium or Chrome binary)
#
# Progress and errors go to stderr; only the path goes to stdout.

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DEFAULT=/usr/bin/chromium

usage() {
    printf 'usage: %s build\n' "$0" >&2
    exit 2
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
            ci_apt_install chromium Chromium THINKER_CHROMIUM
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
