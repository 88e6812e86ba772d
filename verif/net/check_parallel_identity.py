#!/usr/bin/env python3
"""A parallel run's results are a sequential run's, byte for byte, through `ibcc run --threads`:

1. Every shipped scenario (topologies/**/*.yaml, a short run each, several log intervals) run
   with --threads 1 and --threads 2: flows.csv, ports.csv, ccti.csv or rates.csv, latency.csv
   and metrics.json identical. A fabric of one switch cannot be split: refused with exit 2
   and a message naming why, and nothing else.
2. The 648-host uniform load, CC on, with --threads 1, 2, 3, 4 and 8: the same files identical;
   summary.json's `parallel` names the threads, the window (3 cycles: 10 ns links at the
   core clock of 4 ns, rounded up) and counts every event once (the groups' events sum to the
   run's).
3. A lossy fabric with Go-Back-N (the 648-host hotspot load over drop-tail buffers, packets
   dropped in every group) with --threads 1, 2 and 4: the same files identical.
4. RTL in the loop: the thesis mesh with Verilated FECN markers and CCTI blocks in both
   groups of a 2-thread run: identical to the 1-thread RTL run and to the C++ cores.
5. Bad --threads: 0 is refused by the command line, and more groups than switches by the
   partitioner, both exit 2.

Under the sanitizers (IBCC_SANITIZED, verif/cli/sanitize.sh) the 648-host loads run with one
thread count above 1 each (3 uniform, 2 lossy), said as NOT RUN: that run looks for memory
errors in the parallel engine; the plain build's run checks identity over every count.

Usage: check_parallel_identity.py IBCC SOURCE_DIR OUT_DIR    (exit 0 pass, 1 fail)
"""
import glob
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks, under_sanitizers_skip  # noqa: E402
from parallel_runs import same_outputs, short_run  # noqa: E402

checks = Checks()
check = checks.check


def run(ibcc, scenario, out, threads, *args):
    r = subprocess.run([ibcc, "run", scenario, "--out", out, "--force", "--quiet", "--threads", str(threads), *args],
                       capture_output=True, text=True)
    return r.returncode, r.stderr.strip()


def thread_counts(counts, sanitized, what):
    """The thread counts to compare with one thread: all of `counts`, or under the sanitizers
    only `sanitized` (the others said as not run)."""
    if not os.environ.get("IBCC_SANITIZED"):
        return counts
    print(f"NOT RUN under the sanitizers (the plain build's run checks them): {what} with --threads "
          f"{', '.join(str(c) for c in counts if c != sanitized)}", flush=True)
    return [sanitized]


def main():
    ibcc, src, out = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out, exist_ok=True)
    scenarios = sorted(glob.glob(os.path.join(src, "topologies", "**", "*.yaml"), recursive=True))
    scenarios = [s for s in scenarios if "/studies/" not in s and not under_sanitizers_skip(s)]
    identical, refused = 0, 0
    for path in scenarios:
        name = os.path.relpath(path, os.path.join(src, "topologies")).replace("/", "_")[:-5]
        args = short_run(path)
        seq = os.path.join(out, name, "t1")
        rc, err = run(ibcc, path, seq, 1, *args)
        if rc != 0:
            check(False, f"{name}: --threads 1 runs (exit {rc}: {err[-300:]})")
            continue
        par = os.path.join(out, name, "t2")
        rc, err = run(ibcc, path, par, 2, *args)
        if rc == 2 and "--threads 2:" in err and ("does not support" in err or "units" in err):
            refused += 1
            check(not os.path.exists(os.path.join(par, "flows.csv")), f"{name}: refused with exit 2, no results written ({err.splitlines()[-1]})")
            continue
        if rc != 0:
            check(False, f"{name}: --threads 2 runs (exit {rc}: {err[-300:]})")
            continue
        compared, differ = same_outputs(seq, par)
        identical += not differ
        check(not differ and "flows.csv" in compared, f"{name}: --threads 2 gives --threads 1's {', '.join(compared)} byte for byte{' (differ: ' + ', '.join(differ) + ')' if differ else ''}")
    check(identical >= 8, f"{identical} shipped scenarios compared identical, {refused} refused (at least 8 compared)")

    # The 648-host uniform load over thread counts.
    uniform = os.path.join(src, "topologies", "clos648", "uniform.yaml")
    args = ["--sim-time", "200us", "--log-interval", "50us"]
    base = os.path.join(out, "uniform648", "t1")
    rc, err = run(ibcc, uniform, base, 1, *args)
    check(rc == 0, f"clos648 uniform --threads 1 (exit {rc})")
    base_summary = json.load(open(os.path.join(base, "summary.json")))
    for threads in thread_counts([2, 3, 4, 8], 3, "clos648 uniform"):
        d = os.path.join(out, "uniform648", f"t{threads}")
        rc, err = run(ibcc, uniform, d, threads, *args)
        if rc != 0:
            check(False, f"clos648 uniform --threads {threads} (exit {rc}: {err[-300:]})")
            continue
        compared, differ = same_outputs(base, d)
        check(not differ, f"clos648 uniform 200 us, --threads {threads}: {', '.join(compared)} identical to --threads 1{' (differ: ' + ', '.join(differ) + ')' if differ else ''}")
        s = json.load(open(os.path.join(d, "summary.json")))
        p = s.get("parallel", {})
        events = sum(g["events"] for g in p.get("groups", []))
        # (Fewer events than one thread's: credits back to a busy port are counted, not
        # scheduled, when the port already has credits; a cut link's arrive at a barrier,
        # later than their sending, and find the port busy more often. The log intervals are
        # events of one thread's calendar, and barriers of the parallel run's.)
        check(p.get("threads") == threads and p.get("window_cycles") == 3 and events == s["events"],
              f"--threads {threads}: summary.json parallel: {p.get('threads')} threads, window {p.get('window_cycles')} cycles, "
              f"groups' events {events} = the run's {s['events']} (one thread's: {base_summary['events']})")

    # A lossy fabric: the 648-host hotspot load over drop-tail output buffers with Go-Back-N,
    # its drops counted per flow by switches in every group.
    lossy = ["--set", "fabric.flow_control=none", "--set", "fabric.switch.buffering=output",
             "--set", "fabric.switch.output_buffer=40000", "--set", "fabric.hca.transport=gbn",
             "--set", "fabric.hca.gbn_window=24", "--set", "fabric.hca.gbn_timeout=100us",
             "--sim-time", "300us", "--log-interval", "50us"]
    hotspot = os.path.join(src, "topologies", "clos648", "hotspot.yaml")
    base = os.path.join(out, "lossy648", "t1")
    rc, err = run(ibcc, hotspot, base, 1, *lossy)
    check(rc == 0, f"clos648 hotspot, lossy with Go-Back-N, --threads 1 (exit {rc}{': ' + err[-300:] if rc else ''})")
    if rc == 0:
        drops = json.load(open(os.path.join(base, "summary.json")))["packets"].get("dropped", 0)
        check(drops > 1000, f"lossy 648: {drops} packets dropped (a lossy case, not a lossless one)")
        for threads in thread_counts([2, 4], 2, "lossy 648"):
            d = os.path.join(out, "lossy648", f"t{threads}")
            rc, err = run(ibcc, hotspot, d, threads, *lossy)
            compared, differ = same_outputs(base, d) if rc == 0 else ([], ["exit " + str(rc)])
            check(rc == 0 and not differ and "flows.csv" in compared,
                  f"lossy 648 with Go-Back-N, --threads {threads}: {', '.join(compared)} identical to --threads 1"
                  f"{' (differ: ' + ', '.join(differ) + ')' if differ else ''}")

    # RTT probes (NVIDIA-style CC): the NDR hotspot load with a probe per flow every 2 us; the
    # probes and their responses cross the cut links, and their round trips are counted at
    # each source, on its thread.
    ndr = os.path.join(src, "topologies", "ndr2048", "hotspot.yaml")
    probes = ["--sim-time", "20us", "--log-interval", "5us", "--set", "cc.marking=nvidia", "--set", "cc.reaction=dcqcn",
              "--set", "cc.dcqcn.rtt_probe_interval=2us"]
    base = os.path.join(out, "probes_ndr", "t1")
    rc, err = run(ibcc, ndr, base, 1, *probes)
    check(rc == 0, f"NDR hotspot with RTT probes, --threads 1 (exit {rc}{': ' + err[-300:] if rc else ''})")
    if rc == 0:
        d = os.path.join(out, "probes_ndr", "t2")
        rc, err = run(ibcc, ndr, d, 2, *probes)
        compared, differ = same_outputs(base, d) if rc == 0 else ([], ["exit " + str(rc)])
        sampled = "probe_rtt_p99_us" in json.load(open(os.path.join(base, "metrics.json")))["metrics"]
        check(rc == 0 and not differ and "latency.csv" in compared and sampled,
              f"NDR hotspot with RTT probes, --threads 2: {', '.join(compared)} identical to --threads 1, probe RTTs "
              f"measured ({sampled}){' (differ: ' + ', '.join(differ) + ')' if differ else ''}")

    # RTL in the loop: the founding thesis's mesh with a Verilated FECN marker on a port of
    # every switch and Verilated CCTI blocks in four HCAs, on two threads: each block runs on
    # its node's thread, and the results are one thread's, which are the C++ cores'.
    mesh = os.path.join(src, "topologies", "thesis-mesh", "mesh.yaml")
    mesh_args = ["--sim-time", "20ms", "--log-interval", "2ms", "--set", "traffic.flows[1].start=1ms",
                 "--set", "traffic.flows[2].start=2ms", "--set", "traffic.flows[3].start=3ms"]
    rtl = ["--rtl", "SW4/2,SW3/3,SW1/1,SW2/1,H1,H2,H3,H5"]
    runs = {}
    for label, threads, extra in (("cores", 1, []), ("rtl_t1", 1, rtl), ("rtl_t2", 2, rtl)):
        d = os.path.join(out, "rtl_mesh", label)
        rc, err = run(ibcc, mesh, d, threads, *mesh_args, *extra)
        check(rc == 0, f"mesh {label} (exit {rc}{': ' + err[-300:] if rc else ''})")
        runs[label] = d if rc == 0 else None
    if all(runs.values()):
        p = json.load(open(os.path.join(runs["rtl_t2"], "summary.json"))).get("parallel", {})
        both = [g["switches"] for g in p.get("groups", [])]
        check(p.get("cut_links", 0) > 0 and len(both) == 2 and min(both) > 0,
              f"RTL mesh on 2 threads: both groups hold switches with an RTL marker ({both} switches, "
              f"{p.get('cut_links')} links cut)")
        for other in ("rtl_t1", "cores"):
            compared, differ = same_outputs(runs[other], runs["rtl_t2"])
            check(not differ and "flows.csv" in compared,
                  f"RTL mesh on 2 threads: {', '.join(compared)} identical to {other}"
                  f"{' (differ: ' + ', '.join(differ) + ')' if differ else ''}")

    # Bad thread counts.
    rc, err = run(ibcc, uniform, os.path.join(out, "bad0"), 0, "--sim-time", "1us")
    check(rc == 2, f"--threads 0 refused, exit 2 ({rc}: {err.splitlines()[-1] if err else ''})")
    rc, err = run(ibcc, mesh, os.path.join(out, "bad5"), 5, "--sim-time", "1us")
    check(rc == 2 and "--threads 5" in err and not os.path.exists(os.path.join(out, "bad5", "flows.csv")),
          f"--threads 5 on the 4-switch mesh refused, exit 2 ({rc}: {err.splitlines()[-1] if err else ''})")
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
