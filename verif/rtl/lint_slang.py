#!/usr/bin/env python3
"""Second lint of the RTL: slang (pyslang from PyPI) with -Weverything elaborates each block
with its package and submodules, beside verilator -Wall (CTest lint_*).

  lint_slang.py [--waivers FILE]
Every warning is either fixed in the RTL or waived in verif/rtl/lint_waivers.yaml with its
reason; the script prints each block's counts and every waiver it applied. Exit 0 clean
(all warnings waived, every waiver used), 1 an unwaived warning, an error or a stale waiver,
2 pyslang missing or a bad waiver file.
"""
import argparse
import fnmatch
import os
import re
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMMON = ["rtl/ibcc_timebase.sv", "rtl/ibcc_axil_slave.sv", "rtl/ibcc_event_log.sv"]
OWN = {"fecn_marker": ["rtl/ibcc_fill_reduce.sv"], "ccti_block": []}
BLOCKS = {top: [f"rtl/{top}_reg_pkg.sv", f"rtl/{top}_reg_top.sv"] + COMMON + OWN[top] + [f"rtl/{top}.sv"] for top in OWN}
# The board top holds both blocks behind its UART.
BLOCKS["ibcc_board_top"] = sorted(set(BLOCKS["fecn_marker"] + BLOCKS["ccti_block"]), key=lambda f: f.endswith("_pkg.sv") is False) \
    + [f"rtl/board/{m}.sv" for m in ("ibcc_uart_rx", "ibcc_uart_tx", "ibcc_clock_gate", "ibcc_board_top")]
WAIVER_KEYS = {"warning", "file", "symbols", "why"}


def die(msg):
    print(f"lint_slang: error: {msg}", file=sys.stderr)
    sys.exit(2)


def load_waivers(path):
    try:
        with open(path) as f:
            waivers = yaml.safe_load(f)
    except (OSError, yaml.YAMLError) as e:
        die(f"{path}: {e}")
    if not isinstance(waivers, list):
        die(f"{path}: expected a list of waivers")
    for i, w in enumerate(waivers):
        where = f"{path}: waiver {i + 1}"
        if not isinstance(w, dict):
            die(f"{where}: expected a mapping")
        unknown = set(w) - WAIVER_KEYS
        if unknown:
            die(f"{where}: unknown key(s) {', '.join(sorted(unknown))} (expected {', '.join(sorted(WAIVER_KEYS))})")
        for key in ("warning", "file", "why"):
            if not isinstance(w.get(key), str) or not w[key].strip():
                die(f"{where}: `{key}` must be a non-empty string")
        if "symbols" in w and not (isinstance(w["symbols"], list) and all(isinstance(s, str) for s in w["symbols"])):
            die(f"{where}: `symbols` must be a list of names")
        w["used"] = 0
    return waivers


def elaborate(top, files):
    """[(severity, option, file, line, message)] for one block, from slang's compilation and
    analysis (the driver's own printing is silenced; diagnostics are read from its objects)."""
    import pyslang
    driver = pyslang.driver.Driver()
    driver.addStandardArgs()
    args = " ".join(["slang", "-Weverything", "--top", top] + [os.path.join(ROOT, f) for f in files])
    saved = [os.dup(1), os.dup(2)]
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        ok = (driver.parseCommandLine(args, pyslang.driver.CommandLineOptions()) and driver.processOptions()
              and driver.parseAllSources())
        if ok:
            compilation = driver.createCompilation()
            diags = list(compilation.getAllDiagnostics())
            diags += list(driver.runAnalysis(compilation).getDiagnostics())
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved + [null]:
            os.close(fd)
    if not ok:
        die(f"slang could not read the sources of {top}")
    engine, sources = driver.diagEngine, driver.sourceManager
    out = []
    for d in diags:
        severity = engine.getSeverity(d.code, d.location)
        if severity == pyslang.DiagnosticSeverity.Ignored:
            continue
        path = os.path.relpath(str(sources.getFileName(d.location)), ROOT)
        out.append((severity.name.lower(), engine.getOptionName(d.code) or str(d.code), path,
                    sources.getLineNumber(d.location), engine.formatMessage(d)))
    return sorted(set(out), key=lambda x: (x[2], x[3], x[1]))


def waiver_for(waivers, option, path, message):
    for w in waivers:
        if w["warning"] != option or not fnmatch.fnmatch(path, w["file"]):
            continue
        if "symbols" in w and not any(re.search(rf"'{re.escape(s)}'", message) for s in w["symbols"]):
            continue
        return w
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--waivers", default=os.path.join(ROOT, "verif", "rtl", "lint_waivers.yaml"))
    a = ap.parse_args()
    try:
        import pyslang
    except ImportError:
        die("pyslang is not installed (pip install pyslang; scripts/bootstrap.sh does)")
    waivers = load_waivers(a.waivers)
    bad = 0
    print(f"slang {getattr(pyslang, '__version__', '?')} -Weverything")
    for top, files in BLOCKS.items():
        counts = {"waived": 0, "open": 0}
        for severity, option, path, line, message in elaborate(top, files):
            w = waiver_for(waivers, option, path, message) if severity == "warning" else None
            if w:
                w["used"] += 1
                counts["waived"] += 1
                continue
            counts["open"] += 1
            bad += 1
            print(f"  {path}:{line}: {severity}: {message} [-W{option}]")
        print(f"  {top}: {counts['open']} unwaived, {counts['waived']} waived")
    for w in waivers:
        if w["used"]:
            print(f"  waived {w['used']:3} x {w['warning']} in {w['file']}"
                  + (f" ({', '.join(w['symbols'])})" if "symbols" in w else "") + f": {' '.join(w['why'].split())}")
        else:
            bad += 1
            print(f"  stale waiver: {w['warning']} in {w['file']} matches nothing: remove it")
    checks = Checks()
    checks.check(bad == 0, f"slang lint: {bad} unwaived warning(s) or stale waiver(s)")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
