"""ibcc.results: loading run and sweep directories (written here by hand, as ibcc writes them)."""
import json

import pytest

from ibcc.results import ResultsError, load, load_run, load_sweep


def write_run(d, flows_csv="t_us,flow,gbps\n1000,F1,10.5\n1000,F2,2.25\n"):
    d.mkdir(parents=True, exist_ok=True)
    (d / "summary.json").write_text(json.dumps({"scenario": "s", "cc": True, "flows": [
        {"name": "F1", "group": "victim"}, {"name": "F2"}]}))
    (d / "metrics.json").write_text(json.dumps({"window": "1ms..2ms", "metrics": {"jain": 0.5, "victim": None}}))
    (d / "flows.csv").write_text(flows_csv)
    return d


def test_a_run_gets_its_groups_and_metrics(tmp_path):
    run = load_run(write_run(tmp_path / "r"))
    assert run.name == "s" and run.cc
    assert run.metrics == {"jain": 0.5, "victim": None}
    assert run.window == "1ms..2ms"
    assert list(run.flows["group"]) == ["victim", "F2"]  # a flow without a group is its own
    assert run.ports.empty and list(run.ports.columns)[:3] == ["t_us", "port", "vl"]


def test_a_directory_without_summary_is_not_a_run(tmp_path):
    with pytest.raises(ResultsError, match="not an ibcc run directory"):
        load_run(tmp_path)


def test_a_broken_file_names_itself(tmp_path):
    d = write_run(tmp_path / "r")
    (d / "metrics.json").write_text("{not json")
    with pytest.raises(ResultsError, match="metrics.json"):
        load_run(d)


def test_a_failed_point_does_not_shift_the_columns(tmp_path):
    d = tmp_path / "sw"
    d.mkdir()
    # The status of a failed point holds a comma, quoted as CSV quotes it.
    (d / "sweep.csv").write_text('point,cc.ca.ccti_timer,status,jain,victim\n'
                                 '0,10,ok,0.9,12.5\n'
                                 '1,20,"failed (exit 1, stalled)",n/a,n/a\n')
    sw = load(d)
    assert sw.keys == ["cc.ca.ccti_timer"]
    assert list(sw.points["status"]) == ["ok", "failed (exit 1, stalled)"]
    assert sw.points["jain"].iloc[0] == 0.9 and sw.points["jain"].isna().iloc[1]


def test_a_sweep_needs_its_status_column(tmp_path):
    (tmp_path / "sweep.csv").write_text("point,k,jain\n0,1,0.5\n")
    with pytest.raises(ResultsError, match="no status column"):
        load_sweep(tmp_path)
