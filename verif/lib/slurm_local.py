#!/usr/bin/env python3
"""A real single-node Slurm cluster on localhost for the `slurm` tests: munged with its own
key and socket, slurmctld and slurmd from a generated slurm.conf (free ports, state and
spool under a scratch directory), stopped again when the `with` block ends.

    with LocalSlurm(work_dir) as cluster:
        env = cluster.env          # SLURM_CONF points at the generated slurm.conf
        subprocess.run(["sbatch", ...], env=env)

Run as root (slurmd starts jobs as the submitting user). Debian 12: slurm-wlm 22.05, munge.
"""
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path


class SlurmError(Exception):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalSlurm:
    def __init__(self, work, cpus=None, partition="ibcc"):
        self.work = Path(work).resolve()
        self.cpus = cpus or os.cpu_count() or 1
        self.partition = partition
        self.procs = []
        self.env = None

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self):
        for tool in ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel"):
            if not shutil.which(tool):
                raise SlurmError(f"{tool} not found (scripts/bootstrap.sh installs slurm-wlm and munge)")
        shutil.rmtree(self.work, ignore_errors=True)
        for d in ("munge", "state", "spool", "log"):
            (self.work / d).mkdir(parents=True)
        os.chmod(self.work / "munge", 0o700)
        key = self.work / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        os.chmod(key, 0o400)
        sock = self.work / "munge" / "munge.socket"
        self._spawn(["munged", "--foreground", "--force", f"--key-file={key}", f"--socket={sock}",
                     f"--pid-file={self.work / 'munge' / 'munged.pid'}", f"--log-file={self.work / 'log' / 'munged.log'}",
                     f"--seed-file={self.work / 'munge' / 'munged.seed'}"], "munged")
        self._wait(lambda: sock.exists(), "munged's socket", 20)
        host = socket.gethostname()
        conf = self.work / "slurm.conf"
        conf.write_text("\n".join([
            "ClusterName=ibcctest",
            f"SlurmctldHost={host}(127.0.0.1)",
            f"SlurmctldPort={free_port()}",
            f"SlurmdPort={free_port()}",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={sock}",
            "SlurmUser=root",
            "SlurmdUser=root",
            f"StateSaveLocation={self.work / 'state'}",
            f"SlurmdSpoolDir={self.work / 'spool'}",
            f"SlurmctldPidFile={self.work / 'slurmctld.pid'}",
            f"SlurmdPidFile={self.work / 'slurmd.pid'}",
            f"SlurmctldLogFile={self.work / 'log' / 'slurmctld.log'}",
            f"SlurmdLogFile={self.work / 'log' / 'slurmd.log'}",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "JobCompType=jobcomp/none",
            "SchedulerType=sched/builtin",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core",
            "ReturnToService=2",
            "MpiDefault=none",
            "SlurmctldTimeout=30",
            "SlurmdTimeout=30",
            "InactiveLimit=0",
            "KillWait=5",
            "MinJobAge=300",
            "MaxArraySize=10001",
            f"NodeName={host} NodeAddr=127.0.0.1 CPUs={self.cpus} State=UNKNOWN",
            f"PartitionName={self.partition} Nodes={host} Default=YES MaxTime=INFINITE State=UP",
            ""]))
        self.env = dict(os.environ, SLURM_CONF=str(conf))
        self._spawn(["slurmctld", "-D", "-f", str(conf)], "slurmctld")
        self._spawn(["slurmd", "-D", "-f", str(conf), "-N", host], "slurmd")

        def node_idle():
            p = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True, env=self.env)
            return p.returncode == 0 and p.stdout.strip() in ("idle", "mix", "alloc")
        self._wait(node_idle, "the node to come up (sinfo idle)", 60)

    def _spawn(self, cmd, name):
        log = open(self.work / "log" / f"{name}.out", "w")
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=self.env or os.environ,
                             start_new_session=True)
        self.procs.append((name, p))

    def _wait(self, cond, what, seconds):
        deadline = time.time() + seconds
        while time.time() < deadline:
            for name, p in self.procs:
                if p.poll() is not None:
                    raise SlurmError(f"{name} exited ({p.returncode}) while waiting for {what}; see {self.work / 'log'}")
            if cond():
                return
            time.sleep(0.3)
        raise SlurmError(f"timed out waiting for {what}; see {self.work / 'log'}")

    def stop(self):
        if self.env:
            subprocess.run(["scancel", "--user", "root"], capture_output=True, env=self.env)
        for name, p in reversed(self.procs):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for name, p in reversed(self.procs):
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        self.procs = []


if __name__ == "__main__":
    import sys
    with LocalSlurm(sys.argv[1] if len(sys.argv) > 1 else "/tmp/ibcc-slurm") as c:
        print(subprocess.run(["sinfo"], capture_output=True, text=True, env=c.env).stdout)
        p = subprocess.run(["sbatch", "--wait", "--wrap", "hostname; echo ok"], capture_output=True, text=True, env=c.env,
                           cwd=c.work)
        print(p.returncode, p.stdout, p.stderr)
