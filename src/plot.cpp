// `ibcc plot`: PNGs of a run or sweep directory, or of runs compared, drawn by scripts/ibcc_plot.py.
#include <memory>

#include "cli.h"

namespace ibcc::cli {

Command add_plot(CLI::App& app) {
  struct Options {
    std::vector<std::string> dirs, metrics, labels;
    std::string out;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "plot", "Draw PNGs of a run directory (throughput, fairness, ports, CCTI), a sweep directory (heat maps), or "
              "compare several runs (overlaid throughput, headline metrics, compare.csv)");
  cmd->add_option("dir", o->dirs, "Directory of ibcc run or ibcc sweep; several runs are compared")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--metric", o->metrics, "Sweep metric to draw (repeatable; default: every scalar metric)");
  cmd->add_option("--label", o->labels, "Comparison: a run's label, one per run in order (default: directory names)");
  cmd->add_option("--out", o->out, "Where the PNGs go (default: the directory itself; required to compare runs)");
  return {cmd, [o] { return run_plot(o->dirs, o->metrics, o->out, o->labels); }};
}

}  // namespace ibcc::cli
