#!/usr/bin/env python3
"""Waves test: run a short co-simulation with --waves, open each generated GTKWave save file
in real GTKWave under Xvfb, check that every trace of the save file resolved to a signal of
the dump, and keep the screenshot GTKWave grabbed.

Usage: check_waves.py IBCC_BINARY BLOCK TEST OUT_DIR
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402
from gtkwave import grab, traces_by_name  # noqa: E402


def check_side_by_side(out, block):
    """The reference's view names the RTL's signals at the RTL's widths, and the fill and credit
    buses of the FECN marker are split per input and VL in both."""
    top = {"fecn": "fecn_marker.", "ccti": "ccti_block."}[block]
    rtl = traces_by_name(os.path.join(out, f"{block}_rtl.gtkw"), top)
    ref = traces_by_name(os.path.join(out, f"{block}_ref.gtkw"), ".ref.")
    ok = True
    common = sorted(set(rtl) & set(ref))
    wrong = [f"{n}: rtl {rtl[n]} bits, reference {ref[n]}" for n in common if rtl[n] != ref[n]]
    if wrong:
        print("widths differ between the RTL and reference views:\n  " + "\n  ".join(wrong))
        ok = False
    if len(common) < 0.6 * len(ref):
        print(f"only {len(common)} of the reference's {len(ref)} traces name an RTL signal")
        ok = False
    if block == "fecn":
        for view, traces in (("rtl", rtl), ("ref", ref)):
            fills = [n for n in traces if re.fullmatch(r"g_fill_in\[\d+\]\.g_vl\[\d+\]\.fill", n)]
            credits = [n for n in traces if re.fullmatch(r"g_credits\[\d+\]\.credits", n)]
            wide = [n for n in traces if n in ("voq_fill_i", "credits_i")]
            if len(fills) < 8 or len(credits) < 2 or wide:
                print(f"{view}: fill/credit buses not split per input and VL "
                      f"({len(fills)} fills, {len(credits)} credits, whole buses {wide})")
                ok = False
    print(f"side by side: {len(common)} traces in both views, widths {'agree' if not wrong else 'DIFFER'}")
    return ok


def main():
    ibcc, block, test, out = sys.argv[1:5]
    os.makedirs(out, exist_ok=True)
    run = subprocess.run([ibcc, "cosim", "--block", block, "--test", test, "--seed", "1", "--quiet",
                          "--waves", out], capture_output=True, text=True, timeout=300)
    print(run.stdout)
    checks = Checks()
    checks.check(run.returncode == 0, f"ibcc cosim --block {block} --test {test} --waves: exit {run.returncode}")
    if run.returncode != 0:
        print(run.stderr, file=sys.stderr)
        return checks.result()
    for kind, ext in (("rtl", "fst"), ("ref", "vcd")):
        checks.check(grab(os.path.join(out, f"{block}_{kind}.{ext}"), os.path.join(out, f"{block}_{kind}.gtkw"),
                          os.path.join(out, f"{block}_{kind}.png")),
                     f"{block}_{kind}.gtkw opens in GTKWave with every trace resolved, and a screenshot")
    checks.check(check_side_by_side(out, block), "the RTL's and the reference's views name the same signals at the "
                 "same widths")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
