"""`ibcc sweep`: a scenario over the cross product of parameter values, each point one
`ibcc run` into OUT/points/NNNN_<settings>/, gathered into OUT/sweep.csv.

A sweep resumes: run again with the same options, it keeps the points whose run finished
(made by this ibcc from the scenario as it is now) and runs the others. OUT/sweep.json holds
its identity; a different sweep into the same --out is refused.

The `ibcc sweep` subcommand (src/sweep.cpp) parses the command line and calls
`python3 -m ibcc.sweep --request JSON`; `sweep(request)` is the same from Python.
"""
import difflib
import math
import os
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .campaign import local, processes, replicas, slurm, space, storage
from .campaign.errors import FAILED, INTERRUPTED, CampaignError, RunError, request_main
from .campaign.ibcc import Ibcc, Settings, finished_run, is_stalled, read_json, scenario_sha
from .campaign.progress import ProgressBar


@dataclass
class Request:
    ibcc: str
    scenario: str
    out: str
    grids: list
    metrics: list = field(default_factory=list)
    jobs: int = 0            # 0: one per core
    sets: list = field(default_factory=list)
    window: str = ""
    sim_time: str = ""
    cc: str = ""
    backend: str = "local"
    partition: str = ""
    array_max: int = 0
    quiet: bool = False
    seeds: int = 0           # --seeds N: each point over N seeds (0: one run per point)
    threads: int = 1         # --threads N: every run on N threads (not part of the identity: same results)

    @classmethod
    def from_dict(cls, d):
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise CampaignError(f"request: unknown fields {', '.join(sorted(unknown))}")
        return cls(**d)

    def settings(self):
        return Settings(sets=list(self.sets), sim_time=self.sim_time, window=self.window, cc=self.cc,
                        threads=self.threads)

    def identity(self):
        """What makes two sweeps the same one (sweep.json): a resume must match it."""
        scenario = self.scenario if os.path.isabs(self.scenario) else os.path.join(os.getcwd(), self.scenario)
        ident = {"scenario": scenario, "grids": list(self.grids), "sets": list(self.sets), "window": self.window,
                 "sim_time": self.sim_time, "cc": self.cc}
        if self.seeds:
            ident["seeds"] = self.seeds
        return ident


@dataclass
class Point:
    """One `ibcc run` of the sweep: a point of the grid (with --seeds: one seed of a point)."""
    settings: list           # (key, value) per axis (with --seeds, then ("sim.seed", s))
    dir: Path = None
    required: list = field(default_factory=list)  # metrics a finished run has: total, throughput.<flow>
    status: int = -1         # the run's exit code (1 for a stalled run)
    stalled: bool = False
    group: int = 0           # the grid point it belongs to (its row of sweep.csv)
    label: str = ""          # its directory under points/ (a Slurm task's name: "/" as "__")


def point_name(index, settings):
    name = f"{index:04d}" + "".join(f"_{k.rsplit('.', 1)[-1]}={v}" for k, v in settings)
    return re.sub(r"[^A-Za-z0-9_=.\-]", "-", name)


def check_metrics(req, shapes):
    """--metric names: each a metric of every point's runs."""
    for flows, names in shapes:
        for m in req.metrics:
            if m not in names:
                listed = ", ".join(sorted(n for n in names if not n.startswith("throughput.")))
                near = difflib.get_close_matches(m, list(names), n=1)
                hint = f"; did you mean '{near[0]}'?" if near else ""
                raise CampaignError(f"--metric {m}: not a metric of this scenario{hint} (available: {listed}, and "
                                    f"throughput.<flow> for each of its {len(flows)} flows)")


def failure_reason(log_file):
    """What a failed point's `ibcc run` said last (its error line), or where to look."""
    try:
        lines = [ln.strip() for ln in Path(log_file).read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return "no log"
    for ln in reversed(lines):
        for mark in ("FAILED: ", "error: "):
            if mark in ln:
                reason = ln.split(mark, 1)[1]
                return reason if len(reason) <= 200 else reason[:197] + "..."
    return "see its log"


def failed_status(p):
    """A failed point's status in sweep.csv: `failed: ` and the reason, its exit code and log."""
    return f"failed: {failure_reason(p.dir / 'log.txt')} (exit {p.status}, {p.label}/log.txt)"


def first_seed(req, ibcc):
    """The first seed of --seeds N: the scenario's sim.seed as --set leaves it."""
    import yaml
    if any(space.parse_grid([g])[0].key == "sim.seed" for g in req.grids):
        raise CampaignError("--seeds N replicates each point over sim.seed; it cannot also be a --grid key")
    cmd, rc, text, err = ibcc.describe(req.scenario, req.settings())
    if rc != 0:
        raise CampaignError(err.splitlines()[-1].replace("ibcc describe: error: ", "") if err else f"exit {rc}")
    try:
        return int(yaml.safe_load(text)["sim"]["seed"])
    except (yaml.YAMLError, KeyError, TypeError, ValueError) as e:
        raise RunError(f"{' '.join(cmd)}: no sim.seed in its output ({e})") from None


def summarise_group(runs, columns):
    """A grid point over its seeds: (status, seeds with a result, {metric: summary})."""
    failed = [r for r in runs if r.status != 0 and not r.stalled]
    kept = [r for r in runs if r.status == 0 or r.stalled]
    per_seed = []
    for r in kept:
        m = (read_json(r.dir / "metrics.json") or {}).get("metrics") or {}
        per_seed.append({k: v for k, v in m.items() if k in columns})
    if failed:
        more = f"; {len(failed) - 1} more of its {len(runs)} seeds failed" if len(failed) > 1 else ""
        status = failed_status(failed[0]) + more
    else:
        status = "stalled" if any(r.stalled for r in runs) else "ok"
    return status, len(kept), replicas.combine(per_seed)


def gather(req, axes, points, out, sha, log):
    """sweep.csv from the points' metrics.json; the exit code (1 if a point failed)."""
    # One version of the scenario in one sweep.csv: a file edited while the sweep ran leaves
    # points of two versions, which are not gathered (a rerun redoes the others' points).
    stale = [p.dir.name for p in points if (p.dir / "summary.json").exists() and scenario_sha(p.dir) != sha]
    try:
        now = storage.sha256_file(req.scenario)
    except OSError:
        now = ""
    if stale or now != sha:
        more = f" ({len(stale)} points ran another version, first {stale[0]})" if stale else ""
        raise CampaignError(f"{req.scenario} changed while the sweep ran{more}; sweep.csv is not written; run the "
                            "same command again to rerun the points of the old version")
    results, available = [], set()
    for p in points:
        m = read_json(p.dir / "metrics.json") or {}
        p.stalled = is_stalled(p.status, p.dir)
        # An undefined metric (null: Jain without an active contributor) is an empty cell.
        values = {k: (float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan)
                  for k, v in (m.get("metrics") or {}).items()}
        results.append(values)
        available.update(values)
    failed = sum(1 for p in points if p.status != 0 and not p.stalled)
    stalls = sum(1 for p in points if p.stalled)
    columns = list(req.metrics) or [k for k in sorted(available)
                                    if not k.startswith("throughput.") or len(available) < 40]
    if req.seeds:
        return gather_replicated(req, axes, points, columns, out, log)
    rows = []
    for p, values in zip(points, results):
        # (a stalled point's metrics are those measured up to the stall)
        status = "ok" if p.status == 0 else "stalled" if p.stalled else failed_status(p)
        cells = []
        for c in columns:
            v = values.get(c, math.nan)
            cells.append("" if (p.status != 0 and not p.stalled) or math.isnan(v) else f"{v:.6g}")
        rows.append([v for _, v in p.settings] + [status] + cells)
    storage.write_csv(out / "sweep.csv", [a.key for a in axes] + ["status"] + columns, rows)
    ok = len(points) - failed - stalls
    names = [p.dir.name for p in points if p.status != 0 and not p.stalled]
    if names:
        more = f" and {len(names) - 10} more" if len(names) > 10 else ""
        log(f"ibcc sweep: {len(names)} point{'s' if len(names) > 1 else ''} failed: {', '.join(names[:10])}{more} "
            "(why: the status column of sweep.csv, and each point's log.txt)")
    log(f"ibcc sweep: {ok} of {len(points)} points ok"
        + (f", {stalls} stalled (a result: status `stalled`)" if stalls else "") + f"; {out / 'sweep.csv'}")
    return FAILED if failed else 0


def gather_replicated(req, axes, runs, columns, out, log):
    """sweep.csv of a sweep with --seeds: a row per grid point, each metric's mean over its
    seeds and `<metric>.ci95` (the half width of its 95 % confidence interval), `seeds` (how
    many gave a result); the exit code (1 if a seed of some point failed)."""
    groups = {}
    for r in runs:
        groups.setdefault(r.group, []).append(r)
    rows, failed_points, stalled_points, identical = [], [], 0, 0
    header = [a.key for a in axes] + ["status", "seeds"] + [x for c in columns for x in (c, f"{c}.ci95")]
    for g in sorted(groups):
        members = groups[g]
        status, n, summary = summarise_group(members, columns)
        cells = []
        for c in columns:
            s = summary.get(c) or {}
            ok = not status.startswith("failed")
            cells += ["" if not ok or s.get("mean") is None else f"{s['mean']:.6g}",
                      "" if not ok or s.get("ci95") is None else f"{s['ci95']:.6g}"]
        if status.startswith("failed"):
            failed_points.append(members[0].dir.parent.name)
        elif status == "stalled":
            stalled_points += 1
        if n > 1 and all((x.get("ci95") in (0, 0.0, None)) for x in summary.values()):
            identical += 1
        rows.append([v for k, v in members[0].settings if k != "sim.seed"] + [status, n] + cells)
    storage.write_csv(out / "sweep.csv", header, rows)
    if failed_points:
        more = f" and {len(failed_points) - 10} more" if len(failed_points) > 10 else ""
        log(f"ibcc sweep: {len(failed_points)} point{'s' if len(failed_points) > 1 else ''} failed: "
            f"{', '.join(failed_points[:10])}{more} (why: the status column of sweep.csv, and each seed's log.txt)")
    if identical == len(groups):
        log(f"ibcc sweep: note: every point's seeds gave identical metrics: {replicas.SEEDLESS_HINT}")
    ok = len(groups) - len(failed_points) - stalled_points
    log(f"ibcc sweep: {ok} of {len(groups)} points ok over {req.seeds} seeds each"
        + (f", {stalled_points} stalled (a result: status `stalled`)" if stalled_points else "")
        + f"; {out / 'sweep.csv'}")
    return FAILED if failed_points else 0


def run_local(req, ibcc, points, todo, resumed, log):
    jobs = req.jobs or local.default_jobs(req.threads)
    unit = f"runs ({len(points) // req.seeds} points x {req.seeds} seeds)" if req.seeds else "points"
    log(f"ibcc sweep: {len(points)} {unit} ({resumed} done before), {jobs} at a time, results in {req.out}")
    bar = ProgressBar(req.quiet)
    work = [local.Job(ibcc.run_args(req.scenario, p.dir, req.settings(), p.settings), p.dir / "log.txt") for p in todo]

    failures = {}  # id of a finished job that did not succeed -> it failed (not a stall: a stall is a result)

    def show(running, finished):
        for p, j in zip(todo, work):
            if j.status in (-1, 0) or id(j) in failures:
                continue
            stalled = is_stalled(j.status, p.dir)
            failures[id(j)] = not stalled
            if not stalled:  # named as it fails
                p.status = j.status
                bar.say(f"ibcc sweep: point {p.label} {failed_status(p)}")
        failed = sum(failures.values())
        done = resumed + finished
        bar.update(done / len(points), f"{done}/{len(points)} {'runs' if req.seeds else 'points'}, {running} running, "
                                       f"{failed} failed")

    show(0, 0)
    complete = local.run(work, jobs, show)
    for p, j in zip(todo, work):
        p.status = j.status
    bar.finish()
    if not complete:
        done = resumed + sum(1 for j in work if j.status >= 0)
        print(f"ibcc sweep: interrupted with {done} of {len(points)} points done; run the same command to resume",
              file=sys.stderr)
    return complete


def run_slurm(req, ibcc, points, todo, resumed, sha, log):
    """The points of `todo` as one Slurm job array: each task runs one point's `ibcc run` and
    leaves its exit code in slurm/tasks/<point>.exit. A job of an earlier invocation still in
    the queue is waited for first (its points are then not submitted again). False when
    interrupted (the job is then cancelled)."""
    sdir = (Path(req.out) / "slurm").resolve()
    (sdir / "tasks").mkdir(parents=True, exist_ok=True)
    job_file = slurm.JobFile(sdir)
    bar = ProgressBar(req.quiet)

    def done(p):
        return finished_run(p.dir, p.required, ibcc.version(), sha)[0]

    def tick(job_id):
        n = sum(1 for p in points if done(p))
        bar.update(n / len(points), f"{n}/{len(points)} points, Slurm job {job_id}")

    submit = list(todo)
    old = job_file.queued()
    if old:
        log(f"ibcc sweep: Slurm job {old} of this sweep is still queued: waiting for it")
        if not slurm.wait(old, lambda: tick(old), processes.stop_requested):
            return False
        submit = [p for p in todo if not done(p)]
    if submit and processes.stop_requested():
        return False
    if submit:
        tasks = []
        for p in submit:
            p.dir.mkdir(parents=True, exist_ok=True)
            task = sdir / "tasks" / f"{p.label.replace('/', '__')}.sh"
            exit_file = sdir / "tasks" / f"{p.label.replace('/', '__')}.exit"
            exit_file.unlink(missing_ok=True)
            cmd = shlex.join(ibcc.run_args(req.scenario, p.dir, req.settings(), p.settings))
            storage.write_text(task, f"#!/usr/bin/env bash\n# ibcc sweep: point {p.label}\n"
                                     f"cd {shlex.quote(os.getcwd())}\nunset IBCC_PARENT\n"
                                     f"{cmd} > {shlex.quote(str(p.dir / 'log.txt'))} 2>&1\n"
                                     f"echo $? > {shlex.quote(str(exit_file))}\n")
            tasks.append(str(task))
        storage.write_text(sdir / "tasks.txt", "\n".join(tasks) + "\n")
        storage.write_text(sdir / "array.sh", slurm.task_list_script(sdir / "tasks.txt"))
        job_id = slurm.submit(slurm.ArrayJob(str(sdir / "array.sh"), len(submit), "ibcc-sweep", str(sdir),
                                             req.array_max, req.partition, cpus_per_task=req.threads))
        job_file.record(job_id)
        log(f"ibcc sweep: Slurm job {job_id}: {len(submit)} points ({resumed} done before); Slurm's logs in {sdir}")
        if not slurm.wait(job_id, lambda: tick(job_id), processes.stop_requested):
            return False
    bar.finish()
    for p in todo:
        if done(p):
            p.status = 1 if is_stalled(1, p.dir) else 0
            continue
        try:
            rc = int((sdir / "tasks" / f"{p.label.replace('/', '__')}.exit").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            rc = 1  # no exit code: the task was cancelled or never ran
        p.status = rc if rc != 0 else 1
    return True


def sweep(request):
    req = request if isinstance(request, Request) else Request.from_dict(request)
    log = (lambda *a: None) if req.quiet else (lambda *a: print(*a, file=sys.stderr, flush=True))
    ibcc = Ibcc(req.ibcc)
    axes = space.parse_grid(req.grids)
    points = [Point(s, group=i) for i, s in enumerate(space.grid_points(axes))]
    # Every point must be a valid scenario before anything runs.
    shapes = ibcc.check_points(req.scenario, req.settings(), [p.settings for p in points], "--grid")
    check_metrics(req, shapes)
    for p, (flows, _) in zip(points, shapes):
        p.required = ["total"] + [f"throughput.{f}" for f in flows]
    if req.seeds:
        if req.seeds < 2:
            raise CampaignError("--seeds: at least 2 (one seed is a plain sweep)")
        seeds = replicas.seeds(first_seed(req, ibcc), req.seeds)
        points = [Point(p.settings + [("sim.seed", s)], required=p.required, group=p.group) for p in points
                  for s in seeds]
    try:
        sha = storage.sha256_file(req.scenario)
    except OSError as e:
        raise CampaignError(f"{req.scenario}: {e.strerror or e}") from None
    out = storage.make_out(req.out)
    try:
        (out / "points").mkdir(exist_ok=True)
    except OSError as e:
        raise RunError(f"cannot create {out / 'points'}: {e.strerror or e}") from None
    storage.lock_out(out, "ibcc sweep", ".ibcc-sweep.lock")
    storage.check_identity(out / "sweep.json", req.identity(), "sweep")

    todo = []
    version = ibcc.version()
    for p in points:
        grid = [(k, v) for k, v in p.settings if not (req.seeds and k == "sim.seed")]
        p.label = point_name(p.group, grid)
        if req.seeds:
            p.label += "/" + replicas.seed_dir_name(p.settings[-1][1])
        p.dir = out / "points" / p.label
        done, why = finished_run(p.dir, p.required, version, sha)
        if done:
            # (its run's exit code: 1 for a stalled point, as when it ran)
            p.status = 1 if is_stalled(1, p.dir) else 0
            continue
        todo.append(p)
        if why:
            log(f"ibcc sweep: rerunning {p.label}: {why}")
    resumed = len(points) - len(todo)
    if req.backend == "slurm":
        if not run_slurm(req, ibcc, points, todo, resumed, sha, log):
            print("ibcc sweep: interrupted; the Slurm job is cancelled; run the same command to resume", file=sys.stderr)
            return INTERRUPTED
    elif not run_local(req, ibcc, points, todo, resumed, log):
        return INTERRUPTED
    return gather(req, axes, points, out, sha, log)


def main(argv=None):
    return request_main("ibcc sweep", sweep, argv)


if __name__ == "__main__":
    sys.exit(main())
