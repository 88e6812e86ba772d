"""Replications over seeds: the same configuration run with sim.seed = first … first+N-1,
and each metric summarised as its mean and the half width of its 95 % confidence interval
(Student's t with N-1 degrees of freedom, the interval OMNeT++'s and ns-3's users compute
over their repetitions).

A metric undefined in some seed (null: Jain without an active contributor) is summarised
over the seeds that define it; its `n` says over how many.
"""

import math
from functools import lru_cache


def seeds(first, n):
    return [first + i for i in range(n)]


def seed_dir_name(seed):
    return f"seed-{seed}"


def _t_pdf(x, df):
    c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return math.exp(c - (df + 1) / 2 * math.log1p(x * x / df))


def _t_cdf_above_zero(x, df, steps=4000):
    """P(0 <= T <= x) by Simpson's rule (the density is smooth and x is a few units)."""
    h = x / steps
    s = _t_pdf(0.0, df) + _t_pdf(x, df)
    for i in range(1, steps):
        s += (4 if i % 2 else 2) * _t_pdf(i * h, df)
    return s * h / 3


@lru_cache(maxsize=None)
def t975(df):
    """The 0.975 quantile of Student's t with `df` degrees of freedom (12.706 for 1, 2.776
    for 4, 1.960 in the limit): the factor of a two-sided 95 % interval."""
    if df < 1:
        raise ValueError("t975: at least one degree of freedom")
    lo, hi = 0.0, 1.0
    while _t_cdf_above_zero(hi, df) < 0.475:
        hi *= 2
    for _ in range(50):
        mid = (lo + hi) / 2
        if _t_cdf_above_zero(mid, df) < 0.475:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def summarise(values):
    """{"mean", "ci95", "std", "n"} of the numbers in `values` (None: undefined, left out).
    ci95 is the half width (mean ± ci95); with one value it is None (no interval), with no
    value the mean is None too."""
    xs = [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool) and v is not None]
    xs = [x for x in xs if not math.isnan(x)]
    n = len(xs)
    if n == 0:
        return {"mean": None, "ci95": None, "std": None, "n": 0}
    mean = sum(xs) / n
    if n == 1:
        return {"mean": mean, "ci95": None, "std": None, "n": 1}
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    std = math.sqrt(var)
    return {"mean": mean, "ci95": t975(n - 1) * std / math.sqrt(n), "std": std, "n": n}


def combine(per_seed_metrics):
    """The metrics of N runs ({name: value} each) as {name: summary} over every name any run
    has."""
    names = sorted({k for m in per_seed_metrics for k in m})
    return {k: summarise([m.get(k) for m in per_seed_metrics]) for k in names}


def identical(per_seed_metrics):
    """True when every run measured the same: nothing in the configuration drew on the seed."""
    return len(per_seed_metrics) > 1 and all(m == per_seed_metrics[0] for m in per_seed_metrics[1:])


SEEDLESS_HINT = ("nothing in this configuration draws on sim.seed; the seed reaches the model through "
                 "cc.switch.marking_mode: random, fabric.hca.send_jitter, random traffic patterns and shuffles")
