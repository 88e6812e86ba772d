// Thin SystemC module around the CCTI block core: the RTL's ports, clocked by the RTL's
// clock, the core's step() at each rising edge. Used as the co-simulation reference.
#pragma once

#include <array>
#include <string>
#include <systemc>

#include "cc/ccti_block.h"
#include "wrappers/axil_ports.h"

namespace ibcc::sc {

class CctiBlockSc : public sc_core::sc_module {
 public:
  // Flows whose CCTI the reference VCD shows (the first ones: SL-based flows are 0..15).
  static constexpr unsigned kTracedFlows = 16;

  sc_core::sc_in<bool> clk_i{"clk_i"};
  sc_core::sc_in<bool> rst_ni{"rst_ni"};
  sc_core::sc_in<bool> becn_valid_i{"becn_valid_i"};
  sc_core::sc_in<uint32_t> becn_qp_i{"becn_qp_i"};
  sc_core::sc_in<uint32_t> becn_sl_i{"becn_sl_i"};
  sc_core::sc_in<uint32_t> becn_rqpn_i{"becn_rqpn_i"};
  sc_core::sc_in<uint32_t> becn_rlid_i{"becn_rlid_i"};
  sc_core::sc_in<uint32_t> becn_llid_i{"becn_llid_i"};
  sc_core::sc_in<uint32_t> becn_st_i{"becn_st_i"};
  sc_core::sc_in<uint32_t> query_qp_i{"query_qp_i"};
  sc_core::sc_in<uint32_t> query_sl_i{"query_sl_i"};
  sc_core::sc_out<uint32_t> ird_o{"ird_o"};
  sc_core::sc_out<uint32_t> ccti_o{"ccti_o"};
  sc_core::sc_out<uint32_t> ird_next_o{"ird_next_o"};    // combinational: the query now
  sc_core::sc_out<uint32_t> ccti_next_o{"ccti_next_o"};
  sc_core::sc_out<uint32_t> timer_expired_o{"timer_expired_o"};
  sc_core::sc_out<bool> trigger_event_o{"trigger_event_o"};
  AxilSlavePorts axil;

  SC_HAS_PROCESS(CctiBlockSc);

  CctiBlockSc(sc_core::sc_module_name name, const cc::CctiBlockParams& params)
      : sc_core::sc_module(name), core_(params) {
    SC_METHOD(on_edge);
    sensitive << clk_i.pos() << rst_ni.neg();
    dont_initialize();
    // The lookahead outputs follow the query inputs and the state after each edge (one
    // delta after on_edge, so that they read the stepped core).
    SC_METHOD(on_query);
    sensitive << query_qp_i << query_sl_i << stepped_;
  }

  cc::CctiBlock& core() { return core_; }
  const cc::CctiBlock& core() const { return core_; }

  // Ports plus the core's internal state, for the reference VCD. Ports standing for RTL
  // ports narrower than 32 bits are traced at the RTL's width. Call after elaboration
  // (the ports must be bound).
  void trace(sc_core::sc_trace_file* tf) {
    tracing_ = true;
    const std::string p = std::string(name()) + ".";
    sc_core::sc_trace(tf, clk_i, p + "clk_i");
    sc_core::sc_trace(tf, rst_ni, p + "rst_ni");
    sc_core::sc_trace(tf, becn_valid_i, p + "becn_valid_i");
    sc_core::sc_trace(tf, ird_o, p + "ird_o");
    sc_core::sc_trace(tf, ird_next_o, p + "ird_next_o");
    sc_core::sc_trace(tf, trigger_event_o, p + "trigger_event_o");
    sc_core::sc_trace(tf, mirror_.sl_based, p + "sl_based_q");
    sc_core::sc_trace(tf, mirror_.timer_running, p + "timer_running_q", 16);
    sc_core::sc_trace(tf, mirror_.limit, p + "limit", 7);
    sc_core::sc_trace(tf, mirror_.timestamp, p + "timestamp", 32);
    sc_core::sc_trace(tf, mirror_.log_count, p + "log_count_q", 4);
    for (unsigned s = 0; s < cc::CctiBlock::kNumSls; ++s) {
      sc_core::sc_trace(tf, mirror_.timer_count[s], p + "timer_count_q(" + std::to_string(s) + ")", 16);
    }
    for (unsigned f = 0; f < kTracedFlows; ++f) {
      sc_core::sc_trace(tf, mirror_.ccti[f], p + "ccti_q(" + std::to_string(f) + ")", 7);
    }
    int qp_bits = 0;  // the RTL's QpWidth, $clog2(NumQps)
    while ((1u << qp_bits) < core_.params().num_qps) ++qp_bits;
    trace_port_bits(tf, becn_qp_i, p + "becn_qp_i", qp_bits);
    trace_port_bits(tf, becn_sl_i, p + "becn_sl_i", 4);
    trace_port_bits(tf, becn_rqpn_i, p + "becn_rqpn_i", 24);
    trace_port_bits(tf, becn_rlid_i, p + "becn_rlid_i", 16);
    trace_port_bits(tf, becn_llid_i, p + "becn_llid_i", 16);
    trace_port_bits(tf, becn_st_i, p + "becn_st_i", 4);
    trace_port_bits(tf, query_qp_i, p + "query_qp_i", qp_bits);
    trace_port_bits(tf, query_sl_i, p + "query_sl_i", 4);
    trace_port_bits(tf, ccti_o, p + "ccti_o", 16);
    trace_port_bits(tf, ccti_next_o, p + "ccti_next_o", 16);
    trace_port_bits(tf, timer_expired_o, p + "timer_expired_o", 16);
    trace_axil_ports(tf, axil, p);
  }

 private:
  void on_edge() {
    if (!rst_ni.read()) {
      core_.reset();
    } else {
      in_.becn_valid = becn_valid_i.read();
      in_.becn_qp = becn_qp_i.read();
      in_.becn_sl = becn_sl_i.read();
      in_.becn_rqpn = becn_rqpn_i.read();
      in_.becn_rlid = becn_rlid_i.read();
      in_.becn_llid = becn_llid_i.read();
      in_.becn_st = becn_st_i.read();
      in_.query_qp = query_qp_i.read();
      in_.query_sl = query_sl_i.read();
      in_.axi = axil.sample();
      core_.step(in_);
    }
    const cc::CctiBlockOutputs& out = core_.outputs();
    ird_o.write(out.ird);
    ccti_o.write(out.ccti);
    timer_expired_o.write(out.timer_expired);
    trigger_event_o.write(out.trigger_event);
    axil.drive(out.axi);
    stepped_.notify(sc_core::SC_ZERO_TIME);
    if (tracing_) update_mirror();
  }

  void on_query() {
    const uint32_t qp = query_qp_i.read(), sl = query_sl_i.read();
    ird_next_o.write(core_.ird_now(qp, sl));
    ccti_next_o.write(core_.ccti(core_.flow_index(qp, sl)));
  }

  void update_mirror() {
    mirror_.sl_based = core_.sl_based();
    unsigned running = 0;
    for (unsigned s = 0; s < cc::CctiBlock::kNumSls; ++s) {
      mirror_.timer_count[s] = core_.timer_count(s);
      running |= core_.timer_running(s) ? (1u << s) : 0u;
    }
    mirror_.timer_running = running;
    mirror_.limit = core_.effective_limit();
    mirror_.timestamp = core_.timestamp();
    mirror_.log_count = core_.log_count();
    for (unsigned f = 0; f < kTracedFlows && f < core_.params().num_qps; ++f) {
      mirror_.ccti[f] = core_.ccti(f);
    }
  }

  struct Mirror {
    bool sl_based = false;
    unsigned timer_running = 0, limit = 0, timestamp = 0, log_count = 0;
    std::array<unsigned, cc::CctiBlock::kNumSls> timer_count{};
    std::array<unsigned, kTracedFlows> ccti{};
  };

  cc::CctiBlock core_;
  cc::CctiBlockInputs in_;
  sc_core::sc_event stepped_;
  bool tracing_ = false;
  Mirror mirror_;
};

}  // namespace ibcc::sc
