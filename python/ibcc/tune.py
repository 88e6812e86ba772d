"""`ibcc tune`: search a congestion-control configuration space with Optuna.

Each trial is one `ibcc run` per scenario (workload) with the trial's parameters as `--set`
overrides; its outputs are kept under OUT/trials/NNNN/<scenario>/. An objective is a metric
of metrics.json; with several scenarios a trial's value is the worst case across them (the
smallest of a maximised metric, the largest of a minimised one): "one configuration for all
applications". The study lives in an Optuna storage (OUT/study.db by default), so an
interrupted tune resumes where it stopped.

The `ibcc tune` subcommand (src/main.cpp) parses the command line and calls
`python3 -m ibcc.tune --request JSON`; `tune(request)` is the same from Python.
"""
import difflib
import fcntl
import json
import math
import os
import shlex
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .campaign import processes, replicas, slurm
from .campaign.progress import ProgressBar
from .campaign.errors import BAD_INPUT, FAILED, INTERRUPTED, CampaignError, RunError
from .campaign.ibcc import Ibcc, Settings, is_stalled, read_json
from .campaign.space import Param, fmt_num, parse_quantity, parse_space, schema_node  # noqa: F401 (the tune's space)
from .campaign.storage import lock_out, sha256_file, write_csv, write_text
from . import opensm
from .metrics import metric_direction  # noqa: F401 (also for the report's callers)

STUDY_NAME = "ibcc-tune"

# The seed hardware experiments' parameters (../shared/notes/IBCC_SPEC.md; ib-cc-slides-ofa2011).
SEED_HARDWARE = {
    "cc.switch.threshold": "15",
    "cc.switch.marking_rate": "1",
    "cc.switch.packet_size": "8",
    "cc.ca.ccti_increase": "1",
    "cc.ca.ccti_limit": "127",
    "cc.ca.ccti_min": "0",
    "cc.ca.ccti_timer": "150",
}
# For DCQCN and DCQCN+ reaction points, the seed's hardware is the dissertation's ConnectX-4
# (dcqcn-plus-dissertation, Table 1: rpg_time_reset, rpg_byte_reset, rpg_ai_rate, rpg_hai_rate,
# min_time_between_cnps, the rate reduce monitor period; 1 CNP/us generation, section 2).
SEED_HARDWARE_DCQCN = {
    "cc.dcqcn.rate_timer": "300us",
    "cc.dcqcn.byte_counter": "2MB",
    "cc.dcqcn.ai_rate": "5Mb/s",
    "cc.dcqcn.hai_rate": "40Mb/s",
    "cc.dcqcn.cnp_interval": "0s",
    "cc.dcqcn.cnp_generation": "1us",
    "cc.dcqcn.reduce_period": "4us",
}


def seed_hardware(reaction):
    """(--set overrides, description) of the seed hardware reference for a reaction point."""
    if reaction in ("dcqcn", "dcqcn_plus"):
        return SEED_HARDWARE_DCQCN, "ConnectX-4's DCQCN parameters (dcqcn-plus-dissertation Table 1)"
    return SEED_HARDWARE, "the IB CC test bed's (Threshold 15, Marking_Rate 1, Packet_Size 8, CCTI_Timer 150)"



# Bad input (exit 2): a parameter, objective, scenario or storage the tune cannot use.
TuneError = CampaignError


class TrialRunError(RunError):
    """One `ibcc run` of a trial failed (its check failed or it crashed): the trial fails."""


class TrialStalled(TrialRunError):
    """A trial's run stalled (flows delivered nothing for sim.stall_timeout): a result of the
    configuration, recorded in tune.csv as state STALLED with the metrics up to the stall; it
    is never chosen."""

    def __init__(self, message, label, metrics):
        super().__init__(message)
        self.label = label
        self.metrics = metrics


# ------------------------------------------------------------------------------------------
# Parameters and objectives
# ------------------------------------------------------------------------------------------


@dataclass
class Objective:
    metric: str
    maximise: bool

    def worst(self, values):
        return min(values) if self.maximise else max(values)

    def better_or_equal(self, a, b):
        return a >= b if self.maximise else a <= b


def parse_objectives(specs):
    """--objective METRIC[:max|:min]; the direction is known for the usual metrics."""
    objectives = []
    for spec in specs or ["victim:max"]:
        metric, _, direction = spec.partition(":")
        if direction not in ("", "max", "min"):
            raise TuneError(f"--objective {spec}: expected METRIC, METRIC:max or METRIC:min")
        if not direction:
            if metric_direction(metric) == 1:
                direction = "max"
            elif metric_direction(metric) == -1:
                direction = "min"
            else:
                raise TuneError(f"--objective {spec}: say whether to maximise or minimise {metric} ({metric}:max or {metric}:min)")
        if any(o.metric == metric for o in objectives):
            raise TuneError(f"--objective {spec}: {metric} is given twice")
        objectives.append(Objective(metric, direction == "max"))
    return objectives


# ------------------------------------------------------------------------------------------
# Running ibcc
# ------------------------------------------------------------------------------------------


@dataclass
class Request:
    ibcc: str
    scenarios: list
    out: str
    space: list
    objectives: list
    trials: int = 40
    jobs: int = 1
    storage: str = ""
    seed: int = 1
    sets: list = field(default_factory=list)
    sim_time: str = ""
    window: str = ""
    quiet: bool = False
    command: str = ""
    backend: str = "local"    # local: trials here, --jobs at a time; slurm: --workers Slurm tasks
    workers: int = 1
    partition: str = ""
    seeds: int = 0            # --seeds N: every run over N seeds, the objectives on the means (0: one run)
    threads: int = 1          # --threads N: every run on N threads (the results do not depend on it)

    @classmethod
    def from_dict(cls, d):
        known = set(cls.__dataclass_fields__)
        unknown = set(d) - known
        if unknown:
            raise TuneError(f"request: unknown fields {', '.join(sorted(unknown))}")
        return cls(**d)


class Runner:
    """Runs `ibcc` for the tune: describe (validation), run (trials and references)."""

    def __init__(self, req):
        self.req = req
        self.labels = scenario_labels(req.scenarios)
        self.ibcc = Ibcc(req.ibcc)
        self.settings = Settings(sets=list(req.sets), sim_time=req.sim_time, window=req.window, threads=req.threads)
        self._first_seed = {}

    def describe(self, scenario, sets, extra=()):
        """(command, exit code, resolved scenario, error) of `ibcc describe`."""
        return self.ibcc.describe(scenario, self.settings, sets.items(), extra)

    def first_seed(self, scenario):
        """The scenario's sim.seed as the tune's --set leaves it: the first of --seeds N."""
        if scenario not in self._first_seed:
            _, rc, text, err = self.describe(scenario, {})
            if rc != 0:
                raise TuneError(f"{scenario}: {err}")
            self._first_seed[scenario] = int(yaml.safe_load(text)["sim"]["seed"])
        return self._first_seed[scenario]

    def run(self, scenario, sets, out_dir):
        """The metrics of one run of `scenario` with `sets` into `out_dir`; with --seeds N, of N
        runs into out_dir/seed-<s>/, each metric their mean (out_dir/metrics.json: the means,
        their 95 % intervals and the values per seed, as `ibcc run --seeds` writes it)."""
        if not self.req.seeds:
            return self.run_one(scenario, sets, out_dir)
        if "sim.seed" in sets:
            raise TuneError("--seeds N replicates every run over sim.seed; it cannot also be a --space parameter")
        per_seed, seeds = [], replicas.seeds(self.first_seed(scenario), self.req.seeds)
        for seed in seeds:
            per_seed.append(self.run_one(scenario, dict(sets, **{"sim.seed": seed}),
                                         Path(out_dir) / replicas.seed_dir_name(seed)))
        summary = replicas.combine(per_seed)
        doc = {"metrics": {k: v["mean"] for k, v in summary.items()},
               "ci95": {k: v["ci95"] for k, v in summary.items()},
               "n": {k: v["n"] for k, v in summary.items()},
               "per_seed": {k: [m.get(k) for m in per_seed] for k in summary},
               "seeds": seeds, "result": "ok"}
        write_text(Path(out_dir) / "metrics.json", json.dumps(doc, indent=1, sort_keys=True) + "\n")
        return doc["metrics"]

    def run_one(self, scenario, sets, out_dir):
        p = processes.run_child(self.ibcc.run_args(scenario, out_dir, self.settings, sets.items()))
        if p.returncode == 2:
            # Every parameter's range was checked before the first trial (validate); bad input
            # now is this combination's (kmin above kmax inside the space): the trial fails
            # with the reason, the study goes on.
            last = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "exit 2"
            raise TrialRunError(f"not a valid combination: {last.replace('ibcc run: error: ', '')}")
        if p.returncode in (130, -2, -15, 143):  # interrupted (SIGINT/SIGTERM): not the configuration's fault
            raise KeyboardInterrupt
        if is_stalled(p.returncode, out_dir):
            m = read_json(Path(out_dir) / "metrics.json")
            first = next((ln for ln in p.stderr.splitlines() if "stalled" in ln), "stalled")
            raise TrialStalled(first.replace("ibcc run: FAILED: ", ""), Path(out_dir).name, m.get("metrics", {}))
        if p.returncode != 0:
            raise TrialRunError(f"exit {p.returncode}: {p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ''}")
        metrics = json.loads((Path(out_dir) / "metrics.json").read_text())
        return metrics.get("metrics", {})

    def evaluate(self, sets, base_dir, objectives):
        """{label: {metric: value}} over every scenario, and the worst case per objective."""
        per = {}
        for scenario, label in zip(self.req.scenarios, self.labels):
            metrics = self.run(scenario, sets, Path(base_dir) / label)
            values = {}
            for o in objectives:
                if o.metric not in metrics:
                    near = difflib.get_close_matches(o.metric, list(metrics), n=1)
                    hint = f"; did you mean '{near[0]}'?" if near else ""
                    raise TuneError(f"--objective {o.metric}: not a metric of {label}'s runs{hint} (they have "
                                    f"{', '.join(sorted(metrics))})")
                v = metrics[o.metric]
                if v is None:
                    raise TrialRunError(f"{label}: metric {o.metric} is undefined in this run")
                values[o.metric] = float(v)
            per[label] = values
        worst = [o.worst([per[lab][o.metric] for lab in self.labels]) for o in objectives]
        return per, worst


def scenario_labels(scenarios):
    stems = [Path(s).stem for s in scenarios]
    return [s if stems.count(s) == 1 else f"{i}_{s}" for i, s in enumerate(stems)]


def validate(req, params, runner):
    """Before any trial: each scenario with every parameter at either end, and with each
    choice, is a valid scenario (the objectives' metrics are checked on the reference run)."""
    for scenario in req.scenarios:
        if not Path(scenario).is_file():
            raise TuneError(f"{scenario}: no such scenario file")
        for corner in ("low", "high"):
            sets = {}
            for p in params:
                if p.kind == "categorical":
                    sets[p.key] = p.choices[0 if corner == "low" else -1]
                else:
                    sets[p.key] = p.value_text(p.low if corner == "low" else p.high)
            _, rc, _, err = runner.describe(scenario, sets)
            if rc != 0:
                raise TuneError(f"{scenario} with the {corner} end of every --space parameter "
                                f"({', '.join(f'{k}={v}' for k, v in sets.items())}): {err}")
            if req.threads > 1:  # a parallel run of that many groups: supported by the scenario
                try:
                    runner.ibcc.check_points(scenario, runner.settings, [list(sets.items())], "--space")
                except CampaignError as e:
                    raise TuneError(f"{scenario}: {e}") from None
        # Each choice with every other parameter at its low end: a choice under which another
        # parameter has no effect (cc.reaction=dcqcn_plus with cc.dcqcn.rate_timer) is refused
        # here, not found trial by trial.
        low = {q.key: (q.choices[0] if q.kind == "categorical" else q.value_text(q.low)) for q in params}
        for p in params:
            if p.kind != "categorical":
                continue
            for c in p.choices[1:]:
                sets = dict(low, **{p.key: c})
                _, rc, _, err = runner.describe(scenario, sets)
                if rc != 0:
                    raise TuneError(f"{scenario} with {p.key}={c} and every other --space parameter at its low end "
                                    f"({', '.join(f'{k}={v}' for k, v in sets.items() if k != p.key)}): {err}")


# ------------------------------------------------------------------------------------------
# The study
# ------------------------------------------------------------------------------------------


def spec_of(req, params, objectives):
    """What makes two tunes the same study (a resume must match it)."""
    return {
        "scenarios": [{"path": s, "sha256": sha256_file(s)} for s in req.scenarios],
        "space": [p.spec() for p in params],
        "objectives": [f"{o.metric}:{'max' if o.maximise else 'min'}" for o in objectives],
        "sets": list(req.sets),
        "sim_time": req.sim_time,
        "window": req.window,
        "version": Ibcc(req.ibcc).version(),
        **({"seeds": req.seeds} if req.seeds else {}),
    }


def storage_url(req):
    return req.storage or f"sqlite:///{Path(req.out).resolve() / 'study.db'}"


def open_study(req, params, objectives, spec, worker=0):
    import optuna
    storage = storage_url(req)
    # Each Slurm worker samples with its own seed (worker 0 with --seed, as a local tune).
    sampler = optuna.samplers.TPESampler(seed=req.seed + worker, multivariate=True)
    directions = ["maximize" if o.maximise else "minimize" for o in objectives]
    try:
        study = optuna.create_study(study_name=STUDY_NAME, storage=storage, directions=directions, sampler=sampler,
                                    load_if_exists=True)
    except Exception as e:  # a bad URL, an unreachable database
        reason = str(getattr(e, "orig", None) or e).splitlines()[0]
        if any(w in reason for w in ("disk is full", "readonly", "read-only", "I/O error", "unable to open")):
            raise OSError(f"the study's storage {storage} cannot be written: {reason}") from None
        raise TuneError(f"--storage {storage}: {reason}") from e
    old = study.user_attrs.get("spec")
    if old is None:
        study.set_user_attr("spec", spec)
    elif old != spec:
        diff = [k for k in spec if old.get(k) != spec.get(k)]
        raise TuneError(f"{storage}: holds a study of another tune (differs in {', '.join(diff)}); "
                        f"use another --out or --storage")
    return study, storage


def recover_interrupted(study):
    """Trials an interrupted tune left behind (RUNNING after a kill, or failed by an
    interrupt) are marked interrupted, and their parameters run again (once: the study's
    user attribute `requeued` lists the trials already queued again)."""
    from optuna.trial import TrialState
    requeued = set(study.user_attrs.get("requeued", []))
    n = 0
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING, TrialState.FAIL)):
        if t.number in requeued or (t.state == TrialState.FAIL and not t.user_attrs.get("interrupted")):
            continue
        if t.state == TrialState.RUNNING:
            study._storage.set_trial_user_attr(t._trial_id, "interrupted", True)
            study._storage.set_trial_state_values(t._trial_id, TrialState.FAIL)
        if t.params:
            study.enqueue_trial(t.params, skip_if_exists=False)
        requeued.add(t.number)
        n += 1
    if n:
        study.set_user_attr("requeued", sorted(requeued))
    return n


def finished_trials(study):
    from optuna.trial import TrialState
    return [t for t in study.get_trials(deepcopy=False)
            if t.state == TrialState.COMPLETE or (t.state == TrialState.FAIL and not t.user_attrs.get("interrupted"))]


class TrialProgress:
    """Optuna's callback after each trial: on a terminal, a bar with the trials done, the ETA
    and the best so far; in a log (stderr not a terminal), a line per trial."""

    def __init__(self, req, objectives, done_before):
        self.req, self.objectives = req, objectives
        self.bar = ProgressBar(req.quiet)
        self.done = done_before
        self.bar.update(self.done / req.trials, f"{self.done}/{req.trials} trials")

    def best(self, study):
        from optuna.trial import TrialState
        complete = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
        if not complete:
            return "none completed yet"
        if len(self.objectives) == 1:
            o = self.objectives[0]
            t = (max if o.maximise else min)(complete, key=lambda t: t.values[0])
            return f"best {o.metric} {t.values[0]:.6g} (trial {t.number})"
        return f"Pareto front of {len(study.best_trials)} trial(s)"

    def __call__(self, study, trial):
        self.done += 1
        what = f"{self.done}/{self.req.trials} trials, {self.best(study)}"
        if self.bar.enabled:
            self.bar.update(min(1.0, self.done / self.req.trials), what)
        elif not self.req.quiet:
            values = ", ".join(f"{o.metric} {v:.6g}" for o, v in zip(self.objectives, trial.values or [])) \
                or trial.state.name.lower()
            print(f"ibcc tune: trial {trial.number}: {values}; {what}", file=sys.stderr, flush=True)

    def finish(self):
        self.bar.finish()


def make_objective(req, params, objectives, runner):
    def objective(trial):
        sets = {}
        for p in params:
            if p.kind == "categorical":
                v = trial.suggest_categorical(p.key, p.choices)
            elif p.kind == "int":
                v = trial.suggest_int(p.key, int(p.low), int(p.high), log=p.log)
            else:
                v = trial.suggest_float(p.key, p.low, p.high, log=p.log)
            sets[p.key] = p.value_text(v)
        trial_dir = Path(req.out) / "trials" / f"{trial.number:04d}"
        trial.set_user_attr("dir", str(trial_dir))
        trial.set_user_attr("sets", sets)
        try:
            per, worst = runner.evaluate(sets, trial_dir, objectives)
        except KeyboardInterrupt:
            trial.set_user_attr("interrupted", True)
            raise
        except TrialStalled as e:
            trial.set_user_attr("error", str(e))
            trial.set_user_attr("stalled", True)
            trial.set_user_attr("per_scenario", {e.label: {o.metric: "" if e.metrics.get(o.metric) is None else e.metrics[o.metric]
                                                         for o in objectives}})
            raise RuntimeError(str(e)) from e  # a result, but never a candidate: the study goes on
        except TrialRunError as e:
            trial.set_user_attr("error", str(e))
            if not req.quiet:
                print(f"ibcc tune: trial {trial.number} failed: {e}", file=sys.stderr, flush=True)
            raise RuntimeError(str(e)) from e  # the trial fails; the study goes on
        trial.set_user_attr("per_scenario", per)
        return worst[0] if len(worst) == 1 else worst

    return objective


# ------------------------------------------------------------------------------------------
# Slurm: --workers tasks of one job array share the study through its storage
# ------------------------------------------------------------------------------------------


def wait_for_slurm_job(req, study, job_id):
    """Until the job leaves the queue; Ctrl-C cancels it."""
    def tick():
        if not req.quiet:
            print(f"\r{len(finished_trials(study))}/{req.trials} trials, Slurm job {job_id}", end="",
                  file=sys.stderr, flush=True)
    slurm.wait(job_id, tick)
    if not req.quiet:
        print(file=sys.stderr)


def run_workers_on_slurm(req, study, log):
    """Submit --workers array tasks, each `python3 -m ibcc.tune --worker`, and wait for them.
    A job of an earlier invocation still in the queue (running, or still ending after a
    scancel) is waited for first; if the study is still short of trials then, a new job is
    submitted. Ctrl-C cancels the job waited for."""
    out = Path(req.out).resolve()
    sdir = out / "slurm"
    sdir.mkdir(parents=True, exist_ok=True)
    job_file = slurm.JobFile(sdir)
    job_id = job_file.queued()
    if job_id:
        log(f"ibcc tune: Slurm job {job_id} of this study is still in the queue: waiting for it")
        wait_for_slurm_job(req, study, job_id)
        if len(finished_trials(study)) >= req.trials:
            return
        recover_interrupted(study)  # what that job left running is over now
    worker_req = {k: getattr(req, k) for k in Request.__dataclass_fields__}
    worker_req["storage"] = storage_url(req)
    worker_req["quiet"] = True
    source = Path(__file__).resolve().parent.parent
    script = sdir / "worker.sh"
    write_text(script, "#!/usr/bin/env bash\n# ibcc tune: one worker of the study (a Slurm array task)\n"
               f"cd {shlex.quote(os.getcwd())}\n"
               "unset IBCC_PYTHON_PARENT IBCC_PARENT\n"
               f"export PYTHONPATH={shlex.quote(str(source))}${{PYTHONPATH:+:$PYTHONPATH}}\n"
               f"exec {shlex.quote(sys.executable)} -m ibcc.tune --worker "
               f"--request {shlex.quote(json.dumps(worker_req))}\n")
    job_id = slurm.submit(slurm.ArrayJob(str(script), req.workers, "ibcc-tune", str(sdir), partition=req.partition,
                                         cpus_per_task=req.threads))
    job_file.record(job_id)
    log(f"ibcc tune: Slurm job {job_id}: {req.workers} worker(s); Slurm's logs in {sdir}")
    wait_for_slurm_job(req, study, job_id)


def worker(request):
    """One Slurm array task: trials until the study holds --trials finished ones."""
    import optuna
    req = Request.from_dict(request)
    params = parse_space(req.space, Ibcc(req.ibcc).schema())
    objectives = parse_objectives(req.objectives)
    optuna.logging.set_verbosity(optuna.logging.ERROR)  # (a failed trial is said below, in one line)
    index = int(os.environ.get("SLURM_ARRAY_TASK_ID", "0"))
    study, _ = open_study(req, params, objectives, spec_of(req, params, objectives), worker=index)

    from optuna.trial import TrialState
    objective = make_objective(req, params, objectives, Runner(req))
    # The workers take trials one at a time under a file lock: a trial queued again after an
    # interrupt (recover_interrupted) waits in the study, and with SQLite two workers asking
    # at once could both be handed it (SQLite has no row locks; optuna issue 4621): both then
    # ran it into one directory, and the second to finish could not report it.
    lock_path = Path(req.out) / "trials" / ".ask.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    while len(finished_trials(study)) < req.trials:
        with open(lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            trial = study.ask()
        try:
            value = objective(trial)
        except RuntimeError:  # the trial failed (its error is kept); the study goes on
            study.tell(trial, state=TrialState.FAIL)
            continue
        except BaseException:
            study.tell(trial, state=TrialState.FAIL)
            raise
        study.tell(trial, value)


# ------------------------------------------------------------------------------------------
# Choosing, reporting
# ------------------------------------------------------------------------------------------


def gains(values, ref, objectives):
    """Relative improvement of each objective over a reference (positive = better)."""
    out = []
    for v, r, o in zip(values, ref, objectives):
        scale = abs(r) if r else 1.0
        out.append(((v - r) if o.maximise else (r - v)) / scale)
    return out


def dominates_or_equals(values, ref, objectives):
    return all(o.better_or_equal(v, r) for v, r, o in zip(values, ref, objectives))


def choose(study, objectives, seed_ref):
    """The configuration to deploy. One objective: the best trial. Several: among the Pareto
    front's trials, those at least as good as the seed hardware parameters on every objective
    (all of the front if none is), the one whose smallest relative gain over them is largest
    (no objective is given up for another)."""
    if len(objectives) == 1:
        return study.best_trial, [study.best_trial]
    front = sorted(study.best_trials, key=lambda t: t.number)
    if seed_ref is None:
        return front[0], front
    good = [t for t in front if dominates_or_equals(t.values, seed_ref, objectives)] or front
    best = max(good, key=lambda t: (min(gains(t.values, seed_ref, objectives)), -t.number))
    return best, front


def trial_values(t):
    return list(t.values) if t.values is not None else None


def tune_csv(path, study, params, objectives, labels):
    header = ["trial", "state"] + [p.column() for p in params] + [o.metric for o in objectives]
    header += [f"{o.metric}@{lab}" for lab in labels for o in objectives] + ["duration_s", "dir", "error"]
    rows = []
    for t in study.get_trials(deepcopy=False):
        per = t.user_attrs.get("per_scenario", {})
        vals = trial_values(t) or [""] * len(objectives)
        dur = (t.datetime_complete - t.datetime_start).total_seconds() if t.datetime_complete and t.datetime_start else ""
        state = "STALLED" if t.user_attrs.get("stalled") else t.state.name
        row = [t.number, state] + [t.params.get(p.key, "") for p in params] + vals
        row += [per.get(lab, {}).get(o.metric, "") for lab in labels for o in objectives]
        row += [dur, t.user_attrs.get("dir", ""), t.user_attrs.get("error", "interrupted" if t.user_attrs.get("interrupted") else "")]
        rows.append(row)
    write_csv(path, header, rows)


def importances(study, params, objectives):
    """{objective: {param: importance}} (Optuna's PED-ANOVA); empty where there are too few trials."""
    import optuna
    from optuna.trial import TrialState
    out = {}
    complete = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
    if len(params) < 2 or len(complete) < 4:
        return out
    for i, o in enumerate(objectives):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # PED-ANOVA's note that it explains low values: the target says so
                imp = optuna.importance.get_param_importances(
                    study, evaluator=optuna.importance.PedAnovaImportanceEvaluator(),
                    # PED-ANOVA explains low values: a maximised objective is negated.
                    target=(lambda t, i=i, sign=(-1.0 if o.maximise else 1.0): sign * t.values[i]),
                    normalize=True)
        except Exception as e:  # noqa: BLE001 - importance is a nicety; say why it is missing
            out[o.metric] = {"error": str(e)}
            continue
        out[o.metric] = dict(imp)
    return out


def plots(out, study, params, objectives, chosen, front, refs, imps):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from optuna.trial import TrialState
    complete = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
    written = []
    # Optimisation history: each objective per trial and the best so far.
    fig, axes = plt.subplots(len(objectives), 1, figsize=(7, 2.6 * len(objectives)), squeeze=False)
    for i, o in enumerate(objectives):
        ax = axes[i][0]
        xs = [t.number for t in complete]
        ys = [t.values[i] for t in complete]
        ax.plot(xs, ys, "o", ms=3, color="tab:blue", label="trial")
        best, run = [], None
        for y in ys:
            run = y if run is None else (max(run, y) if o.maximise else min(run, y))
            best.append(run)
        ax.plot(xs, best, "-", color="tab:red", label="best so far")
        for name, ref in refs.items():
            if ref is not None:
                ax.axhline(ref[i], ls="--", lw=1, color="gray" if name == "defaults" else "black", label=name)
        ax.set_ylabel(f"{o.metric} ({'max' if o.maximise else 'min'})")
        ax.grid(alpha=0.3)
        if i == 0:
            ax.legend(fontsize=7)
    axes[-1][0].set_xlabel("trial")
    fig.tight_layout()
    fig.savefig(out / "history.png", dpi=110)
    plt.close(fig)
    written.append("history.png")
    # Pareto front (two objectives: the plane; more: the first two).
    if len(objectives) >= 2:
        fig, ax = plt.subplots(figsize=(6, 4.5))
        ax.plot([t.values[0] for t in complete], [t.values[1] for t in complete], "o", ms=4, color="lightsteelblue",
                label="trial")
        fs = sorted(front, key=lambda t: t.values[0])
        ax.plot([t.values[0] for t in fs], [t.values[1] for t in fs], "o-", ms=5, color="tab:blue",
                label=f"Pareto front ({len(fs)} trial{'s' if len(fs) > 1 else ''})", zorder=3)
        at = {}  # each front trial named, as report.txt and pareto.csv list them (trials at one point together)
        for t in fs:
            at.setdefault((t.values[0], t.values[1]), []).append(str(t.number))
        for (x, y), names in at.items():
            ax.annotate(", ".join(names), (x, y), textcoords="offset points", xytext=(5, 5), fontsize=7,
                        color="tab:blue")
        ax.plot([chosen.values[0]], [chosen.values[1]], "*", ms=16, color="tab:red", mfc="none", mew=1.5, zorder=4,
                label=f"chosen (trial {chosen.number})")
        # The references: hollow markers of two sizes, so that both show where they coincide.
        markers = {"defaults": ("s", "gray", 11), "seed hardware": ("D", "black", 6)}
        same = refs.get("defaults") is not None and refs.get("defaults") == refs.get("seed hardware")
        for name, ref in refs.items():
            if ref is not None:
                m, c, size = markers.get(name, ("x", "black", 8))
                ax.plot([ref[0]], [ref[1]], m, ms=size, color=c, mfc="none", mew=1.5, zorder=5,
                        label=name + (" (= the other reference)" if same else ""))
        ax.set_xlabel(f"{objectives[0].metric} ({'max' if objectives[0].maximise else 'min'})")
        ax.set_ylabel(f"{objectives[1].metric} ({'max' if objectives[1].maximise else 'min'})")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(out / "pareto.png", dpi=110)
        plt.close(fig)
        written.append("pareto.png")
    usable = {k: v for k, v in imps.items() if "error" not in v}
    if usable:
        fig, ax = plt.subplots(figsize=(7, 0.5 + 0.45 * len(params) * len(usable)))
        labels, vals = [], []
        for metric, imp in usable.items():
            for p in params:
                labels.append(f"{p.key} → {metric}")
                vals.append(imp.get(p.key, 0.0))
        ax.barh(range(len(vals)), vals, color="tab:blue")
        ax.set_yticks(range(len(vals)))
        ax.set_yticklabels(labels, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("importance (PED-ANOVA, normalised per objective)")
        fig.tight_layout()
        fig.savefig(out / "importances.png", dpi=110)
        plt.close(fig)
        written.append("importances.png")
    return written


# ------------------------------------------------------------------------------------------
# The chosen configuration as a scenario cc: section and as opensm.conf lines
# ------------------------------------------------------------------------------------------


def round_trip(runner, scenario, fragment_path, chosen_cc, non_opensm_sets):
    """The fragment read back by `ibcc describe --opensm-conf` gives the chosen settings."""
    cmd, rc, resolved, err = runner.describe(scenario, non_opensm_sets, extra=("--opensm-conf", str(fragment_path)))
    if rc != 0:
        return False, f"{shlex.join(cmd)}: exit {rc}: {err}"
    back = yaml.safe_load(resolved)["cc"]
    options = opensm.load_options(runner.req.ibcc)
    a, b = opensm.settings(back, options), opensm.settings(chosen_cc, options)
    if a != b:
        diff = [k for k in a if a[k] != b[k]]
        return False, f"the fragment reads back different settings: {', '.join(diff)}"
    return True, shlex.join(cmd)


def nvidia_round_trip(runner, scenario, conf_path, policy_path, chosen_sets):
    """opensm.conf with the policy file, read back by `ibcc describe --opensm-conf` (the chosen
    parameters the policy cannot carry given as --set, the ones it carries not), writes the
    same policy file again: the file holds every setting it carries."""
    fields = opensm.load_nvidia_fields(runner.req.ibcc)
    rest = {k: v for k, v in chosen_sets.items() if not opensm.nvidia_carried(k, fields)}
    back = policy_path.with_name("cc_policy.read_back.conf")
    cmd, rc, _, err = runner.describe(scenario, rest, extra=("--opensm-conf", str(conf_path),
                                                             "--nvidia-policy-out", str(back)))
    if rc != 0:
        return False, f"{shlex.join(cmd)}: exit {rc}: {err}"
    a, b = opensm.policy_lines(policy_path.read_text()), opensm.policy_lines(back.read_text())
    back.unlink()
    if a != b:
        diff = [f"{x!r} != {y!r}" for x, y in zip(a, b) if x != y] or [f"{len(a)} lines != {len(b)} lines"]
        return False, "the policy file reads back different settings: " + "; ".join(diff[:3])
    return True, shlex.join(cmd)


# ------------------------------------------------------------------------------------------
# The tune
# ------------------------------------------------------------------------------------------


def tune(request):
    import optuna
    req = request if isinstance(request, Request) else Request.from_dict(request)
    if req.trials < 1:
        raise TuneError("--trials: expected at least 1")
    if req.jobs < 1:
        raise TuneError("--jobs: expected at least 1")
    if req.backend not in ("local", "slurm"):
        raise TuneError(f"--backend: expected local or slurm, got {req.backend}")
    if req.workers < 1:
        raise TuneError("--workers: expected at least 1")
    if not req.scenarios:
        raise TuneError("at least one scenario is needed")
    schema = Ibcc(req.ibcc).schema()
    params = parse_space(req.space, schema)
    objectives = parse_objectives(req.objectives)
    runner = Runner(req)
    log = (lambda *a: None) if req.quiet else (lambda *a: print(*a, file=sys.stderr, flush=True))
    validate(req, params, runner)
    out = Path(req.out)
    out.mkdir(parents=True, exist_ok=True)
    # One `ibcc tune` at a time in --out (its Slurm workers share the study through the
    # storage, not through a second tune): a second would take the first's running trials
    # for interrupted ones. The lock goes with the process, kill -9 included.
    lock_out(out, "ibcc tune", ".ibcc-tune.lock")
    spec = spec_of(req, params, objectives)
    optuna.logging.set_verbosity(optuna.logging.ERROR)  # (a failed trial is said below, in one line)
    study, storage = open_study(req, params, objectives, spec)
    recovered = recover_interrupted(study)
    done = len(finished_trials(study))
    todo = max(0, req.trials - done)
    log(f"ibcc tune: {len(params)} parameters, {len(objectives)} objective(s), {len(req.scenarios)} scenario(s); "
        f"study {storage}: {done} trials finished" + (f", {recovered} interrupted ones to run again" if recovered else "")
        + f", {todo} to run")

    # The references first (the same runs a trial makes): the scenarios as they are, and
    # with the seed hardware parameters where every one of them is a key the scenarios take.
    # The seed hardware reference is the one of the first scenario's reaction point (as
    # resolved with --set; a tuned cc.reaction varies, the reference does not).
    _, rc, resolved, err = runner.describe(req.scenarios[0], {})
    if rc != 0:
        raise TuneError(f"{req.scenarios[0]}: {err}")
    reaction = (yaml.safe_load(resolved).get("cc") or {}).get("reaction", "ibcc")
    seed_sets, seed_what = seed_hardware(reaction)
    refs = {}
    for name, sets in (("defaults", {}), ("seed hardware", seed_sets)):
        ref_dir = out / "reference" / name.replace(" ", "_")
        cached = ref_dir / "values.json"
        key = {"spec": spec, "sets": sets}
        if cached.exists() and json.loads(cached.read_text()).get("key") == key:
            refs[name] = json.loads(cached.read_text())["worst"]
            continue
        try:
            per, worst = runner.evaluate(sets, ref_dir, objectives)
        except TrialRunError as e:
            log(f"ibcc tune: reference '{name}' did not run: {e}")
            refs[name] = None
            continue
        refs[name] = worst
        write_text(cached, json.dumps({"key": key, "per_scenario": per, "worst": worst}, indent=1))

    if todo and req.backend == "slurm":
        run_workers_on_slurm(req, study, log)
        done = len(finished_trials(study))
        if done < req.trials:
            tune_csv(out / "tune.csv", study, params, objectives, runner.labels)
            raise TrialRunError(f"the Slurm job ended with {done} of {req.trials} trials finished (cancelled?); "
                                f"run the same command to resume")
    elif todo:
        # A trial whose run fails its checks fails (RuntimeError, caught); bad input (TuneError)
        # ends the tune.
        progress = TrialProgress(req, objectives, done)
        study.optimize(make_objective(req, params, objectives, runner), n_trials=todo, n_jobs=req.jobs,
                       catch=(RuntimeError,), callbacks=[progress])
        progress.finish()
    from optuna.trial import TrialState
    complete = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
    tune_csv(out / "tune.csv", study, params, objectives, runner.labels)
    if not complete:
        raise TrialRunError("no trial completed (tune.csv has each trial's error)")

    chosen, front = choose(study, objectives, refs.get("seed hardware"))
    if len(objectives) > 1:
        rows = [[t.number] + [t.params[p.key] for p in params] + list(t.values) for t in front]
        write_csv(out / "pareto.csv", ["trial"] + [p.column() for p in params] + [o.metric for o in objectives], rows)
    imps = importances(study, params, objectives)
    write_csv(out / "importances.csv", ["objective", "parameter", "importance"],
              [[m, p, v] for m, imp in imps.items() if "error" not in imp for p, v in imp.items()])
    written = plots(out, study, params, objectives, chosen, front, refs, imps)

    # The chosen configuration: the resolved cc: section of its run (first scenario), as a
    # scenario fragment and as opensm.conf lines, checked to read back the same.
    chosen_dir = Path(chosen.user_attrs["dir"]) / runner.labels[0]
    if req.seeds:  # (each seed's run resolved the same cc: section; the first seed's is read)
        chosen_dir = chosen_dir / replicas.seed_dir_name(runner.first_seed(req.scenarios[0]))
    resolved = yaml.safe_load((chosen_dir / "resolved.yaml").read_text())
    cc = resolved["cc"]
    cc.pop("rtl", None)
    header = (f"# ibcc tune: the chosen configuration (trial {chosen.number}) as a scenario cc: section\n"
              f"# from {chosen_dir / 'resolved.yaml'}; parameters: "
              + ", ".join(f"{k}={v}" for k, v in chosen.user_attrs["sets"].items()) + "\n")
    write_text(out / "chosen.yaml", header + yaml.safe_dump({"cc": cc}, sort_keys=False))
    opensm_path = out / "opensm.conf"
    if (out / "cc_policy.conf").exists():
        (out / "cc_policy.conf").unlink()  # from an earlier tune of an NVIDIA-style space in this --out
    regime = (cc.get("marking", "fecn"), cc.get("reaction", "ibcc"))
    if regime == ("fecn", "ibcc"):
        write_text(opensm_path, opensm.fragment(cc, opensm.load_options(req.ibcc), f"trial {chosen.number}"))
        non_opensm = {k: v for k, v in chosen.user_attrs["sets"].items()
                      if k.split(".")[-1] in ("mapping", "marking_mode", "hysteresis", "ird_formula", "num_qps", "becn")}
        ok, how = round_trip(runner, req.scenarios[0], opensm_path, cc, non_opensm)
        if not ok:
            raise TrialRunError(f"opensm.conf round trip: {how}")
    elif regime == ("nvidia", "dcqcn"):
        policy_path = out / "cc_policy.conf"
        sets = chosen.user_attrs["sets"]
        cmd, rc, _, err = runner.describe(req.scenarios[0], sets, extra=("--nvidia-policy-out", str(policy_path)))
        if rc != 0:
            raise TrialRunError(f"{shlex.join(cmd)}: exit {rc}: {err}")
        write_text(opensm_path, opensm.nvidia_conf(policy_path.name, f"trial {chosen.number}"))
        ok, how = nvidia_round_trip(runner, req.scenarios[0], opensm_path, policy_path, sets)
        if not ok:
            raise TrialRunError(f"NVIDIA policy round trip: {how}")
    else:
        # OpenSM configures IB CC only: ECN marking and DCQCN are set on the switches and NICs.
        if opensm_path.exists():
            opensm_path.unlink()  # from an earlier tune of an IB CC space in this --out
        how = (f"not written: OpenSM configures IB CC (fecn, ibcc) and NVIDIA's (nvidia, dcqcn), not "
               f"cc.marking={regime[0]} with cc.reaction={regime[1]}; "
               "chosen.yaml has the chosen configuration")

    failed = [t for t in study.get_trials(deepcopy=False)
              if t.state == TrialState.FAIL and not t.user_attrs.get("interrupted")]
    report = guidance(req, params, objectives, chosen, refs, imps, front, failed, seed_what, how, runner.labels,
                      resolved)
    write_text(out / "report.txt", report)
    summary = {
        "version": spec["version"], "optuna": optuna.__version__, "command": req.command,
        "storage": storage, "seed": req.seed, "spec": spec,
        "trials": {s.name: sum(1 for t in study.get_trials(deepcopy=False) if t.state == s) for s in TrialState},
        "chosen": {"trial": chosen.number, "sets": chosen.user_attrs["sets"], "values": list(chosen.values),
                   "per_scenario": chosen.user_attrs.get("per_scenario")},
        "references": refs, "importances": imps, "pareto": [t.number for t in front] if len(objectives) > 1 else None,
        "opensm_round_trip": how, "plots": written, "seed_hardware": {"what": seed_what, "sets": seed_sets},
    }
    write_text(out / "tune.json", json.dumps(summary, indent=1, default=str) + "\n")
    if not req.quiet:
        print(report, end="")
    return summary


# Which way a metric is better: +1 higher, -1 lower, 0 neither (counts of marks and notices).
REGRESSION = 0.05  # worse by more than this share of the reference: flagged


def metric_comparison(chosen_metrics, ref_metrics):
    """Lines comparing every metric of the chosen configuration's run with the references'
    (the first scenario's runs), a worse value by more than REGRESSION flagged; and the
    regressions found, as (reference, metric, chosen, reference value)."""
    names = sorted(set(chosen_metrics) | {k for m in ref_metrics.values() if m for k in m})
    names = [n for n in names if not n.startswith("throughput.")] + [n for n in names if n.startswith("throughput.")]
    refs = [r for r in ref_metrics if ref_metrics[r] is not None]
    w = max([len(n) for n in names] + [6])
    head = f"  {'metric':<{w}}  {'chosen':>11}" + "".join(f"  {r:>14}" for r in refs) + "  (better)"
    lines, regressions = [head], []

    def cell(v):
        return "n/a" if v is None else f"{v:.4g}"

    for n in names:
        v = chosen_metrics.get(n)
        d = metric_direction(n)
        row = f"  {n:<{w}}  {cell(v):>11}"
        flags = []
        for r in refs:
            rv = ref_metrics[r].get(n)
            text = cell(rv)
            if v is not None and rv is not None and d != 0:
                worse = (rv - v) * d
                if worse > REGRESSION * max(abs(rv), 1e-12):
                    text = "!" + text
                    flags.append(r)
                    regressions.append((r, n, v, rv))
            row += f"  {text:>14}"
        lines.append(row + ("  higher" if d > 0 else "  lower" if d < 0 else "") +
                     (f"  WORSE than {' and '.join(flags)}" if flags else ""))
    return lines, regressions


def warnings_for(params, chosen, resolved):
    """What a deployer must know about the chosen configuration: a parameter at an end of its
    range (the best may lie beyond it), and a Packet_Size that exempts packets from marking."""
    out = []
    for p in params:
        if p.kind == "categorical" or p.key not in chosen.params:
            continue
        v, lo, hi = float(chosen.params[p.key]), float(p.low), float(p.high)
        scale = (lambda x: math.log(x)) if p.log and lo > 0 else (lambda x: x)
        span = scale(hi) - scale(lo)
        if span <= 0:
            continue
        where = (scale(v) - scale(lo)) / span
        if where <= 0.02 or where >= 0.98:
            end = "bottom" if where <= 0.02 else "top"
            out.append(f"{p.key} = {p.value_text(chosen.params[p.key])} is at the {end} of its range "
                       f"({p.spec().split('=', 1)[1]}): the best may lie beyond it; widen the space and tune again.")
    fabric = resolved.get("fabric") or {}
    psize = ((resolved.get("cc") or {}).get("switch") or {}).get("packet_size")
    mtu = fabric.get("mtu")
    header = ((fabric.get("packet_bytes") or {}).get("data_header")) or 26
    if psize and mtu and (resolved.get("cc") or {}).get("marking", "fecn") == "fecn":  # (IB CC's FECN marking only)
        limit = int(psize) * 64
        wire = int(mtu) + int(header)
        if limit > wire:
            out.append(f"cc.switch.packet_size = {psize} exempts every packet under {limit} bytes from marking: every "
                       f"data packet of this fabric ({wire} bytes at the MTU) goes unmarked, so CC never acts.")
        else:
            out.append(f"cc.switch.packet_size = {psize} exempts every packet under {limit} bytes from marking: "
                       f"MTU data packets ({wire} bytes) are marked; smaller ones (short messages, a message's "
                       f"last packet) are not.")
    return out


def guidance(req, params, objectives, chosen, refs, imps, front, failed, seed_what, opensm_how, labels,
             resolved):
    lines = ["ibcc tune: report", ""]
    lines.append(f"Scenarios ({'worst case across them' if len(req.scenarios) > 1 else 'one'}): "
                 + ", ".join(req.scenarios))
    lines.append("Objectives: " + ", ".join(f"{o.metric} ({'higher' if o.maximise else 'lower'} is better)"
                                              for o in objectives))
    if req.seeds:
        lines.append(f"Every run (trials and references) over {req.seeds} seeds: each objective and metric below is "
                     "the mean over the seeds (each run's metrics.json has their 95 % confidence intervals)")
    lines.append("")
    lines.append(f"Chosen configuration (trial {chosen.number}"
                 + (f", one of {len(front)} on the Pareto front" if len(objectives) > 1 else "") + "):")
    for k, v in chosen.user_attrs["sets"].items():
        lines.append(f"  {k} = {v}")
    if len(objectives) > 1:
        lines.append("")
        lines.append(f"The Pareto front ({len(front)} trial{'s' if len(front) > 1 else ''}; pareto.csv has their "
                     "parameters):")
        for t in sorted(front, key=lambda t: t.values[0]):
            lines.append(f"  trial {t.number:>4}: " + ", ".join(f"{o.metric} {v:.6g}" for o, v in zip(objectives, t.values))
                         + ("  <- chosen" if t.number == chosen.number else ""))
    lines.append("")
    w = max(len(o.metric) for o in objectives)
    lines.append(f"  {'objective':<{w}}  {'chosen':>12}  {'defaults':>12}  {'seed hardware':>14}")
    for i, o in enumerate(objectives):
        cells = []
        for name in ("defaults", "seed hardware"):
            r = refs.get(name)
            cells.append("did not run" if r is None else f"{r[i]:.6g}")
        lines.append(f"  {o.metric:<{w}}  {chosen.values[i]:>12.6g}  {cells[0]:>12}  {cells[1]:>14}")
    for name in ("defaults", "seed hardware"):
        r = refs.get(name)
        if r is None:
            continue
        if dominates_or_equals(chosen.values, r, objectives):
            g = gains(chosen.values, r, objectives)
            lines.append(f"  At least as good as the {name} on every objective ("
                         + ", ".join(f"{o.metric} {x * 100:+.1f} %" for o, x in zip(objectives, g)) + ").")
        else:
            worse = [o.metric for o, v, rr in zip(objectives, chosen.values, r) if not o.better_or_equal(v, rr)]
            lines.append(f"  Worse than the {name} on: {', '.join(worse)}.")
    for name in ("defaults", "seed hardware"):
        r = refs.get(name)
        if r is not None:
            n = sum(1 for o, v, rr in zip(objectives, chosen.values, r) if not o.better_or_equal(v, rr))
            lines.append(f"  Objectives worse than the {name}: {n} of {len(objectives)}")
    # Every metric, not only the objectives: what the choice costs elsewhere.
    chosen_metrics = read_json(Path(chosen.user_attrs["dir"]) / labels[0] / "metrics.json") or {}
    ref_metrics = {name: (read_json(Path(req.out) / "reference" / name.replace(" ", "_") / labels[0] / "metrics.json")
                          or {}).get("metrics") if refs.get(name) is not None else None
                   for name in ("defaults", "seed hardware")}
    if chosen_metrics.get("metrics"):
        table, regressions = metric_comparison(chosen_metrics["metrics"], ref_metrics)
        lines.append("")
        lines.append(f"Every metric of the chosen configuration against the references ({labels[0]}; '!' beside a "
                     f"reference: the chosen one is worse than it by more than {REGRESSION * 100:.0f} %):")
        lines.extend(table)
        worse = list(dict.fromkeys(m for _, m, _, _ in regressions))
        lines.append(f"  Metrics worse than a reference by more than {REGRESSION * 100:.0f} %: {len(worse)}"
                     + (" (" + ", ".join(worse[:10]) + (" ..." if len(worse) > 10 else "") + ")" if worse else ""))
    warns = warnings_for(params, chosen, resolved)
    if warns:
        lines.append("")
        lines.append("Before deploying it:")
        lines.extend(f"  - {w}" for w in warns)
    if failed:
        lines.append(f"{len(failed)} trial(s) failed their run's checks and count as unusable: "
                     + "; ".join(f"trial {t.number}: {t.user_attrs.get('error', '?')}" for t in failed[:5]))
    lines.append("")
    usable = {k: v for k, v in imps.items() if "error" not in v}
    if usable:
        lines.append("What mattered most (PED-ANOVA importance, share of each objective's variation):")
        for metric, imp in usable.items():
            top = sorted(imp.items(), key=lambda kv: -kv[1])
            lines.append(f"  {metric}: " + ", ".join(f"{k} {v:.2f}" for k, v in top))
    else:
        lines.append("Parameter importances: not computed (they need two or more parameters and four completed trials).")
    lines.append("")
    lines.append(f"Seed hardware parameters: {seed_what}.")
    if opensm_how.startswith("not written"):
        opensm = "no opensm.conf (" + opensm_how.split(": ", 1)[1] + ")"
    elif (Path(req.out) / "cc_policy.conf").exists():
        opensm = ("opensm.conf (mlnx_congestion_control) with cc_policy.conf (NVIDIA's congestion-control policy "
                  "file, read back and checked)")
    else:
        opensm = "opensm.conf (its cc_* lines, read back and checked)"
    lines.append(f"Files in {req.out}: tune.csv (every trial), chosen.yaml (scenario cc: section), {opensm}, "
                 "report.txt, tune.json, history.png"
                 + (", pareto.png, pareto.csv" if len(objectives) > 1 else "") + (", importances.png" if usable else ""))
    return "\n".join(lines) + "\n"


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(prog="ibcc tune", description="internal: called by `ibcc tune` with its parsed options")
    ap.add_argument("--request", required=True, help="the options as JSON")
    ap.add_argument("--worker", action="store_true", help="run trials of the study as one Slurm worker")
    args = ap.parse_args(argv)
    # SIGTERM (kill, `ibcc tune` passing one on, a Slurm job cancelled): the running trial's
    # ibcc is stopped too, and the same command resumes the trial.
    try:
        processes.install(processes.exit_now)
        (worker if args.worker else tune)(json.loads(args.request))
    except CampaignError as e:
        print(f"ibcc tune: error: {e}", file=sys.stderr)
        return BAD_INPUT
    except (RunError, OSError) as e:
        print(f"ibcc tune: error: {e}", file=sys.stderr)
        return FAILED
    except KeyboardInterrupt:
        print("ibcc tune: interrupted; run the same command again to resume", file=sys.stderr)
        return INTERRUPTED
    except Exception as e:  # noqa: BLE001 - the study's storage failed (a full disk, a read-only file system)
        if not type(e).__module__.startswith(("sqlalchemy", "optuna")):
            raise
        reason = str(getattr(e, "orig", None) or e).splitlines()[0]
        req = json.loads(args.request)
        where = req.get("storage") or f"sqlite:///{Path(req['out']).resolve() / 'study.db'}"
        print(f"ibcc tune: error: the study's storage {where} failed: {reason}", file=sys.stderr)
        return FAILED
    return 0


if __name__ == "__main__":
    sys.exit(main())
