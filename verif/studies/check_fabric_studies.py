#!/usr/bin/env python3
"""Fabric studies, as checks anyone can run; each prints what it measured.

  check_fabric_studies.py IBCC SOURCE_DIR OUTDIR clos648|pingpong|dynamics

clos648   topologies/clos648/hotspot.yaml --sim-time 20ms, CC off and on: the non-hotspot
          (uniform) group's throughput with CC on is at least 2x that with CC off, while the
          hotspot group keeps at least 90 % of its CC-off throughput.
pingpong  topologies/seed-testbed/pingpong.yaml: the probe's average ping-pong latency
          congested with CC off is at least 3x the uncongested one; with CC on within 1.3x.
dynamics  topologies/dynamics/three-contributors.yaml, a CCTI_Timer sweep 20..120: the
          receiver's utilisation falls monotonically as the timer grows, by at least 20 %
          across the sweep; the victim's throughput and the contributors' shares are
          printed beside it. Then, with a CCT four times finer (CCT_Shift 2, a quarter
          packet time per CCTI step), at timers 20, 50 and 150: each contributor gets
          within +-10 % of a third of what the three get together.
Exit 1 if a check fails.
"""
import json
import subprocess
import sys
from pathlib import Path


def run(ibcc, scenario, out, *args):
    out.mkdir(parents=True, exist_ok=True)
    cmd = [ibcc, "run", str(scenario), "--out", str(out), "--quiet", "--force", *args]
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {res.returncode}\n{res.stderr}")
    return json.loads((out / "metrics.json").read_text())["metrics"]


class Checks:
    def __init__(self):
        self.failed = 0
        self.count = 0

    def check(self, what, value, ok, expected):
        self.count += 1
        self.failed += 0 if ok else 1
        print(f"{'PASS' if ok else 'FAIL'}  {what}: {value:.3f}  (expected {expected})")


def clos648(ibcc, src, out, c):
    scenario = src / "topologies/clos648/hotspot.yaml"
    m = {cc: run(ibcc, scenario, out / f"cc_{cc}", "--cc", cc, "--sim-time", "20ms") for cc in ("off", "on")}
    for cc in ("off", "on"):
        print(f"CC {cc}: uniform {m[cc]['group_total.uniform']:.1f} Gb/s, hotspot {m[cc]['group_total.hotspot']:.1f} Gb/s, "
              f"p99 latency uniform {m[cc]['latency_p99_us.uniform']:.1f} us, hotspot {m[cc]['latency_p99_us.hotspot']:.1f} us")
    r = m["on"]["group_total.uniform"] / m["off"]["group_total.uniform"]
    c.check("uniform group, CC on / CC off (10..20 ms)", r, r >= 2.0, ">= 2")
    r = m["on"]["group_total.hotspot"] / m["off"]["group_total.hotspot"]
    c.check("hotspot group, CC on / CC off (10..20 ms)", r, r >= 0.9, ">= 0.9")


def pingpong(ibcc, src, out, c):
    scenario = src / "topologies/seed-testbed/pingpong.yaml"
    quiet = run(ibcc, scenario, out / "uncongested", "--cc", "off", "--window", "0.5ms..2ms")
    off = run(ibcc, scenario, out / "congested_cc_off", "--cc", "off", "--window", "4ms..8ms")
    on = run(ibcc, scenario, out / "congested_cc_on", "--cc", "on", "--window", "4ms..8ms")
    key = "pingpong_avg_us.probe"
    print(f"average ping-pong latency: no congestion {quiet[key]:.3f} us, congested CC off {off[key]:.3f} us, "
          f"congested CC on {on[key]:.3f} us (seed hardware: 1.678, 12.385, 1.729 us)")
    c.check("congested CC off / no congestion", off[key] / quiet[key], off[key] / quiet[key] >= 3, ">= 3")
    c.check("congested CC on / no congestion", on[key] / quiet[key], on[key] / quiet[key] <= 1.3, "<= 1.3")


def dynamics(ibcc, src, out, c):
    scenario = src / "topologies/dynamics/three-contributors.yaml"
    timers = (20, 40, 80, 120)
    util = []
    for t in timers:
        m = run(ibcc, scenario, out / f"timer_{t}", "--set", f"cc.ca.ccti_timer={t}")
        # The receiver's payload capacity: DDR 4x data rate x MTU payload share.
        capacity = 16.0 * 2048 / (2048 + 26)
        util.append(m["contributors"] / capacity)
        shares = [m[f"throughput.C{i}"] for i in (1, 2, 3)]
        print(f"CCTI_Timer {t:3d}: receiver {util[-1] * 100:5.1f} % of its link, victim {m['victim']:.2f} Gb/s, "
              f"contributors' shares x n: {', '.join(f'{3 * s / sum(shares):.2f}' for s in shares)}")
    mono = all(b < a for a, b in zip(util, util[1:]))
    c.check("receiver utilisation falls at every timer step (last / first)", util[-1] / util[0], mono, "each step lower")
    drop = 1 - util[-1] / util[0]
    c.check("receiver utilisation drop, timer 20 -> 120", drop, drop >= 0.20, ">= 0.20")
    for t in (20, 50, 150):
        m = run(ibcc, scenario, out / f"fine_cct_timer_{t}", "--set", f"cc.ca.ccti_timer={t}",
                "--set", "cc.ca.cct.linear.shift=2")
        shares = [3 * m[f"throughput.C{i}"] / sum(m[f"throughput.C{j}"] for j in (1, 2, 3)) for i in (1, 2, 3)]
        worst = max(abs(s - 1) for s in shares)
        c.check(f"CCT_Shift 2, timer {t}: largest deviation from an equal share ({', '.join(f'{s:.2f}' for s in shares)})",
                worst, worst <= 0.10, "<= 0.10")


def main():
    ibcc, src, out, which = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4]
    c = Checks()
    {"clos648": clos648, "pingpong": pingpong, "dynamics": dynamics}[which](ibcc, src, out / which, c)
    print(f"RESULT: {'FAIL' if c.failed else 'PASS'} ({c.count - c.failed}/{c.count} checks)")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
