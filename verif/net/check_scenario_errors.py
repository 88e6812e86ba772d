#!/usr/bin/env python3
"""Runs `ibcc run` on scenario files built to be wrong and checks that each fails the way its
header says:

  # command: import opensm  (default: run; the file follows; {dir} is the file's directory)
  # args: --sim-time 1ms    (more options after the file; {dir} as above)
  # expect-exit: N          (default 2: bad input)
  # expect: TEXT            (must appear in stderr; {line_of:TOKEN} is replaced by the line
                             number of the first line after the header containing TOKEN)

  check_scenario_errors.py IBCC DIR [DIR ...]
"""
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402


def expectations(path):
    text = path.read_text(errors="replace").splitlines()
    exit_code, expected, command, extra = 2, [], ["run"], []
    for line in text:
        if m := re.match(r"# command: (.*)", line):
            command = m.group(1).replace("{dir}", str(path.parent)).split()
        elif m := re.match(r"# args: (.*)", line):
            extra = m.group(1).replace("{dir}", str(path.parent)).split()
        elif m := re.match(r"# expect-exit: (\d+)", line):
            exit_code = int(m.group(1))
        elif m := re.match(r"# expect: (.*)", line):
            expected.append(m.group(1))

    def line_of(m):
        token = m.group(1)
        for i, line in enumerate(text, start=1):
            if token in line and not line.startswith("# expect"):
                return str(i)
        raise SystemExit(f"{path}: token {token!r} of an expectation is not in the file")

    return exit_code, [re.sub(r"\{line_of:([^}]*)\}", line_of, e) for e in expected], command, extra


def main():
    ibcc, dirs = sys.argv[1], [Path(d) for d in sys.argv[2:]]
    files = sorted(f for d in dirs for ext in ("yaml", "conf", "ibnetdiscover", "lfts") for f in d.glob(f"*.{ext}"))
    if not files:
        sys.exit("no scenario files found")
    checks = Checks()
    with tempfile.TemporaryDirectory() as out:
        for f in files:
            exit_code, expected, command, extra = expectations(f)
            if not expected:
                checks.check(False, f"{f}: no '# expect:' line")
                continue
            args = [str(f), "--out", out, "--quiet", "--force"] if command == ["run"] else [str(f)]
            res = subprocess.run([ibcc] + command + args + extra, capture_output=True, text=True, timeout=120)
            # Errors name the file as given: compare from the scenario directory's name on.
            err = res.stderr.replace(str(f.parent.parent) + "/", "")
            missing = [e for e in expected if e not in err]
            ok = res.returncode == exit_code and not missing
            checks.check(ok, f"{f.parent.name}/{f.name}: exit {res.returncode} (expected {exit_code})")
            for e in missing:
                print(f"     missing: {e}")
            if not ok or "-v" in sys.argv:
                print("     stderr: " + err.strip().replace("\n", "\n             "))
    print(f"{len(files) - len(checks.failures)} of {len(files)} scenarios as expected")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
