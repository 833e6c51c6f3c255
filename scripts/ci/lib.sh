# scripts/ci/lib.sh — what the e2e-*.sh scripts beside it share; sourced, never run:
#
#     source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
#   log MSG / die MSG            progress and errors on stderr, tagged [SCRIPT] (the
#                                sourcing script's name without .sh; CI_TAG overrides)
#   ci_cache_dir                 the cache outside the repository the components live in:
#                                ${THINKER_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/thinker-e2e}
#   ci_lock FILE                 holds an exclusive lock on FILE (fd 9) until the script
#                                ends, so that concurrent builds take turns; false when
#                                flock is missing (then nothing is held)
#   ci_http_ok URL               true when URL answers 2xx within 2 s (curl)
#   ci_wait_http URL PID SECS LOG NAME [INTERVAL]
#                                polls URL until it answers; dies (after LOG's tail) when
#                                PID exits first or after SECS seconds (then kills PID)
#   ci_stop PID comm|cmdline PATTERN
#                                stops PID started by this script: refuses when its
#                                /proc/PID/comm does not start with PATTERN (comm) or its
#                                command line does not contain PATTERN (cmdline), sends
#                                SIGTERM, then SIGKILL after 10 s
#   ci_apt_install PACKAGE WHAT VAR
#                                installs a Debian package with apt-get (as root, or
#                                through sudo -n; `apt-get update` once if the first try
#                                fails); dies naming VAR, the variable that points at a
#                                WHAT installed otherwise, when it cannot

CI_TAG="${CI_TAG:-$(basename "$0" .sh)}"

log() { printf '[%s] %s\n' "$CI_TAG" "$*" >&2; }
die() { printf '[%s] ERROR: %s\n' "$CI_TAG" "$*" >&2; exit 1; }

ci_cache_dir() {
    printf '%s\n' "${THINKER_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/thinker-e2e}"
}

ci_lock() {
    command -v flock >/dev/null || return 1
    mkdir -p "$(dirname "$1")"
    exec 9>"$1"
    flock 9
}

ci_http_ok() {
    curl -fsS --max-time 2 -o /dev/null "$1" 2>/dev/null
}

ci_wait_http() {
    local url="$1" pid="$2" timeout="$3" logfile="$4" name="$5" interval="${6:-0.2}"
    local deadline=$((SECONDS + timeout))
    until ci_http_ok "$url"; do
        if ! kill -0 "$pid" 2>/dev/null; then
            tail -n 30 "$logfile" >&2 || true
            die "$name exited during startup (log: $logfile)"
        fi
        if ((SECONDS >= deadline)); then
            kill "$pid" 2>/dev/null || true
            tail -n 30 "$logfile" >&2 || true
            die "$name not answering after ${timeout}s (log: $logfile)"
        fi
        sleep "$interval"
    done
}

ci_stop() {
    local pid="$1" field="$2" pattern="$3"
    if ! kill -0 "$pid" 2>/dev/null; then
        log "pid $pid is not running"
        return
    fi
    # Refuse to kill something that is not what this script started.
    case "$field" in
        comm)
            if [[ -r "/proc/$pid/comm" && "$(cat "/proc/$pid/comm")" != "$pattern"* ]]; then
                die "pid $pid is not a $pattern ($(cat "/proc/$pid/comm"))"
            fi
            ;;
        cmdline)
            if [[ -r "/proc/$pid/cmdline" ]] && ! tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$pattern"; then
                die "pid $pid is not a $pattern process"
            fi
            ;;
        *) die "ci_stop: field must be comm or cmdline, not $field" ;;
    esac
    kill "$pid"
    local i
    for ((i = 0; i < 50; i++)); do
        kill -0 "$pid" 2>/dev/null || { log "stopped pid $pid"; return; }
        sleep 0.2
    done
    log "pid $pid ignored SIGTERM for 10 s; sending SIGKILL"
    kill -9 "$pid" 2>/dev/null || true
}

ci_as_root() {
    if [[ "$(id -u)" -eq 0 ]]; then
        "$@"
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        sudo -n "$@"
    else
        return 1
    fi
}

ci_apt_install() {
    local package="$1" what="$2" var="$3"
    command -v apt-get >/dev/null || die "no apt-get here: install $what yourself and set $var"
    log "installing Debian's $package package"
    local start=$SECONDS
    if ! DEBIAN_FRONTEND=noninteractive ci_as_root apt-get install -y "$package" >&2; then
        log "apt-get install failed; running apt-get update once and retrying"
        ci_as_root apt-get update >&2 || die "apt-get update failed (not root and no sudo, or no network)"
        DEBIAN_FRONTEND=noninteractive ci_as_root apt-get install -y "$package" >&2 \
            || die "apt-get install $package failed"
    fi
    log "installed in $((SECONDS - start)) s"
}
