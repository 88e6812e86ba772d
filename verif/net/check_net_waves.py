#!/usr/bin/env python3
"""Network waves: `ibcc run --waves --trace` on the seed test bed, as FST (the default) and as
VCD (--waves-format vcd). The two dumps hold the same FECN marks (the FST read back with
fst2vcd); the FST is much smaller; the save file opens on the first congestion episode with
its marker on the first FECN mark of the dump; and GTKWave under Xvfb resolves every trace of
it (screenshot kept), also when the directory is moved and only the save file is opened. The
trip level traced beside the VoQ fills is the one the scenario's settings give.

  check_net_waves.py IBCC SCENARIO OUT_DIR
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402
from gtkwave import grab  # noqa: E402


def marks_of(vcd_text):
    """(times of FECN mark rising edges, in ps) of a VCD text."""
    ids = {}
    for width, ident, name in re.findall(r"\$var wire (\d+) (\S+) (\w+)(?: \[\d+:0\])? \$end", vcd_text):
        if name == "fecn_mark":
            ids[ident] = True
    times, now = [], 0
    for line in vcd_text.split("\n"):
        if line.startswith("#"):
            now = int(line[1:])
        elif line[:1] == "1" and line[1:] in ids:
            times.append(now)
    return times


def trip_levels(vcd_text, scope):
    """{trip_enter_level / trip_exit_level: value} of `scope` in a VCD (set once, at 0)."""
    ids, in_scope = {}, False
    for line in vcd_text.split("\n"):
        if line.startswith("$scope"):
            in_scope = line.split()[2] == scope
        elif in_scope and line.startswith("$var"):
            f = line.split()
            if f[4].startswith("trip_"):
                ids[f[3]] = f[4]
        elif line.startswith("$enddefinitions"):
            break
    values = {}
    for m in re.finditer(r"^b([01]+) (\S+)$", vcd_text, re.M):
        if m.group(2) in ids and ids[m.group(2)] not in values:
            values[ids[m.group(2)]] = int(m.group(1), 2)
    return values


def expected_trip(ibcc, scenario):
    """(enter, exit) credits of the scenario's switches from its own settings: Threshold T
    trips at (16 - T)/16 of a switch input's per-VL buffer (64-byte credits), the exit
    Hysteresis sixteenths lower (never below 1/16), rounded up to whole credits."""
    import yaml
    sc = yaml.safe_load(open(scenario))
    sw = sc["cc"]["switch"]
    t, h = int(sw["threshold"]), int(sw.get("hysteresis", 0))
    size = str(sc["fabric"]["switch"]["buffer_per_vl"])
    cap = int(size[:-3]) * 1024 // 64 if size.endswith("KiB") else int(size) // 64
    enter16 = 16 - t
    exit16 = enter16 - h if enter16 > h + 1 else 1
    return -(-enter16 * cap // 16), -(-exit16 * cap // 16)


def main():
    ibcc, scenario, out = sys.argv[1:4]
    failures = []
    dumps = {}
    for fmt in ("fst", "vcd"):
        waves = os.path.join(out, f"waves_{fmt}")
        res = subprocess.run([ibcc, "run", scenario, "--out", os.path.join(out, fmt), "--sim-time", "2050ms", "--quiet",
                              "--force", "--waves", waves, "--waves-format", fmt,
                              "--trace", "ports=S2/2,S1/36,flows=F1,F2,F3", "--waves-window", "2s..2.05s"],
                             capture_output=True, text=True, timeout=600)
        if res.returncode != 0:
            print(res.stderr)
            return 1
        dumps[fmt] = os.path.join(waves, f"network.{fmt}")
    vcd_from_fst = subprocess.run(["fst2vcd", dumps["fst"]], capture_output=True, text=True, timeout=300).stdout
    fst_marks = marks_of(vcd_from_fst)
    vcd_marks = marks_of(open(dumps["vcd"]).read())
    size_fst, size_vcd = os.path.getsize(dumps["fst"]), os.path.getsize(dumps["vcd"])
    print(f"FECN marks in the window: FST {len(fst_marks)}, VCD {len(vcd_marks)}; sizes FST {size_fst} B, "
          f"VCD {size_vcd} B ({size_vcd / max(1, size_fst):.1f}x)")
    if not fst_marks or fst_marks != vcd_marks:
        failures.append("the FST and the VCD disagree on the FECN marks, or there are none")
    if size_fst * 3 > size_vcd:
        failures.append("the FST is not even 3x smaller than the VCD")
    gtkw = open(os.path.join(out, "waves_fst", "network.gtkw")).read()
    start = int(re.search(r"^\[timestart\] (\d+)", gtkw, re.M).group(1))
    zoom_marker = re.search(r"^\*(-?[\d.]+) (-?\d+)", gtkw, re.M)
    span = 4.88 * 2 ** -float(zoom_marker.group(1))  # GTKWave's zoom (sc_models/common/gtkw.cpp)
    marker = int(zoom_marker.group(2))
    print(f"save file: view {start} ps + {span:.0f} ps, marker {marker} ps; first mark in the dump {fst_marks[0] if fst_marks else None}")
    if not fst_marks or marker != fst_marks[0] or not (start <= marker <= start + span):
        failures.append("the save file does not open with the first FECN mark in view and marked")
    if span > 1e9:
        failures.append(f"the view spans {span:.0f} ps: not zoomed on the episode")
    for fmt in ("fst", "vcd"):
        d = os.path.join(out, f"waves_{fmt}")
        if not grab(dumps[fmt], os.path.join(d, "network.gtkw"), os.path.join(d, "network.png")):
            failures.append(f"GTKWave did not resolve every trace of the {fmt} save file")
    # Moved elsewhere, the save file alone still opens its dump and translate filters.
    moved = os.path.join(out, "moved", "elsewhere")
    shutil.rmtree(os.path.join(out, "moved"), ignore_errors=True)
    shutil.copytree(os.path.join(out, "waves_fst"), moved)
    shutil.rmtree(os.path.join(out, "waves_fst"))
    if not grab(None, os.path.join(moved, "network.gtkw"), os.path.join(moved, "network_moved.png")):
        failures.append("moved to another directory, the save file alone does not open its dump")
    # The trip level beside the fills: S2/2's, from the scenario's Threshold and buffer.
    level = trip_levels(open(dumps["vcd"]).read(), "S2_port2_to_H5")
    want = expected_trip(ibcc, scenario)
    print(f"S2/2 trip level in the dump: enter {level.get('trip_enter_level')}, exit {level.get('trip_exit_level')}; "
          f"from the scenario: {want}")
    if level.get("trip_enter_level") != want[0] or level.get("trip_exit_level", want[0]) != want[1]:
        failures.append("the trip level traced beside the fills is not the scenario's")
    return Checks().report(failures, "the network waves open in GTKWave on the first FECN mark, zoomed, every trace "
                                     "resolved, also when moved; the trip level beside the fills")


if __name__ == "__main__":
    sys.exit(main())
