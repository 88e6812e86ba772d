"""What the study checkers share (check_dcqcn.py, check_gbn_gather.py,
compare_regimes.py): running `ibcc run` for a summary, reading a variable back from a VCD
dump, and the PASS / FAIL / DIFFERS bookkeeping."""
import argparse
import json
import os
import re
import subprocess
import sys


class Checks:
    def __init__(self):
        self.failures = []
        self.differences = []

    def check(self, ok, what):
        print(("PASS " if ok else "FAIL ") + what)
        if not ok:
            self.failures.append(what)

    def compare(self, ok, what):
        """A claim of a seed the model is known not to reproduce (docs/validation.md says by
        how much and why): printed, not gating, so that a change in either direction shows."""
        print(("SAME    " if ok else "DIFFERS ") + what)
        if not ok:
            self.differences.append(what)

    def result(self):
        """Prints the verdict; the exit code (0 pass, 1 fail)."""
        if self.differences:
            print(f"DIFFERENCES from the seed (not gating, docs/validation.md): {len(self.differences)}")
        print("RESULT: " + ("PASS" if not self.failures else f"FAIL ({len(self.failures)})"))
        return 1 if self.failures else 0


def run_ibcc(ibcc, scenario, out, *args):
    """`ibcc run SCENARIO --out OUT --force --quiet ARGS`; its summary.json (exit on failure)."""
    r = subprocess.run([ibcc, "run", scenario, "--out", out, "--force", "--quiet", *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"ibcc run {scenario} {' '.join(args)} failed (exit {r.returncode}): {r.stderr.strip()}")
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def vcd_values(path, name):
    """The successive values of the first VCD variable called `name`."""
    with open(path) as f:
        text = f.read()
    code = re.search(r"\$var wire \d+ (\S+) " + re.escape(name) + r" ", text).group(1)
    return [int(v, 2) for v in re.findall(r"\nb([01]+) " + re.escape(code) + r"\n", text)]


def study_arguments(doc, sim_time):
    """The command line every study checker takes: IBCC SOURCE_DIR OUT_DIR [--sim-time T]
    (`doc`: the checker's docstring, whose first paragraph is its description)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("ibcc")
    ap.add_argument("source_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--sim-time", default=sim_time)
    return ap.parse_args()
