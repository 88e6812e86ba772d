// Co-simulation harness shared by the block testbenches: clock and reset, the test program
// (phases of register accesses and datapath stimulus), the AXI master, the cycle-by-cycle
// scoreboard with its mismatch report, and functional coverage.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <systemc>
#include <vector>

#include "tb/axil_master.h"
#include "tb/coverage.h"
#include "tb/fast_rng.h"
#include "tb/rtl_models.h"
#include "tb/waves.h"

namespace ibcc::tb {

struct CosimOptions {
  std::string block;               // fecn | ccti
  std::string test = "all";        // a directed test, "random", or "all"
  uint64_t cycles = 100000;        // at least this many cycles in total
  uint64_t seed = 1;
  std::string waves_dir;           // empty: no waves
  std::string coverage_json;       // empty: not written
  std::string rtl_coverage_file;   // Verilator coverage data (coverage build only)
  bool require_coverage = false;   // fail if a functional coverage bin is never hit
  bool coverage = false;           // list every bin (default: only for --test all)
  bool quiet = false;
  std::string command = "build/bin/ibcc";  // how this binary was invoked, for repro lines
  std::string board;               // empty: the Verilated block; "verilated" or a serial device: the board top
  unsigned baud = 1000000;         // the board's UART (a serial device)
};

struct CosimSummary {
  uint64_t cycles = 0;
  uint64_t mismatches = 0;
  double wall_s = 0;
  std::vector<std::string> missed_bins;
  bool completed = false;
};

// One step of a test program: optional reset, register accesses (waited for), then
// `cycles` cycles of datapath stimulus from `stimulus(i)`.
struct Phase {
  std::string name;
  bool reset = false;
  std::vector<CsrOp> csr;
  uint64_t cycles = 0;
  bool until_total = false;  // run until the whole run reaches CosimOptions::cycles
  std::function<void(uint64_t i)> stimulus;
};

class CosimHarness : public sc_core::sc_module {
 public:
  static constexpr unsigned kClockPeriodPs = 4000;  // 250 MHz core clock
  static constexpr unsigned kResetCycles = 3;
  static constexpr unsigned kCyclesAfterMismatch = 12;  // so the waves show the aftermath

  CosimHarness(sc_core::sc_module_name name, const CosimOptions& opts);

  // After construction: build the program, then run.
  void set_program(std::vector<Phase> phases) { phases_ = std::move(phases); }
  CosimSummary run();

  uint64_t cycle() const { return cycle_; }
  FastRng& rng() { return rng_; }
  AxiLiteMaster& master() { return master_; }
  Coverage& coverage() { return coverage_; }
  const CosimOptions& options() const { return opts_; }

  // The RTL and the reference are joined by plain values, not SystemC signals: one function
  // per clock level (half_clock) moves the clock, drives both sides' inputs and compares
  // their outputs (a signal per port cost a kernel update and a process wake-up per change,
  // more than both models together). With --waves a SystemC process calls it at each level,
  // so SystemC's time and VCD writer sample the reference; without, a plain loop does.
  // At the falling edge: compare the outputs of the last rising edge, sample coverage, run
  // the test program, drive the next edge's inputs. At the rising edge: both models step.
 protected:
  // Block hooks.
  virtual void compare_outputs() = 0;     // call check() for every output
  virtual void sample_coverage() = 0;     // after compare, every cycle out of reset
  virtual void idle_stimulus() = 0;       // datapath quiet (during reset and CSR phases)
  // The datapath stimulus and the bus inputs `bus` to the RTL and to the reference's inputs
  // of the next edge.
  virtual void drive(const cc::AxiLiteIn& bus) = 0;
  // The reference at a rising edge, or at the falling edge of its asynchronous reset: reset
  // (rst_n low) or one step on the inputs driven.
  virtual void reference_edge(bool rst_n) = 0;
  virtual const cc::AxiLiteOut& reference_bus() const = 0;
  virtual RtlModel& rtl() = 0;
  // The reference's signals and state, named PREFIX<rtl name> (the clock, reset and bus are
  // the harness's).
  virtual void trace_reference(sc_core::sc_trace_file* vcd, const std::string& prefix) = 0;
  virtual std::vector<WaveGroup> wave_groups(bool rtl) const = 0;  // for the save files
  virtual unsigned addr_bits() const = 0;  // the CSR address's (its register map's addr_width)

  void check(const char* signal, uint64_t rtl, uint64_t ref);
  // The block's outputs compared now show its event (a FECN mark, a CCTI raised): the save
  // files open on the first one when no mismatch came.
  void note_event() {
    if (first_event_ps_ == 0) first_event_ps_ = now_ps_ - kClockPeriodPs / 2;
  }
  // DIR/<block>_rtl.fst and DIR/<block>_ref.vcd while running; the save files at the end.
  void open_waves(const std::string& dir);
  void close_waves();
  void check_axil(const cc::AxiLiteOut& rtl);
  void sample_bus_coverage();
  const char* block_name() const { return opts_.block.c_str(); }

 private:
  SC_HAS_PROCESS(CosimHarness);
  void on_clock();
  void half_clock();  // one clock level: the falling or the rising edge's work
  void on_negedge();
  void stop();
  void trace_bus(sc_core::sc_trace_file* vcd, const std::string& prefix);
  void next_phase();
  void report_mismatches();

  enum class State { kDrain, kReset, kCsr, kRun, kDone };

  CosimOptions opts_;
  FastRng rng_;
  AxiLiteMaster master_;
  Coverage coverage_;
  std::vector<Phase> phases_;
  size_t phase_ = 0;
  State state_ = State::kDrain;
  uint64_t phase_cycle_ = 0;
  unsigned reset_left_ = 0;
  uint64_t cycle_ = 0;
  bool clk_ = false;
  bool rst_n_ = false;
  uint64_t half_periods_ = 0;  // clock levels so far; the next is at this many half periods
  uint64_t now_ps_ = 0;        // the time of the current clock level
  const sc_core::sc_time half_period_{kClockPeriodPs / 2, sc_core::SC_PS};
  cc::AxiLiteIn bus_;       // the bus inputs driven to both sides
  cc::AxiLiteOut ref_bus_;  // the reference's bus outputs this cycle

  struct Mismatch {
    std::string signal;
    uint64_t rtl, ref;
  };
  std::vector<Mismatch> cycle_mismatches_;
  uint64_t mismatches_ = 0;
  uint64_t first_mismatch_ps_ = 0;  // marker of the GTKWave save files (0: none)
  uint64_t first_event_ps_ = 0;     // the block's first event (a FECN mark, a CCTI raised): the marker without a mismatch
  sc_core::sc_trace_file* ref_vcd_ = nullptr;
  unsigned stop_countdown_ = 0;
  bool stopping_ = false;
  bool stop_requested_ = false;
};

// Entry point of `ibcc cosim`: elaborate the block's testbench, run, report. Returns the
// process exit code (0 pass, 1 mismatch or missed coverage, 2 bad arguments).
int run_cosim(const CosimOptions& opts);
std::vector<std::string> cosim_tests(const std::string& block);

}  // namespace ibcc::tb
