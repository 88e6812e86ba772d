#!/usr/bin/env python3
"""CTest `tune_study` (label tune): `ibcc tune` end to end on the seed test bed's study scenario.

  check_tune.py IBCC WORK_DIR

1. Bad input is refused before any trial runs, exit 2 with the option named: an unknown key,
   a value outside a key's range, a choice a key does not take, a metric with no known
   direction, an unknown metric, a range the scenario rejects.
2. A two-objective tune (victim, contributors' Jain) with two numeric parameters and one
   categorical one is killed (SIGTERM) while a trial runs, then resumed with the same command:
   the study ends with exactly --trials finished trials, the killed trial's parameters run
   again, and no trial of the first part runs twice.
3. Its outputs: tune.csv with every trial, the Pareto front (pareto.csv: no row dominated by
   another trial), the plots, report.txt comparing against the defaults and the seed hardware
   (every metric, a regression flagged: its peak-buffer row checked against the runs).
4. The chosen configuration's opensm.conf, read back by `ibcc run --opensm-conf`, gives
   byte-identical flows.csv and packet counts to the chosen trial's own run.
5. A different space in the same --out is refused (exit 2), not mixed into the study.
"""
import csv
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lib"))
from checks import Checks  # noqa: E402

checks = Checks()
check = checks.check


def processes():
    """(pid, command line) of every process (Linux /proc)."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # gone meanwhile
        found.append((int(d.name), cmd))
    return found


def main():
    ibcc, work = sys.argv[1], Path(sys.argv[2])
    root = Path(__file__).resolve().parents[2]
    scenario = str(root / "topologies/seed-testbed/study.yaml")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")

    def tune(out, *args, **kw):
        return subprocess.run([ibcc, "tune", scenario, "--out", str(out), "--quiet", *args], capture_output=True,
                              text=True, env=env, **kw)

    # 1. Bad input.
    bad = [
        (["--space", "cc.switch.thresh=1:15"], "cc.switch.thresh is not a scenario key"),
        (["--space", "cc.switch.threshold=1:16"], "outside cc.switch.threshold's range 0..15"),
        (["--space", "cc.switch.mapping=per_voq,fifo"], "fifo not allowed for cc.switch.mapping"),
        (["--space", "cc.switch.threshold=1:15", "--objective", "fecn"], "say whether to maximise or minimise fecn"),
        (["--space", "cc.switch.threshold=1:15", "--objective", "victimm:max"], "victimm"),
        (["--space", "cc.ca.ccti_limit=1:200"], "cc.ca.ccti_limit"),
        (["--space", "cc.switch.threshold=5:5"], "expected LO < HI"),
        (["--space", "cc.switch.threshold=1:15", "--threads", "9"], "--threads 9: 9 partitions of a fabric of"),
    ]
    for i, (args, expect) in enumerate(bad):
        out = work / f"bad{i}"
        p = tune(out, *args, "--trials", "2")
        ok = p.returncode == 2 and expect in p.stderr and not (out / "trials").exists()
        check(ok, f"refused before any trial: {' '.join(args)} -> exit {p.returncode}: {p.stderr.strip()[:160]}")

    # 2. Tune, killed while a trial runs, resumed.
    out = work / "study"
    args = ["--space", "cc.switch.marking_rate=0:63:int", "--space", "cc.ca.ccti_timer=10:1000:int:log",
            "--space", "cc.switch.mapping=per_voq,sum", "--objective", "victim", "--objective", "jain",
            "--trials", "10", "--seed", "3", "--sim-time", "400ms", "--window", "300ms..400ms"]
    proc = subprocess.Popen([ibcc, "tune", scenario, "--out", str(out), "--quiet", *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    db = out / "study.db"
    killed_params = None
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
        if not db.exists():
            continue
        try:
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
            done = con.execute("select count(*) from trials where state='COMPLETE'").fetchone()[0]
            running = con.execute("select trial_id from trials where state='RUNNING'").fetchall()
            if done >= 3 and running:
                rows = con.execute("select param_name, param_value from trial_params where trial_id=?",
                                   (running[0][0],)).fetchall()
                if len(rows) == 3:
                    killed_params = dict(rows)
                    proc.send_signal(signal.SIGTERM)
                    con.close()
                    break
            con.close()
        except sqlite3.Error:
            continue
    proc.wait(timeout=120)
    check(killed_params is not None, f"the tune was killed while a trial ran (exit {proc.returncode})")
    # Nothing of it runs on behind the killed command (its python, the trial's ibcc run): a
    # resume would race with it for the study.
    left = [(pid, cmd[:200]) for pid, cmd in processes() if str(out) in cmd and pid != os.getpid()]
    check(not left, f"no process of the killed tune is left ({left})")
    p = tune(out, *args)
    check(p.returncode == 0, f"the same command resumes and finishes (exit {p.returncode}) {p.stderr.strip()[-300:]}")
    rows = list(csv.DictReader(open(out / "tune.csv")))
    complete = [r for r in rows if r["state"] == "COMPLETE"]
    check(len(complete) == 10, f"the study holds --trials 10 completed trials ({len(complete)})")
    interrupted = [r for r in rows if r["error"] == "interrupted"]
    check(len(interrupted) == 1, f"one trial is marked interrupted ({len(interrupted)})")
    keys = ["cc.switch.marking_rate", "cc.ca.ccti_timer", "cc.switch.mapping"]
    if interrupted:
        again = [r for r in complete if all(r[k] == interrupted[0][k] for k in keys)]
        check(len(again) >= 1, f"the interrupted trial's parameters ran again ({[interrupted[0][k] for k in keys]})")
    check(len(rows) == 11, f"no finished trial ran twice: 10 completed + 1 interrupted rows ({len(rows)})")

    # 3. Outputs.
    for f in ("tune.csv", "pareto.csv", "importances.csv", "chosen.yaml", "opensm.conf", "report.txt", "tune.json",
              "history.png", "pareto.png"):
        check((out / f).is_file() and (out / f).stat().st_size > 0, f"{f} written")
    summary = json.loads((out / "tune.json").read_text())
    pareto = list(csv.DictReader(open(out / "pareto.csv")))
    vals = [(float(r["victim"]), float(r["jain"])) for r in complete]
    for r in pareto:
        v = (float(r["victim"]), float(r["jain"]))
        dominated = any(a >= v[0] and b >= v[1] and (a, b) != v for a, b in vals)
        check(not dominated, f"Pareto trial {r['trial']} {v} is dominated by no trial")
    report = (out / "report.txt").read_text()
    check("seed hardware" in report and "defaults" in report and "Chosen configuration" in report,
          "report.txt compares the chosen configuration with the defaults and the seed hardware")
    # Every metric of the chosen run against the defaults' run, as their metrics.json hold them.
    chosen_dir = out / "trials" / f"{summary['chosen']['trial']:04d}" / "study"
    chosen_m = json.loads((chosen_dir / "metrics.json").read_text())["metrics"]
    ref_m = json.loads((out / "reference" / "defaults" / "study" / "metrics.json").read_text())["metrics"]
    row = next((ln.split() for ln in report.splitlines() if ln.split()[:1] == ["peak_buffer_credits"]), [])
    want = [f"{chosen_m.get('peak_buffer_credits', float('nan')):.4g}", f"{ref_m['peak_buffer_credits']:.4g}"]
    worse = chosen_m.get("peak_buffer_credits", 0) > 1.05 * ref_m["peak_buffer_credits"]
    check(len(row) >= 3 and row[1] == want[0] and row[2].lstrip("!") == want[1]
          and row[2].startswith("!") == worse and ("WORSE" in row) == worse,
          f"report.txt's peak buffer row agrees with the runs (chosen {want[0]}, defaults {want[1]}, worse: {worse}): {row}")
    check(summary["version"].startswith("ibcc ") and summary["spec"]["scenarios"][0]["sha256"],
          "tune.json records the version and the scenario's hash")

    # 4. opensm.conf round trip with real runs.
    chosen = summary["chosen"]
    trial_dir = Path(next(r["dir"] for r in complete if int(r["trial"]) == chosen["trial"])) / "study"
    rerun = work / "roundtrip"
    non_opensm = [f"{k}={v}" for k, v in chosen["sets"].items() if k == "cc.switch.mapping"]
    cmd = [ibcc, "run", scenario, "--out", str(rerun), "--quiet", "--opensm-conf", str(out / "opensm.conf"),
           "--sim-time", "400ms", "--window", "300ms..400ms"]
    for kv in non_opensm:
        cmd += ["--set", kv]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    check(p.returncode == 0, f"ibcc run --opensm-conf chosen fragment: exit {p.returncode} {p.stderr.strip()[:200]}")
    if p.returncode == 0:
        same = (rerun / "flows.csv").read_bytes() == (trial_dir / "flows.csv").read_bytes()
        check(same, "flows.csv with the opensm.conf fragment is byte-identical to the chosen trial's")
        a = json.loads((rerun / "summary.json").read_text())
        b = json.loads((trial_dir / "summary.json").read_text())
        check([f.get("delivered_packets") for f in a["flows"]] == [f.get("delivered_packets") for f in b["flows"]],
              "and so are the packet counts per flow")

    # 5. Another space in the same study is refused.
    p = tune(out, "--space", "cc.switch.threshold=1:15", "--trials", "11")
    check(p.returncode == 2 and "another tune" in p.stderr, f"another space in the same --out: exit {p.returncode}")

    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
