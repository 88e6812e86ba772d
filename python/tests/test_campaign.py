"""ibcc.campaign alone: the grid, the storage of a campaign's --out, the local backend with
real child processes, the Slurm client against stand-in sbatch/squeue/scancel commands, and
the check of a finished run."""
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ibcc.campaign import local, processes, slurm, space, storage
from ibcc.campaign.errors import CampaignError, RunError
from ibcc.campaign.ibcc import Ibcc, Settings, finished_run
from ibcc.sweep import point_name


def test_grid_axes_step_and_list_and_refuse_mistakes():
    assert space.parse_axis("a.b=50:150:50").values == ["50", "100", "150"]
    assert space.parse_axis("a.b=0.5:1:0.25").values == ["0.5", "0.75", "1"]
    assert space.parse_axis("a.b=x,y").values == ["x", "y"]
    for bad, why in (("a.b", "expected KEY="), ("a.b=10:5:1", "expected FROM <= TO"), ("a.b=1:2:x", "must be numbers"),
                     ("a.b=1,,2", "an empty value"), ("a.b=0:1:0.0000000001", "at most 10000 values"),
                     ("a.b=1:1.000001:0.0000001", "STEP is too small")):
        with pytest.raises(CampaignError, match=why):
            space.parse_axis(bad)
    with pytest.raises(CampaignError, match="given twice"):
        space.parse_grid(["a=1", "a=2"])
    with pytest.raises(CampaignError, match="a sweep runs at most"):
        space.parse_grid(["a=0:999:1", "b=0:999:1"])


def test_the_first_axis_varies_slowest_and_point_names_are_safe():
    axes = space.parse_grid(["x.a=1,2", "y.b=p,q,r"])
    points = space.grid_points(axes)
    assert points[:4] == [[("x.a", "1"), ("y.b", "p")], [("x.a", "1"), ("y.b", "q")],
                          [("x.a", "1"), ("y.b", "r")], [("x.a", "2"), ("y.b", "p")]]
    assert point_name(7, [("fabric.links[0].rate", "10 Gb/s")]) == "0007_rate=10-Gb-s"


def test_storage_lock_identity_and_csv(tmp_path):
    out = storage.make_out(tmp_path / "o")
    storage.lock_out(out, "ibcc sweep", ".lock")
    # A second holder in another process is refused (flock is per open file description).
    code = ("import sys; sys.path.insert(0, %r); from ibcc.campaign import storage\n"
            "try:\n storage.lock_out(%r, 'ibcc sweep', '.lock')\nexcept Exception as e:\n print(e)") % (
        str(Path(storage.__file__).parents[2]), str(out))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    assert "another ibcc sweep is running into it" in p
    storage.check_identity(out / "id.json", {"a": [1]}, "sweep")
    storage.check_identity(out / "id.json", {"a": [1]}, "sweep")
    with pytest.raises(CampaignError, match="holds a different sweep"):
        storage.check_identity(out / "id.json", {"a": [2]}, "sweep")
    assert storage.csv_text(["k", "status"], [["1", "failed (exit 1, see x)"]]) == 'k,status\n1,"failed (exit 1, see x)"\n'
    (tmp_path / "file").write_text("")
    with pytest.raises(CampaignError, match="not a directory"):
        storage.make_out(tmp_path / "file")


def test_a_failed_write_is_an_error_naming_the_file(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(RunError, match="cannot write .*file/f.txt"):
        storage.write_text(tmp_path / "file" / "f.txt", "x")
    assert list(tmp_path.iterdir()) == [tmp_path / "file"]   # no temporary file left


def test_local_backend_runs_at_most_n_at_once_and_keeps_exit_codes(tmp_path):
    marker = tmp_path / "running"
    marker.mkdir()
    script = ("import os, sys, time; m = sys.argv[1]; f = os.path.join(m, str(os.getpid())); open(f, 'w').close();"
              "n = len(os.listdir(m)); time.sleep(0.3); os.unlink(f); print(n); sys.exit(int(sys.argv[2]))")
    jobs = [local.Job([sys.executable, "-c", script, str(marker), str(i % 3)], tmp_path / f"log{i}.txt") for i in range(6)]
    assert local.run(jobs, 2)
    assert [j.status for j in jobs] == [0, 1, 2, 0, 1, 2]
    assert max(int((tmp_path / f"log{i}.txt").read_text()) for i in range(6)) <= 2
    assert not processes.running()


def test_local_backend_stops_its_runs_on_a_stop_request(tmp_path):
    jobs = [local.Job([sys.executable, "-c", "import time; time.sleep(60)"], tmp_path / f"l{i}.txt") for i in range(4)]
    timer = threading.Timer(0.5, processes.request_stop, args=(signal.SIGTERM, None))
    timer.start()
    t0 = time.monotonic()
    try:
        assert not local.run(jobs, 2)
    finally:
        processes._STOP["signal"] = 0
    assert time.monotonic() - t0 < 30
    assert [j.status for j in jobs] == [-1, -1, -1, -1]   # none finished; two never started
    assert not processes.running()


def fake_slurm(tmp_path, monkeypatch, sbatch_out="4242", queue_polls=2):
    """sbatch/squeue/scancel stand-ins on PATH that record their arguments."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    calls = tmp_path / "calls.txt"
    state = tmp_path / "polls"
    state.write_text(str(queue_polls))
    (bindir / "sbatch").write_text(f"#!/bin/sh\necho sbatch \"$@\" >> {calls}\necho '{sbatch_out}'\n")
    (bindir / "squeue").write_text(
        f"#!/bin/sh\necho squeue \"$@\" >> {calls}\nn=$(cat {state})\n"
        f"if [ \"$n\" -gt 0 ]; then echo $((n-1)) > {state}; echo \"$3\"; fi\n")
    (bindir / "scancel").write_text(f"#!/bin/sh\necho scancel \"$@\" >> {calls}\n")
    for f in bindir.iterdir():
        f.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    return calls


def test_slurm_client_submits_an_array_and_follows_it(tmp_path, monkeypatch):
    calls = fake_slurm(tmp_path, monkeypatch, sbatch_out="4242;cluster")
    job = slurm.ArrayJob("/x/array.sh", 5, "ibcc-sweep", "/x/logs", array_max=2, partition="p1")
    assert slurm.submit(job) == "4242"
    ticks = []
    assert slurm.wait("4242", lambda: ticks.append(1), poll=0.01)
    assert len(ticks) == 2
    lines = calls.read_text().splitlines()
    assert lines[0] == ("sbatch --parsable --array=0-4%2 --job-name=ibcc-sweep --output=/x/logs/slurm-%A_%a.out "
                        "--ntasks=1 --cpus-per-task=1 --partition=p1 /x/array.sh")
    assert lines[1] == "squeue -h -j 4242 -o %i"


def test_slurm_client_cancels_on_stop_and_refuses_a_bad_answer(tmp_path, monkeypatch):
    calls = fake_slurm(tmp_path, monkeypatch, sbatch_out="sbatch: error: invalid partition", queue_polls=100)
    assert not slurm.wait("7", lambda: None, stop=lambda: True, poll=0.01)
    assert "scancel 7" in calls.read_text()
    with pytest.raises(slurm.SlurmError, match="gave no job id"):
        slurm.submit(slurm.ArrayJob("/x/a.sh", 1, "n", "/x"))
    jf = slurm.JobFile(tmp_path)
    jf.record("7")
    assert jf.queued() == "7"


def test_no_slurm_on_path_is_said_plainly(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(slurm.SlurmError, match="is this a Slurm submit host"):
        slurm.in_queue("1")


def write_run(d, result="ok", metrics=None, version="ibcc 1", sha="abc"):
    d.mkdir(parents=True, exist_ok=True)
    (d / "metrics.json").write_text(json.dumps({"result": result, "metrics": metrics or {"total": 1.0}}))
    (d / "summary.json").write_text(json.dumps({"result": result, "version": version,
                                                "inputs": [{"role": "scenario", "sha256": sha}]}))


def test_a_finished_run_is_kept_only_when_it_is_complete_and_current(tmp_path):
    d = tmp_path / "p"
    assert finished_run(d, ["total"], "ibcc 1", "abc") == (False, "")
    write_run(d)
    assert finished_run(d, ["total"], "ibcc 1", "abc") == (True, "")
    write_run(d, result="stalled")
    assert finished_run(d, ["total"], "ibcc 1", "abc")[0]
    write_run(d, result="interrupted")
    assert "did not finish" in finished_run(d, ["total"], "ibcc 1", "abc")[1]
    write_run(d)
    assert "lacks throughput.F1" in finished_run(d, ["total", "throughput.F1"], "ibcc 1", "abc")[1]
    assert "made by ibcc 1, this is ibcc 2" in finished_run(d, ["total"], "ibcc 2", "abc")[1]
    assert "scenario file changed" in finished_run(d, ["total"], "ibcc 1", "xyz")[1]
    (d / "metrics.json").write_text("{")
    assert "unreadable" in finished_run(d, ["total"], "ibcc 1", "abc")[1]


def test_run_arguments_put_the_point_after_the_campaign(tmp_path):
    s = Settings(sets=["a=1"], sim_time="2ms", window="1ms..2ms", cc="off")
    cmd = Ibcc("ibcc").run_args("sc.yaml", tmp_path, s, [("b", "2")])
    assert cmd == ["ibcc", "run", "sc.yaml", "--out", str(tmp_path), "--quiet", "--force", "--set", "a=1",
                   "--set", "b=2", "--window", "1ms..2ms", "--sim-time", "2ms", "--cc", "off"]
