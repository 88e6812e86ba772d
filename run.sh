#!/usr/bin/env bash
# The main job on its built-in default: installs what is missing, builds, then runs the
# seed test bed's scenario 1 (topologies/seed-testbed/scenario1.yaml: a victim flow and four
# contributors to one slow receiver, 5 s simulated) with congestion control off and on, and
# prints the per-phase throughput side by side: HOL blocking and the parking-lot problem
# with CC off, their removal with CC on. Results (flows.csv, summary.json, ports.csv,
# ccti.csv) are left in out/scenario1/cc_off and out/scenario1/cc_on.
set -euo pipefail
cd "$(dirname "$0")"
scripts/bootstrap.sh ibcc  # only what the main job needs
out=out/scenario1
pids=()
for cc in off on; do
  build/bin/ibcc run topologies/seed-testbed/scenario1.yaml --out "$out/cc_$cc" --cc "$cc" --quiet --force &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
if ((failed)); then
  echo "run.sh: a run failed (its error is above)" >&2
  exit 1
fi
python3 scripts/phase_table.py "$out/cc_off" "$out/cc_on"
