#!/usr/bin/env python3
"""Generates ibcc's man page and bash completion from its own --help texts (so they cannot
drift from the options the binary takes).

  gen_man_completion.py IBCC MAN_DIR [COMPLETION_DIR]   writes MAN_DIR/ibcc.1 and
                                                       COMPLETION_DIR/ibcc.bash (default MAN_DIR)
"""
import re
import subprocess
import sys
from pathlib import Path


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
    page += [".SH FILES", "Scenario files: see docs/configuration.md (generated key reference) and docs/scenario.schema.json.",
             ".SH SEE ALSO", "docs/user_guide.md, docs/configuration.md, \\fBgtkwave\\fR(1)"]
    (out / "ibcc.1").write_text("\n".join(page) + "\n")

    cases = "\n".join(f'      {n}) opts="{" ".join(o)}" ;;' for n, o in completion.items())
    script = f"""# bash completion for ibcc (generated from its --help texts by scripts/gen_man_completion.py)
_ibcc() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} sub=${{COMP_WORDS[1]}} opts
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "{' '.join(completion)} --help --version" -- "$cur"))
    return
  fi
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
