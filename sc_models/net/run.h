// `ibcc run`: one scenario, start to end, and its result files (flows.csv, summary.json,
// ports.csv) in an output directory.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "net/scenario_yaml.h"

namespace ibcc::net {

struct RunOptions {
  std::string scenario;
  std::string out_dir;
  std::optional<bool> cc;               // --cc on|off
  std::vector<Override> overrides;      // --set key=value
  std::optional<uint64_t> seed;
  std::optional<std::string> sim_time;  // --sim-time 10ms
  std::optional<std::string> log_interval;
  std::optional<std::string> window;    // metrics window "FROM..TO" (times with units)
  std::string opensm_conf;              // cc settings from an opensm.conf (before --set)
  std::string waves_dir;                // --waves DIR: network.vcd + network.gtkw
  std::string trace;                    // --trace ports=S/P,...,flows=F,...
  std::string waves_window;             // --waves-window FROM..TO
  bool quiet = false;
  // Called after every log interval with the fraction done and a description (progress bar).
  std::function<void(double fraction, const std::string& what)> progress;
};

// Throughput of each flow averaged over one phase (the time between two flow starts or
// stops), the second half of the phase only so that start-up transients do not count.
struct Phase {
  double start_us = 0, end_us = 0;
  std::vector<double> gbps;  // per flow
};

// Exit codes: 0 success, 1 the model failed a check (invariant, deadlock), 2 bad input.
int run_scenario(const RunOptions& opt);

}  // namespace ibcc::net
