#!/usr/bin/env python3
"""CTest `tune_dcqcn` (labels tune, dcqcn): `ibcc tune` over the parameters of the
strategies, on the DCQCN 2:1 incast (topologies/dcqcn/incast2.yaml).

  check_tune_dcqcn.py IBCC WORK_DIR

1. Quantity keys are tuned in their units: a time range (cc.dcqcn.alpha_timer=20us:300us:log),
   a size range (cc.ecn.kmax=20KB:400KB:log, tuned in whole bytes) and a strategy choice
   (cc.reaction=dcqcn,dcqcn_plus). Every trial's run resolved exactly the value tune.csv
   records for it, in that unit.
2. Bad quantity input is refused before any trial, exit 2 with the key named: a number
   without a unit, a unit of another kind, a size outside the key's range, a choice that is
   no time.
3. The seed hardware reference of a DCQCN scenario is ConnectX-4's parameters (the
   dissertation's Table 1), its run resolved with them; no opensm.conf is written (OpenSM does
   not configure DCQCN) and the report says why; chosen.yaml is the chosen trial's cc: section.
4. The tune is a search, not a lottery: over a Kmax range reaching well below the scenario's
   200 KB, the chosen trial's p99 latency is at most the scenario defaults' (a lower Kmax marks
   earlier and holds a shorter queue).
5. The regime's own metrics reach sweeps and tunes: `ibcc sweep` over Kmax 20KB and 400KB
   with --metric peak_egress_bytes,pfc_pauses writes them to sweep.csv, and the egress queue's
   peak over 100-200 ms is lower with the lower Kmax (between Kmin and Kmax each time); a
   tune may minimise peak_egress_bytes without naming the direction.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402

TIME_PS = {"ps": 1, "ns": 1e3, "us": 1e6, "ms": 1e9, "s": 1e12}


def ps(text):
    """A time of the scenario (a number with a unit) in picoseconds."""
    t = str(text).strip()
    for unit in sorted(TIME_PS, key=len, reverse=True):
        if t.endswith(unit):
            return round(float(t[:-len(unit)]) * TIME_PS[unit])
    raise ValueError(f"not a time: {text}")


def main():
    ibcc, work = sys.argv[1], Path(sys.argv[2])
    root = Path(__file__).resolve().parents[2]
    scenario = str(root / "topologies/dcqcn/incast2.yaml")
    c = Checks()
    shutil.rmtree(work, ignore_errors=True)
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    common = ["--sim-time", "20ms", "--window", "10ms..20ms", "--set", "sim.log_interval=1ms"]

    def tune(out, *args):
        return subprocess.run([ibcc, "tune", scenario, "--out", str(out), "--quiet", *args, *common],
                              capture_output=True, text=True, env=env)

    # 2. Bad input first (nothing runs).
    bad = [
        (["--space", "cc.dcqcn.rate_timer=20:300"], "'20' is not a time for cc.dcqcn.rate_timer"),
        (["--space", "cc.dcqcn.rate_timer=20us:3Gb/s"], "'3Gb/s' is not a time for cc.dcqcn.rate_timer"),
        (["--space", "cc.ecn.kmax=1KB:2TB"], "'2TB' is not a size for cc.ecn.kmax"),
        (["--space", "cc.ecn.kmax=0:100KB"], "outside cc.ecn.kmax's range"),
        (["--space", "cc.dcqcn.alpha_timer=55us,fast"], "'fast' is not a time for cc.dcqcn.alpha_timer"),
        (["--space", "cc.dcqcn.rate_timer=300us:20us"], "expected LO < HI"),
        # A key without effect under one of the choices (DCQCN+ has no rate timer).
        (["--space", "cc.dcqcn.rate_timer=20us:300us", "--space", "cc.reaction=dcqcn,dcqcn_plus"],
         "has no effect with cc.reaction: dcqcn_plus"),
    ]
    for i, (args, expect) in enumerate(bad):
        out = work / f"bad{i}"
        p = tune(out, *args, "--trials", "2")
        c.check(p.returncode == 2 and expect in p.stderr and not (out / "trials").exists(),
                f"refused before any trial: {' '.join(args)} -> exit {p.returncode}: {p.stderr.strip()[:160]}")

    # 1. A tune over a time, a size and a strategy.
    out = work / "study"
    p = tune(out, "--space", "cc.ecn.kmax=20KB:400KB:log", "--space", "cc.dcqcn.alpha_timer=20us:300us:log",
             "--space", "cc.reaction=dcqcn,dcqcn_plus", "--objective", "latency_p99_us",
             "--objective", "group_total.incast", "--trials", "10", "--seed", "1")
    c.check(p.returncode == 0, f"the tune runs (exit {p.returncode}) {p.stderr.strip()[-300:]}")
    if p.returncode != 0:
        return c.result()
    rows = list(csv.DictReader(open(out / "tune.csv")))
    complete = [r for r in rows if r["state"] == "COMPLETE"]
    c.check(len(complete) == 10, f"10 trials completed ({len(complete)})")
    c.check("cc.dcqcn.alpha_timer [us]" in rows[0] and "cc.ecn.kmax [B]" in rows[0],
            "tune.csv names each quantity's unit in its column")
    applied = True
    for r in complete:
        res = yaml.safe_load((Path(r["dir"]) / "incast2" / "resolved.yaml").read_text())["cc"]
        want_ps = ps(f"{float(r['cc.dcqcn.alpha_timer [us]']):.6g}us")
        ok = (ps(res["dcqcn"]["alpha_timer"]) == want_ps and int(res["ecn"]["kmax"]) == int(r["cc.ecn.kmax [B]"])
              and res["reaction"] == r["cc.reaction"])
        if not ok:
            applied = False
            print(f"     trial {r['trial']}: tune.csv {r['cc.dcqcn.alpha_timer [us]']} us, {r['cc.ecn.kmax [B]']} B, "
                  f"{r['cc.reaction']}; resolved {res['dcqcn']['alpha_timer']}, {res['ecn']['kmax']}, {res['reaction']}")
    c.check(applied, "every trial's run resolved the values tune.csv records (alpha_timer, kmax, reaction)")
    kmax = [int(r["cc.ecn.kmax [B]"]) for r in complete]
    c.check(min(kmax) >= 20000 and max(kmax) <= 400000, f"Kmax stays in 20KB..400KB ({min(kmax)}..{max(kmax)} B)")

    # 3. References and outputs.
    summary = json.loads((out / "tune.json").read_text())
    seed = summary["seed_hardware"]
    c.check("ConnectX-4" in seed["what"] and seed["sets"].get("cc.dcqcn.rate_timer") == "300us",
            f"the seed hardware reference is ConnectX-4's ({seed['what']})")
    ref = yaml.safe_load((out / "reference" / "seed_hardware" / "incast2" / "resolved.yaml").read_text())["cc"]["dcqcn"]
    c.check(ps(ref["rate_timer"]) == ps("300us") and int(ref["byte_counter"]) == 2000000
            and ps(ref["cnp_interval"]) == 0, "its run resolved rate_timer 300us, byte_counter 2MB, cnp_interval 0")
    report = (out / "report.txt").read_text()
    c.check(not (out / "opensm.conf").exists() and "not cc.marking=ecn" in report,
            "no opensm.conf, and the report says why")
    chosen = summary["chosen"]
    chosen_dir = Path(next(r["dir"] for r in complete if int(r["trial"]) == chosen["trial"])) / "incast2"
    want = yaml.safe_load((chosen_dir / "resolved.yaml").read_text())["cc"]
    want.pop("rtl", None)
    got = yaml.safe_load((out / "chosen.yaml").read_text())["cc"]
    c.check(got == want, f"chosen.yaml is trial {chosen['trial']}'s resolved cc: section")

    # 4. Better than the defaults on the latency it was asked to lower.
    defaults = summary["references"]["defaults"]
    c.check(chosen["values"][0] <= defaults[0],
            f"chosen p99 latency {chosen['values'][0]:.1f} us <= the defaults' {defaults[0]:.1f} us")
    # 5. Sweep and tune over the regime's metrics.
    sweep = work / "sweep"
    p = subprocess.run([ibcc, "sweep", scenario, "--out", str(sweep), "--quiet", "--sim-time", "200ms",
                        "--window", "100ms..200ms", "--grid", "cc.ecn.kmax=20KB,400KB",
                        "--metric", "peak_egress_bytes", "--metric", "pfc_pauses"], capture_output=True, text=True, env=env)
    c.check(p.returncode == 0, f"ibcc sweep over Kmax with --metric peak_egress_bytes (exit {p.returncode}) "
                               f"{p.stderr.strip()[-200:]}")
    if p.returncode == 0:
        pts = {r["cc.ecn.kmax"]: r for r in csv.DictReader(open(sweep / "sweep.csv"))}
        lo, hi = float(pts["20KB"]["peak_egress_bytes"]), float(pts["400KB"]["peak_egress_bytes"])
        c.check(5000 < lo < 20000 < hi < 400000 and lo < hi,
                f"the egress queue's peak follows Kmax: {lo / 1e3:.1f} KB at Kmax 20KB, {hi / 1e3:.1f} KB at 400KB")
        c.check(all(float(r["pfc_pauses"]) == 0 for r in pts.values()), "no PFC pause with DCQCN on")
    p = tune(work / "tune_egress", "--space", "cc.ecn.kmax=20KB:400KB:log", "--objective", "peak_egress_bytes",
             "--trials", "2")
    c.check(p.returncode == 0, f"a tune minimises peak_egress_bytes without :min (exit {p.returncode}) "
                               f"{p.stderr.strip()[-200:]}")
    return c.result()


if __name__ == "__main__":
    sys.exit(main())
