#!/usr/bin/env bash
# Builds the parser fuzzers (fuzz/, clang + libFuzzer + ASan/UBSan) and runs each for
# SECONDS with the checked-in inputs (shipped scenarios, tests/*/bad) as the seed corpus.
# Exit 0 only if no fuzzer found anything; a finding leaves its input in BUILD/fuzz/crash-*.
#   verif/cli/fuzz.sh SOURCE_DIR BUILD_DIR SECONDS
set -euo pipefail
src=$(realpath "$1") build=$(realpath -m "$2")/fuzz seconds=$3
cmake -S "$src/fuzz" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
seeds() {
  case $1 in
    scenario) echo "$src/tests/scenarios/bad $src/tests/scenarios/faults $src/tests/fuzz/yaml $src/topologies/seed-testbed $src/topologies/dynamics" ;;
    set) echo "$src/tests/fuzz/set" ;;
    opensm) echo "$src/tests/opensm/bad $src/topologies/opensm" ;;
    nvidia) echo "$src/topologies/opensm/nvidia" ;;
    ibnetdiscover) echo "$src/tests/ibnetdiscover/bad $src/topologies/ibnetdiscover" ;;
    lfts) echo "$src/tests/ibnetdiscover/bad $src/topologies/ibnetdiscover" ;;
  esac
}
status=0
for t in scenario set opensm nvidia ibnetdiscover lfts; do
  corpus=$build/corpus-$t
  mkdir -p "$corpus"
  # shellcheck disable=SC2046
  # -seed=1: the same build explores the same inputs, so a result in CI can be reproduced here.
  if (cd "$build" && ./fuzz_$t -seed=1 -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        "$corpus" $(seeds $t) >"$build/$t.log" 2>&1); then
    echo "PASS fuzz_$t: $(grep -E '^stat::number_of_executed_units' "$build/$t.log" | awk '{print $2}') inputs in ${seconds} s, no finding"
  else
    echo "FAIL fuzz_$t: see $build/$t.log"; grep -E "ERROR|SUMMARY|terminate|Test unit written" "$build/$t.log" | head -5
    status=1
  fi
done
exit $status
