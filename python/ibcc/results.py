"""Loading `ibcc run` and `ibcc sweep` output directories (docs/network_model.md lists the files)."""
import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import yaml


class ResultsError(Exception):
    """A directory that is not an ibcc run or sweep, or a file in it that cannot be read."""


def _read_json(path):
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise ResultsError(f"{path}: {e}") from e


def _read_csv(path, **kw):
    try:
        return pd.read_csv(path, **kw)
    except (OSError, ValueError) as e:
        raise ResultsError(f"{path}: {e}") from e


@dataclass
class Run:
    """One `ibcc run --out DIR`."""

    dir: Path
    summary: dict
    metrics: dict      # the scalar metrics (metrics.json "metrics"); None where undefined
    window: str        # their time window, e.g. "1500ms..3s"
    config: dict
    flows: pd.DataFrame
    ports: pd.DataFrame
    ccti: pd.DataFrame
    latency: pd.DataFrame = field(default_factory=pd.DataFrame)
    rates: pd.DataFrame = field(default_factory=pd.DataFrame)  # DCQCN reaction points (rates.csv)

    @property
    def name(self):
        return self.summary.get("scenario", self.dir.name)

    @property
    def cc(self):
        return bool(self.summary.get("cc"))

    @property
    def groups(self):
        """flow name -> group (the flow's own name when it has none)."""
        return {f["name"]: (f.get("group") or f["name"]) for f in self.summary.get("flows", [])}

    @property
    def flow_starts_us(self):
        """flow name -> when it starts sending (µs), from the resolved scenario where given."""
        return {f["name"]: f.get("start_us", 0.0) for f in self.summary.get("flows", [])}

    def metric(self, name):
        """A scalar of metrics.json by its name as `ibcc sweep --metric` takes it (`victim`,
        `throughput.F1`, `group_total.uniform`); None when undefined (e.g. Jain without traffic)."""
        if name not in self.metrics:
            raise ResultsError(f"{self.dir}/metrics.json: no metric {name} (have: {', '.join(sorted(self.metrics))})")
        return self.metrics[name]

    def config_value(self, dotted, default=None):
        """A key of resolved.yaml by its dotted path (`fabric.switch.buffer_per_vl`)."""
        node = self.config
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        return node


@dataclass
class Sweep:
    """One `ibcc sweep --out DIR`."""

    dir: Path
    spec: dict
    points: pd.DataFrame
    keys: list

    @property
    def metrics(self):
        return [c for c in self.points.columns
                if c not in self.keys and c not in ("point", "status", "seeds") and not c.endswith(".ci95")]

    @property
    def replicated(self):
        """True for a sweep with --seeds: each metric a mean, with `<metric>.ci95` beside it."""
        return "seeds" in self.points.columns

    def run(self, index):
        """The Run of the point in row `index` of `points` (its Replicas with --seeds)."""
        # Point directories are numbered in sweep.csv's row order: points/NNNN_key=value...
        found = sorted((self.dir / "points").glob(f"{index:04d}_*"))
        if not found:
            raise ResultsError(f"{self.dir}/points: no directory of point {index}")
        if not (found[0] / "summary.json").exists() and any(found[0].glob("seed-*")):
            return load_replicas(found[0])
        return load_run(found[0])


@dataclass
class Replicas:
    """One configuration over several seeds: `ibcc run --seeds N`, or a point of a sweep with
    --seeds (whose seed directories have no metrics.json of their own above them)."""

    dir: Path
    seeds: list
    metrics: dict      # metric -> mean over the seeds (None where no seed defines it)
    ci95: dict         # metric -> half width of the 95 % confidence interval (None below 2 values)
    n: dict            # metric -> how many seeds define it
    per_seed: dict     # metric -> [value per seed]
    window: str
    runs: list         # the Run of each seed, in seed order

    def metric(self, name):
        if name not in self.metrics:
            raise ResultsError(f"{self.dir}: no metric {name} (have: {', '.join(sorted(self.metrics))})")
        return self.metrics[name]


def load_replicas(directory):
    """`ibcc run --seeds N`'s OUT (its metrics.json holds the means), or a sweep point's
    directory of seed-<s>/ runs (summarised here as the sweep did)."""
    from .campaign import replicas
    d = Path(directory)
    seed_dirs = sorted((p for p in d.glob("seed-*") if (p / "summary.json").exists()),
                       key=lambda p: int(p.name.split("-", 1)[1]) if p.name.split("-", 1)[1].isdigit() else 0)
    if not seed_dirs:
        raise ResultsError(f"{d}: no seed-<s>/ runs (not the output of `ibcc run --seeds` or a point of a sweep "
                           "with --seeds)")
    runs = [load_run(p) for p in seed_dirs]
    if (d / "metrics.json").exists():
        doc = _read_json(d / "metrics.json")
        return Replicas(dir=d, seeds=doc.get("seeds", []), metrics=doc.get("metrics", {}), ci95=doc.get("ci95", {}),
                        n=doc.get("n", {}), per_seed=doc.get("per_seed", {}), window=doc.get("window", ""), runs=runs)
    summary = replicas.combine([r.metrics for r in runs])
    return Replicas(dir=d, seeds=[int(p.name.split("-", 1)[1]) for p in seed_dirs],
                    metrics={k: v["mean"] for k, v in summary.items()}, ci95={k: v["ci95"] for k, v in summary.items()},
                    n={k: v["n"] for k, v in summary.items()},
                    per_seed={k: [r.metrics.get(k) for r in runs] for k in summary},
                    window=runs[0].window, runs=runs)


def load_run(directory):
    d = Path(directory)
    if not (d / "summary.json").exists():
        raise ResultsError(f"{d}: not an ibcc run directory (no summary.json)")
    summary = _read_json(d / "summary.json")
    if "replicas" in summary:
        raise ResultsError(f"{d}: a run over several seeds (ibcc run --seeds): load it with ibcc.load_replicas, or "
                           f"one seed's run from {d}/seed-<s>")
    metrics_doc = _read_json(d / "metrics.json") if (d / "metrics.json").exists() else {}
    config = {}
    if (d / "resolved.yaml").exists():
        try:
            config = yaml.safe_load((d / "resolved.yaml").read_text()) or {}
        except yaml.YAMLError as e:
            raise ResultsError(f"{d}/resolved.yaml: {e}") from e
    groups = {f["name"]: (f.get("group") or f["name"]) for f in summary.get("flows", [])}

    def table(name, columns):
        path = d / name
        if not path.exists():
            return pd.DataFrame(columns=columns)
        df = _read_csv(path)
        if "flow" in df.columns and "group" not in df.columns:
            df.insert(df.columns.get_loc("flow") + 1, "group", df["flow"].map(groups).fillna(df["flow"]))
        return df

    return Run(dir=d, summary=summary, metrics=metrics_doc.get("metrics", {}), window=metrics_doc.get("window", ""),
               config=config,
               flows=table("flows.csv", ["t_us", "flow", "group", "gbps"]),
               ports=table("ports.csv", ["t_us", "port", "vl", "occupancy_credits", "peak_credits", "congested",
                                         "congested_frac", "fecn_marks", "PortXmitData", "PortRcvData",
                                         "PortXmitPkts", "PortRcvPkts", "PortXmitWait", "PortVLXmitTimeCong"]),
               ccti=table("ccti.csv", ["t_us", "flow", "group", "ccti"]),
               latency=table("latency.csv", ["flow", "group", "kind", "upper_us", "count"]),
               rates=table("rates.csv", ["t_us", "flow", "group", "qps", "rate_gbps", "min_gbps", "max_gbps"]))


def load_sweep(directory):
    d = Path(directory)
    if not (d / "sweep.csv").exists():
        raise ResultsError(f"{d}: not an ibcc sweep directory (no sweep.csv)")
    spec = _read_json(d / "sweep.json") if (d / "sweep.json").exists() else {}
    points = _read_csv(d / "sweep.csv", keep_default_na=False, na_values=["", "nan", "n/a"])
    cols = list(points.columns)
    if "status" not in cols:
        raise ResultsError(f"{d}/sweep.csv: no status column")
    keys = [c for c in cols[:cols.index("status")] if c != "point"]
    return Sweep(dir=d, spec=spec, points=points, keys=keys)


def load(directory):
    """A Run, Replicas or a Sweep, whichever the directory holds."""
    d = Path(directory)
    if (d / "sweep.csv").exists():
        return load_sweep(d)
    if "replicas" in (_read_json(d / "summary.json") if (d / "summary.json").exists() else {}):
        return load_replicas(d)
    return load_run(d)
