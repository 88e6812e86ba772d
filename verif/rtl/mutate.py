#!/usr/bin/env python3
"""Write a mutant copy of the RTL (verif/rtl/mutations.yaml).

  mutate.py --list             print "NAME BLOCK" per mutation
  mutate.py NAME OUT_DIR       copy rtl/*.sv to OUT_DIR with mutation NAME applied
"""
import glob
import os
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def mutations(path=os.path.join(ROOT, "verif", "rtl", "mutations.yaml")):
    with open(path) as f:
        return yaml.safe_load(f)


def apply(m, text):
    """`text` (the content of m["file"]) with mutation m applied; ValueError unless its `from`
    occurs exactly once."""
    count = text.count(m["from"])
    if count != 1:
        raise ValueError(f"{m['name']}: '{m['from']}' occurs {count} times in {m['file']}, expected "
                         f"once (the RTL changed: update the mutation list)")
    return text.replace(m["from"], m["to"])


def main():
    if sys.argv[1:] == ["--list"]:
        for m in mutations():
            print(m["name"], m["block"])
        return 0
    name, out = sys.argv[1:3]
    matches = [m for m in mutations() if m["name"] == name]
    if len(matches) != 1:
        print(f"mutate.py: no mutation named {name}", file=sys.stderr)
        return 2
    m = matches[0]
    os.makedirs(out, exist_ok=True)
    for src in glob.glob(os.path.join(ROOT, "rtl", "*.sv")):
        text = open(src).read()
        if os.path.basename(src) == os.path.basename(m["file"]):
            try:
                text = apply(m, text)
            except ValueError as e:
                print(f"mutate.py: {e}", file=sys.stderr)
                return 1
        dst = os.path.join(out, os.path.basename(src))
        # Write only on change, so an unchanged mutant is not Verilated again.
        if not os.path.exists(dst) or open(dst).read() != text:
            with open(dst, "w") as f:
                f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
