// HCA CCTI block: per-flow CCTI, per-SL CCTI_Timer, the CCT, the injection rate delay and
// the CA CongestionLog. Cycle-exact reference of rtl/ccti_block.sv; plain C++ so the
// network model, the co-simulation and the unit tests all run this one piece of logic.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "cc/axil_slave.h"
#include "cc/cc_policies.h"
#include "cc/ccti_block_regfile.h"
#include "cc/ccti_block_regs.h"
#include "cc/event_log.h"
#include "cc/timebase.h"

namespace ibcc::cc {

struct CctiBlockParams {
  unsigned num_qps = 64;       // NumQps: CCTI entries for QP-based control (power of 2)
  unsigned cct_entries = 128;  // CctEntries: CCT depth (multiple of 64, power of 2)
  uint32_t tick_cycles = 256;  // TickCycles: core cycles per 1.024 us (250 MHz core)

  void validate() const;
};

struct CctiBlockInputs {
  // A BECN (in an ACK or a CNP) for flow (qp, sl): registered at this edge, applied at the
  // next (as if it arrived then; its flow is chosen at this edge).
  bool becn_valid = false;
  uint32_t becn_qp = 0;
  uint32_t becn_sl = 0;
  uint32_t becn_rqpn = 0;   // remote QP, for the log
  uint32_t becn_rlid = 0;   // remote LID (the BECN packet's SLID), for the log
  uint32_t becn_llid = 0;   // local LID (its DLID), for the log
  uint32_t becn_st = 0;     // service type, for the log
  uint32_t query_qp = 0;    // the flow whose IRD the send arbiter asks for: its word read at
  uint32_t query_sl = 0;    // this edge, its IRD looked up at the next

  AxiLiteIn axi;
};

struct CctiBlockOutputs {
  uint32_t ird = 0;            // IRD of the flow queried two edges back (looked up at the
                               // previous edge, from the state before it), core cycles
  uint32_t ccti = 0;           // its CCTI
  uint32_t timer_expired = 0;  // bit s: SL s timer expired at the previous edge
  bool trigger_event = false;  // a Trigger_Threshold event was logged at the previous edge
                               // (by the BECN that arrived the edge before)
  AxiLiteOut axi;
};

struct CaLogEvent {
  uint32_t local_qpn = 0;
  uint32_t remote_qpn = 0;
  uint32_t sl = 0;
  uint32_t service_type = 0;
  uint32_t llid = 0;
  uint32_t rlid = 0;
  uint32_t timestamp = 0;
};

struct CctiBlockEvents {
  bool becn = false;             // a BECN accepted
  bool becn_disabled_sl = false; // a BECN on an SL off in Control_Map, ignored
  bool becn_at_limit = false;    // CCTI clamped at CCTI_Limit
  bool timer_armed = false;      // an idle timer armed by a BECN
  bool timer_rearmed = false;    // an expiry re-armed its timer
  bool timer_stopped = false;    // an expiry let its timer go idle
  bool decremented = false;      // a CCTI decremented by an expiry
  bool held_at_min = false;      // an expiry found a CCTI at CCTI_Min
  bool expiry_with_becn = false; // an expiry and a BECN on one SL at one edge
  bool trigger = false;
  bool log_wrapped = false;
  bool log_cleared = false;
  bool log_counter_saturated = false;  // ThresholdEventCounter held at 0xffff
  bool query_first = false;      // IRD lookup of CCT entry 0
  bool query_last = false;       // of the entry at the effective CCTI_Limit
  bool query_limit_clamped = false; // CCTI_Limit beyond the table, clamped
  bool query_min_floor = false;  // the index raised to CCTI_Min
  bool write_error = false;
  bool read_error = false;
};

// A flow's CCTI after d expiries of its SL since its last BECN left it at `base`: base while
// base <= CCTI_Min, else max(CCTI_Min, base - d) (docs/cc_blocks.md, "Flows in block RAM").
inline uint32_t decayed_ccti(uint32_t base, uint64_t d, uint32_t min) {
  if (base <= min) return base;
  return d >= base - min ? min : base - static_cast<uint32_t>(d);
}

class alignas(64) CctiBlock {
 public:
  static constexpr unsigned kNumSls = 16;
  static constexpr unsigned kLogDepth = 13;

  explicit CctiBlock(const CctiBlockParams& params);

  const CctiBlockParams& params() const { return params_; }

  void reset();

  const CctiBlockOutputs& step(const CctiBlockInputs& in);
  const CctiBlockOutputs& outputs() const { return out_; }
  const CctiBlockEvents& events() const { return events_; }
  // Tests: every edge takes the full path (step() otherwise does only what a quiet edge
  // changes: tests/test_lazy_advance.cpp compares both).
  void set_full_edges(bool on) { full_edges_ = on; }

  // `cycles` edges with these inputs, no BECN and an idle bus, jumping from timer expiry to
  // timer expiry: equal to calling step() `cycles` times (tests/test_lazy_advance.cpp).
  void advance_idle(const CctiBlockInputs& in, uint64_t cycles);

  bool read_csr(uint32_t addr, uint32_t* data) const;
  bool write_csr(uint32_t addr, uint32_t wdata, uint32_t wstrb);

  // The IRD of flow (qp, sl) in the state now: what a query sampled at the next edge is
  // answered, when no BECN, expiry or CSR write comes between, cycles.
  uint32_t ird_now(uint32_t qp, uint32_t sl) const;

  bool sl_based() const { return set_.sl_based; }
  IrdFormula ird_formula() const { return set_.ird_formula; }
  unsigned flow_index(uint32_t qp, uint32_t sl) const {
    return sl_based() ? (sl & 0xfu) : (qp & (params_.num_qps - 1u));
  }
  // CCT entry k (the table holds entries in pairs, 2k+1 in the low half).
  uint32_t cct_entry(uint32_t k) const { return (k & 1u) ? cct_[k >> 1] & 0xffffu : cct_[k >> 1] >> 16; }
  // Flow f's CCTI now (its word decayed by its SL's expiries since its last BECN).
  uint32_t ccti(unsigned flow) const;
  uint32_t flow_sl(unsigned flow) const { return flows_[flow].sl; }
  bool timer_running(unsigned sl) const { return (timer_running_ >> sl) & 1u; }
  uint32_t timer_count(unsigned sl) const { return timer_count_[sl]; }
  // SL s's timer expiries since reset, and the largest height of its flows (a flow's CCTI
  // at its last BECN less the expiries since).
  uint64_t sl_expiries(unsigned sl) const { return sl_expiries_[sl]; }
  uint32_t sl_height(unsigned sl) const { return height_[sl]; }
  uint32_t effective_limit() const;
  uint32_t timestamp() const { return timebase_.timestamp(); }
  uint32_t becn_count() const { return becn_count_; }
  uint32_t timer_expiries() const { return timer_expiries_; }
  unsigned log_count() const { return log_.count(); }
  const CaLogEvent& log_event(unsigned e) const { return log_.recent(e); }

 private:
  struct Lookup {
    uint32_t ccti;
    uint32_t index;
    bool enabled;
  };
  Lookup lookup(unsigned flow, uint32_t sl) const;
  bool flow_window(uint32_t addr) const {
    return addr >= regs::ccti_block::kFlowCctiOffset &&
           addr < regs::ccti_block::kFlowCctiOffset + regs::ccti_block::kFlowCctiStride * params_.num_qps;
  }
  void clear_log();
  // Does a CCTI_Timer expire at this edge? The quiet edge (no BECN, idle bus, no expiry) and
  // what step() does there without the full edge's work.
  bool expiry_at_this_edge() const;
  const CctiBlockOutputs& quiet_step(const CctiBlockInputs& in);
  void write_cct(const regs::ccti_block::WriteDecode& wd);
  struct CsrHw;  // the read-only fields the register file reads from the datapath

  // The members are laid out by use: what every edge reads and writes first (a network
  // model advances one of these per HCA, and each cache line an edge touches is likely a
  // miss), then the per-SL state, the register file, the memories, the log and the bus.
  CctiBlockParams params_;
  // The settings every edge reads, worked out from the registers whenever they change
  // (update_settings), beside the state instead of across the register file.
  struct Settings {
    uint32_t control_map = 0;  // CA_Setting Control_Map
    uint32_t mtu_tx = 0;       // MTU_TX_CYCLES
    uint32_t limit = 0;        // effective_limit()
    bool limit_clamped = false;  // CCTI_Limit beyond the CCT (clamped to its last entry)
    bool sl_based = false;     // CA_Setting Port_Control
    IrdFormula ird_formula = IrdFormula::kOmniPath;
  } set_;
  void update_settings();
  Timebase timebase_;
  // Consecutive edges (capped at 2) with no BECN (arriving or registered), no expiry, no bus
  // activity and the same query: the registered outputs then hold, and advance_idle needs
  // no settling edges.
  unsigned quiet_edges_ = 0;
  bool full_edges_ = false;
  bool slave_idle_ = true;  // axi_.idle(), kept as the slave changes (reset, clock)
  // Registered lookup.
  bool query_enabled_ = false;
  uint16_t query_entry_ = 0;
  uint32_t query_ccti_ = 0;
  uint32_t last_query_qp_ = 0, last_query_sl_ = 0;
  // The query sampled at the last edge (its flow chosen then), answered at the next.
  unsigned query_flow_ = 0;
  uint32_t query_sl_ = 0;
  uint32_t timer_running_ = 0;
  // The BECN registered at the last edge, applied at the next (its flow chosen then).
  struct PendingBecn {
    bool valid = false;
    unsigned flow = 0;
    uint32_t qp = 0, sl = 0, rqpn = 0, rlid = 0, llid = 0, st = 0;
  } pending_;
  CctiBlockOutputs out_;
  CctiBlockEvents events_;
  std::array<uint32_t, kNumSls> timer_count_{};
  std::array<uint64_t, kNumSls> sl_expiries_{};
  std::array<uint32_t, kNumSls> height_{};
  uint32_t becn_count_ = 0;
  uint32_t timer_expiries_ = 0;

  // The CSRs: storage, decode and legality generated from rtl/regs/ccti_block.yaml,
  // decoded as rtl/ccti_block_reg_top.sv decodes them.
  regs::ccti_block::DecodeParams decode_params_;
  regs::ccti_block::RegFile regs_;

  // What a lookup reads beside the memories, in the line of their vectors: each SL's
  // CCTI_Min (CA_SL_MIN, 8 bits), kept as update_settings() keeps set_.
  alignas(64) std::array<uint8_t, kNumSls> sl_min_{};
  // The CCT is the block's memory (CCT_ENTRY_PAIR words; the decode addresses it), a RAM
  // without reset: zero when the block is made, then what software wrote.
  std::vector<uint32_t> cct_;
  // The flows: a block RAM of words in the RTL (rtl/ccti_block.sv, "Flows in block RAM").
  // The stamp is the count of the SL's expiries at the flow's last BECN. The RTL keeps 10
  // bits of it and a scrubber that keeps them from wrapping (it clamps a stamp older than
  // 128 expiries, which changes no CCTI), so the model keeps the whole count.
  struct FlowWord {
    uint32_t base = 0;   // CCTI at the last BECN
    uint32_t sl = 0;     // that BECN's SL (with SL-based control, the flow's own)
    uint64_t stamp = 0;  // sl_expiries_[sl] then
    bool written = false;
  };
  uint32_t ccti_after(const FlowWord& w, uint32_t expired) const;
  std::vector<FlowWord> flows_;
  EventLog<CaLogEvent, kLogDepth> log_;
  uint32_t event_map_ = 0;
  AxiLiteSlave axi_;
  // An idle bus (no request) on an idle slave: axi_.quiet(in), from the copy kept here.
  bool quiet_bus(const AxiLiteIn& in) const { return AxiLiteSlave::quiet(in, slave_idle_); }
};

}  // namespace ibcc::cc
