#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every CTest (unit, co-simulation
# smoke and regression, mutation, waves, lint, register map, RTL coverage, synthesis).
set -euo pipefail
cd "$(dirname "$0")"
scripts/bootstrap.sh
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"
