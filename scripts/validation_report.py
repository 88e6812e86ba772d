#!/usr/bin/env python3
"""Regenerates the numbers and plots of docs/validation.md: the seed test-bed scenarios with
CC off and on, drawn the way the seed draws them (its Figures 7, 8 and 9), and the
sensitivity runs that show which model choices the CC-on fairness depends on.

  validation_report.py [BUILD_DIR] [--out OUT_DIR] [--img docs/img]

Runs `ibcc run` (two at a time), writes PNGs to --img and prints the markdown tables.
"""
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
S1 = ROOT / "topologies/seed-testbed/scenario1.yaml"
S2 = ROOT / "topologies/seed-testbed/scenario2.yaml"
COLORS = {"F1": "tab:blue", "F2": "tab:orange", "F3": "tab:green", "F4": "tab:red", "F5": "tab:purple"}


def arg(flag, default):
    return sys.argv[sys.argv.index(flag) + 1] if flag in sys.argv else default


def run(ibcc, scenario, out, args):
    subprocess.run([ibcc, "run", str(scenario), "--out", str(out), "--quiet", "--force"] + args, check=True)
    return json.loads((out / "summary.json").read_text())


def flows_csv(out):
    series = {}
    for line in (out / "flows.csv").read_text().splitlines()[1:]:
        t, flow, gbps = line.split(",")
        series.setdefault(flow, ([], []))
        series[flow][0].append(float(t) / 1e6)
        series[flow][1].append(float(gbps))
    return series


def throughput_plot(ax, out, title):
    for flow, (t, g) in flows_csv(out).items():
        ax.plot(t, g, lw=0.8, label=flow, color=COLORS.get(flow))
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("throughput (Gb/s)")
    ax.set_ylim(0, 15)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=7, ncol=5)


def jain(xs):
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def main():
    build = Path(sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else "build")
    ibcc = str(build / "bin" / "ibcc")
    out = Path(arg("--out", "out/validation"))
    img = Path(arg("--img", str(ROOT / "docs/img")))
    img.mkdir(parents=True, exist_ok=True)
    jobs = {
        "s1_off": (S1, ["--cc", "off"]),
        "s1_on": (S1, ["--cc", "on"]),
        "s2_off": (S2, ["--cc", "off"]),
        "s2_on": (S2, ["--cc", "on"]),
        # Sensitivity of the CC-on fairness in scenario 1 to model choices.
        "s1_on_buf64k": (S1, ["--cc", "on", "--set", "fabric.switch.buffer_per_vl=64KiB"]),
        "s1_on_buf64k_timer20": (S1, ["--cc", "on", "--set", "fabric.switch.buffer_per_vl=64KiB",
                                      "--set", "cc.ca.ccti_timer=20"]),
        "s1_on_random": (S1, ["--cc", "on", "--set", "cc.switch.marking_mode=random"]),
        "s1_on_head": (S1, ["--cc", "on", "--set", "fabric.switch.fill_count=head"]),
        "s1_on_sum": (S1, ["--cc", "on", "--set", "cc.switch.mapping=sum"]),
    }
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        futures = {k: pool.submit(run, ibcc, s, out / k, a) for k, (s, a) in jobs.items()}
        res = {k: f.result() for k, f in futures.items()}

    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex="row")
    throughput_plot(axes[0][0], out / "s1_off", "scenario 1, CC off (cf. seed Fig. 7a/7c)")
    throughput_plot(axes[0][1], out / "s1_on", "scenario 1, CC on (cf. seed Fig. 7b/7d)")
    throughput_plot(axes[1][0], out / "s2_off", "scenario 2, CC off (cf. seed Fig. 8a/8c)")
    throughput_plot(axes[1][1], out / "s2_on", "scenario 2, CC on (cf. seed Fig. 8b/8d)")
    fig.suptitle("ibcc: payload throughput per flow at its destination, 10 ms intervals")
    fig.tight_layout()
    fig.savefig(img / "validation_throughput.png", dpi=110)

    # Figure 9: the contributors' shares of the bottleneck, all four active (last phase).
    fig, ax = plt.subplots(figsize=(6, 4))
    names = ["F2", "F3", "F4", "F5"]
    for i, key in enumerate(["s1_off", "s1_on"]):
        last = res[key]["phases"][-1]["gbps"]
        total = sum(last[n] for n in names)
        bottom = 0
        for n in names:
            share = last[n] / total
            ax.bar(i, share, bottom=bottom, color=COLORS[n], label=n if i == 0 else None, width=0.6)
            ax.text(i, bottom + share / 2, f"{n} {share:.0%}", ha="center", va="center", fontsize=8, color="white")
            bottom += share
    ax.set_xticks([0, 1], ["CC off", "CC on"])
    ax.set_ylabel("share of the contributors' throughput")
    ax.set_title("scenario 1, 4.5-5 s: fairness among the contributors (cf. seed Fig. 9)", fontsize=9)
    ax.axhline(0.25, color="k", lw=0.5, ls=":")
    ax.axhline(0.5, color="k", lw=0.5, ls=":")
    ax.axhline(0.75, color="k", lw=0.5, ls=":")
    fig.tight_layout()
    fig.savefig(img / "validation_fairness.png", dpi=110)

    def row(key):
        return [res[key]["phases"][k]["gbps"] for k in range(len(res[key]["phases"]))]

    print("### Scenario 1 per phase (Gb/s)\n")
    print("| phase (s) | CC | F1 | F2 | F3 | F4 | F5 |")
    print("|---|---|---|---|---|---|---|")
    for k in range(5):
        for key, cc in (("s1_off", "off"), ("s1_on", "on")):
            p = row(key)[k]
            print(f"| {k}-{k + 1} | {cc} | " + " | ".join(f"{p[n]:.2f}" for n in ["F1", "F2", "F3", "F4", "F5"]) + " |")
    print("\n### Scenario 2 per phase (Gb/s)\n")
    print("| phase (s) | CC | F1 | F2 | F3 |")
    print("|---|---|---|---|---|")
    for k in range(3):
        for key, cc in (("s2_off", "off"), ("s2_on", "on")):
            p = row(key)[k]
            print(f"| {k}-{k + 1} | {cc} | " + " | ".join(f"{p[n]:.2f}" for n in ["F1", "F2", "F3"]) + " |")
    print("\n### Scenario 1, CC on, last phase: sensitivity\n")
    print("| run | F1 | F2 | F3 | F4 | F5 | Jain F2..F5 | F4/(F2+F3) |")
    print("|---|---|---|---|---|---|---|---|")
    for key in ["s1_on", "s1_on_buf64k", "s1_on_buf64k_timer20", "s1_on_random", "s1_on_head", "s1_on_sum", "s1_off"]:
        p = res[key]["phases"][-1]["gbps"]
        print(f"| {key} | " + " | ".join(f"{p[n]:.2f}" for n in ["F1", "F2", "F3", "F4", "F5"]) +
              f" | {jain([p[n] for n in names]):.3f} | {p['F4'] / (p['F2'] + p['F3']):.2f} |")


if __name__ == "__main__":
    main()
