// `ibcc cosim`: one CC block's RTL (Verilated) against its C++ reference, cycle by cycle.
#include <iostream>
#include <memory>

#include "cli.h"
#include "tb/cosim_harness.h"

namespace ibcc::cli {

Command add_cosim(CLI::App& app, const Invocation& inv) {
  struct Options {
    ibcc::tb::CosimOptions cosim;
    bool list_tests = false;
  };
  auto o = std::make_shared<Options>();
  o->cosim.command = inv.argc > 0 ? inv.argv[0] : "ibcc";
  CLI::App* cmd = app.add_subcommand(
      "cosim", "Co-simulate one CC block's RTL (Verilated) against its C++ reference, cycle by cycle");
  cmd->add_option("--block", o->cosim.block, "Block: fecn (switch-port FECN marker) or ccti (HCA CCTI block)")
      ->required()
      ->check(CLI::IsMember({"fecn", "ccti"}));
  cmd->add_option("--test", o->cosim.test,
                  "Directed test name, 'random' (constrained random), or 'all' (every directed test, "
                  "then random up to --cycles); --list-tests shows them")
      ->capture_default_str();
  cmd->add_option("--cycles", o->cosim.cycles, "Run at least this many clock cycles in total (cycles)")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 50));
  cmd->add_option("--seed", o->cosim.seed, "Random seed (printed with every mismatch)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& v) {
            return parse_unsigned(v) ? std::string() : "expected an integer 0..2^64-1, got '" + v + "'";
          },
          "UINT64"));
  cmd->add_option("--waves", o->cosim.waves_dir,
                  "Write DIR/<block>_rtl.fst (RTL), DIR/<block>_ref.vcd (reference) and GTKWave save files");
  cmd->add_option("--coverage-json", o->cosim.coverage_json, "Write the functional coverage counters as JSON");
  cmd->add_option("--rtl-coverage", o->cosim.rtl_coverage_file,
                  "Write Verilator line/toggle coverage data (coverage build only)");
  cmd->add_flag("--require-coverage", o->cosim.require_coverage,
                "Fail (exit 1) if any functional coverage bin is never hit");
  cmd->add_flag("--coverage", o->cosim.coverage, "List every functional coverage bin with its count (default: only for --test all)");
  cmd->add_option("--board", o->cosim.board,
                  "Run the block on the board top (rtl/board/ibcc_board_top.sv) over its UART instead of the "
                  "Verilated block: a serial device (e.g. /dev/ttyUSB1), or 'verilated' for the board top "
                  "Verilated with a UART model");
  cmd->add_option("--baud", o->cosim.baud, "The board's UART rate with --board DEVICE (baud; the bitstream's is 1000000)")
      ->capture_default_str()
      ->check(CLI::IsMember({115200u, 230400u, 460800u, 921600u, 1000000u, 2000000u, 3000000u}));
  cmd->add_flag("--quiet", o->cosim.quiet, "Print only the summary line (and missed bins)");
  cmd->add_flag("--list-tests", o->list_tests, "List the tests of --block and exit");
  return {cmd, [o] {
            if (o->list_tests) {
              for (const auto& t : ibcc::tb::cosim_tests(o->cosim.block)) std::cout << t << "\n";
              return kOk;
            }
            try {
              return ibcc::tb::run_cosim(o->cosim);
            } catch (const std::exception& e) {
              std::cerr << "ibcc: error: " << e.what() << "\n";
              return kFailed;
            }
          }};
}

}  // namespace ibcc::cli
