#!/usr/bin/env python3
"""Bad command lines give a clear error and exit code 2 (never a crash or a silent default);
a mistyped subcommand, option, scenario key or metric gets a "did you mean"; options and positionals mix in any order.

Usage: check_cli_errors.py IBCC_BINARY SCENARIO OUT_DIR
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402

CASES = [
    (["cosim"], "--block"),
    (["cosim", "--block", "switch"], "--block"),
    (["cosim", "--block", "fecn", "--test", "nope"], "nope"),
    (["cosim", "--block", "fecn", "--cycles", "-5"], "--cycles"),
    (["cosim", "--block", "fecn", "--cycles", "many"], "--cycles"),
    (["cosim", "--block", "fecn", "--frobnicate"], "frobnicate"),
    (["cosim", "--block", "fecn", "--board", "{O}/no-such-tty"], "cannot open"),
    (["cosim", "--block", "fecn", "--board", "/dev/null"], "not a serial port"),
    (["cosim", "--block", "fecn", "--board", "verilated", "--baud", "9600"], "--baud"),
    (["simulate"], "simulate"),
    ([], "subcommand"),
    (["rnu", "{S}"], "did you mean 'run'"),
    (["run", "{S}", "--out", "{O}/typo", "--sim-tme", "1ms"], "did you mean '--sim-time'"),
    (["run", "{S}", "--out", "{O}/trace", "--trace", "ports=S1/1"], "--waves"),
    (["run", "{S}", "--out", "{O}/window", "--waves-window", "1ms..2ms"], "--waves"),
    (["keys", "--markdown", "--json-schema"], "format"),
    (["run", "{S}", "--out", "{O}/key", "--set", "cc.switch.treshold=3"], "did you mean 'threshold'"),
    (["sweep", "{S}", "--out", "{O}/metric", "--grid", "cc.switch.threshold=3", "--metric", "jian"],
     "did you mean 'jain'"),
    (["run", "{S}", "--out", "{O}/seeds1", "--seeds", "1"], "--seeds"),
    (["run", "{S}", "--out", "{O}/seedsw", "--seeds", "3", "--waves", "{O}/w"], "--waves"),
    (["run", "{S}", "--out", "{O}/jobs", "--jobs", "2"], "--seeds"),
    (["run", "{S}", "--out", "{O}/seedsprof", "--seeds", "2", "--profile-partitions", "2"], "--profile-partitions"),
    (["run", "{S}", "--out", "{O}/prof0", "--profile-partitions", "0"], "--profile-partitions"),
    (["run", "{S}", "--out", "{O}/seedswin", "--seeds", "2", "--window", "1s..9s"], "--window 1s..9s: ends after"),
    (["sweep", "{S}", "--out", "{O}/seedgrid", "--grid", "sim.seed=1,2", "--seeds", "2"], "--grid"),
]
# A typo's suggestion replaces CLI11's account of the words it could not place.
NOT_SAID = {"rnu": "not expected", "--sim-tme": "not expected"}

# Command lines that must work (exit 0), with a text the output must hold.
GOOD = [
    # --set before the positional: each --set takes one value, the scenario stays a positional.
    (["run", "--set", "cc.switch.threshold=10", "{S}", "--set", "sim.seed=3", "--out", "{O}/order", "--force",
      "--quiet", "--sim-time", "20us"], ""),
    (["describe", "--set", "cc.switch.threshold=10", "{S}"], "threshold: 10"),
    (["list"], "topologies/seed-testbed/scenario1.yaml"),
    (["keys"], "cc.switch.threshold"),
    ([], ""),  # placeholder replaced below: the subcommand list names every subcommand
]


def main():
    checks = Checks()
    scenario, out = sys.argv[2], sys.argv[3]
    fill = lambda args: [a.replace("{S}", scenario).replace("{O}", out) for a in args]
    for args, needle in GOOD[:-1]:
        r = subprocess.run([sys.argv[1]] + fill(args), capture_output=True, text=True, timeout=120)
        ok = r.returncode == 0 and needle in r.stdout
        checks.check(ok, f"ibcc {' '.join(args)!s:50} exit {r.returncode} {r.stderr.strip()[:200]}")
    # `ibcc` alone names every subcommand --help lists.
    helptext = subprocess.run([sys.argv[1], "--help"], capture_output=True, text=True).stdout
    subs = [ln.split()[0] for ln in helptext.split("Subcommands:")[-1].splitlines() if ln.startswith("  ") and not ln.split()[0].startswith("-")]
    alone = subprocess.run([sys.argv[1]], capture_output=True, text=True).stderr
    missing = [s for s in subs if s not in alone]
    checks.check(subs and not missing, f"ibcc alone names every subcommand of --help {subs} (missing {missing})")
    for args, needle in CASES:
        r = subprocess.run([sys.argv[1]] + fill(args), capture_output=True, text=True, timeout=60)
        text = r.stdout + r.stderr
        ok = r.returncode == 2 and needle in text
        unwanted = [w for a, w in NOT_SAID.items() if a in args and w in text]
        ok = ok and not unwanted
        checks.check(ok, f"ibcc {' '.join(args)!s:50} exit {r.returncode}: "
                     f"{text.strip().splitlines()[0] if text.strip() else ''}")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
