#!/usr/bin/env python3
"""`ibcc plot DIR [--metric NAME ...] [--out DIR]`: the pictures of a run or a sweep.

The drawing lives in the ibcc Python package (python/ibcc/plots.py, installed by
scripts/bootstrap.sh); this script only finds it, also in a source tree where it is not
installed.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))

from ibcc.plots import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
