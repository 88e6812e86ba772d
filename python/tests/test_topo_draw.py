"""`ibcc topo --draw`: the fabric picture before a run. On the test bed's scenario 1 the loads
beside the picture are the ones the scenario's rates give (worked out here from its numbers),
the oversubscribed outputs are the candidates the picture names, and a picture file of
another kind is refused as bad input."""
import json
import subprocess
from pathlib import Path

import pytest

from ibcc import plots

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "topologies" / "seed-testbed" / "scenario1.yaml"


@pytest.fixture(scope="module")
def drawn(ibcc_exe, tmp_path_factory):
    out = tmp_path_factory.mktemp("topo") / "pics" / "fabric.png"
    r = subprocess.run([ibcc_exe, "topo", str(SCENARIO), "--draw", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out, json.loads(out.with_suffix(".json").read_text())


def test_the_loads_are_the_scenarios(drawn):
    out, spec = drawn
    assert out.stat().st_size > 20000
    ratio = {p["port"]: p["ratio"] for p in spec["ports"]}
    # F2..F5 (13.5 Gb/s each, the HCAs' inject rate) all go to H5, whose HCA drains 13.5 Gb/s.
    assert ratio["S2/2"] == pytest.approx(4 * 13.5 / 13.5)
    # F1, F2, F3 cross S1 -> S2 on the QDR link (32 Gb/s of data after 8b/10b).
    assert ratio["S1/36"] == pytest.approx(3 * 13.5 / 32)
    # F1 alone to H4 (DDR, 16 Gb/s of data, H4's HCA drains 13.5).
    assert ratio["S2/1"] == pytest.approx(1.0)
    assert ratio["S1/1"] == 0  # nothing flows toward H1
    assert spec["version"] and len(spec["scenario_sha256"]) == 64
    # Every linked switch output, once.
    assert len(ratio) == len(spec["ports"]) == 4 + 5  # S1: 1, 2, 3, 36; S2: 1..4, 36


def test_the_picture_names_the_candidates(drawn, monkeypatch):
    _, spec = drawn
    figs = []
    monkeypatch.setattr(plots, "save", lambda fig, path, manifest=True: figs.append(fig) or path.name)
    plots.plot_fabric_load(spec, Path("unused.png"))
    text = " ".join(t.get_text() for t in figs[0].axes[0].texts)
    assert "S2/2 4.00x" in text and "S1/36 1.27x" in text
    assert "S2/1" not in text.split("candidates")[1].split("\n")[0]  # 1x is not above what it can send


def test_a_picture_of_another_kind_is_refused(ibcc_exe, tmp_path):
    r = subprocess.run([ibcc_exe, "topo", str(SCENARIO), "--draw", str(tmp_path / "fabric.txt")],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert "expected a picture file ending .png, .svg or .pdf" in r.stderr
    assert not (tmp_path / "fabric.json").exists()
