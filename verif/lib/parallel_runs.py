"""What the checks of parallel runs (threads, MPI processes) share: a short run of a shipped
scenario, and the comparison of two runs' results byte for byte."""
import os

# The results a parallel run must give as one thread does.
OUTPUTS = ["flows.csv", "ports.csv", "ccti.csv", "rates.csv", "latency.csv", "metrics.json"]


def same_outputs(a, b):
    """([files compared], [files that differ or exist in one only])."""
    compared, differ = [], []
    for name in OUTPUTS:
        pa, pb = os.path.join(a, name), os.path.join(b, name)
        if not os.path.exists(pa) and not os.path.exists(pb):
            continue
        compared.append(name)
        if not (os.path.exists(pa) and os.path.exists(pb)) or open(pa, "rb").read() != open(pb, "rb").read():
            differ.append(name)
    return compared, differ


def short_run(scenario_path):
    """A short run of the scenario: sim time and log interval by its fabric's size."""
    if "45056" in scenario_path or "65536" in scenario_path or "xdr10368" in scenario_path:
        return ["--sim-time", "2us", "--log-interval", "1us"]
    if "ndr2048" in scenario_path:
        return ["--sim-time", "10us", "--log-interval", "2us"]
    if "11664" in scenario_path:
        return ["--sim-time", "20us", "--log-interval", "5us"]
    if "clos648" in scenario_path:
        return ["--sim-time", "100us", "--log-interval", "20us"]
    return ["--sim-time", "1ms", "--log-interval", "100us"]
