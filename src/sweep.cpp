// `ibcc sweep`: its options, passed as one JSON request to the campaign layer's grid
// sampler (python/ibcc/sweep.py), which checks every point, runs them (here, --jobs at a
// time, or as a Slurm job array), resumes and gathers sweep.csv.
#include <memory>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "python_launcher.h"

namespace ibcc::cli {
namespace {

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
  unsigned seeds = 0;                // --seeds N: each point over N seeds (0: one run per point)
  unsigned threads = 1;              // --threads N: every run on N threads
  bool quiet = false;
};

// Exit codes: 0 every point ran (or stalled: a result); 1 some point failed (sweep.csv still
// written); 2 bad input; 130 interrupted.
int run_sweep(const SweepOptions& opt, const std::string& self_exe) {
  const nlohmann::json request = {
      {"ibcc", self_exe},     {"scenario", opt.scenario}, {"out", opt.out_dir},   {"grids", opt.grids},
      {"metrics", opt.metrics}, {"jobs", opt.jobs},       {"sets", opt.sets},     {"window", opt.window},
      {"sim_time", opt.sim_time}, {"cc", opt.cc},         {"backend", opt.backend}, {"partition", opt.partition},
      {"array_max", opt.array_max}, {"quiet", opt.quiet}, {"seeds", opt.seeds},     {"threads", opt.threads}};
  return run_python({"-m", "ibcc.sweep", "--request", request.dump()}, "ibcc sweep", true);
}

}  // namespace

Command add_sweep(CLI::App& app, const Invocation& inv) {
  auto sweep = std::make_shared<SweepOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Run a scenario over the cross product of parameter values, in parallel processes, into one sweep.csv "
               "(resumes an interrupted sweep in the same --out)");
  cmd->add_option("scenario", sweep->scenario, "Scenario file (YAML)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--out", sweep->out_dir, "Output directory: sweep.csv, sweep.json, points/<point>/")->required();
  cmd->add_option("--grid", sweep->grids,
                  "Swept key: KEY=V1,V2,... or KEY=FROM:TO:STEP (numbers, both ends included); repeatable, "
                  "the first varies slowest")
      ->required();
  cmd->add_option("--metric", sweep->metrics,
                  "Column of sweep.csv (repeatable; default: every scalar metric; see docs/configuration.md, "
                  "Metrics)");
  cmd->add_option("--jobs", sweep->jobs, "Parallel runs (default: one per core, or the cores over --threads)")
      ->check(CLI::Range(1u, 256u));
  cmd->add_option("--threads", sweep->threads,
                  "Run every point on N threads (as ibcc run --threads; the results are the same): a Slurm task asks "
                  "for N CPUs")
      ->check(CLI::Range(1u, 1024u));
  cmd->add_option("--set", sweep->sets, "KEY=VALUE for every point (as ibcc run --set)");
  cmd->add_option("--window", sweep->window, "Metrics window FROM..TO with units (default: second half)");
  cmd->add_option("--sim-time", sweep->sim_time, "Simulated time of every point, with a unit");
  cmd->add_option("--cc", sweep->cc, "Congestion control on or off for every point")->check(CLI::IsMember({"on", "off"}));
  cmd->add_option("--backend", sweep->backend,
                  "Where the points run: local (processes here, --jobs at a time) or slurm (one Slurm job array "
                  "submitted with sbatch, followed with squeue; interrupted, the job is cancelled)")
      ->check(CLI::IsMember({"local", "slurm"}));
  cmd->add_option("--partition", sweep->partition, "Slurm partition (default: the cluster's default)");
  cmd->add_option("--array-max", sweep->array_max, "Slurm: at most this many points at once (default: no limit)")
      ->check(CLI::Range(1u, 100000u));
  cmd->add_option("--seeds", sweep->seeds,
                  "Replicate each point over N seeds (sim.seed and the next N-1), each into points/<point>/seed-<s>/; "
                  "sweep.csv then holds each metric's mean, <metric>.ci95 (the half width of its 95 % confidence "
                  "interval) and seeds (how many gave a result)")
      ->check(CLI::Range(2u, 10000u));
  cmd->add_flag("--quiet", sweep->quiet, "No progress bar or summary");
  const char* argv0 = inv.argc > 0 ? inv.argv[0] : "ibcc";
  return {cmd,
          [sweep, argv0] {
            if (sweep->backend != "slurm" && (!sweep->partition.empty() || sweep->array_max)) {
              std::cerr << "ibcc sweep: error: --partition and --array-max need --backend slurm\n";
              return cli::kBadInput;
            }
            if (sweep->backend == "slurm" && sweep->jobs) {
              std::cerr << "ibcc sweep: error: --jobs is for the local backend; with --backend slurm use --array-max\n";
              return cli::kBadInput;
            }
            if (g_stop) return cli::kStopped;  // a signal during start-up: nothing was run
            return run_sweep(*sweep, self_exe(argv0));
          },
          true};
}

}  // namespace ibcc::cli
