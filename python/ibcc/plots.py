"""The pictures of ibcc results (`ibcc plot DIR`, `ibcc run --plot`), drawn from the loader's
DataFrames in one style: a flow keeps its colour in every plot of a run, legends sit outside
the axes, time axes use the unit that fits, heat maps say n/a for undefined cells. Every figure
is checked before it is saved: its title, labels and legend must lie inside it.

A run directory gives:
  throughput.png  payload throughput per flow over time (per group beyond 12 flows), from zero;
                  lines drawn first wider and later ones dashed, so that coinciding flows all
                  show, and a marker where a flow starts
  fairness.png    each phase's throughput shares as stacked bars
  ports.png       input-buffer occupancy of the busiest ports, with the buffer capacity and
                  the trip level; the fraction of each interval the outputs spent congested
                  and their FECN marks, for the outputs that marked most
  ccti.png        CCTI per flow over time (IB CC)
  rates.png       DCQCN's rate (Rc) per flow over time, or per group with its range, beyond
                  12 flows (cc.reaction dcqcn | dcqcn_plus)
  latency.png     packet latency per group as a distribution function, p50/p99/p99.9 marked
  fabric.png      the fabric: switches in rows from the HCAs up, each link's halves coloured by
                  the time its switch output spent congested (roots solid, victims dashed)
Several run directories (ibcc plot DIR1 DIR2 ... --out OUT [--label L ...]) are compared:
  compare_throughput.png  throughput per flow (per group beyond 6 flows) over time, a colour
                          per flow, a line style per run
  compare_metrics.png     the headline metrics side by side, a bar per run
  compare.csv             every metric the runs share, a row per run
A run over several seeds (ibcc run --seeds N) gives:
  replicas_throughput.png  throughput per flow (per group beyond 6 flows) over time: the mean
                           over the seeds, the range they span shaded
  replicas_metrics.png     the headline metrics: mean ± 95 % confidence interval, each seed a dot
A sweep directory gives one heat map per metric (sweep_<metric>.png) over the first two swept
keys, one panel per combination of any further keys (on one colour scale), or a line plot when
one key is swept; a failed or stalled point says so in its place; with --seeds each cell
shows its mean ± 95 % confidence interval. The colour bar says which way is better (the
better end bright), starts at zero for a metric that cannot be negative, and puts counts on a
log scale.
"""
import difflib
import json
import math
import re
import textwrap
from pathlib import Path

import matplotlib
import pandas as pd

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import colors as mcolors  # noqa: E402
from matplotlib.ticker import EngFormatter, FuncFormatter  # noqa: E402

from .campaign.errors import RunError  # noqa: E402
from .campaign.storage import csv_text, write_text  # noqa: E402
from .metrics import metric_direction  # noqa: E402
from .results import ResultsError, load_replicas, load_run, load_sweep  # noqa: E402

MAX_LINES = 12
DPI = 100

KEY_LABELS = {
    "cc.ca.ccti_timer": "CCTI_Timer (× 1.024 µs)",
    "cc.switch.marking_rate": "Marking_Rate (eligible packets skipped)",
    "cc.switch.threshold": "Threshold (0-15)",
    "cc.switch.mapping": "threshold mapping",
    "cc.switch.packet_size": "Packet_Size (64-byte credits)",
    "cc.ca.ccti_increase": "CCTI_Increase",
    "cc.ca.ccti_min": "CCTI_Min",
}


class LayoutError(Exception):
    """A figure whose title, labels or legend would be cut off."""


def metric_label(name):
    if name.startswith(("throughput.", "group_total.", "group_mean.")) or name in ("victim", "contributors", "total"):
        return f"{name} (Gb/s)"
    if name.startswith(("latency_", "message_", "pingpong_")):
        return name.replace("_us", "") + " (µs)"
    return {"jain": "Jain's fairness index", "tvv": "TVV ((Gb/s)²)", "fecn": "FECN-marked packets",
            "becn": "BECNs", "cnps": "CNPs", "peak_buffer_credits": "peak buffer (64-byte credits)"}.get(name, name)


def eng(v):
    """A value in engineering notation without exponents: 4.09k, 13.3, 0.98, 5m."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if v == 0:
        return "0"
    if 0.01 <= abs(v) < 1000:
        return f"{v:.3g}"
    return EngFormatter(places=2, sep="")(v)


def time_unit(max_us):
    """(divisor from µs, unit) so that the axis reads 0 .. a few hundred."""
    if max_us <= 2000:
        return 1.0, "µs"
    if max_us <= 2e6:
        return 1e3, "ms"
    return 1e6, "s"


def fmt_time_us(us):
    div, unit = time_unit(us)
    return f"{us / div:g} {unit}"


def flow_colours(names):
    """One colour per flow (or group) name, the same in every plot of a run."""
    palette = list(plt.get_cmap("tab10").colors) + list(plt.get_cmap("Dark2").colors) + list(plt.get_cmap("Set1").colors)
    return {n: palette[i % len(palette)] for i, n in enumerate(sorted(names))}


def run_title(run, what):
    window = run.window or "?"
    sim = fmt_time_us(float(run.summary.get("sim_time_us", 0)))
    return f"{run.name} (CC {'on' if run.cc else 'off'}, {sim} simulated, metrics window {window})\n{what}"


def fit_title(fig, text, fontsize):
    """`text` wrapped to the figure's width (a long scenario name must not run off it)."""
    chars = max(30, int(fig.get_figwidth() * 72 * 0.75 / (fontsize * 0.55)))  # the axes, not the legend beside it
    return "\n".join(textwrap.fill(line, chars) for line in text.split("\n"))


def legend_outside(ax, **kw):
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, borderaxespad=0, **kw)


def check_layout(fig):
    """Raises LayoutError when a title, axis label, tick label or legend lies outside the figure."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    tol = 1.0
    bad = []

    def inside(artist, what):
        if artist is None or not artist.get_visible() or (hasattr(artist, "get_text") and not artist.get_text()):
            return
        e = artist.get_window_extent(renderer)
        if e.width == 0 and e.height == 0:
            return
        if e.x0 < box.x0 - tol or e.y0 < box.y0 - tol or e.x1 > box.x1 + tol or e.y1 > box.y1 + tol:
            bad.append(f"{what} {getattr(artist, 'get_text', lambda: '')()!r:.40} at {e.bounds} outside {box.bounds}")

    inside(fig._suptitle, "suptitle")
    for i, ax in enumerate(fig.axes):
        # The axes with everything drawn around it: title, labels, tick labels, legend.
        e = ax.get_tightbbox(renderer)
        if e is not None and (e.x0 < box.x0 - tol or e.y0 < box.y0 - tol or e.x1 > box.x1 + tol or e.y1 > box.y1 + tol):
            bad.append(f"axes {i} ({ax.get_title()[:40]!r}) with its labels and legend spans {tuple(round(v) for v in e.extents)}, "
                       f"the figure {tuple(round(v) for v in box.extents)}")
        inside(ax.get_legend(), f"legend of axes {i}")
    if bad:
        raise LayoutError("; ".join(bad))


MANIFEST = ".ibcc-files"  # the files ibcc wrote into a directory: what --force may remove


def record_written(path):
    """Adds `path`'s name to its directory's manifest (once)."""
    manifest = path.parent / MANIFEST
    names = set(manifest.read_text().split("\n")) if manifest.exists() else set()
    if path.name not in names:
        with open(manifest, "a") as f:
            f.write(path.name + "\n")


def save(fig, path, manifest=True):
    """Writes the figure (its layout checked) to `path`, listed in its directory's manifest of
    files ibcc wrote unless `manifest` is False (a picture the user named, outside a run)."""
    check_layout(fig)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    if manifest:
        record_written(path)
    return path.name


def stacked_widths(n, thinnest=1.2, widest=6.5):
    """Line widths for `n` lines that may lie on top of each other: the first drawn widest, the
    last thinnest, so that every one of several coinciding lines stays visible around the next."""
    if n <= 1:
        return [1.2] * n
    return [widest - (widest - thinnest) * i / (n - 1) for i in range(n)]


# Line styles for the lines drawn over others (stacked_widths): through the gaps of a dashed
# line the one under it shows.
STACKED_STYLES = ["-", (0, (6, 2)), (0, (3, 2)), (0, (1, 1.5)), (0, (8, 2, 2, 2)), (0, (4, 1, 1, 1, 1, 1))]


def _absent_before_start(df, starts):
    """Throughput of a flow before it starts is not zero but absent (NaN: no line drawn)."""
    df = df.copy()
    start = df["flow"].map(starts).fillna(0.0)
    df.loc[df["t_us"] <= start, "gbps"] = float("nan")
    return df


def plot_throughput(run, out, colours, by_group):
    df = _absent_before_start(run.flows, run.flow_starts_us)
    if df.empty:
        return None
    key = "group" if by_group else "flow"
    series = df.groupby(["t_us", key])["gbps"].sum(min_count=1).unstack(key)
    div, unit = time_unit(series.index.max())
    shown = list(series.columns)
    hidden = []
    if len(shown) > MAX_LINES:  # the busiest lines; the rest summarised
        order = series.mean().sort_values(ascending=False).index
        shown, hidden = list(order[:MAX_LINES]), list(order[MAX_LINES:])
    fig, ax = plt.subplots(figsize=(11, 5), layout="constrained")
    starts = run.flow_starts_us
    for i, (name, lw) in enumerate(zip(shown, stacked_widths(len(shown)))):
        t = series.index / div
        ax.plot(t, series[name], lw=lw, ls=STACKED_STYLES[i % len(STACKED_STYLES)], color=colours.get(name),
                label=str(name), zorder=2 + i, solid_capstyle="butt")
        first = series[name].first_valid_index()
        if first is not None and not by_group and starts.get(name, 0.0) > 0:
            # Where a flow starts: a marker on its line (its start time, from the scenario).
            ax.plot([first / div], [series[name].loc[first]], marker="v", ms=6, color=colours.get(name), zorder=20,
                    ls="none")
    if hidden:
        ax.plot(series.index / div, series[hidden].mean(axis=1), lw=0.9, color="grey", ls="--",
                label=f"mean of {len(hidden)} more", zorder=2 + len(shown))
    ax.set_ylim(bottom=0, top=max(1e-9, float(series[shown].max().max()) if shown else 1.0) * 1.08)
    if len(shown) > 1:
        ax.text(0.0, -0.12, "lines drawn first are wider, later ones dashed: a line under another shows around and "
                "through it; v: a flow starts",
                transform=ax.transAxes, fontsize=7, color="dimgrey", va="top")
    ax.set_xlabel(f"time ({unit})")
    ax.set_ylabel("payload throughput at the destination (Gb/s)")
    ax.set_title(fit_title(ax.figure, run_title(run, f"throughput per {'group' if by_group else 'flow'}"), 10), fontsize=10)
    ax.grid(alpha=0.3)
    legend_outside(ax)
    return save(fig, out / "throughput.png")


def plot_fairness(run, out, colours, by_group):
    phases = run.summary.get("phases", [])
    if not phases:
        return None
    groups = run.groups
    fig, ax = plt.subplots(figsize=(max(7, 1.2 * len(phases) + 4), 5), layout="constrained")
    names = sorted({(groups.get(f, f) if by_group else f) for p in phases for f in p["gbps"]})
    for i, p in enumerate(phases):
        vals = {}
        for flow, g in p["gbps"].items():
            k = groups.get(flow, flow) if by_group else flow
            vals[k] = vals.get(k, 0.0) + g
        total = sum(vals.values())
        bottom = 0.0
        for n in names:
            share = vals.get(n, 0.0) / total if total > 0 else 0.0
            ax.bar(i, share, bottom=bottom, color=colours.get(n), label=n if i == 0 else None, width=0.7)
            if share > 0.06:
                r, g, b = mcolors.to_rgb(colours.get(n, "grey"))
                text = "black" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.5 else "white"
                ax.text(i, bottom + share / 2, f"{n}\n{share:.0%}", ha="center", va="center", fontsize=7, color=text)
            bottom += share
    top = max(p["end_us"] for p in phases)
    div, unit = time_unit(top)
    ax.set_xticks(range(len(phases)), [f"{p['start_us'] / div:g}-{p['end_us'] / div:g} {unit}" for p in phases], fontsize=8)
    ax.set_ylabel("share of the delivered throughput")
    ax.set_title(fit_title(ax.figure, run_title(run, "shares per phase (second half of each)"), 10), fontsize=10)
    legend_outside(ax)
    return save(fig, out / "fairness.png")


def _bytes(text):
    m = re.fullmatch(r"\s*([0-9.]+)\s*(B|KB|MB|KiB|MiB)?\s*", str(text))
    if not m:
        return None
    scale = {"B": 1, None: 1, "KB": 1e3, "MB": 1e6, "KiB": 1024, "MiB": 1048576}[m.group(2)]
    return float(m.group(1)) * scale


def plot_ports(run, out):
    ports = run.ports
    if ports.empty:
        return None
    ports = ports.assign(key=ports["port"] + " VL" + ports["vl"].astype(str))
    peak = ports.groupby("key")["peak_credits"].max()
    busiest = [k for k in peak.sort_values(ascending=False).index[:4] if peak[k] > 0]
    has_marks = "fecn_marks" in ports.columns
    marks = ports.groupby("key")["fecn_marks"].sum() if has_marks else None
    marking = [k for k in marks.sort_values(ascending=False).index[:4] if marks[k] > 0] if has_marks else []
    if not busiest and not marking:
        return None
    capacity = (_bytes(run.config_value("fabric.switch.buffer_per_vl", "")) or 0) / 64
    threshold = run.config_value("cc.switch.threshold", 0) or 0
    trip = capacity * (16 - threshold) / 16 if run.cc and threshold else None
    n = len(busiest) + 2 * len(marking)
    fig, axes = plt.subplots(n, 1, figsize=(11, 1.6 * n + 1.5), sharex=True, squeeze=False, layout="constrained")
    div, unit = time_unit(ports["t_us"].max())
    row = 0
    for k in busiest:
        ax = axes[row, 0]
        d = ports[ports["key"] == k]
        ax.plot(d["t_us"] / div, d["peak_credits"], lw=0.8, color="tab:blue", label="peak in interval")
        if capacity:
            ax.axhline(capacity, color="black", lw=0.8, ls="-", label=f"buffer ({capacity:g} credits)")
        if trip:
            ax.axhline(trip, color="tab:red", lw=0.8, ls="--", label=f"trip level, Threshold {threshold} ({trip:g})")
        ax.set_ylabel(f"in {k}\n(credits)", fontsize=7)
        ax.grid(alpha=0.3)
        if row == 0:
            legend_outside(ax)
        row += 1
    for k in marking:
        d = ports[ports["key"] == k]
        ax = axes[row, 0]
        ax.fill_between(d["t_us"] / div, 0, d["congested_frac"], step="pre", color="tab:red", alpha=0.7)
        ax.set_ylim(0, max(0.05, 1.1 * float(d["congested_frac"].max())))
        ax.set_ylabel(f"out {k}\ncongested", fontsize=7)
        ax.grid(alpha=0.3)
        ax = axes[row + 1, 0]
        ax.step(d["t_us"] / div, d["fecn_marks"], where="pre", color="tab:purple", lw=0.8)
        ax.set_ylabel(f"out {k}\nFECN marks", fontsize=7)
        ax.grid(alpha=0.3)
        row += 2
    axes[0, 0].set_title(fit_title(fig, run_title(run, "busiest input buffers (peak per interval); for the outputs that "
                                                        "marked most, the fraction of each interval spent congested and "
                                                        "the marks"), 9), fontsize=9)
    axes[-1, 0].set_xlabel(f"time ({unit})")
    return save(fig, out / "ports.png")


def plot_ccti(run, out, colours):
    cc = run.ccti
    if cc.empty or cc["ccti"].max() <= 0:
        return None
    top = cc.groupby("flow")["ccti"].max().sort_values(ascending=False)
    shown = list(top.index[:MAX_LINES])
    div, unit = time_unit(cc["t_us"].max())
    starts = run.flow_starts_us
    fig, ax = plt.subplots(figsize=(11, 4.5), layout="constrained")
    for f in shown:
        d = cc[(cc["flow"] == f) & (cc["t_us"] > starts.get(f, 0.0))]
        ax.plot(d["t_us"] / div, d["ccti"], lw=0.8, color=colours.get(f), label=f)
    ax.set_xlabel(f"time ({unit})")
    ax.set_ylabel("CCTI (CCT index)")
    more = f" (the {MAX_LINES} highest of {len(top)})" if len(top) > MAX_LINES else ""
    ax.set_title(fit_title(ax.figure, run_title(run, f"CCTI per flow{more}"), 10), fontsize=10)
    ax.grid(alpha=0.3)
    legend_outside(ax)
    return save(fig, out / "ccti.png")


def plot_rates(run, out, colours, by_group):
    r = run.rates
    if r.empty:
        return None
    div, unit = time_unit(r["t_us"].max())
    fig, ax = plt.subplots(figsize=(11, 4.5), layout="constrained")
    if by_group:
        g = r.groupby(["group", "t_us"]).agg(rate=("rate_gbps", "mean"), lo=("min_gbps", "min"),
                                             hi=("max_gbps", "max")).reset_index()
        for name in sorted(g["group"].unique()):
            d = g[g["group"] == name]
            ax.plot(d["t_us"] / div, d["rate"], lw=0.9, color=colours.get(name), label=f"{name} (mean)",
                    marker="o" if len(d) < 3 else None)
            ax.fill_between(d["t_us"] / div, d["lo"], d["hi"], color=colours.get(name), alpha=0.2, lw=0)
        what = "mean rate per group over its QPs, shaded from the lowest to the highest"
    else:
        for f in sorted(r["flow"].unique()):
            d = r[r["flow"] == f]
            ax.plot(d["t_us"] / div, d["rate_gbps"], lw=0.8, color=colours.get(f), label=f,
                    marker="o" if len(d) < 3 else None)
        what = "rate per flow (mean over its QPs)"
    ax.set_xlabel(f"time ({unit})")
    ax.set_ylabel("DCQCN rate Rc (Gb/s)")
    ax.set_ylim(bottom=0)
    ax.set_title(fit_title(ax.figure, run_title(run, f"DCQCN {what}, at each interval end"), 10), fontsize=10)
    ax.grid(alpha=0.3)
    legend_outside(ax)
    return save(fig, out / "rates.png")


def plot_latency(run, out, colours):
    """Packet latency per group as a distribution function (the fraction of packets at most x
    µs late; log x), with the p50, p99 and p99.9 of each group marked on its curve."""
    lat = run.latency
    if lat.empty or "kind" not in lat.columns:
        return None
    pk = lat[lat["kind"] == "packet"]
    if pk.empty:
        return None
    by_group = pk.groupby(["group", "upper_us"])["count"].sum().reset_index()
    groups = sorted(by_group["group"].unique())
    fig, ax = plt.subplots(figsize=(11, 4.8), layout="constrained")
    marks = {0.5: "o", 0.99: "s", 0.999: "^"}
    for g, lw in zip(groups, stacked_widths(len(groups), 1.2, 3.5)):
        d = by_group[by_group["group"] == g].sort_values("upper_us")
        first = int((d["count"] > 0).values.argmax())
        d = d.iloc[max(0, first - 1):]  # (from the bin before the first packet: no long run of zeros)
        colour = colours.get(g)
        cdf = d["count"].cumsum() / d["count"].sum()
        ax.step(d["upper_us"], cdf, where="post", lw=lw, color=colour, label=f"{g} ({eng(d['count'].sum())} packets)")
        for q, m in marks.items():
            k = min(len(d) - 1, int((cdf >= q).values.argmax()))
            ax.plot([d["upper_us"].iloc[k]], [cdf.iloc[k]], marker=m, ms=6, color=colour, ls="none", zorder=10)
    for q, m in marks.items():  # (the legend's key to the markers)
        ax.plot([], [], marker=m, ls="none", color="dimgrey", label=f"p{q * 100:g}")
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("packet latency (µs, log scale; histogram bin upper edges)")
    ax.set_ylabel("fraction of packets at most this late")
    ax.grid(alpha=0.3, which="both")
    legend_outside(ax)
    fig.suptitle(fit_title(fig, run_title(run, "packet latency per group, distribution (message creation to drain, "
                                              "whole latency window)"), 10), fontsize=10)
    return save(fig, out / "latency.png")


def _natural(name):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(name))]


def plot_fabric(run, out):
    """The fabric as a picture after a run: each link's half leaving a switch coloured by the
    fraction of the run its output spent in the congestion state (whichever VL), solid where it
    marked FECN (a root of congestion), dashed where it was congested without marking (a
    victim). Readable for a 648-port Clos."""
    ports = run.summary.get("ports") or []
    if not ports:
        return None
    # Time in the congestion state per output (the largest over its VLs), and its marks.
    frac, marks = {}, {}
    if not run.ports.empty and "congested_frac" in run.ports.columns:
        per = run.ports.groupby(["port", "t_us"])["congested_frac"].max().groupby("port").mean()
        frac = {k: float(v) for k, v in per.to_dict().items()}
        marks = run.ports.groupby("port")["fecn_marks"].sum().to_dict()
    roots = sorted((p for p in frac if marks.get(p, 0) > 0), key=lambda p: -frac[p])[:5]
    victims = sorted((p for p in frac if marks.get(p, 0) == 0 and frac[p] > 0), key=lambda p: -frac[p])[:5]
    lines = []
    if roots:
        lines.append("roots (marked): " + ", ".join(f"{_short_port(p)} {frac[p]:.1%} ({eng(marks[p])} marks)"
                                                   for p in roots))
    if victims:
        lines.append("victims (congested, no marks): " + ", ".join(f"{_short_port(p)} {frac[p]:.1%}" for p in victims))
    lines.append("a link's half leaving a switch is that output: solid where it marked FECN (a root), dashed where "
                 "it was congested without marking (a victim), grey where never congested")
    if not roots and not victims:
        lines.insert(0, "no output port spent time in the congestion state")
    # (scaled to the most congested output: a congestion state held 2 % of the time with
    # thousands of marks is the story of a run, and would vanish on a 0..100 % scale)
    solid = {p for p in frac if marks.get(p, 0) > 0}
    dashed = {p for p in frac if frac[p] > 0 and p not in solid}
    return draw_fabric([(p["port"], p["to"]) for p in ports], frac, solid, dashed, lines,
                       "share of the run congested (to the largest)", lambda v: f"{v * 100:.3g} %",
                       lambda n_sw, n_hca: run_title(run, f"the fabric: {n_sw} switches, {n_hca} HCAs"),
                       out / "fabric.png")


def plot_fabric_load(spec, path, manifest=True):
    """The fabric before a run (ibcc topo --draw): each link's half leaving a switch coloured by
    the load the scenario's flows are expected to offer that output, against what it can send;
    solid above 1x (a congestion-tree candidate), grey where no flow passes. `spec` is what
    `ibcc topo` wrote (ports with their peers and offered/capacity ratios, the scenario, the
    version)."""
    ports = spec["ports"]
    ratio = {p["port"]: float(p["ratio"]) for p in ports if p.get("ratio") is not None}
    over = sorted((p for p in ratio if ratio[p] > 1.005), key=lambda p: -ratio[p])
    lines = ["congestion-tree candidates (offered above what the output can send): "
             + (", ".join(f"{_short_port(p)} {ratio[p]:.2f}x" for p in over[:6]) + (", ..." if len(over) > 6 else "")
                if over else "none")]
    lines.append("a link's half leaving a switch is that output, coloured by the load the flows are expected to offer "
                 "it (saturating flows at their source's rate): solid above 1x, dashed below, grey where no flow passes")
    solid = set(over)
    dashed = {p for p in ratio if ratio[p] > 0 and p not in solid}
    return draw_fabric([(p["port"], p["to"]) for p in ports], ratio, solid, dashed, lines,
                       "expected offered load / capacity", lambda v: f"{v:.3g}x",
                       lambda n_sw, n_hca: f"{spec.get('name', '')}: {n_sw} switches, {n_hca} HCAs, expected load before a "
                                           f"run (ibcc topo; {spec.get('version', 'ibcc ?')})",
                       Path(path), manifest)


def _short_port(port):
    return port if len(port) <= 18 else port[:8] + "…" + port[-8:]


def draw_fabric(links, value, solid, dashed, lines, scale_label, scale_format, title, path, manifest=True):
    """Switches in rows by their distance from the HCAs (leaves at the bottom, the HCAs under
    them), each link drawn as two halves. `links`: (SWITCH/PORT, peer) per switch output;
    `value`: a number per output, coloured on a scale to the largest; the outputs in `solid`
    and `dashed` drawn so, the others grey. `lines`: the text under the picture; `title(n_sw,
    n_hca)`: its title."""
    switches = sorted({port.split("/")[0] for port, _ in links}, key=_natural)
    edges = [(port.split("/")[0], to, port) for port, to in links]
    hcas = sorted({b for _, b, _ in edges if b not in switches}, key=_natural)
    # Rows: HCAs 0, a switch one above its lowest neighbour (breadth first from the HCAs).
    level = {h: 0 for h in hcas}
    adj = {}
    for a, b, _ in edges:
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    frontier = list(hcas)
    while frontier:
        nxt = []
        for n in frontier:
            for m in adj.get(n, ()):
                if m not in level:
                    level[m] = level[n] + 1
                    nxt.append(m)
        frontier = nxt
    for sw in switches:
        level.setdefault(sw, 1)
    rows = {}
    for sw in switches:
        rows.setdefault(level[sw], []).append(sw)
    pos = {}
    width = max(len(r) for r in rows.values())
    for lv, names in rows.items():
        for i, n in enumerate(names):
            pos[n] = ((i + 0.5) * width / len(names), float(lv))
    # The HCAs under the switch they hang from, spread across its share of the width.
    under = {}
    for a, b, _ in edges:
        if b in hcas and a in pos:
            under.setdefault(a, []).append(b)
    for sw, hs in under.items():
        x0, y0 = pos[sw]
        share = width / max(1, len(rows.get(level[sw], [sw])))
        for i, h in enumerate(sorted(hs, key=_natural)):
            pos[h] = (x0 - share * 0.42 + share * 0.84 * (i + 0.5) / len(hs), y0 - 0.55)
    many = len(pos) > 200
    fig, ax = plt.subplots(figsize=(12, 6.5), layout="constrained")
    cmap = plt.get_cmap("YlOrRd")
    top = max([float(v) for v in value.values()] + [0.0])
    norm = mcolors.Normalize(0, top if top > 0 else 1.0)
    grey = (0.75, 0.75, 0.75, 1.0)
    for a, b, port in edges:
        if a not in pos or b not in pos:
            continue
        (x0, y0), (x1, y1) = pos[a], pos[b]
        xm, ym = (x0 + x1) / 2, (y0 + y1) / 2
        v = float(value.get(port, 0.0))
        shown = port in solid or port in dashed
        colour = cmap(norm(v)) if shown else grey
        lw = (0.4 if many else 1.0) + (2.5 if many else 4.0) * (norm(v) if shown else 0.0)
        ax.plot([x0, xm], [y0, ym], color=colour, lw=lw, ls="-" if port in solid or not shown else (0, (3, 2)),
                zorder=2 + float(norm(v)), solid_capstyle="butt")
        if b in hcas:  # (the HCA's own half: its output is not a switch port)
            ax.plot([xm, x1], [ym, y1], color=grey, lw=0.4 if many else 1.0, zorder=1)
    ax.scatter([pos[s][0] for s in switches], [pos[s][1] for s in switches], s=12 if many else 220, marker="s",
               color="#34495e", zorder=5)
    ax.scatter([pos[h][0] for h in hcas if h in pos], [pos[h][1] for h in hcas if h in pos], s=2 if many else 60,
               marker="o", color="#7f8c8d", zorder=5)
    if not many:
        upright = len(hcas) > 12  # (HCA names side by side would overlap)
        for n, (x, y) in pos.items():
            label = n if len(n) <= 12 else n[:4] + "…" + n[-7:]  # (the ends tell GUID-named switches apart)
            if n in switches:
                ax.annotate(label, (x, y), textcoords="offset points", xytext=(0, 9), ha="center", fontsize=8)
            else:
                ax.annotate(label, (x, y), textcoords="offset points", xytext=(0, -6), ha="center", va="top",
                            fontsize=7 if upright else 8, rotation=90 if upright else 0)
    ax.margins(x=0.06, y=0.1)
    ax.text(0.0, -0.02, "\n".join(textwrap.fill(ln, 125) for ln in lines), transform=ax.transAxes, fontsize=8,
            va="top")
    ax.set_axis_off()
    sm = plt.cm.ScalarMappable(cmap=cmap, norm=norm)
    fig.colorbar(sm, ax=ax, shrink=0.6, label=scale_label, format=FuncFormatter(lambda v, _: scale_format(v)))
    ax.set_title(fit_title(fig, title(len(switches), len(hcas)), 10), fontsize=10)
    return save(fig, path, manifest)


def plot_run(directory, out):
    run = load_run(directory)
    names = set(run.flows["flow"].unique()) if not run.flows.empty else set()
    by_group = len(names) > MAX_LINES
    # Beyond MAX_LINES flows the plots show groups: the groups get the distinct colours.
    colours = flow_colours(set(run.groups.values()) if by_group else names | set(run.groups.values()))
    written = [plot_throughput(run, out, colours, by_group), plot_fairness(run, out, colours, by_group),
               plot_ports(run, out), plot_ccti(run, out, colours), plot_rates(run, out, colours, by_group),
               plot_latency(run, out, colours), plot_fabric(run, out)]
    return [w for w in written if w]


def _point_status(status):
    """A point's cell text when it has no value to colour: stalled, failed, or None."""
    if status == "ok":
        return None
    return "stalled" if status == "stalled" else "failed"


def _sweep_sim_time(sweep):
    """The simulated time of the sweep's runs: --sim-time, else what a finished point ran."""
    if sweep.spec.get("sim_time"):
        return sweep.spec["sim_time"]
    for summary in sorted(list((sweep.dir / "points").glob("*/summary.json"))
                          + list((sweep.dir / "points").glob("*/seed-*/summary.json"))):
        try:
            us = json.loads(summary.read_text()).get("sim_time_us")
        except (OSError, ValueError):
            continue
        if us:
            return fmt_time_us(us)
    return "the scenario's sim.time"


def _panels(pts, rest):
    """The sweep's points split by the values of the keys beyond the first two (one panel each,
    in the order the sweep visited them); one panel of all points when there are none."""
    if not rest:
        return [("", pts)]
    combos = list(dict.fromkeys(tuple(str(v) for v in row) for row in pts[rest].itertuples(index=False)))
    panels = []
    for combo in combos:
        mask = True
        for k, v in zip(rest, combo):
            mask = mask & (pts[k].astype(str) == v)
        panels.append((", ".join(f"{k.rsplit('.', 1)[-1]}={v}" for k, v in zip(rest, combo)), pts[mask]))
    return panels


MAX_PANELS = 36


def _heat(ax, pts, kx, ky, xv, yv, m, cmap, norm):
    """One heat map of metric `m` over (kx, ky): a failed or stalled point says so in its cell."""
    grid = [[float("nan")] * len(xv) for _ in yv]
    said, cis = {}, {}
    for _, r in pts.iterrows():
        i, j = yv.index(str(r[ky])), xv.index(str(r[kx]))
        text = _point_status(r["status"])
        if text:
            said[(i, j)] = text
            continue
        v = r[m]
        grid[i][j] = float(v) if v == v and v != "" else float("nan")
        ci = r.get(f"{m}.ci95", "")
        if grid[i][j] == grid[i][j] and ci == ci and ci != "":  # (a sweep with --seeds: the mean ± its 95 % CI)
            cis[(i, j)] = float(ci)
    im = ax.imshow(grid, origin="lower", aspect="auto", cmap=cmap, norm=norm)
    for i in range(len(yv)):
        for j in range(len(xv)):
            v = grid[i][j]
            if v == v:
                r, g, b, _ = cmap(norm(v))
                colour = "black" if 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.45 else "white"
            else:
                colour = "firebrick" if said.get((i, j)) == "failed" else "dimgrey"
            text = said.get((i, j)) or eng(v) + (f"\n± {eng(cis[(i, j)])}" if (i, j) in cis else "")
            ax.text(j, i, text, ha="center", va="center", fontsize=7 if len(xv) <= 8 else 6, color=colour)
    ax.set_xticks(range(len(xv)), xv, fontsize=8)
    ax.set_yticks(range(len(yv)), yv, fontsize=8)
    return im


def heat_scale(metric, values):
    """(norm, colour map, what the colour bar says) of a heat map of `metric`: the better end
    bright (yellow) whichever way is better, and a scale from zero for a metric that cannot be
    negative (Jain's index on 0..1), so that a 13 % difference is not drawn as full contrast;
    counts (marks, pauses, drops) on a log scale."""
    direction = metric_direction(metric)
    cmap = plt.get_cmap("viridis_r" if direction < 0 else "viridis").with_extremes(bad="lightgrey")
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    if metric == "jain":
        lo, hi = 0.0, 1.0
    elif values and lo >= 0:
        lo = 0.0
    if direction == 0 and values and lo >= 0 and hi > 10 * max(1.0, min(v for v in values if v > 0) if any(
            v > 0 for v in values) else 1.0):
        norm = mcolors.SymLogNorm(linthresh=1.0, vmin=0.0, vmax=hi)
        return norm, cmap, "count, log scale (symmetric log: 0 shown)"
    if hi <= lo:
        hi = lo + 1.0
    what = {1: "higher is better (yellow)", -1: "lower is better (yellow)", 0: "no better direction"}[direction]
    return mcolors.Normalize(lo, hi), cmap, f"{what}; scale from {eng(lo)}"


def plot_sweep(directory, out, metrics):
    sweep = load_sweep(directory)
    keys, pts = sweep.keys, sweep.points
    available = sweep.metrics
    metrics = metrics or [m for m in available if not m.startswith("throughput.")]
    bad = [m for m in metrics if m not in available]
    if bad:
        near = [n for b in bad for n in difflib.get_close_matches(b, available, n=1)]
        hint = f"; did you mean {', '.join(repr(n) for n in near)}?" if near else ""
        raise ResultsError(f"no metric {', '.join(bad)} in {sweep.dir / 'sweep.csv'}{hint} (have: {', '.join(available)})")
    spec = sweep.spec
    scen = Path(spec.get("scenario", "")).name or sweep.dir.name
    context = (f"{scen}, {_sweep_sim_time(sweep)} simulated, window {spec.get('window') or 'second half'}"
               + (f", CC {spec['cc']}" if spec.get("cc") else ""))
    if sweep.replicated:
        seeds = sorted({int(v) for v in pts["seeds"] if v == v and v != ""})
        context += (f"; mean ± 95 % CI over {seeds[-1] if len(seeds) == 1 else f'{seeds[0]}-{seeds[-1]}'} seeds"
                    if seeds else "")
    failed = int(sum(1 for v in pts["status"] if _point_status(v) == "failed"))
    if failed:
        context += f"; {failed} point{'s' if failed > 1 else ''} failed"
    written = []
    for m in metrics:
        if len(keys) == 1:
            fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
            xs = [str(v) for v in pts[keys[0]]]
            ok = [i for i, st in enumerate(pts["status"]) if st == "ok"]
            vals = [pts[m].iloc[i] for i in ok]
            ax.plot(ok, vals, marker="o")
            if f"{m}.ci95" in pts.columns:  # (--seeds: each mean with its 95 % confidence interval)
                errs = [pts[f"{m}.ci95"].iloc[i] for i in ok]
                ax.errorbar(ok, vals, yerr=[e if e == e and e != "" else 0 for e in errs], fmt="none", capsize=3,
                            color="C0")
            for i, v in zip(ok, vals):
                ax.annotate(eng(v), (i, v if v == v else 0), textcoords="offset points", xytext=(0, 5), ha="center", fontsize=7)
            for i, said in enumerate(_point_status(st) for st in pts["status"]):
                if said:  # a failed or stalled point: said at its place on the axis
                    ax.annotate(said, (i, 0), xycoords=("data", "axes fraction"), xytext=(0, 4),
                                textcoords="offset points", ha="center", fontsize=7,
                                color="firebrick" if said == "failed" else "dimgrey")
            finite = [float(v) for v in vals if v == v and v != ""]
            if finite and min(finite) >= 0:  # (from zero: a small difference drawn as small)
                ax.set_ylim(bottom=0, top=(1.0 if m == "jain" else max(finite) * 1.15) or 1.0)
            ax.set_xticks(range(len(xs)), xs)
            ax.set_xlabel(KEY_LABELS.get(keys[0], keys[0]))
            ax.set_ylabel(metric_label(m))
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: eng(v)))
            ax.grid(alpha=0.3)
        else:
            kx, ky = keys[1], keys[0]  # the first (slowest) key on the y axis
            xv = list(dict.fromkeys(pts[kx].astype(str)))
            yv = list(dict.fromkeys(pts[ky].astype(str)))
            panels = _panels(pts, keys[2:])
            if len(panels) > MAX_PANELS:
                raise ResultsError(f"{sweep.dir / 'sweep.csv'}: {len(panels)} combinations of {', '.join(keys[2:])} "
                                   f"would make {len(panels)} heat maps (at most {MAX_PANELS}); plot a slice with "
                                   f"ibcc.load_sweep() or sweep fewer values")
            # One colour scale for every panel: the same colour is the same value.
            ok = pts[pts["status"] == "ok"]
            finite = [float(v) for v in ok[m] if v == v and v != ""]
            norm, cmap, scale = heat_scale(m, finite)
            ncols = min(3, len(panels))
            nrows = math.ceil(len(panels) / ncols)
            size = (8.5, 5.5) if len(panels) == 1 else (2.2 + 3.6 * ncols, 1.2 + 3.4 * nrows)
            fig, axes = plt.subplots(nrows, ncols, figsize=size, layout="constrained", squeeze=False)
            for n, (label, part) in enumerate(panels):
                ax = axes[n // ncols][n % ncols]
                im = _heat(ax, part, kx, ky, xv, yv, m, cmap, norm)
                if label:
                    ax.set_title(label, fontsize=8)
                if n % ncols == 0:
                    ax.set_ylabel(KEY_LABELS.get(ky, ky))
                if n // ncols == nrows - 1 or n + ncols >= len(panels):
                    ax.set_xlabel(KEY_LABELS.get(kx, kx))
            for n in range(len(panels), nrows * ncols):
                axes[n // ncols][n % ncols].set_visible(False)
            cb = fig.colorbar(im, ax=axes, label=f"{metric_label(m)}\n{scale}")
            cb.formatter = FuncFormatter(lambda v, _: eng(v))
            cb.update_ticks()
        fig.suptitle(fit_title(fig, f"{metric_label(m)}\n{context} (n/a: undefined)", 9), fontsize=9)
        name = "sweep_" + "".join(c if c.isalnum() or c in "._-" else "_" for c in m) + ".png"
        written.append(save(fig, out / name))
    return written


HEADLINE = ["total", "victim", "contributors", "jain", "tvv", "peak_buffer_credits", "latency_p99_us", "fecn", "becn"]
RUN_STYLES = ["-", "--", ":", "-."]
STYLE_NAMES = {"-": "solid", "--": "dashed", ":": "dotted", "-.": "dash-dot"}


def compare_labels(runs, labels):
    """Each run's label: the given ones, else the directory names (with CC on/off where the
    names alone would not tell the runs apart)."""
    if labels:
        if len(labels) != len(runs):
            raise ResultsError(f"--label: {len(labels)} labels for {len(runs)} runs (one per run, in order)")
        return list(labels)
    names = [r.dir.name for r in runs]
    if len(set(names)) < len(names):
        names = [f"{r.dir.parent.name}/{r.dir.name}" for r in runs]
    return names


def _throughput_series(runs):
    """(key, [per run: throughput over time, a column per flow or group, or None]): per flow
    where every run has at most 6 flows, else per group; a flow absent before it starts."""
    few = all(r.flows["flow"].nunique() <= 6 for r in runs if not r.flows.empty)
    key = "flow" if few else "group"
    series = []
    for r in runs:
        df = _absent_before_start(r.flows, r.flow_starts_us)
        series.append(df.groupby(["t_us", key])["gbps"].sum(min_count=1).unstack(key) if not df.empty else None)
    return key, series


def _metric_panels(count):
    """A figure of `count` small panels, three to a row, the unused ones hidden."""
    ncols = min(3, count)
    nrows = math.ceil(count / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(3.6 * ncols + 0.6, 2.6 * nrows + 0.8), layout="constrained",
                             squeeze=False)
    for n in range(count, nrows * ncols):
        axes[n // ncols][n % ncols].set_visible(False)
    return fig, [axes[n // ncols][n % ncols] for n in range(count)]


def plot_compare(directories, out, labels=()):
    """Runs overlaid: throughput per group over time (a colour per group, a line style per
    run), the headline metrics side by side, and compare.csv with every metric the runs share."""
    runs = [load_run(d) for d in directories]
    if len(runs) > len(RUN_STYLES):
        raise ResultsError(f"{len(runs)} runs: at most {len(RUN_STYLES)} can be told apart in one plot")
    labels = compare_labels(runs, labels)
    written = []
    # Throughput per group (per flow where the runs have few flows): a colour per group.
    key, series = _throughput_series(runs)
    names = sorted({str(c) for s in series if s is not None for c in s.columns})
    if names:
        colours = flow_colours(set(names))
        tmax = max(s.index.max() for s in series if s is not None)
        div, unit = time_unit(tmax)
        # Many log intervals: each line a moving average over a hundredth of the run (said in the title).
        window = max(1, max(len(s) for s in series if s is not None) // 100)
        fig, ax = plt.subplots(figsize=(11, 5.5), layout="constrained")
        for i, (s, label) in enumerate(zip(series, labels)):
            if s is None:
                continue
            if window > 1:
                s = s.rolling(window, center=True, min_periods=1).mean()
            for name in s.columns:
                ax.plot(s.index / div, s[name], lw=1.0 if i == 0 else 1.3, ls=RUN_STYLES[i], color=colours.get(str(name)),
                        label=f"{name}: {label}", zorder=3 + len(runs) - i)
        ax.set_ylim(bottom=0)
        ax.set_xlabel(f"time ({unit})")
        ax.set_ylabel("payload throughput at the destination (Gb/s)")
        title = (f"throughput per {key}, {len(runs)} runs ("
                 + ", ".join(f"{l}: {STYLE_NAMES[st]}" for l, st in zip(labels, RUN_STYLES)) + ")"
                 + (f"\nmoving average over {window} log intervals" if window > 1 else ""))
        ax.set_title(fit_title(fig, title, 10), fontsize=10)
        ax.grid(alpha=0.3)
        legend_outside(ax)
        written.append(save(fig, out / "compare_throughput.png"))
    # The headline metrics the runs have, a panel each, a bar per run.
    shown = [m for m in HEADLINE if any(r.metrics.get(m) is not None for r in runs)]
    if shown:
        fig, axes = _metric_panels(len(shown))
        for ax, m in zip(axes, shown):
            vals = [r.metrics.get(m) for r in runs]
            xs = range(len(runs))
            ax.bar(xs, [v if v is not None else 0 for v in vals], color=[f"C{i}" for i in xs])
            for x, v in zip(xs, vals):
                ax.annotate("n/a" if v is None else eng(v), (x, v or 0), textcoords="offset points", xytext=(0, 2),
                            ha="center", va="bottom", fontsize=7)
            ax.set_xticks(list(xs), [textwrap.shorten(l, 18) for l in labels], fontsize=7, rotation=15)
            ax.set_title(metric_label(m), fontsize=8)
            ax.set_ylim(bottom=0, top=max([v for v in vals if v is not None] + [0]) * 1.18 or 1)
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: eng(v)))
            ax.tick_params(axis="y", labelsize=7)
        windows = sorted({r.window or "?" for r in runs})
        fig.suptitle(fit_title(fig, f"headline metrics, metrics window {' / '.join(windows)}", 9), fontsize=9)
        written.append(save(fig, out / "compare_metrics.png"))
    # Every metric the runs share, a row per run.
    common = [m for m in runs[0].metrics if all(m in r.metrics for r in runs[1:])]
    rows = [[label, str(r.dir)] + ["" if r.metrics.get(m) is None else f"{r.metrics[m]:.6g}" for m in common]
            for label, r in zip(labels, runs)]
    write_text(out / "compare.csv", csv_text(["label", "dir"] + common, rows))
    record_written(out / "compare.csv")
    written.append("compare.csv")
    return written


def plot_replicas(directory, out):
    """A run over several seeds (ibcc run --seeds N): throughput per flow (per group beyond 6
    flows) over time, the mean over the seeds with the range they span shaded; and the headline
    metrics, each seed a dot and the mean a bar with its 95 % confidence interval."""
    reps = load_replicas(directory)
    written = []
    key, series = _throughput_series(reps.runs)
    series = [x for x in series if x is not None]
    n = len(reps.runs)
    if series:
        names = sorted({str(c) for s in series for c in s.columns})
        colours = flow_colours(set(names))
        tmax = max(s.index.max() for s in series)
        div, unit = time_unit(tmax)
        fig, ax = plt.subplots(figsize=(11, 5.5), layout="constrained")
        for name in names:
            cols = [s[name] for s in series if name in s.columns]
            frame = pd.concat(cols, axis=1)
            t = frame.index / div
            ax.fill_between(t, frame.min(axis=1), frame.max(axis=1), color=colours.get(name), alpha=0.25, lw=0)
            ax.plot(t, frame.mean(axis=1), color=colours.get(name), lw=1.2, label=name)
        ax.set_ylim(bottom=0)
        ax.set_xlabel(f"time ({unit})")
        ax.set_ylabel("payload throughput at the destination (Gb/s)")
        ax.set_title(fit_title(fig, f"throughput per {key}: mean over {n} seeds ({reps.seeds[0]}-{reps.seeds[-1]}), "
                                    "shaded: the range of the seeds", 10), fontsize=10)
        ax.grid(alpha=0.3)
        legend_outside(ax)
        written.append(save(fig, out / "replicas_throughput.png"))
    shown = [m for m in HEADLINE if reps.metrics.get(m) is not None]
    if shown:
        fig, axes = _metric_panels(len(shown))
        for ax, m in zip(axes, shown):
            mean, ci = reps.metrics[m], reps.ci95.get(m)
            vals = [v for v in reps.per_seed.get(m, []) if v is not None]
            ax.bar([0], [mean], color="C0", alpha=0.5, width=0.5)
            if ci is not None:
                ax.errorbar([0], [mean], yerr=[ci], fmt="none", color="black", capsize=6)
            ax.scatter([0.45] * len(vals), vals, s=10, color="C1", zorder=3)
            ax.annotate(eng(mean) + (f" ± {eng(ci)}" if ci is not None else ""), (0, mean + (ci or 0)),
                        textcoords="offset points", xytext=(0, 3), ha="center", va="bottom", fontsize=7)
            ax.set_xticks([0, 0.45], ["mean ± CI", "seeds"], fontsize=7)
            ax.set_xlim(-0.5, 0.8)
            ax.set_title(metric_label(m), fontsize=8)
            ax.set_ylim(bottom=0, top=max(vals + [mean + (ci or 0)]) * 1.25 or 1)
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: eng(v)))
            ax.tick_params(axis="y", labelsize=7)
        fig.suptitle(fit_title(fig, f"headline metrics over {n} seeds, metrics window {reps.window or '?'}: mean ± "
                                    "95 % confidence interval (Student's t), each seed a dot", 9), fontsize=9)
        written.append(save(fig, out / "replicas_metrics.png"))
    return written


def main(argv=None):
    import argparse
    import sys

    ap = argparse.ArgumentParser(prog="ibcc plot", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", type=Path, nargs="+")
    ap.add_argument("--metric", action="append", default=[])
    ap.add_argument("--label", action="append", default=[])
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    compare = len(args.dir) > 1
    try:
        if compare and not args.out:
            raise ResultsError("several directories are compared into --out DIR; name one")
        if not compare and args.label:
            raise ResultsError("--label names the runs of a comparison (ibcc plot DIR1 DIR2 ...)")
        out = args.out or args.dir[0]
        for d in args.dir:
            if compare and (d / "sweep.csv").exists():
                raise ResultsError(f"{d} is a sweep; a comparison overlays runs (plot a sweep alone)")
            if compare and any(d.glob("seed-*/summary.json")) and not (d / "flows.csv").exists():
                raise ResultsError(f"{d} is a run over several seeds; compare one seed's run ({d}/seed-<s>) or "
                                   "plot it alone")
        out.mkdir(parents=True, exist_ok=True)
        d = args.dir[0]
        if compare:
            written = plot_compare(args.dir, out, args.label)
        elif (d / "sweep.csv").exists():
            written = plot_sweep(d, out, args.metric)
        elif "replicas" in (json.loads((d / "summary.json").read_text()) if (d / "summary.json").exists() else {}):
            written = plot_replicas(d, out)
        elif (d / "summary.json").exists():
            written = plot_run(d, out)
        else:
            raise ResultsError(f"{d} has neither summary.json (a run) nor sweep.csv (a sweep)")
    except ResultsError as e:
        print(f"ibcc plot: error: {e}", file=sys.stderr)
        return 2
    except LayoutError as e:
        print(f"ibcc plot: error: a figure does not fit: {e}", file=sys.stderr)
        return 1
    except (OSError, RunError) as e:  # (a failed write)
        print(f"ibcc plot: error: {e}", file=sys.stderr)
        return 1
    for w in written:
        print(out / w)
    return 0


if __name__ == "__main__":
    import sys
    sys.exit(main())
