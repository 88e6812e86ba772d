#!/usr/bin/env python3
"""The testplan (verif/testplan.yaml) as data: writes verif/testplan.md from it, and checks it
against the tests CTest knows.

  testplan.py SOURCE_DIR --write          write verif/testplan.md
  testplan.py SOURCE_DIR BUILD_DIR        check (exit 1 listing what fails): every CTest of
                                          BUILD_DIR (`ctest -N`) belongs to a feature, every
                                          test the plan names is a CTest (a name ending in '*'
                                          matches at least one), no feature is without tests,
                                          and verif/testplan.md is what --write would write
"""
import fnmatch
import os
import re
import subprocess
import sys

import yaml


def load(src):
    with open(os.path.join(src, "verif", "testplan.yaml"), encoding="utf-8") as f:
        return yaml.safe_load(f)


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def codes(names):
    return ", ".join(f"`{n}`" for n in names)


def render(plan):
    out = [f"# {plan['title']}", "",
           "<!-- Generated from verif/testplan.yaml by verif/testplan.py; edit the YAML. -->", "",
           plan["intro"], ""]
    for sec in plan["sections"]:
        out += [f"## {sec['section']}", ""]
        if sec.get("intro"):
            out += [sec["intro"], ""]
        feats = sec["features"]
        if any("directed" in f for f in feats):
            out += ["| feature | directed test | unit test | coverage bins | CTests |", "|---|---|---|---|---|"]
            out += [f"| {cell(f['feature'])} | {cell(f['directed'])} | {cell(f['unit'])} | {cell(f['coverage'])} | "
                    f"{codes(f['tests'])} |" for f in feats]
        elif any("where" in f for f in feats):
            out += ["| feature | where | coverage bins | CTests |", "|---|---|---|---|"]
            out += [f"| {cell(f['feature'])} | {cell(f['where'])} | {cell(f['coverage'])} | {codes(f['tests'])} |"
                    for f in feats]
        else:
            out += ["| feature | what is checked | CTests |", "|---|---|---|"]
            out += [f"| {cell(f['feature'])} | {cell(f.get('description', ''))} | {codes(f['tests'])} |" for f in feats]
        out.append("")
    return "\n".join(out)


def ctest_names(build):
    p = subprocess.run(["ctest", "--test-dir", build, "-N"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"ctest -N in {build} failed: {p.stderr.strip()}")
    return re.findall(r"^\s*Test\s+#\d+: (\S+)", p.stdout, re.M)


def check(src, build):
    plan, problems = load(src), []
    names = ctest_names(build)
    covered = set()
    for sec in plan["sections"]:
        for f in sec["features"]:
            if not f.get("tests"):
                problems.append(f"{sec['section']}: '{f['feature']}' names no test")
            for t in f.get("tests", []):
                hits = fnmatch.filter(names, t) if t.endswith("*") else [t] if t in names else []
                if not hits:
                    problems.append(f"{sec['section']}: '{f['feature']}' names {t}, which is no CTest of {build}")
                covered.update(hits)
    for n in names:
        if n not in covered:
            problems.append(f"CTest {n} belongs to no feature of verif/testplan.yaml")
    page = os.path.join(src, "verif", "testplan.md")
    with open(page, encoding="utf-8") as fh:
        if fh.read() != render(plan):
            problems.append("verif/testplan.md is not what verif/testplan.yaml gives "
                            "(python3 verif/testplan.py SOURCE_DIR --write)")
    for p in problems:
        print("FAIL", p)
    nfeat = sum(len(s["features"]) for s in plan["sections"])
    print(f"{'PASS' if not problems else 'FAIL'} testplan: {nfeat} features cover {len(covered)} of "
          f"{len(names)} CTests")
    return 1 if problems else 0


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src = sys.argv[1]
    if sys.argv[2] == "--write":
        with open(os.path.join(src, "verif", "testplan.md"), "w", encoding="utf-8") as f:
            f.write(render(load(src)))
        return 0
    return check(src, sys.argv[2])


if __name__ == "__main__":
    sys.exit(main())
