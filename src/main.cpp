// ibcc: the command line. One binary, one subcommand per job.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>
#include <string>
#include <systemc>

#include "tb/cosim_harness.h"

namespace {

// The SystemC banner is printed before sc_main runs: silence it at static initialization.
const int kQuietSystemC = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);

std::string joined_command(int argc, char** argv) { return argc > 0 ? argv[0] : "ibcc"; }

}  // namespace

// libsystemc provides main() and calls sc_main (see ../shared/notes/TOOLCHAIN.md).
int sc_main(int argc, char** argv) {
  (void)kQuietSystemC;
  // sc_stop() ends every run; its "stopped by user" note is noise.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  CLI::App app{"ibcc: cycle-level InfiniBand congestion control models, RTL and co-simulation"};
  app.require_subcommand(0, 1);  // an unknown word is then reported as such

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
  cmd->add_option("--seed", cosim.seed, "Random seed (printed with every mismatch)")->capture_default_str();
  cmd->add_option("--waves", cosim.waves_dir,
                  "Write DIR/<block>_rtl.fst (RTL), DIR/<block>_ref.vcd (reference) and GTKWave save files");
  cmd->add_option("--coverage-json", cosim.coverage_json, "Write the functional coverage counters as JSON");
  cmd->add_option("--rtl-coverage", cosim.rtl_coverage_file,
                  "Write Verilator line/toggle coverage data (coverage build only)");
  cmd->add_flag("--require-coverage", cosim.require_coverage,
                "Fail (exit 1) if any functional coverage bin is never hit");
  cmd->add_flag("--quiet", cosim.quiet, "Print only the summary line (and missed bins)");
  bool list_tests = false;
  cmd->add_flag("--list-tests", list_tests, "List the tests of --block and exit");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  if (app.get_subcommands().empty()) {
    std::cerr << "ibcc: a subcommand is required: cosim (see ibcc --help)\n";
    return 2;
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
