#!/usr/bin/env python3
"""Bad command lines give a clear error and exit code 2 (never a crash or a silent default).

Usage: check_cli_errors.py IBCC_BINARY
"""
import subprocess
import sys

CASES = [
    (["cosim"], "--block"),
    (["cosim", "--block", "switch"], "--block"),
    (["cosim", "--block", "fecn", "--test", "nope"], "nope"),
    (["cosim", "--block", "fecn", "--cycles", "-5"], "--cycles"),
    (["cosim", "--block", "fecn", "--cycles", "many"], "--cycles"),
    (["cosim", "--block", "fecn", "--frobnicate"], "frobnicate"),
    (["simulate"], "simulate"),
    ([], "subcommand"),
]


def main():
    failures = 0
    for args, needle in CASES:
        r = subprocess.run([sys.argv[1]] + args, capture_output=True, text=True, timeout=60)
        text = r.stdout + r.stderr
        ok = r.returncode == 2 and needle in text
        print(f"{'ok  ' if ok else 'FAIL'} ibcc {' '.join(args)!s:50} exit {r.returncode}: {text.strip().splitlines()[0] if text.strip() else ''}")
        failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
