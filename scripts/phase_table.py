#!/usr/bin/env python3
"""Per-phase throughput of two runs of one scenario side by side (CC off, CC on), with the
quantities that show HOL blocking, the parking-lot problem and their removal.

  phase_table.py OFF_DIR ON_DIR
"""
import json
import sys
from pathlib import Path


def load(d):
    return json.loads((Path(d) / "summary.json").read_text())


def jain(xs):
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs)) if any(xs) else 0.0


def main():
    off, on = load(sys.argv[1]), load(sys.argv[2])
    flows = [f["name"] for f in off["flows"]]
    groups = {f["name"]: f["group"] for f in off["flows"]}
    print(f"{off['scenario']}: payload throughput per flow, Gb/s (second half of each phase)\n")
    width = 7 * len(flows) - 1
    print(f"{'':>13}  {'CC off':^{width}}   |  {'CC on':^{width}}")
    names = " ".join(f"{n:>6}" for n in flows)
    print(f"{'phase (s)':>13}  {names}   |  {names}")
    for p_off, p_on in zip(off["phases"], on["phases"]):
        span = f"{p_off['start_us'] / 1e6:.1f}-{p_off['end_us'] / 1e6:.1f}"
        a = " ".join(f"{p_off['gbps'][n]:6.2f}" for n in flows)
        b = " ".join(f"{p_on['gbps'][n]:6.2f}" for n in flows)
        print(f"{span:>13}  {a}   |  {b}")
    victims = [n for n in flows if groups[n] == "victim"]
    contrib = [n for n in flows if groups[n] == "contributors"]
    if victims and contrib:
        alone_off, alone_on = off["phases"][0]["gbps"][victims[0]], on["phases"][0]["gbps"][victims[0]]
        last_off, last_on = off["phases"][-1]["gbps"], on["phases"][-1]["gbps"]
        v = victims[0]
        print()
        print(f"victim {v} in the last phase, share of its rate alone:   CC off {last_off[v] / alone_off:5.0%}"
              f"   CC on {last_on[v] / alone_on:5.0%}   (HOL blocking)")
        if len(contrib) >= 4:
            a, b, c, d = contrib[:4]
            print(f"{c} / ({a} + {b}) in the last phase (1 = parking lot, 0.5 = fair):"
                  f"   CC off {last_off[c] / (last_off[a] + last_off[b]):5.2f}   CC on {last_on[c] / (last_on[a] + last_on[b]):5.2f}")
        print(f"Jain's fairness of the contributors in the last phase:"
              f"   CC off {jain([last_off[n] for n in contrib]):5.3f}   CC on {jain([last_on[n] for n in contrib]):5.3f}")
    for name, s in (("CC off", off), ("CC on", on)):
        print(f"{name}: {s['sim_time_us'] / 1e6:g} s simulated in {s['wall_s']:.1f} s wall, "
              f"{s['packet_hops'] / 1e6:.1f} M packet-hops, {s['cnps']} CNPs")


if __name__ == "__main__":
    main()
