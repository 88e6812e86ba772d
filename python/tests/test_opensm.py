"""The opensm.conf writer against the reader of the same build: a fragment written from a
resolved cc: section reads back (ibcc describe --opensm-conf) to the same settings."""
import subprocess
from pathlib import Path

import pytest
import yaml

from ibcc import opensm

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def ibcc(ibcc_exe):
    return ibcc_exe


def resolved_cc(ibcc, sets):
    cmd = [ibcc, "describe", str(ROOT / "topologies/seed-testbed/scenario1.yaml")]
    for kv in sets:
        cmd += ["--set", kv]
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return yaml.safe_load(p.stdout)["cc"]


@pytest.mark.parametrize("sets", [
    [],
    ["cc.switch.threshold=3", "cc.switch.marking_rate=7", "cc.switch.packet_size=0", "cc.ca.ccti_timer=33",
     "cc.ca.ccti_limit=20", "cc.ca.control=sl", "cc.ca.per_sl=[{sl: 2, ccti_timer: 99, ccti_min: 4}]"],
])
def test_a_fragment_reads_back_to_the_settings_it_was_written_from(ibcc, tmp_path, sets):
    options = opensm.load_options(ibcc)
    cc = resolved_cc(ibcc, sets)
    path = tmp_path / "opensm.conf"
    path.write_text(opensm.fragment(cc, options, "test"))
    p = subprocess.run([ibcc, "describe", str(ROOT / "topologies/seed-testbed/scenario1.yaml"),
                        "--opensm-conf", str(path)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    back = yaml.safe_load(p.stdout)["cc"]
    assert opensm.settings(back, options) == opensm.settings(cc, options)


def test_the_writer_covers_every_option_the_reader_applies(ibcc):
    options = opensm.load_options(ibcc)
    text = opensm.fragment(resolved_cc(ibcc, []), options, "test")
    written = {line.split()[0] for line in text.splitlines() if line and not line.startswith("#")}
    applied = {o["name"] for o in options if o["form"] not in ("not_modelled", "victim_mask")}
    assert written == applied
