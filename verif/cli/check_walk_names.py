#!/usr/bin/env python3
"""Every `Class::member` that docs/architecture.md names exists in the sources: a method defined
out of line (`Class::method(`) or declared inside `class Class` / `struct Class` (the class
body has `method(`), a data member declared there (`member =`, `member;`, `member{`,
`member[`) or a nested type (`struct member`, `class member`, `enum member`), in sc_models/,
src/ or tb/.

Usage: check_walk_names.py SOURCE_DIR
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402


def sources(root):
    for top in ("sc_models", "src", "tb"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".h", ".cpp")):
                    with open(os.path.join(d, f), encoding="utf-8") as fh:
                        yield os.path.join(d, f), fh.read()


def class_bodies(text, cls):
    """Texts of the bodies of `class cls` / `struct cls` definitions in text."""
    # (An alignment specifier may stand between the keyword and the name: `struct alignas(64) X`.)
    for m in re.finditer(r"\b(?:class|struct)\s+(?:alignas\s*\([^)]*\)\s*)?" + re.escape(cls) + r"\b[^;{]*\{", text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        yield text[m.end():i]


def main():
    root = sys.argv[1]
    with open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8") as f:
        doc = f.read()
    names = sorted(set(re.findall(r"`([A-Z]\w*)::(\w+)`", doc)))
    checks = Checks()
    checks.check(bool(names), f"docs/architecture.md names {len(names)} Class::method")
    texts = dict(sources(root))
    for cls, method in names:
        out_of_line = re.compile(r"\b" + re.escape(cls) + r"::" + re.escape(method) + r"\s*\(")
        name = re.escape(method)
        declared = re.compile(r"\b(?:class|struct|enum(?:\s+class)?)\s+" + name + r"\b|\b" + name + r"\s*[(=;{\[]")
        found = [p for p, t in texts.items()
                 if out_of_line.search(t) or any(declared.search(b) for b in class_bodies(t, cls))]
        checks.check(bool(found), f"{cls}::{method}: {os.path.relpath(found[0], root) if found else 'not in the code'}")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
