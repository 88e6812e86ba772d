"""The `ibcc` executable as a campaign uses it: its version and key schema, a batch check
of a campaign's points before anything runs, the arguments of one run, and what a finished
run left in its directory."""

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from . import processes
from .errors import CampaignError, RunError


@dataclass
class Settings:
    """What every run of a campaign shares: the --set overrides and the command's options
    that `ibcc run` takes as they are."""
    sets: list = field(default_factory=list)   # KEY=VALUE
    sim_time: str = ""
    window: str = ""
    cc: str = ""                               # "", "on" or "off"
    threads: int = 1                           # ibcc run --threads (the results do not depend on it)

    def scenario_args(self):
        """The options that change the scenario (as `ibcc describe` takes them too)."""
        args = []
        for kv in self.sets:
            args += ["--set", kv]
        if self.sim_time:
            args += ["--sim-time", self.sim_time]
        if self.cc:
            args += ["--cc", self.cc]
        return args


class Ibcc:
    def __init__(self, exe):
        self.exe = exe
        self._version = None

    def version(self):
        """`ibcc --version`, as a run writes it into summary.json."""
        if self._version is None:
            p = subprocess.run([self.exe, "--version"], capture_output=True, text=True)
            if p.returncode != 0:
                raise RunError(f"{self.exe} --version: exit {p.returncode}: {p.stderr.strip()}")
            self._version = p.stdout.strip()
        return self._version

    def schema(self):
        p = subprocess.run([self.exe, "keys", "--json-schema"], capture_output=True, text=True)
        if p.returncode != 0:
            raise CampaignError(f"{self.exe} keys --json-schema: {p.stderr.strip()}")
        return json.loads(p.stdout)

    def describe(self, scenario, settings, sets=(), extra=()):
        """(command, exit code, resolved scenario, error) of `ibcc describe` with the
        campaign's settings and the point's `sets` ((key, value) pairs)."""
        cmd = [self.exe, "describe", scenario, *extra] + settings.scenario_args()
        for k, v in sets:
            cmd += ["--set", f"{k}={v}"]
        p = processes.run_child(cmd)
        return cmd, p.returncode, p.stdout, p.stderr.strip()

    def check_points(self, scenario, settings, points, origin):
        """Every point (a list of (key, value)) read as its runs will read it, in one
        `ibcc describe --points`: per point, (flow names, metric names) of its runs. Bad input
        (the first invalid point, named by `origin` KEY=VALUE) is a CampaignError."""
        with tempfile.NamedTemporaryFile("w", suffix=".json", prefix="ibcc-points-", delete=False) as f:
            json.dump([[[k, v, f"{origin} {k}={v}"] for k, v in p] for p in points], f)
            path = f.name
        try:
            cmd = [self.exe, "describe", scenario, "--points", path] + settings.scenario_args()
            if settings.window:
                cmd += ["--window", settings.window]
            if settings.threads > 1:
                cmd += ["--threads", str(settings.threads)]
            p = processes.run_child(cmd)
        finally:
            os.unlink(path)
        if p.returncode == 2:
            lines = p.stderr.strip().splitlines()
            raise CampaignError(lines[-1].replace("ibcc describe: error: ", "") if lines else "exit 2")
        if p.returncode != 0:
            raise RunError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
        answer = json.loads(p.stdout)
        shapes = [(s["flows"], set(s["metrics"])) for s in answer["shapes"]]
        return [shapes[i] for i in answer["points"]]

    def run_args(self, scenario, out_dir, settings, sets=()):
        """The `ibcc run` command of one run into `out_dir`. --force: a run repeated (stale,
        failed) replaces its earlier results."""
        cmd = [self.exe, "run", scenario, "--out", str(out_dir), "--quiet", "--force"]
        for kv in settings.sets:
            cmd += ["--set", kv]
        for k, v in sets:
            cmd += ["--set", f"{k}={v}"]
        if settings.window:
            cmd += ["--window", settings.window]
        if settings.sim_time:
            cmd += ["--sim-time", settings.sim_time]
        if settings.cc:
            cmd += ["--cc", settings.cc]
        if settings.threads > 1:
            cmd += ["--threads", str(settings.threads)]
        return cmd


def read_json(path):
    """The JSON object in `path`, None if it is missing or unreadable."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def scenario_sha(run_dir):
    """The sha256 of the scenario file a run read (its summary.json), "" if unknown."""
    summary = read_json(Path(run_dir) / "summary.json") or {}
    for entry in summary.get("inputs", []):
        if entry.get("role") == "scenario":
            return entry.get("sha256", "")
    return ""


def is_stalled(status, run_dir):
    """Whether a run that exited with `status` stalled (exit 1 and `result: stalled` in its
    metrics.json): a stall is a result (the metrics up to it), not a failure."""
    return status == 1 and (read_json(Path(run_dir) / "metrics.json") or {}).get("result") == "stalled"


def finished_run(run_dir, required, version, sha):
    """(done, why) of a run's directory: done when its run finished (result ok, or stalled:
    the same configuration would stall again) with every `required` metric, made by this
    `version` of ibcc from the scenario whose sha256 is `sha`. `why` says what is wrong
    ("" when it never ran)."""
    d = Path(run_dir)
    if not (d / "metrics.json").exists() and not (d / "summary.json").exists():
        return False, ""
    metrics, summary = read_json(d / "metrics.json"), read_json(d / "summary.json")
    if metrics is None or summary is None:
        return False, "its metrics.json or summary.json is missing or unreadable"
    result = summary.get("result", "")
    if metrics.get("result", "") != result or result not in ("ok", "stalled"):
        return False, f"its run did not finish (result {summary.get('result', '?')})"
    for name in required:
        if name not in metrics.get("metrics", {}):
            return False, f"its metrics.json lacks {name}"
    if summary.get("version", "") != version:
        return False, f"it was made by {summary.get('version', 'an older ibcc')}, this is {version}"
    if scenario_sha(d) != sha:
        return False, "the scenario file changed since it ran"
    return True, ""
