"""The port counters of ports.csv and summary.json (PortXmitData, PortRcvData, PortXmitPkts,
PortRcvPkts, PortXmitWait) against what is counted elsewhere: the packets and bytes the HCAs
sent and received, the other end of each link, and the time a backlogged port cannot be idle.

Scenario 1 of the test bed with CC off: F1 H1 -> H4 is the victim; F2 (H2 -> H5, from 1 s)
and F3 (H3 -> H5, from 2 s) share S2/2 -> H5, whose HCA drains 13.5 Gb/s of a 16 Gb/s (4x DDR)
link: the output toward H5 is backlogged, and S1/36 behind it is blocked at its head."""
import json

import pandas as pd
import pytest

HEADER = 26            # LRH 8 + BTH 12 + ICRC 4 + VCRC 2 octets around each data packet's payload
CYCLE_NS = 4.0         # fabric.core_clock 250 MHz: PortXmitWait's tick
DATA_GBPS = {"DDR": 16.0, "QDR": 32.0}   # 4x links after 8b/10b


@pytest.fixture(scope="module")
def run(scenario1_cc_off):
    out = scenario1_cc_off
    ports = pd.read_csv(out / "ports.csv")
    summary = json.loads((out / "summary.json").read_text())
    return ports, summary


def port(ports, name):
    return ports[ports["port"] == name].sort_values("t_us").reset_index(drop=True)


def test_columns_are_named_as_the_hardware_counters(run):
    ports, _ = run
    assert list(ports.columns)[8:] == ["PortXmitData", "PortRcvData", "PortXmitPkts", "PortRcvPkts", "PortXmitWait",
                                       "PortVLXmitTimeCong"]


def test_each_link_end_counts_what_the_other_end_counted(run):
    """S1/36 -> S2/36: sent minus received is what is on the 5 ns wire at the sample (a
    packet at most), interval by interval in the running totals."""
    ports, _ = run
    tx, rx = port(ports, "S1/36"), port(ports, "S2/36")
    in_flight = tx["PortXmitPkts"].cumsum() - rx["PortRcvPkts"].cumsum()
    assert in_flight.between(0, 1).all()
    assert tx["PortXmitPkts"].sum() > 10000
    words = tx["PortXmitData"].cumsum() - rx["PortRcvData"].cumsum()
    assert words.between(0, (2048 + HEADER) // 4 + 1).all()


def test_the_input_counts_what_the_hca_injected(run):
    """S1/1 receives only F1 (CC off: no CNPs, no ACKs): its PortRcvData is F1's injected
    payload plus each packet's headers."""
    ports, summary = run
    f1 = next(f for f in summary["flows"] if f["name"] == "F1")
    s11 = next(p for p in summary["ports"] if p["port"] == "S1/1")
    pkts = s11["PortRcvPkts"]
    octets = f1["injected_bytes"] + HEADER * pkts
    # (in flight between H1's injection count and S1/1's arrival: at most a packet)
    assert 0 <= octets // 4 - s11["PortRcvData"] <= (2048 + HEADER) // 4 + 1


def test_the_output_to_h4_sent_what_h4_delivered(run):
    """S2/1 carries only F1: what it sent is what H4 delivered, less what H4's 16 KiB buffer
    and the wire hold at the end."""
    _, summary = run
    f1 = next(f for f in summary["flows"] if f["name"] == "F1")
    s21 = next(p for p in summary["ports"] if p["port"] == "S2/1")
    held = s21["PortXmitPkts"] - f1["delivered_packets"]
    assert 0 <= held <= 16 * 1024 // (2048 + HEADER) + 1
    assert s21["PortXmitPkts"] == s21["packets_sent"]


def test_a_backlogged_port_is_either_sending_or_waiting(run):
    """Once F2 and F3 both send (from 2 s, each at 13.5 Gb/s into H5's 13.5 Gb/s) the output
    toward H5 always has a packet ready, and so has S1/36 (its packets for H5 blocked at the
    head): per interval, the cycles it spent sending (its
    octets at the link's data rate) and PortXmitWait add up to the interval."""
    ports, _ = run
    for name, gbps in (("S2/2", DATA_GBPS["DDR"]), ("S1/36", DATA_GBPS["QDR"])):
        df = port(ports, name)
        df = df[df["vl"] == 0]
        span_cycles = df["t_us"].diff() * 1000 / CYCLE_NS
        busy_cycles = df["PortXmitData"] * 4 * 8 / gbps / CYCLE_NS
        late = df["t_us"] > 2.1e6
        total = (busy_cycles + df["PortXmitWait"])[late] / span_cycles[late]
        assert len(total) > 50
        assert total.between(0.99, 1.01).all(), (name, total.describe())
        assert (df["PortXmitWait"][late] > 0).all()


def test_a_port_that_is_never_held_back_never_waits(run):
    """H4 drains F1 faster than F1 arrives: S2/1 never has a packet it cannot send."""
    ports, summary = run
    assert (port(ports, "S2/1")["PortXmitWait"].fillna(0) == 0).all()
    assert next(p for p in summary["ports"] if p["port"] == "S2/1")["PortXmitWait"] == 0


def test_the_summary_holds_the_totals_of_the_intervals(run):
    ports, summary = run
    for p in summary["ports"]:
        df = port(ports, p["port"])
        assert df["PortXmitPkts"].sum() <= p["PortXmitPkts"]
        assert df["PortXmitWait"].fillna(0).sum() <= p["PortXmitWait"]
    waits = port(ports, "S2/2")["PortXmitWait"]
    assert waits.notna().sum() == len(port(ports, "S2/2")[port(ports, "S2/2")["vl"] == 0])
