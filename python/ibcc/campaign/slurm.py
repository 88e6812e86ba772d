"""The one Slurm client of ibcc: a job array submitted with sbatch, followed with squeue,
cancelled with scancel. A sweep submits one task per point, a tune one task per worker."""

import shlex
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from .errors import RunError
from .storage import write_text


class SlurmError(RunError):
    pass


def _call(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True)
    except FileNotFoundError:
        raise SlurmError(f"{cmd[0]} not found: is this a Slurm submit host (Slurm's client commands in PATH)?") from None


@dataclass
class ArrayJob:
    script: str      # run by every task (SLURM_ARRAY_TASK_ID tells it which)
    tasks: int
    name: str        # the job's name in squeue
    log_dir: str     # Slurm's per-task logs: slurm-JOB_TASK.out
    array_max: int = 0   # tasks at once, 0: no limit
    partition: str = ""
    cpus_per_task: int = 1   # a task's threads (ibcc run --threads)


def task_list_script(task_list):
    """A script for an array whose task N runs the Nth line of `task_list` (a script path)."""
    return ("#!/usr/bin/env bash\n"
            "# ibcc: one array task = one line of the task list, a script to run\n"
            "set -euo pipefail\n"
            f"task=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" {shlex.quote(str(task_list))})\n"
            "exec bash \"$task\"\n")


def submit(job):
    """sbatch the array; its job id."""
    if job.tasks <= 0:
        raise SlurmError("nothing to submit")
    array = f"0-{job.tasks - 1}" + (f"%{job.array_max}" if job.array_max else "")
    cmd = ["sbatch", "--parsable", f"--array={array}", f"--job-name={job.name}",
           f"--output={job.log_dir}/slurm-%A_%a.out", "--ntasks=1", f"--cpus-per-task={job.cpus_per_task}"]
    if job.partition:
        cmd.append(f"--partition={job.partition}")
    p = _call(cmd + [job.script])
    out = (p.stdout + p.stderr).strip()
    if p.returncode != 0:
        raise SlurmError(f"sbatch failed (exit {p.returncode}): {out}")
    # --parsable: "JOBID" or "JOBID;CLUSTER" on the last line, possibly after warnings.
    last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    job_id = last.split(";")[0]
    if not job_id.isdigit():
        raise SlurmError(f"sbatch gave no job id: {out}")
    return job_id


def in_queue(job_id):
    p = _call(["squeue", "-h", "-j", job_id, "-o", "%i"])
    # squeue exits non-zero for a job id it no longer knows: the job has left the queue.
    if p.returncode != 0:
        if "Invalid job id" in p.stdout + p.stderr:
            return False
        raise SlurmError(f"squeue failed (exit {p.returncode}): {(p.stdout + p.stderr).strip()}")
    return bool(p.stdout.strip())


def cancel(job_id):
    _call(["scancel", job_id])


def wait(job_id, tick, stop=lambda: False, poll=2.0):
    """Until the job leaves the queue, calling tick() between polls. True when it left;
    False when stop() asked to end first (the job is then cancelled). Ctrl-C (a
    KeyboardInterrupt) cancels it too."""
    try:
        while in_queue(job_id):
            deadline = time.monotonic() + poll
            while time.monotonic() < deadline and not stop():
                time.sleep(0.1)
            if stop():
                cancel(job_id)
                return False
            tick()
    except KeyboardInterrupt:
        cancel(job_id)
        raise
    return True


class JobFile:
    """slurm/job in a campaign's --out: the id of its last job, so that a resumed campaign
    waits for a job of an earlier invocation still in the queue instead of doubling it."""

    def __init__(self, slurm_dir):
        self.path = Path(slurm_dir) / "job"

    def queued(self):
        """The id of the earlier job if it is still in the queue, else ''."""
        job_id = self.path.read_text().strip() if self.path.exists() else ""
        return job_id if job_id and in_queue(job_id) else ""

    def record(self, job_id):
        write_text(self.path, job_id + "\n")
