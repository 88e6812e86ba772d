#!/usr/bin/env python3
"""CTest `slurm_backend` (label slurm): `ibcc sweep` and `ibcc tune` through a real Slurm.

  check_slurm.py IBCC WORK_DIR

Starts a single-node Slurm on this machine (munged, slurmctld, slurmd from a generated
slurm.conf: verif/lib/slurm_local.py) and stops it at the end. Then:
1. a 6-point sweep with the local backend, and the same sweep with --backend slurm whose job
   is cancelled with scancel after two points finished; the sweep reports the unfinished
   points (exit 1), the same command resumes (only those points are submitted again) and
   ends with exit 0; sweep.csv and every point's flows.csv equal the local backend's byte
   for byte;
2. a 6-trial tune with the local backend and the same tune with --backend slurm --workers 1,
   whose job is cancelled while a trial runs and resumed the same way: the study ends with 6
   completed trials, and each trial's objectives equal those of an `ibcc run` of its
   parameters made here (the local tune's trials where the parameters are the same);
   without interruption a one-worker Slurm tune equals the local tune row for row.
"""
import csv
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lib"))
from checks import Checks  # noqa: E402
from slurm_local import LocalSlurm  # noqa: E402

checks = Checks()
check = checks.check


def wait_until(cond, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(0.3)
    print(f"timed out waiting for {what}")
    return False


def comparable_rows(path):
    """tune.csv without the columns that differ between backends (duration, directory)."""
    rows = list(csv.DictReader(open(path)))
    return [{k: v for k, v in r.items() if k not in ("duration_s", "dir")} for r in rows]


def main():
    ibcc, work = sys.argv[1], Path(sys.argv[2]).resolve()
    root = Path(__file__).resolve().parents[2]
    scenario = str(root / "topologies/seed-testbed/study.yaml")
    subprocess.run(["rm", "-rf", str(work)])
    work.mkdir(parents=True)
    sweep_args = ["--grid", "cc.switch.marking_rate=1,15", "--grid", "cc.ca.ccti_timer=20,150,600",
                  "--sim-time", "600ms", "--window", "300ms..600ms", "--metric", "victim", "--metric", "jain"]
    tune_args = ["--space", "cc.switch.marking_rate=0:63", "--space", "cc.ca.ccti_timer=10:1000:log",
                 "--objective", "victim", "--objective", "jain", "--trials", "6", "--seed", "5",
                 "--sim-time", "600ms", "--window", "300ms..600ms"]
    env0 = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")

    # Local references first (no cluster needed).
    p = subprocess.run([ibcc, "sweep", scenario, "--out", str(work / "sweep_local"), "--quiet", "--jobs", "2",
                        *sweep_args], env=env0, capture_output=True, text=True)
    check(p.returncode == 0, f"local sweep: exit {p.returncode} {p.stderr.strip()[-200:]}")
    p = subprocess.run([ibcc, "tune", scenario, "--out", str(work / "tune_local"), "--quiet", *tune_args],
                       env=env0, capture_output=True, text=True)
    check(p.returncode == 0, f"local tune: exit {p.returncode} {p.stderr.strip()[-200:]}")

    with LocalSlurm(work / "cluster", partition="ibcc") as cluster:
        env = dict(cluster.env, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
        print(subprocess.run(["sinfo"], capture_output=True, text=True, env=env).stdout, flush=True)

        # 1. Sweep: cancelled mid-way with scancel, resumed.
        out = work / "sweep_slurm"
        cmd = [ibcc, "sweep", scenario, "--out", str(out), "--quiet", "--backend", "slurm", "--partition", "ibcc",
               "--array-max", "2", *sweep_args]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        job_file = out / "slurm" / "job"

        def two_points_done():
            return len(list((out / "points").glob("*/metrics.json"))) >= 2 and job_file.exists()
        got = wait_until(two_points_done, 300, "two points of the Slurm sweep")
        job = job_file.read_text().strip() if job_file.exists() else ""
        subprocess.run(["scancel", job], env=env)
        stdout, stderr = proc.communicate(timeout=300)
        # A point the cancel interrupted leaves metrics.json with result "interrupted": not done.
        done_first = sum(1 for m in (out / "points").glob("*/metrics.json")
                         if json.loads(m.read_text()).get("result") == "ok")
        check(got and proc.returncode == 1 and done_first < 6,
              f"scancel of job {job} mid-way: the sweep reports unfinished points (exit {proc.returncode}, "
              f"{done_first} of 6 done)")
        p = subprocess.run(cmd[:5] + cmd[6:], env=env, capture_output=True, text=True)
        check(p.returncode == 0, f"the same command resumes and finishes (exit {p.returncode}) {p.stderr.strip()[-300:]}")
        m = [ln for ln in p.stderr.splitlines() if "Slurm job" in ln and "points" in ln]
        check(bool(m) and f"({done_first} done before)" in m[0] and f"{6 - done_first} points" in m[0],
              f"only the unfinished points are submitted again: {m[0] if m else p.stderr.strip()[-200:]}")
        a = (work / "sweep_local" / "sweep.csv").read_bytes()
        b = (out / "sweep.csv").read_bytes() if (out / "sweep.csv").exists() else b""
        check(a == b, "sweep.csv of the Slurm backend equals the local backend's byte for byte")
        pts = sorted(p.name for p in (work / "sweep_local" / "points").iterdir())
        same = all((work / "sweep_local" / "points" / n / "flows.csv").read_bytes()
                   == (out / "points" / n / "flows.csv").read_bytes() for n in pts)
        check(same and len(pts) == 6, f"every point's flows.csv is byte-identical ({len(pts)} points)")

        # 2. Tune: one worker, uninterrupted, equals the local tune row for row.
        out = work / "tune_slurm1"
        p = subprocess.run([ibcc, "tune", scenario, "--out", str(out), "--quiet", "--backend", "slurm",
                            "--workers", "1", *tune_args], env=env, capture_output=True, text=True)
        check(p.returncode == 0, f"Slurm tune, one worker: exit {p.returncode} {p.stderr.strip()[-300:]}")
        if p.returncode == 0:
            check(comparable_rows(out / "tune.csv") == comparable_rows(work / "tune_local" / "tune.csv"),
                  "its tune.csv equals the local tune's (parameters, states, objectives)")
            check((out / "opensm.conf").read_bytes() == (work / "tune_local" / "opensm.conf").read_bytes(),
                  "and so does its chosen configuration (opensm.conf)")

        # 3. Tune: cancelled while a trial runs, resumed.
        out = work / "tune_slurm2"
        cmd = [ibcc, "tune", scenario, "--out", str(out), "--quiet", "--backend", "slurm", "--workers", "2", *tune_args]
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        db = out / "study.db"

        def trial_running():
            if not db.exists():
                return False
            try:
                con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
                n_done = con.execute("select count(*) from trials where state='COMPLETE'").fetchone()[0]
                n_run = con.execute("select count(*) from trials where state='RUNNING'").fetchone()[0]
                con.close()
                return n_done >= 1 and n_run >= 1
            except sqlite3.Error:
                return False
        got = wait_until(trial_running, 300, "a running trial of the Slurm tune")
        job = (out / "slurm" / "job").read_text().strip() if (out / "slurm" / "job").exists() else ""
        subprocess.run(["scancel", job], env=env)
        proc.communicate(timeout=300)
        check(got and proc.returncode == 1, f"scancel of job {job} mid-trial: the tune stops short (exit {proc.returncode})")
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        check(p.returncode == 0, f"the same command resumes and finishes (exit {p.returncode}) {p.stderr.strip()[-300:]}")
        if p.returncode == 0:
            rows = list(csv.DictReader(open(out / "tune.csv")))
            complete = [r for r in rows if r["state"] == "COMPLETE"]
            check(len(complete) >= 6, f"the study holds at least 6 completed trials ({len(complete)})")
            check(any(r["error"] == "interrupted" for r in rows), "the cancelled trial is marked interrupted")
            # Each trial's objectives equal a run of its parameters made here, with no Slurm.
            r = complete[-1]
            rerun = work / "tune_rerun"
            q = subprocess.run([ibcc, "run", scenario, "--out", str(rerun), "--quiet", "--sim-time", "600ms",
                                "--window", "300ms..600ms", "--set", f"cc.switch.marking_rate={r['cc.switch.marking_rate']}",
                                "--set", f"cc.ca.ccti_timer={r['cc.ca.ccti_timer']}"], env=env0,
                               capture_output=True, text=True)
            met = json.loads((rerun / "metrics.json").read_text())["metrics"] if q.returncode == 0 else {}
            check(q.returncode == 0 and repr(met.get("victim")) == repr(float(r["victim"]))
                  and repr(met.get("jain")) == repr(float(r["jain"])),
                  f"trial {r['trial']}'s objectives equal a local run of its parameters")
            trial_dir = Path(r["dir"]) / "study"
            check((trial_dir / "flows.csv").read_bytes() == (rerun / "flows.csv").read_bytes(),
                  "and its flows.csv is byte-identical")

    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
