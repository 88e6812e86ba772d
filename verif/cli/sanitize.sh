#!/usr/bin/env bash
# Builds ibcc and the unit and network test binaries with ASan + UBSan (IBCC_SANITIZE) into
# BUILD/sanitize and runs the unit and network tests and a short co-simulation of each block
# there. Any sanitizer report fails (halt_on_error); leaks are reported too.
#   verif/cli/sanitize.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$(realpath "$1") build=$(realpath -m "$2")/sanitize
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0
export LSAN_OPTIONS=suppressions=$src/verif/cli/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
# The checks that walk every shipped scenario leave out the full 64-port tree here (7 GB, and
# two to three times that instrumented: verif/lib/checks.py, NOT_UNDER_SANITIZERS); the plain
# build's run of the same checks runs it.
export IBCC_SANITIZED=1
start=$(date +%s)
# -O1 -g1: enough for the sanitizers' reports (file and line in their stack traces), and
# lighter to compile than -O2 -g.
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DIBCC_SANITIZE=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" >/dev/null
cmake --build "$build" -j"$(nproc)" --target ibcc ibcc_net_tests ibcc_unit_tests ibcc_tlm_link_tap >/dev/null
echo "sanitize: built in $(( $(date +%s) - start )) s"
# The network label includes the scripted end-to-end checks (bad inputs, runs, faults, the
# corners of the parameter space). Left out: the checks that only compare results (studies,
# validation, reproducibility, the parallel engine's identity over every shipped scenario,
# the large fabrics' scale, adaptive routing's permutation loads, the Python package) and
# those that run no ibcc at all (generated files, the schema, the code rules): the plain
# build runs them.
ctest --test-dir "$build" -L "unit|network" -j"$(nproc)" --output-on-failure \
  -E "study_|validation_seed|network_reproducible|parallel_identity|large_fabric_scale|adaptive_routing_permutation|python_package|scenario_schema|scenario_key_limits|config_reference_generated|docs_walk|model_code_rules|regmap_" \
  | grep -E "tests passed|Failed|\*\*\*"
# The parallel engine under the sanitizers (its gtests ran above): the 648-host uniform load
# with CC on 3 threads, and the 648-host hotspot over drop-tail buffers with Go-Back-N
# (drops in every group) on 2.
"$build/bin/ibcc" run "$src/topologies/clos648/uniform.yaml" --out "$build/test-out/sanitize-parallel" --force --quiet \
  --threads 3 --sim-time 20us --log-interval 5us
"$build/bin/ibcc" run "$src/topologies/clos648/hotspot.yaml" --out "$build/test-out/sanitize-parallel" --force --quiet \
  --threads 2 --sim-time 100us --log-interval 25us --set fabric.flow_control=none --set fabric.switch.buffering=output \
  --set fabric.switch.output_buffer=40000 --set fabric.hca.transport=gbn --set fabric.hca.gbn_window=24 \
  --set fabric.hca.gbn_timeout=100us
for block in fecn ccti; do
  "$build/bin/ibcc" cosim --block "$block" --test all --cycles 300000 --quiet
done
echo "sanitize: done in $(( $(date +%s) - start )) s, no sanitizer report"
