// The small valid fabric the network-model tests start from (tests/scenarios/base.yaml),
// as text to load with overrides.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace ibcc::net::testing {

inline std::string base_text() {
  std::ifstream in(std::string(IBCC_SOURCE_DIR) + "/tests/scenarios/base.yaml");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace ibcc::net::testing
