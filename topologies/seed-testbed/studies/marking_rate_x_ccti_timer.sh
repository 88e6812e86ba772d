#!/usr/bin/env bash
# The seed slides' study: the victim's throughput and the contributors' total (and their
# fairness) as functions of the switches' Marking_Rate and the HCAs' CCTI_Timer, on the test
# bed with all five flows active. 5 x 5 points, about 20 s on 2 cores.
#   topologies/seed-testbed/studies/marking_rate_x_ccti_timer.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-out/study_marking_rate_x_ccti_timer}
build/bin/ibcc sweep topologies/seed-testbed/study.yaml --out "$out" --window 100ms..200ms \
  --grid cc.switch.marking_rate=0,1,3,7,15 --grid cc.ca.ccti_timer=10,40,150,600,2400 \
  --metric victim --metric contributors --metric jain --metric tvv --metric fecn
build/bin/ibcc plot "$out"
