#include "tune.h"

#include <memory>

#include "cli.h"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <iostream>

#include <nlohmann/json.hpp>

extern char** environ;

namespace ibcc {
namespace {

// While python runs, a SIGTERM, SIGHUP or SIGINT sent to this process (kill, a job
// scheduler) goes on to it, and this process waits for it to stop: killed alone, it would
// leave python (and the trial it runs) going on behind a resumed command. A Ctrl-C typed at
// the terminal reaches python by itself (the whole foreground group gets it): not sent twice.
volatile sig_atomic_t g_child = 0;    // the python process, once started
volatile sig_atomic_t g_pending = 0;  // a signal that came before it started
void forward_signal(int sig, siginfo_t* info, void*) {
  if (info && info->si_code == SI_KERNEL) return;  // from the terminal: python has it too
  if (g_child > 0) kill(static_cast<pid_t>(g_child), sig);
  else g_pending = sig;
}

}  // namespace

int run_python(const std::vector<std::string>& args, const char* who) {
  const std::string src_python = IBCC_SOURCE_DIR "/python";
  const char* old = std::getenv("PYTHONPATH");
  const std::string path = old && *old ? src_python + ":" + old : src_python;
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    if (std::string(*e).rfind("PYTHONPATH=", 0) != 0) env_strings.emplace_back(*e);
  }
  env_strings.push_back("PYTHONPATH=" + path);
  // python ends with this process, even after kill -9 of it (ibcc.tune sets PR_SET_PDEATHSIG).
  env_strings.push_back("IBCC_TUNE_PARENT=" + std::to_string(getpid()));
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_strings = {"python3"};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  struct sigaction fwd {};
  fwd.sa_sigaction = forward_signal;
  fwd.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&fwd.sa_mask);
  const int forwarded[] = {SIGTERM, SIGHUP, SIGINT};
  struct sigaction saved[3];
  g_child = 0;
  g_pending = 0;
  for (int i = 0; i < 3; ++i) sigaction(forwarded[i], &fwd, &saved[i]);
  auto restore = [&] {
    for (int i = 0; i < 3; ++i) sigaction(forwarded[i], &saved[i], nullptr);
    g_child = 0;
  };
  pid_t pid = 0;
  if (posix_spawnp(&pid, "python3", nullptr, nullptr, argv.data(), envp.data()) != 0) {
    restore();
    std::cerr << who << ": error: cannot start python3 (run scripts/bootstrap.sh)\n";
    return cli::kBadInput;
  }
  g_child = pid;
  if (g_pending) kill(pid, g_pending);
  int status = 0;
  pid_t got = 0;
  while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  restore();
  if (got < 0) {
    std::cerr << who << ": error: lost track of python3 (waitpid failed)\n";
    return cli::kFailed;
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return sig == SIGINT || sig == SIGTERM || sig == SIGHUP ? 130 : 128 + sig;  // interrupted: 130, as run and sweep
  }
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

namespace ibcc::cli {

Command add_tune(CLI::App& app, const Invocation& inv) {
  auto tune = std::make_shared<ibcc::TuneOptions>();
  CLI::App* cmd = app.add_subcommand(
      "tune", "Search a CC configuration space with Optuna for the best objectives (worst case across the scenarios), "
              "each trial an ibcc run; resumable; writes the chosen configuration as a cc: section and as opensm.conf "
              "lines, a Pareto front, importances, plots and a report");
  cmd->add_option("scenarios", tune->scenarios, "Scenario files (YAML): the workloads the configuration must serve")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--out", tune->out_dir,
                  "Output directory: study.db, tune.csv, chosen.yaml, opensm.conf, report.txt, plots, trials/")
      ->required();
  cmd->add_option("--space", tune->space,
                  "Tuned key: KEY=LO:HI with optional :int and :log, or KEY=V1,V2,... (choices); repeatable")
      ->required();
  cmd->add_option("--objective", tune->objectives,
                  "Metric of metrics.json to optimise, METRIC[:max|:min] (repeatable: multi-objective; "
                  "default victim:max)");
  cmd->add_option("--trials", tune->trials, "Trials the study should hold when done (default 40)")
      ->check(CLI::Range(1u, 100000u));
  cmd->add_option("--jobs", tune->jobs, "Trials run at once (default 1)")->check(CLI::Range(1u, 256u));
  cmd->add_option("--storage", tune->storage, "Optuna storage URL (default: sqlite:///OUT/study.db)");
  cmd->add_option("--seed", tune->seed, "Seed of the sampler (default 1)")
      ->check(CLI::Range(uint64_t{0}, uint64_t{4294967295u}, "0..2^32-1 (Optuna's samplers take a 32-bit seed)"));
  cmd->add_option("--set", tune->sets, "KEY=VALUE for every run (as ibcc run --set)");
  cmd->add_option("--sim-time", tune->sim_time, "Simulated time of every run, with a unit");
  cmd->add_option("--window", tune->window, "Metrics window FROM..TO with units (default: second half)");
  cmd->add_option("--backend", tune->backend,
                  "Where the trials run: local (--jobs at a time here) or slurm (--workers tasks of one Slurm job "
                  "array sharing the study through --storage; interrupted, the job is cancelled)")
      ->check(CLI::IsMember({"local", "slurm"}));
  cmd->add_option("--workers", tune->workers, "Slurm: workers (array tasks) running trials at once (default 1)")
      ->check(CLI::Range(1u, 10000u));
  cmd->add_option("--partition", tune->partition, "Slurm partition (default: the cluster's default)");
  cmd->add_flag("--quiet", tune->quiet, "No progress bar or report");
  return {cmd,
          [tune, cmd, inv] {
            if (tune->backend != "slurm" && (!tune->partition.empty() || cmd->count("--workers"))) {
              std::cerr << "ibcc tune: error: --workers and --partition need --backend slurm\n";
              return cli::kBadInput;
            }
            if (tune->backend == "slurm" && cmd->count("--jobs")) {
              std::cerr << "ibcc tune: error: --jobs is for the local backend; with --backend slurm use --workers\n";
              return cli::kBadInput;
            }
            if (g_stop) return cli::kStopped;  // a signal during start-up: nothing was run
            std::string cmdline;
            for (int i = 0; i < inv.argc; ++i) cmdline += (i ? " " : "") + std::string(inv.argv[i]);
            return ibcc::run_tune(*tune, self_exe(inv.argc > 0 ? inv.argv[0] : "ibcc"), cmdline);
          },
          true};
}

}  // namespace ibcc::cli
