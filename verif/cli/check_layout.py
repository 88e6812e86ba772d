#!/usr/bin/env python3
"""The two layout tables (README.md "## Layout", docs/architecture.md "## Source layout") are
complete and true: each names every top-level folder of the source that git tracks, every
folder of sc_models/, sc_models/net/ and verif/, and every path a table names exists.

A row's path covers a folder when it is that folder or lies inside it (`util/regtool.py`
covers util/). Usage: check_layout.py SOURCE_DIR   (exit 0: both complete, 1: what is missing)
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402

TABLES = (("README.md", "## Layout"), ("docs/architecture.md", "## Source layout"))


def folders(src):
    """The folders a layout table must name."""
    files = subprocess.run(["git", "-C", src, "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    need = {f.split("/")[0] + "/" for f in files if "/" in f and not f.startswith(".")}
    for base in ("sc_models", "sc_models/net", "verif"):
        need |= {f"{base}/{d}/" for d in os.listdir(os.path.join(src, base))
                 if os.path.isdir(os.path.join(src, base, d)) and not d.startswith(("_", "."))}
    return need


def table_paths(src, doc, heading):
    text = open(os.path.join(src, doc), encoding="utf-8").read()
    if heading + "\n" not in text:
        sys.exit(f"{doc}: no '{heading}' section")
    section = text.split(heading + "\n", 1)[1].split("\n## ", 1)[0]
    return [m.group(1) for m in re.finditer(r"^\| `([^`]+)` \|", section, re.M)]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    src, checks = sys.argv[1], Checks()
    need = folders(src)
    for doc, heading in TABLES:
        paths = table_paths(src, doc, heading)
        absent = [p for p in paths if not os.path.exists(os.path.join(src, p))]
        for p in absent:
            checks.check(False, f"{doc}: the layout names {p}, which does not exist")
        # a folder is covered by a row for it or for something inside it
        missing = sorted(d for d in need if not any(p.startswith(d) for p in paths))
        for d in missing:
            checks.check(False, f"{doc}: the layout table does not name {d}")
        checks.check(not absent and not missing, f"{doc}: {len(paths)} rows cover {len(need) - len(missing)} of "
                     f"{len(need)} folders")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
