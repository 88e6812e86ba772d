"""ibcc.gbn_model: the chapter's Go-Back-N model (eqs. 4.9-4.13)."""
import pytest

from ibcc.gbn_model import Transitions, estimate_transitions, output_efficiency, sender_efficiency


def test_a_lossless_sender_runs_at_its_window_over_the_loop():
    # No loss (c -> 0 is not allowed, so c small): efficiency tends to W_FC / B_L.
    t = Transitions(c=1e-9, one_minus_a=0.0, f=1.0)
    assert sender_efficiency(24, 48, 400, t) == pytest.approx(0.5, rel=1e-6)


def test_timeouts_cost_in_proportion_to_their_length():
    t = Transitions(c=0.1, one_minus_a=0.5, f=0.5)
    short, long_ = sender_efficiency(24, 48, 100, t), sender_efficiency(24, 48, 400, t)
    assert long_ < short
    # Eq. 4.9 by hand: 1 / ((1.5c + (1-c)/W) B + (1-a) c TO / f)
    assert short == pytest.approx(1 / ((0.15 + 0.9 / 24) * 48 + 0.5 * 0.1 * 100 / 0.5))


def test_the_gather_is_p_senders():
    t = Transitions(c=0.1, one_minus_a=0.5, f=0.5)
    assert output_efficiency(4, 24, 48, 100, t) == pytest.approx(4 * sender_efficiency(24, 48, 100, t))
    with pytest.raises(ValueError):
        output_efficiency(0, 24, 48, 100, t)


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError):
        sender_efficiency(0, 48, 100, Transitions(0.1, 0.5, 0.5))
    with pytest.raises(ValueError):
        sender_efficiency(24, 48, 100, Transitions(0.0, 0.5, 0.5))


def test_transitions_are_counted_from_a_trace():
    t = estimate_transitions("PPPNTPPNPP")
    assert t.c == pytest.approx(2 / 7)          # two P -> N of seven P events
    assert t.one_minus_a == pytest.approx(1 / 2)  # one of the two losses timed out
    assert t.f == pytest.approx(1.0)              # the timeout was followed by progress
    with pytest.raises(ValueError):
        estimate_transitions("PXP")
