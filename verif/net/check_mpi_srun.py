#!/usr/bin/env python3
"""CTest `mpi_srun` (labels parallel, mpi, slurm): the ranks' exchange and one simulation
over processes, launched by Slurm.

  check_mpi_srun.py RANK_EXCHANGE_CHECK IBCC SOURCE_DIR WORK_DIR

Starts a single-node Slurm (verif/lib/slurm_local.py: munged, slurmctld, slurmd), runs
`srun --mpi=pmix -n 2 ibcc_rank_exchange_check 2` in it (every byte of every exchange checked
on both ranks, and that the two tasks are the two ranks of one job, not two jobs of one rank),
then `srun --mpi=pmix -n 2 ibcc run` of the 648-host ring (one thread per task: 2 groups),
whose results must be those of one thread, byte for byte; and stops it. Exit 0 pass, 1 fail.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lib"))
from checks import Checks  # noqa: E402
from parallel_runs import same_outputs  # noqa: E402
from slurm_local import LocalSlurm  # noqa: E402

checks = Checks()
check = checks.check


def main():
    exe, ibcc, src = str(Path(sys.argv[1]).resolve()), str(Path(sys.argv[2]).resolve()), Path(sys.argv[3]).resolve()
    work = Path(sys.argv[4]).resolve()
    ring = str(src / "topologies" / "clos648" / "ring.yaml")
    args = ["--sim-time", "20us", "--log-interval", "5us", "--force", "--quiet"]
    seq, par = str(work / "ring_t1"), str(work / "ring_srun2")
    # (Two tasks on this node whatever its cores: the check is of the launch, not of speed.)
    with LocalSlurm(work, cpus=max(2, os.cpu_count() or 1)) as cluster:
        # (The one-thread run in the cluster's directory, which it starts afresh.)
        r = subprocess.run([ibcc, "run", ring, "--out", seq, *args], capture_output=True, text=True, timeout=300)
        check(r.returncode == 0, f"the 648-host ring on one thread (exit {r.returncode}: {r.stderr[-200:]})")
        # (The MPI settings come from CTest's environment, as for the mpirun tests: cmake/tests.cmake.)
        r = subprocess.run(["srun", "--mpi=pmix", "-n", "2", "--time=2", exe, "2"], capture_output=True, text=True,
                           env=cluster.env, cwd=work, timeout=180)
        print(r.stdout + r.stderr)
        check(r.returncode == 0 and "2 ranks" in r.stdout and "all checks pass" in r.stdout,
              f"srun --mpi=pmix -n 2: both tasks are ranks of one exchange and every check passes (exit {r.returncode})")
        r = subprocess.run(["srun", "--mpi=pmix", "-n", "2", "--time=5", ibcc, "run", ring, "--out", par, *args],
                           capture_output=True, text=True, env=cluster.env, cwd=work, timeout=300)
        compared, differ = same_outputs(seq, par) if r.returncode == 0 else ([], [f"exit {r.returncode}: {r.stderr[-300:]}"])
        processes = json.load(open(Path(par) / "summary.json")).get("parallel", {}).get("processes") if r.returncode == 0 else None
        check(not differ and "flows.csv" in compared and processes == 2,
              f"srun --mpi=pmix -n 2 ibcc run: one simulation over {processes} processes, {', '.join(compared)} those of "
              f"one thread byte for byte{' (differ: ' + ', '.join(differ) + ')' if differ else ''}")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
