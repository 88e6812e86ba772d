#!/usr/bin/env python3
"""Speed of the CC blocks, measured in one run so the numbers compare as ratios:
co-simulation (Verilated --cc RTL beside the C++ reference, both driven by one clocked
SystemC process, scoreboard every cycle), the raw Verilated model (--cc, C++ loop, no SystemC) and the bare C++ core.

Usage: run_benchmarks.py [BUILD_DIR] [--repeats N] [--cycles N] [--old OLD_IBCC]
Prints a table (best and median of N repeats; the machine is shared, so the best is the
least disturbed) and writes BUILD_DIR/bench/results.json. With --old (another build's ibcc
binary), each co-simulation repeat runs the old and this build alternately with the same
arguments, and the per-pair ratios of their rates are printed.
"""
import json
import os
import re
import statistics
import subprocess
import sys

# Co-simulated cycles/s, median of the repeats, against the targets.
TARGET_COSIM = {"fecn": 1.0e6, "ccti": 1.5e6}


def arg(flag, default):
    return type(default)(sys.argv[sys.argv.index(flag) + 1]) if flag in sys.argv else default


def cosim_rate(ibcc, block, cycles):
    out = subprocess.run([ibcc, "cosim", "--block", block, "--test", "random",
                          "--cycles", str(cycles), "--seed", "1", "--quiet"], capture_output=True, text=True,
                         check=True).stdout
    m = re.search(r"(\d+) cycles, (\d+) mismatches, ([\d.]+) s", out)
    if not m or m.group(2) != "0":
        raise SystemExit(f"co-simulation of {block} failed:\n{out}")
    return int(m.group(1)) / float(m.group(3))


def main():
    build = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else "build"
    repeats = arg("--repeats", 3)
    cycles = arg("--cycles", 2000000)
    old = arg("--old", "")
    raw = subprocess.run([os.path.join(build, "bin", "ibcc_bench_blocks"), "--benchmark_format=json",
                          f"--benchmark_repetitions={repeats}", "--benchmark_min_time=0.5"],
                         capture_output=True, text=True, check=True)
    bench = {}
    for b in json.loads(raw.stdout)["benchmarks"]:
        if b.get("run_type") == "iteration":
            bench.setdefault(b["run_name"], []).append(b["items_per_second"])
    results = {}
    for block, raw_name, core_name in (("fecn", "BM_RawRtlFecn", "BM_CoreFecn"),
                                       ("ccti", "BM_RawRtlCcti", "BM_CoreCcti")):
        rates, old_rates = [], []
        for _ in range(repeats):
            if old:
                old_rates.append(cosim_rate(old, block, cycles))
            rates.append(cosim_rate(os.path.join(build, "bin", "ibcc"), block, cycles))
        if old:
            results[block + "_old_cosim"] = old_rates
            results[block + "_new_over_old"] = [n / o for n, o in zip(rates, old_rates)]
        results[block] = {
            "cosim_best": max(rates), "cosim_median": statistics.median(rates),
            "raw_rtl_best": max(bench[raw_name]), "core_best": max(bench[core_name]),
        }
    results["ccti_advance_idle_cycles_per_s"] = max(bench["BM_CoreCctiAdvanceIdle"])

    print(f"{'block':6} {'co-sim best':>12} {'co-sim median':>14} {'raw Verilated':>14} {'C++ core':>10} "
          f"{'raw/co-sim':>10} {'target (median)':>16}")
    for block in ("fecn", "ccti"):
        r = results[block]
        print(f"{block:6} {r['cosim_best']/1e6:10.3f} M {r['cosim_median']/1e6:12.3f} M {r['raw_rtl_best']/1e6:12.3f} M "
              f"{r['core_best']/1e6:8.3f} M {r['raw_rtl_best']/r['cosim_best']:10.1f} "
              f"{TARGET_COSIM[block]/1e6:5.1f} M {'met' if r['cosim_median'] >= TARGET_COSIM[block] else 'missed':>8}")
    for block in ("fecn", "ccti") if old else ():
        r = results[block + "_new_over_old"]
        print(f"{block}: co-sim new / old ({old}) per pair {min(r):.2f}-{max(r):.2f}, median {statistics.median(r):.2f}; "
              f"old median {statistics.median(results[block + '_old_cosim'])/1e6:.3f} M")
    print(f"lazy advance of an idle CCTI block: {results['ccti_advance_idle_cycles_per_s']/1e9:.1f} G cycles/s")
    os.makedirs(os.path.join(build, "bench"), exist_ok=True)
    with open(os.path.join(build, "bench", "results.json"), "w") as f:
        json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
