#!/usr/bin/env python3
"""One simulation over MPI processes gives a one-thread run's results, byte for byte:

1. Every shipped scenario (topologies/**/*.yaml but the studies, a short run each, several
   log intervals) run with `--threads 1` and under `mpirun -n 2 ibcc run --threads 2` (2
   processes x 2 threads, 4 groups): flows.csv, ports.csv, ccti.csv or rates.csv, latency.csv
   and metrics.json identical. A fabric with fewer than 4 switches cannot be split so:
   refused with exit 2 by every process, naming why, and nothing written.
2. The run's summary.json names 2 processes of 2 threads and counts every event once (the
   groups' events, each counted in its own process, sum to the run's).
3. A bad --out (a file where the directory should be) fails rank 0's set-up: every process
   ends (exit 1 from the launcher), none waits for it.

Usage: check_mpi_identity.py IBCC MPIEXEC SOURCE_DIR OUT_DIR [--all]    (exit 0 pass, 1 fail)
Without --all (the CTest) the fabrics of 10,000 hosts and more are left out, said as NOT RUN.
The MPI settings (as root in a container) come from the environment (CTest's).
"""
import glob
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks, under_sanitizers_skip  # noqa: E402
from parallel_runs import same_outputs, short_run  # noqa: E402

checks = Checks()
check = checks.check
LARGE = ("fattree11664", "fattree45056", "fattree65536", "xdr10368")


def run(cmd, timeout=600):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, f"no answer in {timeout} s"
    return r.returncode, (r.stderr + r.stdout).strip()


def main():
    everything = "--all" in sys.argv
    ibcc, mpiexec, src, out = [a for a in sys.argv[1:] if a != "--all"][:4]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out, exist_ok=True)
    mpi = [mpiexec, "-n", "2"]
    scenarios = sorted(glob.glob(os.path.join(src, "topologies", "**", "*.yaml"), recursive=True))
    scenarios = [s for s in scenarios if "/studies/" not in s and not under_sanitizers_skip(s)]
    if not everything:
        # CI's time: the fabrics of 10,000 hosts and more (11,664 to 65,536, about 6 of this
        # check's 9 minutes here) are compared with --all; check_parallel_identity.py runs
        # them over threads in every CI run.
        large = [s for s in scenarios if any(k in s for k in LARGE)]
        for s in large:
            print(f"NOT RUN without --all (CI's time): {os.path.relpath(s, src)}", flush=True)
        scenarios = [s for s in scenarios if s not in large]
    identical, refused = 0, 0
    for path in scenarios:
        name = os.path.relpath(path, os.path.join(src, "topologies")).replace("/", "_")[:-5]
        args = short_run(path)
        seq, par = os.path.join(out, name, "t1"), os.path.join(out, name, "r2t2")
        rc, err = run([ibcc, "run", path, "--out", seq, "--force", "--quiet", *args])
        if rc != 0:
            check(False, f"{name}: --threads 1 runs (exit {rc}: {err[-300:]})")
            continue
        rc, err = run(mpi + [ibcc, "run", path, "--out", par, "--force", "--quiet", "--threads", "2", *args])
        if "2 processes x --threads 2:" in err and ("units" in err or "does not support" in err):
            refused += 1
            check(rc != 0 and not os.path.exists(os.path.join(par, "flows.csv")),
                  f"{name}: refused (exit {rc}), no results written ({err.splitlines()[0][:160]})")
            continue
        if rc != 0:
            check(False, f"{name}: 2 processes x 2 threads run (exit {rc}: {err[-400:]})")
            continue
        compared, differ = same_outputs(seq, par)
        identical += not differ
        check(not differ and "flows.csv" in compared,
              f"{name}: 2 processes x 2 threads give --threads 1's {', '.join(compared)} byte for byte"
              f"{' (differ: ' + ', '.join(differ) + ')' if differ else ''}")
        if name == "clos648_uniform":
            p = json.load(open(os.path.join(par, "summary.json")))
            para = p.get("parallel", {})
            events = sum(g["events"] for g in para.get("groups", []))
            check(para.get("processes") == 2 and para.get("threads_per_process") == 2 and para.get("threads") == 4
                  and len(para.get("groups", [])) == 4 and events == p["events"] and min(g["events"] for g in para["groups"]) > 0,
                  f"{name}: summary.json: {para.get('processes')} processes x {para.get('threads_per_process')} threads, "
                  f"{len(para.get('groups', []))} groups whose events sum to the run's ({events} of {p['events']})")
    check(identical >= 8, f"{identical} shipped scenarios compared identical, {refused} refused (at least 8 compared)")

    # A set-up that fails at rank 0 only (--out is a file): every process ends.
    blocker = os.path.join(out, "a_file")
    open(blocker, "w").write("not a directory\n")
    mesh = os.path.join(src, "topologies", "clos648", "ring.yaml")
    rc, err = run(mpi + [ibcc, "run", mesh, "--out", os.path.join(blocker, "sub"), "--quiet", "--threads", "1",
                         "--sim-time", "10us"], timeout=120)
    check(rc not in (0, 124) and "ibcc run: error:" in err,
          f"--out under a file: rank 0 cannot write, every process ends (exit {rc}: {err.splitlines()[0][:160] if err else ''})")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
