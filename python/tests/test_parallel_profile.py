"""`ibcc run --profile-partitions N`: every event the run handled is counted once, in its
node's group or as serial (summary.json's own event count), the critical path lies between
the busiest group's total and all events, and one group gains nothing."""
import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "topologies" / "clos648" / "uniform.yaml"


def profile(ibcc_exe, out, parts):
    r = subprocess.run([ibcc_exe, "run", str(SCENARIO), "--out", str(out), "--sim-time", "5us",
                        "--profile-partitions", str(parts)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "parallel profile:" in r.stdout
    return json.loads((out / "summary.json").read_text())


@pytest.mark.parametrize("parts", [1, 3])
def test_every_event_is_counted_once(ibcc_exe, tmp_path, parts):
    summary = profile(ibcc_exe, tmp_path / "run", parts)
    pp = summary["parallel_profile"]
    assert pp["partitions"] == parts and len(pp["groups"]) == parts
    assert pp["events"] == summary["events"]
    assert sum(g["events"] for g in pp["groups"]) + pp["serial_events"] == pp["events"]
    assert sum(g["hcas"] for g in pp["groups"]) == 648
    busiest = max(g["events"] for g in pp["groups"])
    assert busiest + pp["serial_events"] <= pp["critical_events"] <= pp["events"]
    if parts == 1:
        assert pp["critical_events"] == pp["events"] and pp["speedup_bound"] == 1.0 and pp["window_cycles"] == 0
    else:
        assert 1.0 < pp["speedup_bound"] <= parts
        assert pp["window_cycles"] == 3  # 10 ns links at 250 MHz, rounded up as the links count them


def test_more_groups_than_units_is_bad_input(ibcc_exe, tmp_path):
    r = subprocess.run([ibcc_exe, "run", str(SCENARIO), "--out", str(tmp_path / "run"), "--sim-time", "5us",
                        "--profile-partitions", "55"], capture_output=True, text=True)
    assert r.returncode == 2
    assert "--profile-partitions 55: 55 partitions of a fabric of 54 units" in r.stderr
    assert not (tmp_path / "run").exists()
