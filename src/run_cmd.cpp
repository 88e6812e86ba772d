// `ibcc run` and `ibcc describe`: their options and what they do with them (run.cpp runs).
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "cli.h"
#include "common/output_files.h"
#include "net/scenario/scenario_yaml.h"
#include "net/scenario/units.h"
#include "progress.h"
#include "python_launcher.h"
#include "run.h"

namespace ibcc::cli {
namespace {

// `ibcc run --seeds N`: the scenario resolved here (bad input exits 2 before anything runs,
// and its sim.seed, or --seed, is the first seed), then N runs, one per seed, by the
// campaign layer (python/ibcc/replicate.py), which writes the means and their 95 % intervals.
int run_replicated(const ibcc::net::RunOptions& run, unsigned seeds, unsigned jobs, const std::string& cc,
                   const std::vector<std::string>& sets, const std::string& self) {
  uint64_t first = 1;
  try {
    const YAML::Node resolved = YAML::Load(ibcc::net::describe_scenario(run));
    first = resolved["sim"]["seed"].as<uint64_t>();
    if (run.threads > 1) ibcc::net::describe_points(run, "[[]]", "");  // a parallel run it cannot have: exit 2 now
    if (run.window) {
      if (auto err = ibcc::net::window_error(*run.window, ibcc::net::parse_time_ps(resolved["sim"]["time"].as<std::string>()).value_or(0))) {
        std::cerr << "ibcc run: error: --window " << *run.window << ": " << *err << "\n";
        return kBadInput;
      }
    }
  } catch (const ibcc::net::ScenarioError& e) {
    std::cerr << "ibcc run: error: " << e.what() << "\n";
    return kBadInput;
  }
  if (first > UINT64_MAX - seeds) {
    std::cerr << "ibcc run: error: --seeds " << seeds << " from seed " << first << ": past the largest seed\n";
    return kBadInput;
  }
  std::vector<std::string> args;  // what every seed's run takes as it is
  if (!cc.empty()) args.insert(args.end(), {"--cc", cc});
  for (const auto& kv : sets) args.insert(args.end(), {"--set", kv});
  if (run.sim_time) args.insert(args.end(), {"--sim-time", *run.sim_time});
  if (run.log_interval) args.insert(args.end(), {"--log-interval", *run.log_interval});
  if (run.window) args.insert(args.end(), {"--window", *run.window});
  if (!run.opensm_conf.empty()) args.insert(args.end(), {"--opensm-conf", run.opensm_conf});
  if (run.threads > 1) args.insert(args.end(), {"--threads", std::to_string(run.threads)});
  if (!run.rtl.empty()) {
    std::string list;
    for (const auto& r : run.rtl) list += (list.empty() ? "" : ",") + r;
    args.insert(args.end(), {"--rtl", list});
  }
  nlohmann::json seed_list = nlohmann::json::array();
  for (unsigned i = 0; i < seeds; ++i) seed_list.push_back(first + i);
  const nlohmann::json request = {{"ibcc", self},        {"scenario", run.scenario}, {"out", run.out_dir},
                                  {"seeds", seed_list},  {"args", args},             {"jobs", jobs},
                                  {"force", run.force},  {"quiet", run.quiet},       {"command", run.command},
                                  {"threads", run.threads}};
  return run_python({"-m", "ibcc.replicate", "--request", request.dump()}, "ibcc run", true);
}

}  // namespace

Command add_run(CLI::App& app, const Invocation& inv) {
  struct Options {
    ibcc::net::RunOptions run;
    std::string cc, seed, waves_format = "fst";
    std::vector<std::string> sets;
    bool plot_after = false;
    unsigned seeds = 0, jobs = 0;
  };
  auto o = std::make_shared<Options>();
  o->run.command.assign(inv.argv, inv.argv + inv.argc);
  CLI::App* cmd = app.add_subcommand(
      "run", "Simulate a fabric scenario (topologies/**/*.yaml) with the network model and write flows.csv, "
             "summary.json and ports.csv");
  ibcc::net::RunOptions& run = o->run;
  cmd->add_option("scenario", run.scenario, "Scenario file (YAML)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--out", run.out_dir, "Output directory (created)")->required();
  cmd->add_option("--cc", o->cc, "Congestion control on or off (default: the scenario's cc.enabled)")
      ->check(CLI::IsMember({"on", "off"}));
  cmd->add_option("--set", o->sets,
                  "Override a scenario key, KEY=VALUE with a dotted key (e.g. cc.switch.threshold=10); repeatable");
  cmd->add_option("--seed", o->seed, "Random seed (default: the scenario's sim.seed, else 1)");
  cmd->add_option("--sim-time", run.sim_time, "Simulated time with a unit, e.g. 5s, 2ms (default: sim.time)");
  cmd->add_option("--log-interval", run.log_interval,
                  "Throughput/occupancy log interval with a unit (default: sim.log_interval, else 1ms)");
  cmd->add_option("--window", run.window,
                  "Time window of metrics.json, FROM..TO with units, e.g. 2.5s..5s (default: the second half)");
  cmd->add_flag("--quiet", run.quiet, "Print nothing but errors");
  cmd->add_flag("--force", run.force, "--out may hold an earlier run's results: they are removed first");
  cmd->add_option("--rtl", run.rtl,
                  "RTL in the loop (sets cc.rtl): the Verilated FECN marker (rtl/fecn_marker.sv) on these "
                  "switch output ports (SWITCH/PORT) and the Verilated CCTI block (rtl/ccti_block.sv) in "
                  "these HCAs (NAME), comma-separated, in place of the C++ cores: Verilated for each "
                  "parameter set on first use (cached in ~/.cache/ibcc/rtl-loop), configured through the "
                  "AXI4-Lite port, clocked every cycle; with --waves, each block's FST and .gtkw too")
      ->delimiter(',');
  cmd->add_option("--opensm-conf", run.opensm_conf,
                  "Take the CC settings from an OpenSM configuration (cc_* options, OpenSM's semantics); "
                  "--set still overrides them")
      ->check(CLI::ExistingFile);
  CLI::Option* waves = cmd->add_option("--waves", run.waves_dir,
                  "Write DIR/network.fst (VoQ fills, credits, congestion state, FECN marks, CCTI, IRD of the "
                  "traced ports and flows) and DIR/network.gtkw for GTKWave, opening on the first congestion "
                  "episode with a marker on the first FECN mark");
  cmd->add_option("--waves-format", o->waves_format, "fst (default) or vcd (network.vcd, about 40x larger)")
      ->check(CLI::IsMember({"fst", "vcd"}))
      ->needs(waves);
  cmd->add_flag("--waves-all-signals", run.waves_all_signals,
                "Also trace VoQs no route passes through and VLs no flow uses (constant zero)")
      ->needs(waves);
  cmd->add_option("--trace", run.trace,
                  "What --waves records: ports=SWITCH/PORT,...,flows=FLOW,... (default: everything of a "
                  "fabric with at most 32 switch ports and 32 flows)")
      ->needs(waves);
  cmd->add_option("--waves-window", run.waves_window,
                  "Record --waves only in FROM..TO (times with units, e.g. 2s..2.01s); default: the whole run "
                  "(a busy traced port: about 10 MB of FST per simulated second)")
      ->needs(waves);
  CLI::Option* profile = cmd->add_option("--profile-partitions", run.profile_partitions,
                  "Split the fabric into N groups as a parallel run would (ibcc topo --partitions) and count this "
                  "run's events per group and window: the speed-up no window-synchronous engine on that partition "
                  "can exceed (summary.json parallel_profile)")
      ->check(CLI::PositiveNumber);
  CLI::Option* threads = cmd->add_option("--threads", run.threads,
                  "Run one simulation on N threads: the fabric split into N groups (ibcc topo --partitions), each "
                  "with its own calendar, exchanging what crosses between groups window by window; the results are "
                  "byte-identical to one thread's (default 1)")
      ->check(CLI::Range(1u, 1024u));
  threads->excludes(profile);
  threads->excludes(waves);
  cmd->add_flag("--plot", o->plot_after, "Draw the PNGs of `ibcc plot` into --out after the run");
  CLI::Option* seeds =
      cmd->add_option("--seeds", o->seeds,
                      "Replicate over N seeds (sim.seed, or --seed, and the next N-1): each run into OUT/seed-<s>/, "
                      "and OUT/metrics.json with each metric's mean, 95 % confidence interval (ci95: the half "
                      "width), standard deviation and per-seed values")
          ->check(CLI::Range(2u, 10000u));
  seeds->excludes(waves);
  seeds->excludes(profile);  // (profile one seed: --seed)
  cmd->add_option("--jobs", o->jobs, "With --seeds: parallel runs (default: one per core, or the cores over --threads)")
      ->check(CLI::Range(1u, 256u))
      ->needs(seeds);
  const char* argv0 = inv.argc > 0 ? inv.argv[0] : "ibcc";
  return {cmd,
          [o, argv0] {
            die_with_sweep_parent();
            ibcc::net::RunOptions& run = o->run;
            run.waves_vcd = o->waves_format == "vcd";
            run.stop_flag = &g_stop;  // (the handlers are installed since start-up)
            ibcc::ProgressBar bar(run.quiet);
            if (bar.enabled()) {
              run.progress = [&bar](double f, const std::string& what) {
                bar.update(f, what);
                if (f >= 1.0) bar.finish();  // the results table follows on stdout
              };
            }
            if (!scenario_options("ibcc run", o->cc, o->seed, o->sets, &run)) return kBadInput;
            if (o->seeds) {
              if (g_stop) return kStopped;
              const int rc = run_replicated(run, o->seeds, o->jobs, o->cc, o->sets, self_exe(argv0));
              if (rc == kOk && o->plot_after) return run_plot({run.out_dir}, {}, "");
              return rc;
            }
            // Under an MPI launcher: one simulation over its processes (rank 0 writes the
            // results; the others say nothing of their own). MPI ends with the command.
            std::unique_ptr<ibcc::net::RankExchange> ranks;
            struct MpiEnd {
              bool on = false;
              ~MpiEnd() {
                if (on) ibcc::net::RankExchange::finish();
              }
            } mpi_end;
            try {
              if (ibcc::net::RankExchange::launched()) {
                ibcc::net::RankExchange::start(nullptr, nullptr);
                mpi_end.on = true;
                ranks = std::make_unique<ibcc::net::RankExchange>();
                if (ranks->ranks() > 1) {
                  run.ranks = ranks.get();
                  if (ranks->rank() != 0) run.quiet = true;
                }
              }
            } catch (const ibcc::net::RankError& e) {
              std::cerr << "ibcc run: error: MPI: " << e.what() << "\n";
              return kFailed;
            }
            try {
              const int rc = ibcc::net::run_scenario(run);
              if (rc == kOk && o->plot_after && (!ranks || ranks->rank() == 0)) return run_plot({run.out_dir}, {}, "");
              return rc;
            } catch (const std::exception& e) {
              std::cerr << "ibcc run: error: " << e.what() << "\n";
              return kFailed;
            }
          },
          true};
}

Command add_describe(CLI::App& app) {
  struct Options {
    ibcc::net::RunOptions describe;
    std::string cc, seed, points, window, nvidia_policy_out;
    std::vector<std::string> sets;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "describe", "Print the resolved scenario (every default filled in, every override applied) without running it");
  cmd->add_option("scenario", o->describe.scenario, "Scenario file (YAML)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--set", o->sets, "Override a scenario key, KEY=VALUE (as ibcc run)");
  cmd->add_option("--cc", o->cc, "Congestion control on or off")->check(CLI::IsMember({"on", "off"}));
  cmd->add_option("--seed", o->seed, "Random seed (as ibcc run)");
  cmd->add_option("--sim-time", o->describe.sim_time, "Simulated time with a unit (as ibcc run)");
  cmd->add_option("--log-interval", o->describe.log_interval, "Log interval with a unit (as ibcc run)");
  cmd->add_option("--opensm-conf", o->describe.opensm_conf, "CC settings from an OpenSM configuration (as ibcc run)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--nvidia-policy-out", o->nvidia_policy_out,
                  "Also write the resolved cc settings as NVIDIA OpenSM's congestion-control policy file (cc.marking "
                  "nvidia, cc.reaction dcqcn)");
  cmd->add_option("--points", o->points,
                  "Check a campaign's points at once instead (what ibcc sweep does before it runs): FILE is a JSON "
                  "list, per point a list of [KEY, VALUE, ORIGIN]; prints each point's flows and metric names as JSON")
      ->check(CLI::ExistingFile);
  cmd->add_option("--window", o->window, "With --points: the metrics window FROM..TO each point's runs will use");
  cmd->add_option("--threads", o->describe.threads,
                  "With --points: the threads each point's runs will use (every point must support a parallel run "
                  "of that many groups)")
      ->check(CLI::Range(1u, 1024u));
  return {cmd, [o] {
            if (!scenario_options("ibcc describe", o->cc, o->seed, o->sets, &o->describe)) return kBadInput;
            if ((!o->window.empty() || o->describe.threads > 1) && o->points.empty()) {
              std::cerr << "ibcc describe: error: " << (o->window.empty() ? "--threads" : "--window") << " needs --points\n";
              return kBadInput;
            }
            try {
              if (!o->points.empty()) {
                std::ifstream in(o->points);
                const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
                std::cout << ibcc::net::describe_points(o->describe, text, o->window);
                return kOk;
              }
              std::string policy;
              std::cout << ibcc::net::describe_scenario(o->describe, o->nvidia_policy_out.empty() ? nullptr : &policy);
              if (!o->nvidia_policy_out.empty()) ibcc::write_file_atomic(o->nvidia_policy_out, policy);
              return kOk;  // (sc_main checks that it reached the standard output)
            } catch (const ibcc::OutputError& e) {
              std::cerr << "ibcc describe: error: " << e.what() << "\n";
              return kFailed;
            } catch (const ibcc::net::ScenarioError& e) {
              std::cerr << "ibcc describe: error: " << e.what() << "\n";
              return kBadInput;
            } catch (const std::exception& e) {
              std::cerr << "ibcc describe: error: " << e.what() << "\n";
              return kFailed;
            }
          }};
}

}  // namespace ibcc::cli
