#!/usr/bin/env python3
"""CTest `mpi_srun` (labels parallel, mpi, slurm): the ranks' exchange launched by Slurm.

  check_mpi_srun.py RANK_EXCHANGE_CHECK WORK_DIR

Starts a single-node Slurm (verif/lib/slurm_local.py: munged, slurmctld, slurmd), runs
`srun --mpi=pmix -n 2 ibcc_rank_exchange_check 2` in it (every byte of every exchange checked
on both ranks, and that the two tasks are the two ranks of one job, not two jobs of one rank)
and stops it. Exit 0 pass, 1 fail.
"""
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lib"))
from checks import Checks  # noqa: E402
from slurm_local import LocalSlurm  # noqa: E402

checks = Checks()
check = checks.check


def main():
    exe, work = str(Path(sys.argv[1]).resolve()), Path(sys.argv[2]).resolve()
    # (Two tasks on this node whatever its cores: the check is of the launch, not of speed.)
    with LocalSlurm(work, cpus=max(2, os.cpu_count() or 1)) as cluster:
        # (The MPI settings come from CTest's environment, as for the mpirun tests: cmake/tests.cmake.)
        r = subprocess.run(["srun", "--mpi=pmix", "-n", "2", "--time=2", exe, "2"], capture_output=True, text=True,
                           env=cluster.env, cwd=work, timeout=180)
        print(r.stdout + r.stderr)
        check(r.returncode == 0 and "2 ranks" in r.stdout and "all checks pass" in r.stdout,
              f"srun --mpi=pmix -n 2: both tasks are ranks of one exchange and every check passes (exit {r.returncode})")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
