// `ibcc cosim`: elaborate one block's co-simulation, run it, print the summary.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>

#include "common/output_files.h"
#include "tb/board_link.h"
#include "tb/ccti_cosim.h"
#include "tb/cosim_harness.h"
#include "tb/fecn_cosim.h"

namespace ibcc::tb {

std::vector<std::string> cosim_tests(const std::string& block) {
  if (block == "fecn") return fecn_tests();
  if (block == "ccti") return ccti_tests();
  return {};
}

int run_cosim(const CosimOptions& opts) {
  const auto tests = cosim_tests(opts.block);
  if (tests.empty()) {
    std::cerr << "ibcc cosim: --block must be fecn or ccti, got '" << opts.block << "'\n";
    return 2;
  }
  if (std::find(tests.begin(), tests.end(), opts.test) == tests.end()) {
    std::cerr << fmt::format("ibcc cosim: --test '{}' is not a test of block {}; tests: {}\n", opts.test,
                             opts.block, fmt::join(tests, ", "));
    return 2;
  }
  if (!opts.board.empty() && (!opts.waves_dir.empty() || !opts.rtl_coverage_file.empty())) {
    std::cerr << "ibcc cosim: --board runs the blocks on the board top: --waves and --rtl-coverage need the Verilated "
                 "block (run without --board)\n";
    return 2;
  }
  std::unique_ptr<CosimHarness> tb;
  try {  // (opens and identifies the board: one that cannot be used as given is bad input)
    tb = opts.block == "fecn" ? make_fecn_cosim(opts) : make_ccti_cosim(opts);
  } catch (const BoardError& e) {
    std::cerr << "ibcc cosim: --board " << opts.board << ": " << e.what() << "\n";
    return 2;
  }
  CosimSummary s;
  try {
    s = tb->run();
  } catch (const BoardError& e) {
    std::cerr << "ibcc cosim: board: " << e.what() << "\n";
    std::cout << "RESULT: FAIL (board)\n";
    return 1;
  }

  std::cout << fmt::format(
      "cosim block={} rtl={}{} test={} seed={}: {} cycles, {} mismatches, {:.2f} s, {:.3f} M cycles/s\n",
      opts.block, opts.board.empty() ? rtl_variant() : "board", opts.board.empty() ? std::string() : " (" + opts.board + ")", opts.test, opts.seed, s.cycles, s.mismatches, s.wall_s,
      s.wall_s > 0 ? s.cycles / s.wall_s / 1e6 : 0.0);
  // The bin list is for a regression (--test all) or when asked; one directed test covers only
  // its feature, so its misses are expected and not listed.
  const bool list_bins = (!opts.quiet && (opts.coverage || opts.test == "all")) ||
                         (opts.require_coverage && !s.missed_bins.empty());
  if (list_bins) {
    tb->coverage().report(std::cout);
  } else if (!opts.quiet) {
    std::cout << fmt::format("functional coverage: {} bins hit by this test alone ({} not; --coverage lists them)\n",
                             tb->coverage().size() - s.missed_bins.size(), s.missed_bins.size());
  }
  if (!opts.coverage_json.empty()) {
    write_file_atomic(opts.coverage_json, tb->coverage().json() + "\n");
  }
  if (!opts.rtl_coverage_file.empty()) {
    if (!rtl_coverage_enabled()) {
      std::cerr << "ibcc cosim: --rtl-coverage needs the coverage build (target rtl_coverage)\n";
      return 2;
    }
    rtl_write_coverage(opts.rtl_coverage_file);
  }
  if (!opts.waves_dir.empty()) {
    std::cout << fmt::format("waves: {}/{}_rtl.fst (+ {}_rtl.gtkw), {}/{}_ref.vcd (+ {}_ref.gtkw)\n",
                             opts.waves_dir, opts.block, opts.block, opts.waves_dir, opts.block, opts.block);
  }
  if (s.mismatches != 0) {
    std::cout << "RESULT: FAIL (mismatch)\n";
    return 1;
  }
  if (!s.completed) {
    std::cout << "RESULT: FAIL (the test program did not complete)\n";
    return 1;
  }
  if (opts.require_coverage && !s.missed_bins.empty()) {
    std::cout << fmt::format("RESULT: FAIL (coverage bins never hit: {})\n", fmt::join(s.missed_bins, ", "));
    return 1;
  }
  std::cout << "RESULT: PASS\n";
  return 0;
}

}  // namespace ibcc::tb
