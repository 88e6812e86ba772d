#include "slurm.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>

#include <fmt/format.h>

namespace ibcc::slurm {
namespace {

// The command's exit code; its standard output and error in `out`.
int capture(const std::vector<std::string>& argv, std::string* out) {
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + shell_quote(a);
  cmd += " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw SlurmError("cannot start " + argv[0]);
  std::array<char, 4096> buf{};
  out->clear();
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out->append(buf.data(), n);
  const int status = pclose(p);
  if (status == -1) return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

std::string array_script(const std::string& task_list) {
  return "#!/usr/bin/env bash\n"
         "# ibcc: one array task = one line of the task list, a script to run\n"
         "set -euo pipefail\n"
         "task=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" " + shell_quote(task_list) + ")\n"
         "exec bash \"$task\"\n";
}

std::string submit(const ArrayJob& job) {
  if (job.tasks == 0) throw SlurmError("nothing to submit");
  std::string array = fmt::format("0-{}", job.tasks - 1);
  if (job.array_max) array += fmt::format("%{}", job.array_max);
  std::vector<std::string> argv = {"sbatch", "--parsable", "--array=" + array, "--job-name=" + job.name,
                                   "--output=" + job.log_dir + "/slurm-%A_%a.out", "--ntasks=1", "--cpus-per-task=1"};
  if (!job.partition.empty()) argv.push_back("--partition=" + job.partition);
  argv.push_back(job.script);
  std::string out;
  const int rc = capture(argv, &out);
  out = trimmed(out);
  if (rc == 127) throw SlurmError("sbatch not found: is this a Slurm submit host (Slurm's client commands in PATH)?");
  if (rc != 0) throw SlurmError("sbatch failed (exit " + std::to_string(rc) + "): " + out);
  // --parsable: "JOBID" or "JOBID;CLUSTER", possibly after warnings on earlier lines.
  const std::string last = out.substr(out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
  const std::string id = last.substr(0, last.find(';'));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    throw SlurmError("sbatch gave no job id: " + out);
  }
  return id;
}

bool in_queue(const std::string& job_id) {
  std::string out;
  const int rc = capture({"squeue", "-h", "-j", job_id, "-o", "%i"}, &out);
  // squeue exits non-zero for a job id it no longer knows: the job has left the queue.
  if (rc != 0) {
    if (out.find("Invalid job id") != std::string::npos) return false;
    throw SlurmError("squeue failed (exit " + std::to_string(rc) + "): " + trimmed(out));
  }
  return !trimmed(out).empty();
}

void cancel(const std::string& job_id) {
  std::string out;
  capture({"scancel", job_id}, &out);
}

}  // namespace ibcc::slurm
