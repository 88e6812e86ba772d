// `ibcc sweep`: the cross product of parameter values, each point an `ibcc run` in its own
// process (N at a time here, or a task of a Slurm job array), resumable, gathered into one
// sweep.csv.
#pragma once

#include <string>
#include <vector>

namespace ibcc {

struct SweepOptions {
  std::string scenario;
  std::string out_dir;
  std::vector<std::string> grids;    // KEY=V1,V2,... or KEY=FROM:TO:STEP
  std::vector<std::string> metrics;  // columns of sweep.csv (default: all scalar metrics)
  std::vector<std::string> sets;     // --set KEY=VALUE for every point
  std::string window;                // --window for every point
  std::string sim_time;
  std::string cc;                    // on|off or empty
  unsigned jobs = 0;                 // 0: one per core (local backend)
  std::string backend = "local";     // local: processes here; slurm: a Slurm job array
  std::string partition;             // slurm: --partition (empty: the default one)
  unsigned array_max = 0;            // slurm: at most this many points at once (0: no limit)
  bool quiet = false;
};

// Exit codes: 0 every point ran; 1 some point failed (sweep.csv still written); 2 bad input.
int run_sweep(const SweepOptions& opt, const std::string& self_exe);

}  // namespace ibcc
