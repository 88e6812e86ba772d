#!/usr/bin/env python3
"""The docs run: every command block of README.md and docs/user_guide.md, run as written.

A block is a paragraph indented by four spaces (inside a list item: deeper). Each block runs
with bash in a scratch tree (the source's entries symlinked, a fresh out/), so the documented
`out/...` paths work and nothing in the source's out/ is touched. A block fails when a command
exits non-zero or when a number the text states is not in its output within the tolerance.

Annotations, in an HTML comment right before a block:
  <!-- docs-test: skip REASON -->                 not run (REASON is printed)
  <!-- docs-test: sim-time T -->                  `ibcc run`/`ibcc sweep` commands of the block run
                                                  with --sim-time T (a long run, capped)
  <!-- docs-test: expect "REGEX" VALUE TOL -->    every match of REGEX's group 1 in the block's
                                                  output is VALUE ± TOL, and there is one at least
  <!-- docs-test: csv PATH "COL=V1,V2;COL2=V" COLUMN LO HI -->
                                                  in the CSV file PATH the block wrote (a sweep.csv),
                                                  every row whose COL is one of V1, V2 (and COL2 is
                                                  V) has LO <= COLUMN <= HI, and there is one at least
Synopsis blocks (placeholders such as SCENARIO or [--option]) are recognised and not run, and
neither is `gtkwave` (a GUI; the waves tests load the same save files headless).

  check_docs.py SOURCE_DIR [BLOCK_FILTER]
"""
import csv
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402

DOCS = ["README.md", "docs/user_guide.md"]
ANNOTATION = re.compile(r"<!--\s*docs-test:\s*(.*?)\s*-->")
SYNOPSIS = re.compile(r"\b(SCENARIO|DIR|FILE|KEY=VALUE|DUMP_LFTS|NAME)\b|\[--|\[[A-Z]")


def blocks(path):
    """(line, commands, annotations) of each indented block."""
    lines = path.read_text().split("\n")
    out, i = [], 0
    pending = []
    while i < len(lines):
        m = ANNOTATION.search(lines[i])
        if m:
            pending.append(m.group(1))
            i += 1
            continue
        indent = len(lines[i]) - len(lines[i].lstrip(" "))
        prev_blank = i == 0 or lines[i - 1].strip() == "" or ANNOTATION.search(lines[i - 1])
        if lines[i].strip() and indent >= 4 and prev_blank and not lines[i].lstrip().startswith(("-", "|", "*")):
            start, body = i + 1, []
            while i < len(lines) and (lines[i].strip() == "" or len(lines[i]) - len(lines[i].lstrip(" ")) >= indent):
                if lines[i].strip() == "" and (i + 1 >= len(lines) or len(lines[i + 1]) - len(lines[i + 1].lstrip(" ")) < indent):
                    break
                body.append(lines[i][indent:])
                i += 1
            out.append((start, body, pending))
            pending = []
            continue
        if lines[i].strip():
            pending = []
        i += 1
    return out


def commands(body):
    """Shell commands of a block: continuation lines joined, comments removed. A python3 -c "..."
    spanning lines stays one command."""
    text = "\n".join(body)
    text = re.sub(r"\\\n\s*", " ", text)
    cmds, cur = [], ""
    for line in text.split("\n"):
        cur = f"{cur}\n{line}" if cur else line
        if cur.count('"') % 2 == 0:
            cmds.append(re.sub(r"\s+#\s.*$", "", cur) if "\n" not in cur else cur)
            cur = ""
    return [c for c in cmds if c.strip() and not c.lstrip().startswith("gtkwave ")]


def cap(cmd, sim_time):
    if not sim_time or not re.match(r"build/bin/ibcc (run|sweep)\b", cmd):
        return cmd
    if "--sim-time" in cmd:
        return re.sub(r"--sim-time \S+", f"--sim-time {sim_time}", cmd)
    return f"{cmd} --sim-time {sim_time}"


def check_csv(path, conds, column, lo, hi):
    """None if every row of the CSV matching all conds has lo <= column <= hi (and one does);
    else what is wrong."""
    if not path.is_file():
        return f"{path.name} was not written"
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for k, _ in conds + [(column, None)]:
        if rows and k not in rows[0]:
            return f"{path.name} has no column {k} (columns: {', '.join(rows[0])})"
    picked = [r for r in rows if all(r[k] in values for k, values in conds)]
    if not picked:
        return "no row matches"
    bad = [r for r in picked if r[column] == "" or not lo <= float(r[column]) <= hi]
    if bad:
        return f"{len(bad)} of {len(picked)} rows outside, e.g. " + ", ".join(
            "{" + ", ".join(f"{k}={r[k]}" for k, _ in conds) + f", {column}={r[column] or 'n/a'}" + "}" for r in bad[:3])
    return None


def main():
    src = Path(sys.argv[1]).resolve()
    only = sys.argv[2] if len(sys.argv) > 2 else None
    scratch = Path(tempfile.mkdtemp(prefix="ibcc-docs-"))
    for entry in src.iterdir():
        if entry.name not in ("out", ".git"):
            (scratch / entry.name).symlink_to(entry)
    (scratch / "out").mkdir()
    failures, ran, skipped = [], 0, 0
    for doc in DOCS:
        for line, body, notes in blocks(src / doc):
            where = f"{doc}:{line}"
            if only and only not in where:
                continue
            cmds = commands(body)
            skip = next((n[5:].strip() for n in notes if n.startswith("skip")), None)
            if skip is not None:
                print(f"skip {where}: {skip}")
                skipped += 1
                continue
            if any(SYNOPSIS.search(c) for c in cmds):
                print(f"skip {where}: a synopsis (placeholders)")
                skipped += 1
                continue
            sim_time = next((n.split()[1] for n in notes if n.startswith("sim-time")), None)
            expects, csv_checks = [], []
            for n in notes:
                c = re.match(r'csv\s+(\S+)\s+"(.*)"\s+(\S+)\s+(\S+)\s+(\S+)$', n)
                if n.startswith("csv"):
                    if not c:
                        failures.append(f"{where}: malformed annotation '{n}'")
                        continue
                    conds = [tuple(part.split("=", 1)) for part in c.group(2).split(";") if part]
                    csv_checks.append((c.group(1), [(k, v.split(",")) for k, v in conds], c.group(3),
                                       float(c.group(4)), float(c.group(5))))
                    continue
                m = re.match(r'expect\s+"(.*)"\s+(\S+)\s+(\S+)$', n)
                if n.startswith("expect") and not m:
                    failures.append(f"{where}: malformed annotation '{n}'")
                if m:
                    expects.append((re.compile(m.group(1)), float(m.group(2)), float(m.group(3))))
            output = ""
            t0 = time.time()
            ok = True
            for c in cmds:
                c = cap(c, sim_time)
                r = subprocess.run(["bash", "-c", c], cwd=scratch, capture_output=True, text=True, timeout=1200,
                                   env={**os.environ, "IBCC_DOCS_TEST": "1"})
                output += r.stdout + r.stderr
                if r.returncode != 0:
                    failures.append(f"{where}: `{c[:120]}` exit {r.returncode}: {(r.stderr or r.stdout).strip()[-400:]}")
                    ok = False
                    break
            for rx, value, tol in expects if ok else []:
                found = [float(x) for x in rx.findall(output)]
                bad = [x for x in found if abs(x - value) > tol]
                if not found or bad:
                    failures.append(f"{where}: the text states {rx.pattern} = {value} ± {tol}; output has "
                                    f"{found[:10] if found else 'no match'}")
                    ok = False
            for path, conds, column, lo, hi in csv_checks if ok else []:
                problem = check_csv(scratch / path, conds, column, lo, hi)
                if problem:
                    failures.append(f"{where}: the text states {column} in [{lo}, {hi}] where "
                                    f"{' and '.join(k + ' in ' + ','.join(v) for k, v in conds)}: {problem}")
                    ok = False
            ran += 1
            checked = len(expects) + len(csv_checks)
            print(f"{'PASS' if ok else 'FAIL'} {where} ({len(cmds)} commands, {time.time() - t0:.0f} s"
                  f"{', sim-time ' + sim_time if sim_time else ''}{f', {checked} numbers checked' if checked else ''})")
    return Checks().report(failures, f"{ran} blocks of the docs run, {skipped} skipped")


if __name__ == "__main__":
    sys.exit(main())
