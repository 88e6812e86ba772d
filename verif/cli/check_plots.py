#!/usr/bin/env python3
"""Every picture of `ibcc run --plot` and `ibcc plot` is readable: it exists, is not blank, and
its title, labels and legend lie inside the figure (python/ibcc/plots.py checks each figure's
layout boxes before saving; `ibcc plot` exits 1 otherwise). Cases: the seed test bed's scenarios
1 and 2, an imported fabric whose flow names are 20+ characters, the DCQCN incasts (rates.png
instead of ccti.png: two flows, and 721 drawn per group), a sweep with undefined (n/a) cells, a
sweep of three keys with failed points (a panel per value of the third), two runs compared (and
the comparison's bad uses: no --out, a label count that does not match, a sweep among the runs),
a run over three seeds (replicas_*.png);
plus a figure built to overflow, which the layout check must reject.

  check_plots.py IBCC SOURCE_DIR OUTDIR
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import matplotlib.image as mpimg

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402

RUN_PNGS = ("throughput.png", "fairness.png", "ports.png", "ccti.png", "latency.png", "fabric.png")
checks = Checks()
check = checks.check


def check_png(path):
    if not path.exists():
        check(False, f"{path}: missing")
        return
    img = mpimg.imread(path)
    h, w = img.shape[:2]
    check(w >= 400 and h >= 300 and img.std() >= 0.02, f"{path}: {w}x{h}, std {img.std():.3f}")


def run(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        check(False, f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()[-500:]}")
    return r


def main():
    ibcc, src, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    seed = src / "topologies" / "seed-testbed"
    cases = {
        "scenario1": [str(seed / "scenario1.yaml"), "--sim-time", "3s", "--cc", "on"],
        "scenario2": [str(seed / "scenario2.yaml"), "--sim-time", "2.5s", "--cc", "on"],
    }
    imported = out / "imported.yaml"
    run([ibcc, "import", "ibnetdiscover", str(src / "topologies" / "ibnetdiscover" / "fattree8.ibnetdiscover"),
         "--out", str(imported)])
    cases["imported"] = [str(imported), "--set",
                         "traffic={patterns: [{type: incast, name: incast_to_node01, dst: node01_HCA-1}]}",
                         "--set", "cc={switch: {threshold: 15, marking_rate: 1}, ca: {ccti_timer: 150, ccti_increase: 1}}"]
    for name, args in cases.items():
        d = out / name
        run([ibcc, "run", *args, "--out", str(d), "--quiet", "--plot"])
        for png in RUN_PNGS:
            check_png(d / png)
    dcqcn = src / "topologies" / "dcqcn"
    for name, args in {"incast2": [str(dcqcn / "incast2.yaml"), "--sim-time", "20ms", "--set", "sim.log_interval=1ms"],
                       "incast720": [str(dcqcn / "incast.yaml"), "--sim-time", "2ms", "--set", "sim.log_interval=100us"]}.items():
        d = out / name
        run([ibcc, "run", *args, "--out", str(d), "--quiet", "--plot"])
        for png in ("throughput.png", "ports.png", "rates.png", "latency.png"):
            check_png(d / png)
        check(not (d / "ccti.png").exists(), f"{d}: no ccti.png for a DCQCN run")
    sweep = out / "sweep"
    # 20 us: no contributor is active in the window, so Jain is undefined: n/a cells, not 0.
    run([ibcc, "sweep", str(seed / "scenario2.yaml"), "--out", str(sweep), "--sim-time", "20us", "--quiet",
         "--grid", "cc.switch.marking_rate=0,1", "--grid", "cc.ca.ccti_timer=50,150", "--metric", "jain",
         "--metric", "total"])
    jain = [ln.split(",")[3] for ln in (sweep / "sweep.csv").read_text().splitlines()[1:]]
    check(jain and all(v == "" for v in jain), f"undefined Jain is an empty cell: {jain}")
    run([ibcc, "plot", str(sweep)])
    for png in ("sweep_jain.png", "sweep_total.png"):
        check_png(sweep / png)
    # A third swept key: a panel per value, failed points marked (a fault fails half of them).
    sweep3 = out / "sweep3"
    r3 = subprocess.run([ibcc, "sweep", str(src / "tests" / "scenarios" / "base.yaml"), "--out", str(sweep3),
                         "--sim-time", "200us", "--quiet", "--grid", "cc.switch.threshold=4,15",
                         "--grid", "cc.ca.ccti_timer=10,150", "--grid", "debug.faults=[],[leak_credit_return]",
                         "--metric", "becn"], capture_output=True, text=True)
    check(r3.returncode == 1, f"a sweep with failing points exits 1: {r3.returncode}")
    run([ibcc, "plot", str(sweep3)])
    check_png(sweep3 / "sweep_becn.png")

    # Runs compared: scenario 1 and 2 overlaid.
    cmp_dir = out / "compare"
    r = run([ibcc, "plot", str(out / "scenario1"), str(out / "scenario2"), "--label", "scenario 1", "--label",
             "scenario 2", "--out", str(cmp_dir)])
    for png in ("compare_throughput.png", "compare_metrics.png"):
        check_png(cmp_dir / png)
    rows = (cmp_dir / "compare.csv").read_text().splitlines() if (cmp_dir / "compare.csv").exists() else []
    check(len(rows) == 3 and rows[1].startswith("scenario 1,") and rows[2].startswith("scenario 2,"),
          f"compare.csv: a row per run, labelled: {rows[:3]}")
    for args, expect in (([str(out / "scenario1"), str(out / "scenario2")], "--out DIR"),
                         ([str(out / "scenario1"), str(out / "scenario2"), "--label", "one", "--out", str(cmp_dir)],
                          "1 labels for 2 runs"),
                         ([str(out / "scenario1"), str(sweep), "--out", str(cmp_dir)], "is a sweep"),
                         ([str(out / "scenario1"), "--label", "x"], "--label names the runs of a comparison")):
        res = subprocess.run([ibcc, "plot", *args], capture_output=True, text=True)
        check(res.returncode == 2 and expect in res.stderr, f"ibcc plot {' '.join(args[-3:])}: exit {res.returncode}: "
              f"{res.stderr.strip()[-200:]}")

    # A run over seeds: the mean with the seeds' range, and the metrics with their intervals.
    reps = out / "seeds"
    run([ibcc, "run", str(seed / "scenario1.yaml"), "--out", str(reps), "--seeds", "3", "--sim-time", "1500ms",
         "--set", "cc.switch.marking_mode=random", "--quiet", "--plot"])
    for png in ("replicas_throughput.png", "replicas_metrics.png"):
        check_png(reps / png)
    res = subprocess.run([ibcc, "plot", str(reps), str(out / "scenario1"), "--out", str(cmp_dir)], capture_output=True,
                         text=True)
    check(res.returncode == 2 and "several seeds" in res.stderr, f"a run over seeds in a comparison: exit "
          f"{res.returncode}: {res.stderr.strip()[-200:]}")

    res = subprocess.run([ibcc, "plot", str(out)], capture_output=True, text=True)
    check(res.returncode == 2 and "neither summary.json" in res.stderr,
          f"plot of a plain directory: exit {res.returncode}: {res.stderr.strip()}")

    # The layout check itself: a legend pushed outside a figure without room for it is caught.
    sys.path.insert(0, str(src / "python"))
    import matplotlib.pyplot as plt
    from ibcc.plots import LayoutError, check_layout
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot([0, 1], [0, 1], label="a flow name long enough to leave the figure")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    try:
        check_layout(fig)
        check(False, "check_layout accepted a legend outside the figure")
    except LayoutError as e:
        check(True, f"check_layout rejects an overflowing legend: {str(e)[:120]}")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
