#!/usr/bin/env python3
"""RTL code coverage: run the co-simulation regression of both blocks on the Verilator
coverage build (line, toggle and the RTL's cover properties), merge the data, annotate the
sources and print the totals.

Usage: rtl_coverage.py IBCC_COV_BINARY OUT_DIR [CYCLES]
Writes OUT_DIR/coverage.dat (merged), OUT_DIR/annotated/ (sources with hit counts per line;
lines marked %000000 were never reached) and OUT_DIR/summary.txt.
"""
import os
import re
import subprocess
import sys


def main():
    binary, out = sys.argv[1], sys.argv[2]
    cycles = sys.argv[3] if len(sys.argv) > 3 else "1000000"
    os.makedirs(out, exist_ok=True)
    dats = []
    for block in ("fecn", "ccti"):
        dat = os.path.join(out, f"{block}.dat")
        run = subprocess.run([binary, "cosim", "--block", block, "--test", "all", "--cycles", cycles,
                              "--seed", "1", "--quiet", "--rtl-coverage", dat], capture_output=True, text=True)
        print(run.stdout.strip())
        if run.returncode != 0:
            print(run.stderr, file=sys.stderr)
            return 1
        dats.append(dat)
    merged = os.path.join(out, "coverage.dat")
    subprocess.run(["verilator_coverage", "--write", merged] + dats, check=True)
    annotated = os.path.join(out, "annotated")
    rep = subprocess.run(["verilator_coverage", "--annotate", annotated, "--annotate-min", "1", merged],
                         capture_output=True, text=True, check=True)
    summary = rep.stdout + rep.stderr
    with open(os.path.join(out, "summary.txt"), "w") as f:
        f.write(summary)
    print(summary.strip())
    m = re.search(r"Total coverage \((\d+)/(\d+)\)", summary)
    if not m:
        print("rtl_coverage.py: no coverage total reported", file=sys.stderr)
        return 1
    print(f"annotated sources: {annotated}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
