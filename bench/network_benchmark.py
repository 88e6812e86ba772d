#!/usr/bin/env python3
"""Speed and memory of the network model against its targets:

  * topologies/clos648/hotspot.yaml with CC on: wall seconds per simulated millisecond,
    simulated packet-hops per wall second, peak memory (VmHWM of the process);
  * the same fabric fully loaded (every node sends uniformly at link rate, CC off), so the
    cost per hop is also seen where the fabric moves the most packets;
  * topologies/seed-testbed/scenario1.yaml at full length (5 s simulated) with CC on.

Usage: network_benchmark.py [BUILD_DIR] [--sim-time 5ms] [--repeats N]
Prints a table against the targets and writes BUILD_DIR/bench/network.json. Each case runs
N times; the best wall time is reported (the machine is shared; the best run is the least
disturbed) together with the median.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

TARGET_S_PER_MS = 5.0      # wall s per simulated ms on clos648 hotspot, CC on
TARGET_MEMORY_MB = 1024.0
TARGET_SCENARIO1_S = 60.0  # scenario 1, 5 s simulated
SEED_S_PER_MS = (350, 700)  # the seed's OMNeT++ model on one core (1-2 days for 0.5 s)


def arg(flag, default):
    return type(default)(sys.argv[sys.argv.index(flag) + 1]) if flag in sys.argv else default


def run(ibcc, scenario, sim_time, extra):
    with tempfile.TemporaryDirectory() as out:
        cmd = [ibcc, "run", scenario, "--out", out, "--quiet", "--sim-time", sim_time] + extra
        subprocess.run(cmd, check=True)
        with open(os.path.join(out, "summary.json")) as f:
            return json.load(f)


def measure(ibcc, name, scenario, sim_time, extra, repeats):
    runs = [run(ibcc, scenario, sim_time, extra) for _ in range(repeats)]
    best = min(runs, key=lambda r: r["wall_s"])
    sim_ms = best["sim_time_us"] / 1000
    walls = [r["wall_s"] for r in runs]
    return {
        "case": name,
        "sim_ms": sim_ms,
        "wall_s_best": best["wall_s"],
        "wall_s_median": statistics.median(walls),
        "s_per_sim_ms": best["wall_s"] / sim_ms,
        "hops": best["packet_hops"],
        "hops_per_s": best["packet_hops"] / best["wall_s"],
        "events_per_s": best["events"] / best["wall_s"],
        "peak_mb": max(r["peak_rss_mb"] for r in runs),
        "delivered_gbps": sum(f["delivered_bytes"] for f in best["flows"]) * 8 / (best["sim_time_us"] * 1e-6) / 1e9,
    }


def main():
    build = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else "build"
    ibcc = os.path.join(build, "bin", "ibcc")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sim_time = arg("--sim-time", "5ms")
    repeats = arg("--repeats", 1)
    clos = os.path.join(root, "topologies", "clos648", "hotspot.yaml")
    uniform = ["--cc", "off", "--set",
               "traffic.patterns=[{type: uniform, sources: all, message: 16KiB, outstanding: 4}]"]
    cases = [
        measure(ibcc, "clos648 hotspot, CC on", clos, sim_time, ["--cc", "on"], repeats),
        measure(ibcc, "clos648 all-uniform, CC off", clos, "1ms", uniform, repeats),
        measure(ibcc, "scenario 1 full length, CC on", os.path.join(root, "topologies", "seed-testbed",
                                                                     "scenario1.yaml"), "5s", ["--cc", "on"], 1),
    ]
    print(f"{'case':32} {'sim':>8} {'wall s':>8} {'s/sim ms':>9} {'Mhops/s':>8} {'Gb/s del.':>10} {'peak MB':>8}")
    for c in cases:
        print(f"{c['case']:32} {c['sim_ms']:6.1f}ms {c['wall_s_best']:8.2f} {c['s_per_sim_ms']:9.3f} "
              f"{c['hops_per_s'] / 1e6:8.3f} {c['delivered_gbps']:10.0f} {c['peak_mb']:8.0f}")
    clos_case, _, s1 = cases
    print()
    print(f"clos648 hotspot CC on: {clos_case['s_per_sim_ms']:.2f} wall s per simulated ms "
          f"(target <= {TARGET_S_PER_MS}: {'met' if clos_case['s_per_sim_ms'] <= TARGET_S_PER_MS else 'MISSED'}; "
          f"the seed's OMNeT++ model: {SEED_S_PER_MS[0]}-{SEED_S_PER_MS[1]}), "
          f"peak memory {clos_case['peak_mb']:.0f} MB (target < {TARGET_MEMORY_MB:.0f}: "
          f"{'met' if clos_case['peak_mb'] < TARGET_MEMORY_MB else 'MISSED'})")
    print(f"scenario 1, 5 s simulated: {s1['wall_s_best']:.1f} wall s (target < {TARGET_SCENARIO1_S:.0f}: "
          f"{'met' if s1['wall_s_best'] < TARGET_SCENARIO1_S else 'MISSED'})")
    os.makedirs(os.path.join(build, "bench"), exist_ok=True)
    with open(os.path.join(build, "bench", "network.json"), "w") as f:
        json.dump(cases, f, indent=2)


if __name__ == "__main__":
    main()
