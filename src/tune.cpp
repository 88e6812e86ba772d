#include "tune.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <iostream>

#include <nlohmann/json.hpp>

extern char** environ;

namespace ibcc {

int run_python(const std::vector<std::string>& args, const char* who) {
  const std::string src_python = IBCC_SOURCE_DIR "/python";
  const char* old = std::getenv("PYTHONPATH");
  const std::string path = old && *old ? src_python + ":" + old : src_python;
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    if (std::string(*e).rfind("PYTHONPATH=", 0) != 0) env_strings.emplace_back(*e);
  }
  env_strings.push_back("PYTHONPATH=" + path);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_strings = {"python3"};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, "python3", nullptr, nullptr, argv.data(), envp.data()) != 0) {
    std::cerr << who << ": error: cannot start python3 (run scripts/bootstrap.sh)\n";
    return 2;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int run_tune(const TuneOptions& opt, const std::string& self_exe, const std::string& command) {
  const nlohmann::json request = {
      {"ibcc", self_exe},         {"scenarios", opt.scenarios}, {"out", opt.out_dir},   {"space", opt.space},
      {"objectives", opt.objectives}, {"trials", opt.trials},   {"jobs", opt.jobs},     {"storage", opt.storage},
      {"seed", opt.seed},         {"sets", opt.sets},           {"sim_time", opt.sim_time}, {"window", opt.window},
      {"quiet", opt.quiet},       {"command", command},         {"backend", opt.backend}, {"workers", opt.workers},
      {"partition", opt.partition}};
  return run_python({"-m", "ibcc.tune", "--request", request.dump()}, "ibcc tune");
}

}  // namespace ibcc
