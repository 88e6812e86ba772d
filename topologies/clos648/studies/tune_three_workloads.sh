#!/usr/bin/env bash
# "For a given topology, can we find one configuration that works for all applications?"
# (the seed slides): tune the 648-port Clos for three workloads at once - the hotspot mix of
# hotspot.yaml, uniform traffic and a ring - taking the worst case of each objective across
# them: total throughput (the hotspot mix's, in practice, the lowest of the three) and the
# median packet latency (the hotspot mix's, the highest; not the p99, which a 1 ms run caps
# at the run's length). Parameters: Threshold, Marking_Rate,
# CCTI_Timer and CCTI_Increase. 1 ms simulated per run (the last half measured), so a trial
# is three runs, about 20 s of CPU; 16 trials two at a time, about 4 minutes on 2 cores. It is
# a short horizon: confirm the chosen configuration with a longer ibcc run before deploying it.
#   topologies/clos648/studies/tune_three_workloads.sh [OUT_DIR] [TRIALS]
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-out/tune_clos648}
trials=${2:-16}
build/bin/ibcc tune topologies/clos648/hotspot.yaml topologies/clos648/uniform.yaml topologies/clos648/ring.yaml \
  --out "$out" --sim-time 1ms --window 500us..1ms \
  --space cc.switch.threshold=8:15 --space cc.switch.marking_rate=0:15 \
  --space cc.ca.ccti_timer=10:300:log --space cc.ca.ccti_increase=1:4 \
  --objective total --objective latency_p50_us --trials "$trials" --jobs 2 --seed 1
