#!/usr/bin/env python3
"""A user's SystemC module bound into a fabric link through the ports'
TLM-2.0 sockets (tb/tlm_link_tap.cpp) and run.

  check_tlm_link_tap.py TAP_BIN IBCC_BIN SOURCE_DIR OUT_DIR

1. The tap on H5's link (the hotspot receiver of the seed ping-pong scenario, 4 ms: the
   contributors congest it from 2 ms) with no extra delay: every flow delivers exactly the
   packets and bytes, and sees exactly the FECN marks and BECNs, of `ibcc run` on the same
   scenario; the tap saw every packet both ports sent, every FECN mark going down was
   answered by a BECN coming up, and the credits of every drained packet came back through it.
2. The tap on H4's link (the ping's destination, 2 ms, no contributors yet) lengthening the
   link by 25 core cycles each way: the ping crosses it down and its answer up, so every
   round trip is longer by exactly 2 x 25 cycles (8-byte messages: the credits' longer way
   back never holds a packet up).
3. The tap in thread mode on H5's congested link: it holds every packet and every credit in a
   payload event queue and forwards it 100 ns (25 cycles) later from its own SC_THREAD. Every
   flow delivers exactly the packets and bytes, and sees exactly the FECN marks and BECNs, of
   `ibcc run` with that link 100 ns longer (propagation 5 ns -> 105 ns); with no delay, exactly
   those of `ibcc run` on the scenario as it is.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402


def run_tap(tap, scenario, node, port, extra, sim_time, mode="annotate"):
    out = subprocess.run([tap, scenario, node, str(port), str(extra), sim_time, mode], check=True, capture_output=True,
                         text=True)
    return json.loads(out.stdout)


def main():
    tap, ibcc, src, out = sys.argv[1:5]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    scenario = str(Path(src) / "topologies/seed-testbed/pingpong.yaml")
    checks = Checks()
    check = checks.check

    # 1. Identity with the tap in the congested receiver's link.
    run_dir = out / "run"
    subprocess.run([ibcc, "run", scenario, "--sim-time", "4ms", "--out", str(run_dir), "--quiet", "--force"], check=True)
    ref = {f["name"]: f for f in json.loads((run_dir / "summary.json").read_text())["flows"]}
    j = run_tap(tap, scenario, "H5", 1, 0, "4ms")
    (out / "tap_h5.json").write_text(json.dumps(j, indent=2))
    for f in j["flows"]:
        r = ref[f["name"]]
        for k in ("delivered_packets", "delivered_bytes", "fecn_marked", "becn_received"):
            check(f[k] == r[k], f"flow {f['name']} {k}: {f[k]} through the tap, {r[k]} in ibcc run")
    down, up = j["tap"]["b_to_a"], j["tap"]["a_to_b"]
    check(down["packets"] == j["port"]["b_out_packets"] and up["packets"] == j["port"]["a_out_packets"],
          f"the tap saw every packet: {down['packets']} down, {up['packets']} up")
    check(down["fecn"] > 100, f"the congested link carries FECN marks down: {down['fecn']}")
    check(0 <= down["fecn"] - up["becn"] <= 1, f"each FECN answered by a BECN up: {down['fecn']} marks, {up['becn']} BECNs")
    # The credits H5 returned: one per 64 bytes of each drained packet (payload + the
    # 26-byte data header; the contributors send whole 2 KiB packets).
    credits = sum(-(-(f["delivered_bytes"] // f["delivered_packets"] + 26) // 64) * f["delivered_packets"]
                  for f in j["flows"] if f["name"] != "P" and f["delivered_packets"])
    check(down["credits_back"] == credits,
          f"the credits of every drained packet came back through the tap: {down['credits_back']} (expected {credits})")

    # 2. A longer link: the ping crosses it down, its answer up: 2 x extra cycles per round trip.
    extra = 25
    base = run_tap(tap, scenario, "H4", 1, 0, "2ms")
    long_ = run_tap(tap, scenario, "H4", 1, extra, "2ms")
    ps_per_cycle = 4000  # the scenario's 250 MHz core clock
    p0, p1 = base["flows"][0], long_["flows"][0]
    check(p0["rtt_min_ps"] == p0["rtt_max_ps"] and p1["rtt_min_ps"] == p1["rtt_max_ps"],
          f"an unloaded ping-pong has one round-trip time: {p0['rtt_min_ps']}..{p0['rtt_max_ps']} ps, "
          f"{p1['rtt_min_ps']}..{p1['rtt_max_ps']} ps")
    check(p1["rtt_min_ps"] - p0["rtt_min_ps"] == 2 * extra * ps_per_cycle,
          f"{extra} cycles more each way: round trip {p0['rtt_min_ps']} -> {p1['rtt_min_ps']} ps "
          f"(+{p1['rtt_min_ps'] - p0['rtt_min_ps']}, expected +{2 * extra * ps_per_cycle})")

    # 3. A module that holds what crosses it and forwards it later from its own process.
    for extra, sets, what in ((0, [], "the scenario as it is"),
                              (25, ["--set", "topology.links[5].propagation=105ns"], "H5's link 100 ns longer")):
        run_dir = out / f"run_long{extra}"
        subprocess.run([ibcc, "run", scenario, "--sim-time", "4ms", "--out", str(run_dir), "--quiet", "--force", *sets],
                       check=True)
        ref = {f["name"]: f for f in json.loads((run_dir / "summary.json").read_text())["flows"]}
        j = run_tap(tap, scenario, "H5", 1, extra, "4ms", "thread")
        (out / f"tap_h5_thread{extra}.json").write_text(json.dumps(j, indent=2))
        same = [f["name"] for f in j["flows"]
                if all(f[k] == ref[f["name"]][k] for k in ("delivered_packets", "delivered_bytes", "fecn_marked",
                                                           "becn_received"))]
        check(len(same) == len(j["flows"]) == len(ref),
              f"thread mode, {extra} cycles: every flow as in ibcc run with {what} "
              f"({len(same)} of {len(ref)} flows identical: packets, bytes, FECN, BECN)")
        check(j["tap"]["b_to_a"]["packets"] == j["port"]["b_out_packets"] and j["tap"]["b_to_a"]["fecn"] > 100,
              f"thread mode, {extra} cycles: the tap held and forwarded every packet down "
              f"({j['tap']['b_to_a']['packets']}, {j['tap']['b_to_a']['fecn']} FECN-marked)")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
