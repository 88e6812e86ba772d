#!/usr/bin/env python3
"""The 648-port fat-tree study (seed slides: 20 % of the nodes send to everyone, 80 % to 8
hotspots): topologies/clos648/hotspot.yaml with CC off, CC on at QP level and CC on at SL
level; prints the groups' throughput and p99 latency and plots hotspot and non-hotspot
throughput over time.

  python3 scripts/clos648_study.py BUILD_DIR OUT_DIR [--sim-time 50ms] [--window FROM..TO]

Writes OUT_DIR/<case>/ (each an ibcc run) and OUT_DIR/clos648_study.png.
"""
import argparse
import collections
import csv
import json
import subprocess
import sys
from pathlib import Path

CASES = {
    "cc_off": ["--cc", "off"],
    "cc_on_qp": ["--cc", "on"],
    "cc_on_sl": ["--cc", "on", "--set", "cc.ca.control=sl"],
}


def group_series(run_dir):
    summary = json.loads((run_dir / "summary.json").read_text())
    group = {f["name"]: f["group"] for f in summary["flows"]}
    series = collections.defaultdict(lambda: collections.defaultdict(float))
    with open(run_dir / "flows.csv") as f:
        for row in csv.DictReader(f):
            series[group[row["flow"]]][float(row["t_us"]) / 1000] += float(row["gbps"])
    return series


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--sim-time", default="50ms")
    ap.add_argument("--window", help="metrics window (default: the second half)")
    args = ap.parse_args()
    src = Path(__file__).resolve().parent.parent
    scenario = src / "topologies/clos648/hotspot.yaml"
    rows = {}
    for case, extra in CASES.items():
        out = args.out / case
        cmd = [str(args.build / "bin/ibcc"), "run", str(scenario), "--out", str(out), "--quiet", "--force",
               "--sim-time", args.sim_time, *extra]
        if args.window:
            cmd += ["--window", args.window]
        print("running:", " ".join(cmd), flush=True)
        if subprocess.run(cmd).returncode != 0:
            sys.exit(f"clos648_study: {case} failed")
        rows[case] = json.loads((out / "metrics.json").read_text())
    print(f"\n{'case':10} {'uniform Gb/s':>13} {'hotspot Gb/s':>13} {'p99 uniform us':>15} {'p99 hotspot us':>15}"
          f"   (window {rows['cc_off']['window']})")
    for case, m in rows.items():
        m = m["metrics"]
        print(f"{case:10} {m['group_total.uniform']:13.1f} {m['group_total.hotspot']:13.1f} "
              f"{m.get('latency_p99_us.uniform', float('nan')):15.1f} {m.get('latency_p99_us.hotspot', float('nan')):15.1f}")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharex=True)
    for ax, group, title in ((axes[0], "uniform", "non-hotspot (uniform) group"), (axes[1], "hotspot", "hotspot group")):
        for case in CASES:
            s = group_series(args.out / case)[group]
            ts = sorted(s)
            ax.plot(ts, [s[t] for t in ts], label=case.replace("_", " "), linewidth=1)
        ax.set_title(f"clos648 hotspot: {title}")
        ax.set_xlabel("time (ms)")
        ax.set_ylabel("throughput (Gb/s)")
        ax.grid(alpha=0.3)
    axes[0].legend()
    fig.tight_layout()
    png = args.out / "clos648_study.png"
    fig.savefig(png, dpi=110)
    print("plot:", png)


if __name__ == "__main__":
    main()
