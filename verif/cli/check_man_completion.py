#!/usr/bin/env python3
"""The generated man page renders and documents every subcommand and option; the generated
bash completion completes subcommands and each subcommand's options.

  check_man_completion.py IBCC BUILD_DIR
"""
import os
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402


def main():
    ibcc, build = sys.argv[1], Path(sys.argv[2])
    man = build / "share" / "man" / "man1" / "ibcc.1"
    comp = build / "share" / "bash-completion" / "ibcc.bash"
    failures = []
    helptext = subprocess.run([ibcc, "--help"], capture_output=True, text=True).stdout
    subs = [ln.split()[0] for ln in helptext.split("Subcommands:")[-1].splitlines() if ln.startswith("  ")]
    page = subprocess.run(["man", "-l", str(man)], capture_output=True, text=True, env={"MANWIDTH": "120", "PATH": "/usr/bin:/bin"})
    if page.returncode != 0:
        failures.append(f"man -l {man}: exit {page.returncode}: {page.stderr[:200]}")
    for s in subs:
        opts = re.findall(r"^\s+(?:-\w,)?(--[\w-]+)", subprocess.run([ibcc, s, "--help"], capture_output=True, text=True).stdout, re.M)
        missing = [o for o in opts if o not in page.stdout]
        if s not in page.stdout or missing:
            failures.append(f"man page: subcommand {s} or its options {missing} missing")
        probe = f'source {comp}; COMP_WORDS=(ibcc {s} --); COMP_CWORD=2; _ibcc; echo "${{COMPREPLY[@]}}"'
        got = subprocess.run(["bash", "-c", probe], capture_output=True, text=True).stdout.split()
        if set(opts) - set(got):
            failures.append(f"completion of 'ibcc {s} --': missing {sorted(set(opts) - set(got))}")
    got = subprocess.run(["bash", "-c", f'source {comp}; COMP_WORDS=(ibcc sw); COMP_CWORD=1; _ibcc; echo "${{COMPREPLY[@]}}"'],
                         capture_output=True, text=True).stdout.split()
    if got != ["sweep"]:
        failures.append(f"completion of 'ibcc sw' gives {got}, not sweep")
    return Checks().report(failures, f"{len(subs)} subcommands checked in the man page and the completion")


if __name__ == "__main__":
    sys.exit(main())
