"""ibcc.plots on sweep directories written here by hand, as ibcc sweep writes them: a failed
point is marked failed in its cell, a third swept key gets a panel per value on one colour
scale, and the title says what was simulated."""
import json

import pytest

from ibcc import plots
from ibcc.results import ResultsError


@pytest.fixture
def captured(monkeypatch):
    """The figures plot_sweep would save, kept open for the test to read."""
    figs = []

    def keep(fig, path):
        figs.append(fig)
        return path

    monkeypatch.setattr(plots, "save", keep)
    yield figs
    for f in figs:
        plots.plt.close(f)


def write_sweep(d, header, rows, sim_time_us=None):
    d.mkdir()
    (d / "sweep.csv").write_text("\n".join([header] + rows) + "\n")
    (d / "sweep.json").write_text(json.dumps({"scenario": "topologies/x/mesh.yaml", "sim_time": None, "window": None}))
    if sim_time_us:
        (d / "points" / "0000_a").mkdir(parents=True)
        (d / "points" / "0000_a" / "summary.json").write_text(json.dumps({"sim_time_us": sim_time_us}))
    return d


def cell_texts(ax):
    return [t.get_text() for t in ax.texts]


def test_a_failed_point_is_marked_failed_in_its_heat_map_cell(tmp_path, captured):
    d = write_sweep(tmp_path / "sw", "point,cc.switch.threshold,cc.ca.ccti_timer,status,jain", [
        "0,1,10,ok,0.5", "1,1,20,ok,0.75",
        '2,2,10,"failed (exit 1, see points/0002/log.txt)",', "3,2,20,stalled,0.25"], sim_time_us=5000)
    plots.plot_sweep(d, tmp_path, ["jain"])
    (fig,) = captured
    heat = fig.axes[0]
    texts = cell_texts(heat)
    assert texts.count("failed") == 1 and texts.count("stalled") == 1
    assert plots.eng(0.5) in texts and plots.eng(0.75) in texts
    # The failed cell is the one at threshold 2 (row 1), timer 10 (column 0).
    failed = next(t for t in heat.texts if t.get_text() == "failed")
    assert failed.get_position() == (0, 1)
    title = fig._suptitle.get_text()
    assert "5 ms simulated" in title and "sim.time simulated" not in title
    assert "1 point failed" in title


def test_a_third_key_gets_a_panel_per_value_on_one_scale(tmp_path, captured):
    rows = []
    n = 0
    for th in (1, 2):
        for timer in (10, 20):
            for inc in (1, 2, 4):
                rows.append(f"{n},{th},{timer},{inc},ok,{inc * 100 + th * 10 + timer / 10:g}")
                n += 1
    d = write_sweep(tmp_path / "sw", "point,cc.switch.threshold,cc.ca.ccti_timer,cc.ca.ccti_increase,status,victim",
                    rows)
    plots.plot_sweep(d, tmp_path, ["victim"])
    (fig,) = captured
    panels = [ax for ax in fig.axes if ax.get_title().startswith("ccti_increase=")]
    assert [ax.get_title() for ax in panels] == ["ccti_increase=1", "ccti_increase=2", "ccti_increase=4"]
    # Each panel shows its own value of the third key, not the last one overlaid.
    assert cell_texts(panels[0])[0] == plots.eng(111.0)
    assert cell_texts(panels[2])[0] == plots.eng(411.0)
    limits = {ax.images[0].norm.vmin for ax in panels} | {ax.images[0].norm.vmax for ax in panels}
    assert limits == {0.0, 422.0}, "one colour scale across the panels, from zero (a throughput cannot be negative)"
    assert "the scenario's sim.time simulated" in fig._suptitle.get_text()


def test_too_many_panels_is_an_error_that_says_how_many(tmp_path):
    rows = [f"{i},1,1,{i},ok,1" for i in range(plots.MAX_PANELS + 1)]
    d = write_sweep(tmp_path / "sw", "point,a,b,c,status,jain", rows)
    with pytest.raises(ResultsError, match=f"{plots.MAX_PANELS + 1} heat maps"):
        plots.plot_sweep(d, tmp_path, ["jain"])


def test_a_failed_point_of_a_one_key_sweep_is_said_on_the_axis(tmp_path, captured):
    d = write_sweep(tmp_path / "sw", "point,cc.ca.ccti_timer,status,jain",
                    ["0,10,ok,0.5", '1,20,"failed (exit 2, bad)",', "2,30,ok,0.9"])
    plots.plot_sweep(d, tmp_path, ["jain"])
    (fig,) = captured
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.texts if t.get_text() == "failed"] == ["failed"]
    xs, ys = ax.lines[0].get_data()
    assert list(xs) == [0, 2] and list(ys) == [0.5, 0.9]


def test_a_real_sweep_with_a_failing_point_loads_and_marks_it(ibcc_exe, tmp_path, captured):
    """ibcc sweep itself, with a fault that breaks an invariant in half its points."""
    import subprocess
    from pathlib import Path

    from ibcc.results import load_sweep

    exe = ibcc_exe
    base = Path(__file__).resolve().parents[2] / "tests" / "scenarios" / "base.yaml"
    out = tmp_path / "sw"
    r = subprocess.run([exe, "sweep", str(base), "--out", str(out), "--grid", "cc.switch.threshold=4,15",
                        "--grid", "debug.faults=[],[leak_credit_return]", "--sim-time", "200us", "--jobs", "2"],
                       capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    assert "2 points failed: 0001_threshold=4_faults=-leak_credit_return-, 0003_" in r.stderr
    sw = load_sweep(out)
    assert sw.keys == ["cc.switch.threshold", "debug.faults"]
    pts = sw.points
    assert list(pts["status"].str.split(":").str[0]) == ["ok", "failed", "ok", "failed"]
    assert pts["status"].iloc[1].startswith("failed: invariant broken at 100 us: credits not conserved")
    assert pts["becn"].iloc[0] > 0 and pts["becn"].isna().iloc[1], "the columns stay in place"
    plots.plot_sweep(out, tmp_path, ["becn"])
    (fig,) = captured
    texts = cell_texts(fig.axes[0])
    assert texts.count("failed") == 2


def test_the_colour_scale_says_which_way_is_better():
    norm, cmap, says = plots.heat_scale("victim", [11.5, 13.0])
    assert (norm.vmin, norm.vmax) == (0.0, 13.0) and cmap.name.startswith("viridis") and not cmap.name.endswith("_r")
    assert "higher is better" in says
    norm, cmap, says = plots.heat_scale("latency_p99_us", [180.0, 230.0])
    assert cmap.name.startswith("viridis_r") and "lower is better" in says, "the better end is bright either way"
    norm, _, _ = plots.heat_scale("jain", [0.9, 0.99])
    assert (norm.vmin, norm.vmax) == (0.0, 1.0)
    norm, _, says = plots.heat_scale("fecn", [0.0, 3.0, 40000.0])
    assert "log" in says and norm.vmax == 40000.0
