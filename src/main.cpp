// ibcc: the command line. One binary, one subcommand per job.
#include <CLI/CLI.hpp>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <csignal>
#include <optional>

#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>
#include <systemc>

#include "net/scenario/import_ibnetdiscover.h"
#include "common/heap_pages.h"
#include "common/output_files.h"
#include "common/version.h"
#include "net/scenario/import_opensm.h"
#include "run.h"
#include "net/scenario/scenario_keys.h"
#include "progress.h"
#include "sweep.h"
#include "tune.h"
#include "topo.h"
#include "list.h"
#include "tb/cosim_harness.h"


namespace {

// The SystemC banner is printed before sc_main runs: silence it at static initialization.
const int kQuietSystemC = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);

std::string joined_command(int argc, char** argv) { return argc > 0 ? argv[0] : "ibcc"; }

// One signal policy for every command. SIGINT, SIGTERM and SIGHUP (a closed terminal) are
// caught from static initialisation on, before anything is read or written: `ibcc run` then
// stops at the next event boundary and writes the results so far (result "interrupted",
// exit 130; a second signal ends at once); `ibcc sweep` and `ibcc tune` install their own
// handlers that end their runs with them; every other command gets the default action back
// (and takes a signal that came during start-up).
std::atomic<bool> g_stop{false};
std::atomic<int> g_stop_signal{0};
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};
extern "C" void on_stop_signal(int sig) {
  if (g_stop.exchange(true)) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
  g_stop_signal.store(sig);
}
// A file mapped in memory (fstapi maps its work files) that cannot be backed on a full disk
// raises SIGBUS on the write: said as a failed write (exit 1), not a crash.
extern "C" void on_bus_error(int) {
  static const char msg[] = "ibcc: error: a file mapped in memory could not be written (a full disk?): bus error\n";
  (void)!write(2, msg, sizeof msg - 1);
  _exit(1);
}
const bool kStopHandlers = [] {
  for (int sig : kStopSignals) std::signal(sig, on_stop_signal);
  std::signal(SIGBUS, on_bus_error);
  return true;
}();
// For a command that does not stop gracefully: the default action, and a signal that came
// during start-up delivered now.
void default_stop_signals() {
  for (int sig : kStopSignals) std::signal(sig, SIG_DFL);
  if (const int sig = g_stop_signal.load()) std::raise(sig);
}

// A sweep's child (IBCC_PARENT=<pid>) ends with its parent, even after kill -9 of it.
void die_with_sweep_parent() {
  const char* parent = std::getenv("IBCC_PARENT");
  if (!parent) return;
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (std::to_string(getppid()) != parent) std::raise(SIGTERM);  // it died before prctl
}

// A non-negative integer option (--seed): no sign, no wrap, the whole text.
std::optional<uint64_t> parse_unsigned(const std::string& text) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
  try {
    size_t used = 0;
    const uint64_t v = std::stoull(text, &used, 10);
    if (used != text.size()) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// `ibcc plot`: the pictures are drawn by scripts/ibcc_plot.py (matplotlib, installed by the
// set-up) with the python3 in PATH. Returns its exit code (2 when it cannot start).
int run_plot(const std::string& dir, const std::vector<std::string>& metrics, const std::string& out) {
  std::vector<std::string> args = {IBCC_SOURCE_DIR "/scripts/ibcc_plot.py", dir};
  for (const auto& m : metrics) args.insert(args.end(), {"--metric", m});
  if (!out.empty()) args.insert(args.end(), {"--out", out});
  return ibcc::run_python(args, "ibcc plot");
}

// This binary's path, for the runs a sweep or a tune starts (argv[0] if /proc is unreadable).
std::string self_exe(const char* argv0) {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(argv0) : self.string();
}

// --cc, --seed and --set as run and describe take them, into `opt`; false (message printed
// as `cmd: error: ...`) on bad input.
bool scenario_options(const char* cmd, const std::string& cc, const std::string& seed,
                      const std::vector<std::string>& sets, ibcc::net::RunOptions* opt) {
  if (!cc.empty()) opt->cc = cc == "on";
  if (!seed.empty()) {
    opt->seed = parse_unsigned(seed);
    if (!opt->seed) {
      std::cerr << cmd << ": error: --seed: expected an integer 0.." << UINT64_MAX << ", got '" << seed << "'\n";
      return false;
    }
  }
  try {
    for (const auto& kv : sets) opt->overrides.push_back(ibcc::net::parse_override(kv));
  } catch (const ibcc::net::ScenarioError& e) {
    std::cerr << cmd << ": error: " << e.what() << "\n";
    return false;
  }
  return true;
}

// Edit distance, for "did you mean" on a mistyped subcommand or option.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The closest of `names` to `word`, if it is close enough to be a typo.
std::optional<std::string> closest(const std::string& word, const std::vector<std::string>& names) {
  std::optional<std::string> best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& n : names) {
    const size_t d = edit_distance(word, n);
    if (d < best_d || (d == best_d && best && n.size() < best->size())) {
      best_d = d;
      best = n;
    }
  }
  return best;
}

// After a parse error: a word that is not a subcommand, or an option the subcommand lacks,
// and the nearest valid one.
void suggest(CLI::App& app, int argc, char** argv) {
  std::vector<std::string> subs;
  for (const CLI::App* s : app.get_subcommands([](CLI::App*) { return true; })) subs.push_back(s->get_name());
  if (argc < 2) return;
  const std::string first = argv[1];
  if (first.empty() || first[0] == '-') return;
  CLI::App* sub = nullptr;
  try {
    sub = app.get_subcommand(first);
  } catch (const CLI::OptionNotFound&) {
    if (const auto s = closest(first, subs)) std::cerr << "ibcc: '" << first << "' is not a subcommand; did you mean '" << *s << "'?\n";
    return;
  }
  std::vector<std::string> longs = {"--help"};
  for (const CLI::Option* o : sub->get_options()) {
    for (const auto& l : o->get_lnames()) longs.push_back("--" + l);
  }
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) continue;
    a = a.substr(0, a.find('='));
    if (std::find(longs.begin(), longs.end(), a) != longs.end()) continue;
    if (const auto s = closest(a, longs)) std::cerr << "ibcc " << first << ": '" << a << "' is not an option; did you mean '" << *s << "'?\n";
  }
}

// Every repeatable option takes one value per occurrence (`--set k=v SCENARIO` leaves SCENARIO
// to the positional), except those that name how many they take.
// An empty value (--seed "", --out "", --waves "") is never what was meant: an error naming
// the option, for every option of every subcommand, rather than a default silently restored.
void one_value_per_option(CLI::App& app) {
  const CLI::Validator not_empty(
      [](std::string& v) { return v.empty() ? std::string("an empty value; give one, or leave the option out") : ""; },
      "", "not empty");
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    for (CLI::Option* o : sub->get_options()) {
      if (o->get_type_size_max() >= 1) o->check(not_empty);
      if (o->get_positional() || o->get_items_expected_max() <= 1 || o->get_items_expected_min() > 1) continue;
      o->expected(1)->allow_extra_args(false)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    }
  }
}

int dispatch(int argc, char** argv);

// What a command printed must have reached the standard output: a full disk or a closed pipe
// is exit 1 with the reason, never exit 0 with a short or empty file.
int finish_standard_output(int rc, int argc, char** argv) {
  std::cout.flush();
  const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
  if (!failed) return rc;
  const int err = errno;
  const std::string sub = argc > 1 && argv[1][0] != '-' ? std::string(" ") + argv[1] : "";
  std::cerr << "ibcc" << sub << ": error: cannot write the standard output"
            << (err ? std::string(": ") + std::strerror(err) : "") << "\n";
  return rc == 0 ? 1 : rc;
}

}  // namespace

// libsystemc provides main() and calls sc_main (see ../shared/notes/TOOLCHAIN.md).
int sc_main(int argc, char** argv) { return finish_standard_output(dispatch(argc, argv), argc, argv); }

namespace {
int dispatch(int argc, char** argv) {
  (void)kQuietSystemC;
  (void)kStopHandlers;
  // Before the model allocates: 2 MiB pages for its state where the kernel allows
  // (heap_pages.h; `ibcc run` asks again after the build and reports it in summary.json).
  ibcc::advise_heap_huge_pages();
  // sc_stop() ends every run; its "stopped by user" note is noise.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  CLI::App app{"ibcc: cycle-level InfiniBand congestion control models, RTL and co-simulation"};
  app.require_subcommand(0, 1);  // an unknown word is then reported as such
  app.set_version_flag("--version", ibcc::version_string(), "Print the version and git revision, and exit");
  std::vector<std::string> command(argv, argv + argc);

  ibcc::tb::CosimOptions cosim;
  cosim.command = joined_command(argc, argv);
  CLI::App* cmd = app.add_subcommand(
      "cosim", "Co-simulate one CC block's RTL (Verilated) against its C++ reference, cycle by cycle");
  cmd->add_option("--block", cosim.block, "Block: fecn (switch-port FECN marker) or ccti (HCA CCTI block)")
      ->required()
      ->check(CLI::IsMember({"fecn", "ccti"}));
  cmd->add_option("--test", cosim.test,
                  "Directed test name, 'random' (constrained random), or 'all' (every directed test, "
                  "then random up to --cycles); --list-tests shows them")
      ->capture_default_str();
  cmd->add_option("--cycles", cosim.cycles, "Run at least this many clock cycles in total (cycles)")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 50));
  cmd->add_option("--seed", cosim.seed, "Random seed (printed with every mismatch)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& v) {
            return parse_unsigned(v) ? std::string() : "expected an integer 0..2^64-1, got '" + v + "'";
          },
          "UINT64"));
  cmd->add_option("--waves", cosim.waves_dir,
                  "Write DIR/<block>_rtl.fst (RTL), DIR/<block>_ref.vcd (reference) and GTKWave save files");
  cmd->add_option("--coverage-json", cosim.coverage_json, "Write the functional coverage counters as JSON");
  cmd->add_option("--rtl-coverage", cosim.rtl_coverage_file,
                  "Write Verilator line/toggle coverage data (coverage build only)");
  cmd->add_flag("--require-coverage", cosim.require_coverage,
                "Fail (exit 1) if any functional coverage bin is never hit");
  cmd->add_flag("--coverage", cosim.coverage, "List every functional coverage bin with its count (default: only for --test all)");
  cmd->add_flag("--quiet", cosim.quiet, "Print only the summary line (and missed bins)");
  bool list_tests = false;
  cmd->add_flag("--list-tests", list_tests, "List the tests of --block and exit");

  ibcc::net::RunOptions run;
  std::string run_cc, run_seed;
  std::vector<std::string> run_sets;
  CLI::App* run_cmd = app.add_subcommand(
      "run", "Simulate a fabric scenario (topologies/**/*.yaml) with the network model and write flows.csv, "
             "summary.json and ports.csv");
  run_cmd->add_option("scenario", run.scenario, "Scenario file (YAML)")->required()->check(CLI::ExistingFile);
  run_cmd->add_option("--out", run.out_dir, "Output directory (created)")->required();
  run_cmd->add_option("--cc", run_cc, "Congestion control on or off (default: the scenario's cc.enabled)")
      ->check(CLI::IsMember({"on", "off"}));
  run_cmd->add_option("--set", run_sets,
                      "Override a scenario key, KEY=VALUE with a dotted key (e.g. cc.switch.threshold=10); repeatable");
  run_cmd->add_option("--seed", run_seed, "Random seed (default: the scenario's sim.seed, else 1)");
  run_cmd->add_option("--sim-time", run.sim_time, "Simulated time with a unit, e.g. 5s, 2ms (default: sim.time)");
  run_cmd->add_option("--log-interval", run.log_interval,
                      "Throughput/occupancy log interval with a unit (default: sim.log_interval, else 1ms)");
  run_cmd->add_option("--window", run.window,
                      "Time window of metrics.json, FROM..TO with units, e.g. 2.5s..5s (default: the second half)");
  run_cmd->add_flag("--quiet", run.quiet, "Print nothing but errors");
  run_cmd->add_flag("--force", run.force, "--out may hold an earlier run's results: they are removed first");

  run_cmd->add_option("--rtl", run.rtl,
                      "RTL in the loop (sets cc.rtl): the Verilated FECN marker (rtl/fecn_marker.sv) on these "
                      "switch output ports (SWITCH/PORT) and the Verilated CCTI block (rtl/ccti_block.sv) in "
                      "these HCAs (NAME), comma-separated, in place of the C++ cores: Verilated for each "
                      "parameter set on first use (cached in ~/.cache/ibcc/rtl-loop), configured through the "
                      "AXI4-Lite port, clocked every cycle; with --waves, each block's FST and .gtkw too")
      ->delimiter(',');
  run_cmd->add_option("--opensm-conf", run.opensm_conf,
                      "Take the CC settings from an OpenSM configuration (cc_* options, OpenSM's semantics); "
                      "--set still overrides them")
      ->check(CLI::ExistingFile);
  CLI::Option* waves_opt = run_cmd->add_option("--waves", run.waves_dir,
                      "Write DIR/network.fst (VoQ fills, credits, congestion state, FECN marks, CCTI, IRD of the "
                      "traced ports and flows) and DIR/network.gtkw for GTKWave, opening on the first congestion "
                      "episode with a marker on the first FECN mark");
  std::string waves_format = "fst";
  run_cmd->add_option("--waves-format", waves_format, "fst (default) or vcd (network.vcd, about 40x larger)")
      ->check(CLI::IsMember({"fst", "vcd"}))
      ->needs(waves_opt);
  run_cmd->add_flag("--waves-all-signals", run.waves_all_signals,
                    "Also trace VoQs no route passes through and VLs no flow uses (constant zero)")
      ->needs(waves_opt);
  run_cmd->add_option("--trace", run.trace,
                      "What --waves records: ports=SWITCH/PORT,...,flows=FLOW,... (default: everything of a "
                      "fabric with at most 32 switch ports and 32 flows)")
      ->needs(waves_opt);
  run_cmd->add_option("--waves-window", run.waves_window,
                      "Record --waves only in FROM..TO (times with units, e.g. 2s..2.01s); default: the whole run "
                      "(a busy traced port: about 10 MB of FST per simulated second)")
      ->needs(waves_opt);
  bool run_plot_after = false;
  run_cmd->add_flag("--plot", run_plot_after, "Draw the PNGs of `ibcc plot` into --out after the run");

  std::string plot_dir, plot_out;
  std::vector<std::string> plot_metrics;
  CLI::App* plot_cmd = app.add_subcommand(
      "plot", "Draw PNGs of a run directory (throughput, fairness, ports, CCTI) or a sweep directory (heat maps)");
  plot_cmd->add_option("dir", plot_dir, "Directory of ibcc run or ibcc sweep")->required()->check(CLI::ExistingDirectory);
  plot_cmd->add_option("--metric", plot_metrics, "Sweep metric to draw (repeatable; default: every scalar metric)");
  plot_cmd->add_option("--out", plot_out, "Where the PNGs go (default: the directory itself)");

  std::string import_format, import_file, import_out, import_lfts;
  CLI::App* import_cmd = app.add_subcommand(
      "import", "Convert what users already have: `opensm FILE` (the cc_* options of opensm.conf) to a cc: section; "
                "`ibnetdiscover FILE [--lfts DUMP_LFTS]` to a complete scenario");
  import_cmd->add_option("format", import_format, "opensm or ibnetdiscover")
      ->required()
      ->check(CLI::IsMember({"opensm", "ibnetdiscover"}));
  import_cmd->add_option("file", import_file, "The file to convert")->required()->check(CLI::ExistingFile);
  import_cmd->add_option("--lfts", import_lfts, "ibnetdiscover: the switches' forwarding tables (dump_lfts output); "
                                                "without it routing is computed (up*/down*)")
      ->check(CLI::ExistingFile);
  import_cmd->add_option("--out", import_out, "Write the YAML here (default: standard output)");

  ibcc::TopoOptions topo;
  std::vector<std::string> topo_routes;
  CLI::App* topo_cmd = app.add_subcommand(
      "topo", "Validate and inspect a scenario's fabric: counts, links, routes, congestion-tree candidates; "
              "--write expands a generated topology into explicit YAML");
  topo_cmd->add_option("scenario", topo.scenario, "Scenario file (YAML)")->required()->check(CLI::ExistingFile);
  topo_cmd->add_option("--set", topo.sets, "Override a scenario key, KEY=VALUE (as ibcc run)");
  topo_cmd->add_option("--route", topo_routes, "Show the route between two HCAs: --route SRC DST (repeatable)")
      ->expected(2)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  topo_cmd->add_option("--candidates", topo.candidates, "How many congestion-tree candidates to list")
      ->capture_default_str();
  topo_cmd->add_option("--write", topo.write, "Write the scenario with its topology expanded to this YAML file");

  ibcc::net::RunOptions describe;
  std::string describe_cc;
  std::vector<std::string> describe_sets;
  CLI::App* describe_cmd = app.add_subcommand(
      "describe", "Print the resolved scenario (every default filled in, every override applied) without running it");
  describe_cmd->add_option("scenario", describe.scenario, "Scenario file (YAML)")->required()->check(CLI::ExistingFile);
  describe_cmd->add_option("--set", describe_sets, "Override a scenario key, KEY=VALUE (as ibcc run)");
  describe_cmd->add_option("--cc", describe_cc, "Congestion control on or off")->check(CLI::IsMember({"on", "off"}));
  std::string describe_seed;
  describe_cmd->add_option("--seed", describe_seed, "Random seed (as ibcc run)");
  describe_cmd->add_option("--sim-time", describe.sim_time, "Simulated time with a unit (as ibcc run)");
  describe_cmd->add_option("--log-interval", describe.log_interval, "Log interval with a unit (as ibcc run)");
  describe_cmd->add_option("--opensm-conf", describe.opensm_conf, "CC settings from an OpenSM configuration (as ibcc run)")
      ->check(CLI::ExistingFile);

  CLI::App* list_cmd = app.add_subcommand("list", "The scenarios and studies shipped under topologies/, one line each");

  std::string keys_format = "list";
  std::string keys_out;
  CLI::App* keys_cmd = app.add_subcommand(
      "keys", "Every scenario key with its type, range and default (the one key table the reader, "
              "docs/configuration.md and the JSON Schema come from)");
  auto* keys_fmt = keys_cmd->add_option_group("format", "What to print (default: one line per key)");
  keys_fmt->add_flag_callback("--markdown", [&] { keys_format = "markdown"; }, "The reference tables of docs/configuration.md");
  keys_fmt->add_flag_callback("--json-schema", [&] { keys_format = "schema"; }, "JSON Schema of a scenario file");
  keys_fmt->require_option(0, 1);
  keys_cmd->add_option("--out", keys_out, "Write to this file instead of the standard output");

  ibcc::SweepOptions sweep;
  CLI::App* sweep_cmd = app.add_subcommand(
      "sweep", "Run a scenario over the cross product of parameter values, in parallel processes, into one sweep.csv "
               "(resumes an interrupted sweep in the same --out)");
  sweep_cmd->add_option("scenario", sweep.scenario, "Scenario file (YAML)")->required()->check(CLI::ExistingFile);
  sweep_cmd->add_option("--out", sweep.out_dir, "Output directory: sweep.csv, sweep.json, points/<point>/")->required();
  sweep_cmd->add_option("--grid", sweep.grids,
                        "Swept key: KEY=V1,V2,... or KEY=FROM:TO:STEP (numbers, both ends included); repeatable, "
                        "the first varies slowest")
      ->required();
  sweep_cmd->add_option("--metric", sweep.metrics,
                        "Column of sweep.csv (repeatable; default: every scalar metric; see docs/configuration.md, "
                        "Metrics)");
  sweep_cmd->add_option("--jobs", sweep.jobs, "Parallel runs (default: one per core)")->check(CLI::Range(1u, 256u));
  sweep_cmd->add_option("--set", sweep.sets, "KEY=VALUE for every point (as ibcc run --set)");
  sweep_cmd->add_option("--window", sweep.window, "Metrics window FROM..TO with units (default: second half)");
  sweep_cmd->add_option("--sim-time", sweep.sim_time, "Simulated time of every point, with a unit");
  sweep_cmd->add_option("--cc", sweep.cc, "Congestion control on or off for every point")->check(CLI::IsMember({"on", "off"}));
  sweep_cmd->add_option("--backend", sweep.backend,
                        "Where the points run: local (processes here, --jobs at a time) or slurm (one Slurm job array "
                        "submitted with sbatch, followed with squeue; interrupted, the job is cancelled)")
      ->check(CLI::IsMember({"local", "slurm"}));
  sweep_cmd->add_option("--partition", sweep.partition, "Slurm partition (default: the cluster's default)");
  sweep_cmd->add_option("--array-max", sweep.array_max, "Slurm: at most this many points at once (default: no limit)")
      ->check(CLI::Range(1u, 100000u));
  sweep_cmd->add_flag("--quiet", sweep.quiet, "No progress bar or summary");

  ibcc::TuneOptions tune;
  CLI::App* tune_cmd = app.add_subcommand(
      "tune", "Search a CC configuration space with Optuna for the best objectives (worst case across the scenarios), "
              "each trial an ibcc run; resumable; writes the chosen configuration as a cc: section and as opensm.conf "
              "lines, a Pareto front, importances, plots and a report");
  tune_cmd->add_option("scenarios", tune.scenarios, "Scenario files (YAML): the workloads the configuration must serve")
      ->required()
      ->check(CLI::ExistingFile);
  tune_cmd->add_option("--out", tune.out_dir,
                       "Output directory: study.db, tune.csv, chosen.yaml, opensm.conf, report.txt, plots, trials/")
      ->required();
  tune_cmd->add_option("--space", tune.space,
                       "Tuned key: KEY=LO:HI with optional :int and :log, or KEY=V1,V2,... (choices); repeatable")
      ->required();
  tune_cmd->add_option("--objective", tune.objectives,
                       "Metric of metrics.json to optimise, METRIC[:max|:min] (repeatable: multi-objective; "
                       "default victim:max)");
  tune_cmd->add_option("--trials", tune.trials, "Trials the study should hold when done (default 40)")
      ->check(CLI::Range(1u, 100000u));
  tune_cmd->add_option("--jobs", tune.jobs, "Trials run at once (default 1)")->check(CLI::Range(1u, 256u));
  tune_cmd->add_option("--storage", tune.storage, "Optuna storage URL (default: sqlite:///OUT/study.db)");
  tune_cmd->add_option("--seed", tune.seed, "Seed of the sampler (default 1)")
      ->check(CLI::Range(uint64_t{0}, uint64_t{4294967295u}, "0..2^32-1 (Optuna's samplers take a 32-bit seed)"));
  tune_cmd->add_option("--set", tune.sets, "KEY=VALUE for every run (as ibcc run --set)");
  tune_cmd->add_option("--sim-time", tune.sim_time, "Simulated time of every run, with a unit");
  tune_cmd->add_option("--window", tune.window, "Metrics window FROM..TO with units (default: second half)");
  tune_cmd->add_option("--backend", tune.backend,
                       "Where the trials run: local (--jobs at a time here) or slurm (--workers tasks of one Slurm job "
                       "array sharing the study through --storage; interrupted, the job is cancelled)")
      ->check(CLI::IsMember({"local", "slurm"}));
  tune_cmd->add_option("--workers", tune.workers, "Slurm: workers (array tasks) running trials at once (default 1)")
      ->check(CLI::Range(1u, 10000u));
  tune_cmd->add_option("--partition", tune.partition, "Slurm partition (default: the cluster's default)");
  tune_cmd->add_flag("--quiet", tune.quiet, "No progress bar or report");

  one_value_per_option(app);
  // A usage error in ibcc's words, like every other error: "ibcc SUBCOMMAND: error: ...".
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    std::string who = "ibcc";
    for (const CLI::App* sub : a->get_subcommands()) who += " " + sub->get_name();
    return who + ": error: " + e.what() + "\nRun with --help for more information.\n";
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    if (rc != 0) suggest(app, argc, argv);
    return rc == 0 ? 0 : 2;
  }
  if (!app.got_subcommand(run_cmd) && !app.got_subcommand(sweep_cmd) && !app.got_subcommand(tune_cmd)) {
    default_stop_signals();
  }
  if (app.get_subcommands().empty()) {
    std::cerr << "ibcc: a subcommand is required: run, sweep, tune, plot, topo, describe, keys, list, import or cosim (see ibcc --help)\n";
    return 2;
  }
  if (app.got_subcommand(plot_cmd)) return run_plot(plot_dir, plot_metrics, plot_out);
  if (app.got_subcommand(list_cmd)) return ibcc::run_list(IBCC_SOURCE_DIR);
  if (app.got_subcommand(keys_cmd)) {
    const std::string text = keys_format == "markdown" ? ibcc::net::keys_markdown()
                             : keys_format == "schema" ? ibcc::net::keys_json_schema()
                                                       : ibcc::net::keys_listing();
    try {
      if (keys_out.empty()) {
        std::cout << text;  // (sc_main checks that it reached the standard output)
      } else {
        ibcc::write_file_atomic(keys_out, text);
      }
    } catch (const ibcc::OutputError& e) {
      std::cerr << "ibcc keys: error: " << e.what() << "\n";
      return 1;
    }
    return 0;
  }
  if (app.got_subcommand(import_cmd)) {
    try {
      std::string yaml;
      if (import_format == "opensm") {
        yaml = ibcc::net::opensm_as_yaml(ibcc::net::import_opensm_conf(import_file));
      } else {
        const auto imp = ibcc::net::import_ibnetdiscover(import_file, import_lfts);
        yaml = imp.yaml;
        std::cerr << "ibcc import: " << imp.switches << " switches, " << imp.hcas << " HCAs, " << imp.links << " links"
                  << (import_lfts.empty() ? ", routing up*/down*" : ", " + std::to_string(imp.lft_entries) + " LFT entries")
                  << "\n";
      }
      if (import_out.empty()) {
        std::cout << yaml;
      } else {
        const std::filesystem::path parent = std::filesystem::path(import_out).parent_path();
        std::error_code ec;
        if (!parent.empty()) std::filesystem::create_directories(parent, ec);
        try {
          ibcc::write_file_atomic(import_out, yaml);
        } catch (const ibcc::OutputError& e) {
          std::cerr << "ibcc import: error: " << e.what() << "\n";
          return 1;
        }
      }
      return 0;
    } catch (const std::exception& e) {
      std::cerr << "ibcc import: error: " << e.what() << "\n";
      return 2;
    }
  }
  if (app.got_subcommand(topo_cmd)) {
    if (topo_routes.size() % 2) {
      std::cerr << "ibcc topo: error: --route takes two names, SRC DST; got " << topo_routes.size() << "\n";
      return 2;
    }
    for (size_t i = 0; i + 1 < topo_routes.size(); i += 2) topo.routes.emplace_back(topo_routes[i], topo_routes[i + 1]);
    return ibcc::run_topo(topo);
  }
  if (app.got_subcommand(sweep_cmd)) {
    if (sweep.backend != "slurm" && (!sweep.partition.empty() || sweep.array_max)) {
      std::cerr << "ibcc sweep: error: --partition and --array-max need --backend slurm\n";
      return 2;
    }
    if (sweep.backend == "slurm" && sweep.jobs) {
      std::cerr << "ibcc sweep: error: --jobs is for the local backend; with --backend slurm use --array-max\n";
      return 2;
    }
    if (g_stop) return 130;  // a signal during start-up: nothing was run
    return ibcc::run_sweep(sweep, self_exe(argv[0]));
  }
  if (app.got_subcommand(tune_cmd)) {
    if (tune.backend != "slurm" && (!tune.partition.empty() || tune_cmd->count("--workers"))) {
      std::cerr << "ibcc tune: error: --workers and --partition need --backend slurm\n";
      return 2;
    }
    if (tune.backend == "slurm" && tune_cmd->count("--jobs")) {
      std::cerr << "ibcc tune: error: --jobs is for the local backend; with --backend slurm use --workers\n";
      return 2;
    }
    std::string cmdline;
    for (int i = 0; i < argc; ++i) cmdline += (i ? " " : "") + std::string(argv[i]);
    if (g_stop) return 130;  // a signal during start-up: nothing was run
    return ibcc::run_tune(tune, self_exe(argv[0]), cmdline);
  }
  if (app.got_subcommand(run_cmd)) {
    die_with_sweep_parent();
    run.command = command;
    run.waves_vcd = waves_format == "vcd";
    run.stop_flag = &g_stop;  // (the handlers are installed since start-up)
    ibcc::ProgressBar bar(run.quiet);
    if (bar.enabled()) {
      run.progress = [&bar](double f, const std::string& what) {
        bar.update(f, what);
        if (f >= 1.0) bar.finish();  // the results table follows on stdout
      };
    }
    if (!scenario_options("ibcc run", run_cc, run_seed, run_sets, &run)) return 2;
    try {
      const int rc = ibcc::net::run_scenario(run);
      if (rc == 0 && run_plot_after) return run_plot(run.out_dir, {}, "");
      return rc;
    } catch (const std::exception& e) {
      std::cerr << "ibcc run: error: " << e.what() << "\n";
      return 1;
    }
  }
  if (app.got_subcommand(describe_cmd)) {
    if (!scenario_options("ibcc describe", describe_cc, describe_seed, describe_sets, &describe)) return 2;
    try {
      std::cout << ibcc::net::describe_scenario(describe);
      return 0;  // (sc_main checks that it reached the standard output)
    } catch (const ibcc::net::ScenarioError& e) {
      std::cerr << "ibcc describe: error: " << e.what() << "\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "ibcc describe: error: " << e.what() << "\n";
      return 1;
    }
  }
  if (list_tests) {
    for (const auto& t : ibcc::tb::cosim_tests(cosim.block)) std::cout << t << "\n";
    return 0;
  }
  try {
    return ibcc::tb::run_cosim(cosim);
  } catch (const std::exception& e) {
    std::cerr << "ibcc: error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace
