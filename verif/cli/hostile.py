#!/usr/bin/env python3
"""The hostile-input suite: generated cases that attack every input of `ibcc` and check that
each is answered as docs/configuration.md promises.

Outcome classes (what a case expects):
  ok           exit 0
  bad          exit 2, one "error:" line that names what was wrong (the key, the option, the
               file and line)
  fail         exit 1 with a message naming what failed (a path that cannot be written)
  interrupted  exit 130 with the results so far kept (result "interrupted" in summary.json)
Every case also checks what no answer may do: die of a signal, print a traceback or
"terminate called", hang past its time limit, or exit non-zero without saying why.

Cases: every scenario key at and beyond its range and of the wrong type (from `ibcc keys
--json-schema`), on the command line (--set) and in a file (file:line: key); YAML structure
attacks (aliases, bombs, nesting, encodings, sizes); both importers; the options of every
command; sweep grids; failed writes (/dev/full, a read-only directory, a full tmpfs the test
mounts when it runs as root); signals at set-up and mid-run; kill -9 of run, sweep and tune
leaving nothing running.

Usage: hostile.py IBCC SOURCE_DIR OUT_DIR [--jobs N] [--only SUBSTRING]
Prints the count per class and per group; exit 1 if any case failed (each listed with its
command and why).
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402

BASE = "topologies/seed-testbed/scenario1.yaml"
SMALL = """name: small
sim: {time: 100us, log_interval: 10us}
topology:
  switches: [{name: S1, ports: 4}]
  hcas: [H1, H2, H3]
  links: [{a: H1, b: S1/1}, {a: H2, b: S1/2}, {a: H3, b: S1/3}]
traffic:
  flows:
    - {name: F1, src: H1, dst: H3}
    - {name: F2, src: H2, dst: H3}
"""


@dataclass
class Case:
    group: str
    name: str
    argv: list               # after the ibcc executable
    expect: str              # ok | bad | fail | interrupted
    names: list = field(default_factory=list)  # text the message (stderr) must hold
    files: dict = field(default_factory=dict)  # relative path -> bytes, written into the case's dir
    timeout: float = 30
    stdout: str = None       # a path to send the standard output to (/dev/full)
    signal_after: tuple = None  # (seconds, signal) sent to the process
    check: object = None     # f(case_dir, proc) -> error text or None: an extra check
    setup: object = None     # f(case_dir) -> None: before the command


def quantity_values(q):
    """Values of a quantity key: (text, expect) pairs beyond and at its edges."""
    unit = {"time": "us", "rate": "Gb/s", "size": "KB", "frequency": "MHz"}[q]
    return [(f"-1{unit}", "bad"), (f"nan{unit}", "bad"), (f"inf{unit}", "bad"), (f"1e300{unit}", "bad"),
            ("12", "bad" if q != "size" else None), (f"1{unit}x", "bad"), ("1 parsec", "bad")]


def key_cases(schema):
    """(key, value text, expect) for every leaf key of the schema."""
    def leaves(node, path):
        if "properties" in node:
            for k, v in node["properties"].items():
                yield from leaves(v, path + [k])
        else:
            yield ".".join(path), node

    out = []
    for key, node in leaves(schema, []):
        if key in ("name", "description"):
            out += [(key, '"a\\u0001b"', "bad"), (key, '"caf\\u00e9"', "ok"), (key, "[1, 2]", "bad"), (key, "{a: 1}", "bad")]
            continue
        alts = node.get("anyOf", [node])
        ints = [a for a in alts if a.get("type") == "integer"]
        nums = [a for a in alts if a.get("type") == "number"]
        quants = [a for a in alts if "x-quantity" in a]
        enums = [a for a in alts if "enum" in a]
        values = []
        for a in ints + nums:
            lo, hi = a.get("minimum"), a.get("maximum")
            if lo is not None:
                values += [(str(lo), None), (str(lo - 1) if a in ints else str(lo - 0.5), "bad")]
            if hi is not None:
                values += [(str(hi), None), (str(hi + 1) if a in ints else str(hi * 2 + 1), "bad")]
            values += [("1e400", "bad"), ("-1e400", "bad"), (".nan", "bad"), ("0x", "bad"), ("1.5" if a in ints else "1/2", "bad")]
        for a in quants:
            values += quantity_values(a["x-quantity"])
        for a in enums:
            values += [(str(e), None) for e in a["enum"][:3]] + [("no_such_choice", "bad"), ("True", "bad")]
        if node.get("type") == "array":
            values += [("{a: 1}", "bad"), ("[[[]]]", "bad"), ("[no_such_thing]", "bad")]
        elif any(a.get("type") == "array" for a in alts):
            values += [("{a: 1}", "bad")]
        else:
            values += [("[1, 2]", "bad"), ("{a: 1}", "bad")]
        seen = set()
        for v, e in values:
            if v not in seen:
                seen.add(v)
                out.append((key, v, e))
    return out


class Regimes:
    """The --set a key needs to be read at all: found from ibcc's own answer to the key set
    alone ("read only with X: a|b"), so a case tests the value, not the regime check."""

    def __init__(self, ibcc, src):
        self.ibcc, self.src, self.cache = ibcc, src, {}

    # Keys that need more than their regime to be read: the other half of a pair, a lossy
    # fabric for output or shared buffers, up*/down* routing for adaptive routing.
    EXTRA = {"fabric.hca.sink_hiccup.period": ["fabric.hca.sink_hiccup.duration=1us"],
             "fabric.hca.sink_hiccup.duration": ["fabric.hca.sink_hiccup.period=100us"],
             "fabric.switch.output_buffer": ["fabric.flow_control=none"],
             "fabric.ar_bound": ["fabric.routing=updown"],
             "fabric.switch.shared_buffer": ["fabric.flow_control=none"]}

    def context(self, key, sample):
        if key in self.cache:
            return self.cache[key]
        sets = list(self.EXTRA.get(key, []))
        for _ in range(4):
            cmd = [self.ibcc, "describe", BASE] + sum((["--set", s] for s in sets), []) + ["--set", f"{key}={sample}"]
            p = subprocess.run(cmd, cwd=self.src, capture_output=True, text=True, timeout=30)
            m = re.search(r"read only with ([\w.]+): ([\w]+)", p.stderr)
            if p.returncode != 2 or not m or f"{m.group(1)}={m.group(2)}" in sets:
                break
            sets.append(f"{m.group(1)}={m.group(2)}")
        self.cache[key] = sets
        return sets


def generate(ibcc, src, work, schema):
    cases = []
    regimes = Regimes(ibcc, src)
    small = SMALL.encode()
    # 1. Every key at and beyond its range and of the wrong type: on the command line...
    kc = key_cases(schema)
    samples = {}
    for key, v, e in kc:
        samples.setdefault(key, v)
    for key, v, e in kc:
        ctx = regimes.context(key, samples[key] if key not in ("name", "description") else "x")
        argv = ["describe", BASE] + sum((["--set", s] for s in ctx), []) + ["--set", f"{key}={v}"]
        expect = e or "ok-or-bad"
        # (a list of unknown names is named by where they are used: the links, the routes)
        names = [key] if expect == "bad" and v != "[no_such_thing]" else []
        cases.append(Case("key --set", f"{key}={v}", argv, expect, names))
    # ... and in a file, where the error names file, line and key.
    for key, v, e in kc:
        if e != "bad" or key in ("name", "description") or "[]" in key:
            continue
        ctx = regimes.context(key, samples[key])
        parts = key.split(".")
        fname = f"k_{re.sub(r'[^A-Za-z0-9]+', '_', key)}_{len(cases)}.yaml"
        ytext = merge_yaml(BASE_TEXT[0], parts, v)
        if ytext is None:
            continue
        argv = ["describe", fname] + sum((["--set", s] for s in ctx), [])
        cases.append(Case("key in file", f"{key}: {v}", argv, "bad", [fname + ":", key], files={fname: ytext.encode()}))
    # 2. YAML structure attacks.
    y = []
    y.append(("alias cycle", b"description: &r [*r]\n", "bad", ["cycle"]))
    y.append(("alias cycle in map", b"sim: &s {time: *s}\n", "bad", ["cycle"]))
    for levels in (3, 5, 7, 9):
        lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
        for i in range(1, levels):
            lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
        bomb = ("\n".join(lines) + "\n").encode()
        y.append((f"alias bomb {levels} levels", bomb, "bad", ["alias"] if levels >= 7 else []))
        y.append((f"alias bomb {levels} levels under an unknown key", b"foo:\n" + b"\n".join(b"  " + l.encode() for l in lines) + b"\n" + small, "bad", []))
    for depth in (50, 1000, 100000):
        y.append((f"nesting {depth} deep (flow)", b"description: " + b"[" * depth + b"]" * depth + b"\n" + small, "bad", []))
        y.append((f"nesting {depth} deep (maps)", b"description: " + b"{a: " * depth + b"1" + b"}" * depth + b"\n" + small, "bad", []))
    y.append(("latin-1 name", b"name: caf\xe9\n" + small.split(b"\n", 1)[1], "bad", ["UTF-8"]))
    y.append(("latin-1 in a comment", b"# caf\xe9\n" + small, "bad", ["UTF-8"]))
    y.append(("overlong UTF-8", b"name: \xc0\xaf\n" + small.split(b"\n", 1)[1], "bad", ["UTF-8"]))
    y.append(("UTF-16 surrogate in UTF-8", b"name: \xed\xa0\x80\n" + small.split(b"\n", 1)[1], "bad", ["UTF-8"]))
    y.append(("truncated UTF-8", small + b"# \xe2\x82", "bad", ["UTF-8"]))
    y.append(("NUL byte", b"name: a\x00b\n" + small.split(b"\n", 1)[1], "bad", ["control character"]))
    y.append(("escape byte", b"name: a\x1bb\n" + small.split(b"\n", 1)[1], "bad", ["control character"]))
    y.append(("C1 control", b"name: a\xc2\x85b\xc2\x9b\n" + small.split(b"\n", 1)[1], "bad", ["control character"]))
    y.append(("newline escaped in a name", b'name: "a\\nb"\n' + small.split(b"\n", 1)[1], "ok", []))
    y.append(("flow name with a comma", small.replace(b"name: F1", b'name: "F1,evil"'), "bad", ["F1,evil"]))
    y.append(("flow name with a newline", small.replace(b"name: F1", b'name: "F1\\nevil"'), "bad", ["control character"]))
    y.append(("flow name with a quote", small.replace(b"name: F1", b"name: 'F1\"x'"), "bad", ["name"]))
    y.append(("switch name with a slash", small.replace(b"{name: S1,", b'{name: "S/1",'), "bad", ["'/'"]))
    y.append(("UTF-8 BOM", b"\xef\xbb\xbf" + small, "ok", []))
    y.append(("UTF-8 flow name", small.replace(b"name: F1", "name: Fluß".encode()), "ok", []))
    y.append(("CRLF line ends", small.replace(b"\n", b"\r\n"), "ok", []))
    y.append(("tab indentation", small.replace(b"  switches", b"\tswitches"), "bad", []))
    y.append(("empty file", b"", "bad", []))
    y.append(("only a comment", b"# nothing\n", "bad", []))
    y.append(("a list at the top", b"- a\n- b\n", "bad", ["map"]))
    y.append(("a scalar at the top", b"hello\n", "bad", ["map"]))
    y.append(("second document", small + b"---\nname: x\n", "bad", ["second YAML document"]))
    y.append(("document end then more", small + b"...\nname: x\n", "bad", []))
    y.append(("duplicate top key", small + b"name: again\n", "bad", ["given twice"]))
    y.append(("duplicate nested key", small.replace(b"sim: {time: 100us,", b"sim: {time: 100us, time: 1ms,"), "bad", ["sim.time", "given twice"]))
    y.append(("duplicate key in a flow", small.replace(b"{name: F2, src: H2", b"{name: F2, src: H2, src: H1"), "bad", ["given twice"]))
    y.append(("alias used as a key twice", b"k: &k name\n*k : a\n" + small, "bad", []))
    y.append(("merge key", b"d: &d {time: 1ms}\nsim: {<<: *d}\n" + small.split(b"\n", 2)[2], "bad", []))
    y.append(("unknown tag", small.replace(b"name: small", b"name: !!binary aGVsbG8="), "ok-or-bad", []))
    y.append(("huge scalar (8 MB)", b"description: " + b"x" * (8 << 20) + b"\n" + small, "ok", []))
    y.append(("line of 1 MB", b"# " + b"y" * (1 << 20) + b"\n" + small, "ok", []))
    y.append(("binary garbage", bytes(range(256)) * 16, "bad", []))
    y.append(("lone comma", b",", "bad", []))
    y.append(("unclosed flow", b"sim: {time: 1ms\n", "bad", ["not valid YAML"]))
    y.append(("unclosed quote", b'name: "abc\n', "bad", []))
    y.append(("10000 flows", small + b"".join(b"    - {name: G%d, src: H1, dst: H2}\n" % i for i in range(10000)), "ok", []))
    y.append(("anchor on every flow", small.replace(b"{name: F1, src: H1, dst: H3}", b"&f1 {name: F1, src: H1, dst: H3}"), "ok", []))
    y.append(("alias of a flow (duplicate name)",
              small.replace(b"- {name: F2, src: H2, dst: H3}", b"- &f {name: F2, src: H2, dst: H3}\n    - *f"), "bad", ["F2"]))
    for name, text, expect, names in y:
        fname = "s_" + re.sub(r"[^A-Za-z0-9]+", "_", name) + ".yaml"
        for cmd in ("describe", "topo", "run"):
            if cmd != "describe" and name.startswith(("10000", "huge", "line of")):
                continue
            argv = [cmd, fname] + (["--out", "out", "--quiet"] if cmd == "run" else [])
            cases.append(Case("yaml", f"{cmd}: {name}", argv, expect, names, files={fname: text}, timeout=60))
    # 3. Importers.
    fixture = (Path(src) / "topologies/ibnetdiscover/fattree8.ibnetdiscover").read_bytes()
    lfts = (Path(src) / "topologies/ibnetdiscover/fattree8.lfts").read_bytes()
    imp = [
        ("30 kB node description", b'Switch 36 "S-1" # "' + b"A" * 50000 + b'" lid 1\n', "bad"),
        ("30 kB comment on a port", fixture.replace(b"\n[1]", b" # " + b"#" * 40000 + b"\n[1]", 1), "ok-or-bad"),
        ("1 MB line", b"x" * (1 << 20) + b"\n", "bad"),
        ("empty", b"", "bad"),
        ("binary", bytes(range(256)) * 8, "bad"),
        ("latin-1 description", fixture.replace(b'# "', b'# "caf\xe9 ', 1), "ok"),
        ("router", b'Rt 2 "R-1"\n', "bad"),
        ("port 0", b'Switch 4 "S-1"\n[0] "H-1"[1]\n', "bad"),
        ("port 4294967297", b'Switch 4 "S-1"\n[4294967297] "H-1"[1]\n', "bad"),
        ("ports 999", b'Switch 999 "S-1"\n', "bad"),
        ("the fixture", fixture, "ok"),
        ("CRLF", fixture.replace(b"\n", b"\r\n"), "ok"),
    ]
    for name, text, expect in imp:
        cases.append(Case("import ibnetdiscover", name, ["import", "ibnetdiscover", "f.topo"], expect,
                          ["f.topo"] if expect == "bad" else [], files={"f.topo": text}))
    lft_cases = [
        ("a LID twice", lfts + lfts.split(b"\n", 1)[1], "bad", ["twice"]),
        ("30 kB line", lfts.replace(b"\n", b" " + b"z" * 30000 + b"\n", 1), "ok-or-bad", []),
        ("garbage", b"hello\n", "bad", ["dump_lfts"]),
        ("LID 0xffff", lfts + b"0xffff 1 : (Channel Adapter portguid 0x1: 'x')\n", "bad", ["LID"]),
        ("the fixture", lfts, "ok", []),
    ]
    for name, text, expect, names in lft_cases:
        cases.append(Case("import dump_lfts", name, ["import", "ibnetdiscover", "f.topo", "--lfts", "f.lfts"], expect,
                          names, files={"f.topo": fixture, "f.lfts": text}))
    osm = (Path(src) / "topologies/opensm/opensm.conf").read_bytes()
    osm_cases = [
        ("upper-case option", b"CC_SW_CONG_SETTING_THRESHOLD 0x5\ncongestion_control TRUE\n", "bad", ["lower case"]),
        ("option twice", osm + b"\ncc_sw_cong_setting_threshold 0x3\n", "bad", ["given twice"]),
        ("SL twice", osm + b"\ncc_ca_cong_setting_ccti_timer 0 100\ncc_ca_cong_setting_ccti_timer 0 200\n", "bad", ["SL 0"]),
        ("threshold 16", b"congestion_control TRUE\ncc_sw_cong_setting_threshold 16\n", "bad", ["threshold"]),
        ("huge number", b"congestion_control TRUE\ncc_sw_cong_setting_threshold 99999999999999999999999\n", "bad", ["threshold"]),
        ("negative", b"congestion_control TRUE\ncc_sw_cong_setting_threshold -1\n", "bad", ["threshold"]),
        ("binary", bytes(range(256)), "bad", ["text"]),
        ("empty", b"", "bad", ["no congestion-control option"]),
        ("long line", b"congestion_control TRUE\ncc_cct " + b"0:1," * 100000 + b"\n", "bad", ["cc_cct"]),
        ("the shipped file", osm, "ok", []),
    ]
    for name, text, expect, names in osm_cases:
        cases.append(Case("import opensm", name, ["import", "opensm", "o.conf"], expect, names, files={"o.conf": text}))
        cases.append(Case("run --opensm-conf", name, ["describe", BASE, "--opensm-conf", "o.conf"], expect, names,
                          files={"o.conf": text}))
    # 4. The options of every command.
    opts = [
        (["run", BASE, "--out", "o", "--sim-time", "-1ms"], "bad", ["sim.time"]),
        (["run", BASE, "--out", "o", "--sim-time", "1e7s"], "bad", ["sim.time"]),
        (["run", BASE, "--out", "o", "--sim-time", "nan s"], "bad", ["sim.time"]),
        (["run", BASE, "--out", "o", "--seed", "-1"], "bad", ["--seed"]),
        (["run", BASE, "--out", "o", "--seed", "18446744073709551616"], "bad", ["--seed"]),
        (["run", BASE, "--out", "o", "--seed", ""], "bad", ["--seed"]),
        (["run", BASE, "--out", ""], "bad", ["--out"]),
        (["run", BASE, "--out", "o", "--rtl", ""], "bad", ["--rtl"]),
        (["run", BASE, "--out", "o", "--waves", ""], "bad", ["--waves"]),
        (["run", BASE, "--out", "o", "--window", "2ms..1ms"], "bad", ["--window"]),
        (["run", BASE, "--out", "o", "--window", "0s..1000s"], "bad", ["--window"]),
        (["run", BASE, "--out", "o", "--window", "x"], "bad", ["--window"]),
        (["run", BASE, "--out", "o", "--set", "cc.switch.threshold="], "bad", ["cc.switch.threshold"]),
        (["run", BASE, "--out", "o", "--set", "=3"], "bad", ["--set"]),
        (["run", BASE, "--out", "o", "--set", "cc..threshold=3"], "bad", ["--set"]),
        (["run", BASE, "--out", "o", "--set", "cc.switch={threshold: 1, threshold: 2}"], "bad", ["given twice"]),
        (["run", BASE, "--out", "o", "--set", "cc.switch=&a [*a]"], "bad", ["cycle"]),
        (["run", BASE, "--out", "o", "--set", "traffic.flows[99].sl=1"], "bad", ["flows"]),
        (["run", BASE, "--out", "o", "--set", "traffic.flows[-1].sl=1"], "bad", ["flows"]),
        (["run", BASE, "--out", "o", "--set", "traffic.flows[x].sl=1"], "bad", ["flows"]),
        (["run", BASE, "--out", "o", "--set", "traffic.flows[99999999999999999999999].sl=1"], "bad", ["flows"]),
        (["run", BASE, "--out", "o", "--cc", "maybe"], "bad", ["--cc"]),
        (["run", BASE, "--out", "o", "--set", "sim.deadlock_timeout=1ps"], "bad", ["sim.deadlock_timeout"]),
        (["run", BASE, "--out", "o", "--set", "fabric.hca.inject_rate=1e300Gb/s"], "bad", ["inject_rate"]),
        (["describe", BASE, "--set", "sim.time=1e7s"], "bad", ["sim.time"]),
        (["describe", "no/such/file.yaml"], "bad", ["no/such/file.yaml"]),
        (["describe", "."], "bad", []),
        (["describe", BASE, "--points", BASE], "bad", ["--points"]),
        (["describe", BASE, "--window", "1ms..2ms"], "bad", ["--window"]),
        (["keys", "--opensm", "--json-schema"], "bad", []),
        (["topo", BASE, "--route", "H1"], "bad", []),
        (["topo", BASE, "--route", "H1", "H99"], "bad", ["H99"]),
        (["cosim", "--block", "ccti", "--cycles", "10", "--seed", "-1"], "bad", ["--seed"]),
        (["cosim", "--block", "ccti", "--cycles", "10", "--seed", "99999999999999999999"], "bad", ["--seed"]),
        (["cosim", "--block", "nope"], "bad", ["--block"]),
        (["cosim", "--block", "ccti", "--cycles", "-5"], "bad", ["--cycles"]),
        (["keys", "--out", ""], "bad", ["--out"]),
        (["import", "opensm"], "bad", []),
        (["import", "nothing", "x"], "bad", []),
        (["plot", "no/such/dir"], "bad", ["no/such/dir"]),
        (["sweep", BASE, "--out", "o", "--grid", "cc.switch.threshold=nan:5:1"], "bad", ["--grid"]),
        (["sweep", BASE, "--out", "o", "--grid", "cc.switch.threshold=1e20:1e20:1"], "bad", ["--grid"]),
        (["sweep", BASE, "--out", "o", "--grid", "cc.switch.threshold=1:1e9:1"], "bad", ["--grid"]),
        (["sweep", BASE, "--out", "o", "--grid", "cc.switch.threshold=5:1:1"], "bad", ["--grid"]),
        (["sweep", BASE, "--out", "o", "--grid", "cc.switch.threshold=1:5:0"], "bad", ["--grid"]),
        (["sweep", BASE, "--out", "o", "--grid", "cc.switch.threshold=1,,2"], "bad", ["--grid"]),
        (["sweep", BASE, "--out", "o", "--grid", "cc.switch.threshold=1:2:0.0000000001"], "bad", ["--grid"]),
        (["sweep", BASE, "--out", "o", "--grid", "sim.seed=1:1000:1", "--grid", "cc.switch.threshold=1:200:1"], "bad", ["points"]),
        (["sweep", BASE, "--out", "o", "--grid", "cc.switch.threshold=1,99"], "bad", ["cc.switch.threshold"]),
        (["sweep", BASE, "--out", "o", "--grid", "cc.switch.threshold=1,2", "--sim-time", "100us", "--window", "0s..1ms"], "bad", ["--window"]),
        (["sweep", BASE, "--out", "o", "--grid", "cc.switch.threshold=1,2", "--grid", "cc.switch.threshold=3"], "bad", ["twice"]),
        (["sweep", BASE, "--out", "o", "--grid", "cc.dcqcn.rate_timer=1us,2us"], "bad", ["cc.dcqcn.rate_timer"]),
        (["tune", BASE, "--out", "o", "--space", "cc.switch.threshold=1:15", "--seed", "4294967296"], "bad", ["--seed"]),
        (["tune", BASE, "--out", "o", "--space", "cc.switch.threshold=1:15", "--seed", "-1"], "bad", ["--seed"]),
        (["tune", BASE, "--out", "o", "--space", "cc.switch.threshold=0:99"], "bad", ["cc.switch.threshold"]),
        (["tune", BASE, "--out", "o", "--space", "cc.ecn.kmin=1KB:300KB"], "bad", ["cc.ecn.kmin"]),
        (["tune", BASE, "--out", "o", "--space", "cc.switch.threshold=1:15", "--trials", "0"], "bad", ["--trials"]),
        (["tune", BASE, "--out", "o", "--space", "cc.switch.threshold=1:15", "--objective", "nope:max"], "bad", ["nope"]),
    ]
    for argv, expect, names in opts:
        cases.append(Case("options", " ".join(argv[:1] + argv[2:]), argv, expect, names, timeout=120))
    dcqcn = "topologies/dcqcn/incast.yaml"
    opts2 = [
        (["describe", BASE, "--set", "cc.ca.per_sl=[{sl: 0, ccti_timer: 10}, {sl: 0, ccti_timer: 20}]"], "bad", ["SL 0"]),
        (["describe", BASE, "--set", "cc.ports=[{port: S1/1, threshold: 3}, {port: S1/1, threshold: 5}]"], "bad", ["S1/1"]),
        (["describe", BASE, "--set", "fabric.flow_control=pfc", "--set", "fabric.pfc.xoff=1MB"], "bad", ["fabric.pfc.xoff"]),
        (["describe", BASE, "--set", "traffic.flows[0].src=H1", "--set", "traffic.flows[0].dst=H1"], "bad", ["same HCA"]),
        (["describe", BASE, "--set", "cc.rtl=[S9/1]"], "bad", ["S9/1"]),
        (["describe", BASE, "--set", "fabric.routing=updown", "--set", "fabric.updown_roots=[NOPE]"], "bad", ["NOPE"]),
        (["run", BASE, "--out", "o", "--sim-time", "10us", "--rtl", "S1/04"], "bad", ["S1/04"]),
        (["run", BASE, "--out", "o", "--sim-time", "10us", "--rtl", "S1/+4"], "bad", ["S1/+4"]),
        (["run", BASE, "--out", "o", "--sim-time", "10us", "--rtl", "S1/4294967300"], "bad", ["S1/4294967300"]),
        (["run", BASE, "--out", "o", "--sim-time", "10us", "--waves", "o/w", "--trace", "ports=S1/4xyz"], "bad", ["S1/4xyz"]),
        (["run", BASE, "--out", "o", "--sim-time", "10us", "--waves", "o/w", "--trace", "ports=S1/0"], "bad", ["S1/0"]),
        (["run", BASE, "--out", "o", "--sim-time", "10us", "--waves", "o/w", "--trace", "flows=NOPE"], "bad", ["NOPE"]),
        (["tune", dcqcn, "--out", "o", "--space", "cc.ecn.kmin=1KB:300KB", "--space", "cc.ecn.kmax=20KB:400KB",
          "--trials", "8", "--seed", "3", "--sim-time", "40ms", "--set", "sim.log_interval=1ms", "--objective", "total",
          "--quiet"], "ok", []),
    ]
    for argv, expect, names in opts2:
        cases.append(Case("options", " ".join(argv[:1] + argv[2:]), argv, expect, names, timeout=300,
                          check=tune_failed_trials if argv[0] == "tune" else None))
    # --force removes what ibcc wrote, not a user's file beside it.
    cases.append(Case("options", "--force keeps a user's file", ["run", BASE, "--out", "o", "--sim-time", "50us", "--quiet",
                                                                  "--force"], "ok", [],
                      files={"o/my_plot.png": b"mine", "o/summary.json": b"{}"},
                      check=lambda d, p: None if (d / "o" / "my_plot.png").read_bytes() == b"mine" else "my_plot.png was removed"))
    # Two commands into one --out: the second is refused while the first runs; both end well.
    for argv in (["sweep", BASE, "--out", "o", "--grid", "cc.switch.threshold=1,2", "--sim-time", "3s", "--quiet"],
                 ["tune", BASE, "--out", "o", "--space", "cc.switch.threshold=1:15", "--trials", "2", "--sim-time", "2s", "--quiet"]):
        cases.append(Case("concurrent", f"two {argv[0]}s into one --out", argv, "bad", ["another"], timeout=300,
                          setup=lambda d, argv=argv: start_first(d, argv), check=first_completes))
    for sub in ("run", "describe", "topo", "sweep", "tune", "cosim", "import", "keys", "list", "plot"):
        for bad in ("--no-such-option", "--out"):
            cases.append(Case("options", f"{sub} {bad}", [sub, bad], "bad", []))
    # 5. Failed writes: the standard output full, directories that cannot be written.
    for argv in (["describe", BASE], ["topo", BASE], ["keys"], ["keys", "--markdown"], ["keys", "--json-schema"],
                 ["list"], ["--version"], ["import", "opensm", "topologies/opensm/opensm.conf"],
                 ["import", "ibnetdiscover", "topologies/ibnetdiscover/fattree8.ibnetdiscover"],
                 ["cosim", "--block", "fecn", "--cycles", "100"], ["run", BASE, "--out", "o", "--sim-time", "50us"]):
        cases.append(Case("full stdout", " ".join(argv), argv, "fail", ["standard output"], stdout="/dev/full", timeout=60))
    ro = {"setup": lambda d: (d / "ro").mkdir(mode=0o500)}
    for argv, names in ((["run", BASE, "--out", "ro/o", "--sim-time", "50us"], ["ro/o"]),
                        (["keys", "--out", "ro/keys.txt"], ["ro/keys.txt"]),
                        (["import", "opensm", "topologies/opensm/opensm.conf", "--out", "ro/cc.yaml"], ["ro/cc.yaml"]),
                        (["topo", BASE, "--write", "ro/x.yaml"], ["ro/x.yaml"]),
                        (["sweep", BASE, "--out", "ro/s", "--grid", "cc.switch.threshold=1,2", "--sim-time", "50us"], ["ro/s"])):
        if os.geteuid() == 0:
            continue  # root writes a 0500 directory anyway: the full tmpfs below covers these as root
        cases.append(Case("read-only dir", " ".join(argv), argv, "fail", names, **ro))
    if os.geteuid() == 0 and shutil.which("mount"):
        full = work / "full"
        for argv, names in ((["run", BASE, "--out", "FULL/o", "--sim-time", "20ms"], ["FULL/o"]),
                            (["run", BASE, "--out", "FULL/o", "--sim-time", "50ms", "--waves", "FULL/w"], ["FULL/"]),
                            (["keys", "--out", "FULL/keys.txt"], ["FULL/keys.txt"]),
                            (["cosim", "--block", "ccti", "--cycles", "400000", "--waves", "FULL/c.fst"], ["FULL/"]),
                            (["sweep", BASE, "--out", "FULL/s", "--grid", "cc.switch.threshold=1,2", "--sim-time", "2ms"], ["FULL/s"]),
                            (["tune", BASE, "--out", "FULL/t", "--space", "cc.switch.threshold=1:15", "--trials", "2", "--sim-time", "1ms", "--quiet"], ["FULL/t"])):
            argv = [a.replace("FULL", str(full)) for a in argv]
            cases.append(Case("full disk", " ".join(argv), argv, "fail", [], timeout=120,
                              setup=lambda d, full=full, room=40960 if "waves" in " ".join(argv) else 0: fill_tmpfs(full, room),
                              check=no_claimed_output))
    # 6. Signals: at set-up and mid-run; kill -9 leaves nothing running.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        for after in (0.05, 0.8):
            cases.append(Case("signals", f"run {sig.name} after {after}s", ["run", BASE, "--out", "o", "--sim-time", "5s", "--quiet"],
                              "interrupted", [], signal_after=(after, sig), check=kept_interrupted))
        cases.append(Case("signals", f"sweep {sig.name}", ["sweep", BASE, "--out", "o", "--grid", "cc.switch.threshold=1,2",
                                                           "--sim-time", "5s", "--quiet"], "interrupted", [],
                          signal_after=(1.0, sig)))
    for argv in (["run", BASE, "--out", "o", "--sim-time", "5s", "--quiet"],
                 ["sweep", BASE, "--out", "o", "--grid", "cc.switch.threshold=1,2", "--sim-time", "5s", "--quiet"],
                 ["tune", BASE, "--out", "o", "--space", "cc.switch.threshold=1:15", "--trials", "3", "--sim-time", "5s", "--quiet"]):
        cases.append(Case("kill -9", argv[0], argv, "killed", [], signal_after=(4.0 if argv[0] == "tune" else 1.0, signal.SIGKILL),
                          check=nothing_left, timeout=60))
    # 7. Slow paths are not deadlocks; sizes that cannot fit are refused up front.
    cases.append(Case("limits", "slow sink", ["run", BASE, "--out", "o", "--sim-time", "30ms", "--quiet", "--set",
                                              "fabric.hca.sink_rate=100Mb/s"], "ok", [], timeout=120))
    cases.append(Case("limits", "sim.time 1e7s", ["run", BASE, "--out", "o", "--sim-time", "1e7s"], "bad", ["sim.time"]))
    cases.append(Case("limits", "1M-host k-ary n-tree", ["describe", "k.yaml"], "bad", ["LIDs"],
                      files={"k.yaml": b"topology:\n  generate: {family: kary_ntree, k: 32, n: 4}\n"}))
    cases.append(Case("limits", "fat tree beyond the LIDs", ["describe", "k.yaml"], "bad", ["LIDs"],
                      files={"k.yaml": b"topology:\n  generate: {family: fattree, radix: 64, levels: 3}\n"}))
    cases.append(Case("limits", "10^8 log intervals", ["run", BASE, "--out", "o", "--sim-time", "1000000s", "--set",
                                                       "sim.log_interval=4ns"], "bad", ["sim.log_interval"]))
    return cases


BASE_TEXT = [None]


def merge_yaml(base_text, parts, value):
    """The base scenario's text with `parts` (a dotted key) set to `value` as YAML text, the
    key on a line of its own (so the error can name that line); None if the base has the
    key's parent as a flow map the text cannot extend."""
    import yaml
    doc = yaml.safe_load(base_text)
    node = doc
    for p in parts[:-1]:
        if not isinstance(node.get(p, {}), dict):
            return None
        node = node.setdefault(p, {})
    node.pop(parts[-1], None)
    text = yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)
    # re-insert the key as raw text under its parent (indentation of a block map)
    lines = text.splitlines()
    indent, at = 0, 0
    for depth, p in enumerate(parts[:-1]):
        for i in range(at, len(lines)):
            if lines[i] == " " * (2 * depth) + p + ":" or lines[i].startswith(" " * (2 * depth) + p + ": {}"):
                lines[i] = " " * (2 * depth) + p + ":"
                at = i + 1
                break
        else:
            return None
        indent = 2 * (depth + 1)
    lines.insert(at, " " * indent + parts[-1] + ": " + value)
    return "\n".join(lines) + "\n"


def tune_failed_trials(d, p):
    """A space whose corners are valid and interior not: the study completes; the invalid
    combinations are FAIL trials that give their reason."""
    import csv
    rows = list(csv.DictReader(open(d / "o" / "tune.csv")))
    bad = [r for r in rows if r["state"] == "FAIL"]
    if not bad or not all("valid combination" in r["error"] for r in bad):
        return f"expected FAIL trials naming an invalid combination, got {[(r['state'], r['error'][:60]) for r in rows]}"
    return None


FIRST = {}


def start_first(d, argv):
    """The first command, in the background; the case's own command is the second."""
    ibcc = FIRST["ibcc"]
    args = [str(Path(FIRST["src"]) / a) if a.startswith("topologies/") else (str(d / a) if a == "o" else a) for a in argv]
    FIRST[str(d)] = subprocess.Popen([ibcc] + args, cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(2.0)


def first_completes(d, p):
    first = FIRST.pop(str(d))
    _, err = first.communicate(timeout=600)
    if first.returncode != 0:
        return f"the first command ended with exit {first.returncode}: {err.decode(errors='replace').strip()[-300:]}"
    return None


def fill_tmpfs(path, room):
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["umount", str(path)], capture_output=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(path)], check=True)
    fd = os.open(path / "filler", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        while os.write(fd, b"\0" * 4096) > 0:
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    # a little room: the command starts writing, then the disk fills
    os.truncate(path / "filler", max(0, os.path.getsize(path / "filler") - room))


def no_claimed_output(d, p):
    """A command that failed on a full disk claims no result: no summary says ok."""
    for s in Path(d / "full").rglob("summary.json") if (d / "full").exists() else []:
        try:
            if json.loads(s.read_text()).get("result") == "ok":
                return f"{s} says result ok after exit {p.returncode}"
        except (OSError, ValueError):
            pass
    return None


def kept_interrupted(d, p):
    s = d / "o" / "summary.json"
    if not s.is_file():
        return "no summary.json after the interrupt"
    r = json.loads(s.read_text()).get("result")
    if r != "interrupted":
        return f"summary.json says result {r}"
    if not (d / "o" / "flows.csv").is_file():
        return "no flows.csv after the interrupt"
    return None


def nothing_left(d, p):
    """No process started for this case is still running (the case's directory is in their
    command line or working directory)."""
    time.sleep(1.5)
    left = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = (Path("/proc") / pid / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if str(d) in cmd or cwd == str(d):
            left.append(f"{pid}: {cmd[:120]}")
    for pid in left:  # do not leave them running for the next cases
        try:
            os.kill(int(pid.split(":")[0]), signal.SIGKILL)
        except OSError:
            pass
    return f"{len(left)} processes outlived the kill: {left[:3]}" if left else None


def run_case(ibcc, src, work, i, c):
    d = work / f"{i:05d}"
    d.mkdir(parents=True, exist_ok=True)
    for rel, data in c.files.items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_bytes(data)
    if c.setup:
        c.setup(d)
    # Paths: the case's files are relative to its directory; the shipped ones to the source.
    argv = []
    for a in c.argv:
        if a in c.files:
            a = str(d / a)
        elif a.startswith(("topologies/",)):
            a = str(Path(src) / a)
        elif a in ("o", "ro/o", "ro/keys.txt", "ro/cc.yaml", "ro/x.yaml", "ro/s", "out", "f.topo", "f.lfts", "o.conf", "k.yaml"):
            a = str(d / a)
        argv.append(a)
    out = open(c.stdout, "w") if c.stdout else subprocess.PIPE
    t0 = time.monotonic()
    p = subprocess.Popen([ibcc] + argv, cwd=d, stdout=out, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                         start_new_session=c.signal_after is not None and c.signal_after[1] == signal.SIGKILL)
    try:
        if c.signal_after:
            try:
                p.wait(timeout=c.signal_after[0])
            except subprocess.TimeoutExpired:
                p.send_signal(c.signal_after[1])
        _, err = p.communicate(timeout=c.timeout)
        hung = False
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
        hung = True
    if c.stdout:
        out.close()
    err = err.decode(errors="replace")
    return check(c, d, p, err, hung, time.monotonic() - t0)


def check(c, d, p, err, hung, wall):
    rc = p.returncode
    if hung:
        return f"hung: no answer in {c.timeout:.0f} s"
    for bad in ("Traceback (most recent call last)", "terminate called", "Segmentation fault", "AddressSanitizer",
                "runtime error:", "bad_alloc", "bad conversion", "yaml-cpp", "sqlalchemy"):
        if bad in err:
            return f"exit {rc}, stderr has '{bad}': {err.strip()[-300:]}"
    if c.expect == "killed":
        why = c.check(d, p) if c.check else None
        return why
    if rc < 0:
        return f"died of signal {-rc}: {err.strip()[-300:]}"
    want = {"ok": {0}, "bad": {2}, "fail": {1}, "interrupted": {130}, "ok-or-bad": {0, 2}}[c.expect]
    if rc not in want:
        return f"exit {rc}, expected {c.expect}: {err.strip()[-400:]}"
    if rc != 0 and "error" not in err and "interrupted" not in err:
        return f"exit {rc} without a message"
    if rc != 0:
        for n in c.names:
            # a key may be named by its path or, in a message about its map, by its last part
            short = n.rsplit(".", 1)[-1] if c.group.startswith("key") else n
            if n.replace(str(d) + "/", "") not in err.replace(str(d) + "/", "") and short not in err:
                return f"exit {rc}, but the message does not name '{n}': {err.strip()[-300:]}"
    if c.check:
        return c.check(d, p)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ibcc")
    ap.add_argument("source_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--jobs", type=int, default=max(2, os.cpu_count() or 2))
    ap.add_argument("--only", default="", help="run only the cases whose group or name holds this")
    args = ap.parse_args()
    ibcc, src = os.path.abspath(args.ibcc), os.path.abspath(args.source_dir)
    work = Path(args.out_dir).resolve()
    if work.exists():
        subprocess.run(["umount", str(work / "full")], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    BASE_TEXT[0] = (Path(src) / BASE).read_text()
    FIRST.update(ibcc=ibcc, src=src)
    schema = json.loads(subprocess.run([ibcc, "keys", "--json-schema"], capture_output=True, text=True, check=True).stdout)
    cases = [c for c in generate(ibcc, src, work, schema) if args.only in c.group + " " + c.name]
    # The full-disk cases share one tmpfs, and the signal and kill cases time themselves:
    # they run one at a time after the others.
    serial = [i for i, c in enumerate(cases) if c.group in ("full disk", "signals", "kill -9", "concurrent")]
    parallel = [i for i in range(len(cases)) if i not in set(serial)]
    results = {}
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futs = {pool.submit(run_case, ibcc, src, work, i, cases[i]): i for i in parallel}
        for f in concurrent.futures.as_completed(futs):
            results[futs[f]] = f.result()
    for i in serial:
        results[i] = run_case(ibcc, src, work, i, cases[i])
    subprocess.run(["umount", str(work / "full")], capture_output=True)
    per_class, per_group, failed = {}, {}, []
    for i, c in enumerate(cases):
        ok = results[i] is None
        per_class.setdefault(c.expect, [0, 0])[0 if ok else 1] += 1
        per_group.setdefault(c.group, [0, 0])[0 if ok else 1] += 1
        if not ok:
            failed.append(f"[{c.group}] {c.name}\n     ibcc {' '.join(c.argv)[:300]}\n     {results[i]}")
    checks = Checks()
    for line in failed:
        checks.check(False, line)
    print(f"hostile: {len(cases)} cases in {time.monotonic() - t0:.0f} s")
    for k, (p, f) in sorted(per_class.items()):
        print(f"  class {k:<12} {p:5d} passed {f:4d} failed")
    for k, (p, f) in sorted(per_group.items()):
        print(f"  group {k:<22} {p:5d} passed {f:4d} failed")
    checks.check(not failed, f"{len(cases) - len(failed)} of {len(cases)} hostile cases behave as expected")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
