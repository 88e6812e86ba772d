// CCTI block co-simulation: Verilated RTL beside the C++ reference, directed tests for each
// rule and constrained-random stimulus, functional coverage of every rule.
#include "tb/ccti_cosim.h"

#include <algorithm>
#include <array>

#include "cc/ccti_block_regs.h"
#include "tb/board_link.h"
#include "tb/waves.h"

namespace ibcc::tb {

namespace r = ibcc::regs::ccti_block;
// The last word of the CSR address space.
constexpr uint32_t kLastAddr = (1u << r::kAddrWidth) - 4;

namespace {

CsrOp wr(uint32_t addr, uint32_t data, uint32_t strb = 0xf) { return {true, addr, data, strb}; }
CsrOp rd(uint32_t addr) { return {false, addr, 0, 0}; }

uint32_t sl_timer(uint32_t timer, uint32_t increase, uint32_t trigger) {
  return r::kCaSlTimerCctiTimer.put(timer) | r::kCaSlTimerCctiIncrease.put(increase) |
         r::kCaSlTimerTriggerThreshold.put(trigger);
}
uint32_t sl_addr(uint32_t base, unsigned sl) { return base + sl * r::kCaSlTimerStride; }
uint32_t ca_setting(bool sl_based, uint32_t control_map) {
  return r::kCaSettingPortControl.put(sl_based ? 1u : 0u) | r::kCaSettingControlMap.put(control_map);
}
uint32_t cct_limit(uint32_t limit) { return r::kCctLimitCctiLimit.put(limit); }
uint16_t cct_entry(uint32_t shift, uint32_t multiplier) { return static_cast<uint16_t>((shift << 14) | (multiplier & 0x3fff)); }

// A whole CCT: entry i = f(i), written pairwise.
template <typename F>
std::vector<CsrOp> write_cct(F entry_of) {
  std::vector<CsrOp> ops;
  for (uint32_t k = 0; k < kCctiEntries / 2; ++k) {
    ops.push_back(wr(r::kCctEntryPairOffset + 4 * k,
                     (uint32_t{entry_of(2 * k)} << 16) | entry_of(2 * k + 1)));
  }
  return ops;
}

std::vector<CsrOp> read_everything() {
  std::vector<CsrOp> ops;
  for (uint32_t a = 0; a < (1u << r::kAddrWidth); a += 4) ops.push_back(rd(a));
  ops.push_back(rd(0x501));
  return ops;
}

std::vector<CsrOp> read_log() {
  std::vector<CsrOp> ops{rd(r::kLogHeaderOffset), rd(r::kLogEventMapOffset), rd(r::kLogTimestampOffset)};
  for (uint32_t e = 0; e < r::kLogEventLqpnCount; ++e) {
    for (uint32_t base : {r::kLogEventLqpnOffset, r::kLogEventRqpnOffset, r::kLogEventLidsOffset,
                          r::kLogEventTimestampOffset}) {
      ops.push_back(rd(base + e * r::kLogEventLqpnStride));
    }
  }
  return ops;
}

// Every SL: the same timer, increase, trigger and min.
std::vector<CsrOp> all_sls(uint32_t timer, uint32_t increase, uint32_t trigger, uint32_t min) {
  std::vector<CsrOp> ops;
  for (unsigned s = 0; s < cc::CctiBlock::kNumSls; ++s) {
    ops.push_back(wr(sl_addr(r::kCaSlTimerOffset, s), sl_timer(timer, increase, trigger)));
    ops.push_back(wr(sl_addr(r::kCaSlMinOffset, s), r::kCaSlMinCctiMin.put(min)));
  }
  return ops;
}

std::vector<CsrOp> concat(std::vector<CsrOp> a, const std::vector<CsrOp>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

class CctiCosim : public CosimHarness {
 public:
  static constexpr unsigned kTracedFlows = 16;  // per-flow CCTIs in the reference's VCD

  CctiCosim(sc_core::sc_module_name name, const CosimOptions& opts)
      : CosimHarness(name, opts), core_(params()), rtl_(opts.board.empty() ? make_ccti_rtl("ccti_tb.rtl")
                                      : make_board_ccti_rtl(open_board(opts.board, opts.baud))) {
    declare_coverage();
  }

  static cc::CctiBlockParams params() {
    cc::CctiBlockParams p;
    p.num_qps = kCctiQps;
    p.cct_entries = kCctiEntries;
    p.tick_cycles = kTickCycles;
    return p;
  }

  std::vector<Phase> program(const std::string& test);

 protected:
  void compare_outputs() override {
    const cc::CctiBlockOutputs& ref = core_.outputs();
    rtl_->outputs(&rtl_out_);
    check("ird_o", rtl_out_.ird, ref.ird);
    check("ccti_o", rtl_out_.ccti, ref.ccti);
    check("timer_expired_o", rtl_out_.timer_expired, ref.timer_expired);
    check("trigger_event_o", rtl_out_.trigger_event, ref.trigger_event);
    check_axil(rtl_out_.axi);
    if (ref.ccti != 0 || ref.trigger_event) note_event();
  }

  void idle_stimulus() override { stim_.becn_valid = false; }

  void drive(const cc::AxiLiteIn& bus) override {
    next_ = stim_;
    next_.axi = bus;
    rtl_->drive(next_);
  }

  void reference_edge(bool rst_n) override {
    if (rst_n) core_.step(next_);
    else core_.reset();
    if (mirror_) update_mirror();
  }
  const cc::AxiLiteOut& reference_bus() const override { return core_.outputs().axi; }

  RtlModel& rtl() override { return *rtl_; }
  void trace_reference(sc_core::sc_trace_file* vcd, const std::string& prefix) override;
  std::vector<WaveGroup> wave_groups(bool rtl) const override { return ccti_groups(rtl, kTracedFlows, kCctiQpBits); }
  unsigned addr_bits() const override { return r::kAddrWidth; }

  void sample_coverage() override;

 private:
  void declare_coverage();
  uint32_t urand(uint32_t lo, uint32_t hi) { return lo + static_cast<uint32_t>(rng()() % (uint64_t{hi} - lo + 1)); }
  bool chance(unsigned percent) { return rng()() % 100 < percent; }
  // A BECN for flow (qp, sl); qp_range and sls narrow the flows so CCTIs build up.
  void becn(uint32_t qp, uint32_t sl) {
    stim_.becn_valid = true;
    stim_.becn_qp = qp % kCctiQps;
    stim_.becn_sl = sl & 0xf;
    stim_.becn_rqpn = urand(0, 0xffffff);
    stim_.becn_rlid = urand(0, 0xffff);
    stim_.becn_llid = urand(0, 0xffff);
    stim_.becn_st = urand(0, 3);
  }
  void query(uint32_t qp, uint32_t sl) {
    stim_.query_qp = qp % kCctiQps;
    stim_.query_sl = sl & 0xf;
  }
  void random_csr();

  // The reference's state at the widths of the RTL's registers, for the VCD (kept only while
  // tracing).
  struct Mirror {
    bool sl_based = false;
    unsigned timer_running = 0, limit = 0, timestamp = 0, log_count = 0;
    std::array<unsigned, cc::CctiBlock::kNumSls> timer_count{};
    std::array<unsigned, kTracedFlows> ccti{};
  };
  void update_mirror();

  cc::CctiBlock core_;         // the reference
  cc::CctiBlockInputs next_;   // the inputs of the next edge, as driven to the RTL
  std::unique_ptr<CctiRtl> rtl_;
  cc::CctiBlockOutputs rtl_out_;
  std::unique_ptr<Mirror> mirror_;
  cc::CctiBlockInputs stim_;
};

void CctiCosim::trace_reference(sc_core::sc_trace_file* tf, const std::string& p) {
  mirror_ = std::make_unique<Mirror>();
  Mirror& m = *mirror_;
  update_mirror();
  const cc::CctiBlockOutputs& out = core_.outputs();
  sc_core::sc_trace(tf, next_.becn_valid, p + "becn_valid_i");
  sc_core::sc_trace(tf, out.ird, p + "ird_o", 32);
  sc_core::sc_trace(tf, out.trigger_event, p + "trigger_event_o");
  sc_core::sc_trace(tf, m.sl_based, p + "sl_based_q");
  sc_core::sc_trace(tf, m.timer_running, p + "timer_running_q", 16);
  sc_core::sc_trace(tf, m.limit, p + "limit", 7);
  sc_core::sc_trace(tf, m.timestamp, p + "timestamp", 32);
  sc_core::sc_trace(tf, m.log_count, p + "log_count_q", 4);
  for (unsigned s = 0; s < cc::CctiBlock::kNumSls; ++s) {
    sc_core::sc_trace(tf, m.timer_count[s], p + "timer_count_q(" + std::to_string(s) + ")", 16);
  }
  for (unsigned f = 0; f < kTracedFlows; ++f) {
    sc_core::sc_trace(tf, m.ccti[f], p + "flow_ccti(" + std::to_string(f) + ")", 7);
  }
  const int qp_bits = static_cast<int>(kCctiQpBits);
  sc_core::sc_trace(tf, next_.becn_qp, p + "becn_qp_i", qp_bits);
  sc_core::sc_trace(tf, next_.becn_sl, p + "becn_sl_i", 4);
  sc_core::sc_trace(tf, next_.becn_rqpn, p + "becn_rqpn_i", 24);
  sc_core::sc_trace(tf, next_.becn_rlid, p + "becn_rlid_i", 16);
  sc_core::sc_trace(tf, next_.becn_llid, p + "becn_llid_i", 16);
  sc_core::sc_trace(tf, next_.becn_st, p + "becn_st_i", 4);
  sc_core::sc_trace(tf, next_.query_qp, p + "query_qp_i", qp_bits);
  sc_core::sc_trace(tf, next_.query_sl, p + "query_sl_i", 4);
  sc_core::sc_trace(tf, out.ccti, p + "ccti_o", 16);
  sc_core::sc_trace(tf, out.timer_expired, p + "timer_expired_o", 16);
}

void CctiCosim::update_mirror() {
  Mirror& m = *mirror_;
  const cc::CctiBlock& c = core_;
  m.sl_based = c.sl_based();
  unsigned running = 0;
  for (unsigned s = 0; s < cc::CctiBlock::kNumSls; ++s) {
    m.timer_count[s] = c.timer_count(s);
    running |= c.timer_running(s) ? (1u << s) : 0u;
  }
  m.timer_running = running;
  m.limit = c.effective_limit();
  m.timestamp = c.timestamp();
  m.log_count = c.log_count();
  for (unsigned f = 0; f < kTracedFlows && f < c.params().num_qps; ++f) m.ccti[f] = c.ccti(f);
}

void CctiCosim::declare_coverage() {
  Coverage& c = coverage();
  c.declare("becn_qp_based", "BECN accepted, QP-based control");
  c.declare("becn_sl_based", "BECN accepted, SL-based control");
  c.declare("becn_disabled_sl", "BECN on an SL off in Control_Map: ignored");
  c.declare("ccti_at_limit", "a BECN clamped at CCTI_Limit");
  c.declare("timer_armed", "an idle SL timer armed by a BECN");
  c.declare("timer_rearmed", "an expiry re-armed its timer");
  c.declare("timer_stopped", "an expiry left its timer idle (all flows at CCTI_Min)");
  c.declare("decrement", "an expiry decremented a CCTI");
  c.declare("held_at_min", "an expiry found a CCTI at CCTI_Min");
  c.declare("expiry_with_becn", "a BECN and an expiry on one SL at one edge");
  c.declare("multi_sl_expiry", "timers of two SLs expiring at one edge");
  c.declare("trigger", "Trigger_Threshold event logged");
  c.declare("log_wrap", "a trigger event overwrote the oldest of 13");
  c.declare("log_clear", "CA congestion log cleared");
  c.declare("log_clear_with_trigger", "log cleared at the edge of a trigger event");
  c.declare("log_counter_saturated", "ThresholdEventCounter saturated at 0xffff");
  c.declare("cct_first", "IRD lookup of CCT entry 0");
  c.declare("cct_last", "IRD lookup of the entry at the effective CCTI_Limit");
  c.declare("cct_limit_clamped", "CCTI_Limit beyond the table, lookup clamped to the last entry");
  c.declare("ccti_min_floor", "IRD index raised to CCTI_Min");
  c.declare("ird_omnipath", "nonzero IRD, omnipath formula");
  c.declare("ird_shift_left", "nonzero IRD, shift_left formula");
  c.declare("csr_write_error", "register write refused (SLVERR)");
  c.declare("csr_read_error", "register read refused (SLVERR)");
}

void CctiCosim::sample_coverage() {
  const cc::CctiBlock& b = core_;
  const cc::CctiBlockEvents& e = b.events();
  const cc::CctiBlockOutputs& o = b.outputs();
  Coverage& c = coverage();
  c.hit(b.sl_based() ? "becn_sl_based" : "becn_qp_based", e.becn);
  c.hit("becn_disabled_sl", e.becn_disabled_sl);
  c.hit("ccti_at_limit", e.becn_at_limit);
  c.hit("timer_armed", e.timer_armed);
  c.hit("timer_rearmed", e.timer_rearmed);
  c.hit("timer_stopped", e.timer_stopped);
  c.hit("decrement", e.decremented);
  c.hit("held_at_min", e.held_at_min);
  c.hit("expiry_with_becn", e.expiry_with_becn);
  c.hit("multi_sl_expiry", __builtin_popcount(o.timer_expired) >= 2);
  c.hit("trigger", e.trigger);
  c.hit("log_wrap", e.log_wrapped);
  c.hit("log_clear", e.log_cleared);
  c.hit("log_clear_with_trigger", e.log_cleared && e.trigger);
  c.hit("log_counter_saturated", e.log_counter_saturated);
  c.hit("cct_first", e.query_first);
  c.hit("cct_last", e.query_last);
  c.hit("cct_limit_clamped", e.query_limit_clamped);
  c.hit("ccti_min_floor", e.query_min_floor);
  c.hit(b.ird_formula() == cc::IrdFormula::kShiftLeft ? "ird_shift_left" : "ird_omnipath", o.ird != 0);
  c.hit("csr_write_error", e.write_error);
  c.hit("csr_read_error", e.read_error);
}

void CctiCosim::random_csr() {
  AxiLiteMaster& m = master();
  const unsigned sl = urand(0, 15);
  switch (urand(0, 12)) {
    case 0: m.push(wr(r::kCaSettingOffset, ca_setting(chance(30), chance(80) ? 0xffff : urand(0, 0xffff)))); break;
    case 1:
      // Mostly short timers so they expire often; now and then any value (every field bit).
      m.push(wr(sl_addr(r::kCaSlTimerOffset, sl),
                chance(8) ? urand(0, 0xffffffff)
                          : sl_timer(chance(10) ? 0 : urand(1, 6), urand(0, 9), chance(50) ? 0 : urand(1, 40))));
      break;
    case 2: m.push(wr(sl_addr(r::kCaSlMinOffset, sl), r::kCaSlMinCctiMin.put(chance(60) ? 0 : urand(0, 140)))); break;
    case 3: {
      static constexpr uint32_t limits[] = {0, 1, 10, 63, 127, 128, 200, 0xffff};
      m.push(wr(r::kCctLimitOffset, cct_limit(limits[urand(0, 7)])));
      break;
    }
    case 4: m.push(wr(r::kCctEntryPairOffset + 4 * urand(0, kCctiEntries / 2 - 1), urand(0, 0xffffffff), urand(0, 15))); break;
    case 5: m.push(wr(r::kImplCtrlOffset, urand(0, 1))); break;
    case 6: m.push(wr(r::kMtuTxCyclesOffset, urand(0, 0xffff), urand(0, 15))); break;
    case 7: m.push(wr(r::kLogCtrlOffset, 1)); break;
    case 8: m.push(wr(urand(0, kLastAddr / 4) * 4, urand(0, 0xffffffff), urand(0, 15))); break;
    case 9: m.push(wr(urand(0, kLastAddr + 3), urand(0, 0xffffffff))); break;
    default: m.push(rd(chance(70) ? r::kFlowCctiOffset + 4 * urand(0, kCctiQps - 1) : urand(0, kLastAddr + 3))); break;
  }
}

std::vector<Phase> CctiCosim::program(const std::string& test) {
  const bool all = test == "all";
  std::vector<Phase> p;
  auto is = [&](const char* name) { return all || test == name; };
  auto reset = [&](const std::string& name) { p.push_back({name + "/reset", true, {}, 1, false, nullptr}); };
  const auto linear_cct = write_cct([](uint32_t i) { return cct_entry(1, i * 3); });
  const std::vector<CsrOp> base = concat({wr(r::kCaSettingOffset, ca_setting(false, 0xffff)),
                                          wr(r::kCctLimitOffset, cct_limit(kCctiEntries - 1)),
                                          wr(r::kMtuTxCyclesOffset, 2048)},
                                         linear_cct);

  if (is("reset_values")) {
    reset("reset_values");
    p.push_back({"reset_values", false, read_everything(), 10, false, nullptr});
  }
  if (is("becn_burst_limit")) {
    reset("becn_burst_limit");
    // Increase 3, limit 20: a burst of BECNs on one flow clamps at 20, the IRD follows.
    p.push_back({"becn_burst_limit", false,
                 concat(concat(base, all_sls(0, 3, 0, 0)), {wr(r::kCctLimitOffset, cct_limit(20))}), 300, false,
                 [this](uint64_t i) {
                   stim_.becn_valid = false;
                   if (i < 100 && i % 3 == 0) becn(5, 2);
                   query(5, 2);
                 }});
  }
  if (is("timer_decay")) {
    reset("timer_decay");
    // Timer 2 ticks, min 3: raise flows of two SLs to ~12, then watch them decay to 3.
    p.push_back({"timer_decay", false, concat(base, all_sls(2, 2, 0, 3)), 40 * kTickCycles, false,
                 [this](uint64_t i) {
                   stim_.becn_valid = false;
                   if (i < 12) becn(static_cast<uint32_t>(i % 2), i % 2 ? 4 : 6);
                   query(static_cast<uint32_t>(i % 2), i % 2 ? 4 : 6);
                 }});
  }
  if (is("trigger_threshold")) {
    reset("trigger_threshold");
    // Trigger 5 with increase 1: each of 20 flows crosses it once (more than 13 events).
    p.push_back({"trigger_threshold", false, concat(base, all_sls(0, 1, 5, 0)), 200, false,
                 [this](uint64_t i) {
                   stim_.becn_valid = false;
                   if (i < 120) becn(static_cast<uint32_t>(i / 6), static_cast<uint32_t>(i / 6) % 16);
                   query(static_cast<uint32_t>(i / 6), static_cast<uint32_t>(i / 6) % 16);
                 }});
    p.push_back({"trigger_threshold/read_log", false, read_log(), 1, false, nullptr});
    p.push_back({"trigger_threshold/clear", false, concat({wr(r::kLogCtrlOffset, 1)}, read_log()), 1, false, nullptr});
  }
  if (is("cct_index")) {
    reset("cct_index");
    // Limits 0, 127, 200 and 0xffff; CCTI_Min above the limit; distinct entries.
    auto cct = write_cct([](uint32_t i) { return cct_entry(i % 4, i + 1); });
    for (uint32_t limit : {0u, 127u, 200u, 0xffffu}) {
      p.push_back({"cct_index/limit" + std::to_string(limit), false,
                   concat(concat(concat(base, cct), all_sls(0, 7, 0, limit == 0 ? 0 : 60)),
                          {wr(r::kCctLimitOffset, cct_limit(limit)), rd(r::kCctLimitOffset)}),
                   200, false, [this](uint64_t i) {
                     stim_.becn_valid = false;
                     if (i % 4 == 0 && i < 150) becn(7, 1);
                     query(i % 3 == 0 ? 9 : 7, 1);
                   }});
    }
  }
  if (is("qp_vs_sl")) {
    reset("qp_vs_sl");
    // QP-based: 64 QPs spread over 4 SLs, each SL timer decays its own QPs; then SL-based.
    p.push_back({"qp_vs_sl/qp", false, concat(base, all_sls(1, 4, 0, 0)), 30 * kTickCycles, false,
                 [this](uint64_t i) {
                   stim_.becn_valid = false;
                   if (i < 256) becn(static_cast<uint32_t>(i / 4), static_cast<uint32_t>(i % 4));
                   query(static_cast<uint32_t>(i % kCctiQps), static_cast<uint32_t>(i % 4));
                 }});
    p.push_back({"qp_vs_sl/sl", false, {wr(r::kCaSettingOffset, ca_setting(true, 0xffff))}, 30 * kTickCycles, false,
                 [this](uint64_t i) {
                   stim_.becn_valid = false;
                   if (i < 256) becn(static_cast<uint32_t>(i), static_cast<uint32_t>(i % 16));
                   query(static_cast<uint32_t>(i), static_cast<uint32_t>(i % 16));
                 }});
  }
  if (is("control_map")) {
    reset("control_map");
    p.push_back({"control_map", false, concat(concat(base, all_sls(3, 2, 0, 0)), {wr(r::kCaSettingOffset, ca_setting(false, 0x00f0))}),
                 300, false, [this](uint64_t i) {
                   stim_.becn_valid = false;
                   if (i % 5 == 0) becn(static_cast<uint32_t>(i % 7), static_cast<uint32_t>(i % 16));
                   query(static_cast<uint32_t>(i % 7), static_cast<uint32_t>(i % 16));
                 }});
  }
  if (is("ird_formulas")) {
    reset("ird_formulas");
    for (uint32_t formula : {0u, 1u}) {
      p.push_back({"ird_formulas/" + std::string(formula ? "shift_left" : "omnipath"), false,
                   concat(concat(base, all_sls(0, 5, 0, 0)),
                          {wr(r::kImplCtrlOffset, formula), wr(r::kMtuTxCyclesOffset, formula ? 0 : 0xffff)}),
                   300, false, [this](uint64_t i) {
                     stim_.becn_valid = false;
                     if (i < 130) becn(static_cast<uint32_t>(i % 3), 0);
                     query(static_cast<uint32_t>(i % 3), 0);
                   }});
    }
  }
  if (is("expiry_with_becn")) {
    reset("expiry_with_becn");
    // Timer 1 tick: every tick edge expires; BECNs every cycle on two SLs land on expiries.
    p.push_back({"expiry_with_becn", false, concat(base, all_sls(1, 1, 3, 0)), 20 * kTickCycles, false,
                 [this](uint64_t i) {
                   stim_.becn_valid = false;
                   if ((i / kTickCycles) % 4 != 3) becn(static_cast<uint32_t>(i % 2), static_cast<uint32_t>(i % 2));
                   query(static_cast<uint32_t>(i % 2), static_cast<uint32_t>(i % 2));
                 }});
  }
  if (is("log_saturation")) {
    reset("log_saturation");
    // Trigger 1, timer 1 tick, all QPs on SL 0: each BECN lifts a QP from 0 to 1 (an event)
    // and each tick brings them all back, so events come almost every cycle until
    // ThresholdEventCounter saturates; two early clears land on events.
    p.push_back({"log_saturation", false, concat(base, all_sls(1, 1, 1, 0)), 72000, false,
                 [this](uint64_t i) {
                   becn(static_cast<uint32_t>(i % kCctiQps), 0);
                   query(static_cast<uint32_t>(i % kCctiQps), 0);
                   if (i == 1000 || i == 3000) master().push(wr(r::kLogCtrlOffset, 1));
                 }});
    p.push_back({"log_saturation/read", false, read_log(), 1, false, nullptr});
  }
  if (is("csr_corners")) {
    reset("csr_corners");
    std::vector<CsrOp> ops{
        wr(r::kBecnCountOffset, 1), wr(r::kBlockInfoOffset, 1), wr(r::kFlowCctiOffset, 1),
        wr(r::kTimestampOffset, 1), wr(0xffc, 1), rd(0xffc), wr(kLastAddr, 1), rd(kLastAddr), wr(0x041, 1), rd(0x043),
        rd(r::kFlowCctiOffset + 4 * (kCctiQps - 1)), rd(r::kFlowCctiOffset + 4 * kCctiQps),  // the last flow, one past
        wr(r::kCctEntryPairOffset, 0xaaaabbbb, 0x3), wr(r::kCctEntryPairOffset, 0xccccdddd, 0xc),
        rd(r::kCctEntryPairOffset), wr(r::kCaSettingOffset, 0xffffffff, 0x4), rd(r::kCaSettingOffset),
        wr(sl_addr(r::kCaSlTimerOffset, 15), 0x12345678, 0x5), rd(sl_addr(r::kCaSlTimerOffset, 15)),
        rd(r::kCctEntryPairOffset + 4 * (kCctiEntries / 2)),  // one past the table
    };
    p.push_back({"csr_corners", false, ops, 50, false, nullptr});
  }
  if (test == "random" || all) {
    if (test == "random") reset("random");
    p.push_back({"random/setup", false,
                 concat(concat(base, all_sls(3, 2, 6, 0)),
                        write_cct([](uint32_t i) { return cct_entry(i % 4, (i * i * 7) % 0x3fff); })),
                 0, false, nullptr});
    p.push_back({"random", false, {}, 0, true, [this](uint64_t i) {
                   // Bursts of BECNs on a few flows, then quiet stretches for the timers.
                   const bool burst = (i / 4096) % 3 != 2;
                   stim_.becn_valid = false;
                   if (burst && chance(25)) becn(urand(0, 9), chance(90) ? urand(0, 3) : urand(0, 15));
                   if (chance(50)) query(urand(0, kCctiQps - 1), urand(0, 15));
                   if (master().pending() < 2 && chance(i % 20000 < 2000 ? 20 : 1)) random_csr();
                 }});
  }
  return p;
}

std::vector<std::string> ccti_tests() {
  return {"reset_values", "becn_burst_limit", "timer_decay", "trigger_threshold", "cct_index", "qp_vs_sl",
          "control_map", "ird_formulas", "expiry_with_becn", "log_saturation", "csr_corners", "random", "all"};
}

std::unique_ptr<CosimHarness> make_ccti_cosim(const CosimOptions& opts) {
  auto tb = std::make_unique<CctiCosim>("ccti_tb", opts);
  tb->set_program(tb->program(opts.test));
  return tb;
}

}  // namespace ibcc::tb
