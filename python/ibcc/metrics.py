"""Which way is better for a metric of metrics.json: what `ibcc tune` optimises by default,
what its report flags as a regression, and what the heat maps of `ibcc plot` say beside their
colour bars."""

MAXIMISED = ("victim", "contributors", "total", "jain")
MAXIMISED_PREFIXES = ("throughput.", "group_total.", "group_mean.", "pingpong_rate")
MINIMISED = ("tvv", "peak_buffer_credits", "peak_egress_bytes", "pfc_pauses", "drops", "retransmitted")
MINIMISED_PREFIXES = ("latency_", "message_", "pingpong_")


def metric_direction(name):
    """1: higher is better, -1: lower is better, 0: neither (counts such as FECN marks)."""
    if name in MAXIMISED or name.startswith(MAXIMISED_PREFIXES):
        return 1
    if name in MINIMISED or name.startswith(MINIMISED_PREFIXES):
        return -1
    return 0
