"""The local backend: runs here, `jobs` at a time, each `ibcc run` writing its output to a
log file. A stop requested by a signal ends the runs in progress with SIGTERM (each writes
what it has, result "interrupted") and starts no more."""

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from . import processes


@dataclass
class Job:
    cmd: list
    log: Path
    status: int = -1   # exit code once run; 128 + N when ended by signal N


def exit_code(returncode):
    return returncode if returncode >= 0 else 128 - returncode


def run(jobs, at_once, on_change=lambda running, finished: None, poll=0.05):
    """Run `jobs` (Job) at most `at_once` at a time; each job's status is set when it ends.
    on_change(running, finished) is called when a job starts or ends. True when every job
    ran; False when a stop was requested (processes.stop_requested) before."""
    running = {}
    queue = list(jobs)
    finished = 0
    while queue or running:
        while queue and len(running) < at_once and not processes.stop_requested():
            job = queue.pop(0)
            Path(job.log).parent.mkdir(parents=True, exist_ok=True)
            with open(job.log, "w") as log:
                p = processes.start(job.cmd, stdout=log, stderr=subprocess.STDOUT)
            running[p] = job
            on_change(len(running), finished)
        if processes.stop_requested():
            # (the runs ended here keep status -1: they did not finish)
            processes.end_children(signal.SIGTERM, timeout=60)
            return False
        ended = [p for p in running if p.poll() is not None]
        if not ended:
            time.sleep(poll)
            continue
        for p in ended:
            job = running.pop(p)
            processes.forget(p)
            job.status = exit_code(p.returncode)
            finished += 1
        on_change(len(running), finished)
    return True


def default_jobs(threads=1):
    """Runs at once by default: one per core, or the cores over each run's threads."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, cores // max(1, threads))
