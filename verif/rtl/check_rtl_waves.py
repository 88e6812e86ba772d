#!/usr/bin/env python3
"""RTL in the loop, waves: `ibcc run --rtl ... --waves --waves-window` on scenario 1 writes,
beside the network's waves, each Verilated block's FST and GTKWave save file. Checks, for the
window inside the congestion episode:
  - GTKWave under Xvfb resolves every trace of each block's save file (screenshot kept);
  - the marker's FST shows FECN marks (fecn_valid_o & fecn_mark_o) and the CCTI block's shows
    BECNs arriving (becn_valid_i) and a CCTI above 0;
  - the marks in the marker's FST are the network waves' marks at that port, one for one, at
    the departure's cycle or the next edge (the RTL's decision is what the network model
    acted on).

  check_rtl_waves.py IBCC SCENARIO OUT_DIR PORT HCA [ibcc run options...]
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402
from gtkwave import grab  # noqa: E402


def vcd_of(fst):
    return subprocess.run(["fst2vcd", fst], capture_output=True, text=True, check=True).stdout


def signals(vcd, names):
    """{name: [(time, value), ...]} for the top-level signals `names` (first scope holding
    them; widths ignored)."""
    ids = {}
    for m in re.finditer(r"\$var \w+ \d+ (\S+) (\w+)(?: \[\d+:\d+\])? \$end", vcd):
        ident, name = m.groups()
        if name in names and name not in ids.values():
            ids[ident] = name
    out = {n: [] for n in names}
    now = 0
    for line in vcd.split("\n"):
        if line.startswith("#"):
            now = int(line[1:])
        elif line[:1] in "01" and line[1:] in ids:
            out[ids[line[1:]]].append((now, int(line[0])))
        elif line[:1] == "b":
            value, _, ident = line[1:].partition(" ")
            if ident in ids:
                out[ids[ident]].append((now, int(value.replace("x", "0").replace("z", "0"), 2)))
    return out


def level_at(changes, t):
    v = 0
    for when, value in changes:
        if when > t:
            break
        v = value
    return v


def rising(changes):
    return [t for (t, v), (_, prev) in zip(changes, [(0, 0)] + changes) if v and not prev]


def main():
    if len(sys.argv) < 6:
        print(__doc__, file=sys.stderr)
        return 2
    ibcc, scenario, out, port, hca = sys.argv[1:6]
    extra = sys.argv[6:]
    shutil.rmtree(out, ignore_errors=True)
    waves = os.path.join(out, "waves")
    cmd = [ibcc, "run", scenario, "--out", os.path.join(out, "run"), "--rtl", f"{port},{hca}", "--waves", waves,
           "--trace", f"ports={port}"] + extra
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
    print(res.stdout)
    if res.returncode != 0:
        print(f"{' '.join(cmd)}: exit {res.returncode}\n{res.stderr}", file=sys.stderr)
        return 1
    failures = []
    safe_port = port.replace("/", "_")
    for block in (safe_port, hca):
        base = os.path.join(waves, f"rtl_{block}")
        if not grab(base + ".fst", base + ".gtkw", base + ".png"):
            failures.append(f"GTKWave did not resolve every trace of rtl_{block}.gtkw")

    rtl = signals(vcd_of(os.path.join(waves, f"rtl_{safe_port}.fst")), {"clk_i", "fecn_valid_o", "fecn_mark_o"})
    # A mark is fecn_valid_o & fecn_mark_o after a rising edge (sampled mid-cycle, where the
    # falling edge is dumped).
    clk_rise = rising(rtl["clk_i"])
    period = clk_rise[1] - clk_rise[0] if len(clk_rise) > 1 else 0
    marks_rtl = [t for t in clk_rise
                 if level_at(rtl["fecn_valid_o"], t) and level_at(rtl["fecn_mark_o"], t)]
    net = signals(vcd_of(os.path.join(waves, "network.fst")), {"fecn_mark"})
    marks_net = rising(net["fecn_mark"])
    print(f"{port}: {len(marks_rtl)} FECN marks in the RTL's FST, {len(marks_net)} in the network's waves "
          f"(cycle {period} ps)")
    if not marks_rtl:
        failures.append("no FECN mark in the marker's FST (the window is not in a congestion episode)")
    # The network waves show each mark from the cycle of the packet's departure edge on.
    first, last = clk_rise[0], clk_rise[-1]
    net_in = [t for t in marks_net if first <= t <= last]
    # A departure takes the edge of its cycle, or the next edge when a fill or credit change
    # earlier in that cycle already ran it (net/cc_adapters.h, MarkerPort::depart): the RTL's
    # mark is then one cycle after the network's. One to one, in order, lag 0 or 1 cycle.
    lags = [r - n for r, n in zip(marks_rtl, net_in)]
    late = sum(1 for d in lags if d == period)
    if len(marks_rtl) != len(net_in) or any(d not in (0, period) for d in lags):
        bad = [(n, r) for r, n in zip(marks_rtl, net_in) if r - n not in (0, period)][:5]
        failures.append(f"marks differ between the RTL's FST ({len(marks_rtl)}) and the network's waves "
                        f"({len(net_in)}); first (network, RTL) pairs apart: {bad}")
    else:
        print(f"  every mark matches the network's: {len(lags) - late} at the departure's cycle, {late} at the "
              f"next edge (that cycle's edge had run)")

    ccti = signals(vcd_of(os.path.join(waves, f"rtl_{hca}.fst")), {"becn_valid_i", "ccti_o"})
    becns = rising(ccti["becn_valid_i"])
    top = max((v for _, v in ccti["ccti_o"]), default=0)
    print(f"{hca}: {len(becns)} BECNs into the CCTI block, highest looked-up CCTI {top}")
    if not becns:
        failures.append("no BECN into the CCTI block in the window")
    if top == 0:
        failures.append("the CCTI block's lookups never saw a CCTI above 0")
    return Checks().report(failures, "each block's waves open in GTKWave, show marks, BECNs and a CCTI above 0, and the "
                                     "marks are the network's, one for one")


if __name__ == "__main__":
    sys.exit(main())
