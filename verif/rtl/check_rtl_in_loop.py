#!/usr/bin/env python3
"""RTL in the loop: the same run with the C++ cores and with the Verilated blocks at the named
switch ports (FECN marker) and HCAs (CCTI block) (ibcc run --rtl) must write byte-identical results (flows.csv, ports.csv,
ccti.csv, latency.csv), the same packet counts (summary.json) and metrics (metrics.json).

  check_rtl_in_loop.py IBCC_REF IBCC_RTL SCENARIO OUT_DIR --rtl PORTS [--expect-differ] [ibcc run options...]
IBCC_REF runs with the C++ cores; IBCC_RTL (ibcc, or a mutant binary ibcc-mutant-NAME) with
--rtl PORTS. Exit 0 when identical (with --expect-differ: when they differ, as a mutant's
must), 1 otherwise, 2 if a run fails.
"""
import filecmp
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402

FILES = ["flows.csv", "ports.csv", "ccti.csv", "latency.csv"]


def run(binary, scenario, out, extra):
    shutil.rmtree(out, ignore_errors=True)
    cmd = [binary, "run", scenario, "--out", out, "--quiet"] + extra
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"check_rtl_in_loop: {' '.join(cmd)} failed (exit {r.returncode}):\n{r.stdout}{r.stderr}", file=sys.stderr)
        sys.exit(2)
    return time.monotonic() - t0


def packets(out):
    """The packet counts (summary.json) and every metric (metrics.json) of a run."""
    s = json.load(open(os.path.join(out, "summary.json")))
    m = json.load(open(os.path.join(out, "metrics.json")))
    return {"packets": s["packets"], "packet_hops": s["packet_hops"], "cnps": s["cnps"], "metrics": m["metrics"]}


def main():
    args = sys.argv[1:]
    if len(args) < 6 or "--rtl" not in args:
        print(__doc__, file=sys.stderr)
        return 2
    ref_bin, rtl_bin, scenario, out = args[:4]
    rest = args[4:]
    expect_differ = "--expect-differ" in rest
    rest = [a for a in rest if a != "--expect-differ"]
    i = rest.index("--rtl")
    ports = rest[i + 1]
    extra = rest[:i] + rest[i + 2:]
    ref_out, rtl_out = os.path.join(out, "cores"), os.path.join(out, "rtl")
    t_ref = run(ref_bin, scenario, ref_out, extra)
    t_rtl = run(rtl_bin, scenario, rtl_out, extra + ["--rtl", ports])
    print(f"C++ cores: {t_ref:.1f} s; RTL at {ports} ({os.path.basename(rtl_bin)}): {t_rtl:.1f} s "
          f"(Verilation included on the first run)")
    differ = []
    for f in FILES:
        a, b = os.path.join(ref_out, f), os.path.join(rtl_out, f)
        same = filecmp.cmp(a, b, shallow=False)
        print(f"  {f:12} {'identical' if same else 'DIFFERS'}")
        if not same:
            differ.append(f)
    pa, pb = packets(ref_out), packets(rtl_out)
    print(f"  packet counts and metrics {'identical' if pa == pb else 'DIFFER'}: packets {pb['packets']}, "
          f"FECN marks {pb['metrics'].get('fecn')}, CNPs {pb['cnps']}")
    if pa != pb:
        differ.append("packet counts or metrics")
    checks = Checks()
    if expect_differ:
        checks.check(bool(differ), "the broken RTL changed the results" if differ else "the broken RTL went unseen")
    else:
        checks.check(not differ, "the RTL's results are identical to the C++ cores'" if not differ
                     else f"{', '.join(differ)} differ from the C++ cores'")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
