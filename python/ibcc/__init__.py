"""ibcc results in Python: a run or a sweep directory as pandas DataFrames.

    import ibcc
    run = ibcc.load_run("out/scenario1/cc_on")
    run.flows        # t_us, flow, group, gbps (one row per flow and log interval)
    run.ports        # t_us, port, vl, occupancy_credits, peak_credits, congested, congested_frac, fecn_marks,
                     # and the port counters PortXmitData, PortRcvData, PortXmitPkts, PortRcvPkts,
                     # PortXmitWait (the port's, on its VL 0 rows), PortVLXmitTimeCong
    run.ccti         # t_us, flow, group, ccti
    run.metrics      # dict of metrics.json (run.metric("victim"))
    run.summary      # dict of summary.json
    run.config       # resolved.yaml as a dict (every default filled in)

    sweep = ibcc.load_sweep("out/study_threshold")
    sweep.points     # one row per point: the swept keys, status, the metrics (with --seeds:
                     # their means, `<metric>.ci95` and `seeds`)
    sweep.run(0)     # the Run of a point (with --seeds: its Replicas)

    reps = ibcc.load_replicas("out/s1_seeds")   # `ibcc run --seeds N`
    reps.metrics     # metric -> mean over the seeds; reps.ci95, reps.n, reps.per_seed alike
    reps.runs        # the Run of each seed
"""
__all__ = ["Run", "Replicas", "Sweep", "load", "load_run", "load_replicas", "load_sweep", "ResultsError"]


def __getattr__(name):
    # (loaded on first use: `python3 -m ibcc.sweep` and `ibcc.tune` start without pandas)
    if name in __all__:
        from . import results
        return getattr(results, name)
    raise AttributeError(f"module 'ibcc' has no attribute {name!r}")
