#!/usr/bin/env python3
"""FPGA starting point: synthesize both CC blocks with yosys (synth_ice40 and synth_xilinx,
default parameters) and print LUT / FF / RAM / DSP / carry counts per block and family.

Usage: synth.py OUT_DIR [--jobs N]
Writes OUT_DIR/<block>_<family>.log and OUT_DIR/resources.md; exit 1 if a run fails.
"""
import concurrent.futures
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RTL = os.path.join(ROOT, "rtl")
BLOCKS = {
    "fecn_marker": ["fecn_marker_reg_pkg.sv", "fecn_marker_reg_top.sv", "ibcc_timebase.sv", "ibcc_axil_slave.sv", "ibcc_event_log.sv",
                    "fecn_marker.sv"],
    "ccti_block": ["ccti_block_reg_pkg.sv", "ccti_block_reg_top.sv", "ibcc_timebase.sv", "ibcc_axil_slave.sv", "ibcc_event_log.sv",
                   "ccti_block.sv"],
}
# synth_ice40 ends with `autoname`, which only renames cells for readability: on the CCTI
# block it took 76 of 228 s. The flow stops before that label and runs the rest of it.
FLOWS = {
    "ice40": "synth_ice40 -top {top} -run :check; hierarchy -check; check -noinit",
    "xc7": "synth_xilinx -family xc7 -flatten -top {top}",
}
# Cell name -> column, per family.
CLASSES = {
    "ice40": {"LUT": r"SB_LUT4", "FF": r"SB_DFF\w*", "RAM": r"SB_RAM\w*", "DSP": r"SB_MAC16", "CARRY": r"SB_CARRY"},
    "xc7": {"LUT": r"LUT\d", "FF": r"FD\w*", "RAM": r"(RAMB\w*|RAM\d\w*)", "DSP": r"DSP48E1", "CARRY": r"CARRY4"},
}


def run(block, family, out):
    files = " ".join(os.path.join(RTL, f) for f in BLOCKS[block])
    script = f"read_verilog -sv {files}; {FLOWS[family].format(top=block)}; stat"
    log = os.path.join(out, f"{block}_{family}.log")
    with open(log, "w") as f:
        rc = subprocess.run(["yosys", "-q", "-l", log + ".full", "-p", script], stdout=f, stderr=subprocess.STDOUT).returncode
    text = open(log + ".full").read() if os.path.exists(log + ".full") else ""
    stat = text[text.rfind("Printing statistics"):] if "Printing statistics" in text else ""
    counts = {k: 0 for k in CLASSES[family]}
    for m in re.finditer(r"^\s+(\S+)\s+(\d+)\s*$", stat, re.M):
        cell, n = m.group(1), int(m.group(2))
        for col, pat in CLASSES[family].items():
            if re.fullmatch(pat, cell):
                counts[col] += n
    return block, family, rc, counts


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "synth"
    jobs = int(sys.argv[sys.argv.index("--jobs") + 1]) if "--jobs" in sys.argv else os.cpu_count() or 1
    os.makedirs(out, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        # The CCTI block's runs are the long ones: they start first.
        results = list(pool.map(lambda a: run(*a, out), [(b, f) for b in reversed(list(BLOCKS)) for f in FLOWS]))
        results.sort(key=lambda r: (list(BLOCKS).index(r[0]), list(FLOWS).index(r[1])))
    lines = ["| block | family | LUT | FF | RAM | DSP | CARRY |", "|---|---|---|---|---|---|---|"]
    failed = False
    for block, family, rc, c in results:
        if rc != 0 or c["LUT"] == 0 or c["FF"] == 0:
            failed = True
            lines.append(f"| {block} | {family} | synthesis FAILED (see {out}/{block}_{family}.log.full) |||||")
        else:
            lines.append(f"| {block} | {family} | {c['LUT']} | {c['FF']} | {c['RAM']} | {c['DSP']} | {c['CARRY']} |")
    table = "\n".join(lines)
    print(table)
    with open(os.path.join(out, "resources.md"), "w") as f:
        f.write("Default parameters (FECN: 8 inputs, 4 VLs, 12-bit fills; CCTI: 64 QPs, 128 CCT entries).\n\n")
        f.write(table + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
