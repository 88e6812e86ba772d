"""Replications over seeds: the confidence interval's arithmetic against published values,
`ibcc run --seeds 5` on the test bed's scenario 1 (its metrics.json checked against the seeds'
own metrics.json), and a sweep with --seeds whose heat-map cells show mean ± CI."""
import json
import math
import statistics
import subprocess
from pathlib import Path

import pytest

from ibcc import plots
from ibcc.campaign import replicas
from ibcc.results import ResultsError, load, load_replicas, load_run, load_sweep

ROOT = Path(__file__).resolve().parents[2]

# Student's t, 0.975 quantile, as printed in statistics tables (e.g. NIST/SEMATECH
# e-Handbook, Table 1.3.6.7.2), and the normal quantile in the limit.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 9: 2.262, 29: 2.045, 100: 1.984}


@pytest.mark.parametrize("df", sorted(T975))
def test_t_quantile_matches_the_tables(df):
    assert replicas.t975(df) == pytest.approx(T975[df], abs=6e-4)


def test_t_quantile_tends_to_the_normal_one():
    assert replicas.t975(100000) == pytest.approx(statistics.NormalDist().inv_cdf(0.975), abs=1e-3)


def test_summary_of_four_values_by_hand():
    s = replicas.summarise([1.0, 2.0, 3.0, 4.0])
    # mean 2.5; sample standard deviation sqrt(5/3); half width t(0.975, 3) * s / 2
    assert s["n"] == 4 and s["mean"] == 2.5
    assert s["std"] == pytest.approx(math.sqrt(5 / 3))
    assert s["ci95"] == pytest.approx(3.182 * math.sqrt(5 / 3) / 2, rel=2e-4)


def test_undefined_values_are_left_out_and_counted():
    assert replicas.summarise([None, 3.0, None]) == {"mean": 3.0, "ci95": None, "std": None, "n": 1}
    assert replicas.summarise([None, None])["mean"] is None
    both = replicas.combine([{"a": 1.0, "jain": None}, {"a": 3.0, "jain": 0.5}])
    assert both["a"]["mean"] == 2.0 and both["jain"]["n"] == 1


def test_identical_seeds_are_recognised():
    assert replicas.identical([{"a": 1}, {"a": 1}]) and not replicas.identical([{"a": 1}, {"a": 2}])


def test_run_over_five_seeds_of_scenario_1(ibcc_exe, tmp_path):
    """`ibcc run --seeds 5`: every metric's mean and 95 % CI in metrics.json, equal to what the
    five seeds' own runs measured; random marking makes the seeds differ."""
    out = tmp_path / "s1"
    scenario = ROOT / "topologies" / "seed-testbed" / "scenario1.yaml"
    r = subprocess.run([ibcc_exe, "run", str(scenario), "--out", str(out), "--seeds", "5", "--jobs", "2",
                        "--set", "cc.switch.marking_mode=random"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "mean ± 95 % CI over 5 seeds" in r.stderr
    doc = json.loads((out / "metrics.json").read_text())
    assert doc["seeds"] == [1, 2, 3, 4, 5] and doc["result"] == "ok"
    seeds = [json.loads((out / f"seed-{s}" / "metrics.json").read_text())["metrics"] for s in range(1, 6)]
    assert len(doc["metrics"]) == len(seeds[0])
    varied = 0
    for name, mean in doc["metrics"].items():
        values = [m[name] for m in seeds if m[name] is not None]
        if not values:
            assert mean is None
            continue
        assert mean == pytest.approx(statistics.fmean(values))
        assert doc["n"][name] == len(values)
        if len(values) >= 2:
            assert doc["ci95"][name] == pytest.approx(T975[len(values) - 1] * statistics.stdev(values)
                                                      / math.sqrt(len(values)), rel=2e-4, abs=1e-12)
            varied += doc["ci95"][name] > 0
    assert varied >= 5, "random marking should make several metrics differ between seeds"
    summary = json.loads((out / "summary.json").read_text())
    assert [x["seed"] for x in summary["replicas"]] == [1, 2, 3, 4, 5]
    reps = load(out)
    assert reps.metric("victim") == doc["metrics"]["victim"] and len(reps.runs) == 5
    with pytest.raises(ResultsError, match="load_replicas"):
        load_run(out)
    # Each seed's run is the plain run of its seed.
    assert json.loads((out / "seed-3" / "summary.json").read_text())["seed"] == 3


def test_a_sweep_over_seeds_shows_mean_and_interval_per_cell(ibcc_exe, tmp_path, monkeypatch):
    figs = []
    monkeypatch.setattr(plots, "save", lambda fig, path, manifest=True: figs.append(fig) or path)
    out = tmp_path / "sw"
    base = ROOT / "tests" / "scenarios" / "base.yaml"
    r = subprocess.run([ibcc_exe, "sweep", str(base), "--out", str(out), "--grid", "cc.switch.threshold=4,12",
                        "--grid", "cc.switch.marking_mode=counter,random", "--seeds", "3", "--jobs", "2",
                        "--metric", "total", "--quiet"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    sw = load_sweep(out)
    assert sw.replicated and sw.metrics == ["total"]
    assert list(sw.points.columns) == ["cc.switch.threshold", "cc.switch.marking_mode", "status", "seeds", "total",
                                       "total.ci95"]
    for i, row in sw.points.iterrows():
        per = [json.loads(p.read_text())["metrics"]["total"]
               for p in sorted(out.glob(f"points/{i:04d}_*/seed-*/metrics.json"))]
        assert len(per) == 3 and row["seeds"] == 3
        assert row["total"] == pytest.approx(statistics.fmean(per), rel=1e-5)
        assert row["total.ci95"] == pytest.approx(T975[2] * statistics.stdev(per) / math.sqrt(3), rel=2e-3, abs=1e-9)
        assert load_replicas(next(out.glob(f"points/{i:04d}_*"))).metrics["total"] == pytest.approx(row["total"],
                                                                                                     rel=1e-5)
    assert (sw.points[sw.points["cc.switch.marking_mode"] == "random"]["total.ci95"] > 0).all()
    plots.plot_sweep(out, tmp_path, ["total"])
    (fig,) = figs
    texts = [t.get_text() for t in fig.axes[0].texts]
    for _, row in sw.points.iterrows():
        assert f"{plots.eng(row['total'])}\n± {plots.eng(row['total.ci95'])}" in texts
    assert "mean ± 95 % CI over 3 seeds" in fig._suptitle.get_text()
    plots.plt.close(fig)
