#!/usr/bin/env python3
"""The register-map validator refuses what the generated decode cannot implement.

Each case edits one register of rtl/regs/ccti_block.yaml (loaded afresh) and expects
regtool.load to raise RegmapError naming the register and the rule; the unedited map must
load. Usage: test_regtool.py (exit 0 when every case behaves).
"""
import copy
import os
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "util"))
sys.path.insert(0, os.path.join(ROOT, "verif", "lib"))
import regtool  # noqa: E402
from checks import Checks  # noqa: E402

BASE = yaml.safe_load(open(os.path.join(ROOT, "rtl", "regs", "ccti_block.yaml")))


def reg(spec, name):
    return next(r for r in spec["registers"] if r["name"] == name)


def edit_memory_true_string(s):
    reg(s, "CCT_ENTRY_PAIR")["memory"] = "yes"


def edit_memory_on_ro(s):
    reg(s, "LOG_EVENT_MAP")["memory"] = True


def edit_memory_on_scalar(s):
    reg(s, "CCT_LIMIT")["memory"] = True


def edit_memory_partial_word(s):
    r = reg(s, "CCT_ENTRY_PAIR")
    r["fields"] = [f for f in r["fields"] if f["name"] != "ENTRY_ODD"]


def edit_memory_nonzero_reset(s):
    reg(s, "CCT_ENTRY_PAIR")["fields"][0]["reset"] = 1


def edit_memory_legal(s):
    reg(s, "CCT_ENTRY_PAIR")["fields"][0]["legal"] = "nonzero"


def edit_unknown_key(s):
    reg(s, "CCT_LIMIT")["storage"] = "ram"


def layout(s, name):
    return next(c for c in s["layout"] if c["name"] == name)


def edit_layout_negative(s):
    layout(s, "FLOW_STAMP_WIDTH")["value"] = -1


def edit_layout_lower_case(s):
    layout(s, "WRITTEN_GROUP_BITS")["name"] = "group_bits"


def edit_layout_duplicate(s):
    s["layout"].append(dict(layout(s, "FLOW_SL_WIDTH")))


def edit_layout_no_desc(s):
    del layout(s, "WRITTEN_FLOP_QPS")["desc"]


CASES = [
    # (edit, words the error must contain)
    (edit_memory_true_string, ["CCT_ENTRY_PAIR", "memory must be true"]),
    (edit_memory_on_ro, ["LOG_EVENT_MAP", "read-write arrays"]),
    (edit_memory_on_scalar, ["CCT_LIMIT", "read-write arrays"]),
    (edit_memory_partial_word, ["CCT_ENTRY_PAIR", "cover all 32 bits"]),
    (edit_memory_nonzero_reset, ["CCT_ENTRY_PAIR", "reset 0"]),
    (edit_memory_legal, ["CCT_ENTRY_PAIR", "without"]),
    (edit_unknown_key, ["CCT_LIMIT", "unknown key", "storage"]),
    (edit_layout_negative, ["FLOW_STAMP_WIDTH", "non-negative integer"]),
    (edit_layout_lower_case, ["group_bits", "UPPER_CASE"]),
    (edit_layout_duplicate, ["FLOW_SL_WIDTH", "unique"]),
    (edit_layout_no_desc, ["WRITTEN_FLOP_QPS", "keys"]),
]


def load_edited(edit):
    spec = copy.deepcopy(BASE)
    if edit:
        edit(spec)
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        yaml.safe_dump(spec, f, sort_keys=False)
        path = f.name
    try:
        return regtool.load(path), path
    finally:
        os.unlink(path)


def main():
    checks = Checks()
    spec, _ = load_edited(None)
    checks.check(bool(reg(spec, "CCT_ENTRY_PAIR").get("memory")), "the shipped map declares CCT_ENTRY_PAIR a memory")
    checks.check(layout(spec, "WRITTEN_GROUP_BITS")["value"] == 5, "the shipped map's layout: groups of 32 written bits")
    for edit, words in CASES:
        try:
            load_edited(edit)
            checks.check(False, f"{edit.__name__}: accepted")
        except regtool.RegmapError as e:
            missing = [w for w in words if w not in str(e)]
            checks.check(not missing, f"{edit.__name__}: {e}" + (f" (the error lacks {missing})" if missing else ""))
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
