#!/usr/bin/env bash
# The main job on its built-in default: installs what is missing, builds, then co-simulates
# both CC blocks' RTL against the C++ reference (every directed test, then constrained
# random) and prints each summary.
set -euo pipefail
cd "$(dirname "$0")"
scripts/bootstrap.sh
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
status=0
for block in fecn ccti; do
  build/bin/ibcc cosim --block "$block" --test all --cycles 1000000 --seed 1 --require-coverage || status=1
done
exit $status
