"""The `ibcc run` processes of a campaign end with it: on SIGTERM, SIGHUP (and SIGINT) and
after kill -9 of the campaign or of the `ibcc` command that started it.

- Each child gets IBCC_PARENT (its `ibcc run` sets Linux's PR_SET_PDEATHSIG from it), so it
  ends when this process ends, however that happens.
- This process ends with the `ibcc` command that started it (IBCC_PYTHON_PARENT), likewise.
- Children are registered while they live; a signal that comes while one is being started
  waits until it is registered, so that it is never left behind.

Two ways to answer a signal: ``exit_now`` (kill the children and exit 130 at once: a tune,
whose trial is rerun on resume) and ``request_stop`` (note it; the campaign's loop ends its
runs with SIGTERM, so they write what they have, and then exits 130: a sweep).
"""

import os
import signal
import subprocess

from .errors import INTERRUPTED

_CHILDREN = set()
_SPAWN = {"busy": False, "pending": 0}
_STOP = {"signal": 0}
_HANDLER = {"fn": None}


def child_env():
    return dict(os.environ, IBCC_PARENT=str(os.getpid()))


def start(cmd, **popen_args):
    """subprocess.Popen(cmd, ...) with IBCC_PARENT set, registered until ``forget``."""
    _SPAWN["busy"] = True
    try:
        p = subprocess.Popen(cmd, env=child_env(), **popen_args)
        _CHILDREN.add(p)
    finally:
        _SPAWN["busy"] = False
        if _SPAWN["pending"]:
            sig, _SPAWN["pending"] = _SPAWN["pending"], 0
            _HANDLER["fn"](sig, None)
    return p


def forget(p):
    _CHILDREN.discard(p)


def running():
    return set(_CHILDREN)


def run_child(cmd):
    """subprocess.run(cmd, capture_output=True, text=True), its process registered."""
    p = start(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with p:
        try:
            out, err = p.communicate()
        except BaseException:
            p.kill()
            raise
        finally:
            forget(p)
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def end_children(sig, timeout=10):
    """Send `sig` to every registered child and wait for each (at most `timeout` seconds)."""
    for p in list(_CHILDREN):
        try:
            p.send_signal(sig)
        except OSError:
            pass
    for p in list(_CHILDREN):
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        forget(p)


def exit_now(signum, frame):
    """Kill the children and exit 130, as the signal's default action would, leaving nothing
    running behind."""
    if _SPAWN["busy"]:
        _SPAWN["pending"] = signum
        return
    end_children(signal.SIGKILL)
    os._exit(INTERRUPTED)


def request_stop(signum, frame):
    """Note the signal; the campaign's loop sees ``stop_requested()`` and ends its runs."""
    _STOP["signal"] = signum


def stop_requested():
    return _STOP["signal"] != 0


def install(handler, signals=(signal.SIGTERM, signal.SIGHUP)):
    """Answer `signals` with `handler` (exit_now or request_stop) and end with the `ibcc`
    command that started this process."""
    _HANDLER["fn"] = handler
    for s in signals:
        signal.signal(s, handler)
    _die_with_parent(handler)
    # `ibcc` starts this process with them blocked (src/python_launcher.cpp): one that came
    # during start-up is delivered now, to its handler (SIGINT, if not in `signals`, as
    # Python's KeyboardInterrupt).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})


def _die_with_parent(handler):
    parent = os.environ.get("IBCC_PYTHON_PARENT")
    if not parent:
        return
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if str(os.getppid()) != parent:  # it ended before prctl
        handler(signal.SIGTERM, None)
