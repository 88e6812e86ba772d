"""The analytic Go-Back-N model of the seed chapter on congestive loss
(../shared/seeds/congestive-loss-gbn-chapter.txt, section 4.3.3): a many-to-one gather of P
senders on an output-buffered switch with B_L buffer units per output port, under a GBN
transport with window W_FC, fast retransmission and a timeout TO.

Each sender's activity is a 3-state Markov chain over its events: P (an in-order packet
acknowledged, a "Pack"), N (a loss detected, a "Nack") and T (a timeout). Its transition
probabilities are c (P to N: a loss), 1 - a (N to T: a loss that the fast retransmission
does not repair) and f (T to P: the timeout ends in progress).

Eq. 4.9 gives one sender's throughput efficiency and Eq. 4.10 the gather's:

    T_eff        = 1 / ((3c/2 + (1 - c)/W_FC) * B_L + (1 - a) * c * TO_bar / f)
    T_eff_output = P * T_eff

with TO_bar the timeout in packet times (TO / g_r). Eqs. 4.11-4.13 estimate c, 1 - a and f
from a trace of events. The network model's lossy regime is to be checked
against this model; verif/studies/check_gbn_model.py reproduces the chapter's Table 4.1 with it.
"""
from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Transitions:
    c: float            # P -> N: the probability that a sender meets a loss
    one_minus_a: float  # N -> T: a loss ends in a timeout
    f: float            # T -> P: a timeout ends in progress


def sender_efficiency(w_fc: float, b_l: float, to_bar: float, t: Transitions) -> float:
    """Eq. 4.9: one sender's throughput efficiency (fraction of the output link)."""
    if w_fc <= 0 or b_l <= 0 or to_bar < 0:
        raise ValueError(f"need W_FC > 0, B_L > 0, TO >= 0 (got {w_fc}, {b_l}, {to_bar})")
    if not (0 < t.c <= 1 and 0 <= t.one_minus_a <= 1 and 0 < t.f <= 1):
        raise ValueError(f"transition probabilities out of range: {t}")
    return 1.0 / ((1.5 * t.c + (1.0 - t.c) / w_fc) * b_l + t.one_minus_a * t.c * to_bar / t.f)


def output_efficiency(p: int, w_fc: float, b_l: float, to_bar: float, t: Transitions) -> float:
    """Eq. 4.10: the many-to-one gather's throughput efficiency, P senders."""
    if p < 1:
        raise ValueError(f"need at least one sender (got P = {p})")
    return p * sender_efficiency(w_fc, b_l, to_bar, t)


def estimate_transitions(events: Iterable[str]) -> Transitions:
    """Eqs. 4.11-4.13 from one sender's event trace, a sequence of 'P', 'N' and 'T':

    c      = (P -> N transitions) / (P events)
    1 - a  = (N -> T transitions) / (P^n N sequences, i.e. P -> N transitions)
    f      = (T -> P transitions) / (T events)
    """
    counts = {"P": 0, "N": 0, "T": 0}
    pn = nt = tp = 0
    prev = None
    for e in events:
        if e not in counts:
            raise ValueError(f"unknown event {e!r} (expected 'P', 'N' or 'T')")
        counts[e] += 1
        if prev == "P" and e == "N":
            pn += 1
        elif prev == "N" and e == "T":
            nt += 1
        elif prev == "T" and e == "P":
            tp += 1
        prev = e
    if counts["P"] == 0 or pn == 0 or counts["T"] == 0:
        raise ValueError(f"the trace needs Pack, loss and timeout events to estimate all three (counts {counts})")
    return Transitions(c=pn / counts["P"], one_minus_a=nt / pn, f=tp / counts["T"])


def transitions_from_chain(chain: dict) -> Transitions:
    """The same estimates as estimate_transitions from counts of transitions between
    consecutive events instead of the trace: `chain` maps 'PN' (a Pack followed by a Nack),
    'NT', 'TP', ... to counts, as `summary.json` gives them per Go-Back-N flow
    (flows[].gbn.chain; sum the flows' counts for the many-to-one flow). P and T events are
    counted as the transitions out of them (a trace's last event has none)."""
    get = lambda k: int(chain.get(k, 0))
    p_events = get("PP") + get("PN") + get("PT")
    t_events = get("TP") + get("TN") + get("TT")
    pn, nt, tp = get("PN"), get("NT"), get("TP")
    if p_events == 0 or pn == 0 or t_events == 0:
        raise ValueError(f"the counts need Pack, loss and timeout events to estimate all three ({dict(chain)})")
    return Transitions(c=pn / p_events, one_minus_a=nt / pn, f=tp / t_events)
