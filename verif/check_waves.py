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

HERE = os.path.dirname(os.path.abspath(__file__))


def expected_traces(gtkw):
    # Signal lines and group begin/end lines ("-Name") each make one trace.
    n = 0
    with open(gtkw) as f:
        for line in f:
            if line.startswith(("[", "*", "@")) or not line.strip():
                continue
            n += 1
    return n


def grab(dump, gtkw, png):
    """Opens the save file in GTKWave under Xvfb; True if every trace resolved and the
    screenshot was taken."""
    if os.path.exists(png):
        os.remove(png)
    env = dict(os.environ, IBCC_GRAB_PNG=png)
    res = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1600x900x24", "gtkwave", "--script",
                          os.path.join(HERE, "gtkw_grab.tcl"), dump, gtkw],
                         capture_output=True, text=True, timeout=120, env=env)
    m = re.search(r"traces_total: (\d+)", res.stdout)
    want = expected_traces(gtkw)
    got = int(m.group(1)) if m else -1
    size = os.path.getsize(png) if os.path.exists(png) else 0
    ok = got == want and size > 10000
    print(f"{os.path.basename(gtkw)}: {got}/{want} traces resolved, screenshot {png} ({size} bytes): "
          f"{'ok' if ok else 'FAIL'}")
    if not ok:
        print(res.stdout[-2000:], res.stderr[-2000:], file=sys.stderr)
    return ok


def traces_by_name(gtkw, scope_sep):
    """{name below the block, with generate indices as [i]: width} of a save file's signals."""
    out = {}
    with open(gtkw) as f:
        for line in f:
            line = line.strip()
            if line.startswith(("[", "*", "@", "-")) or not line:
                continue
            if line.startswith("+{"):
                line = line[line.index("} ") + 2:]
            m = re.match(r"(.*)\[(\d+):(\d+)\]$", line)
            name, width = (m.group(1), int(m.group(2)) - int(m.group(3)) + 1) if m else (line, 1)
            name = name.split(scope_sep, 1)[1] if scope_sep in name else name
            out[re.sub(r"\((\d+)\)", r"[\1]", name)] = width
    return out


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
    print(f"side by side: {len(common)} traces in both views, widths "
          f"{'agree' if not wrong else 'DIFFER'}: {'ok' if ok else 'FAIL'}")
    return ok


def main():
    ibcc, block, test, out = sys.argv[1:5]
    os.makedirs(out, exist_ok=True)
    run = subprocess.run([ibcc, "cosim", "--block", block, "--test", test, "--seed", "1", "--quiet",
                          "--waves", out], capture_output=True, text=True, timeout=300)
    print(run.stdout)
    if run.returncode != 0:
        print(run.stderr, file=sys.stderr)
        return 1
    failures = 0
    for kind, ext in (("rtl", "fst"), ("ref", "vcd")):
        failures += not grab(os.path.join(out, f"{block}_{kind}.{ext}"), os.path.join(out, f"{block}_{kind}.gtkw"),
                             os.path.join(out, f"{block}_{kind}.png"))
    failures += not check_side_by_side(out, block)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
