#!/usr/bin/env python3
"""Pictures of ibcc results (run by `ibcc plot DIR` and `ibcc run --plot`).

A run directory (flows.csv, summary.json, ports.csv, ccti.csv) gives:
  throughput.png  payload throughput per flow over time (per group when there are many flows)
  fairness.png    each phase's throughput shares as stacked bars
  ports.png       buffer occupancy of the busiest switch input ports; outputs in the
                  congestion state
  ccti.png        CCTI per flow over time
A sweep directory (sweep.csv) gives one heat map per metric (sweep_<metric>.png), or a line
plot when one key is swept.

  ibcc_plot.py DIR [--metric NAME ...] [--out DIR]
"""
import argparse
import csv
import json
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MAX_FLOW_LINES = 12

# What swept keys and metrics mean, for axis labels.
KEY_UNITS = {
    "cc.ca.ccti_timer": "CCTI_Timer (x 1.024 us)",
    "cc.switch.marking_rate": "Marking_Rate (eligible packets skipped)",
    "cc.switch.threshold": "Threshold (0-15)",
    "cc.switch.mapping": "threshold mapping",
    "cc.switch.packet_size": "Packet_Size (64-byte credits)",
    "cc.ca.ccti_increase": "CCTI_Increase",
    "cc.ca.ccti_min": "CCTI_Min",
}


def die(msg):
    print(f"ibcc plot: error: {msg}", file=sys.stderr)
    sys.exit(2)


def metric_label(name):
    if name.startswith(("throughput.", "group_total.", "group_mean.")) or name in ("victim", "contributors", "total"):
        return f"{name} (Gb/s)"
    return {"jain": "Jain's fairness index", "tvv": "TVV ((Gb/s)^2)", "fecn": "FECN-marked packets",
            "becn": "BECNs", "cnps": "CNPs", "peak_buffer_credits": "peak buffer (64-byte credits)"}.get(name, name)


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def plot_run(d, out):
    summary = json.loads((d / "summary.json").read_text())
    title = f"{summary['scenario']} (CC {'on' if summary['cc'] else 'off'})"
    groups = {f["name"]: f["group"] or f["name"] for f in summary["flows"]}
    series = defaultdict(lambda: ([], []))
    for r in read_csv(d / "flows.csv"):
        s = series[r["flow"]]
        s[0].append(float(r["t_us"]) / 1e6)
        s[1].append(float(r["gbps"]))
    by_group = len(series) > MAX_FLOW_LINES
    if by_group:  # sum the flows of each group
        agg = {}
        for flow, (t, g) in series.items():
            key = groups.get(flow, flow)
            if key not in agg:
                agg[key] = (list(t), [0.0] * len(g))
            agg[key] = (agg[key][0], [a + b for a, b in zip(agg[key][1], g)])
        series = agg
    written = []

    fig, ax = plt.subplots(figsize=(10, 5))
    for name, (t, g) in series.items():
        ax.plot(t, g, lw=0.9, label=name)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("payload throughput at the destination (Gb/s)")
    ax.set_title(f"{title}: throughput per {'group' if by_group else 'flow'}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, ncol=min(6, len(series)))
    fig.tight_layout()
    fig.savefig(out / "throughput.png", dpi=100)
    written.append("throughput.png")

    phases = summary.get("phases", [])
    if phases:
        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(phases) + 2), 5))
        names = list(series.keys())
        for i, p in enumerate(phases):
            if by_group:
                vals = defaultdict(float)
                for flow, g in p["gbps"].items():
                    vals[groups.get(flow, flow)] += g
            else:
                vals = p["gbps"]
            total = sum(vals.values()) or 1.0
            bottom = 0.0
            for j, n in enumerate(names):
                share = vals.get(n, 0.0) / total
                ax.bar(i, share, bottom=bottom, color=f"C{j % 10}", label=n if i == 0 else None, width=0.7)
                if share > 0.06:
                    ax.text(i, bottom + share / 2, f"{n}\n{share:.0%}", ha="center", va="center", fontsize=7,
                            color="white")
                bottom += share
        ax.set_xticks(range(len(phases)),
                      [f"{p['start_us'] / 1e6:g}-{p['end_us'] / 1e6:g} s" for p in phases], fontsize=8)
        ax.set_ylabel("share of the delivered throughput")
        ax.set_title(f"{title}: shares per phase (second half of each)")
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        fig.tight_layout()
        fig.savefig(out / "fairness.png", dpi=100)
        written.append("fairness.png")

    if (d / "ports.csv").exists():
        rows = read_csv(d / "ports.csv")
        occ = defaultdict(lambda: ([], [], []))
        for r in rows:
            key = f"{r['port']} VL{r['vl']}"
            o = occ[key]
            o[0].append(float(r["t_us"]) / 1e6)
            o[1].append(int(r["peak_credits"]))
            o[2].append(int(r["congested"]))
        busiest = sorted(occ, key=lambda k: -max(occ[k][1]))[:6]
        busiest = [k for k in busiest if max(occ[k][1]) > 0]
        congested = [k for k in sorted(occ) if max(occ[k][2]) > 0][:12]
        if busiest or congested:
            n = len(busiest) + (1 if congested else 0)
            fig, axes = plt.subplots(n, 1, figsize=(10, 1.5 * n + 1.2), sharex=True, squeeze=False)
            for ax, k in zip(axes[:, 0], busiest):
                t, peak, _ = occ[k]
                ax.plot(t, peak, lw=0.8, color="tab:blue")
                ax.set_ylabel(f"in {k}\n(credits)", fontsize=7)
                ax.grid(alpha=0.3)
            if congested:
                ax = axes[-1, 0]
                for i, k in enumerate(congested):
                    t, _, cong = occ[k]
                    ax.fill_between(t, i, [i + 0.8 * c for c in cong], step="pre", color="tab:red")
                ax.set_yticks([i + 0.4 for i in range(len(congested))], [f"out {k}" for k in congested], fontsize=7)
                ax.set_ylabel("congestion\nstate", fontsize=7)
            axes[0, 0].set_title(f"{title}: peak input-buffer occupancy per interval of the busiest ports; "
                                 "output ports in the congestion state (red)", fontsize=9)
            axes[-1, 0].set_xlabel("time (s)")
            fig.tight_layout()
            fig.savefig(out / "ports.png", dpi=100)
            written.append("ports.png")

    if (d / "ccti.csv").exists():
        cc = defaultdict(lambda: ([], []))
        for r in read_csv(d / "ccti.csv"):
            c = cc[r["flow"]]
            c[0].append(float(r["t_us"]) / 1e6)
            c[1].append(int(r["ccti"]))
        if any(max(v[1]) > 0 for v in cc.values()):
            fig, ax = plt.subplots(figsize=(10, 4))
            shown = sorted(cc, key=lambda k: -max(cc[k][1]))[:MAX_FLOW_LINES]
            for n in shown:
                ax.plot(cc[n][0], cc[n][1], lw=0.8, label=n)
            ax.set_xlabel("time (s)")
            ax.set_ylabel("CCTI (CCT index)")
            ax.set_title(f"{title}: CCTI per flow{' (the 12 highest)' if len(cc) > MAX_FLOW_LINES else ''}")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8, ncol=6)
            fig.tight_layout()
            fig.savefig(out / "ccti.png", dpi=100)
            written.append("ccti.png")
    return written


def plot_sweep(d, out, metrics):
    rows = read_csv(d / "sweep.csv")
    header = list(rows[0].keys()) if rows else []
    keys = header[:header.index("status")]
    available = header[header.index("status") + 1:]
    metrics = metrics or [m for m in available if not m.startswith("throughput.")]
    bad = [m for m in metrics if m not in available]
    if bad:
        die(f"no metric {', '.join(bad)} in {d / 'sweep.csv'} (have: {', '.join(available)})")
    ok = [r for r in rows if r["status"] == "ok"]
    written = []
    for m in metrics:
        fig, ax = plt.subplots(figsize=(7, 5))
        if len(keys) == 1:
            xs = [r[keys[0]] for r in ok]
            ax.plot(range(len(xs)), [float(r[m]) for r in ok], marker="o")
            ax.set_xticks(range(len(xs)), xs)
            ax.set_xlabel(KEY_UNITS.get(keys[0], keys[0]))
            ax.set_ylabel(metric_label(m))
            ax.grid(alpha=0.3)
        else:
            kx, ky = keys[1], keys[0]  # the first (slowest) key on the y axis
            xv = list(dict.fromkeys(r[kx] for r in rows))
            yv = list(dict.fromkeys(r[ky] for r in rows))
            grid = [[float("nan")] * len(xv) for _ in yv]
            for r in ok:
                grid[yv.index(r[ky])][xv.index(r[kx])] = float(r[m])
            im = ax.imshow(grid, origin="lower", aspect="auto", cmap="viridis")
            for i in range(len(yv)):
                for j in range(len(xv)):
                    if grid[i][j] == grid[i][j]:
                        ax.text(j, i, f"{grid[i][j]:.3g}", ha="center", va="center", fontsize=7, color="white")
            ax.set_xticks(range(len(xv)), xv, fontsize=8)
            ax.set_yticks(range(len(yv)), yv, fontsize=8)
            ax.set_xlabel(KEY_UNITS.get(kx, kx))
            ax.set_ylabel(KEY_UNITS.get(ky, ky))
            fig.colorbar(im, ax=ax, label=metric_label(m))
            if len(keys) > 2:
                ax.set_title(f"(other keys: {', '.join(keys[2:])} - all values overlaid)", fontsize=7)
        fig.suptitle(f"{metric_label(m)}", fontsize=11)
        fig.tight_layout()
        name = "sweep_" + "".join(c if c.isalnum() or c in "._-" else "_" for c in m) + ".png"
        fig.savefig(out / name, dpi=100)
        plt.close(fig)
        written.append(name)
    return written


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", type=Path)
    ap.add_argument("--metric", action="append", default=[])
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    out = args.out or args.dir
    out.mkdir(parents=True, exist_ok=True)
    if (args.dir / "sweep.csv").exists():
        written = plot_sweep(args.dir, out, args.metric)
    elif (args.dir / "summary.json").exists():
        written = plot_run(args.dir, out)
    else:
        die(f"{args.dir} has neither summary.json (a run) nor sweep.csv (a sweep)")
    for w in written:
        print(out / w)


if __name__ == "__main__":
    main()
