#!/usr/bin/env python3
"""What `ibcc run` leaves behind can be trusted: it says how it was made (version, command,
input hashes, overrides, resolved.yaml that reproduces the run, `ibcc describe`), its printed
headline is the window's metrics as metrics.json holds them, nothing is
lost when it is interrupted (exit 130, partial tables that parse, result "interrupted"), a
failed write is never exit 0 (a full tmpfs, /dev/full), and an earlier run's results are not
silently mixed with new ones.

  check_run_outputs.py IBCC SOURCE_DIR OUTDIR
"""
import csv
import hashlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402


checks = Checks()


def fail(msg):
    """A failed step: the later ones build on it, so the check ends here."""
    checks.check(False, msg)
    sys.exit(checks.result())


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def main():
    ibcc, src, outdir = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    shutil.rmtree(outdir, ignore_errors=True)
    outdir.mkdir(parents=True)
    s1 = src / "topologies/seed-testbed/scenario1.yaml"

    # 1. Version and provenance.
    res = run([ibcc, "--version"])
    if res.returncode != 0 or not re.fullmatch(r"ibcc \d+\.\d+\.\d+ \(git ([0-9a-f]{7,}(-dirty)?|unknown)\)\n", res.stdout):
        fail(f"ibcc --version: exit {res.returncode}: {res.stdout!r}")
    version = res.stdout.strip()
    out = outdir / "prov"
    cmd = [ibcc, "run", str(s1), "--out", str(out), "--sim-time", "300ms", "--set", "cc.switch.threshold=10",
           "--seed", "7", "--quiet"]
    res = run(cmd)
    if res.returncode != 0:
        fail(f"run: exit {res.returncode}: {res.stderr}")
    summary = json.load(open(out / "summary.json"))
    if summary.get("version") != version or summary.get("command") != cmd or summary.get("seed") != 7:
        fail(f"summary.json lacks version/command/seed: {summary.get('version')}, {summary.get('command')}")
    want_sha = hashlib.sha256(s1.read_bytes()).hexdigest()
    if [i.get("sha256") for i in summary.get("inputs", []) if i.get("role") == "scenario"] != [want_sha]:
        fail(f"summary.json inputs: {summary.get('inputs')} (expected sha256 {want_sha})")
    keys = {o["key"]: o["value"] for o in summary.get("overrides", [])}
    if keys.get("cc.switch.threshold") != "10" or keys.get("sim.time") != "300ms":
        fail(f"summary.json overrides: {summary.get('overrides')}")
    resolved = (out / "resolved.yaml").read_text()
    if "threshold: 10" not in resolved or "seed: 7" not in resolved or "ccti_timer: 150" not in resolved:
        fail("resolved.yaml lacks the override, the seed or a default")
    again = outdir / "again"
    res = run([ibcc, "run", str(out / "resolved.yaml"), "--out", str(again), "--quiet"])
    if res.returncode != 0 or (again / "flows.csv").read_bytes() != (out / "flows.csv").read_bytes():
        fail(f"resolved.yaml does not reproduce the run (exit {res.returncode}: {res.stderr})")
    res = run([ibcc, "describe", str(s1), "--sim-time", "300ms", "--set", "cc.switch.threshold=10", "--seed", "7"])
    strip = lambda t: [l for l in t.splitlines() if not l.startswith("#")]
    if res.returncode != 0 or strip(res.stdout) != strip(resolved):
        fail(f"ibcc describe differs from resolved.yaml (exit {res.returncode}): {res.stderr}")
    checks.check(True, "--version; summary.json has version, command, seed, input SHA-256, overrides; resolved.yaml "
                 "reproduces the run byte for byte; describe prints the same")

    # 1b. The headline it prints at its end is the window's metrics, as metrics.json holds them.
    out_h = outdir / "headline"
    res = run([ibcc, "run", str(s1), "--out", str(out_h), "--sim-time", "2500ms"])
    m = json.load(open(out_h / "metrics.json")).get("metrics", {}) if res.returncode == 0 else {}
    line = next((ln for ln in res.stdout.splitlines() if ln.startswith("metrics over ")), "")

    def v(key, spec):
        x = m.get(key)
        return "n/a" if x is None else format(x, spec)
    want = (f"metrics over 1250ms..2500ms: throughput {v('total', '.2f')} Gb/s (contributors "
            f"{v('group_total.contributors', '.2f')}, victim {v('group_total.victim', '.2f')}), Jain {v('jain', '.3f')}, "
            f"peak buffer {v('peak_buffer_credits', '.0f')} credits, p99 latency {v('latency_p99_us', '.1f')} us")
    checks.check(res.returncode == 0 and line.startswith(want), f"the headline agrees with metrics.json: {line!r}"
                 + ("" if line.startswith(want) else f", expected {want!r}"))

    # 2. An earlier run's results are not mixed with new ones.
    # (a plot as `ibcc plot` leaves it: the PNG, listed in .ibcc-files; and a user's own file)
    (out / "throughput.png").write_text("old picture")
    (out / ".ibcc-files").write_text("throughput.png\n")
    (out / "my_notes.png").write_text("mine")
    res = run(cmd)
    if res.returncode != 2 or "--force" not in res.stderr:
        fail(f"rerun into a used --out: exit {res.returncode}: {res.stderr}")
    res = run(cmd + ["--force"])
    if res.returncode != 0 or (out / "throughput.png").exists() or not (out / "my_notes.png").exists():
        fail(f"--force rerun: exit {res.returncode}, old PNG left: {(out / 'throughput.png').exists()}, "
             f"user's file kept: {(out / 'my_notes.png').exists()}")
    res = run([ibcc, "run", str(s1), "--out", str(s1), "--quiet"])
    if res.returncode != 2 or "is not a directory" not in res.stderr:
        fail(f"--out on a file: exit {res.returncode}: {res.stderr}")
    checks.check(True, "a used --out is refused without --force; --force clears the old results (not a user's file); --out on a file is exit 2")

    # 3. Interrupted: SIGINT and SIGTERM once the first intervals are out.
    for sig in (signal.SIGINT, signal.SIGTERM):
        out = outdir / f"interrupted-{sig.name}"
        proc = subprocess.Popen([ibcc, "run", str(s1), "--out", str(out), "--quiet"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 120
        while time.time() < deadline:
            flows = out / "flows.csv"
            if flows.exists() and len(flows.read_text().splitlines()) > 20:
                break
            time.sleep(0.05)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        if proc.returncode != 130 or "interrupted at" not in err or len(err.strip().splitlines()) != 1:
            fail(f"{sig.name}: exit {proc.returncode}, expected 130 and one line: {err!r}")
        summary = json.load(open(out / "summary.json"))
        metrics = json.load(open(out / "metrics.json"))
        if summary["result"] != "interrupted" or metrics["result"] != "interrupted" or not 0 < summary["reached_us"] < 5e6:
            fail(f"{sig.name}: summary result {summary['result']}, reached {summary['reached_us']} us")
        for name in ("flows.csv", "ccti.csv", "ports.csv"):
            rows = list(csv.reader(open(out / name)))
            width = len(rows[0])
            if len(rows) < 2 or any(len(r) != width for r in rows):
                fail(f"{sig.name}: {name} has a partial line")
        checks.check(True, f"{sig.name} at {summary['reached_us'] / 1e6:.3f} s: exit 130, one line, result interrupted, "
                     f"tables parse")

    # 4. A full disk is never exit 0: a 96 KiB tmpfs (or, without mount rights, a file-size
    # limit, which fails writes the same way), and /dev/full.
    full = outdir / "full"
    full.mkdir()
    mounted = run(["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", str(full)]).returncode == 0
    limit = None
    if not mounted:
        def limit():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))
    try:
        out = full / "run"
        res = run([ibcc, "run", str(s1), "--out", str(out), "--sim-time", "2s", "--quiet"], preexec_fn=limit)
        if res.returncode == 0 or str(out) not in res.stderr or "cannot" not in res.stderr:
            fail(f"run on a full disk: exit {res.returncode}: {res.stderr}")
        checks.check(True, f"run on a full {'tmpfs' if mounted else 'file-size limit'}: exit {res.returncode}: "
                     f"{res.stderr.strip().splitlines()[-1]}")
        res = run([ibcc, "sweep", str(s1), "--out", str(full / "sweep"), "--sim-time", "2s", "--grid",
                   "cc.switch.threshold=10,15", "--jobs", "2", "--quiet"], preexec_fn=limit)
        if res.returncode == 0:
            fail(f"sweep on a full disk: exit 0: {res.stderr}")
        checks.check(True, f"sweep on a full disk: exit {res.returncode}")
    finally:
        if mounted:
            run(["umount", str(full)])
    for cmd, what in (([ibcc, "topo", str(s1), "--write", "/dev/full"], "topo --write"),
                      ([ibcc, "import", "opensm", str(src / "topologies/opensm/opensm.conf"), "--out", "/dev/full"],
                       "import --out"),
                      ([ibcc, "cosim", "--block", "fecn", "--test", "random", "--cycles", "2000", "--quiet",
                        "--coverage-json", "/dev/full"], "cosim --coverage-json"),
                      ([ibcc, "describe", str(s1)], "describe > /dev/full")):
        stdout = open("/dev/full", "w") if what.startswith("describe") else subprocess.PIPE
        res = subprocess.run(cmd, stdout=stdout, stderr=subprocess.PIPE, text=True)
        if res.returncode == 0 or ("/dev/full" not in res.stderr and "standard output" not in res.stderr):
            fail(f"{what} to /dev/full: exit {res.returncode}: {res.stderr}")
        checks.check(True, f"{what} to /dev/full: exit {res.returncode}: {res.stderr.strip().splitlines()[-1]}")

    # A big input names its set-up stages on stderr as it goes (none with --quiet).
    base = (src / "tests/scenarios/base.yaml").read_text().split("traffic:")[0]
    flows = "".join(f"    - {{name: F{i}, src: H{1 + i % 2}, dst: H3, rate: 1Mb/s}}\n" for i in range(25000))
    big = outdir / "big.yaml"
    big.write_text(base + "traffic:\n  flows:\n" + flows)
    for quiet in (False, True):
        res = run([ibcc, "run", str(big), "--out", str(outdir / "big"), "--force", "--sim-time", "1us"]
                  + (["--quiet"] if quiet else []))
        stages = [l for l in res.stderr.splitlines() if l.startswith("ibcc run: set-up: ")]
        want = ["parsing", "reading", "resolving", "building the fabric: 2 switches, 3 HCAs, 25000 flows"]
        if res.returncode != 0:
            fail(f"run of {big.stat().st_size} bytes: exit {res.returncode}: {res.stderr}")
        if quiet and stages:
            fail(f"--quiet printed set-up stages: {stages}")
        if not quiet and [any(l.startswith("ibcc run: set-up: " + w) for l in stages) for w in want] != [True] * 4:
            fail(f"set-up stages of a {big.stat().st_size / 1e6:.1f} MB scenario: {stages}")
    checks.check(True, f"set-up stages named for a {big.stat().st_size / 1e6:.1f} MB scenario, none with --quiet")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
