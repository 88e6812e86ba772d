// `ibcc tune`: its options, passed as one JSON request to the campaign layer's Optuna
// sampler (python/ibcc/tune.py), which runs the trials.
#include <memory>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "python_launcher.h"

namespace ibcc::cli {
namespace {

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
  unsigned threads = 1;                 // --threads N: every run on N threads
  std::string partition;
  unsigned seeds = 0;                   // --seeds N: every run over N seeds (0: one run)
};

// Exit codes: 0 done; 1 no trial completed or an output failed; 2 bad input; 130 interrupted.
int run_tune(const TuneOptions& opt, const std::string& self_exe, const std::string& command) {
  const nlohmann::json request = {
      {"ibcc", self_exe},         {"scenarios", opt.scenarios}, {"out", opt.out_dir},   {"space", opt.space},
      {"objectives", opt.objectives}, {"trials", opt.trials},   {"jobs", opt.jobs},     {"storage", opt.storage},
      {"seed", opt.seed},         {"sets", opt.sets},           {"sim_time", opt.sim_time}, {"window", opt.window},
      {"quiet", opt.quiet},       {"command", command},         {"backend", opt.backend}, {"workers", opt.workers},
      {"partition", opt.partition}, {"seeds", opt.seeds},       {"threads", opt.threads}};
  return run_python({"-m", "ibcc.tune", "--request", request.dump()}, "ibcc tune", true);
}

}  // namespace


Command add_tune(CLI::App& app, const Invocation& inv) {
  auto tune = std::make_shared<TuneOptions>();
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
  cmd->add_option("--seeds", tune->seeds,
                  "Run every trial and reference over N seeds (each scenario's sim.seed and the next N-1): the "
                  "objectives are the means, each run's metrics.json has their 95 % confidence intervals")
      ->check(CLI::Range(2u, 10000u));
  cmd->add_option("--window", tune->window, "Metrics window FROM..TO with units (default: second half)");
  cmd->add_option("--backend", tune->backend,
                  "Where the trials run: local (--jobs at a time here) or slurm (--workers tasks of one Slurm job "
                  "array sharing the study through --storage; interrupted, the job is cancelled)")
      ->check(CLI::IsMember({"local", "slurm"}));
  cmd->add_option("--workers", tune->workers, "Slurm: workers (array tasks) running trials at once (default 1)")
      ->check(CLI::Range(1u, 10000u));
  cmd->add_option("--partition", tune->partition, "Slurm partition (default: the cluster's default)");
  cmd->add_option("--threads", tune->threads,
                  "Run every simulation on N threads (as ibcc run --threads; the results are the same): a Slurm "
                  "worker asks for N CPUs")
      ->check(CLI::Range(1u, 1024u));
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
            return run_tune(*tune, self_exe(inv.argc > 0 ? inv.argv[0] : "ibcc"), cmdline);
          },
          true};
}

}  // namespace ibcc::cli
