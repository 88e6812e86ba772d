#!/usr/bin/env python3
"""The model code's house rules, checked on every file under sc_models/:

  - no file is longer than 600 lines (one class per hardware unit, each in its own file);
  - nothing prints or ends the process: model code reports through exceptions and return
    values, and printing, exit codes and CLI option names live in src/. Flagged: std::cout,
    std::cerr, std::clog, printf/fprintf/puts/perror, fmt::print, exit/_Exit/quick_exit/
    abort/std::terminate and SystemC's SC_REPORT_* (which prints), outside comments and
    string literals.

Usage: check_model_code.py SOURCE_DIR      (exit 0: all hold, 1: lists what breaks them)
"""
import os
import re
import sys

MAX_LINES = 600
FORBIDDEN = re.compile(r"\bstd::(cout|cerr|clog)\b|(?<![\w:.>])(printf|fprintf|puts|perror|exit|_Exit|quick_exit|abort)\s*\("
                       r"|\bstd::(exit|_Exit|quick_exit|abort|terminate)\b|\bfmt::print\b|\bSC_REPORT_\w+")


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


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = os.path.join(sys.argv[1], "sc_models")
    problems, files = [], 0
    for d, _, names in sorted(os.walk(root)):
        for name in sorted(names):
            if not name.endswith((".h", ".cpp", ".hpp", ".cc")):
                continue
            path = os.path.join(d, name)
            rel = os.path.relpath(path, sys.argv[1])
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
    for p in problems:
        print("FAIL", p)
    print(f"{files} files under sc_models/: {'all within the rules' if not problems else f'{len(problems)} problems'}")
    return 1 if problems or files == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
