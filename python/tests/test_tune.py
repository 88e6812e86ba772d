"""ibcc.tune's pure parts: quantities, objectives, the choice among trials."""
import pytest

from ibcc.tune import Objective, Param, TuneError, dominates_or_equals, fmt_num, gains, parse_objectives, parse_quantity


def test_quantities_take_the_longest_unit_that_matches():
    units = {"s": 1e12, "ms": 1e9, "us": 1e6, "ns": 1e3}
    assert parse_quantity("55us", units) == (55.0, "us")
    assert parse_quantity("2ms", units) == (2.0, "ms")
    assert parse_quantity("1.5 s", units) == (1.5, "s")
    assert parse_quantity("-1us", units) is None
    assert parse_quantity("inf s", units) is None
    assert parse_quantity("55", units) is None


def test_objectives_know_the_usual_directions_and_refuse_the_rest():
    objs = parse_objectives(["victim", "latency_p99_us"])
    assert [(o.metric, o.maximise) for o in objs] == [("victim", True), ("latency_p99_us", False)]
    assert parse_objectives(None)[0].metric == "victim"
    with pytest.raises(TuneError, match="maximise or minimise"):
        parse_objectives(["something_new"])
    with pytest.raises(TuneError, match="given twice"):
        parse_objectives(["victim:max", "victim:min"])
    with pytest.raises(TuneError, match="expected METRIC"):
        parse_objectives(["victim:up"])


def test_gains_are_relative_and_signed_by_direction():
    objs = [Objective("victim", True), Objective("latency_p99_us", False)]
    assert gains([11.0, 90.0], [10.0, 100.0], objs) == pytest.approx([0.1, 0.1])
    assert dominates_or_equals([10.0, 100.0], [10.0, 100.0], objs)
    assert not dominates_or_equals([11.0, 101.0], [10.0, 100.0], objs)


def test_a_parameter_writes_back_what_it_reads():
    p = Param("cc.ca.ccti_timer", "int", 10, 200, log=True)
    assert p.spec() == "cc.ca.ccti_timer=10:200:int:log"
    t = Param("cc.dcqcn.rate_timer", "float", 1.5, 300, unit="us", quantity="time")
    assert t.spec() == "cc.dcqcn.rate_timer=1.5us:300us"
    assert t.value_text(55.0) == "55us" and t.column() == "cc.dcqcn.rate_timer [us]"
    assert Param("cc.marking", "categorical", choices=["fecn", "ecn"]).spec() == "cc.marking=fecn,ecn"
    assert fmt_num(3.0) == "3" and fmt_num(0.25) == "0.25"


def test_every_metric_is_compared_and_a_regression_flagged_by_its_direction():
    from ibcc.tune import metric_comparison, metric_direction
    assert metric_direction("jain") == 1 and metric_direction("group_total.victim") == 1
    assert metric_direction("peak_buffer_credits") == -1 and metric_direction("latency_p99_us.victim") == -1
    assert metric_direction("fecn") == 0
    chosen = {"jain": 1.0, "peak_buffer_credits": 1947, "latency_p99_us": 190.0, "fecn": 10, "victim": 13.0}
    refs = {"defaults": {"jain": 0.987, "peak_buffer_credits": 429, "latency_p99_us": 188.0, "fecn": 5,
                         "victim": 14.0},
            "seed hardware": None}
    lines, regressions = metric_comparison(chosen, refs)
    assert "seed hardware" not in lines[0], "a reference that did not run has no column"
    assert sorted(m for _, m, _, _ in regressions) == ["peak_buffer_credits", "victim"], \
        "a larger buffer and a slower victim are worse; p99 +1 % is within 5 %; FECN has no better side"
    row = next(ln for ln in lines if ln.strip().startswith("peak_buffer_credits"))
    assert "!429" in row and "WORSE than defaults" in row
    assert "WORSE" not in next(ln for ln in lines if ln.strip().startswith("jain"))


def test_the_report_warns_of_a_parameter_at_its_range_end_and_of_unmarked_packets():
    from types import SimpleNamespace

    from ibcc.tune import warnings_for
    params = [Param("cc.ca.ccti_timer", "int", 10, 2400, log=True), Param("cc.switch.threshold", "int", 1, 15),
              Param("cc.switch.mapping", "categorical", choices=["sum", "per_voq"])]
    chosen = SimpleNamespace(params={"cc.ca.ccti_timer": 2400, "cc.switch.threshold": 8, "cc.switch.mapping": "sum"})
    fabric = {"mtu": 2048, "packet_bytes": {"data_header": 26}}
    w = warnings_for(params, chosen, {"fabric": fabric, "cc": {"switch": {"packet_size": 32}}})
    assert len(w) == 2
    assert w[0].startswith("cc.ca.ccti_timer = 2400 is at the top of its range (10:2400:int:log)")
    assert "under 2048 bytes" in w[1] and "MTU data packets (2074 bytes) are marked" in w[1]
    w = warnings_for(params, chosen, {"fabric": fabric, "cc": {"switch": {"packet_size": 40}}})
    assert "every data packet of this fabric (2074 bytes at the MTU) goes unmarked" in w[1]
    chosen.params["cc.ca.ccti_timer"] = 150
    assert warnings_for(params, chosen, {"fabric": fabric, "cc": {"switch": {"packet_size": 0}}}) == []
