#!/usr/bin/env python3
"""CTest `nvidia_cc_policy` (label nvidia_cc): NVIDIA OpenSM's congestion control as ibcc
reads it, runs it and writes it back.

  check_nvidia_cc.py IBCC SOURCE_DIR WORK_DIR

1. The reaction point's parameter mapping: the sample opensm.conf (mlnx_congestion_control 2)
   and its policy file (topologies/opensm/nvidia/) resolve to cc.marking nvidia with
   cc.reaction dcqcn and each field's value in the key it maps to, in the key's unit
   (microseconds, Mb/s, bytes, alpha in 1/1024, rpg_gd - 10, percent / 100); dce_tcp_g, which
   is not a power of two, is taken as the nearest g_shift with a note; a field not modelled
   is read and noted; cnp_sl_mode TRUE with cnp_sl 1 sends the CNPs on VL 1; rtt_sl_mode TRUE
   with rtt_resp_sl 1 sends the RTT responses on VL 1 once RTT probes are on, and is refused
   (naming its line) without them.
2. Bad policy files are refused, exit 2, naming the file, the line and the field.
3. The regime removes HOL blocking on the seed test bed's scenario 1: with the sample's CC the
   victim keeps >= 90 % of its rate alone in every phase (CC off, for contrast, it loses more
   than half once three contributors run).
4. The sample round-trips through `ibcc tune`: a tune of two of its keys on scenario 1 (its cc:
   section imported from the sample) writes opensm.conf and cc_policy.conf; importing those
   gives the chosen trial's values for the tuned keys and the sample's for every other field.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402

ENV = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
UNITS = {"Gb/s": 1e9, "Mb/s": 1e6, "kb/s": 1e3, "b/s": 1, "KiB": 1024, "MiB": 1 << 20, "KB": 1e3, "MB": 1e6, "B": 1}


def value(text):
    """A rate (b/s) or size (bytes) of a resolved scenario as a number."""
    t = str(text)
    for unit in sorted(UNITS, key=len, reverse=True):
        if t.endswith(unit):
            return round(float(t[:-len(unit)]) * UNITS[unit], 6)
    return round(float(t), 6)


def main():
    ibcc, src, work = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    c = Checks()
    conf = src / "topologies/opensm/nvidia/opensm.conf"
    scen1 = src / "topologies/seed-testbed/scenario1.yaml"

    def run(*args):
        return subprocess.run([ibcc, *map(str, args)], capture_output=True, text=True, env=ENV)

    # 1. The mapping.
    p = run("describe", scen1, "--opensm-conf", conf)
    c.check(p.returncode == 0, f"describe --opensm-conf the sample: exit {p.returncode} {p.stderr.strip()[:200]}")
    if p.returncode != 0:
        return c.result()
    cc = yaml.safe_load(p.stdout)["cc"]
    d, nv = cc["dcqcn"], cc["nvidia"]
    want = {
        "marking": (cc["marking"], "nvidia"), "reaction": (cc["reaction"], "dcqcn"), "enabled": (cc["enabled"], True),
        "rpg_time_reset 300 -> rate_timer": (d["rate_timer"], "300us"),
        "rpg_byte_reset 32767 -> byte_counter": (value(d["byte_counter"]), 32767),
        "rpg_threshold 1 -> fast_recovery_steps": (d["fast_recovery_steps"], 1),
        "rpg_max_rate 0 -> no max_rate (the line rate)": ("max_rate" in d, False),
        "rpg_ai_rate 5 -> ai_rate": (value(d["ai_rate"]), 5e6), "rpg_hai_rate 50 -> hai_rate": (value(d["hai_rate"]), 50e6),
        "rpg_gd 11 -> gd_log2 1": (d["gd_log2"], 1), "rpg_min_dec_fac 50 -> min_dec_factor": (d["min_dec_factor"], 0.5),
        "rpg_min_rate 1 -> min_rate": (value(d["min_rate"]), 1e6),
        "rate_to_set_on_first_cnp 0 -> no first_cnp_rate": ("first_cnp_rate" in d, False),
        "initial_alpha_value 1023 -> alpha_init": (d["alpha_init"], 1023 / 1024),
        "dce_tcp_g 1019 -> g_shift 8 (nearest)": (d["g_shift"], 8),
        "dce_tcp_rtt 1 -> alpha_timer": (d["alpha_timer"], "1us"),
        "rate_reduce_monitor_period 4 -> reduce_period": (d["reduce_period"], "4us"),
        "min_time_between_cnps 4 -> cnp_interval": (d["cnp_interval"], "4us"),
        "aqs_weight 3": (nv["aqs_weight"], 3), "aqs_time 1 -> 1.024 us": (nv["aqs_time"], "1024ns"),
        "profile default (10,16384,65536)": ((nv["profile"]["percent"], value(nv["profile"]["min"]),
                                              value(nv["profile"]["max"])), (10, 16384, 65536)),
    }
    for what, (got, expect) in want.items():
        c.check(got == expect, f"{what}: {got!r} (expected {expect!r})")
    c.check("dce_tcp_g: g = 5/1024 is not a power of two" in p.stdout, "the rounding of dce_tcp_g is noted")
    c.check("cnp_sl" not in d, "without cnp_sl_mode, CNPs keep their flow's SL (no cc.dcqcn.cnp_sl)")

    # CNPs on their own SL: cnp_sl_mode TRUE with cnp_sl 1 puts them on VL 1 (scenario 1 has
    # two VLs, its flows on SL 0, and VL 1 carries nothing without it).
    sl_dir = work / "cnp_sl"
    sl_dir.mkdir()
    (sl_dir / "cc_policy.conf").write_text((src / "topologies/opensm/nvidia/cc_policy.conf").read_text().replace(
        "ca_cc_end", "    cnp_sl_mode: TRUE\n    cnp_sl: 1\nca_cc_end"))
    shutil.copy(conf, sl_dir / "opensm.conf")
    p = run("run", scen1, "--opensm-conf", sl_dir / "opensm.conf", "--sim-time", "2500ms", "--out", sl_dir / "run", "--quiet")
    if p.returncode == 0:
        res = yaml.safe_load((sl_dir / "run" / "resolved.yaml").read_text())["cc"]["dcqcn"]
        vl_pkts = {}
        for r in csv.DictReader(open(sl_dir / "run" / "ports.csv")):
            vl_pkts[r["vl"]] = vl_pkts.get(r["vl"], 0) + int(r["PortXmitPkts"] or 0)
        c.check(res.get("cnp_sl") == 1 and vl_pkts.get("1", 0) > 0,
                f"cnp_sl_mode TRUE, cnp_sl 1: cc.dcqcn.cnp_sl {res.get('cnp_sl')}, packets sent per VL {vl_pkts}")
    else:
        c.check(False, f"cnp_sl run: exit {p.returncode} {p.stderr.strip()[:200]}")

    # RTT responses on their own SL: rtt_sl_mode TRUE with rtt_resp_sl 1 puts them on VL 1 once
    # RTT probes are on (the file does not carry the probe interval); without probes the line
    # is refused as a key without effect.
    rtt_dir = work / "rtt_sl"
    rtt_dir.mkdir()
    (rtt_dir / "cc_policy.conf").write_text((src / "topologies/opensm/nvidia/cc_policy.conf").read_text().replace(
        "ca_cc_end", "    rtt_sl_mode: TRUE\n    rtt_resp_sl: 1\nca_cc_end"))
    shutil.copy(conf, rtt_dir / "opensm.conf")
    p = run("describe", scen1, "--opensm-conf", rtt_dir / "opensm.conf")
    c.check(p.returncode == 2 and f"{rtt_dir / 'cc_policy.conf'}:" in p.stderr and "cc.dcqcn.rtt_probe_interval" in p.stderr,
            f"rtt_sl_mode TRUE without RTT probes: exit {p.returncode}, naming the line and the probe key: {p.stderr.strip()[:200]}")
    p = run("run", scen1, "--opensm-conf", rtt_dir / "opensm.conf", "--set", "cc.dcqcn.rtt_probe_interval=20us",
            "--sim-time", "200ms", "--out", rtt_dir / "run", "--quiet")
    if p.returncode == 0:
        res = yaml.safe_load((rtt_dir / "run" / "resolved.yaml").read_text())["cc"]["dcqcn"]
        vl_pkts = {}
        for r in csv.DictReader(open(rtt_dir / "run" / "ports.csv")):
            vl_pkts[r["vl"]] = vl_pkts.get(r["vl"], 0) + int(r["PortXmitPkts"] or 0)
        probes = [f.get("rtt_probes", {}) for f in json.load(open(rtt_dir / "run" / "summary.json"))["flows"]]
        sent = sum(pr.get("sent", 0) for pr in probes)
        answered = sum(pr.get("rtt_us", {}).get("count", 0) for pr in probes)
        c.check(res.get("rtt_resp_sl") == 1 and vl_pkts.get("1", 0) > 0 and sent > 0 and answered > 0,
                f"rtt_sl_mode TRUE, rtt_resp_sl 1, probes every 20 us: cc.dcqcn.rtt_resp_sl {res.get('rtt_resp_sl')}, "
                f"packets sent per VL {vl_pkts}, probes sent {sent}, answered in the window {answered}")
    else:
        c.check(False, f"rtt_sl run: exit {p.returncode} {p.stderr.strip()[:200]}")

    # 2. Bad policy files.
    good = (src / "topologies/opensm/nvidia/cc_policy.conf").read_text()
    bad = {
        "unknown_field": (good.replace("rpg_ai_rate: 5 ", "rpg_ai_rte: 5 "), "rpg_ai_rte: not a field of ca_cc"),
        "out_of_range": (good.replace("aqs_weight: 3 ", "aqs_weight: 16 "), "aqs_weight: out of range: expected 0..15"),
        "not_a_number": (good.replace("rpg_gd: 11 ", "rpg_gd: eleven "), "rpg_gd: expected a number"),
        "bad_bool": (good.replace("enable_react: TRUE", "enable_react: yes"), "enable_react: expected TRUE or FALSE"),
        "unclosed": (good.replace("ca_cc_end", ""), "the block is never closed"),
        "port_group": (good.replace("group: all_cas", "group: gpu_nodes"), "port groups are not modelled"),
        "bad_profile": (good.replace("(10,16384,65536)", "(10,65536,16384)"), "max must be above min"),
        "undefined_profile": (good + "vl_profiles_start\n    vl_to_profile: (1,deep)\nvl_profiles_end\n",
                              "no cc_profile named 'deep'"),
    }
    for name, (text, expect) in bad.items():
        d_ = work / "bad" / name
        d_.mkdir(parents=True)
        (d_ / "cc_policy.conf").write_text(text)
        shutil.copy(conf, d_ / "opensm.conf")
        p = run("describe", scen1, "--opensm-conf", d_ / "opensm.conf")
        line_named = f"{d_ / 'cc_policy.conf'}:" in p.stderr
        c.check(p.returncode == 2 and expect in p.stderr and line_named,
                f"bad policy ({name}) -> exit {p.returncode}: {p.stderr.strip()[:200]}")

    # 3. Scenario 1: HOL blocking removed.
    def phases(out, *args):
        p = run("run", scen1, "--out", out, "--quiet", *args)
        if p.returncode != 0:
            c.check(False, f"scenario 1 {' '.join(map(str, args))}: exit {p.returncode} {p.stderr.strip()[:200]}")
            return None
        return json.loads((Path(out) / "summary.json").read_text())["phases"]

    nvp = phases(work / "s1_nvidia", "--opensm-conf", conf)
    offp = phases(work / "s1_off", "--cc", "off")
    if nvp and offp:
        alone = nvp[0]["gbps"]["F1"]
        for ph in nvp[1:]:
            c.check(ph["gbps"]["F1"] >= 0.9 * alone,
                    f"NVIDIA-style CC, phase from {ph['start_us'] / 1e6:.0f} s: victim {ph['gbps']['F1']:.2f} Gb/s "
                    f">= 90 % of its {alone:.2f} alone")
        c.check(offp[-1]["gbps"]["F1"] < 0.5 * alone,
                f"CC off, last phase: the victim is HOL-blocked ({offp[-1]['gbps']['F1']:.2f} Gb/s)")

    # 4. Round trip through ibcc tune.
    p = run("import", "opensm", conf)
    scen = yaml.safe_load(scen1.read_text())
    scen["cc"] = yaml.safe_load(p.stdout)["cc"]
    scen["sim"].update({"time": "12ms", "log_interval": "1ms"})
    for i, f in enumerate(scen["traffic"]["flows"]):
        f["start"] = f"{2 * i}ms"
    tuned_scen = work / "scenario1_nvidia.yaml"
    tuned_scen.write_text(yaml.safe_dump(scen, sort_keys=False))
    out = work / "tune"
    p = run("tune", tuned_scen, "--out", out, "--quiet", "--trials", "3", "--seed", "1",
            "--space", "cc.nvidia.profile.max=32KB:256KB", "--space", "cc.dcqcn.rate_timer=50us:500us",
            "--objective", "group_total.victim", "--window", "8ms..12ms")
    c.check(p.returncode == 0, f"the tune runs (exit {p.returncode}) {p.stderr.strip()[-300:]}")
    if p.returncode != 0:
        return c.result()
    c.check((out / "opensm.conf").exists() and (out / "cc_policy.conf").exists(),
            "the tune wrote opensm.conf and cc_policy.conf")
    c.check("cc_policy.conf (NVIDIA's congestion-control policy file, read back and checked)"
            in (out / "report.txt").read_text(), "the report names the policy file, read back and checked")
    chosen = json.loads((out / "tune.json").read_text())["chosen"]
    row = next(r for r in csv.DictReader(open(out / "tune.csv")) if int(r["trial"]) == chosen["trial"])
    back = yaml.safe_load(run("import", "opensm", out / "opensm.conf").stdout)["cc"]
    sample = yaml.safe_load(run("import", "opensm", conf).stdout)["cc"]
    c.check(value(back["nvidia"]["profile"]["max"]) == int(float(row["cc.nvidia.profile.max [B]"])),
            f"profile max read back = the chosen trial's ({back['nvidia']['profile']['max']}, {row['cc.nvidia.profile.max [B]']})")
    rt_us = float(row["cc.dcqcn.rate_timer [us]"])
    c.check(back["dcqcn"]["rate_timer"] == f"{round(rt_us)}us",
            f"rpg_time_reset read back = the chosen rate timer in whole us ({back['dcqcn']['rate_timer']}, {rt_us:.3f} us)")
    untuned_same = all(back["dcqcn"][k] == v for k, v in sample["dcqcn"].items() if k != "rate_timer")
    untuned_same &= all(back["nvidia"][k] == v for k, v in sample["nvidia"].items() if k != "profile")
    untuned_same &= all(back["nvidia"]["profile"][k] == sample["nvidia"]["profile"][k] for k in ("percent", "min"))
    c.check(untuned_same and back["marking"] == "nvidia" and back["reaction"] == "dcqcn",
            "every other field of the tune's policy file is the sample's")
    return c.result()


if __name__ == "__main__":
    sys.exit(main())
