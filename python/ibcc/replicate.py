"""`ibcc run --seeds N`: one configuration replicated over N seeds, each an `ibcc run` into
OUT/seed-<s>/, and OUT/metrics.json with each metric's mean, 95 % confidence interval and
per-seed values; OUT/summary.json says how it was made.

The `ibcc run` subcommand (src/run_cmd.cpp) resolves the scenario (bad input is found
there, before anything runs), then calls `python3 -m ibcc.replicate --request JSON`.
"""
import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .campaign import local, replicas, storage
from .campaign.errors import FAILED, INTERRUPTED, CampaignError, RunError, request_main
from .campaign.ibcc import Ibcc, read_json
from .campaign.progress import ProgressBar

# What a replicated run writes into OUT (besides the seed-<s> directories and plots).
OUTPUT_FILES = ("metrics.json", "summary.json", "replicas.csv")


@dataclass
class Request:
    ibcc: str
    scenario: str
    out: str
    seeds: list              # the seeds, in order
    args: list = field(default_factory=list)   # `ibcc run` options every seed's run takes as they are
    jobs: int = 0            # 0: one per core
    force: bool = False
    quiet: bool = False
    command: list = field(default_factory=list)
    threads: int = 1         # each run's --threads (in args): the default jobs share the cores

    @classmethod
    def from_dict(cls, d):
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise CampaignError(f"request: unknown fields {', '.join(sorted(unknown))}")
        return cls(**d)


def is_replicated(directory):
    """True for the OUT of `ibcc run --seeds N` (its summary.json lists the seeds)."""
    return "replicas" in (read_json(Path(directory) / "summary.json") or {})


def prepare_out(req):
    """--out created; an earlier replicated run's results removed with --force, else refused.
    A plain run's results in it are refused too (they would be mistaken for these)."""
    out = storage.make_out(req.out)
    old = [n for n in OUTPUT_FILES + ("flows.csv", "ports.csv", "resolved.yaml") if (out / n).exists()]
    old += sorted(p.name for p in out.glob("seed-*") if p.is_dir())
    if old and not req.force:
        raise CampaignError(f"--out {req.out}: holds the results of an earlier run ({', '.join(old[:4])}"
                            f"{', ...' if len(old) > 4 else ''}); give --force to replace them, or another --out")
    for name in old:
        p = out / name
        try:
            shutil.rmtree(p) if p.is_dir() else p.unlink()
        except OSError as e:
            raise RunError(f"cannot remove {p}: {e.strerror or e}") from None
    storage.lock_out(out, "ibcc run --seeds", ".ibcc-run.lock")
    return out


def headline(summary, window, n):
    """The replicated run's headline: as a run's, each value its mean ± the 95 % interval."""
    def value(name, spec):
        s = summary.get(name)
        if not s or s["mean"] is None:
            return "n/a"
        ci = f" ± {format(s['ci95'], spec)}" if s["ci95"] is not None else ""
        return format(s["mean"], spec) + ci
    groups = [f"{k[len('group_total.'):]} {value(k, '.2f')}" for k in sorted(summary) if k.startswith("group_total.")]
    return (f"metrics over {window}, mean ± 95 % CI over {n} seeds: throughput {value('total', '.2f')} Gb/s"
            + (f" ({', '.join(groups)})" if groups else "")
            + f", Jain {value('jain', '.3f')}, peak buffer {value('peak_buffer_credits', '.0f')} credits, "
            f"p99 latency {value('latency_p99_us', '.1f')} us (all in metrics.json)")


def replicate(request):
    req = request if isinstance(request, Request) else Request.from_dict(request)
    if len(req.seeds) < 2:
        raise CampaignError("--seeds: at least 2 (one seed is a plain run)")
    log = (lambda *a: None) if req.quiet else (lambda *a: print(*a, file=sys.stderr, flush=True))
    ibcc = Ibcc(req.ibcc)
    out = prepare_out(req)
    jobs = min(req.jobs or local.default_jobs(req.threads), len(req.seeds))
    dirs = [out / replicas.seed_dir_name(s) for s in req.seeds]
    work = [local.Job([req.ibcc, "run", req.scenario, *req.args, "--seed", str(s), "--out", str(d), "--quiet"],
                      d / "log.txt") for s, d in zip(req.seeds, dirs)]
    log(f"ibcc run: {len(req.seeds)} seeds ({req.seeds[0]}..{req.seeds[-1]}), {jobs} at a time, results in {out}")
    bar = ProgressBar(req.quiet)
    complete = local.run(work, jobs, lambda running, done: bar.update(
        done / len(work), f"{done}/{len(work)} seeds, {running} running"))
    bar.finish()
    if not complete:
        print("ibcc run: interrupted; the seeds' runs wrote what they had", file=sys.stderr)
        return INTERRUPTED

    results, per_seed, window = [], [], ""
    for s, d, j in zip(req.seeds, dirs, work):
        m = read_json(d / "metrics.json") or {}
        result = m.get("result", "") if j.status in (0, 1) else ""
        if j.status == 0 or result == "stalled":
            per_seed.append(m.get("metrics") or {})
            window = window or m.get("window", "")
            results.append((s, d, result or "ok", j.status))
        else:
            reason = "see its log"
            try:
                lines = [ln for ln in (d / "log.txt").read_text(errors="replace").splitlines() if ln.strip()]
                reason = lines[-1].strip() if lines else reason
            except OSError:
                pass
            results.append((s, d, f"failed: {reason} (exit {j.status}, {d.name}/log.txt)", j.status))
    summary = replicas.combine(per_seed)
    bad = [(s, r) for s, _, r, _ in results if r != "ok"]
    result = "ok" if not bad else "failed" if any(r.startswith("failed") for _, r in bad) else "stalled"
    metrics = {
        "metrics": {k: v["mean"] for k, v in summary.items()},
        "ci95": {k: v["ci95"] for k, v in summary.items()},
        "std": {k: v["std"] for k, v in summary.items()},
        "n": {k: v["n"] for k, v in summary.items()},
        "per_seed": {k: [m.get(k) for m in per_seed] for k in summary},
        "seeds": [s for s, _, r, _ in results if not r.startswith("failed")],
        "result": result,
        "version": ibcc.version(),
        "window": window,
    }
    run_summary = {
        "command": req.command,
        "version": ibcc.version(),
        "scenario": req.scenario,
        "result": result,
        "replicas": [{"seed": s, "dir": d.name, "result": r} for s, d, r, _ in results],
        "interval": "95 % confidence interval of the mean: mean ± t(0.975, n-1) · s / sqrt(n)",
    }
    storage.write_text(out / "metrics.json", json.dumps(metrics, indent=2, sort_keys=True) + "\n")
    storage.write_text(out / "summary.json", json.dumps(run_summary, indent=2) + "\n")
    names = sorted(summary)
    storage.write_csv(out / "replicas.csv", ["seed", "result"] + names,
                      [[s, r] + ["" if m.get(k) is None else f"{m[k]:.6g}" for k in names]
                       for (s, _, r, _), m in zip([x for x in results if not x[2].startswith("failed")], per_seed)])
    for s, r in bad:
        log(f"ibcc run: seed {s}: {r}")
    if per_seed:
        log(headline(summary, window, len(per_seed)))
    if replicas.identical(per_seed):
        log(f"ibcc run: note: the {len(per_seed)} seeds gave identical metrics: {replicas.SEEDLESS_HINT}")
    return 0 if result == "ok" else FAILED


def main(argv=None):
    return request_main("ibcc run --seeds", replicate, argv)


if __name__ == "__main__":
    sys.exit(main())
