// `ibcc topo`: inspect and validate a fabric, show routes and congestion-tree candidates,
// write a generated topology out as explicit YAML.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ibcc {

struct TopoOptions {
  std::string scenario;
  std::vector<std::string> sets;
  std::vector<std::pair<std::string, std::string>> routes;  // --route SRC DST
  unsigned candidates = 10;                                  // how many to list
  std::string write;                                         // --write FILE
  std::string draw;                                          // --draw FILE (.png, .svg, .pdf)
  unsigned partitions = 0;                                   // --partitions N (0: none shown)
};

// Exit codes: 0 valid; 2 bad input (the message names file, line and key).
int run_topo(const TopoOptions& opt);

}  // namespace ibcc
