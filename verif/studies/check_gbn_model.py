#!/usr/bin/env python3
"""The seed chapter's analytic Go-Back-N model (python/ibcc/gbn_model.py) against its
Table 4.1 (verif/studies/data/gbn_table_4_1.csv): Eq. 4.10 with B_L = 95 and each row's P, W_FC,
TO and estimated transition probabilities must give the table's predicted column within
±0.005. Also checks that the tolerance discriminates (B_L = 90 breaks it) and that
the estimators of Eqs. 4.11-4.13 recover known probabilities from a synthetic trace.

Usage: check_gbn_model.py    (exit 0 pass, 1 fail)
"""
import csv
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
from ibcc.gbn_model import Transitions, estimate_transitions, output_efficiency, transitions_from_chain  # noqa: E402

TABLE = os.path.join(ROOT, "verif", "studies", "data", "gbn_table_4_1.csv")
B_L = 95          # the IBM 8275-416's buffer per output port (the chapter, 4.3.3.1)
TOLERANCE = 0.005  # the predicted column within ±0.005


def rows():
    with open(TABLE) as f:
        lines = [line for line in f if not line.startswith("#")]
    return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(lines)]


def predicted(r, b_l):
    t = Transitions(c=r["c"], one_minus_a=r["one_minus_a"], f=r["f"])
    return output_efficiency(int(r["p"]), r["w_fc"], b_l, r["to_bar"], t)


def synthetic_trace(c, one_minus_a, f, n, seed):
    """Events of the 3-state chain: P -> N with c; N -> T with 1 - a (else P); T -> P with f."""
    rng = random.Random(seed)
    state, out = "P", []
    for _ in range(n):
        out.append(state)
        if state == "P":
            state = "N" if rng.random() < c else "P"
        elif state == "N":
            state = "T" if rng.random() < one_minus_a else "P"
        else:
            state = "P" if rng.random() < f else "T"
    return out


def main():
    failures = []
    data = rows()
    print(f"Table 4.1, Eq. 4.10 with B_L = {B_L}: {len(data)} rows")
    print("  P  W_FC  TO    measured  published  ours     |ours - published|")
    worst = 0.0
    for r in data:
        ours = predicted(r, B_L)
        dev = abs(ours - r["predicted"])
        worst = max(worst, dev)
        print(f"  {int(r['p']):2d} {int(r['w_fc']):4d} {int(r['to_bar']):5d}  {r['measured']:.4f}    {r['predicted']:.4f}     "
              f"{ours:.4f}   {dev:.4f}")
        if dev > TOLERANCE:
            failures.append(f"P={int(r['p'])} W_FC={int(r['w_fc'])} TO={int(r['to_bar'])}: {ours:.4f} vs {r['predicted']}")
    print(f"largest deviation {worst:.4f} (tolerance {TOLERANCE})")

    # The tolerance discriminates: a buffer 5 units off misses it somewhere.
    off = max(abs(predicted(r, B_L - 5) - r["predicted"]) for r in data)
    print(f"with B_L = {B_L - 5}: largest deviation {off:.4f}")
    if off <= TOLERANCE:
        failures.append(f"B_L = {B_L - 5} also reproduces the table: the check cannot tell")

    # Eqs. 4.11-4.13 recover the probabilities of a synthetic chain.
    truth = Transitions(c=0.03, one_minus_a=0.25, f=0.55)
    trace = synthetic_trace(truth.c, truth.one_minus_a, truth.f, 400_000, seed=7)
    est = estimate_transitions(trace)
    print(f"estimators on a synthetic trace: c {est.c:.4f} (true {truth.c}), 1-a {est.one_minus_a:.4f} "
          f"(true {truth.one_minus_a}), f {est.f:.4f} (true {truth.f})")
    for name, e, t, tol in (("c", est.c, truth.c, 0.002), ("1-a", est.one_minus_a, truth.one_minus_a, 0.02),
                            ("f", est.f, truth.f, 0.03)):
        if abs(e - t) > tol:
            failures.append(f"estimate of {name}: {e:.4f}, true {t} (tolerance {tol})")
    # The counts of transitions that summary.json gives (flows[].gbn.chain) estimate the same.
    chain = {}
    for a, b in zip(trace, trace[1:]):
        chain[a + b] = chain.get(a + b, 0) + 1
    from_chain = transitions_from_chain(chain)
    print(f"from the trace's transition counts: c {from_chain.c:.4f}, 1-a {from_chain.one_minus_a:.4f}, f {from_chain.f:.4f}")
    for name, x, y in (("c", from_chain.c, est.c), ("1-a", from_chain.one_minus_a, est.one_minus_a), ("f", from_chain.f, est.f)):
        if abs(x - y) > 1e-4:  # the trace's last event is the only difference
            failures.append(f"{name} from transition counts {x:.5f} differs from the trace's {y:.5f}")
    try:
        estimate_transitions("PPXN")
        failures.append("an unknown event was accepted")
    except ValueError:
        pass

    return Checks().report(failures, "Table 4.1 reproduced by Eq. 4.10, and the estimators recover a known chain")


if __name__ == "__main__":
    sys.exit(main())
