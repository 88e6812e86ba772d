// `ibcc plot`: PNGs of a run or sweep directory, drawn by scripts/ibcc_plot.py.
#include <memory>

#include "cli.h"

namespace ibcc::cli {

Command add_plot(CLI::App& app) {
  struct Options {
    std::string dir, out;
    std::vector<std::string> metrics;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "plot", "Draw PNGs of a run directory (throughput, fairness, ports, CCTI) or a sweep directory (heat maps)");
  cmd->add_option("dir", o->dir, "Directory of ibcc run or ibcc sweep")->required()->check(CLI::ExistingDirectory);
  cmd->add_option("--metric", o->metrics, "Sweep metric to draw (repeatable; default: every scalar metric)");
  cmd->add_option("--out", o->out, "Where the PNGs go (default: the directory itself)");
  return {cmd, [o] { return run_plot(o->dir, o->metrics, o->out); }};
}

}  // namespace ibcc::cli
