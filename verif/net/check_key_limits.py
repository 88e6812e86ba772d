#!/usr/bin/env python3
"""Walks every numeric scenario key's documented limits through the reader and the model.

The limits come from the JSON Schema that `ibcc keys --json-schema` generates from the key
table (docs/configuration.md shows the same table). For each integer or number key, on
tests/scenarios/base.yaml (with a list entry added where the key lives in a list it lacks):

  - one below the minimum and one above the maximum: `ibcc describe` exits 2 naming the key
    and saying "out of range";
  - the minimum and the maximum: `ibcc run` for 20 us exits 0 (reader, fabric build, CC cores
    and invariants all accept it), or exits 2 for a constraint between keys that the message
    names (never "out of range", never a crash or exit 1).

  check_key_limits.py IBCC SOURCE_DIR OUT_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402

# Where a key lives in a list the base scenario does not have (or in a shape it does not use):
# the overrides that create it first.
PRELUDES = {
    "cc.ports[0]": ["cc.ports=[{port: S1/1}]"],
    "cc.nvidia.vl_profiles[0]": ["fabric.vls=15", "cc.nvidia.vl_profiles=[{vl: 0}]"],
    "cc.ca.per_sl[0]": ["cc.ca.per_sl=[{sl: 0}]"],
    "traffic.patterns[0]": ["traffic.patterns=[{type: uniform, sources: 2, stop: 10us}]"],
    "traffic.patterns[0].hot_share": ["traffic.patterns=[{type: hotspot, hotspots: 1, sources: 2, stop: 10us}]"],
    "cc.ca.cct.linear": ["cc.ca.cct={linear: {}}", "cc.ca.ccti_limit=null"],
    "cc.ca.cct.quadratic": ["cc.ca.cct={quadratic: {}}", "cc.ca.ccti_limit=null"],
    "topology.hcas[0]": ["topology.hcas[0]={name: H1}"],
    "topology.switches[0]": [],
    "fabric.switch.vl_arbitration": ["fabric.switch.vl_arbitration={low: [[0, 1]]}"],
}
GENERATORS = {
    ("leaves", "spines", "switch_ports"): "clos3",
    ("radix", "levels", "pods"): "fattree",
    ("k", "n"): "kary_ntree",
    ("x", "y", "hcas_per_switch"): "mesh",
}


def numeric_keys(schema, path=""):
    """(path, type, lo, hi) of every integer/number key reachable from `schema`."""
    out = []
    if "anyOf" in schema:
        for alt in schema["anyOf"]:
            out += [k for k in numeric_keys(alt, path) if k not in out]
        return out
    t = schema.get("type")
    if t in ("integer", "number") and "minimum" in schema and "maximum" in schema and path:
        out.append((path, t, schema["minimum"], schema["maximum"]))
    elif t == "object":
        for k, sub in schema.get("properties", {}).items():
            out += numeric_keys(sub, f"{path}.{k}" if path else k)
    elif t == "array" and "items" in schema and path not in ("fabric.sl_to_vl", "cc.switch.victim_mask"):
        out += numeric_keys(schema["items"], path + "[0]")
    return out


def preludes(path):
    sets = []
    for prefix, pre in PRELUDES.items():
        if path.startswith(prefix):
            sets += pre
    if path.startswith("topology.generate."):
        key = path.rsplit(".", 1)[1]
        family = next(f for keys, f in GENERATORS.items() if key in keys)
        sets.append(f"topology={{generate: {{family: {family}}}, switches: null, hcas: null, links: null}}")
    if path.startswith("topology.links[0]"):
        sets.append("topology.links[0]={a: H1, b: S1/1}")
    return sets


def main():
    ibcc, root, out = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    base = root / "tests" / "scenarios" / "base.yaml"
    schema = json.loads(subprocess.run([ibcc, "keys", "--json-schema"], check=True, capture_output=True, text=True).stdout)
    keys = numeric_keys(schema)
    failures = walked = 0
    for path, typ, lo, hi in keys:
        pre = preludes(path)
        doc_path = path.replace("[0]", "[]")
        step = 1 if typ == "integer" else 0.001

        def run(value, describe):
            sets = [*pre, f"{path}={value}"]
            args = [ibcc, "describe", str(base)] if describe else \
                [ibcc, "run", str(base), "--out", str(out / "run"), "--force", "--quiet", "--sim-time", "20us"]
            for s in sets:
                args += ["--set", s]
            return subprocess.run(args, capture_output=True, text=True, timeout=300)

        walked += 1
        for bad in ([lo - step] if lo > 0 else []) + ([hi + step] if hi < 2**64 - 1 else []):
            r = run(bad, describe=True)
            ok = r.returncode == 2 and "out of range" in r.stderr and doc_path.split("[]")[-1].lstrip(".") in r.stderr
            if not ok:
                failures += 1
                print(f"FAIL {path}={bad} (outside {lo}..{hi}): exit {r.returncode}: {r.stderr.strip()[:300]}")
        for good in (lo, hi):
            r = run(good, describe=False)
            if r.returncode == 0:
                continue
            if r.returncode == 2 and "out of range" not in r.stderr:
                print(f"note: {path}={good} is refused by a constraint between keys: {r.stderr.strip()[:200]}")
                continue
            failures += 1
            print(f"FAIL {path}={good} (a limit) exit {r.returncode}: {r.stderr.strip()[:300]}")
    checks = Checks()
    checks.check(not failures, f"{walked} numeric keys walked at and beyond their limits, {failures} failures")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
