// Slurm as the engine of `ibcc sweep --backend slurm`: job arrays submitted with sbatch,
// followed with squeue, cancelled with scancel. The Slurm client commands must be in PATH
// (SLURM_CONF as the site sets it).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace ibcc::slurm {

class SlurmError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `s` as one word for bash.
std::string shell_quote(const std::string& s);

// A bash script that runs line SLURM_ARRAY_TASK_ID + 1 of `task_list` (each line one
// script to run) — the array job's body.
std::string array_script(const std::string& task_list);

struct ArrayJob {
  std::string script;     // the job script (bash)
  size_t tasks = 0;       // array indices 0 .. tasks - 1
  unsigned array_max = 0; // at most this many at once (0: Slurm's limit)
  std::string partition;  // empty: the default partition
  std::string name;       // --job-name
  std::string log_dir;    // Slurm's own output: LOG_DIR/slurm-%A_%a.out
};

// sbatch --parsable --array=...: the job id. SlurmError with sbatch's message on failure.
std::string submit(const ArrayJob& job);
// Whether any task of the job is still pending or running (squeue).
bool in_queue(const std::string& job_id);
// scancel the job (every task); errors are ignored (it may have ended).
void cancel(const std::string& job_id);

}  // namespace ibcc::slurm
