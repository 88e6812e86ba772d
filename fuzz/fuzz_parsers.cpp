// One libFuzzer entry point per parser (chosen at compile time, see CMakeLists.txt). The
// importers read files, so their input is written to a file in /dev/shm first.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "net/scenario/import_ibnetdiscover.h"
#include "net/scenario/import_nvidia_cc.h"
#include "net/scenario/import_opensm.h"
#include "net/scenario/scenario_yaml.h"

namespace {

std::string as_file(const uint8_t* data, size_t size, const char* suffix) {
  static const std::string path = "/dev/shm/ibcc-fuzz-" + std::to_string(getpid()) + suffix;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) __builtin_trap();
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ibcc::net;
  try {
#if defined(FUZZ_TARGET_scenario)
    const std::string text(reinterpret_cast<const char*>(data), size);
    const Scenario s = load_scenario_text(text, "fuzz.yaml");
    // What a run records must load back to the same settings.
    const std::string resolved = resolved_scenario_yaml(text, "fuzz.yaml", {}, s);
    const Scenario back = load_scenario_text(resolved, "resolved.yaml");
    if (back.cc.sw.threshold != s.cc.sw.threshold || back.sim.sim_time_ps != s.sim.sim_time_ps ||
        back.cc.ca.cct != s.cc.ca.cct || back.flows.size() != s.flows.size()) {
      __builtin_trap();
    }
#elif defined(FUZZ_TARGET_set)
    // --set KEY=VALUE lines (one per input line) applied to a small valid scenario: the
    // override parser and the YAML layer under it (aliases, duplicate keys, encodings).
    static const std::string base =
        "sim: {time: 100us, log_interval: 10us}\ntopology:\n  switches: [{name: S1, ports: 4}]\n  hcas: [H1, H2]\n"
        "  links: [{a: H1, b: S1/1}, {a: H2, b: S1/2}]\ntraffic:\n  flows: [{name: F1, src: H1, dst: H2}]\n";
    std::vector<Override> ov;
    std::string text(reinterpret_cast<const char*>(data), size);
    for (size_t at = 0; at <= text.size() && ov.size() < 8;) {
      size_t nl = text.find('\n', at);
      if (nl == std::string::npos) nl = text.size();
      ov.push_back(parse_override(text.substr(at, nl - at)));
      at = nl + 1;
    }
    (void)load_scenario_text(base, "base.yaml", ov);
#elif defined(FUZZ_TARGET_opensm)
    (void)opensm_as_yaml(import_opensm_conf(as_file(data, size, ".conf")));
#elif defined(FUZZ_TARGET_nvidia)
    // A policy file read, then the scenario it configures written back as one.
    const NvidiaImport imp = import_nvidia_policy(as_file(data, size, ".policy"));
    (void)nvidia_policy(load_scenario_text("name: n\ntopology: {switches: [{name: S, ports: 2}], hcas: [A, B], links: "
                                           "[{a: A, b: S/1}, {a: B, b: S/2}]}\ntraffic: {flows: [{name: F, src: A, dst: "
                                           "B}]}\n", "base.yaml", imp.overrides).cc);
#elif defined(FUZZ_TARGET_ibnetdiscover)
    (void)import_ibnetdiscover(as_file(data, size, ".topo"));
#elif defined(FUZZ_TARGET_lfts)
    (void)import_ibnetdiscover(FIXTURE_TOPO, as_file(data, size, ".lfts"));
#endif
  } catch (const ScenarioError&) {
    // Bad input, reported as such: the expected outcome.
  }
  return 0;
}
