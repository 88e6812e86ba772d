#!/usr/bin/env python3
"""The CC attribute layouts of rtl/regs/*.yaml checked against libibmad (rdma-core), the
field table ibccquery/ibccconfig use: an outside reference for the register maps.

Every field of a register map that names its libibmad field(s) (`ibmad:`) is compared:
libibmad encodes an all-ones value into a zeroed buffer (mad_encode_field, in a small C
program this script writes, compiles against -libmad and runs), the set bits give the
field's offset and width in the attribute, MSB first; ours come from the register's
`attribute` text ("word K", "words A-B", "entry s, word K", "event e, word K", "element of
this port": word 0 of the element) and the field's lsb and width. Offsets of entries,
events and elements are relative to the entry, as libibmad's are; a register of "entries
2k and 2k+1" holds one entry per field, each starting at its field's MSB.

`ibmad: NAME` maps the whole field (a field that spans a register array, such as a 256-bit
mask over "words 1-8", is compared whole); `ibmad: {NAME: [hi, lo]}` maps bits hi..lo of
the field. `ibmad_differs: {NAME: {libibmad: [hi, lo], ours: [hi, lo], why: ...}}` records
a deliberate difference: the check confirms libibmad still places NAME at [hi, lo] (so a
fixed libibmad is noticed) and prints the reason.

Usage: check_ibmad_layout.py REGMAP.yaml... ; exit 0 all agree, 1 a disagreement, 2 bad
input or no libibmad.
"""
import os
import re
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402

MAD_H = "/usr/include/infiniband/mad.h"


def fail_input(msg):
    print(f"check_ibmad_layout: error: {msg}", file=sys.stderr)
    sys.exit(2)


def attribute_word(path, reg):
    """(word of the register's first instance in its attribute or entry, entries-per-field)."""
    text = reg["attribute"]
    m = re.search(r"\bwords (\d+)-(\d+)", text)
    if m:
        return int(m.group(1)), False
    m = re.search(r"\bword (\d+)", text)
    if m:
        return int(m.group(1)), False
    if re.search(r"\bentries \w+ and \w+", text):
        return 0, True
    if "element of this port" in text or re.search(r"\(0x[0-9a-fA-F]+\)$", text):
        return 0, False
    fail_input(f"{path}: register {reg['name']}: cannot tell the attribute word from '{text}'")


def mappings(path):
    """[(what, ibmad name, our offset, our width, expected libibmad (offset, width) or None, why)]."""
    with open(path) as f:
        spec = yaml.safe_load(f)
    out = []
    for reg in spec["registers"]:
        for fld in reg["fields"]:
            if "ibmad" not in fld and "ibmad_differs" not in fld:
                continue
            word, per_entry = attribute_word(path, reg)
            count = reg.get("count", 1)
            spans = bool(re.search(r"\bwords (\d+)-(\d+)", reg["attribute"]))
            what = f"{os.path.basename(path)} {reg['name']}.{fld['name']}"
            msb = fld["lsb"] + fld["width"] - 1
            base = (31 - msb) if per_entry else 0

            def at(hi, lo):
                if not (0 <= lo <= hi < fld["width"]):
                    fail_input(f"{path}: {reg['name']}.{fld['name']}: bits [{hi}, {lo}] outside the field's {fld['width']}")
                return 32 * word + 31 - (fld["lsb"] + hi) - base, hi - lo + 1

            m = fld.get("ibmad")
            if isinstance(m, str):
                width = fld["width"] * (count if spans else 1)
                out.append((what, m, 32 * word + 31 - msb - base, width, None, None))
            elif isinstance(m, dict):
                for name, rng in m.items():
                    off, w = at(*rng)
                    out.append((f"{what}[{rng[0]}:{rng[1]}]", name, off, w, None, None))
            elif m is not None:
                fail_input(f"{path}: {reg['name']}.{fld['name']}: ibmad must be a name or a map of names to [hi, lo]")
            for name, d in (fld.get("ibmad_differs") or {}).items():
                if not isinstance(d, dict) or set(d) != {"libibmad", "ours", "why"}:
                    fail_input(f"{path}: {reg['name']}.{fld['name']}: ibmad_differs.{name} needs libibmad, ours and why")
                off, w = at(*d["ours"])
                out.append((f"{what}[{d['ours'][0]}:{d['ours'][1]}]", name, off, w, at(*d["libibmad"]), d["why"]))
    return out


def libibmad_layout(names):
    if not os.path.exists(MAD_H):
        fail_input(f"{MAD_H} not found: install libibmad-dev (scripts/bootstrap.sh does)")
    known = set(re.findall(r"\b(IB_CC_\w+_F)\b", open(MAD_H).read()))
    for n in names:
        if n not in known:
            fail_input(f"'{n}' is not a libibmad CC field (enum MAD_FIELDS in {MAD_H})")
    table = "".join(f'  {{"{n}", {n}}},\n' for n in sorted(names))
    src = f"""#include <infiniband/mad.h>
#include <stdio.h>
#include <string.h>
struct f {{ const char* name; enum MAD_FIELDS id; }};
static const struct f fields[] = {{
{table}}};
int main(void) {{
  unsigned char ones[64];
  memset(ones, 0xff, sizeof ones);
  for (unsigned i = 0; i < sizeof fields / sizeof fields[0]; ++i) {{
    unsigned char buf[256];
    memset(buf, 0, sizeof buf);
    mad_encode_field(buf, fields[i].id, ones);
    int first = -1, last = -1, n = 0;
    for (int b = 0; b < (int)sizeof buf * 8; ++b) {{
      if (buf[b / 8] & (0x80 >> (b % 8))) {{
        if (first < 0) first = b;
        last = b;
        ++n;
      }}
    }}
    printf("%s %d %d %d\\n", fields[i].name, first, n, last - first + 1);
  }}
  return 0;
}}
"""
    with tempfile.TemporaryDirectory() as tmp:
        c = os.path.join(tmp, "layout.c")
        exe = os.path.join(tmp, "layout")
        with open(c, "w") as f:
            f.write(src)
        r = subprocess.run(["cc", c, "-o", exe, "-libmad"], capture_output=True, text=True)
        if r.returncode:
            fail_input(f"cannot build the libibmad probe:\n{r.stderr}")
        r = subprocess.run([exe], capture_output=True, text=True, check=True)
    layout = {}
    for line in r.stdout.splitlines():
        name, first, n, span = line.split()
        if int(n) != int(span):
            fail_input(f"libibmad encodes {name} in non-contiguous bits")
        layout[name] = (int(first), int(n))
    return layout


def main():
    if len(sys.argv) < 2:
        fail_input("usage: check_ibmad_layout.py REGMAP.yaml...")
    rows = []
    for path in sys.argv[1:]:
        rows += mappings(path)
    layout = libibmad_layout({r[1] for r in rows})
    checks = Checks()
    for what, name, off, width, expect, why in rows:
        theirs = layout[name]
        if expect is None:
            checks.check(theirs == (off, width), f"{what}: ours at bit {off}, {width} bits; libibmad {name} at bit "
                         f"{theirs[0]}, {theirs[1]} bits")
        elif theirs != expect:
            checks.check(False, f"{what}: the recorded difference no longer holds: libibmad {name} is at bit "
                         f"{theirs[0]}, {theirs[1]} bits, not {expect[0]}, {expect[1]} (ours: {off}, {width}); "
                         "update ibmad_differs")
        else:
            checks.compare(False, f"{what} vs {name} (recorded): {why}")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
