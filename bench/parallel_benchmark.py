#!/usr/bin/env python3
"""How one simulation scales over threads (`ibcc run --threads N`): one table of

  hosts | traffic | threads | wall s per simulated ms | speed-up | barrier share | identical

for the fat trees of bench/scaling_benchmark.py (648 and 11,664 hosts by default; 45,056 and
65,536 on request, the latter a RoCE fabric) under uniform full load and a ring, CC on, each
thread count run in the same invocation: the speed-up is against --threads 1 of the same
build measured beside it, the barrier share is the threads' time waiting at barriers
(including the log intervals one thread closes while the others wait) over threads x wall
time, and `identical` says whether flows.csv, ports.csv, ccti.csv or rates.csv, latency.csv
and metrics.json are byte-identical to the --threads 1 run's. With --old OTHER_IBCC, the --threads 1 case also runs with another build
(e.g. from before the parallel engine) and the table gives old/new wall time. With
--repeats N each case runs N times, alternating, and the medians are given.

Usage: parallel_benchmark.py [BUILD_DIR] [--threads 1,2,4,8,16] [--hosts 648,11664]
                             [--traffic uniform,ring] [--sim-time 100us] [--old OLD_IBCC]
                             [--repeats N] [--json FILE]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from scaling_benchmark import FABRICS, scenario_text  # noqa: E402

OUTPUTS = ["flows.csv", "ports.csv", "ccti.csv", "rates.csv", "latency.csv", "metrics.json"]


def run(ibcc, path, out, sim_time, threads):
    args = [ibcc, "run", path, "--out", out, "--force", "--quiet", "--sim-time", sim_time]
    if threads:
        args += ["--threads", str(threads)]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(args)} failed (exit {r.returncode}): {r.stderr.strip().splitlines()[-1:]}")
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def identical(a, b):
    for name in OUTPUTS:
        pa, pb = os.path.join(a, name), os.path.join(b, name)
        if os.path.exists(pa) != os.path.exists(pb):
            return False
        if os.path.exists(pa) and open(pa, "rb").read() != open(pb, "rb").read():
            return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--threads", default="1,2,4,8,16")
    ap.add_argument("--hosts", default="648,11664")
    ap.add_argument("--traffic", default="uniform,ring")
    ap.add_argument("--sim-time", default="100us")
    ap.add_argument("--old", help="another ibcc binary: its one-thread run beside ours")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--json", help="write the rows here")
    a = ap.parse_args()
    ibcc = os.path.join(a.build, "bin", "ibcc")
    threads = [int(t) for t in a.threads.split(",")]
    if 1 not in threads:
        threads = [1] + threads
    hosts = [int(h) for h in a.hosts.split(",")]
    for h in hosts:
        if h not in FABRICS:
            ap.error(f"--hosts: {h} is not one of {', '.join(map(str, FABRICS))}")
    sim_ms = None
    print(f"sim time {a.sim_time} per case, CC on, {os.cpu_count()} cores"
          + (f", median of {a.repeats} runs" if a.repeats > 1 else ""))
    print(f"{'hosts':>6} {'traffic':>8} {'threads':>7} {'s/sim ms':>9} {'speed-up':>8} {'barrier':>8} {'identical':>9}"
          + (f" {'old/new':>8}" if a.old else ""))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for t in a.traffic.split(","):
            for h in hosts:
                path = os.path.join(tmp, f"parallel_{h}_{t}.yaml")
                with open(path, "w") as f:
                    f.write(scenario_text(h, t))
                walls = {n: [] for n in threads}
                old_walls = []
                barrier = {}
                for _ in range(a.repeats):
                    for n in threads:
                        s = run(ibcc, path, os.path.join(tmp, f"t{n}"), a.sim_time, n)
                        sim_ms = s["sim_time_us"] / 1000
                        walls[n].append(s["wall_s"])
                        barrier[n] = s.get("parallel", {}).get("barrier_share", 0.0)
                        if n == 1 and a.old:
                            o = run(a.old, path, os.path.join(tmp, "old"), a.sim_time, 0)
                            old_walls.append(o["wall_s"])
                base = statistics.median(walls[1])
                for n in threads:
                    w = statistics.median(walls[n])
                    same = n == 1 or identical(os.path.join(tmp, "t1"), os.path.join(tmp, f"t{n}"))
                    r = {"hosts": h, "traffic": t, "threads": n, "wall_s": w, "s_per_sim_ms": w / sim_ms,
                         "speedup": base / w, "barrier_share": barrier[n], "identical": same}
                    line = (f"{h:>6} {t:>8} {n:>7} {w / sim_ms:>9.2f} {base / w:>8.2f} {barrier[n]:>8.1%} "
                            f"{'yes' if same else 'NO':>9}")
                    if a.old and n == 1:
                        r["old_wall_s"] = statistics.median(old_walls)
                        line += f" {r['old_wall_s'] / w:>8.3f}"
                    print(line, flush=True)
                    rows.append(r)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"sim_time": a.sim_time, "cores": os.cpu_count(), "rows": rows}, f, indent=1)
    return 0 if all(r["identical"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
