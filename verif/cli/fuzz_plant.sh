#!/usr/bin/env bash
# The fuzzers must find the defect the YAML layer was built against: a copy of the sources
# with it planted back (an unguarded recursive walk of the parsed tree, as the duplicate-key
# check once was, and no alias-cycle check) is built as fuzz_scenario and fuzzed from the
# alias-rich corpus (tests/fuzz/yaml). Passes only if libFuzzer reports a finding (a crash,
# a stack overflow or a timeout) within SECONDS; the real sources are not touched.
#   verif/cli/fuzz_plant.sh SOURCE_DIR BUILD_DIR SECONDS
set -euo pipefail
src=$(realpath "$1") work=$(realpath -m "$2")/fuzz-plant seconds=$3
rm -rf "$work"
mkdir -p "$work/src"
cp -r "$src/sc_models" "$src/fuzz" "$src/tests" "$work/src/"
python3 - "$work/src/sc_models/net/scenario/yaml_document.cpp" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
cycle = "if (anchor < open_.size() && open_[anchor]) {"
ret = "    if (has_document_marker(text)) parser.HandleNextDocument(checker);\n    return root;"
assert cycle in s and ret in s, "the code to plant into has changed: update verif/cli/fuzz_plant.sh"
s = s.replace(cycle, "if (false) {")
s = s.replace(ret, "    if (has_document_marker(text)) parser.HandleNextDocument(checker);\n    planted_walk(root);\n    return root;")
s = s.replace("}  // namespace\n\nvoid check_text_encoding",
              "size_t planted_walk(const YAML::Node& n) {  // PLANTED: follows aliases, no bound\n"
              "  size_t k = 1;\n  if (n.IsMap()) for (const auto& kv : n) k += planted_walk(kv.second);\n"
              "  if (n.IsSequence()) for (const auto& e : n) k += planted_walk(e);\n  return k;\n}\n\n"
              "}  // namespace\n\nvoid check_text_encoding", 1)
open(p, "w").write(s)
PY
cmake -S "$work/src/fuzz" -B "$work/build" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$work/build" --target fuzz_scenario -j"$(nproc)" >/dev/null
mkdir -p "$work/corpus"
if (cd "$work/build" && ./fuzz_scenario -seed=1 -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
      "$work/corpus" "$work/src/tests/fuzz/yaml" >"$work/fuzz.log" 2>&1); then
  echo "FAIL: the planted alias walk was not found in ${seconds} s (see $work/fuzz.log)"
  exit 1
fi
echo "PASS: the planted alias walk was found: $(grep -m1 -E "ERROR: (libFuzzer|AddressSanitizer)[^)]*" -o "$work/fuzz.log" || echo finding)"
