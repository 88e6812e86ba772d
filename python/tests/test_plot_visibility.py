"""Every flow stays visible where lines coincide: scenario 1 of the test bed with CC off, where
from 4 s the victim F1 (17 % of its 13.3 Gb/s) runs at the rate of F2 and F3. The throughput
figure is rendered and its pixels read around F1's value at 4.5 s: F1's colour must show there,
as must F2's and F3's. The axes start at zero."""
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ibcc import plots
from ibcc.results import load_run

ROOT = Path(__file__).resolve().parents[2]


def colour_near(img, x, y, rgb, radius=12, tol=40):
    """Whether a pixel within `radius` of display point (x, y) has colour `rgb` (0-255)."""
    h = img.shape[0]
    row, col = int(round(h - y)), int(round(x))
    patch = img[max(0, row - radius):row + radius + 1, max(0, col - radius):col + radius + 1, :3].astype(int)
    return bool((np.abs(patch - np.array(rgb)).max(axis=2) <= tol).any())


@pytest.fixture(scope="module")
def figure(scenario1_cc_off):
    out = scenario1_cc_off
    run = load_run(out)
    figs = []
    keep = plots.save
    plots.save = lambda fig, path, manifest=True: figs.append(fig) or path.name
    try:
        names = set(run.flows["flow"].unique())
        colours = plots.flow_colours(names | set(run.groups.values()))
        plots.plot_throughput(run, out, colours, False)
    finally:
        plots.save = keep
    (fig,) = figs
    fig.canvas.draw()
    img = np.asarray(fig.canvas.buffer_rgba())
    yield run, fig, img, colours
    plots.plt.close(fig)


def test_the_victim_is_visible_under_the_contributors(figure):
    run, fig, img, colours = figure
    ax = fig.axes[0]
    late = run.flows[(run.flows.t_us > 4.4e6) & (run.flows.t_us < 4.6e6)].groupby("flow").gbps.mean()
    assert late["F1"] == pytest.approx(0.17 * 13.3, rel=0.05), "F1 at 17 % of its rate from 4 s"
    assert late["F2"] == pytest.approx(late["F1"], rel=0.01), "F1 and F2 coincide: the case this test is about"
    x, y = ax.transData.transform((4.5, late["F1"]))
    for flow in ("F1", "F2", "F3"):
        rgb = [int(255 * c) for c in plots.mcolors.to_rgb(colours[flow])]
        assert colour_near(img, x, y, rgb), f"{flow}'s colour shows at its line at 4.5 s"


def test_the_throughput_axis_starts_at_zero(figure):
    _, fig, _, _ = figure
    assert fig.axes[0].get_ylim()[0] == 0.0


def test_the_fabric_picture_names_the_roots_of_scenario_1(ibcc_exe, tmp_path):
    """Scenario 1 with CC on to 3 s: S2/2 (toward the slow H5) is the root from 1 s, S1/36
    (toward S2, 40.5 Gb/s offered to 32) from 2 s; both mark FECN. The picture lists them as
    roots, and draws their halves in colour, the others grey."""
    out = tmp_path / "s1on"
    r = subprocess.run([ibcc_exe, "run", str(ROOT / "topologies" / "seed-testbed" / "scenario1.yaml"), "--out", str(out),
                        "--sim-time", "3s", "--quiet"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    figs = []
    keep = plots.save
    plots.save = lambda fig, path, manifest=True: figs.append(fig) or path.name
    try:
        plots.plot_fabric(load_run(out), out)
    finally:
        plots.save = keep
    (fig,) = figs
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    roots = texts.split("roots (marked): ", 1)[1].split("\n")[0]
    assert [p.split(" ")[0] for p in roots.split(", ")] == ["S2/2", "S1/36"]
    coloured = [ln for ln in fig.axes[0].lines if ln.get_color() != (0.75, 0.75, 0.75, 1.0)]
    assert len(coloured) == 2, "only the two roots' halves are coloured"
    plots.plt.close(fig)
