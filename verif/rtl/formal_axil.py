#!/usr/bin/env python3
"""Formal proof of the AXI4-Lite slave (rtl/ibcc_axil_slave.sv) against the property set in
verif/rtl/formal/axil_slave_props.sv, with yosys (read_verilog -formal, write_smt2) and
yosys-smtbmc driving z3 from PyPI (z3-solver; Debian's z3 4.8.12 hangs on such models).

  formal_axil.py [--depth N] [--keep DIR]
      bounded model check from reset to N steps, k-induction of depth N (together: the
      properties hold in every reachable state), and every cover statement reached within N
      steps (the proof is not vacuous). Exit 0 proven, 1 a property fails (the failing
      property and a VCD counterexample are printed), 2 tools missing or bad input.
  formal_axil.py --mutants [--depth N] [--keep DIR]
      each broken slave of verif/rtl/formal/axil_mutants.yaml, and each mutant of
      verif/rtl/mutations.yaml that touches the slave, must be refuted by a bounded counterexample
      (violating one of its `fails` properties). Exit 0 all refuted, 1 a survivor.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import mutate  # noqa: E402
from checks import Checks  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SLAVE = "rtl/ibcc_axil_slave.sv"
PROPS = os.path.join(ROOT, "verif", "rtl", "formal", "axil_slave_props.sv")
TOP = "axil_slave_props"
MUTANTS = os.path.join(ROOT, "verif", "rtl", "formal", "axil_mutants.yaml")


def die(msg):
    print(f"formal_axil: error: {msg}", file=sys.stderr)
    sys.exit(2)


def solver_env():
    """PATH with the z3 of this Python's z3-solver first (yosys-smtbmc runs `z3` from PATH)."""
    scripts = sysconfig.get_path("scripts")
    z3 = os.path.join(scripts, "z3")
    if not os.access(z3, os.X_OK):
        die(f"no z3 from PyPI in {scripts} (pip install z3-solver; scripts/bootstrap.sh does)")
    for tool in ("yosys", "yosys-smtbmc"):
        if shutil.which(tool) is None:
            die(f"{tool} not found (Debian package yosys)")
    env = dict(os.environ, PATH=scripts + os.pathsep + os.environ.get("PATH", ""))
    version = subprocess.run([z3, "--version"], capture_output=True, text=True, env=env).stdout.strip()
    return env, version


def build_model(slave_text, work):
    """Write the slave and the properties to work/ and return the SMT-LIB2 model's path."""
    slave = os.path.join(work, os.path.basename(SLAVE))
    with open(slave, "w") as f:
        f.write(slave_text)
    smt2 = os.path.join(work, "model.smt2")
    # SYNTHESIS hides the slave's simulation-only SVA (|=> is not yosys' SystemVerilog);
    # -formal defines FORMAL, which enables the slave's own induction invariants.
    script = (f"read_verilog -formal -sv -DSYNTHESIS {slave} {PROPS}; prep -top {TOP}; flatten; "
              f"memory_map; opt -fast; async2sync; dffunmap; write_smt2 -wires {smt2}")
    r = subprocess.run(["yosys", "-q", "-p", script], capture_output=True, text=True)
    if r.returncode != 0:
        die(f"yosys could not read the model:\n{r.stdout}{r.stderr}")
    return smt2


def smtbmc(env, smt2, mode, depth, vcd):
    """Run yosys-smtbmc; (status 'PASSED'|'FAILED', failing properties, reached covers, log)."""
    args = ["yosys-smtbmc", "-s", "z3", "-t", str(depth), "--dump-vcd", vcd]
    args += {"bmc": ["--presat"], "induction": ["-i"], "cover": ["-c"]}[mode]
    r = subprocess.run(args + [smt2], capture_output=True, text=True, env=env, timeout=600)
    log = r.stdout + r.stderr
    status = re.findall(r"Status: (PASSED|FAILED|ERROR)", log)
    if not status or status[-1] == "ERROR":
        die(f"yosys-smtbmc {mode} did not finish:\n{log[-2000:]}")
    failed = re.findall(r"Assert failed in \S+: (?:.*\()?([\w.]+)\)?\s*$", log, re.M)
    covers = re.findall(r"Reached cover statement at (?:.*\()?([\w.]+)\)? in step (\d+)", log)
    if mode == "bmc" and "Assumptions are unsatisfiable" in log:
        die("the master's assumptions contradict each other (vacuous proof)")
    return status[-1], failed, covers, log


def cover_names():
    return re.findall(r"\b(cover_\w+):\s*cover\b", open(PROPS).read(), re.M)


def prove(env, depth, work):
    smt2 = build_model(open(os.path.join(ROOT, SLAVE)).read(), work)
    ok = True
    for mode in ("bmc", "induction"):
        vcd = os.path.join(work, f"{mode}.vcd")
        status, failed, _, _ = smtbmc(env, smt2, mode, depth, vcd)
        what = {"bmc": f"bounded, {depth} steps from reset", "induction": f"induction, depth {depth}"}[mode]
        print(f"  {what:34} {status}" + (f"  (fails: {', '.join(failed)}; trace {vcd})" if failed else ""))
        ok = ok and status == "PASSED"
    status, _, covers, log = smtbmc(env, smt2, "cover", depth, os.path.join(work, "cover%d.vcd"))
    reached = {name.split(".")[-1]: int(step) for name, step in covers}
    missing = [c for c in cover_names() if c not in reached]
    print(f"  {'covers reached':34} {len(reached)}/{len(cover_names())}"
          + (f"  (never: {', '.join(missing)})" if missing else
             f"  (latest in step {max(reached.values())})"))
    return ok and status == "PASSED" and not missing


def mutants():
    listed = [dict(m, origin="verif/rtl/formal/axil_mutants.yaml") for m in mutate.mutations(MUTANTS)]
    listed += [dict(m, origin="verif/rtl/mutations.yaml") for m in mutate.mutations() if m["file"] == SLAVE]
    return listed


def refute(env, depth, work):
    base = open(os.path.join(ROOT, SLAVE)).read()
    survivors = 0
    for m in mutants():
        d = os.path.join(work, m["name"])
        os.makedirs(d, exist_ok=True)
        try:
            text = mutate.apply(m, base)
        except (ValueError, KeyError) as e:
            die(f"{m['origin']}: {e}")
        vcd = os.path.join(d, "counterexample.vcd")
        status, failed, _, _ = smtbmc(env, build_model(text, d), "bmc", depth, vcd)
        short = [f.split(".")[-1] for f in failed]
        want = m.get("fails") or []
        refuted = status == "FAILED" and (not want or any(f in want for f in short))
        survivors += not refuted
        verdict = "refuted" if refuted else "SURVIVED"
        detail = f"fails {', '.join(short)}" if failed else "no counterexample"
        if status == "FAILED" and not refuted:
            detail += f", none of {', '.join(want)}"
        print(f"  {m['name']:28} {verdict:8}  {detail}  ({m['why']})")
    return survivors == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--depth", type=int, default=20, help="BMC steps and induction depth (default 20)")
    ap.add_argument("--mutants", action="store_true", help="refute each broken slave instead of proving")
    ap.add_argument("--keep", metavar="DIR", help="keep models and traces in DIR (default: a temporary directory)")
    a = ap.parse_args()
    if a.depth < 2:
        die("--depth must be at least 2")
    env, version = solver_env()
    work = a.keep or tempfile.mkdtemp(prefix="formal_axil.")
    os.makedirs(work, exist_ok=True)
    try:
        print(f"AXI4-Lite slave {SLAVE} against {os.path.relpath(PROPS, ROOT)} ({version}, yosys-smtbmc)")
        ok = refute(env, a.depth, work) if a.mutants else prove(env, a.depth, work)
        checks = Checks()
        checks.check(ok, ("every mutant refuted" if ok else "a mutant survived") if a.mutants
                     else ("the properties are proven" if ok else "a property failed"))
        return checks.result()
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
