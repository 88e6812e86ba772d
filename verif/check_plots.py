#!/usr/bin/env python3
"""`ibcc run --plot` and `ibcc plot` on a sweep write readable PNGs: each expected file exists,
is a PNG of a sensible size and is not blank; a directory that is neither is an error (2).

  check_plots.py IBCC SCENARIO OUTDIR
"""
import shutil
import subprocess
import sys
from pathlib import Path

import matplotlib.image as mpimg


def check_png(path):
    if not path.exists():
        sys.exit(f"FAIL: {path} missing")
    img = mpimg.imread(path)
    h, w = img.shape[:2]
    if w < 400 or h < 300:
        sys.exit(f"FAIL: {path} is {w}x{h}")
    if img.std() < 0.02:
        sys.exit(f"FAIL: {path} looks blank")
    print(f"PASS {path.name}: {w}x{h}")


def main():
    ibcc, scenario, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    shutil.rmtree(out, ignore_errors=True)
    run = out / "run"
    subprocess.run([ibcc, "run", scenario, "--out", str(run), "--sim-time", "2.5s", "--cc", "on", "--quiet", "--plot"],
                   check=True, stdout=subprocess.DEVNULL)
    for name in ("throughput.png", "fairness.png", "ports.png", "ccti.png"):
        check_png(run / name)
    sweep = out / "sweep"
    subprocess.run([ibcc, "sweep", scenario, "--out", str(sweep), "--sim-time", "20ms", "--quiet",
                    "--grid", "cc.switch.marking_rate=0,1", "--grid", "cc.ca.ccti_timer=50,150",
                    "--metric", "jain", "--metric", "total"], check=True)
    subprocess.run([ibcc, "plot", str(sweep)], check=True, stdout=subprocess.DEVNULL)
    for name in ("sweep_jain.png", "sweep_total.png"):
        check_png(sweep / name)
    res = subprocess.run([ibcc, "plot", str(out)], capture_output=True, text=True)
    if res.returncode != 2 or "neither summary.json" not in res.stderr:
        sys.exit(f"FAIL: plot of a plain directory: exit {res.returncode}: {res.stderr}")
    print("RESULT: PASS")


if __name__ == "__main__":
    main()
