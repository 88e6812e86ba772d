#!/usr/bin/env python3
"""The largest shipped fabrics run within this machine's memory, their invariants checked:

1. topologies/fattree45056/uniform.yaml as shipped (45,056 hosts, 3,840 switches of 64 ports:
   the largest such IB fabric, uniform load, IB CC on, 10 us with the invariants checked at
   every 5 us log interval) and topologies/fattree65536/uniform.yaml (the full tree of 64-port
   switches, 65,536 hosts and 5,120 switches, as a RoCE fabric: PFC and DCQCN on, 10 us):
   each exits 0, delivers packets, stalls nothing; the set-up time and the peak memory are
   printed by the run and recorded in summary.json (build_wall_s, peak_rss_mb,
   peak_rss_kb_per_host) for exactly that fabric; the peak within 16 GiB.
2. The full tree as an IB fabric (the 45,056-host scenario with 64 pods: 70,656 LIDs, more
   than one IB subnet's 49,151 unicast LIDs): the reader refuses it, exit 2, naming the file,
   the line, the key and the limit, before building anything.
Under the sanitizers (IBCC_SANITIZED) the 65,536-host run is left out and says so
(verif/lib/checks.py); the plain build's run of this check makes it.

Usage: check_large_fabric.py IBCC SOURCE_DIR OUT_DIR    (exit 0 pass, 1 fail)
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks, under_sanitizers_skip  # noqa: E402

LIMIT_MB = 16 * 1024


def run_large(ibcc, scenario, d, hcas, switches, check):
    """Runs the scenario as shipped and checks what item 1 says of it."""
    name = os.path.basename(os.path.dirname(scenario))
    r = subprocess.run([ibcc, "run", scenario, "--out", d, "--force"], capture_output=True, text=True)
    print(r.stdout.strip())
    check(r.returncode == 0, f"{name} uniform, 10 us: exit {r.returncode}{': ' + r.stderr[-400:] if r.returncode else ''}")
    if r.returncode != 0:
        return
    s = json.load(open(os.path.join(d, "summary.json")))
    check(s.get("hcas") == hcas and s.get("switches") == switches,
          f"{name} summary.json: {s.get('hcas')} HCAs and {s.get('switches')} switches ({hcas} and {switches})")
    check(s.get("reached_us") == 10.0 and s.get("result") == "ok",
          f"{name} ran to {s.get('reached_us')} us of 10, result {s.get('result')}")
    delivered = s["packets"]["delivered"]
    check(delivered > 0 and s["packets"]["injected"] >= delivered,
          f"{name}: {delivered} packets delivered of {s['packets']['injected']} injected")
    setup = re.search(r"set-up: fabric built.*\(([0-9.]+) s\)", r.stderr)
    peak = re.search(r"peak memory (\d+) MB \((\d+) kB per host\)", r.stdout)
    check(setup is not None and abs(float(setup.group(1)) - s["build_wall_s"]) < 0.1,
          f"{name}: set-up time printed ({setup.group(1) if setup else 'missing'} s) and in summary.json "
          f"({s['build_wall_s']:.1f} s)")
    check(peak is not None, f"{name}: peak memory printed: {peak.group(0) if peak else 'missing'}")
    check(0 < s["peak_rss_mb"] < LIMIT_MB and peak is not None and int(peak.group(1)) < LIMIT_MB,
          f"{name}: peak memory {peak.group(1) if peak else '?'} MB at the end, {s['peak_rss_mb']:.0f} MB in "
          f"summary.json ({s['peak_rss_kb_per_host']:.0f} kB per host), within {LIMIT_MB} MB")


def main():
    ibcc, src, out = sys.argv[1], sys.argv[2], sys.argv[3]
    checks = Checks()
    check = checks.check
    for fabric, hcas, switches in [("fattree45056", 45056, 3840), ("fattree65536", 65536, 5120)]:
        if under_sanitizers_skip(os.path.join(src, "topologies", fabric, "uniform.yaml")):
            continue
        run_large(ibcc, os.path.join(src, "topologies", fabric, "uniform.yaml"), os.path.join(out, fabric), hcas,
                  switches, check)

    # The full 64-pod tree: more LIDs than one subnet has.
    scenario = os.path.join(src, "topologies", "fattree45056", "uniform.yaml")
    r = subprocess.run([ibcc, "run", scenario, "--set", "topology.generate.pods=64", "--out", os.path.join(out, "full")],
                       capture_output=True, text=True)
    msg = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
    check(r.returncode == 2 and "uniform.yaml:" in msg and "topology.generate" in msg and "65536 hosts" in msg
          and "49151 LIDs" in msg and not os.path.exists(os.path.join(out, "full", "flows.csv")),
          f"the 65,536-host tree refused, exit {r.returncode}: {msg}")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
