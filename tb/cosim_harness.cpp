// Co-simulation harness: phases, scoreboard, mismatch report.
#include "tb/cosim_harness.h"

#include "common/wave_files.h"

#include <fmt/format.h>

#include <chrono>
#include <iostream>

namespace ibcc::tb {

CosimHarness::CosimHarness(sc_core::sc_module_name name, const CosimOptions& opts)
    : sc_core::sc_module(name), opts_(opts), rng_(opts.seed), master_(opts.seed * 7919u + 1u) {
  SC_METHOD(on_clock);
  for (const char* bin : {"axi_aw_before_w", "axi_w_before_aw", "axi_aw_with_w", "axi_b_stall",
                          "axi_r_stall", "axi_write_slverr", "axi_read_slverr",
                          "axi_partial_strobe", "axi_read_write_overlap"}) {
    coverage_.declare(bin, "AXI4-Lite handshake or response case");
  }
}

void CosimHarness::check(const char* signal, uint64_t rtl, uint64_t ref) {
  if (rtl != ref) cycle_mismatches_.push_back({signal, rtl, ref});
}

void CosimHarness::check_axil(const cc::AxiLiteOut& r) {
  const cc::AxiLiteOut& m = ref_bus_;
  check("s_axil_awready_o", r.awready, m.awready);
  check("s_axil_wready_o", r.wready, m.wready);
  check("s_axil_bvalid_o", r.bvalid, m.bvalid);
  check("s_axil_bresp_o", r.bresp, m.bresp);
  check("s_axil_arready_o", r.arready, m.arready);
  check("s_axil_rvalid_o", r.rvalid, m.rvalid);
  check("s_axil_rdata_o", r.rdata, m.rdata);
  check("s_axil_rresp_o", r.rresp, m.rresp);
}

void CosimHarness::sample_bus_coverage() {
  const AxiBusEvents& e = master_.events();
  coverage_.hit("axi_aw_before_w", e.aw_before_w);
  coverage_.hit("axi_w_before_aw", e.w_before_aw);
  coverage_.hit("axi_aw_with_w", e.aw_with_w);
  coverage_.hit("axi_b_stall", e.b_stalled);
  coverage_.hit("axi_r_stall", e.r_stalled);
  coverage_.hit("axi_write_slverr", e.write_slverr);
  coverage_.hit("axi_read_slverr", e.read_slverr);
  coverage_.hit("axi_partial_strobe", e.partial_strobe);
  coverage_.hit("axi_read_write_overlap", e.read_write_overlap);
}

void CosimHarness::report_mismatches() {
  const std::string phase = phase_ < phases_.size() ? phases_[phase_].name : "end";
  for (const auto& m : cycle_mismatches_) {
    std::cout << fmt::format(
        "MISMATCH block={} test={} phase={} cycle={} time={} signal={} rtl=0x{:x} ref=0x{:x} "
        "seed={}\n",
        opts_.block, opts_.test, phase, cycle_, sc_core::sc_time(static_cast<double>(now_ps_), sc_core::SC_PS).to_string(),
        m.signal, m.rtl, m.ref, opts_.seed);
  }
  if (!opts_.board.empty()) {  // no waves from a board: the same test on the Verilated block has them
    std::cout << fmt::format("reproduce: {} cosim --block {} --test {} --cycles {} --seed {} --board {}\n", opts_.command,
                             opts_.block, opts_.test, opts_.cycles, opts_.seed, opts_.board);
    return;
  }
  std::cout << fmt::format(
      "reproduce with waves: {} cosim --block {} --test {} --cycles {} --seed {} --waves "
      "waves_{}_{}\n",
      opts_.command, opts_.block, opts_.test, opts_.cycles, opts_.seed, opts_.block, opts_.seed);
}

void CosimHarness::next_phase() {
  ++phase_;
  phase_cycle_ = 0;
  state_ = phase_ < phases_.size() ? State::kDrain : State::kDone;
}

void CosimHarness::on_clock() {
  half_clock();
  next_trigger(half_period_);
}

void CosimHarness::half_clock() {
  now_ps_ = half_periods_++ * (kClockPeriodPs / 2);
  clk_ = !clk_;
  if (clk_) {
    reference_edge(rst_n_);
  } else {
    const bool was_out_of_reset = rst_n_;
    on_negedge();  // compare, then the next cycle's inputs
    if (was_out_of_reset && !rst_n_) reference_edge(false);  // asynchronous reset
  }
  rtl().clock(clk_, now_ps_);
}

void CosimHarness::stop() {
  stop_requested_ = true;
  if (sc_core::sc_is_running()) sc_core::sc_stop();
}

void CosimHarness::on_negedge() {
  ++cycle_;
  ref_bus_ = reference_bus();
  // Scoreboard: every output, every cycle (reset included).
  cycle_mismatches_.clear();
  compare_outputs();
  if (!cycle_mismatches_.empty()) {
    mismatches_ += cycle_mismatches_.size();
    if (!stopping_) {
      // The outputs compared now changed at the last rising edge, half a period ago.
      first_mismatch_ps_ =
          now_ps_ - kClockPeriodPs / 2;
      report_mismatches();
      stopping_ = true;
      stop_countdown_ = kCyclesAfterMismatch;
    }
  }
  if (stopping_) {
    if (stop_countdown_-- == 0) stop();
  }
  if (rst_n_) {
    sample_coverage();
    sample_bus_coverage();
  }

  // Test program.
  bool running = false;
  for (bool advanced = true; advanced;) {
    advanced = false;
    if (state_ == State::kDone) break;
    const Phase& ph = phases_[phase_];
    switch (state_) {
      case State::kDrain:
        if (!master_.idle()) break;  // let the previous phase's bus traffic finish
        if (ph.reset) {
          state_ = State::kReset;
          reset_left_ = kResetCycles;
        } else {
          for (const CsrOp& op : ph.csr) master_.push(op);
          state_ = State::kCsr;
          advanced = true;
        }
        break;
      case State::kReset:
        if (reset_left_ == 0) {
          for (const CsrOp& op : ph.csr) master_.push(op);
          state_ = State::kCsr;
          advanced = true;
        } else {
          --reset_left_;
        }
        break;
      case State::kCsr:
        if (master_.idle()) {
          state_ = State::kRun;
          advanced = true;
        }
        break;
      case State::kRun: {
        const bool more = ph.until_total ? cycle_ < opts_.cycles : phase_cycle_ < ph.cycles;
        if (more && ph.stimulus) {
          ph.stimulus(phase_cycle_++);
          running = true;
        } else if (more) {
          ++phase_cycle_;
          running = true;
        } else {
          next_phase();
          advanced = true;
        }
        break;
      }
      case State::kDone:
        break;
    }
  }
  if (state_ == State::kDone && master_.idle() && !stopping_) {
    stop();
    return;
  }
  rst_n_ = state_ != State::kReset;
  if (!running) idle_stimulus();
  master_.drive(ref_bus_, &bus_);
  if (state_ == State::kReset) bus_ = {};
  rtl().set_reset_n(rst_n_);
  drive(bus_);
}

void CosimHarness::trace_bus(sc_core::sc_trace_file* tf, const std::string& p) {
  const int kAddrBits = static_cast<int>(addr_bits());
  const cc::AxiLiteIn& i = bus_;
  const cc::AxiLiteOut& o = reference_bus();
  sc_core::sc_trace(tf, clk_, p + "clk_i");
  sc_core::sc_trace(tf, rst_n_, p + "rst_ni");
  sc_core::sc_trace(tf, i.awvalid, p + "s_axil_awvalid_i");
  sc_core::sc_trace(tf, o.awready, p + "s_axil_awready_o");
  sc_core::sc_trace(tf, i.awaddr, p + "s_axil_awaddr_i", kAddrBits);
  sc_core::sc_trace(tf, i.wvalid, p + "s_axil_wvalid_i");
  sc_core::sc_trace(tf, o.wready, p + "s_axil_wready_o");
  sc_core::sc_trace(tf, i.wdata, p + "s_axil_wdata_i", 32);
  sc_core::sc_trace(tf, i.wstrb, p + "s_axil_wstrb_i", 4);
  sc_core::sc_trace(tf, o.bvalid, p + "s_axil_bvalid_o");
  sc_core::sc_trace(tf, i.bready, p + "s_axil_bready_i");
  sc_core::sc_trace(tf, o.bresp, p + "s_axil_bresp_o", 2);
  sc_core::sc_trace(tf, i.arvalid, p + "s_axil_arvalid_i");
  sc_core::sc_trace(tf, o.arready, p + "s_axil_arready_o");
  sc_core::sc_trace(tf, i.araddr, p + "s_axil_araddr_i", kAddrBits);
  sc_core::sc_trace(tf, o.rvalid, p + "s_axil_rvalid_o");
  sc_core::sc_trace(tf, i.rready, p + "s_axil_rready_i");
  sc_core::sc_trace(tf, o.rdata, p + "s_axil_rdata_o", 32);
  sc_core::sc_trace(tf, o.rresp, p + "s_axil_rresp_o", 2);
}

void CosimHarness::open_waves(const std::string& dir) {
  make_wave_dir(dir);
  const std::string base = dir + "/" + opts_.block;
  rtl().open_trace(base + "_rtl.fst", half_periods_ ? (half_periods_ - 1) * (kClockPeriodPs / 2) : 0);
  ref_vcd_ = sc_core::sc_create_vcd_trace_file((base + "_ref").c_str());
  ref_vcd_->set_time_unit(1, sc_core::SC_PS);
  const std::string prefix = std::string(name()) + ".ref.";
  trace_bus(ref_vcd_, prefix);
  trace_reference(ref_vcd_, prefix);
}

void CosimHarness::close_waves() {
  rtl().close_trace();
  if (ref_vcd_) sc_core::sc_close_vcd_trace_file(ref_vcd_);
  ref_vcd_ = nullptr;
  // Their writers report no write errors: read back (a full disk is an error, not exit 0).
  const std::string base = opts_.waves_dir + "/" + opts_.block;
  check_fst_file(base + "_rtl.fst", half_periods_ ? (half_periods_ - 1) * (kClockPeriodPs / 2) : 0);
  check_vcd_file(base + "_ref.vcd");
  write_block_gtkw(opts_.waves_dir, opts_.block, wave_groups(true), wave_groups(false),
                   {first_mismatch_ps_ ? first_mismatch_ps_ : first_event_ps_, kClockPeriodPs});
}

CosimSummary CosimHarness::run() {
  CosimSummary s;
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  if (!opts_.waves_dir.empty()) open_waves(opts_.waves_dir);
  const auto t0 = std::chrono::steady_clock::now();
  if (ref_vcd_) {
    sc_core::sc_start();  // SystemC moves the time, so the reference's VCD samples each level
  } else {
    while (!stop_requested_) half_clock();  // nothing samples the time: a plain loop
  }
  const auto t1 = std::chrono::steady_clock::now();
  if (!opts_.waves_dir.empty()) close_waves();
  s.wall_s = std::chrono::duration<double>(t1 - t0).count();
  s.cycles = cycle_;
  s.mismatches = mismatches_;
  s.missed_bins = coverage_.missed();
  s.completed = state_ == State::kDone;
  return s;
}

}  // namespace ibcc::tb
