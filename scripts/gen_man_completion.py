#!/usr/bin/env python3
"""Generates ibcc's man page and bash completion from its own --help texts (so they cannot
drift from the options the binary takes); the completion also offers the scenario keys after
--set, --grid and --space (from `ibcc keys`) and the metric names after --metric and
--objective (those of the shipped scenarios' regimes, from `ibcc describe --points`).

  gen_man_completion.py IBCC MAN_DIR [COMPLETION_DIR]   writes MAN_DIR/ibcc.1 and
                                                       COMPLETION_DIR/ibcc.bash (default MAN_DIR)
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The man page's EXAMPLES: (what it does, the command). verif/cli/check_man_completion.py checks
# that each scenario exists and each option is one its subcommand takes.
EXAMPLES = [
    ("Run the seed test bed's scenario 1 and draw its pictures",
     "ibcc run topologies/seed-testbed/scenario1.yaml --out out/s1 --plot"),
    ("The same over 5 seeds, with random marking: each metric's mean and 95 % confidence interval",
     "ibcc run topologies/seed-testbed/scenario1.yaml --out out/s1_seeds --seeds 5 --set cc.switch.marking_mode=random"),
    ("Sweep Threshold and the mapping on the test bed, then the heat maps",
     "ibcc sweep topologies/seed-testbed/study.yaml --out out/study --grid cc.switch.threshold=1:15:2 "
     "--grid cc.switch.mapping=per_voq,sum"),
    ("Tune Marking_Rate and CCTI_Timer for the victim and fairness; writes report.txt and opensm.conf",
     "ibcc tune topologies/seed-testbed/study.yaml --out out/tune --space cc.switch.marking_rate=0:15:int "
     "--space cc.ca.ccti_timer=10:2400:log --objective victim --objective jain --trials 20"),
    ("Overlay CC off and CC on",
     "ibcc plot out/s1_off out/s1 --label 'CC off' --label 'CC on' --out out/compare"),
    ("Record the waves of port S1/36 around scenario 1's first congestion episode",
     "ibcc run topologies/seed-testbed/scenario1.yaml --out out/s1w --sim-time 2050ms --waves out/s1w/waves "
     "--trace ports=S1/36 --waves-window 2s..2.05s"),
    ("Put the Verilated FECN marker at S1/36 in the loop",
     "ibcc run topologies/seed-testbed/scenario1.yaml --out out/s1rtl --sim-time 6ms --rtl S1/36"),
    ("Co-simulate the RTL of the CCTI block against its C++ reference, every test",
     "ibcc cosim --block ccti --test all"),
    ("Import a fabric and its forwarding tables from ibnetdiscover and dump_lfts",
     "ibcc import ibnetdiscover topologies/ibnetdiscover/fattree8.ibnetdiscover "
     "--lfts topologies/ibnetdiscover/fattree8.lfts --out fabric.yaml"),
]
# Scenarios whose metric names the completion offers (one per regime).
METRIC_SCENARIOS = ["topologies/seed-testbed/scenario1.yaml", "topologies/dcqcn/incast2.yaml",
                    "topologies/lossy/gather.yaml", "topologies/seed-testbed/pingpong.yaml"]


def scenario_keys(ibcc):
    out = subprocess.run([ibcc, "keys"], check=True, capture_output=True, text=True).stdout
    return sorted({ln.split()[0] for ln in out.splitlines() if ln.strip() and "[]" not in ln.split()[0]})


def metric_names(ibcc):
    """The metrics of the shipped scenarios' runs, per-flow and per-group ones as their prefix."""
    names = set()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write("[[]]")
    try:
        for sc in METRIC_SCENARIOS:
            p = subprocess.run([ibcc, "describe", str(ROOT / sc), "--points", f.name], capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit(f"gen_man_completion: ibcc describe {sc} --points: {p.stderr.strip()}")
            for m in json.loads(p.stdout)["shapes"][0]["metrics"]:
                head, _, _ = m.partition(".")
                names.add(m if "." not in m else f"{head}.")
    finally:
        os.unlink(f.name)
    return sorted(names)


def help_of(ibcc, *args):
    return subprocess.run([ibcc, *args, "--help"], check=True, capture_output=True, text=True).stdout


def parse(text):
    """(description, usage, [(option, argument, meaning)], [positional]) of one --help text."""
    lines = text.splitlines()
    desc = lines[0] if lines and not lines[0].startswith("Usage") else ""
    usage = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("Usage:")), "")
    opts, pos, section = [], [], None
    for ln in lines:
        if ln.rstrip().endswith(":") and not ln.startswith(" "):
            section = ln.rstrip(":").strip()
            continue
        if ln.startswith("[Option Group:"):
            section = "Options"
            continue
        # Options of an option group are indented further.
        m = re.match(r"\s{2,}(-\S+)\s*(.*)$", ln) or (re.match(r"  (\S+)\s*(.*)$", ln) if section == "Positionals" else None)
        if not m or section is None:
            if ln.startswith("      ") and opts:  # a wrapped meaning
                o = opts[-1]
                opts[-1] = (o[0], o[1], (o[2] + " " + ln.strip()).strip())
            continue
        name, rest = m.group(1), m.group(2)
        arg = ""
        am = re.match(r"((?:TEXT|UINT|INT|FLOAT|ENUM)\S*(?: REQUIRED)?(?: Needs: \S+)?)\s*(.*)$", rest)
        if am:
            arg, rest = am.group(1), am.group(2)
        if section == "Positionals":
            pos.append((name, arg, rest.strip()))
        elif section in ("Options", "format"):
            opts.append((name, arg, rest.strip()))
    return desc, usage, opts, pos


def roff(s):
    return s.replace("\\", "\\\\").replace("-", "\\-").replace("'", "\\(aq")


def main():
    ibcc, out = sys.argv[1], Path(sys.argv[2])
    comp_dir = Path(sys.argv[3]) if len(sys.argv) > 3 else out
    out.mkdir(parents=True, exist_ok=True)
    comp_dir.mkdir(parents=True, exist_ok=True)
    top = help_of(ibcc)
    subs = []
    in_subs = False
    for ln in top.splitlines():
        if ln.startswith(("SUBCOMMANDS:", "Subcommands:")):
            in_subs = True
            continue
        m = re.match(r"  (\w+)\s+(.*)$", ln)
        if in_subs and m:
            subs.append((m.group(1), m.group(2)))
    version = subprocess.run([ibcc, "--version"], capture_output=True, text=True).stdout.strip()
    page = [f'.TH IBCC 1 "" "{roff(version)}" "ibcc manual"',
            ".SH NAME", "ibcc \\- cycle-level InfiniBand congestion control models, RTL and co-simulation",
            ".SH SYNOPSIS", ".B ibcc", "\\fISUBCOMMAND\\fR [\\fIOPTIONS\\fR]", ".br", ".B ibcc --version",
            ".SH DESCRIPTION", roff(top.splitlines()[0]), ".PP",
            "Exit codes: 0 success; 1 a check failed or a result could not be written; 2 bad input; 130 interrupted.",
            ".SH SUBCOMMANDS"]
    completion = {}
    for name, summary in subs:
        desc, usage, opts, pos = parse(help_of(ibcc, name))
        page += [f".SS {roff(name)}", roff(desc or summary), ".PP",
                 f"\\fBibcc {roff(name)}\\fR {roff(usage.split(' ' + name, 1)[-1].strip())}"]
        for p, arg, meaning in pos:
            page += [".TP", f"\\fI{roff(p)}\\fR", roff(meaning)]
        for o, arg, meaning in opts:
            page += [".TP", f"\\fB{roff(o)}\\fR" + (f" \\fI{roff(arg.split()[0])}\\fR" if arg else ""), roff(meaning)]
        completion[name] = [o.split(",")[-1] for o, _, _ in opts if o.split(",")[-1].startswith("--")]
    page += [".SH EXAMPLES"]
    for what, cmd in EXAMPLES:
        page += [".PP", roff(what) + ":", ".PP", ".RS 4", ".nf", roff(cmd), ".fi", ".RE"]
    page += [".SH FILES", "Scenario files: see docs/configuration.md (generated key reference) and docs/scenario.schema.json.",
             ".SH SEE ALSO", "docs/user_guide.md, docs/configuration.md, \\fBgtkwave\\fR(1)"]
    (out / "ibcc.1").write_text("\n".join(page) + "\n")

    cases = "\n".join(f'      {n}) opts="{" ".join(o)}" ;;' for n, o in completion.items())
    keys = " ".join(k + "=" for k in scenario_keys(ibcc))
    metrics = " ".join(metric_names(ibcc))
    script = f"""# bash completion for ibcc (generated from its --help texts by scripts/gen_man_completion.py)
_ibcc_keys="{keys}"
_ibcc_metrics="{metrics}"
_ibcc() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} sub=${{COMP_WORDS[1]}} opts prev=""
  [ "$COMP_CWORD" -gt 0 ] && prev=${{COMP_WORDS[COMP_CWORD-1]}}
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "{' '.join(completion)} --help --version" -- "$cur"))
    return
  fi
  case "$prev" in
    --set|--grid|--space)  # a scenario key, then its value
      COMPREPLY=($(compgen -W "$_ibcc_keys" -- "$cur"))
      compopt -o nospace 2>/dev/null
      return ;;
    --metric|--objective)  # (per flow and per group: throughput.<flow>, group_total.<group>, ...)
      COMPREPLY=($(compgen -W "$_ibcc_metrics" -- "$cur"))
      [[ "${{COMPREPLY[0]}}" == *. ]] && compopt -o nospace 2>/dev/null
      return ;;
  esac
  case "$sub" in
{cases}
      *) opts="" ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}}
complete -o filenames -F _ibcc ibcc
"""
    (comp_dir / "ibcc.bash").write_text(script)
    print(f"{out / 'ibcc.1'} ({len(subs)} subcommands), {comp_dir / 'ibcc.bash'}")


if __name__ == "__main__":
    main()
