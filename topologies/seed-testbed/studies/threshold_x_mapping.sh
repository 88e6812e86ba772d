#!/usr/bin/env bash
# The comparison our users care most about: the switch's Threshold against the threshold
# mapping (how a switch compares its VoQ fills with the threshold), on the test bed with all
# five flows active. 8 x 3 points, about 20 s on 2 cores.
#   topologies/seed-testbed/studies/threshold_x_mapping.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=${1:-out/study_threshold_x_mapping}
build/bin/ibcc sweep topologies/seed-testbed/study.yaml --out "$out" --window 100ms..200ms \
  --grid cc.switch.mapping=per_voq,sum,sum_div_ports --grid cc.switch.threshold=1:15:2 \
  --metric victim --metric contributors --metric jain --metric tvv --metric peak_buffer_credits
build/bin/ibcc plot "$out"
