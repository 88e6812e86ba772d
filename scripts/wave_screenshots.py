#!/usr/bin/env python3
"""GTKWave screenshots of the three waveform views, as a user opens them: the co-simulation
(`ibcc cosim --block fecn --waves`), RTL in the loop and the network model (`ibcc run --rtl
S1/36 --waves`, scenario 1's first congestion episode at S1/36). Each save file is opened in
real GTKWave under Xvfb and grabbed; before that, the save file is checked to open with its
marker on the view's first FECN mark, inside the view, and the dump is checked to mark there.

  wave_screenshots.py IBCC WORK_DIR [--images DIR]

--images DIR copies the screenshots there (the docs build: `cmake --build build --target
docs_images` writes docs/img/waves_*.png). Exit 1 if a view does not open on its mark.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "verif" / "lib"))
from checks import Checks  # noqa: E402
from gtkwave import grab  # noqa: E402

SCENARIO = HERE.parent / "topologies" / "seed-testbed" / "scenario1.yaml"
UNITS_AT_ZOOM_ZERO = 4.88  # GTKWave's zoom: the 1600-pixel view spans 2^-zoom x this many time units


def view_of(gtkw):
    """(marker, view start, view end) in ps from a save file (sc_models/common/gtkw.cpp writes them)."""
    text = Path(gtkw).read_text()
    start = int(re.search(r"^\[timestart\] (\d+)$", text, re.M).group(1))
    zoom, marker = re.search(r"^\*(-?[\d.]+) (-?\d+)", text, re.M).groups()
    span = UNITS_AT_ZOOM_ZERO * 2 ** -float(zoom)
    return int(marker), start, start + span


def first_rise(vcd_text, leaf):
    """The first time (ps, the dump's timescale) a 1-bit signal named `leaf` goes to 1 in a VCD."""
    codes = set(re.findall(r"\$var\s+\w+\s+1\s+(\S+)\s+" + re.escape(leaf) + r"\s+\$end", vcd_text))
    t = 0
    for line in vcd_text.splitlines():
        if line.startswith("#"):
            t = int(line[1:])
        elif line[:1] == "1" and line[1:] in codes:
            return t
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ibcc")
    ap.add_argument("work", type=Path)
    ap.add_argument("--images", type=Path)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    a.work.mkdir(parents=True)
    c = Checks()

    # The co-simulation, vcd reference beside the RTL's FST: the reference's first mark.
    cosim = a.work / "cosim"
    r = subprocess.run([a.ibcc, "cosim", "--block", "fecn", "--test", "hysteresis", "--seed", "1", "--quiet",
                        "--waves", str(cosim)], capture_output=True, text=True)
    c.check(r.returncode == 0, f"ibcc cosim --block fecn --waves: exit {r.returncode} {r.stderr[-300:]}")
    # RTL in the loop and the network, as the README runs them.
    loop = a.work / "s1rtl"
    r = subprocess.run([a.ibcc, "run", str(SCENARIO), "--out", str(loop), "--sim-time", "6ms", "--log-interval", "500us",
                        "--set", "traffic.flows[1].start=0s", "--set", "traffic.flows[2].start=5ms", "--rtl", "S1/36",
                        "--waves", str(loop / "waves"), "--trace", "ports=S1/36", "--waves-window", "5ms..6ms",
                        "--waves-format", "vcd", "--quiet"], capture_output=True, text=True)
    c.check(r.returncode == 0, f"ibcc run --rtl S1/36 --waves: exit {r.returncode} {r.stderr[-300:]}")
    views = {
        "waves_cosim_fecn": (cosim / "fecn_ref.vcd", cosim / "fecn_rtl.gtkw", cosim / "fecn_rtl.fst", "fecn_mark_o"),
        "waves_rtl_in_loop": (None, loop / "waves" / "rtl_S1_36.gtkw", loop / "waves" / "rtl_S1_36.fst", None),
        "waves_network": (loop / "waves" / "network.vcd", loop / "waves" / "network.gtkw", loop / "waves" / "network.vcd",
                          "fecn_mark"),
    }
    for name, (vcd, gtkw, dump, leaf) in views.items():
        if not gtkw.exists():
            c.check(False, f"{gtkw}: missing")
            continue
        marker, start, end = view_of(gtkw)
        c.check(marker > 0 and start <= marker <= end,
                f"{gtkw.name}: marker {marker} ps inside its view {start}..{end:.0f} ps")
        if vcd is not None:
            rise = first_rise(vcd.read_text(), leaf)
            # (the co-simulation's reference VCD counts in ps; the network's, in ps too)
            c.check(rise is not None and abs(rise - marker) <= 4000,
                    f"{gtkw.name}: the dump's first {leaf} ({rise} ps) is at the marker ({marker} ps)")
        png = a.work / f"{name}.png"
        c.check(grab(str(dump), str(gtkw), str(png)), f"{name}: GTKWave opens {gtkw.name}, every trace resolved, "
                "screenshot taken")
        if a.images and png.exists():
            a.images.mkdir(parents=True, exist_ok=True)
            shutil.copy(png, a.images / png.name)
    return c.result()


if __name__ == "__main__":
    sys.exit(main())
