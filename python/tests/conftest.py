"""Fixtures the package's tests share: the `ibcc` executable (CTest python_package sets IBCC)
and one run of the test bed's scenario 1 with CC off (its victim F1 held back by HOL blocking),
made once per session and read by several tests."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def ibcc_exe():
    exe = os.environ.get("IBCC")
    assert exe, "set IBCC to the ibcc executable (CTest python_package does)"
    return exe


@pytest.fixture(scope="session")
def scenario1_cc_off(ibcc_exe, tmp_path_factory):
    """The directory of `ibcc run scenario1.yaml --cc off` (its 5 s)."""
    out = tmp_path_factory.mktemp("s1off") / "run"
    r = subprocess.run([ibcc_exe, "run", str(ROOT / "topologies" / "seed-testbed" / "scenario1.yaml"), "--out", str(out),
                        "--cc", "off", "--quiet"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out
