// `ibcc run`: one scenario, start to end, and its result files (flows.csv, summary.json,
// ports.csv) in an output directory.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "net/parallel/rank_exchange.h"
#include "net/scenario/scenario_yaml.h"

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
  std::string waves_dir;                // --waves DIR: network.fst (or .vcd) + network.gtkw
  bool waves_vcd = false;               // --waves-format vcd
  bool waves_all_signals = false;       // --waves-all-signals: also VoQs and VLs no flow can use
  std::string trace;                    // --trace ports=S/P,...,flows=F,...
  std::string waves_window;             // --waves-window FROM..TO
  std::vector<std::string> rtl;         // --rtl SWITCH/PORT,HCA,...: Verilated blocks in the loop (cc.rtl)
  unsigned profile_partitions = 0;      // --profile-partitions N: what a parallel run of N groups could gain
  unsigned threads = 1;                 // --threads N: a parallel run of N groups, one thread each
  // Under an MPI launcher (mpirun, srun): its processes, each running `threads` groups; rank 0
  // writes the results.
  RankExchange* ranks = nullptr;
  bool quiet = false;
  bool force = false;                   // --force: --out may hold an earlier run's results (cleared)
  std::vector<std::string> command;     // the command line, for summary.json
  // Set (by a signal handler) to stop the run at the next event boundary: the results so far
  // are written with result "interrupted" and run_scenario returns kInterrupted.
  const std::atomic<bool>* stop_flag = nullptr;
  // Called after every log interval with the fraction done and a description (progress bar).
  std::function<void(double fraction, const std::string& what)> progress;
};

// Throughput of each flow averaged over one phase (the time between two flow starts or
// stops), the second half of the phase only so that start-up transients do not count.
struct Phase {
  double start_us = 0, end_us = 0;
  std::vector<double> gbps;  // per flow
};

// Exit codes: 0 success, 1 the model failed a check (invariant, deadlock) or a result could
// not be written, 2 bad input, kInterrupted when stopped through stop_flag.
constexpr int kInterrupted = 130;
int run_scenario(const RunOptions& opt);
// Why the run of `s` cannot fit in this machine's free memory (its estimate), or nothing.
std::optional<std::string> memory_error(const Scenario& s);
// Why `window` (--window FROM..TO) cannot be the metrics window of a run of `sim_time_ps`, or
// nothing if it can.
std::optional<std::string> window_error(const std::string& window, uint64_t sim_time_ps);
// The resolved scenario of `opt` (scenario, --opensm-conf, --set, --cc, ...) as YAML, with the
// reader's notes as comments: what `ibcc describe` prints. ScenarioError on bad input.
// With `policy`, also the resolved cc settings as NVIDIA OpenSM's congestion-control
// policy file (net/scenario/import_nvidia_cc.h); ScenarioError unless the scenario runs
// cc.marking nvidia with cc.reaction dcqcn.
std::string describe_scenario(const RunOptions& opt, std::string* policy = nullptr);

// The points of a campaign (a sweep's grid) checked at once, as a campaign's runs would read
// them: `points_json` is a JSON list, per point a list of [KEY, VALUE, ORIGIN] applied after
// opt's overrides. Returns JSON {"shapes": [{"flows": [...], "metrics": [...]}], "points":
// [shape index per point]}: the flows and metric names (net/observe/metrics.h) of each
// point's runs, points alike sharing a shape. The first invalid point throws ScenarioError
// naming its ORIGIN; a `window` (FROM..TO) ending after a point's sim.time likewise.
std::string describe_points(const RunOptions& opt, const std::string& points_json, const std::string& window);

// The files `ibcc run` writes into --out (besides PNGs of --plot); a rerun clears them.
const std::vector<std::string>& run_output_files();

}  // namespace ibcc::net
