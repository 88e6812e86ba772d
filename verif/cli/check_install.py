#!/usr/bin/env python3
"""An installed ibcc works without its source tree: `cmake --install` to a prefix, the prefix
moved elsewhere, the Python package installed with pip (from python/pyproject.toml, not
editable), and then, with the source tree gone, `ibcc list`, `ibcc run` with its plots,
`ibcc sweep`, `ibcc run --seeds` and `import ibcc` on their results.

"Gone": the commands run in a private mount namespace whose view of the source tree is an
empty tmpfs (unshare, as root). Where that is not permitted, the source tree is copied (the
files git tracks), `ibcc` built and installed from the copy, and the copy deleted.

Usage: check_install.py SOURCE_DIR BUILD_DIR
(the work happens in a temporary directory outside the source tree, removed after a pass)
"""
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
from checks import Checks  # noqa: E402


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def can_hide(path):
    return sh(["unshare", "-m", "--propagation", "private", "sh", "-c",
               f"mount -t tmpfs tmpfs {shlex.quote(str(path))} && test -z \"$(ls -A {shlex.quote(str(path))})\""]
              ).returncode == 0


def main():
    src, build = (Path(a).resolve() for a in sys.argv[1:3])
    work = Path(tempfile.mkdtemp(prefix="ibcc-install-")).resolve()
    if work.is_relative_to(src):
        sys.exit(f"{work}: the temporary directory lies in the source tree; set TMPDIR elsewhere")
    c = Checks()
    hide = can_hide(src)
    if not hide:
        # No private mounts here: build from a copy of the tracked files, then delete it.
        copy = work / "src"
        files = sh(["git", "-C", str(src), "ls-files", "-z"]).stdout.split("\0")
        for f in filter(None, files):
            (copy / f).parent.mkdir(parents=True, exist_ok=True)
            if (src / f).is_file():
                shutil.copy2(src / f, copy / f)
        build = work / "build"
        r = sh(["cmake", "-S", str(copy), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"])
        c.check(r.returncode == 0, f"configure the copy: {r.stderr[-2000:]}")
        if r.returncode == 0:
            r = sh(["cmake", "--build", str(build), "--target", "ibcc", "ibcc_man"])
            c.check(r.returncode == 0, f"build the copy: {r.stdout[-2000:]}")
        if c.failures:
            return c.result()
        src = copy
    prefix = work / "prefix"
    r = sh(["cmake", "--install", str(build), "--prefix", str(prefix)])
    c.check(r.returncode == 0, f"cmake --install: {r.stderr[-2000:]}")
    if c.failures:
        return c.result()
    moved = work / "moved"
    prefix.rename(moved)  # relocated: nothing may point at where it was installed
    for f in ("bin/ibcc", "share/ibcc/python/ibcc/__init__.py", "share/ibcc/topologies/seed-testbed/scenario1.yaml",
              "share/ibcc/rtl/fecn_marker.sv", "share/man/man1/ibcc.1", "share/bash-completion/completions/ibcc"):
        c.check((moved / f).is_file(), f"installed {f}")
    # The package as pip installs it (a copy: python/ would otherwise get pip's build files).
    pysrc = work / "pysrc"
    shutil.copytree(src / "python", pysrc, ignore=shutil.ignore_patterns("tests", "__pycache__", "*.egg-info", "build"))
    site = work / "site"
    r = sh([sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-deps", "--target",
            str(site), str(pysrc)], env=dict(os.environ, PIP_ROOT_USER_ACTION="ignore"))
    c.check(r.returncode == 0, f"pip install python/: {r.stderr[-2000:]}")
    shutil.rmtree(pysrc)
    if not hide:
        shutil.rmtree(src)
        shutil.rmtree(build)

    ibcc = moved / "bin" / "ibcc"
    scenario = moved / "share" / "ibcc" / "topologies" / "seed-testbed" / "scenario1.yaml"
    out = work / "out"
    script = f"""
set -e
cd {shlex.quote(str(work))}
{ibcc} --version
{ibcc} list | grep -q 'topologies/seed-testbed/scenario1.yaml'
echo listed
{ibcc} run {scenario} --out {out}/run --sim-time 30ms --log-interval 1ms --plot --quiet
test -s {out}/run/throughput.png && echo plotted
{ibcc} sweep {scenario} --out {out}/sweep --grid cc.switch.threshold=4,8 --sim-time 10ms --jobs 2 --quiet
{ibcc} run {scenario} --out {out}/seeds --seeds 2 --sim-time 10ms --log-interval 1ms --quiet
env -u PYTHONPATH PYTHONPATH={site} {shlex.quote(sys.executable)} -c '
import ibcc
assert ibcc.__file__.startswith("{site}/"), ibcc.__file__
run = ibcc.load_run("{out}/run")
print("victim", round(run.metric("victim"), 2))
print("points", len(ibcc.load_sweep("{out}/sweep").points))
print("seeds", ibcc.load_replicas("{out}/seeds").seeds)
'
"""
    if hide:
        cmd = ["unshare", "-m", "--propagation", "private", "bash", "-c",
               f"mount -t tmpfs tmpfs {shlex.quote(str(src))} && test ! -e {shlex.quote(str(src))}/CMakeLists.txt && "
               + script]
        where = f"with {src} hidden (an empty tmpfs over it)"
    else:
        cmd = ["bash", "-c", f"test ! -e {shlex.quote(str(src))} && " + script]
        where = f"with the source copy {src} deleted"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "IBCC")}
    r = sh(cmd, env=env)
    c.check(r.returncode == 0, f"the installed ibcc {where}: exit {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    for text in ("ibcc ", "listed", "plotted", "victim 13.3", "points 2", "seeds [1, 2]"):
        c.check(text in r.stdout, f"{where}: the output says {text!r}")
    rc = c.result()
    if rc == 0:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"(kept for a look: {work})")
    return rc


if __name__ == "__main__":
    sys.exit(main())
