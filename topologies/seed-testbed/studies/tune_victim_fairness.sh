#!/usr/bin/env bash
# The seed slides' open question ("how to properly configure a given cluster") answered by
# search instead of a heat map: tune the switches' Threshold, Marking_Rate and Packet_Size and
# the HCAs' CCTI_Timer and CCTI_Increase on the test bed for the victim's throughput and the
# contributors' fairness together (two objectives, a Pareto front), 40 trials, and compare the
# chosen configuration with the seed hardware parameters. One trial at a time, so that the same
# seed gives the same study (about 30 s); run it
# again with a larger --trials to continue the same study.
#   topologies/seed-testbed/studies/tune_victim_fairness.sh [OUT_DIR] [TRIALS]
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-out/tune_victim_fairness}
trials=${2:-40}
build/bin/ibcc tune topologies/seed-testbed/study.yaml --out "$out" --window 100ms..200ms \
  --space cc.switch.threshold=8:15 --space cc.switch.marking_rate=0:63 --space cc.switch.packet_size=0:32 \
  --space cc.ca.ccti_timer=10:2400:log --space cc.ca.ccti_increase=1:4 \
  --objective victim --objective jain --trials "$trials" --jobs 1 --seed 1
