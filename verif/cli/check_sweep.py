#!/usr/bin/env python3
"""`ibcc sweep` end to end: a grid runs in parallel and gathers into sweep.csv; a sweep
interrupted with Ctrl-C (SIGINT to its process group, as a terminal sends it) resumes,
skipping the points already done; bad grids and metric names are errors (exit 2).

  check_sweep.py IBCC SCENARIO OUTDIR
"""
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402

FLOWS = ("traffic.flows=[{name: F1, src: H1, dst: H4, group: contributors},"
         " {name: F2, src: H2, dst: H5, group: contributors}, {name: F3, src: H3, dst: H6, group: contributors}]")


def sweep(ibcc, scenario, out, grids, extra=None):
    cmd = [ibcc, "sweep", scenario, "--out", str(out), "--sim-time", "40ms", "--set", FLOWS] + (extra or [])
    for g in grids:
        cmd += ["--grid", g]
    return cmd


def finished_points(out):
    """Points whose run finished (an interrupted run writes metrics.json with result interrupted)."""
    done = []
    for m in (out / "points").glob("*/metrics.json"):
        if json.load(open(m)).get("result") == "ok":
            done.append(m.parent)
    return done


def ibcc_processes(marker):
    """PIDs of live processes whose command line contains `marker` (zombies excluded)."""
    pids = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (d / "stat").read_text().split(")")[-1].split()[0]
        except OSError:
            continue
        if marker in cmd and state != "Z":
            pids.append(int(d.name))
    return pids


checks = Checks()


def fail(msg):
    """A failed step: the later ones build on it, so the check ends here."""
    checks.check(False, msg)
    sys.exit(checks.result())


def main():
    ibcc, scenario, outdir = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    shutil.rmtree(outdir, ignore_errors=True)

    # 1. A 2 x 3 grid in parallel.
    out = outdir / "grid"
    res = subprocess.run(sweep(ibcc, scenario, out, ["cc.switch.marking_rate=0,1", "cc.ca.ccti_timer=50:150:50"],
                               ["--jobs", "2", "--metric", "jain", "--metric", "contributors"]),
                         capture_output=True, text=True)
    if res.returncode != 0:
        fail(f"sweep exited {res.returncode}: {res.stderr}")
    rows = list(csv.DictReader(open(out / "sweep.csv")))
    if len(rows) != 6 or list(rows[0].keys()) != ["cc.switch.marking_rate", "cc.ca.ccti_timer", "status", "jain",
                                                     "contributors"]:
        fail(f"unexpected sweep.csv: {rows}")
    if [(r["cc.switch.marking_rate"], r["cc.ca.ccti_timer"]) for r in rows] != [
            ("0", "50"), ("0", "100"), ("0", "150"), ("1", "50"), ("1", "100"), ("1", "150")]:
        fail("points not in grid order")
    if any(r["status"] != "ok" or not float(r["contributors"]) > 0 for r in rows):
        fail(f"a point failed or delivered nothing: {rows}")
    checks.check(True, "2 x 3 grid: 6 rows, in order, every point ok")

    # 2. Interrupt after the first point, resume.
    out = outdir / "resume"
    cmd = sweep(ibcc, scenario, out, ["cc.ca.ccti_timer=20:120:20"], ["--jobs", "1"])
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and not list((out / "points").glob("*/metrics.json")):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    proc.wait(timeout=60)
    if proc.returncode != 130:
        fail(f"interrupted sweep exited {proc.returncode}, expected 130")
    done = len(finished_points(out))
    if not 1 <= done < 6:
        fail(f"{done} points done when interrupted; the test needs an interruption mid-sweep")
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0 or f"({done} done before)" not in res.stderr:
        fail(f"resume: exit {res.returncode}, expected '({done} done before)' in: {res.stderr}")
    rows = list(csv.DictReader(open(out / "sweep.csv")))
    if len(rows) != 6 or any(r["status"] != "ok" for r in rows):
        fail(f"resumed sweep incomplete: {rows}")
    checks.check(True, f"interrupted after {done} of 6 points, resumed, complete")

    # 2b. Stale points are rerun, and the user is told why: an edited scenario, an incomplete
    # metrics.json. An untouched sweep reruns nothing.
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0 or "(6 done before)" not in res.stderr or "rerunning" in res.stderr:
        fail(f"unchanged resume: exit {res.returncode}: {res.stderr}")
    edited = outdir / "edited.yaml"
    shutil.copy(scenario, edited)
    ecmd = sweep(ibcc, str(edited), outdir / "edited", ["cc.ca.ccti_timer=50,100"], ["--jobs", "2"])
    if subprocess.run(ecmd, capture_output=True, text=True).returncode != 0:
        fail("sweep of the copied scenario failed")
    edited.write_text(edited.read_text() + "\n# edited after the sweep\n")
    res = subprocess.run(ecmd, capture_output=True, text=True)
    if res.returncode != 0 or res.stderr.count("the scenario file changed since it ran") != 2 or "(0 done before)" not in res.stderr:
        fail(f"edited scenario: expected both points rerun with the reason: {res.stderr}")
    first = sorted((outdir / "edited" / "points").iterdir())[0]
    (first / "metrics.json").write_text('{"result": "ok"}\n')
    res = subprocess.run(ecmd, capture_output=True, text=True)
    if res.returncode != 0 or "its metrics.json lacks total" not in res.stderr or "(1 done before)" not in res.stderr:
        fail(f"incomplete metrics.json: expected a rerun of that point: {res.stderr}")
    checks.check(True, "stale points rerun with the reason (scenario edited; metrics incomplete); fresh ones kept")

    # 2c. A second sweep into the same --out while the first runs is refused; kill -9 of a
    # sweep leaves none of its runs behind (they end with their parent).
    out = outdir / "killed"
    # Runs of about a minute each: were they not ended with the sweep, they would outlive the wait below.
    kcmd = [a if a != "40ms" else "20s" for a in sweep(ibcc, scenario, out, ["cc.ca.ccti_timer=20:120:20"], ["--jobs", "2"])]
    proc = subprocess.Popen(kcmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    marker = str(out / "points")
    deadline = time.time() + 60
    while time.time() < deadline and len(ibcc_processes(marker)) < 2:
        time.sleep(0.05)
    if len(ibcc_processes(marker)) < 2:
        fail("the sweep's runs did not start")
    res = subprocess.run(kcmd, capture_output=True, text=True)
    if res.returncode != 2 or "another ibcc sweep is running into it" not in res.stderr:
        fail(f"second sweep into a busy --out: exit {res.returncode}: {res.stderr}")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    deadline = time.time() + 15
    while time.time() < deadline and ibcc_processes(marker):
        time.sleep(0.1)
    left = ibcc_processes(marker)
    if left:
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        fail(f"kill -9 of the sweep left {len(left)} ibcc run processes behind")
    # SIGTERM of a sweep (not its group): the runs end too, exit 130.
    proc = subprocess.Popen(kcmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.time() + 60
    while time.time() < deadline and len(ibcc_processes(marker)) < 2:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGTERM)
    proc.wait(timeout=60)
    time.sleep(0.5)
    if proc.returncode != 130 or ibcc_processes(marker):
        fail(f"SIGTERM of a sweep: exit {proc.returncode}, {len(ibcc_processes(marker))} runs left")
    checks.check(True, "a busy --out is refused; kill -9 and SIGTERM of a sweep leave no run behind")

    # 3. A different sweep in the same directory, bad grids and metrics.
    for extra_grid, why in (("cc.ca.ccti_timer=1,2", "different sweep in the same --out"),):
        res = subprocess.run(sweep(ibcc, scenario, out, [extra_grid]), capture_output=True, text=True)
        if res.returncode != 2 or "holds a different sweep" not in res.stderr:
            fail(f"{why}: exit {res.returncode}: {res.stderr}")
    bad = [(["cc.switch.threshold=14,16"], "--grid cc.switch.threshold=16: cc.switch.threshold: out of range"),
           (["cc.ca.ccti_timer=10:5:1"], "expected FROM <= TO"),
           (["cc.switch.treshold=1"], "unknown key")]
    for grids, expect in bad:
        res = subprocess.run(sweep(ibcc, scenario, outdir / "bad", grids), capture_output=True, text=True)
        if res.returncode != 2 or expect not in res.stderr:
            fail(f"{grids}: exit {res.returncode}, expected '{expect}' in: {res.stderr}")
    res = subprocess.run(sweep(ibcc, scenario, outdir / "badmetric", ["cc.ca.ccti_timer=50"], ["--metric", "speed"]),
                         capture_output=True, text=True)
    if res.returncode != 2 or "--metric speed: not a metric" not in res.stderr or list((outdir / "badmetric").glob("points/*")):
        fail(f"bad metric: exit {res.returncode}: {res.stderr}")
    checks.check(True, "bad grids, a bad metric and a foreign --out are errors (exit 2)")

    # 4. --threads: every run on that many threads, the same sweep.csv as one thread's; a
    # thread count the fabric cannot have is refused before anything runs. ibcc run --seeds
    # passes it on to each seed's run.
    def threaded(out, extra):
        return [ibcc, "sweep", scenario, "--out", str(out), "--sim-time", "4ms", "--set", FLOWS, "--quiet",
                "--grid", "cc.ca.ccti_timer=50,150"] + extra
    res1 = subprocess.run(threaded(outdir / "t1", []), capture_output=True, text=True)
    res2 = subprocess.run(threaded(outdir / "t2", ["--threads", "2"]), capture_output=True, text=True)
    if res1.returncode != 0 or res2.returncode != 0:
        fail(f"sweeps with and without --threads 2: exit {res1.returncode}, {res2.returncode}: {res2.stderr[-400:]}")
    same = (outdir / "t1" / "sweep.csv").read_bytes() == (outdir / "t2" / "sweep.csv").read_bytes()
    threads = sorted(json.load(open(m)).get("parallel", {}).get("threads", 1)
                     for m in (outdir / "t2" / "points").glob("*/summary.json"))
    plain = sorted(json.load(open(m)).get("parallel", {}).get("threads", 1)
                   for m in (outdir / "t1" / "points").glob("*/summary.json"))
    checks.check(same and threads == [2, 2] and plain == [1, 1],
                 f"--threads 2: the points ran on {threads} threads (without: {plain}), sweep.csv "
                 f"{'identical' if same else 'DIFFERENT'}")
    res = subprocess.run(threaded(outdir / "t3", ["--threads", "3"]), capture_output=True, text=True)
    checks.check(res.returncode == 2 and "--threads 3" in res.stderr and "at most 2" in res.stderr
                 and not list((outdir / "t3").glob("points/*/summary.json")),
                 f"--threads 3 on a 2-switch fabric refused before any run, exit {res.returncode}: "
                 f"{res.stderr.strip().splitlines()[-1] if res.stderr.strip() else ''}")
    seeds = subprocess.run([ibcc, "run", scenario, "--out", str(outdir / "seeds"), "--sim-time", "4ms", "--set", FLOWS,
                            "--seeds", "2", "--threads", "2", "--quiet"], capture_output=True, text=True)
    per_seed = sorted(json.load(open(m)).get("parallel", {}).get("threads", 1)
                      for m in (outdir / "seeds").glob("seed-*/summary.json"))
    checks.check(seeds.returncode == 0 and per_seed == [2, 2],
                 f"ibcc run --seeds 2 --threads 2: exit {seeds.returncode}, each seed on {per_seed} threads")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
