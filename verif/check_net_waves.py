#!/usr/bin/env python3
"""Network waves: `ibcc run --waves --trace` on the seed test bed, then the generated save file
opened in real GTKWave under Xvfb: every trace must resolve to a signal of the VCD, the
screenshot is kept, and the marks and congestion the run counted must be in the dump.

  check_net_waves.py IBCC SCENARIO OUT_DIR
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_waves import grab  # noqa: E402


def main():
    ibcc, scenario, out = sys.argv[1:4]
    waves = os.path.join(out, "waves")
    res = subprocess.run([ibcc, "run", scenario, "--out", out, "--sim-time", "2050ms", "--quiet", "--force", "--waves", waves,
                          "--trace", "ports=S2/2,S1/36,flows=F1,F2,F3", "--waves-window", "2s..2.05s"],
                         capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        print(res.stderr)
        return 1
    vcd = open(os.path.join(waves, "network.vcd")).read()
    # The S1/36 FECN mark signal is declared; count its rising edges in the window.
    ids = dict(re.findall(r"\$var wire 1 (\S+) (\w+) \$end", vcd))
    fecn_ids = [i for i, n in ids.items() if n == "fecn_mark"]
    marks = sum(len(re.findall(rf"^1{re.escape(i)}$", vcd, re.M)) for i in fecn_ids)
    print(f"FECN marks in the window: {marks}")
    if marks == 0:
        print("FAIL: no FECN mark in a window where scenario 1 with CC on marks")
        return 1
    ok = grab(os.path.join(waves, "network.vcd"), os.path.join(waves, "network.gtkw"), os.path.join(waves, "network.png"))
    print("RESULT: " + ("PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
