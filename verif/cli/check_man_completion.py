#!/usr/bin/env python3
"""The generated man page renders and documents every subcommand and option and has EXAMPLES
whose scenarios exist and whose options their subcommands take; the generated bash completion
completes subcommands, each subcommand's options, scenario keys after --set and metric names
after --metric.

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
    # EXAMPLES: in the page, each scenario file shipped, each option one its subcommand takes.
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    import shlex
    from gen_man_completion import EXAMPLES, ROOT
    if "EXAMPLES" not in page.stdout:
        failures.append("man page: no EXAMPLES section")
    for _, cmd in EXAMPLES:
        words = shlex.split(cmd)
        sub = words[1]
        sub_opts = set(re.findall(r"(--[\w-]+)", subprocess.run([ibcc, sub, "--help"], capture_output=True,
                                                                    text=True).stdout))
        bad = [w for w in words if w.startswith("--") and w not in sub_opts]
        missing = [w for w in words if w.endswith((".yaml", ".ibnetdiscover", ".lfts")) and w.startswith("topologies/")
                   and not (ROOT / w).exists()]
        if bad or missing or cmd.split(" --")[0] not in page.stdout.replace("\u2010", "-"):
            failures.append(f"EXAMPLES: {cmd}: options {bad} not taken, files {missing} missing, or not in the page")

    def complete(*words):
        probe = (f'source {comp}; COMP_WORDS=({" ".join(shlex.quote(w) for w in words)}); '
                 f'COMP_CWORD={len(words) - 1}; _ibcc; echo "${{COMPREPLY[@]}}"')
        return subprocess.run(["bash", "-c", probe], capture_output=True, text=True).stdout.split()
    if complete("ibcc", "run", "x.yaml", "--set", "cc.switch.thre") != ["cc.switch.threshold="]:
        failures.append(f"completion of --set cc.switch.thre: {complete('ibcc', 'run', 'x.yaml', '--set', 'cc.switch.thre')}")
    if complete("ibcc", "sweep", "x.yaml", "--metric", "ja") != ["jain"]:
        failures.append(f"completion of --metric ja: {complete('ibcc', 'sweep', 'x.yaml', '--metric', 'ja')}")
    if "pfc_pauses" not in complete("ibcc", "tune", "x.yaml", "--objective", "pfc"):
        failures.append("completion of --objective pfc: no pfc_pauses (the DCQCN regime's metrics)")
    return Checks().report(failures, f"{len(subs)} subcommands checked in the man page and the completion, "
                                     f"{len(EXAMPLES)} examples")


if __name__ == "__main__":
    sys.exit(main())
