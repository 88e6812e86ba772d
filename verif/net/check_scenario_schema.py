#!/usr/bin/env python3
"""The JSON Schema generated from the key table (docs/scenario.schema.json) agrees with the reader.

Every shipped scenario, and the resolved form `ibcc describe` prints of each, is valid under the
schema; and the schema rejects what the reader rejects for a sample of broken variants (an
unknown key, a value out of range, a wrong choice, a missing required key), so this test can fail.

  check_scenario_schema.py IBCC SOURCE_DIR
"""
import copy
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks, under_sanitizers_skip  # noqa: E402


def plain(node):
    """YAML as JSON sees it: map keys become strings (an LFT's `5: 2`)."""
    if isinstance(node, dict):
        return {str(k): plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [plain(v) for v in node]
    return node


def main():
    ibcc, root = sys.argv[1], Path(sys.argv[2])
    schema = yaml.safe_load((root / "docs" / "scenario.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    checks = Checks()
    scenarios = sorted(p for p in (root / "topologies").rglob("*.yaml") if not under_sanitizers_skip(p))
    for path in scenarios:
        docs = {"file": plain(yaml.safe_load(path.read_text()))}
        described = subprocess.run([ibcc, "describe", str(path)], capture_output=True, text=True)
        if described.returncode != 0:
            checks.check(False, f"ibcc describe {path}: exit {described.returncode}: {described.stderr.strip()}")
            continue
        docs["resolved"] = plain(yaml.safe_load(described.stdout))
        for what, doc in docs.items():
            errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
            for e in errors[:3]:
                where = ".".join(str(p) for p in e.absolute_path)
                checks.check(False, f"{path} ({what}): {where}: {e.message[:200]}")
    print(f"{len(scenarios)} shipped scenarios and their resolved forms checked against the schema")

    # Broken variants of one scenario: the reader rejects each (exit 2), and so must the schema.
    base_path = root / "topologies" / "seed-testbed" / "scenario1.yaml"
    base = plain(yaml.safe_load(base_path.read_text()))
    variants = {
        "unknown key cc.switch.treshold": ("cc.switch.treshold=3", lambda d: d["cc"]["switch"].update(treshold=3)),
        "cc.switch.threshold 16": ("cc.switch.threshold=16", lambda d: d["cc"]["switch"].update(threshold=16)),
        "cc.switch.mapping bogus": ("cc.switch.mapping=bogus", lambda d: d["cc"]["switch"].update(mapping="bogus")),
        "sim.time without unit": ("sim.time=5", lambda d: d["sim"].update(time="5")),
        "fabric.vls 1": ("fabric.vls=1", lambda d: d.setdefault("fabric", {}).update(vls=1)),
        "traffic.flows[0] without src": (None, lambda d: d["traffic"]["flows"][0].pop("src")),
    }
    for name, (override, mutate) in variants.items():
        doc = copy.deepcopy(base)
        mutate(doc)
        schema_rejects = not validator.is_valid(doc)
        reader_rc = None
        if override:
            reader_rc = subprocess.run([ibcc, "describe", str(base_path), "--set", override],
                                       capture_output=True, text=True).returncode
        ok = schema_rejects and reader_rc in (None, 2)
        checks.check(ok, f"{name}: schema {'rejects' if schema_rejects else 'ACCEPTS'}"
              + (f", reader exit {reader_rc}" if override else ""))
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
