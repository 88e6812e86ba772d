#!/usr/bin/env python3
"""The model code's house rules, checked on every file under sc_models/:

  - no file is longer than 600 lines (one class per hardware unit, each in its own file);
  - nothing prints or ends the process: model code reports through exceptions and return
    values, and printing, exit codes and CLI option names live in src/. Flagged: std::cout,
    std::cerr, std::clog, printf/fprintf/puts/perror, fmt::print, exit/_Exit/quick_exit/
    abort/std::terminate and SystemC's SC_REPORT_* (which prints), outside comments and
    string literals;
  - the layers' include rules (INCLUDE_RULES): the CC cores (sc_models/cc/) include nothing
    of the network model; the model (net/fabric/) includes the scenario's data headers but
    not its reader, and of the observers only the probe it reports to and the histograms it
    fills; the data (scenario.h, topology, units) include neither reader nor model; the
    reader includes no model; the observers (net/observe/) reach the model only through
    fabric.h; the RTL loop (net/rtl_loop/) only through the engine interface it implements;
  - the units that carry packets (net/fabric/switch.*, hca.*) name no CC regime: marking and
    reaction are classes behind MarkingPoint and ReactionPoint, chosen by name from their
    registries (REGIME_WORDS: the regimes' enums, classes, cores and scenario settings);
    and they read the scenario only where their typed configuration is built from it
    (SwitchConfig::from, HcaConfig::from), never while they run (`ctx_.scenario()`).

Usage: check_model_code.py SOURCE_DIR [--planted]   (exit 0: all hold, 1: lists what breaks them)
  --planted: also check that the rules catch planted violations (the model including the
  scenario reader; a branch on the regime in the switch) in a copy of the tree; exit 1 if
  they do not.
"""
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402

MAX_LINES = 600
FORBIDDEN = re.compile(r"\bstd::(cout|cerr|clog)\b|(?<![\w:.>])(printf|fprintf|puts|perror|exit|_Exit|quick_exit|abort)\s*\("
                       r"|\bstd::(exit|_Exit|quick_exit|abort|terminate)\b|\bfmt::print\b|\bSC_REPORT_\w+")


READER = ("net/scenario/scenario_yaml.h", "net/scenario/scenario_reader.h", "net/scenario/scenario_keys.h",
          "net/scenario/yaml_document.h", "net/scenario/import_ibnetdiscover.h", "net/scenario/import_opensm.h")
DATA_FILES = ("scenario.h", "topology.h", "topology.cpp", "topology_gen.cpp", "units.h", "units.cpp", "shared_seq.h")
# (which files, the rule's name, is an include allowed?) for includes of the form "cc/..." or "net/...".
INCLUDE_RULES = [
    (lambda rel: rel.startswith("sc_models/cc/"), "cores do not include the network model",
     lambda inc: not inc.startswith("net/")),
    (lambda rel: rel.startswith("sc_models/net/fabric/"), "the model does not include the scenario reader, and of "
     "the observers only observe/probe.h and observe/latency_histogram.h",
     lambda inc: inc not in READER and (not inc.startswith("net/observe/")
                                        or inc in ("net/observe/probe.h", "net/observe/latency_histogram.h"))),
    (lambda rel: rel.startswith("sc_models/net/scenario/") and os.path.basename(rel) in DATA_FILES,
     "the scenario's data include neither its reader nor the model, observers or RTL loop",
     lambda inc: inc not in READER and not inc.startswith(("net/fabric/", "net/observe/", "net/rtl_loop/"))),
    (lambda rel: rel.startswith("sc_models/net/scenario/"), "the scenario reader does not include the model",
     lambda inc: not inc.startswith(("net/fabric/", "net/observe/", "net/rtl_loop/"))),
    (lambda rel: rel.startswith("sc_models/net/observe/"), "observers reach the model only through fabric/fabric.h",
     lambda inc: not inc.startswith("net/fabric/") or inc == "net/fabric/fabric.h"),
    (lambda rel: rel.startswith("sc_models/net/rtl_loop/"), "the RTL loop reaches the model only through "
     "fabric/rtl_engine.h", lambda inc: not inc.startswith(("net/fabric/", "net/observe/"))
     or inc == "net/fabric/rtl_engine.h"),
]
REGIME_UNITS = ("sc_models/net/fabric/switch.h", "sc_models/net/fabric/switch.cpp", "sc_models/net/fabric/hca.h",
                "sc_models/net/fabric/hca.cpp", "sc_models/net/fabric/hca_sender.h", "sc_models/net/fabric/hca_sender.cpp",
                "sc_models/net/fabric/input_unit.h")
REGIME_WORDS = re.compile(r"\b(?:Marking|Reaction)::k\w+|\b(?:Fecn|Ecn)Mark(?:er|ing)\w*|\bMarkerPort\b|\b(?:Ccti|Dcqcn)\w*"
                          r"|\b\w*(?:ccti|dcqcn)\w*\b|\becn_marking\b|\bcc\.(?:marking|reaction|sw|ca|ecn|dcqcn|enabled)\b"
                          r"|\bcc/\w+\.h\b")
INCLUDE = re.compile(r'^\s*#\s*include\s*"((?:cc|net)/[^"]+)"', re.M)


def code_only(text):
    """text with comments and string/char literals blanked (line structure kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('R"', i):  # raw string R"delim( ... )delim"
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(")" + (m.group(1) if m else "") + '"', i)
            j = n if end < 0 else end + len(m.group(1) if m else "") + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(" ")
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def check(source):
    """(problems, files) of the tree at `source`."""
    root = os.path.join(source, "sc_models")
    problems, files = [], 0
    for d, _, names in sorted(os.walk(root)):
        for name in sorted(names):
            if not name.endswith((".h", ".cpp", ".hpp", ".cc")):
                continue
            path = os.path.join(d, name)
            rel = os.path.relpath(path, source)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            files += 1
            lines = text.count("\n") + (0 if text.endswith("\n") else 1)
            if lines > MAX_LINES:
                problems.append(f"{rel}: {lines} lines (at most {MAX_LINES})")
            for no, line in enumerate(code_only(text).split("\n"), 1):
                for m in FORBIDDEN.finditer(line):
                    problems.append(f"{rel}:{no}: '{m.group(0).strip()}' (model code reports through exceptions and "
                                    f"return values; printing and exit codes live in src/)")
            if rel in REGIME_UNITS:
                for no, line in enumerate(code_only(text).split("\n"), 1):
                    for m in REGIME_WORDS.finditer(line):
                        problems.append(f"{rel}:{no}: names a CC regime ('{m.group(0)}'): a unit that carries "
                                        f"packets reaches marking and reaction only through MarkingPoint and "
                                        f"ReactionPoint")
                for no, line in enumerate(code_only(text).split("\n"), 1):
                    if re.search(r"\bctx_\.scenario\(\)", line):
                        problems.append(f"{rel}:{no}: reads the scenario while it runs (ctx_.scenario()): a unit "
                                        f"reads its typed configuration, built once by its Config::from")
                for m in re.finditer(r'^\s*#\s*include\s*"(cc/[^"]+)"', text, re.M):
                    no = text.count("\n", 0, m.start()) + 1
                    problems.append(f"{rel}:{no}: includes a CC core ({m.group(1)}): a unit that carries packets "
                                    f"reaches marking and reaction only through MarkingPoint and ReactionPoint")
            for m in INCLUDE.finditer(text):
                for applies, name, allowed in INCLUDE_RULES:
                    if applies(rel) and not allowed(m.group(1)):
                        no = text.count("\n", 0, m.start()) + 1
                        problems.append(f"{rel}:{no}: includes {m.group(1)} ({name})")
    return problems, files


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--planted"):
        sys.exit(__doc__)
    problems, files = check(sys.argv[1])
    checks = Checks()
    for p in problems:
        checks.check(False, p)
    checks.check(files > 0 and not problems,
                 f"{files} files under sc_models/: {'all within the rules' if not problems else f'{len(problems)} problems'}")
    if len(sys.argv) == 3:
        plants = [  # (file, text put first, the problem it must raise, what it is)
            ("switch.cpp", '#include "net/scenario/scenario_yaml.h"\n',
             "sc_models/net/fabric/switch.cpp:1: includes net/scenario/scenario_yaml.h",
             "an include of the scenario reader in the model"),
            ("switch.cpp", "static bool ecn(const Scenario& s) { return s.cc.marking == Marking::kEcn; }\n",
             "sc_models/net/fabric/switch.cpp:1: names a CC regime ('cc.marking')",
             "a branch on the regime in the switch"),
        ]
        for name, line, expect, what in plants:
            with tempfile.TemporaryDirectory() as tmp:
                shutil.copytree(os.path.join(sys.argv[1], "sc_models"), os.path.join(tmp, "sc_models"))
                victim = os.path.join(tmp, "sc_models", "net", "fabric", name)
                with open(victim, encoding="utf-8") as f:
                    text = f.read()
                with open(victim, "w", encoding="utf-8") as f:
                    f.write(line + text)
                planted, _ = check(tmp)
            caught = any(p.startswith(expect) for p in planted)
            checks.check(caught, f"{what} (net/fabric/{name}) is {'caught' if caught else 'not caught'}")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
