#!/usr/bin/env python3
"""Fails when the scenario reader accepts a key that docs/configuration.md does not describe.

The reader declares every map's keys in one place (Reader::expect_map calls in
sc_models/net/scenario_yaml.cpp); each declared key must appear in the reference as its full
dotted path (`fabric.switch.latency`), as a backticked key (`width`, for keys shared by
several maps), or on the row of its parent map.

  check_config_reference.py SOURCE_DIR
"""
import re
import sys
from pathlib import Path


def declared_keys(src):
    text = src.read_text()
    keys = []
    # expect_map(node, "path", {"a", "b", ...}) and the named lists of keys passed to it.
    named = {m.group(1): re.findall(r'"([^"]+)"', m.group(2))
             for m in re.finditer(r"(?:constexpr )?std::initializer_list<const char\*> (\w+) = \{([^}]*)\}", text)}
    for m in re.finditer(r'expect_map\(\s*[^,]+,\s*"([^"]*)",\s*(\{[^}]*\}|\w+)\)', text, re.S):
        path, body = m.group(1), m.group(2)
        names = re.findall(r'"([^"]+)"', body) if body.startswith("{") else named.get(body, [])
        if not names:
            sys.exit(f"cannot read the keys of expect_map(..., \"{path}\", {body})")
        keys += [(path, k) for k in names]
    return keys


def main():
    root = Path(sys.argv[1])
    doc = (root / "docs" / "configuration.md").read_text()
    lines = doc.splitlines()
    missing = []
    keys = declared_keys(root / "sc_models" / "net" / "scenario_yaml.cpp")
    for path, key in keys:
        full = f"{path}.{key}" if path else key
        parent_rows = [ln for ln in lines if path and f"`{path}" in ln]
        if full in doc or f"`{key}`" in doc or any(key in ln for ln in parent_rows):
            continue
        missing.append(full)
    for m in missing:
        print(f"FAIL: docs/configuration.md does not describe the scenario key {m}")
    print(f"RESULT: {'FAIL' if missing else 'PASS'} ({len(keys) - len(missing)}/{len(keys)} keys described)")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
