"""GTKWave under Xvfb, for the waves checks (rtl/check_waves.py, rtl/check_rtl_waves.py,
net/check_net_waves.py): open a dump with its save file, count the traces that resolved, grab
a screenshot (gtkw_grab.tcl), and read a save file's signal names."""
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
            if line.startswith(("[", "*", "@", "^")) or not line.strip():
                continue
            n += 1
    return n


def grab(dump, gtkw, png):
    """Opens the save file in GTKWave under Xvfb (with `dump`, or None: the dump the save file
    names, as `gtkwave FILE.gtkw` finds it); True if every trace resolved and the screenshot
    was taken."""
    if os.path.exists(png):
        os.remove(png)
    env = dict(os.environ, IBCC_GRAB_PNG=png)
    res = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1600x900x24", "gtkwave", "--script",
                          os.path.join(HERE, "gtkw_grab.tcl")] + ([dump] if dump else []) + [gtkw],
                         capture_output=True, text=True, timeout=120, env=env)
    m = re.search(r"traces_total: (\d+)", res.stdout)
    want = expected_traces(gtkw)
    got = int(m.group(1)) if m else -1
    size = os.path.getsize(png) if os.path.exists(png) else 0
    ok = got == want and size > 10000
    print(f"{os.path.basename(gtkw)}: {got}/{want} traces resolved, screenshot {png} ({size} bytes)")
    if not ok:
        print(res.stdout[-2000:], res.stderr[-2000:], file=sys.stderr)
    return ok


def traces_by_name(gtkw, scope_sep):
    """{name below the block, with generate indices as [i]: width} of a save file's signals."""
    out = {}
    with open(gtkw) as f:
        for line in f:
            line = line.strip()
            if line.startswith(("[", "*", "@", "-", "^")) or not line:
                continue
            if line.startswith("+{"):
                line = line[line.index("} ") + 2:]
            m = re.match(r"(.*)\[(\d+):(\d+)\]$", line)
            name, width = (m.group(1), int(m.group(2)) - int(m.group(3)) + 1) if m else (line, 1)
            name = name.split(scope_sep, 1)[1] if scope_sep in name else name
            out[re.sub(r"\((\d+)\)", r"[\1]", name)] = width
    return out
