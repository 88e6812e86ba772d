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
