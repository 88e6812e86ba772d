#!/usr/bin/env python3
"""Adaptive routing spreads a permutation's load across the core (topologies/adaptive/permutation.yaml:
32 hosts on 8 leaves of a two-level fat tree, each leaf's four flows on one up-link under the
forwarding tables' d-mod-k).

1. AR static: each leaf sends on one of its four up-links (ports 5-8) only; the fabric carries
   at most 30 % of its capacity (32 hosts x 32 Gb/s); no out-of-order count is kept.
2. AR least_occupancy (the file's setting): every up-link of every leaf carries at least 15 %
   of its leaf's upward bytes; the fabric carries at least 80 % of its capacity (2.5 x at least
   what it carries with AR static); packets that took different up-links arrive out of order and
   are counted (metrics.json out_of_order_packets > 0); lossless (every injected packet
   delivered or in flight).
3. AR bounded with a bound no queue reaches (2^40 bytes) keeps every packet on the forwarding
   table's port: flows.csv byte-identical to AR static, and no packet out of order. With the
   default bound of 4 KiB it spreads the load like least_occupancy (at least 80 %).
4. AR with --threads 2 gives the same flows.csv, ports.csv, latency.csv and metrics.json.
5. The load on the core links (the leaves' 32 up-links): max / mean at least 2 under AR static,
   at most 1.2 under AR least_occupancy.
6. No deadlock on the shipped fabrics: on every shipped scenario routed up*/down* (one per
   fabric: its hotspot, else its first), with adaptive routing on, `ibcc topo` finds no cycle in
   the channel dependency graph of every AR candidate.

Usage: check_adaptive_routing.py IBCC SOURCE_DIR OUT_DIR    (exit 0 pass, 1 fail)
"""
import csv
import filecmp
import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks, under_sanitizers_skip  # noqa: E402

CAPACITY_GBPS = 32 * 32.0  # 32 hosts, 4x QDR (32 Gb/s of data each)


def main():
    ibcc, src, out = sys.argv[1], sys.argv[2], sys.argv[3]
    checks = Checks()
    check = checks.check
    scenario = os.path.join(src, "topologies", "adaptive", "permutation.yaml")

    def run(name, *args):
        d = os.path.join(out, name)
        r = subprocess.run([ibcc, "run", scenario, "--out", d, "--force", "--quiet", *args], capture_output=True, text=True)
        check(r.returncode == 0, f"{name}: exit {r.returncode}{': ' + r.stderr[-300:] if r.returncode else ''}")
        if r.returncode:
            return None
        return d

    def metrics(d):
        m = json.load(open(os.path.join(d, "metrics.json")))
        return m.get("metrics", m)

    def uplinks(d):
        """[leaf] -> {up-port: bytes sent} over the run (ports.csv, VL 0)."""
        up = defaultdict(dict)
        with open(os.path.join(d, "ports.csv")) as f:
            for row in csv.DictReader(f):
                sw, port = row["port"].split("/")
                if sw.startswith("SW0_") and int(port) >= 5:
                    up[sw][int(port)] = up[sw].get(int(port), 0) + int(row["PortXmitData"] or 0)
        return up

    def lossless(d):
        s = json.load(open(os.path.join(d, "summary.json")))
        p = s["packets"]
        return p["injected"] == p["delivered"] + p["in_flight"] and s.get("result") == "ok"

    off = run("off", "--set", "fabric.adaptive_routing=static")
    ar = run("least_occupancy")
    if not off or not ar:
        return checks.result()
    m_off, m_ar = metrics(off), metrics(ar)
    used_off = {leaf: sorted(p for p, b in ports.items() if b > 0) for leaf, ports in uplinks(off).items()}
    check(len(used_off) == 8 and all(len(p) == 1 for p in used_off.values()),
          f"AR static: each leaf sends up one link only ({dict(sorted(used_off.items()))})")
    check(m_off["total"] <= 0.30 * CAPACITY_GBPS,
          f"AR static: {m_off['total']:.0f} Gb/s, at most 30 % of the fabric's {CAPACITY_GBPS:.0f}")
    check("out_of_order_packets" not in m_off, "AR static: no out-of-order count in metrics.json")

    spread = {}
    for leaf, ports in uplinks(ar).items():
        total = sum(ports.values())
        spread[leaf] = min(ports.values()) / total if total else 0
    check(len(spread) == 8 and min(spread.values()) >= 0.15,
          f"AR least_occupancy: every leaf's least used up-link carries at least 15 % of its upward bytes "
          f"(least: {min(spread.values()):.1%})")
    check(m_ar["total"] >= 0.80 * CAPACITY_GBPS and m_ar["total"] >= 2.5 * m_off["total"],
          f"AR least_occupancy: {m_ar['total']:.0f} Gb/s, at least 80 % of {CAPACITY_GBPS:.0f} and 2.5 x AR static's "
          f"{m_off['total']:.0f}")
    check(m_ar.get("out_of_order_packets", 0) > 0,
          f"AR least_occupancy: {m_ar.get('out_of_order_packets')} packets counted out of order")
    check(lossless(ar), "AR least_occupancy: lossless, run ok")

    never = run("bounded_never", "--set", "fabric.adaptive_routing=bounded", "--set", "fabric.ar_bound=1099511627776")
    if never:
        check(filecmp.cmp(os.path.join(off, "flows.csv"), os.path.join(never, "flows.csv"), shallow=False),
              "AR bounded, 2^40 bytes: flows.csv byte-identical to AR static")
        check(metrics(never).get("out_of_order_packets") == 0, "AR bounded, 2^40 bytes: no packet out of order")
    bounded = run("bounded", "--set", "fabric.adaptive_routing=bounded")
    if bounded:
        check(metrics(bounded)["total"] >= 0.80 * CAPACITY_GBPS,
              f"AR bounded, 4 KiB: {metrics(bounded)['total']:.0f} Gb/s, at least 80 % of {CAPACITY_GBPS:.0f}")

    def core_ratio(d):
        loads = [b for ports in uplinks(d).values() for b in ports.values()]
        return max(loads) / (sum(loads) / len(loads)), len(loads)

    (r_off, n_off), (r_ar, n_ar) = core_ratio(off), core_ratio(ar)
    check(n_off == n_ar == 32 and r_off >= 2, f"AR static: max / mean core-link load {r_off:.2f} (>= 2) over {n_off} up-links")
    check(r_ar <= 1.2, f"AR least_occupancy: max / mean core-link load {r_ar:.2f} (<= 1.2) over {n_ar} up-links")

    fabrics = {}
    for path in sorted(Path(src, "topologies").glob("*/*.yaml")):
        if under_sanitizers_skip(path):
            continue
        if "routing: updown" in path.read_text() and (path.parent.name not in fabrics or path.stem == "hotspot"):
            fabrics[path.parent.name] = path
    for name, path in sorted(fabrics.items()):
        # (The channel dependencies are the routing's, whatever the traffic: a permutation
        # keeps the walk of the flows' routes short on the largest fabrics.)
        r = subprocess.run([ibcc, "topo", str(path), "--candidates", "0", "--set", "fabric.adaptive_routing=least_occupancy",
                            "--set", "traffic={flows: null, patterns: [{type: permutation}]}"],
                           capture_output=True, text=True)
        line = next((ln.strip() for ln in r.stdout.splitlines() if "channel dependencies" in ln), r.stderr.strip()[-200:])
        check(r.returncode == 0 and "every adaptive-routing candidate" in line and "no cycle" in line,
              f"{path.relative_to(src)}: {line}")
    check(len(fabrics) >= 6, f"{len(fabrics)} shipped up*/down* fabrics checked ({', '.join(sorted(fabrics))})")

    par = run("least_occupancy_t2", "--threads", "2")
    if par:
        same = [f for f in ("flows.csv", "ports.csv", "latency.csv", "metrics.json")
                if filecmp.cmp(os.path.join(ar, f), os.path.join(par, f), shallow=False)]
        check(len(same) == 4, f"AR least_occupancy --threads 2: {', '.join(same)} identical to --threads 1 (of 4)")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
