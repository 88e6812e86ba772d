// FECN marker co-simulation: Verilated RTL beside the C++ reference, directed tests for each
// rule and constrained-random stimulus, functional coverage of every rule.
#include "tb/fecn_cosim.h"

#include <algorithm>
#include <array>
#include <fstream>

#include "cc/fecn_marker_regs.h"
#include "tb/board_link.h"
#include "tb/waves.h"

namespace ibcc::tb {

namespace r = ibcc::regs::fecn_marker;

namespace {

constexpr uint32_t kVictimWordAddr = r::kSwVictimMaskOffset + 4u * (7u - kFecnPortNum / 32u);
constexpr uint32_t kVictimBit = 1u << (kFecnPortNum % 32u);
constexpr uint32_t kMaxFill = (1u << kFecnFillWidth) - 1u;

CsrOp wr(uint32_t addr, uint32_t data, uint32_t strb = 0xf) { return {true, addr, data, strb}; }
CsrOp rd(uint32_t addr) { return {false, addr, 0, 0}; }

std::vector<CsrOp> concat_ops(std::vector<CsrOp> a, const std::vector<CsrOp>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

uint32_t sw_threshold(unsigned threshold, unsigned packet_size) {
  return r::kSwSettingThresholdThreshold.put(threshold) | r::kSwSettingThresholdPacketSize.put(packet_size);
}
uint32_t impl_ctrl(unsigned mapping, unsigned mode, unsigned hysteresis) {
  return r::kImplCtrlThresholdMapping.put(mapping) | r::kImplCtrlMarkingMode.put(mode) |
         r::kImplCtrlHysteresis.put(hysteresis);
}

// Reads of every word of the 4 KiB window: reset values, RAZ words and unmapped addresses.
std::vector<CsrOp> read_everything() {
  std::vector<CsrOp> ops;
  for (uint32_t a = 0; a < (1u << r::kAddrWidth); a += 4) ops.push_back(rd(a));
  ops.push_back(rd(0x402));  // unaligned
  return ops;
}

std::vector<CsrOp> read_log() {
  std::vector<CsrOp> ops{rd(r::kLogHeaderOffset), rd(r::kLogTimestampOffset)};
  for (uint32_t i = 0; i < r::kLogPortmapCount; ++i) ops.push_back(rd(r::kLogPortmapOffset + 4 * i));
  for (uint32_t e = 0; e < r::kLogEventLidsCount; ++e) {
    ops.push_back(rd(r::kLogEventLidsOffset + e * r::kLogEventLidsStride));
    ops.push_back(rd(r::kLogEventSlOffset + e * r::kLogEventSlStride));
    ops.push_back(rd(r::kLogEventTimestampOffset + e * r::kLogEventTimestampStride));
  }
  for (uint32_t a : {r::kPktsSentOffset, r::kPktsMarkedOffset, r::kCongEntriesOffset, r::kCongStateOffset}) {
    ops.push_back(rd(a));
  }
  return ops;
}

}  // namespace

class FecnCosim : public CosimHarness {
 public:
  FecnCosim(sc_core::sc_module_name name, const CosimOptions& opts)
      : CosimHarness(name, opts), core_(params()), next_(params()), fill_(kFecnInputs * kFecnVls, 0),
        target_(kFecnInputs * kFecnVls, 0), credits_(kFecnVls, 1), rtl_(opts.board.empty() ? make_fecn_rtl("fecn_tb.rtl")
                                      : make_board_fecn_rtl(open_board(opts.board, opts.baud))) {
    declare_coverage();
  }

  static cc::FecnMarkerParams params() {
    cc::FecnMarkerParams p;
    p.num_inputs = kFecnInputs;
    p.num_vls = kFecnVls;
    p.fill_width = kFecnFillWidth;
    p.port_num = kFecnPortNum;
    p.tick_cycles = kTickCycles;
    return p;
  }

  std::vector<Phase> program(const std::string& test);

 protected:
  void compare_outputs() override {
    const cc::FecnMarkerOutputs& ref = core_.outputs();
    rtl_->outputs(&rtl_out_);
    check("cong_state_o", rtl_out_.cong_state, ref.cong_state);
    check("fecn_valid_o", rtl_out_.fecn_valid, ref.fecn_valid);
    check("fecn_mark_o", rtl_out_.fecn_mark, ref.fecn_mark);
    check_axil(rtl_out_.axi);
    if (ref.fecn_valid && ref.fecn_mark) note_event();
  }

  void idle_stimulus() override { pkt_.valid = false; }

  void drive(const cc::AxiLiteIn& bus) override {
    next_.voq_fill = fill_;
    std::copy(credits_.begin(), credits_.end(), next_.credits.begin());
    next_.pkt_valid = pkt_.valid;
    next_.pkt_vl = pkt_.vl;
    next_.pkt_sl = pkt_.sl;
    next_.pkt_slid = pkt_.slid;
    next_.pkt_dlid = pkt_.dlid;
    next_.pkt_len = pkt_.len;
    next_.axi = bus;
    rtl_->drive(next_);
  }

  void reference_edge(bool rst_n) override {
    if (rst_n) core_.step(next_);
    else core_.reset();
    if (mirror_) update_mirror(rst_n);
  }
  const cc::AxiLiteOut& reference_bus() const override { return core_.outputs().axi; }

  RtlModel& rtl() override { return *rtl_; }
  void trace_reference(sc_core::sc_trace_file* vcd, const std::string& prefix) override;
  std::vector<WaveGroup> wave_groups(bool rtl) const override { return fecn_groups(rtl, kFecnInputs, kFecnVls, kFecnFillWidth); }
  unsigned addr_bits() const override { return r::kAddrWidth; }

  void sample_coverage() override;

 private:
  struct Packet {
    bool valid = false;
    uint32_t vl = 0, sl = 0, slid = 0, dlid = 0, len = 0;
  };
  // The reference's state at the widths of the RTL's registers, for the VCD (kept only while
  // tracing), with the fills and credits the core took at the last edge (voq_fill_q/credits_q).
  struct Mirror {
    unsigned threshold = 0, packet_size = 0, marking_rate = 0, mapping = 0, marking_mode = 0;
    unsigned hysteresis = 0, capacity = 0, lfsr = 0, timestamp = 0, log_count = 0;
    unsigned pkts_marked = 0;
    bool victim_mask = false;
    std::array<unsigned, kFecnVls> skip{};
    std::vector<uint32_t> fill, credits;
  };

  void declare_coverage();
  void update_mirror(bool stepped);
  void random_packet(unsigned vl_range, uint32_t min_len, uint32_t max_len);
  void move_fills();
  void set_fill(unsigned input, unsigned vl, uint32_t v) { fill_[input * kFecnVls + vl] = std::min(v, kMaxFill); }
  uint32_t urand(uint32_t lo, uint32_t hi) { return lo + static_cast<uint32_t>(rng()() % (uint64_t{hi} - lo + 1)); }
  bool chance(unsigned percent) { return rng()() % 100 < percent; }
  void random_csr();

  cc::FecnMarker core_;          // the reference
  cc::FecnMarkerInputs next_;    // the inputs of the next edge, as driven to the RTL
  std::vector<uint32_t> fill_, target_, credits_;
  Packet pkt_;
  std::unique_ptr<FecnRtl> rtl_;
  cc::FecnMarkerOutputs rtl_out_;
  std::unique_ptr<Mirror> mirror_;
};

void FecnCosim::trace_reference(sc_core::sc_trace_file* tf, const std::string& p) {
  mirror_ = std::make_unique<Mirror>();
  Mirror& m = *mirror_;
  m.fill.assign(fill_.size(), 0);
  m.credits.assign(credits_.size(), 0);
  update_mirror(false);
  const cc::FecnMarkerOutputs& out = core_.outputs();
  sc_core::sc_trace(tf, next_.pkt_valid, p + "pkt_valid_i");
  sc_core::sc_trace(tf, next_.pkt_vl, p + "pkt_vl_i", 4);
  sc_core::sc_trace(tf, next_.pkt_sl, p + "pkt_sl_i", 4);
  sc_core::sc_trace(tf, next_.pkt_slid, p + "pkt_slid_i", 16);
  sc_core::sc_trace(tf, next_.pkt_dlid, p + "pkt_dlid_i", 16);
  sc_core::sc_trace(tf, next_.pkt_len, p + "pkt_len_i", 8);
  sc_core::sc_trace(tf, out.fecn_valid, p + "fecn_valid_o");
  sc_core::sc_trace(tf, out.fecn_mark, p + "fecn_mark_o");
  sc_core::sc_trace(tf, out.cong_state, p + "cong_state_o", static_cast<int>(kFecnVls));
  // One signal per input and VL, named as the RTL's g_fill_in[p].g_vl[v].fill.
  for (unsigned i = 0; i < kFecnInputs; ++i) {
    for (unsigned v = 0; v < kFecnVls; ++v) {
      sc_core::sc_trace(tf, m.fill[i * kFecnVls + v],
                        p + "g_fill_in(" + std::to_string(i) + ").g_vl(" + std::to_string(v) + ").fill", kFecnFillWidth);
    }
  }
  for (unsigned v = 0; v < kFecnVls; ++v) {
    sc_core::sc_trace(tf, m.credits[v], p + "g_credits(" + std::to_string(v) + ").credits", kFecnFillWidth);
  }
  sc_core::sc_trace(tf, m.threshold, p + "threshold", 4);
  sc_core::sc_trace(tf, m.packet_size, p + "packet_size", 8);
  sc_core::sc_trace(tf, m.marking_rate, p + "marking_rate", 16);
  sc_core::sc_trace(tf, m.mapping, p + "mapping_q", 2);
  sc_core::sc_trace(tf, m.marking_mode, p + "marking_mode_q", 1);
  sc_core::sc_trace(tf, m.hysteresis, p + "hysteresis_q", 4);
  sc_core::sc_trace(tf, m.capacity, p + "capacity_q", static_cast<int>(kFecnFillWidth));
  sc_core::sc_trace(tf, m.victim_mask, p + "victim_mask_q");
  sc_core::sc_trace(tf, m.lfsr, p + "lfsr_q", 16);
  sc_core::sc_trace(tf, m.timestamp, p + "timestamp", 32);
  sc_core::sc_trace(tf, m.log_count, p + "log_count_q", 4);
  sc_core::sc_trace(tf, m.pkts_marked, p + "pkts_marked_q", 32);
  for (unsigned v = 0; v < kFecnVls; ++v) {
    sc_core::sc_trace(tf, m.skip[v], p + "skip_q(" + std::to_string(v) + ")", 17);
  }
}

void FecnCosim::update_mirror(bool stepped) {
  Mirror& m = *mirror_;
  const cc::FecnMarker& c = core_;
  if (stepped) {
    m.fill = next_.voq_fill;
    m.credits.assign(next_.credits.begin(), next_.credits.end());
  }
  m.threshold = c.threshold();
  m.packet_size = c.packet_size();
  m.marking_rate = c.marking_rate();
  m.mapping = static_cast<unsigned>(c.mapping());
  m.marking_mode = static_cast<unsigned>(c.marking_mode());
  m.hysteresis = c.hysteresis();
  m.capacity = c.buffer_capacity();
  m.victim_mask = c.victim_mask();
  m.lfsr = c.lfsr();
  m.timestamp = c.timestamp();
  m.log_count = c.log_count();
  m.pkts_marked = c.pkts_marked();
  for (unsigned v = 0; v < kFecnVls; ++v) m.skip[v] = c.skip_count(v);
}

void FecnCosim::declare_coverage() {
  Coverage& c = coverage();
  c.declare("enter_per_voq", "a Port VL enters congestion, per-VoQ mapping");
  c.declare("enter_sum", "a Port VL enters congestion, sum mapping");
  c.declare("enter_sum_div_ports", "a Port VL enters congestion, sum / contributors mapping");
  c.declare("enter_root", "enters with downstream credits (root)");
  c.declare("victim_blocked", "threshold crossed, no credits, Victim_Mask clear: stays out");
  c.declare("victim_mask_enter", "in the congestion state only through Victim_Mask");
  c.declare("leave", "a Port VL leaves the congestion state");
  c.declare("hysteresis_held", "stays congested below the trip level thanks to hysteresis");
  c.declare("port_override", "marking with SwitchPortCongestionSetting Valid");
  c.declare("below_packet_size", "congested VL, packet shorter than Packet_Size: not marked");
  c.declare("at_packet_size", "congested VL, packet exactly Packet_Size: eligible");
  c.declare("mark_counter_mr0", "marked, counter mode, Marking_Rate 0");
  c.declare("mark_counter_mr1", "marked, counter mode, Marking_Rate 1");
  c.declare("mark_counter_mrn", "marked, counter mode, Marking_Rate > 1");
  c.declare("mark_random_mr0", "marked, random mode, Marking_Rate 0");
  c.declare("mark_random_mr1", "marked, random mode, Marking_Rate 1");
  c.declare("mark_random_mrn", "marked, random mode, Marking_Rate > 1");
  c.declare("skip", "eligible packet skipped by Marking_Rate");
  c.declare("pkt_vl_out_of_range", "packet on a VL the unit does not have");
  c.declare("log_wrap", "a mark overwrote the oldest of 15 log events");
  c.declare("log_clear", "congestion log cleared");
  c.declare("log_clear_with_mark", "log cleared at the edge of a mark");
  c.declare("log_counter_saturated", "LogEventsCounter saturated at 0xffff");
  c.declare("csr_write_error", "register write refused (SLVERR)");
  c.declare("csr_read_error", "register read refused (SLVERR)");
}

void FecnCosim::sample_coverage() {
  const cc::FecnMarker& m = core_;
  const cc::FecnMarkerEvents& e = m.events();
  Coverage& c = coverage();
  if (e.entered) {
    switch (m.mapping()) {
      case cc::ThresholdMapping::kPerVoq: c.hit("enter_per_voq"); break;
      case cc::ThresholdMapping::kSum: c.hit("enter_sum"); break;
      case cc::ThresholdMapping::kSumDivPorts: c.hit("enter_sum_div_ports"); break;
    }
    c.hit("enter_root", (e.entered & ~e.victim_masked) != 0);
  }
  c.hit("victim_blocked", e.victim_blocked != 0);
  c.hit("victim_mask_enter", e.victim_masked != 0);
  c.hit("leave", e.left != 0);
  c.hit("hysteresis_held", e.hysteresis_held);
  c.hit("port_override", e.marked && m.port_override());
  c.hit("below_packet_size", e.too_small);
  if (e.eligible) {
    // The packet of this edge is in next_ still (the next one is driven after this).
    c.hit("at_packet_size", next_.pkt_len == m.packet_size());
  }
  if (e.marked) {
    const bool random = m.marking_mode() == cc::MarkingMode::kRandom;
    const unsigned mr = m.marking_rate();
    const char* bin = random ? (mr == 0 ? "mark_random_mr0" : mr == 1 ? "mark_random_mr1" : "mark_random_mrn")
                             : (mr == 0 ? "mark_counter_mr0" : mr == 1 ? "mark_counter_mr1" : "mark_counter_mrn");
    c.hit(bin);
  }
  c.hit("skip", e.skipped);
  c.hit("pkt_vl_out_of_range", next_.pkt_valid && next_.pkt_vl >= kFecnVls);
  c.hit("log_wrap", e.log_wrapped);
  c.hit("log_clear", e.log_cleared);
  c.hit("log_clear_with_mark", e.log_cleared && e.marked);
  c.hit("log_counter_saturated", e.log_counter_saturated);
  c.hit("csr_write_error", e.write_error);
  c.hit("csr_read_error", e.read_error);
}

void FecnCosim::random_packet(unsigned vl_range, uint32_t min_len, uint32_t max_len) {
  pkt_.valid = true;
  pkt_.vl = urand(0, vl_range - 1);
  if (chance(2)) pkt_.vl = urand(kFecnVls, 15);  // a VL beyond the unit's
  pkt_.sl = urand(0, 15);
  pkt_.slid = urand(0, 0xffff);
  pkt_.dlid = urand(0, 0xffff);
  pkt_.len = urand(min_len, max_len);
}

// A few VoQs per cycle drift toward their targets; a target jumps now and then across
// 0..1.25 capacity; credits of a VL come and go. One random draw covers a cycle's choices.
void FecnCosim::move_fills() {
  const uint32_t cap = std::max<uint32_t>(core_.buffer_capacity(), 1);
  const uint64_t r = rng()();
  const size_t n = fill_.size();
  for (unsigned k = 0; k < 4; ++k) {
    const size_t i = ((r >> (8 * k)) & 0xff) % n;
    const uint32_t step = 1 + static_cast<uint32_t>((r >> (32 + 4 * k)) & 0xf) * std::max<uint32_t>(cap / 256, 1);
    if (fill_[i] < target_[i]) fill_[i] = std::min(target_[i], fill_[i] + step);
    else if (fill_[i] > target_[i]) fill_[i] = fill_[i] - std::min(fill_[i] - target_[i], step);
  }
  if (((r >> 48) & 0xff) < 8) {
    const size_t i = urand(0, static_cast<uint32_t>(n - 1));
    target_[i] = chance(40) ? 0 : urand(0, std::min<uint32_t>(kMaxFill, cap + cap / 4));
  }
  if (((r >> 56) & 0xff) < 3) {
    credits_[urand(0, kFecnVls - 1)] = chance(30) ? 0 : urand(1, kMaxFill);
  }
}

// A register access of the kind a management agent makes, now and then a wrong one.
void FecnCosim::random_csr() {
  AxiLiteMaster& m = master();
  switch (urand(0, 15)) {
    case 0: m.push(wr(r::kSwSettingThresholdOffset, sw_threshold(urand(0, 15), chance(50) ? 0 : urand(0, 40)))); break;
    case 1: m.push(wr(r::kSwSettingMarkingOffset, chance(50) ? urand(0, 2) : chance(95) ? urand(3, 20) : urand(0, 0xffff))); break;
    case 2: m.push(wr(r::kImplCtrlOffset, impl_ctrl(urand(0, 3), urand(0, 1), chance(50) ? 0 : urand(0, 15)))); break;
    case 3: {
      static constexpr uint32_t caps[] = {0, 1, 16, 64, 256, 1000, 4095, 4096};
      m.push(wr(r::kBufferCapacityOffset, caps[urand(0, 7)]));
      break;
    }
    case 4: m.push(wr(kVictimWordAddr, chance(50) ? kVictimBit : urand(0, 0xffffffff), urand(0, 15))); break;
    case 5: m.push(wr(r::kPortSettingOffset, urand(0, 0xffffffff), urand(0, 15))); break;
    case 6: m.push(wr(r::kLfsrSeedOffset, chance(10) ? 0 : urand(0, 0xffff), chance(80) ? 0xf : urand(0, 15))); break;
    case 7: m.push(wr(r::kLogCtrlOffset, 1)); break;
    case 8: m.push(wr(urand(0, 0x3ff) * 4, urand(0, 0xffffffff), urand(0, 15))); break;  // anywhere
    case 9: m.push(wr(urand(0, 0xfff), urand(0, 0xffffffff))); break;  // maybe unaligned
    default: m.push(rd(chance(80) ? urand(0, 0x108 / 4) * 4 + (chance(50) ? 0x200 : 0x400) : urand(0, 0xfff))); break;
  }
}

std::vector<Phase> FecnCosim::program(const std::string& test) {
  const bool all = test == "all";
  std::vector<Phase> p;
  auto is = [&](const char* name) { return all || test == name; };
  auto reset = [&](const std::string& name) { p.push_back({name + "/reset", true, {}, 1, false, nullptr}); };
  // Flowing packets on VL 0..num_vls-1 with lengths in [lo, hi].
  auto traffic = [this](unsigned vls, uint32_t lo, uint32_t hi, unsigned busy) {
    return [this, vls, lo, hi, busy](uint64_t) {
      pkt_.valid = false;
      if (chance(busy)) random_packet(vls, lo, hi);
    };
  };
  auto credits_all = [this](uint32_t v) { std::fill(credits_.begin(), credits_.end(), v); };
  auto fills_all = [this](uint32_t v) { std::fill(fill_.begin(), fill_.end(), v); };

  if (is("reset_values")) {
    reset("reset_values");
    p.push_back({"reset_values", false, read_everything(), 10, false, nullptr});
  }
  if (is("mapping_per_voq")) {
    reset("mapping_per_voq");
    // Threshold 8 trips at 8/16 of 256 credits: one VoQ ramps through 128 and back.
    p.push_back({"mapping_per_voq", false,
                 {wr(r::kSwSettingThresholdOffset, sw_threshold(8, 0)), wr(r::kImplCtrlOffset, impl_ctrl(0, 0, 0))},
                 600, false, [this, traffic](uint64_t i) {
                   credits_.assign(kFecnVls, 100);
                   fill_.assign(fill_.size(), 20);
                   const uint32_t ramp = i < 300 ? static_cast<uint32_t>(i) : static_cast<uint32_t>(600 - i);
                   set_fill(3, 1, ramp);
                   traffic(kFecnVls, 1, 60, 60)(i);
                 }});
  }
  if (is("mapping_sum")) {
    reset("mapping_sum");
    // Four VoQs of 40 credits: no single one trips, their sum (160 >= 128) does.
    p.push_back({"mapping_sum", false,
                 {wr(r::kSwSettingThresholdOffset, sw_threshold(8, 0)), wr(r::kImplCtrlOffset, impl_ctrl(1, 0, 0))},
                 400, false, [this, traffic](uint64_t i) {
                   credits_.assign(kFecnVls, 100);
                   fill_.assign(fill_.size(), 0);
                   const uint32_t level = i < 200 ? static_cast<uint32_t>(i / 4) : static_cast<uint32_t>((400 - i) / 4);
                   for (unsigned in = 0; in < 4; ++in) set_fill(in, 2, level);
                   traffic(kFecnVls, 1, 60, 60)(i);
                 }});
  }
  if (is("mapping_sum_div_ports")) {
    reset("mapping_sum_div_ports");
    // Sum against 128 / contributors: 4 inputs at 9 (sum 36 >= 32) trip, 1 input at 36 does not.
    p.push_back({"mapping_sum_div_ports", false,
                 {wr(r::kSwSettingThresholdOffset, sw_threshold(8, 0)), wr(r::kImplCtrlOffset, impl_ctrl(2, 0, 0))},
                 600, false, [this, traffic](uint64_t i) {
                   credits_.assign(kFecnVls, 100);
                   fill_.assign(fill_.size(), 0);
                   const uint32_t level = static_cast<uint32_t>((i % 200) / 10);
                   if (i < 400) {
                     for (unsigned in = 0; in < (i < 200 ? 4u : 1u); ++in) set_fill(in, 0, i < 200 ? level : level * 4);
                   } else {
                     for (unsigned in = 0; in < kFecnInputs; ++in) set_fill(in, 3, level);
                   }
                   traffic(kFecnVls, 1, 60, 60)(i);
                 }});
  }
  if (is("root_victim")) {
    reset("root_victim");
    // Over the trip level throughout; credits come and go: root enters, victim stays out.
    p.push_back({"root_victim", false, {wr(r::kSwSettingThresholdOffset, sw_threshold(12, 0))}, 500, false,
                 [this, traffic, fills_all](uint64_t i) {
                   fills_all(200);
                   for (unsigned v = 0; v < kFecnVls; ++v) credits_[v] = ((i / 25 + v) % 3 == 0) ? 0 : 7;
                   traffic(kFecnVls, 1, 60, 70)(i);
                 }});
  }
  if (is("victim_mask")) {
    reset("victim_mask");
    // The same with this port's Victim_Mask bit (and bits of other ports, which do nothing).
    p.push_back({"victim_mask/other_ports", false,
                 {wr(r::kSwSettingThresholdOffset, sw_threshold(12, 0)), wr(kVictimWordAddr, ~kVictimBit),
                  wr(r::kSwVictimMaskOffset, 0xffffffff), rd(kVictimWordAddr)},
                 200, false, [this, traffic, fills_all, credits_all](uint64_t i) {
                   fills_all(200);
                   credits_all(0);
                   traffic(kFecnVls, 1, 60, 70)(i);
                 }});
    p.push_back({"victim_mask/this_port", false, {wr(kVictimWordAddr, kVictimBit), rd(kVictimWordAddr)}, 300, false,
                 [this, traffic, fills_all](uint64_t i) {
                   fills_all(i < 250 ? 200 : 0);
                   for (unsigned v = 0; v < kFecnVls; ++v) credits_[v] = ((i / 40 + v) % 2 == 0) ? 0 : 5;
                   traffic(kFecnVls, 1, 60, 70)(i);
                 }});
  }
  if (is("threshold_zero")) {
    reset("threshold_zero");
    p.push_back({"threshold_zero", false, {wr(r::kSwSettingThresholdOffset, sw_threshold(0, 0))}, 200, false,
                 [this, traffic, fills_all, credits_all](uint64_t i) {
                   fills_all(kMaxFill);
                   credits_all(9);
                   traffic(kFecnVls, 1, 60, 70)(i);
                 }});
  }
  if (is("packet_size")) {
    reset("packet_size");
    // Packet_Size 8: lengths 7, 8 and 9 around the boundary, all VLs congested.
    p.push_back({"packet_size", false, {wr(r::kSwSettingThresholdOffset, sw_threshold(15, 8))}, 400, false,
                 [this, traffic, fills_all, credits_all](uint64_t i) {
                   fills_all(100);
                   credits_all(9);
                   traffic(kFecnVls, 7, 9, 80)(i);
                 }});
  }
  if (is("marking_rate_counter") || is("marking_rate_random")) {
    for (unsigned mode = 0; mode < 2; ++mode) {
      const char* name = mode ? "marking_rate_random" : "marking_rate_counter";
      if (!is(name)) continue;
      reset(name);
      for (uint32_t rate : {0u, 1u, 5u, 300u}) {
        std::vector<CsrOp> ops{wr(r::kSwSettingThresholdOffset, sw_threshold(15, 0)),
                               wr(r::kSwSettingMarkingOffset, rate), wr(r::kImplCtrlOffset, impl_ctrl(0, mode, 0))};
        if (mode) ops.push_back(wr(r::kLfsrSeedOffset, 0x1234u + rate));
        p.push_back({std::string(name) + "/mr" + std::to_string(rate), false, ops, rate == 300 ? 3000u : 300u, false,
                     [this, traffic, fills_all, credits_all](uint64_t i) {
                       fills_all(100);
                       credits_all(9);
                       traffic(kFecnVls, 1, 60, 90)(i);
                     }});
      }
      // The per-port override: Valid with its own Threshold, Packet_Size and Marking_Rate.
      p.push_back({std::string(name) + "/port_override", false,
                   {wr(r::kPortSettingOffset, r::kPortSettingValid.put(1) | r::kPortSettingThreshold.put(14) |
                                                  r::kPortSettingPacketSize.put(2) | r::kPortSettingCongParm.put(3))},
                   400, false, [this, traffic, fills_all, credits_all](uint64_t i) {
                     fills_all(100);
                     credits_all(9);
                     traffic(kFecnVls, 1, 60, 90)(i);
                   }});
    }
  }
  if (is("hysteresis")) {
    reset("hysteresis");
    // Trip at 128 of 256, leave below 64 with hysteresis 4: the fill swings 40..140.
    p.push_back({"hysteresis", false,
                 {wr(r::kSwSettingThresholdOffset, sw_threshold(8, 0)), wr(r::kImplCtrlOffset, impl_ctrl(0, 0, 4))},
                 1200, false, [this, traffic, credits_all](uint64_t i) {
                   credits_all(9);
                   fill_.assign(fill_.size(), 0);
                   const uint32_t phase = static_cast<uint32_t>(i % 400);
                   const uint32_t level = phase < 200 ? 40 + phase / 2 : 140 - (phase - 200) / 2;
                   for (unsigned v = 0; v < kFecnVls; ++v) set_fill(v, v, level);
                   traffic(kFecnVls, 1, 60, 50)(i);
                 }});
  }
  if (is("log")) {
    reset("log");
    // More than 15 marks, read the whole log, clear it while marking, read again.
    p.push_back({"log/fill", false, {wr(r::kSwSettingThresholdOffset, sw_threshold(15, 0))}, 100, false,
                 [this, traffic, fills_all, credits_all](uint64_t i) {
                   fills_all(100);
                   credits_all(9);
                   traffic(kFecnVls, 1, 60, 50)(i);
                 }});
    p.push_back({"log/read", false, read_log(), 1, false, nullptr});
    std::vector<CsrOp> clear_and_read{wr(r::kLogCtrlOffset, 1)};
    for (const CsrOp& op : read_log()) clear_and_read.push_back(op);
    p.push_back({"log/clear_while_marking", false, {}, 400, false,
                 [this, traffic, fills_all, credits_all](uint64_t i) {
                   fills_all(100);
                   credits_all(9);
                   traffic(kFecnVls, 1, 60, 100)(i);
                   if (i % 100 == 0) master().push(wr(r::kLogCtrlOffset, 1));
                 }});
    p.push_back({"log/after_clear", false, clear_and_read, 1, false, nullptr});
  }
  if (is("log_saturation")) {
    reset("log_saturation");
    // Marks on every cycle until LogEventsCounter saturates at 0xffff, then a clear.
    p.push_back({"log_saturation", false, {wr(r::kSwSettingThresholdOffset, sw_threshold(15, 0))}, 66000, false,
                 [this, fills_all, credits_all](uint64_t) {
                   fills_all(100);
                   credits_all(9);
                   random_packet(kFecnVls, 1, 60);
                   pkt_.vl = 0;
                 }});
    p.push_back({"log_saturation/read", false, concat_ops(read_log(), {wr(r::kLogCtrlOffset, 1), rd(r::kLogHeaderOffset)}),
                 1, false, nullptr});
  }
  if (is("csr_corners")) {
    reset("csr_corners");
    // Illegal values, read-only and unmapped targets, unaligned addresses, byte strobes.
    std::vector<CsrOp> ops{
        wr(r::kImplCtrlOffset, impl_ctrl(3, 0, 0)), rd(r::kImplCtrlOffset),
        wr(r::kBufferCapacityOffset, 0), wr(r::kBufferCapacityOffset, 4096), rd(r::kBufferCapacityOffset),
        wr(r::kLfsrSeedOffset, 0), rd(r::kLfsrSeedOffset),
        wr(r::kPktsSentOffset, 5), wr(r::kBlockInfoOffset, 5), wr(r::kTimestampOffset, 5),
        wr(0x7fc, 1), rd(0x7fc), wr(0x101, 1), rd(0x103),
        wr(r::kSwCreditMaskOffset, 0xffffffff), rd(r::kSwCreditMaskOffset),
        wr(r::kPortSettingOffset, 0xffffffff, 0x1), wr(r::kPortSettingOffset, 0xffffffff, 0x8),
        rd(r::kPortSettingOffset), wr(r::kSwControlMapOffset, 0x1f, 0x3), rd(r::kSwControlMapOffset),
        wr(r::kImplCtrlOffset, 0xffffffff, 0x2), rd(r::kImplCtrlOffset),
        wr(r::kImplCtrlOffset, 0x3, 0x1),  // mapping 3 through a strobe: refused
    };
    p.push_back({"csr_corners", false, ops, 50, false, nullptr});
  }
  if (test == "random" || all) {
    if (test == "random") reset("random");
    p.push_back({"random/setup", false,
                 {wr(r::kSwSettingThresholdOffset, sw_threshold(10, 4)), wr(r::kSwSettingMarkingOffset, 2)},
                 0, false, nullptr});
    p.push_back({"random", false, {}, 0, true, [this](uint64_t i) {
                   move_fills();
                   pkt_.valid = false;
                   if (chance(60)) random_packet(kFecnVls, 1, 70);
                   if (master().pending() < 2 && chance(i % 20000 < 2000 ? 20 : 1)) random_csr();
                 }});
  }
  return p;
}

std::vector<std::string> fecn_tests() {
  return {"reset_values", "mapping_per_voq", "mapping_sum", "mapping_sum_div_ports", "root_victim",
          "victim_mask", "threshold_zero", "packet_size", "marking_rate_counter", "marking_rate_random",
          "hysteresis", "log", "log_saturation", "csr_corners", "random", "all"};
}

std::unique_ptr<CosimHarness> make_fecn_cosim(const CosimOptions& opts) {
  auto tb = std::make_unique<FecnCosim>("fecn_tb", opts);
  tb->set_program(tb->program(opts.test));
  return tb;
}

}  // namespace ibcc::tb
