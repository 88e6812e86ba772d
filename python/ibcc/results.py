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
        return [c for c in self.points.columns if c not in self.keys and c not in ("point", "status")]

    def run(self, index):
        """The Run of the point in row `index` of `points`."""
        # Point directories are numbered in sweep.csv's row order: points/NNNN_key=value...
        found = sorted((self.dir / "points").glob(f"{index:04d}_*"))
        if not found:
            raise ResultsError(f"{self.dir}/points: no directory of point {index}")
        return load_run(found[0])


def load_run(directory):
    d = Path(directory)
    if not (d / "summary.json").exists():
        raise ResultsError(f"{d}: not an ibcc run directory (no summary.json)")
    summary = _read_json(d / "summary.json")
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
                                         "congested_frac", "fecn_marks"]),
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
    """A Run or a Sweep, whichever the directory holds."""
    d = Path(directory)
    if (d / "sweep.csv").exists():
        return load_sweep(d)
    return load_run(d)
