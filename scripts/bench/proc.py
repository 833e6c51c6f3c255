"""proc.py — running a tick as a child process and reading its own memory.

    spawn(argv, env, stderr, at_exit=None)  runs argv to its end: (wall s, at_exit's
                                            figures or None, ru_maxrss MB, exit code);
                                            with at_exit, the child is traced and
                                            at_exit(pid) reads it as it exits
    vm_hwm_mb(pid)                          an at_exit: the child's VmHWM (peak RSS), MB
    sampled_peak(argv)                      runs argv untraced, sampling its VmHWM every
                                            0.5 ms: (exit code, wall ms, peak MB)

Why ptrace. `ru_maxrss` from wait4 is not the child's own figure: Linux folds the
high-water mark of the memory the child had before its exec (this Python process's,
copied by fork, 20+ MB here) into it, so a /bin/true started from here "peaks" at
Python's size. The exact figure is the child's VmHWM just before it exits, read while
it is stopped at PTRACE_EVENT_EXIT (before the kernel takes its memory away; ptrace
through ctypes: its own child, no privilege).

Standard library only; Linux only (ptrace, /proc). Imported by the scripts beside it,
never run.
"""

import ctypes
import os
import re
import signal
import subprocess
import time
from pathlib import Path

_libc = ctypes.CDLL(None, use_errno=True)
_libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
_libc.ptrace.restype = ctypes.c_long
PTRACE_TRACEME, PTRACE_CONT, PTRACE_SETOPTIONS = 0, 7, 0x4200
PTRACE_O_TRACEEXIT, PTRACE_EVENT_EXIT = 0x40, 6


def _traceme():
    _libc.ptrace(PTRACE_TRACEME, 0, None, None)  # on failure the child just runs untraced


def vm_hwm_mb(pid):
    """VmHWM of a process (stopped at its exit), MB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return None


def spawn(argv, env=None, stderr=subprocess.DEVNULL, at_exit=None):
    """Runs argv to its end: (wall seconds, at_exit(pid) or None, ru_maxrss MB, code).

    Traced runs are for memory only: a preexec_fn makes Python fork (copying its 20 MB)
    instead of vfork, and the two ptrace stops add their share; that would be timed too.
    """
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=stderr, env=env,
                             preexec_fn=_traceme if at_exit else None)
    traced, figures = False, None
    while True:
        _, status, usage = os.wait4(child.pid, 0)
        if not os.WIFSTOPPED(status):
            break
        sig, event = os.WSTOPSIG(status), status >> 16
        if sig == signal.SIGTRAP and not traced:  # stopped at its exec
            traced = True
            _libc.ptrace(PTRACE_SETOPTIONS, child.pid, None, PTRACE_O_TRACEEXIT)
            sig = 0
        elif sig == signal.SIGTRAP and event == PTRACE_EVENT_EXIT:
            figures = at_exit(child.pid)
            sig = 0
        _libc.ptrace(PTRACE_CONT, child.pid, None, sig)  # passes other signals on
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    # Linux reports ru_maxrss in KiB.
    return wall, figures, usage.ru_maxrss / 1024.0, child.returncode


def sampled_peak(argv):
    """Runs argv (no ptrace), reading its VmHWM from /proc/PID/status every 0.5 ms while
    it runs (a sample can miss the last peak): (exit code, wall ms, peak MB)."""
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    started = time.monotonic()
    while p.poll() is None:
        try:
            status = Path(f"/proc/{p.pid}/status").read_text()
            m = re.search(r"^VmHWM:\s+(\d+)", status, re.M)
            if m:
                peak = max(peak, int(m.group(1)))
        except OSError:
            break
        time.sleep(0.0005)
    wall = (time.monotonic() - started) * 1000
    return p.wait(), wall, peak / 1024
