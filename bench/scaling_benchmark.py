#!/usr/bin/env python3
"""How the network model's cost grows with the fabric: one table of

  hosts | topology | traffic | set-up s | wall s per simulated ms | us per delivered packet | peak MB

for fat trees of 128, 648, 2,592, 5,832 and 11,664 hosts under uniform full load (16 KiB
messages, 4 outstanding, a QP per destination) and under a ring (each host to rank+1, same
messages), CC on with the parameters of topologies/fattree11664/uniform.yaml. Each case is
one `ibcc run` of a scenario written from that file (the 65,536-host tree, on request, from
topologies/fattree65536/uniform.yaml: RoCE, PFC and DCQCN) with the topology and traffic
replaced; its summary.json gives set-up time (build_wall_s), simulation time (wall_s), delivered
packets and peak memory (VmHWM). Memory per host and per switch port is printed as well.

A second table gives the set-up of long explicit flow lists (`traffic.flows`, N random
pairs of the 648-host fabric's hosts, simulated for 1 us): set-up s, peak MB and KB per flow
for each N of --flows (the parsed YAML is most of both; patterns cost far less).

Usage: scaling_benchmark.py [BUILD_DIR] [--sim-time 100us] [--hosts 128,648,...]
                            [--traffic uniform,ring] [--flows 10000,100000] [--old OLD_IBCC]
                            [--json FILE]
With --old, every case also runs with another ibcc binary (e.g. built at an older commit)
and the table gains the ratio old/new of us per delivered packet (set-up s for --flows),
measured in the same run. With --repeats N, each case runs N times (alternating with the
old build's runs, so that both see the same load) and the table gives the medians of the
times (the largest peak memory): this machine's wall times vary by tens of per cent from run
to run.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, "..", "topologies", "fattree11664", "uniform.yaml")

# hosts -> (generator, switches, switch ports). Two-level trees are written as the clos3
# family (the same fabric as fattree radix r, 2 levels) and 5,832 as a k-ary n-tree, so that a
# build from before the fattree family (--old) runs them too.
FABRICS = {
    128: ({"family": "clos3", "leaves": 16, "spines": 8, "switch_ports": 16}, 24, 16),
    648: ({"family": "clos3", "leaves": 36, "spines": 18, "switch_ports": 36}, 54, 36),
    2592: ({"family": "fattree", "radix": 12, "levels": 4}, 1512, 12),
    5832: ({"family": "kary_ntree", "k": 18, "n": 3}, 972, 36),
    11664: ({"family": "fattree", "radix": 36, "levels": 3}, 1620, 36),
    # The largest three-level tree of 64-port switches one IB subnet addresses (44 of 64 pods):
    # not run unless asked for (--hosts 45056), and not by --old builds from before `pods`.
    45056: ({"family": "fattree", "radix": 64, "levels": 3, "pods": 44}, 3840, 64),
    # The full tree of 64-port switches: more LIDs than an IB subnet has, so written from the
    # RoCE scenario shipped for it (PFC, DCQCN; BASES) instead of the IB one. On request only
    # (--hosts 65536), and not by --old builds from before 32-bit node addresses.
    65536: ({"family": "fattree", "radix": 64, "levels": 3}, 5120, 64),
}
# The scenario a fabric's cases are written from, where it is not BASE.
BASES = {65536: os.path.join(HERE, "..", "topologies", "fattree65536", "uniform.yaml")}
TRAFFIC = {
    "uniform": [{"name": "uniform", "type": "uniform", "sources": "all", "message": "16KiB", "outstanding": 4,
                 "group": "uniform"}],
}
# The ring is written as explicit flows H<i> -> H<i+1> (the generators name hosts H1..Hn):
# what the ring pattern does, in a form a build from before that pattern reads too.


def scenario_text(hosts, traffic):
    with open(BASES.get(hosts, BASE)) as f:
        s = yaml.safe_load(f)
    gen, _, _ = FABRICS[hosts]
    s["name"] = f"scaling {hosts} {traffic}"
    s["topology"] = {"generate": gen}
    if traffic == "ring":
        s["traffic"] = {"flows": [{"name": f"R{i}", "src": f"H{i}", "dst": f"H{i % hosts + 1}", "message": "16KiB"}
                                  for i in range(1, hosts + 1)]}
    else:
        s["traffic"] = {"patterns": TRAFFIC[traffic]}
    return yaml.safe_dump(s, sort_keys=False)


class RunFailed(Exception):
    pass


def flow_list_text(flows, hosts=648):
    with open(BASE) as f:
        s = yaml.safe_load(f)
    gen, _, _ = FABRICS[hosts]
    s["name"] = f"{flows} explicit flows"
    s["topology"] = {"generate": gen}
    del s["traffic"]
    rng = random.Random(flows)
    lines = []
    for i in range(flows):  # written by hand: PyYAML takes minutes for 10^6 entries
        a, b = rng.randrange(1, hosts + 1), rng.randrange(1, hosts)
        lines.append(f"    - {{name: F{i}, src: H{a}, dst: H{b if b < a else b + 1}, rate: 1Mb/s}}\n")
    return yaml.safe_dump(s, sort_keys=False) + "traffic:\n  flows:\n" + "".join(lines)


def flow_list_table(ibcc, old, counts):
    head = f"{'flows':>8} {'set-up s':>9} {'peak MB':>8} {'KB/flow':>8}"
    if old:
        head += f" {'old set-up':>10} {'old MB':>7}"
    print(f"\nexplicit flow lists on the 648-host fabric, 1 us simulated\n{head}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in counts:
            path = os.path.join(tmp, f"flows_{n}.yaml")
            with open(path, "w") as f:
                f.write(flow_list_text(n))
            r = row(run(ibcc, path, "1us"))
            r.update(flows=n, kb_per_flow=r["peak_mb"] * 1024 / n)
            line = f"{n:>8} {r['setup_s']:>9.2f} {r['peak_mb']:>8.0f} {r['kb_per_flow']:>8.2f}"
            if old:
                o = row(run(old, path, "1us"))
                r["old"] = o
                line += f" {o['setup_s']:>10.2f} {o['peak_mb']:>7.0f}"
            print(line, flush=True)
            rows.append(r)
    return rows


def run(ibcc, path, sim_time):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")  # new: an older build has no --force
        r = subprocess.run([ibcc, "run", path, "--out", out, "--quiet", "--sim-time", sim_time],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RunFailed(f"{ibcc} run {path} failed (exit {r.returncode}): {r.stderr.strip().splitlines()[-1:]}")
        with open(os.path.join(out, "summary.json")) as f:
            return json.load(f)


def median_row(rows):
    """The median of each time over repeated runs of one case (the largest peak memory)."""
    out = dict(rows[0])
    for k in ("setup_s", "wall_s", "s_per_sim_ms", "us_per_packet"):
        out[k] = statistics.median(r[k] for r in rows)
    out["peak_mb"] = max(r["peak_mb"] for r in rows)
    out["runs"] = len(rows)
    return out


def row(summary):
    delivered = summary["packets"]["delivered"]
    sim_ms = summary["sim_time_us"] / 1000
    return {
        "setup_s": summary["build_wall_s"],
        "wall_s": summary["wall_s"],
        "s_per_sim_ms": summary["wall_s"] / sim_ms,
        "us_per_packet": summary["wall_s"] * 1e6 / delivered if delivered else float("nan"),
        "delivered": delivered,
        "peak_mb": summary["peak_rss_mb"],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--sim-time", default="100us")
    ap.add_argument("--hosts", default=",".join(str(h) for h in FABRICS if h <= 11664))
    ap.add_argument("--traffic", default="uniform,ring")
    ap.add_argument("--flows", default="10000,100000", help="explicit flow list sizes ('' for none)")
    ap.add_argument("--old", help="another ibcc binary to compare with, case by case")
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--repeats", type=int, default=1, help="runs per case (medians; alternating with --old's)")
    a = ap.parse_args()
    if a.repeats < 1:
        ap.error(f"--repeats: expected at least 1, got {a.repeats}")
    ibcc = os.path.join(a.build, "bin", "ibcc")
    hosts = [int(h) for h in a.hosts.split(",")]
    for h in hosts:
        if h not in FABRICS:
            ap.error(f"--hosts: {h} is not one of {', '.join(map(str, FABRICS))}")
    traffics = a.traffic.split(",")
    for t in traffics:
        if t not in list(TRAFFIC) + ["ring"]:
            ap.error(f"--traffic: {t} is not one of uniform, ring")

    head = (f"{'hosts':>6} {'switches':>8} {'traffic':>8} {'set-up s':>9} {'s/sim ms':>9} {'us/packet':>10} "
            f"{'peak MB':>8} {'KB/host':>8} {'KB/port':>8}")
    if a.old:
        head += f" {'old us/pkt':>10} {'old/new':>8} {'old setup':>9}"
    runs = f", median of {a.repeats} runs" if a.repeats > 1 else ""
    print(f"sim time {a.sim_time} per case, CC on{runs}\n{head}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for t in traffics:
            for h in hosts:
                path = os.path.join(tmp, f"scaling_{h}_{t}.yaml")
                with open(path, "w") as f:
                    f.write(scenario_text(h, t))
                news, olds = [], []
                try:
                    for _ in range(a.repeats):
                        news.append(row(run(ibcc, path, a.sim_time)))
                        if a.old and olds is not None:
                            try:
                                olds.append(row(run(a.old, path, a.sim_time)))
                            except RunFailed as e:  # e.g. a generator family the old build lacks
                                olds = None
                                print(f"  (old build: {e})", file=sys.stderr)
                except RunFailed as e:
                    print(e, file=sys.stderr)
                    return 1
                r = median_row(news)
                _, switches, ports = FABRICS[h]
                r.update(hosts=h, switches=switches, traffic=t,
                         kb_per_host=r["peak_mb"] * 1024 / h, kb_per_port=r["peak_mb"] * 1024 / (switches * ports))
                line = (f"{h:>6} {switches:>8} {t:>8} {r['setup_s']:>9.2f} {r['s_per_sim_ms']:>9.1f} "
                        f"{r['us_per_packet']:>10.2f} {r['peak_mb']:>8.0f} {r['kb_per_host']:>8.1f} {r['kb_per_port']:>8.2f}")
                if a.old:
                    if olds:
                        o = median_row(olds)
                        r["old"] = o
                        line += (f" {o['us_per_packet']:>10.2f} {o['us_per_packet'] / r['us_per_packet']:>8.2f}"
                                 f" {o['setup_s']:>9.2f}")
                    else:
                        r["old"] = None
                        line += f" {'n/a':>10} {'':>8} {'':>9}"
                print(line, flush=True)
                rows.append(r)
    flow_rows = []
    if a.flows:
        try:
            flow_rows = flow_list_table(ibcc, a.old, [int(n) for n in a.flows.split(",")])
        except RunFailed as e:
            print(e, file=sys.stderr)
            return 1
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"sim_time": a.sim_time, "rows": rows, "flow_lists": flow_rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
