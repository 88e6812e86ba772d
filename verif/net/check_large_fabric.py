#!/usr/bin/env python3
"""The largest shipped fabric runs within this machine's memory, its invariants checked:

1. topologies/fattree45056/uniform.yaml as shipped (45,056 hosts, 3,840 switches of 64 ports,
   uniform load, CC on, 10 us with the invariants checked at every 5 us log interval): exit 0,
   packets delivered, no stall; the set-up time and the peak memory printed by the run and
   recorded in summary.json (build_wall_s, peak_rss_mb, peak_rss_kb_per_host) for exactly
   that fabric; the peak within 16 GiB.
2. The full three-level tree of 64-port switches (64 pods: 65,536 hosts, 5,120 switches) needs
   70,656 LIDs, more than one IB subnet's 49,151 unicast LIDs: the reader refuses it, exit 2,
   naming the file, the line, the key and the limit, before building anything.

Usage: check_large_fabric.py IBCC SOURCE_DIR OUT_DIR    (exit 0 pass, 1 fail)
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402

LIMIT_MB = 16 * 1024


def main():
    ibcc, src, out = sys.argv[1], sys.argv[2], sys.argv[3]
    checks = Checks()
    check = checks.check
    scenario = os.path.join(src, "topologies", "fattree45056", "uniform.yaml")
    d = os.path.join(out, "uniform")
    r = subprocess.run([ibcc, "run", scenario, "--out", d, "--force"], capture_output=True, text=True)
    print(r.stdout.strip())
    check(r.returncode == 0, f"fattree45056 uniform, 10 us: exit {r.returncode}{': ' + r.stderr[-400:] if r.returncode else ''}")
    if r.returncode != 0:
        return checks.result()
    s = json.load(open(os.path.join(d, "summary.json")))
    check(s.get("hcas") == 45056 and s.get("switches") == 3840,
          f"summary.json: {s.get('hcas')} HCAs and {s.get('switches')} switches (45056 and 3840)")
    check(s.get("reached_us") == 10.0 and s.get("result") == "ok",
          f"ran to {s.get('reached_us')} us of 10, result {s.get('result')}")
    delivered = s["packets"]["delivered"]
    check(delivered > 0 and s["packets"]["injected"] >= delivered,
          f"{delivered} packets delivered of {s['packets']['injected']} injected")
    setup = re.search(r"set-up: fabric built.*\(([0-9.]+) s\)", r.stderr)
    peak = re.search(r"peak memory (\d+) MB \((\d+) kB per host\)", r.stdout)
    check(setup is not None and abs(float(setup.group(1)) - s["build_wall_s"]) < 0.1,
          f"set-up time printed ({setup.group(1) if setup else 'missing'} s) and in summary.json "
          f"({s['build_wall_s']:.1f} s)")
    check(peak is not None, f"peak memory printed: {peak.group(0) if peak else 'missing'}")
    check(0 < s["peak_rss_mb"] < LIMIT_MB and peak is not None and int(peak.group(1)) < LIMIT_MB,
          f"peak memory {peak.group(1) if peak else '?'} MB at the end, {s['peak_rss_mb']:.0f} MB in summary.json "
          f"({s['peak_rss_kb_per_host']:.0f} kB per host), within {LIMIT_MB} MB")

    # The full 64-pod tree: more LIDs than one subnet has.
    r = subprocess.run([ibcc, "run", scenario, "--set", "topology.generate.pods=64", "--out", os.path.join(out, "full")],
                       capture_output=True, text=True)
    msg = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
    check(r.returncode == 2 and "uniform.yaml:" in msg and "topology.generate" in msg and "65536 hosts" in msg
          and "49151 LIDs" in msg and not os.path.exists(os.path.join(out, "full", "flows.csv")),
          f"the 65,536-host tree refused, exit {r.returncode}: {msg}")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
