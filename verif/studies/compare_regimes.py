#!/usr/bin/env python3
"""One scenario three ways: the seed test bed's scenario 1
(topologies/seed-testbed/scenario1.yaml: a victim F1 and contributors into a slow sink) as
IB CC over credits, DCQCN over PFC, and a lossy fabric (output-buffered drop-tail switches)
under Go-Back-N, side by side: victim throughput, the contributors' goodput and fairness,
p99 latency, the switches' peak buffer, drops.

Checks what the regimes guarantee, not a seed's numbers: the lossless regimes drop nothing
and keep the victim near its own limit; the lossy one drops, recovers every drop
(conservation), and delivers less goodput to the contributors than either lossless regime.

Usage: compare_regimes.py IBCC SOURCE_DIR OUT_DIR [--sim-time 3s]    (exit 0 pass, 1 fail)
Writes OUT_DIR/regimes.md (the table) and OUT_DIR/regimes.csv.
"""
import os
import sys

import pandas as pd

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks, run_ibcc, study_arguments  # noqa: E402

REGIMES = [
    ("IB CC over credits", []),
    ("DCQCN over PFC", ["--set", "cc.marking=ecn", "--set", "cc.reaction=dcqcn", "--set", "fabric.flow_control=pfc"]),
    ("lossy + Go-Back-N", ["--set", "cc.enabled=false", "--set", "fabric.flow_control=none",
                           "--set", "fabric.switch.buffering=output", "--set", "fabric.hca.transport=gbn",
                           "--set", "fabric.hca.send_jitter=1us"]),
]
VICTIM_LIMIT_GBPS = 13.5 * 2048 / 2074  # its host interface, payload share

checks = Checks()
check = checks.check


def jain(xs):
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if xs and sum(xs) > 0 else 0.0


def main():
    a = study_arguments(__doc__, "3s")
    scen = os.path.join(a.source_dir, "topologies", "seed-testbed", "scenario1.yaml")
    rows = []
    for name, args in REGIMES:
        out = os.path.join(a.out_dir, name.split()[0].lower())
        s = run_ibcc(a.ibcc, scen, out, "--sim-time", a.sim_time, *args)
        # The last phase: the contributors that have started by then, all at once.
        last = s["phases"][-1]["gbps"]
        flows = {fl["name"]: fl for fl in s["flows"]}
        contributors = [n for n, fl in flows.items() if fl["group"] == "contributors" and last[n] > 0]
        ports = pd.read_csv(os.path.join(out, "ports.csv"))
        peak_kb = ports.groupby("t_us").peak_credits.sum().max() * 64 / 1e3
        p = s["packets"]
        rows.append({"regime": name, "victim_gbps": last["F1"], "contributors_gbps": sum(last[n] for n in contributors),
                     "contributors_jain": jain([last[n] for n in contributors]),
                     "victim_p99_us": flows["F1"]["latency_us"]["p99"],
                     "contributors_p99_us": max(flows[n]["latency_us"]["p99"] for n in contributors),
                     "switch_buffer_peak_kb": peak_kb, "dropped": p.get("dropped", 0),
                     "retransmitted": sum(fl.get("gbn", {}).get("retransmitted_packets", 0) for fl in s["flows"]),
                     "conserved": p["injected"] == p["delivered"] + p.get("dropped", 0) + p.get("discarded", 0) + p["in_flight"],
                     "wall_s": s["wall_s"]})
    df = pd.DataFrame(rows)
    df.to_csv(os.path.join(a.out_dir, "regimes.csv"), index=False)
    lines = ["| regime | victim Gb/s | contributors Gb/s (Jain) | p99 µs victim / contributors | switch buffer peak | "
             "drops | retransmitted |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['regime']} | {r['victim_gbps']:.2f} | {r['contributors_gbps']:.2f} ({r['contributors_jain']:.3f}) | "
                     f"{r['victim_p99_us']:.0f} / {r['contributors_p99_us']:.0f} | {r['switch_buffer_peak_kb']:.0f} KB | "
                     f"{r['dropped']:,} | {r['retransmitted']:,} |")
    table = "\n".join(lines)
    print(table)
    with open(os.path.join(a.out_dir, "regimes.md"), "w") as f:
        f.write(table + "\n")
    ib, dq, lossy = rows
    for r in (ib, dq):
        check(r["dropped"] == 0 and r["conserved"], f"{r['regime']}: lossless, every packet accounted for")
        check(r["victim_gbps"] > 0.9 * VICTIM_LIMIT_GBPS,
              f"{r['regime']}: the victim keeps > 90 % of its own limit ({r['victim_gbps']:.2f} of {VICTIM_LIMIT_GBPS:.2f} Gb/s)")
    check(lossy["dropped"] > 0 and lossy["retransmitted"] > 0 and lossy["conserved"],
          f"lossy + Go-Back-N: drops ({lossy['dropped']:,}) are retransmitted ({lossy['retransmitted']:,}) and counted")
    check(lossy["contributors_gbps"] < min(ib["contributors_gbps"], dq["contributors_gbps"]),
          f"lossy + Go-Back-N: the contributors' goodput ({lossy['contributors_gbps']:.2f} Gb/s) is below both lossless "
          f"regimes' ({ib['contributors_gbps']:.2f}, {dq['contributors_gbps']:.2f})")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
