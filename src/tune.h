// `ibcc tune`: search a congestion-control configuration space with Optuna (python/ibcc/tune.py),
// each trial an `ibcc run` per scenario; the study in an Optuna storage, resumable.
#pragma once

#include <string>
#include <vector>

namespace ibcc {

struct TuneOptions {
  std::vector<std::string> scenarios;   // the workloads; the objective is the worst case across them
  std::string out_dir;
  std::vector<std::string> space;       // KEY=LO:HI[:int][:log] or KEY=V1,V2,...
  std::vector<std::string> objectives;  // METRIC[:max|:min]
  unsigned trials = 40;
  unsigned jobs = 1;
  std::string storage;                  // Optuna RDB URL (default: sqlite OUT/study.db)
  unsigned long long seed = 1;          // the sampler's seed
  std::vector<std::string> sets;        // --set KEY=VALUE for every run
  std::string sim_time;
  std::string window;
  bool quiet = false;
  std::string backend = "local";        // local: trials here; slurm: `workers` Slurm array tasks
  unsigned workers = 1;
  std::string partition;
};

// Runs `python3 ARGS...` with the source tree's python/ first on PYTHONPATH; its exit code
// (2 if python3 cannot be started).
int run_python(const std::vector<std::string>& args, const char* who);

// Exit codes: 0 done; 1 no trial completed or an output failed; 2 bad input; 130 interrupted.
int run_tune(const TuneOptions& opt, const std::string& self_exe, const std::string& command);

}  // namespace ibcc
