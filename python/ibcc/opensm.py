"""opensm.conf's congestion-control options written from a resolved `cc:` section.

What each option sets is described once, in C++ (sc_models/net/scenario/import_opensm.h,
kOpenSmOptions), and read here from `ibcc keys --opensm`: the reader (`ibcc run
--opensm-conf`, `ibcc import opensm`) and this writer cannot disagree on a name, a range
or a Control_Map bit.
"""
import json
import subprocess


def _keys_json(ibcc, flag):
    """What `ibcc keys FLAG` prints, as JSON."""
    p = subprocess.run([ibcc, "keys", flag], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{ibcc} keys {flag}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def load_options(ibcc):
    """The option table of `ibcc keys --opensm`: a list of {name, form, key, max, map_bit, note}."""
    return _keys_json(ibcc, "--opensm")


def _value(cc, key):
    """A dotted cc.* key's value in a resolved cc: section."""
    node = cc
    for part in key.split(".")[1:]:
        node = node[part]
    return node


def effective_ca(ca, fields):
    """{sl: {field: value}} of a resolved cc.ca: per_sl entries over the SL defaults."""
    out = {sl: {f: ca.get(f, 0) for f in fields} for sl in range(16)}
    for e in ca.get("per_sl") or []:
        for f in fields:
            if f in e:
                out[int(e["sl"])][f] = e[f]
    return out


def per_sl_fields(options):
    return [o["key"] for o in options if o["form"] == "per_sl"]


def fragment(cc, options, source):
    """The lines of opensm.conf that set what `cc` (a resolved cc: section) says, as far as
    OpenSM can say it; `ibcc run --opensm-conf` reads them back to the same settings."""
    sw, ca = cc["switch"], cc["ca"]
    by_form = {}
    for o in options:
        by_form.setdefault(o["form"], []).append(o)
    switch = by_form.get("switch", [])
    bits = sorted({o["map_bit"] for o in switch})
    sw_map = sum(1 << b for b in bits)
    victim = by_form.get("victim_mask", [])
    lines = [f"# ibcc tune: the chosen configuration as OpenSM congestion-control options ({source})",
             "# Where: OpenSM's configuration file (/etc/opensm/opensm.conf by default; `opensm -c FILE` writes",
             "# the running defaults to start from). Replace its congestion_control and cc_* lines with these",
             "# (OpenSM takes the last value of an option it reads twice) and restart OpenSM: it configures",
             "# the switches and HCAs at its next sweep. Check first with: ibcc run SCENARIO --opensm-conf THIS_FILE"]
    for o in by_form.get("enable", []):
        lines.append(f"{o['name']} {'TRUE' if _value(cc, o['key']) else 'FALSE'}")
    named = ", ".join(f"bit {b} {' and '.join(o['name'].rsplit('_setting_', 1)[-1] for o in switch if o['map_bit'] == b)}"
                      for b in bits)
    for o in by_form.get("switch_map", []):
        lines.append(f"# Control_Map: {named}." + "".join(
            f" Bit {v['map_bit']} ({v['name'].rsplit('_setting_', 1)[-1]}) is left clear: the scenario's mask "
            f"({sw.get('victim_mask')}) stays; OpenSM sets one mask for every switch." for v in victim))
        lines.append(f"{o['name']} 0x{sw_map:x}")
    for o in switch:
        lines.append(f"{o['name']} {int(_value(cc, o['key']))}")
    for o in by_form.get("port_control", []):
        lines.append(f"{o['name']} {1 if _value(cc, o['key']) == 'sl' else 0}")
    for o in by_form.get("ca_map", []):
        lines.append(f"{o['name']} 0x{int(_value(cc, o['key'])):04x}")
    fields = per_sl_fields(options)
    per = effective_ca(ca, fields)
    # Per SL, grouped as OpenSM writes its own configuration: the SL's settings together.
    per_sl = by_form.get("per_sl", [])
    for sl in range(16 if per_sl else 0):
        lines.append(f"# SL = {sl}")
        for o in per_sl:
            lines.append(f"{o['name']} {sl} {int(per[sl][o['key']])}")
    for o in by_form.get("cct", []):
        cct = list(_value(cc, o["key"]))
        # OpenSM's CCTI_Limit is the number of entries minus one: the table is cut there.
        lines.append(f"{o['name']} " + ",".join(cct[:int(ca["ccti_limit"]) + 1]))
    not_opensm = {k: sw[k] for k in ("mapping", "marking_mode", "hysteresis") if k in sw}
    not_opensm.update({f"ca.{k}": ca[k] for k in ("ird_formula", "num_qps", "becn") if k in ca})
    lines.append("# Not OpenSM options (switch and HCA implementation choices; set them in the scenario): "
                 + ", ".join(f"{k}={v}" for k, v in not_opensm.items()))
    return "\n".join(lines) + "\n"


def settings(cc, options):
    """What an opensm.conf can carry of a resolved cc: section, normalised for comparison."""
    sw, ca = cc["switch"], cc["ca"]
    limit = int(ca["ccti_limit"])
    switch_keys = [o["key"].rsplit(".", 1)[-1] for o in options if o["form"] in ("switch", "victim_mask")]
    return {
        "enabled": bool(cc.get("enabled", True)),
        "switch": {k: sw[k] for k in switch_keys},
        "control": ca.get("control"), "control_map": int(ca.get("control_map", 0)),
        "per_sl": effective_ca(ca, per_sl_fields(options)), "ccti_limit": limit, "cct": list(ca["cct"])[:limit + 1],
    }


# ------------------------------------------------------------------------------------------
# NVIDIA's OpenSM: mlnx_congestion_control and its congestion-control policy file. The policy
# file is written by `ibcc describe --nvidia-policy-out` (C++, beside its reader, from the
# field table `ibcc keys --nvidia-cc` prints); here only the opensm.conf lines that point to it.
# ------------------------------------------------------------------------------------------


def load_nvidia_fields(ibcc):
    """The field table of `ibcc keys --nvidia-cc`: a list of {block, name, form, key, min, max, note}."""
    return _keys_json(ibcc, "--nvidia-cc")


def nvidia_carried(key, fields):
    """Whether a scenario key is one the policy file (or mlnx_congestion_control) sets."""
    return (key in {f["key"] for f in fields} or key.startswith("cc.nvidia.")
            or key in ("cc.enabled", "cc.marking", "cc.reaction"))


def nvidia_conf(policy_name, source):
    """opensm.conf's lines that turn NVIDIA's congestion control on with the policy file."""
    return "\n".join([
        f"# ibcc tune: the chosen configuration as NVIDIA OpenSM congestion control ({source})",
        "# Where: OpenSM's configuration file (/etc/opensm/opensm.conf by default). Copy the policy file",
        f"# ({policy_name}) beside it or give its full path below, and restart OpenSM. Check first with:",
        "# ibcc run SCENARIO --opensm-conf THIS_FILE",
        "mlnx_congestion_control 2",
        f"congestion_control_policy_file {policy_name}",
    ]) + "\n"


def policy_lines(text):
    """A policy file's settings: its lines without comments and blank lines."""
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
