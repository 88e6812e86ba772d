#!/usr/bin/env python3
"""Register-map generator: one YAML description per block -> SV package, C++ header, docs.

Usage:
  regtool.py rtl/regs/fecn_marker.yaml ...          write the generated files
  regtool.py --check rtl/regs/fecn_marker.yaml ...  fail if a generated file is stale

The YAML is the single source of a block's register map; the RTL CSR decoder uses the
package, the C++ model uses the header, and docs/ shows the table. A test runs --check.
An optional `layout` list ({name, value, desc}) holds constants of the block's storage that
the RTL and the tools reading its state both use (RTL in the loop): they go into the package,
the header and the docs too.
"""
import argparse
import os
import re
import sys

import yaml

from regtool_top import camel, gen_cpp_top, gen_sv_top, params_of

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ACCESS = {"ro": "read-only", "rw": "read-write", "wo": "write-only (reads 0)",
          "raz": "reads zero, writes ignored"}


class RegmapError(Exception):
    pass


REG_KEYS = {"name", "offset", "count", "stride", "access", "attribute", "desc", "fields", "port_bit", "window",
            "count_param", "memory"}
# ibmad / ibmad_differs: the libibmad field(s) this field is, for the layout check against
# an outside reference (verif/rtl/check_ibmad_layout.py; the register descriptions say how).
FIELD_KEYS = {"name", "lsb", "width", "reset", "access", "desc", "ibmad", "ibmad_differs",
              "hw_write", "stored_width", "legal", "const", "param"}  # decode keys: util/regtool_top.py
RW_ONLY = ("hw_write", "stored_width", "legal")
RO_ONLY = ("const", "param")


def load(path):
    with open(path) as f:
        spec = yaml.safe_load(f)
    for key in ("block", "title", "description", "addr_width", "registers"):
        if key not in spec:
            raise RegmapError(f"{path}: missing top-level key '{key}'")
    words = {}
    for reg in spec["registers"]:
        name = reg.get("name", "?")
        for key in ("name", "offset", "access", "desc", "fields", "attribute"):
            if key not in reg:
                raise RegmapError(f"{path}: register {name}: missing key '{key}'")
        if reg["access"] not in ACCESS:
            raise RegmapError(f"{path}: register {name}: access '{reg['access']}' not one of {list(ACCESS)}")
        reg.setdefault("count", 1)
        reg.setdefault("stride", 4)
        if reg["offset"] % 4 or reg["stride"] % 4:
            raise RegmapError(f"{path}: register {name}: offset and stride must be word aligned")
        for i in range(reg["count"]):
            addr = reg["offset"] + i * reg["stride"]
            if addr >= (1 << spec["addr_width"]):
                raise RegmapError(f"{path}: register {name}[{i}] at 0x{addr:x} beyond addr_width")
            if addr in words:
                raise RegmapError(f"{path}: register {name}[{i}] overlaps {words[addr]} at 0x{addr:x}")
            words[addr] = name
        used = 0
        unknown = set(reg) - REG_KEYS
        if unknown:
            raise RegmapError(f"{path}: register {name}: unknown key(s) {sorted(unknown)}; expected {sorted(REG_KEYS)}")
        for fld in reg["fields"]:
            unknown = set(fld) - FIELD_KEYS
            if unknown:
                raise RegmapError(f"{path}: field {name}.{fld.get('name', '?')}: unknown key(s) {sorted(unknown)}; "
                                  f"expected {sorted(FIELD_KEYS)}")
            for key in ("name", "lsb", "width", "reset", "desc"):
                if key not in fld:
                    raise RegmapError(f"{path}: field {name}.{fld.get('name', '?')}: missing key '{key}'")
            if fld["lsb"] + fld["width"] > 32:
                raise RegmapError(f"{path}: field {name}.{fld['name']} exceeds 32 bits")
            mask = ((1 << fld["width"]) - 1) << fld["lsb"]
            if used & mask:
                raise RegmapError(f"{path}: field {name}.{fld['name']} overlaps another field")
            used |= mask
            if fld["reset"] >= (1 << fld["width"]):
                raise RegmapError(f"{path}: field {name}.{fld['name']} reset does not fit its width")
            fld.setdefault("access", reg["access"])
            where = f"{path}: field {name}.{fld['name']}"
            for key in RW_ONLY:
                if key in fld and fld["access"] != "rw":
                    raise RegmapError(f"{where}: '{key}' is for read-write fields (this one is {fld['access']})")
            for key in RO_ONLY:
                if key in fld and fld["access"] != "ro":
                    raise RegmapError(f"{where}: '{key}' is for read-only fields (this one is {fld['access']})")
            if "const" in fld and "param" in fld:
                raise RegmapError(f"{where}: 'const' and 'param' exclude each other")
            lg = fld.get("legal")
            if lg is not None and lg != "nonzero" and not (isinstance(lg, dict) and set(lg) == {"max"}
                                                          and isinstance(lg["max"], int)):
                raise RegmapError(f"{where}: legal must be 'nonzero' or {{max: N}}, not {lg!r}")
            sw = fld.get("stored_width")
            if sw is not None and not (isinstance(sw, str) or (isinstance(sw, int) and 0 < sw <= fld["width"])):
                raise RegmapError(f"{where}: stored_width must be a parameter name or 1..width")
        if "port_bit" in reg and (reg["count"] < 2 or reg["stride"] != 4 or len(reg["fields"]) != 1
                                  or reg["fields"][0]["width"] != 32):
            raise RegmapError(f"{path}: register {name}: port_bit needs an array of whole 32-bit words (stride 4)")
        if "count_param" in reg and reg["count"] < 2:
            raise RegmapError(f"{path}: register {name}: count_param is for arrays (count = the most elements)")
        if "window" in reg and (reg["access"] != "ro" or reg["count"] < 2):
            raise RegmapError(f"{path}: register {name}: a window is a read-only array")
        if "memory" in reg:
            if reg["memory"] is not True:
                raise RegmapError(f"{path}: register {name}: memory must be true (or absent), not {reg['memory']!r}")
            if reg["access"] != "rw" or reg["count"] < 2 or "port_bit" in reg or "window" in reg:
                raise RegmapError(f"{path}: register {name}: memory is for read-write arrays (no port_bit, no window)")
            if used != 0xFFFFFFFF or any(set(f) & set(RW_ONLY) or f["access"] != "rw" or f["reset"] != 0
                                         for f in reg["fields"]):
                raise RegmapError(f"{path}: register {name}: a memory's fields must be read-write, reset 0, without "
                                  f"{'/'.join(RW_ONLY)}, and cover all 32 bits (its words are written under the strobes)")
    check_windows(path, spec)
    check_layout(path, spec)
    declared = spec.setdefault("parameters", {})
    for p in params_of(spec):
        if p not in declared:
            raise RegmapError(f"{path}: parameter {p} is used by the decode but not declared under 'parameters'")
    return spec


LAYOUT_KEYS = {"name", "value", "desc"}


def check_layout(path, spec):
    """`layout`: constants of the block's storage that the RTL and the tools reading its state
    (RTL in the loop) both need: UPPER_CASE names, non-negative integer values."""
    spec.setdefault("layout", [])
    seen = set()
    for c in spec["layout"]:
        name = c.get("name", "?") if isinstance(c, dict) else "?"
        if not isinstance(c, dict) or set(c) != LAYOUT_KEYS:
            raise RegmapError(f"{path}: layout constant {name}: expected exactly the keys {sorted(LAYOUT_KEYS)}")
        if not re.fullmatch(r"[A-Z][A-Z0-9_]*", str(c["name"])) or c["name"] in seen:
            raise RegmapError(f"{path}: layout constant {name}: the name must be UPPER_CASE and unique")
        if not isinstance(c["value"], int) or isinstance(c["value"], bool) or c["value"] < 0:
            raise RegmapError(f"{path}: layout constant {name}: value must be a non-negative integer, "
                              f"not {c['value']!r}")
        seen.add(c["name"])


def check_windows(path, spec):
    groups = {}
    for reg in spec["registers"]:
        if "window" in reg:
            groups.setdefault(reg["window"], []).append(reg)
    for win, regs in groups.items():
        regs = sorted(regs, key=lambda r: r["offset"])
        stride, count, base = regs[0]["stride"], regs[0]["count"], regs[0]["offset"]
        layout = [(r["stride"], r["count"], r["offset"]) for r in regs]
        if layout != [(stride, count, base + 4 * k) for k in range(stride // 4)]:
            raise RegmapError(f"{path}: window {win}: its registers must share count and stride and fill "
                              f"each element word by word (got {[r['name'] for r in regs]})")


def gen_sv(spec):
    blk = spec["block"]
    aw = spec["addr_width"]
    out = [f"// Generated by util/regtool.py from rtl/regs/{blk}.yaml; do not edit.",
           f"// Register offsets and fields of {spec['title']}.",
           "",
           f"package {blk}_reg_pkg;",
           "",
           "  // The package lists every field of the map; a block uses a subset of them.",
           "  /* verilator lint_off UNUSEDPARAM */",
           f"  localparam int unsigned {blk.upper()}_ADDR_WIDTH = {aw};",
           ""]
    for reg in spec["registers"]:
        base = f"{reg['name']}"
        out.append(f"  // {reg['name']}: {reg['attribute']} ({reg['access']})")
        out.append(f"  localparam logic [{aw - 1}:0] {base}_OFFSET = {aw}'h{reg['offset']:03x};")
        if reg["count"] > 1:
            out.append(f"  localparam int unsigned {base}_COUNT = {reg['count']};")
            out.append(f"  localparam int unsigned {base}_STRIDE = {reg['stride']};")
        for fld in reg["fields"]:
            fb = f"{base}_{fld['name']}"
            out.append(f"  localparam int unsigned {fb}_LSB = {fld['lsb']};")
            out.append(f"  localparam int unsigned {fb}_WIDTH = {fld['width']};")
            out.append(f"  localparam logic [{fld['width'] - 1}:0] {fb}_RESET = {fld['width']}'d{fld['reset']};")
        out.append("")
    if spec["layout"]:
        out.append("  // The block's storage layout (what the tools reading its state need too).")
        for c in spec["layout"]:
            out.append(f"  localparam int unsigned {c['name']} = {c['value']};  // {c['desc']}")
        out.append("")
    out.append("  /* verilator lint_on UNUSEDPARAM */")
    out.append("")
    out.append(f"endpackage : {blk}_reg_pkg")
    return "\n".join(out) + "\n"


def gen_cpp(spec):
    blk = spec["block"]
    out = [f"// Generated by util/regtool.py from rtl/regs/{blk}.yaml; do not edit.",
           f"// Register offsets and fields of {spec['title']}.",
           "#pragma once",
           "",
           "#include <cstdint>",
           "",
           '#include "cc/reg_field.h"',
           "",
           f"namespace ibcc::regs::{blk} {{",
           "",
           f"inline constexpr unsigned kAddrWidth = {spec['addr_width']};",
           ""]
    for reg in spec["registers"]:
        c = camel(reg["name"])
        out.append(f"// {reg['name']}: {reg['attribute']} ({reg['access']})")
        out.append(f"inline constexpr uint32_t k{c}Offset = 0x{reg['offset']:03x};")
        if reg["count"] > 1:
            out.append(f"inline constexpr uint32_t k{c}Count = {reg['count']};")
            out.append(f"inline constexpr uint32_t k{c}Stride = {reg['stride']};")
        for fld in reg["fields"]:
            out.append(f"inline constexpr RegField k{c}{camel(fld['name'])}{{{fld['lsb']}, {fld['width']}, {fld['reset']}u}};")
        out.append("")
    if spec["layout"]:
        out.append("// The block's storage layout (the RTL's package has the same).")
        for c in spec["layout"]:
            out.append(f"inline constexpr uint32_t k{camel(c['name'])} = {c['value']};  // {c['desc']}")
        out.append("")
    out.append(f"}}  // namespace ibcc::regs::{blk}")
    return "\n".join(out) + "\n"


def gen_md(spec):
    blk = spec["block"]
    out = [f"<!-- Generated by util/regtool.py from rtl/regs/{blk}.yaml; do not edit. -->",
           f"# Register map: {spec['title']}",
           "",
           " ".join(spec["description"].split()),
           "",
           f"AXI4-Lite slave, 32-bit data, {spec['addr_width']}-bit byte addresses. Unmapped or",
           "unaligned addresses, writes to read-only registers and illegal values answer SLVERR",
           "(a read answers 0). Arrays: register `[i]` sits at offset + i × stride.",
           "",
           "| offset | register | access | attribute | field | bits | reset | meaning |",
           "|---|---|---|---|---|---|---|---|"]
    for reg in spec["registers"]:
        if reg["count"] == 1:
            name = reg["name"]
        elif reg.get("count_param"):
            name = (f"{reg['name']}[0..{reg['count_param']} - 1] (stride 0x{reg['stride']:x}; "
                    f"{reg['count']} at most)")
        else:
            name = f"{reg['name']}[0..{reg['count'] - 1}] (stride 0x{reg['stride']:x})"
        first = True
        for fld in reg["fields"]:
            hi = fld["lsb"] + fld["width"] - 1
            bits = f"{hi}:{fld['lsb']}" if fld["width"] > 1 else f"{fld['lsb']}"
            row = [f"0x{reg['offset']:03x}" if first else "", name if first else "",
                   reg["access"] if first else "", reg["attribute"] if first else "",
                   fld["name"] + ("" if fld["access"] == reg["access"] else f" ({fld['access']})"),
                   bits, f"0x{fld['reset']:x}", fld["desc"]]
            out.append("| " + " | ".join(str(x) for x in row) + " |")
            first = False
    out.append("")
    out.append("Notes per register:")
    out.append("")
    for reg in spec["registers"]:
        out.append(f"- **{reg['name']}** ({ACCESS[reg['access']]}): {reg['desc']}")
    if spec["layout"]:
        out.append("")
        out.append("Storage layout (constants of the RTL package that tools reading the block's state use too):")
        out.append("")
        out.append("| constant | value | meaning |")
        out.append("|---|---|---|")
        for c in spec["layout"]:
            out.append(f"| `{c['name']}` | {c['value']} | {c['desc']} |")
    return "\n".join(out) + "\n"


def outputs(spec):
    blk = spec["block"]
    return {
        os.path.join(ROOT, "rtl", f"{blk}_reg_pkg.sv"): gen_sv(spec),
        os.path.join(ROOT, "sc_models", "cc", f"{blk}_regs.h"): gen_cpp(spec),
        os.path.join(ROOT, "rtl", f"{blk}_reg_top.sv"): gen_sv_top(spec),
        os.path.join(ROOT, "sc_models", "cc", f"{blk}_regfile.h"): gen_cpp_top(spec),
        os.path.join(ROOT, "docs", f"regmap_{blk}.md"): gen_md(spec),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="compare instead of writing; exit 1 if stale")
    ap.add_argument("yaml", nargs="+")
    args = ap.parse_args()
    stale = []
    try:
        for path in args.yaml:
            for out, text in outputs(load(path)).items():
                if args.check:
                    current = open(out).read() if os.path.exists(out) else None
                    if current != text:
                        stale.append(out)
                else:
                    with open(out, "w") as f:
                        f.write(text)
    except RegmapError as e:
        print(f"regtool: error: {e}", file=sys.stderr)
        return 2
    for s in stale:
        print(f"regtool: stale generated file {os.path.relpath(s, ROOT)}; run util/regtool.py rtl/regs/*.yaml", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
