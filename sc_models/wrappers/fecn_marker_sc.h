// Thin SystemC module around the FECN marker core: the RTL's ports, clocked by the RTL's
// clock, the core's step() at each rising edge. Used as the co-simulation reference.
#pragma once

#include <array>
#include <string>
#include <systemc>

#include "cc/fecn_marker.h"
#include "wrappers/axil_ports.h"
#include "wrappers/vl_types.h"

namespace ibcc::sc {

template <unsigned kNumInputs, unsigned kNumVls, unsigned kFillWidth>
class FecnMarkerSc : public sc_core::sc_module {
 public:
  static constexpr unsigned kFillBits = kNumInputs * kNumVls * kFillWidth;
  static constexpr unsigned kCreditBits = kNumVls * kFillWidth;
  using FillVec = VlPort<kFillBits>;
  using CreditVec = VlPort<kCreditBits>;

  sc_core::sc_in<bool> clk_i{"clk_i"};
  sc_core::sc_in<bool> rst_ni{"rst_ni"};
  sc_core::sc_in<FillVec> voq_fill_i{"voq_fill_i"};
  sc_core::sc_in<CreditVec> credits_i{"credits_i"};
  sc_core::sc_in<bool> pkt_valid_i{"pkt_valid_i"};
  sc_core::sc_in<uint32_t> pkt_vl_i{"pkt_vl_i"};
  sc_core::sc_in<uint32_t> pkt_sl_i{"pkt_sl_i"};
  sc_core::sc_in<uint32_t> pkt_slid_i{"pkt_slid_i"};
  sc_core::sc_in<uint32_t> pkt_dlid_i{"pkt_dlid_i"};
  sc_core::sc_in<uint32_t> pkt_len_i{"pkt_len_i"};
  sc_core::sc_out<uint32_t> cong_state_o{"cong_state_o"};
  sc_core::sc_out<bool> fecn_valid_o{"fecn_valid_o"};
  sc_core::sc_out<bool> fecn_mark_o{"fecn_mark_o"};
  AxilSlavePorts axil;

  SC_HAS_PROCESS(FecnMarkerSc);

  FecnMarkerSc(sc_core::sc_module_name name, const cc::FecnMarkerParams& params)
      : sc_core::sc_module(name), core_(params), in_(params) {
    SC_METHOD(on_edge);
    sensitive << clk_i.pos() << rst_ni.neg();
    dont_initialize();
  }

  cc::FecnMarker& core() { return core_; }
  const cc::FecnMarker& core() const { return core_; }

  // Ports plus the core's internal state, for the reference VCD. Ports standing for RTL
  // ports narrower than the SystemC type are traced at the RTL's width. Call after elaboration
  // (the ports must be bound).
  void trace(sc_core::sc_trace_file* tf) {
    tracing_ = true;
    const std::string p = std::string(name()) + ".";
    sc_core::sc_trace(tf, clk_i, p + "clk_i");
    sc_core::sc_trace(tf, rst_ni, p + "rst_ni");
    sc_core::sc_trace(tf, voq_fill_i, p + "voq_fill_i");
    sc_core::sc_trace(tf, pkt_valid_i, p + "pkt_valid_i");
    sc_core::sc_trace(tf, fecn_valid_o, p + "fecn_valid_o");
    sc_core::sc_trace(tf, fecn_mark_o, p + "fecn_mark_o");
    // The fills and credits the core took at the last edge (the RTL's voq_fill_q/credits_q),
    // one signal per input and VL, named as the RTL's g_fill_in[p].g_vl[v].fill.
    for (unsigned i = 0; i < kNumInputs; ++i) {
      for (unsigned v = 0; v < kNumVls; ++v) {
        sc_core::sc_trace(tf, in_.voq_fill[i * kNumVls + v],
                          p + "g_fill_in(" + std::to_string(i) + ").g_vl(" + std::to_string(v) + ").fill", kFillWidth);
      }
    }
    for (unsigned v = 0; v < kNumVls; ++v) {
      sc_core::sc_trace(tf, in_.credits[v], p + "g_credits(" + std::to_string(v) + ").credits", kFillWidth);
    }
    // The block's state at the widths of the RTL's registers, for side-by-side reading.
    sc_core::sc_trace(tf, mirror_.threshold, p + "threshold", 4);
    sc_core::sc_trace(tf, mirror_.packet_size, p + "packet_size", 8);
    sc_core::sc_trace(tf, mirror_.marking_rate, p + "marking_rate", 16);
    sc_core::sc_trace(tf, mirror_.mapping, p + "mapping_q", 2);
    sc_core::sc_trace(tf, mirror_.marking_mode, p + "marking_mode_q", 1);
    sc_core::sc_trace(tf, mirror_.hysteresis, p + "hysteresis_q", 4);
    sc_core::sc_trace(tf, mirror_.capacity, p + "capacity_q", static_cast<int>(core_.params().fill_width));
    sc_core::sc_trace(tf, mirror_.victim_mask, p + "victim_mask_q");
    sc_core::sc_trace(tf, mirror_.lfsr, p + "lfsr_q", 16);
    sc_core::sc_trace(tf, mirror_.timestamp, p + "timestamp", 32);
    sc_core::sc_trace(tf, mirror_.log_count, p + "log_count_q", 4);
    sc_core::sc_trace(tf, mirror_.pkts_marked, p + "pkts_marked_q", 32);
    for (unsigned v = 0; v < kNumVls; ++v) {
      sc_core::sc_trace(tf, mirror_.skip[v], p + "skip_q(" + std::to_string(v) + ")", 17);
    }
    sc_core::sc_trace(tf, credits_i->read(), p + "credits_i", static_cast<int>(kCreditBits));
    trace_port_bits(tf, pkt_vl_i, p + "pkt_vl_i", 4);
    trace_port_bits(tf, pkt_sl_i, p + "pkt_sl_i", 4);
    trace_port_bits(tf, pkt_slid_i, p + "pkt_slid_i", 16);
    trace_port_bits(tf, pkt_dlid_i, p + "pkt_dlid_i", 16);
    trace_port_bits(tf, pkt_len_i, p + "pkt_len_i", 8);
    trace_port_bits(tf, cong_state_o, p + "cong_state_o", static_cast<int>(kNumVls));
    trace_axil_ports(tf, axil, p);
  }

 private:
  void on_edge() {
    if (!rst_ni.read()) {
      core_.reset();
    } else {
      fill_unpacker_.update(voq_fill_i.read(), kFillWidth, in_.voq_fill);
      unpack_fields(credits_i.read(), kFillWidth, in_.credits);
      in_.pkt_valid = pkt_valid_i.read();
      in_.pkt_vl = pkt_vl_i.read();
      in_.pkt_sl = pkt_sl_i.read();
      in_.pkt_slid = pkt_slid_i.read();
      in_.pkt_dlid = pkt_dlid_i.read();
      in_.pkt_len = pkt_len_i.read();
      in_.axi = axil.sample();
      core_.step(in_);
    }
    const cc::FecnMarkerOutputs& out = core_.outputs();
    cong_state_o.write(out.cong_state);
    fecn_valid_o.write(out.fecn_valid);
    fecn_mark_o.write(out.fecn_mark);
    axil.drive(out.axi);
    if (tracing_) update_mirror();
  }

  void update_mirror() {
    mirror_.threshold = core_.threshold();
    mirror_.packet_size = core_.packet_size();
    mirror_.marking_rate = core_.marking_rate();
    mirror_.mapping = static_cast<unsigned>(core_.mapping());
    mirror_.marking_mode = static_cast<unsigned>(core_.marking_mode());
    mirror_.hysteresis = core_.hysteresis();
    mirror_.capacity = core_.buffer_capacity();
    mirror_.victim_mask = core_.victim_mask();
    mirror_.lfsr = core_.lfsr();
    mirror_.timestamp = core_.timestamp();
    mirror_.log_count = core_.log_count();
    mirror_.pkts_marked = core_.pkts_marked();
    for (unsigned v = 0; v < kNumVls; ++v) mirror_.skip[v] = core_.skip_count(v);
  }

  struct Mirror {
    unsigned threshold = 0, packet_size = 0, marking_rate = 0, mapping = 0, marking_mode = 0;
    unsigned hysteresis = 0, capacity = 0, lfsr = 0, timestamp = 0, log_count = 0;
    unsigned pkts_marked = 0;
    bool victim_mask = false;
    std::array<unsigned, kNumVls> skip{};
  };

  cc::FecnMarker core_;
  cc::FecnMarkerInputs in_;
  IncrementalUnpacker<kFillBits> fill_unpacker_;
  bool tracing_ = false;
  Mirror mirror_;
};

}  // namespace ibcc::sc
