// Switch-port CC unit: cycle-exact reference of rtl/fecn_marker.sv.
#include "cc/fecn_marker.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cc/fecn_marker_regs.h"

namespace ibcc::cc {

namespace r = ibcc::regs::fecn_marker;
using ibcc::regs::apply_strobe;

namespace {

// Index of `addr` in a register array, or -1.
int array_index(uint32_t addr, uint32_t offset, uint32_t count, uint32_t stride) {
  if (addr < offset) return -1;
  const uint32_t delta = addr - offset;
  if (delta % stride != 0 || delta / stride >= count) return -1;
  return static_cast<int>(delta / stride);
}

// Word (0..7) of a 256-bit port mask that holds port p, MSB-first as in the MAD.
unsigned mask_word_of_port(unsigned port) { return 7u - port / 32u; }

}  // namespace

void FecnMarkerParams::validate() const {
  auto fail = [](const std::string& what) { throw std::invalid_argument("fecn_marker: " + what); };
  if (num_inputs < 1 || num_inputs > 64) fail("num_inputs must be 1..64, got " + std::to_string(num_inputs));
  if (num_vls < 2 || num_vls > 15) fail("num_vls must be 2..15, got " + std::to_string(num_vls));
  if (fill_width < 4 || fill_width > 16) fail("fill_width must be 4..16, got " + std::to_string(fill_width));
  if (port_num > 255) fail("port_num must be 0..255, got " + std::to_string(port_num));
  if (tick_cycles < 2) fail("tick_cycles must be at least 2, got " + std::to_string(tick_cycles));
}

FecnMarker::FecnMarker(const FecnMarkerParams& params)
    : params_(params),
      fill_mask_((1u << params.fill_width) - 1u),
      fill_q_(params.num_inputs * params.num_vls, 0),
      credits_q_(params.num_vls, 0),
      skip_(params.num_vls, 0),
      timebase_(params.tick_cycles),
      axi_(r::kAddrWidth) {
  params_.validate();
  reset();
}

void FecnMarker::reset() {
  control_map_ = r::kSwControlMapControlMap.reset;
  victim_mask_ = false;
  sw_threshold_ = r::kSwSettingThresholdThreshold.reset;
  sw_packet_size_ = r::kSwSettingThresholdPacketSize.reset;
  sw_marking_rate_ = r::kSwSettingMarkingMarkingRate.reset;
  port_valid_ = r::kPortSettingValid.reset;
  port_threshold_ = r::kPortSettingThreshold.reset;
  port_packet_size_ = r::kPortSettingPacketSize.reset;
  port_marking_rate_ = r::kPortSettingCongParm.reset;
  mapping_ = static_cast<ThresholdMapping>(r::kImplCtrlThresholdMapping.reset);
  marking_mode_ = static_cast<MarkingMode>(r::kImplCtrlMarkingMode.reset);
  hysteresis_ = r::kImplCtrlHysteresis.reset;
  buffer_capacity_ = r::kBufferCapacityCredits.reset & fill_mask_;
  lfsr_ = static_cast<uint16_t>(r::kLfsrSeedSeed.reset);
  std::fill(fill_q_.begin(), fill_q_.end(), 0u);
  fill_summary_q_.fill({0, 0, 0});
  fills_registered_ = false;
  registered_version_ = UINT64_MAX;
  idle_shown_ = false;
  std::fill(credits_q_.begin(), credits_q_.end(), 0u);
  cong_state_ = 0;
  std::fill(skip_.begin(), skip_.end(), 0u);
  pkts_sent_ = pkts_marked_ = cong_entries_ = 0;
  log_.reset();
  port_map_bit_ = false;
  timebase_.reset();
  axi_.reset();
  out_ = {};
  out_.axi = axi_.outputs();
  events_ = {};
}

unsigned FecnMarker::threshold() const { return port_valid_ ? port_threshold_ : sw_threshold_; }
unsigned FecnMarker::packet_size() const { return port_valid_ ? port_packet_size_ : sw_packet_size_; }
unsigned FecnMarker::marking_rate() const { return port_valid_ ? port_marking_rate_ : sw_marking_rate_; }

void FecnMarker::clear_log() {
  log_.clear();
  port_map_bit_ = false;
}

FecnMarker::FillSummary FecnMarker::summarize(unsigned vl) const { return fill_summary_q_[vl]; }

// The summary of the registered fills is kept with them (updated as they are registered,
// at the end of each edge), so the threshold logic of the next edge reads it ready-made.
void FecnMarker::register_fills(const FecnMarkerInputs& in) {
  if (in.tracked && fills_registered_ && registered_version_ != UINT64_MAX) {
    // Most edges register what the previous one did: then registers and summary stay.
    if (registered_version_ == in.fill_version) return;
    if (registered_version_ == in.changed_since && !in.changed_overflow) {
      for (const uint32_t i : in.changed) register_fill(i, in.voq_fill[i] & fill_mask_);
      registered_version_ = in.fill_version;
      return;
    }
  }
  register_all_fills(in.voq_fill);
  registered_version_ = in.tracked ? in.fill_version : UINT64_MAX;
}

void FecnMarker::register_fill(unsigned index, uint32_t fill) {
  uint32_t& q = fill_q_[index];
  const uint32_t old = q;
  if (old == fill) return;
  q = fill;
  const unsigned vls = params_.num_vls, vl = index % vls;
  FillSummary& f = fill_summary_q_[vl];
  f.sum = f.sum - old + fill;
  f.contributors = f.contributors - (old != 0) + (fill != 0);
  if (fill >= f.max) {
    f.max = fill;
  } else if (old == f.max) {  // the largest fell: find the new largest of this VL
    uint32_t m = 0;
    for (size_t i = vl; i < fill_q_.size(); i += vls) m = std::max(m, fill_q_[i]);
    f.max = m;
  }
}

bool FecnMarker::fills_equal(const std::vector<uint32_t>& voq_fill) const {
  for (size_t i = 0; i < fill_q_.size(); ++i) {
    if ((voq_fill[i] & fill_mask_) != fill_q_[i]) return false;
  }
  return true;
}

void FecnMarker::register_all_fills(const std::vector<uint32_t>& voq_fill) {
  if (fills_registered_ && fills_equal(voq_fill)) return;
  fills_registered_ = true;
  fill_summary_q_.fill({0, 0, 0});
  const unsigned vls = params_.num_vls;
  const uint32_t* in = voq_fill.data();
  uint32_t* q = fill_q_.data();
  for (unsigned p = 0; p < params_.num_inputs; ++p, in += vls, q += vls) {
    for (unsigned v = 0; v < vls; ++v) {
      const uint32_t fill = in[v] & fill_mask_;
      q[v] = fill;
      FillSummary& f = fill_summary_q_[v];
      f.sum += fill;
      f.contributors += fill != 0;
      f.max = std::max(f.max, fill);
    }
  }
}

bool FecnMarker::crossed(const FillSummary& f, unsigned level16) const {
  const uint64_t trip = uint64_t{level16} * buffer_capacity_;
  switch (mapping_) {
    case ThresholdMapping::kPerVoq: return uint64_t{f.max} * 16u >= trip;
    case ThresholdMapping::kSum: return uint64_t{f.sum} * 16u >= trip;
    case ThresholdMapping::kSumDivPorts:
      return f.contributors != 0 && uint64_t{f.sum} * 16u * f.contributors >= trip;
  }
  return false;
}

bool FecnMarker::next_cong_state(unsigned vl, FecnMarkerEvents* ev) const {
  return next_cong_state(vl, summarize(vl), ev);
}

bool FecnMarker::next_cong_state(unsigned vl, const FillSummary& fills, FecnMarkerEvents* ev) const {
  const unsigned th = threshold();
  if (th == 0) return false;
  const bool now = congested(vl);
  const unsigned enter = enter_level16(th);
  const unsigned exit = exit_level16(th, hysteresis_);
  const bool over = crossed(fills, now ? exit : enter);
  const bool root = credits_q_[vl] != 0;
  const bool next = over && (root || victim_mask_);
  if (ev) {
    const uint32_t bit = 1u << vl;
    if (over && !root && !victim_mask_) ev->victim_blocked |= bit;
    if (next && !root) ev->victim_masked |= bit;
    // Held by hysteresis: still in the state, but below the entry level.
    if (next && now && exit != enter && !crossed(fills, enter)) ev->hysteresis_held = true;
  }
  return next;
}

bool FecnMarker::log_clear_requested(const RegWrite& w) const {
  return w.valid && w.addr == r::kLogCtrlOffset &&
         r::kLogCtrlClear.get(apply_strobe(0, w.data, w.strb)) != 0;
}

const FecnMarkerOutputs& FecnMarker::step(const FecnMarkerInputs& in) {
  events_ = {};
  idle_shown_ = false;

  // An idle bus on an idle slave (every edge of the network model): the slave keeps its
  // state and outputs, so its part of the edge is skipped.
  const bool bus_quiet = axi_.quiet(in.axi);

  // The bus requests of this edge see the registers as they are before the edge.
  const RegWrite wr = bus_quiet ? RegWrite{} : axi_.write_request();
  const RegRead rd = bus_quiet ? RegRead{} : axi_.read_request();
  uint32_t rdata = 0;
  bool read_error = false;
  if (rd.valid) read_error = !read_csr(rd.addr, &rdata);
  bool write_ok = false;
  uint32_t merged = 0;
  if (wr.valid) {
    uint32_t current = 0;
    if (!read_csr(wr.addr, &current)) current = 0;
    merged = apply_strobe(current, wr.data, wr.strb);
    write_ok = legal_write(wr.addr, merged);
  }
  const bool clear_log_now = write_ok && log_clear_requested(wr);

  // Congestion state per VL.
  uint32_t next_state = 0;
  for (unsigned v = 0; v < params_.num_vls; ++v) {
    if (next_cong_state(v, fill_summary_q_[v], &events_)) next_state |= 1u << v;
  }

  // The departing packet.
  bool mark = false;
  if (in.pkt_valid) {
    ++pkts_sent_;
    const unsigned vl = in.pkt_vl;
    if (vl < params_.num_vls && congested(vl)) {
      if ((in.pkt_len & 0xffu) >= packet_size()) {
        events_.eligible = true;
        if (skip_[vl] == 0) {
          mark = true;
          if (marking_mode_ == MarkingMode::kCounter) {
            skip_[vl] = marking_rate();
          } else {
            skip_[vl] = random_gap(lfsr_, marking_rate());
            lfsr_ = lfsr16_next(lfsr_);
          }
        } else {
          --skip_[vl];
          events_.skipped = true;
        }
      } else {
        events_.too_small = true;
      }
    }
  }
  events_.marked = mark;

  // Congestion log: a clear of this edge happens before this edge's event.
  if (clear_log_now) {
    clear_log();
    events_.log_cleared = true;
  }
  if (mark) {
    ++pkts_marked_;
    const auto pushed = log_.push({in.pkt_slid & 0xffffu, in.pkt_dlid & 0xffffu, in.pkt_sl & 0xfu,
                                   timebase_.timestamp()});
    events_.log_wrapped = pushed.wrapped;
    events_.log_counter_saturated = pushed.saturated;
  }
  events_.entered = next_state & ~cong_state_;
  events_.left = cong_state_ & ~next_state;
  if (events_.entered) {
    port_map_bit_ = true;
    cong_entries_ += static_cast<uint32_t>(__builtin_popcount(events_.entered));
  }
  cong_state_ = next_state;
  register_fills(in);
  for (size_t v = 0; v < credits_q_.size(); ++v) credits_q_[v] = in.credits[v] & fill_mask_;

  // Register write last: this edge's datapath used the old configuration.
  if (wr.valid && write_ok) apply_write(wr.addr, merged);
  events_.write_error = wr.valid && !write_ok;
  events_.read_error = rd.valid && read_error;

  timebase_.clock();
  if (!bus_quiet) axi_.clock(in.axi, wr.valid && !write_ok, rdata, read_error);

  out_.cong_state = cong_state_;
  out_.fecn_valid = in.pkt_valid;
  out_.fecn_mark = mark;
  if (!bus_quiet) out_.axi = axi_.outputs();
  return out_;
}

void FecnMarker::advance_idle(const FecnMarkerInputs& in, uint64_t cycles, unsigned settled_edges) {
  if (in.pkt_valid || !axi_.quiet(in.axi)) {
    throw std::logic_error("fecn_marker: advance_idle needs no packet and an idle bus");
  }
  // At most three edges change the state (input register, congestion state, hysteresis);
  // fewer when the fixed point is reached earlier.
  const uint64_t need = settled_edges >= 3 ? 0 : 3 - settled_edges;
  uint64_t run = 0;
  while (run < cycles && run < need && !settled(in)) {
    step(in);
    ++run;
  }
  if (run < cycles) {
    show_idle_edge();
    timebase_.advance(cycles - run);
  }
}

bool FecnMarker::fills_are_registered(const FecnMarkerInputs& in) const {
  if (!fills_registered_) return false;
  if (in.tracked && registered_version_ != UINT64_MAX) return registered_version_ == in.fill_version;
  return fills_equal(in.voq_fill);
}

bool FecnMarker::settled(const FecnMarkerInputs& in) const {
  if (in.pkt_valid || !axi_.quiet(in.axi)) return false;
  for (unsigned v = 0; v < params_.num_vls; ++v) {
    if ((in.credits[v] & fill_mask_) != credits_q_[v]) return false;
  }
  if (!fills_are_registered(in)) return false;
  for (unsigned v = 0; v < params_.num_vls; ++v) {
    if (next_cong_state(v, fill_summary_q_[v], nullptr) != congested(v)) return false;
  }
  return true;
}

// Outputs and events as an idle edge at the fixed point leaves them.
void FecnMarker::show_idle_edge() {
  if (idle_shown_) return;
  idle_shown_ = true;
  events_ = {};
  for (unsigned v = 0; v < params_.num_vls; ++v) next_cong_state(v, fill_summary_q_[v], &events_);
  out_.fecn_valid = false;
  out_.fecn_mark = false;
}

bool FecnMarker::read_csr(uint32_t addr, uint32_t* data) const {
  uint32_t v = 0;
  int i;
  if (addr & 3u) return false;
  if (addr == r::kCongestionInfoOffset) {
    v = r::kCongestionInfoCongestionInfo.put(0) | r::kCongestionInfoControlTableCap.put(0);
  } else if (addr == r::kSwControlMapOffset) {
    v = control_map_;
  } else if ((i = array_index(addr, r::kSwVictimMaskOffset, r::kSwVictimMaskCount, r::kSwVictimMaskStride)) >= 0) {
    if (static_cast<unsigned>(i) == mask_word_of_port(params_.port_num) && victim_mask_) {
      v = 1u << (params_.port_num % 32u);
    }
  } else if (array_index(addr, r::kSwCreditMaskOffset, r::kSwCreditMaskCount, r::kSwCreditMaskStride) >= 0) {
    v = 0;
  } else if (addr == r::kSwSettingThresholdOffset) {
    v = r::kSwSettingThresholdThreshold.put(sw_threshold_) |
        r::kSwSettingThresholdPacketSize.put(sw_packet_size_);
  } else if (addr == r::kSwSettingMarkingOffset) {
    v = r::kSwSettingMarkingMarkingRate.put(sw_marking_rate_);
  } else if (addr == r::kPortSettingOffset) {
    v = r::kPortSettingValid.put(port_valid_) | r::kPortSettingThreshold.put(port_threshold_) |
        r::kPortSettingPacketSize.put(port_packet_size_) | r::kPortSettingCongParm.put(port_marking_rate_);
  } else if (addr == r::kLogHeaderOffset) {
    v = r::kLogHeaderLogType.put(1) | r::kLogHeaderLogEventsCounter.put(log_.counter());
  } else if (addr == r::kLogTimestampOffset || addr == r::kTimestampOffset) {
    v = timebase_.timestamp();
  } else if ((i = array_index(addr, r::kLogPortmapOffset, r::kLogPortmapCount, r::kLogPortmapStride)) >= 0) {
    if (static_cast<unsigned>(i) == mask_word_of_port(params_.port_num) && port_map_bit_) {
      v = 1u << (params_.port_num % 32u);
    }
  } else if ((i = array_index(addr, r::kLogEventLidsOffset, r::kLogEventLidsCount, r::kLogEventLidsStride)) >= 0) {
    if (static_cast<unsigned>(i) < log_.count()) {
      const SwitchLogEvent& e = log_event(static_cast<unsigned>(i));
      v = r::kLogEventLidsSlid.put(e.slid) | r::kLogEventLidsDlid.put(e.dlid);
    }
  } else if ((i = array_index(addr, r::kLogEventSlOffset, r::kLogEventSlCount, r::kLogEventSlStride)) >= 0) {
    if (static_cast<unsigned>(i) < log_.count()) v = r::kLogEventSlSl.put(log_event(static_cast<unsigned>(i)).sl);
  } else if ((i = array_index(addr, r::kLogEventTimestampOffset, r::kLogEventTimestampCount, r::kLogEventTimestampStride)) >= 0) {
    if (static_cast<unsigned>(i) < log_.count()) v = log_event(static_cast<unsigned>(i)).timestamp;
  } else if (addr == r::kImplCtrlOffset) {
    v = r::kImplCtrlThresholdMapping.put(static_cast<uint32_t>(mapping_)) |
        r::kImplCtrlMarkingMode.put(static_cast<uint32_t>(marking_mode_)) |
        r::kImplCtrlHysteresis.put(hysteresis_);
  } else if (addr == r::kBufferCapacityOffset) {
    v = buffer_capacity_;
  } else if (addr == r::kLfsrSeedOffset) {
    v = lfsr_;
  } else if (addr == r::kLogCtrlOffset) {
    v = 0;
  } else if (addr == r::kCongStateOffset) {
    v = cong_state_;
  } else if (addr == r::kPktsSentOffset) {
    v = pkts_sent_;
  } else if (addr == r::kPktsMarkedOffset) {
    v = pkts_marked_;
  } else if (addr == r::kCongEntriesOffset) {
    v = cong_entries_;
  } else if (addr == r::kBlockInfoOffset) {
    v = r::kBlockInfoPortNum.put(params_.port_num) | r::kBlockInfoFillWidth.put(params_.fill_width) |
        r::kBlockInfoNumVls.put(params_.num_vls) | r::kBlockInfoNumInputs.put(params_.num_inputs);
  } else {
    return false;
  }
  *data = v;
  return true;
}

bool FecnMarker::legal_write(uint32_t addr, uint32_t merged) const {
  if (addr & 3u) return false;
  if (addr == r::kSwControlMapOffset || addr == r::kSwSettingThresholdOffset ||
      addr == r::kSwSettingMarkingOffset || addr == r::kPortSettingOffset ||
      addr == r::kLogCtrlOffset) {
    return true;
  }
  if (array_index(addr, r::kSwVictimMaskOffset, r::kSwVictimMaskCount, r::kSwVictimMaskStride) >= 0 ||
      array_index(addr, r::kSwCreditMaskOffset, r::kSwCreditMaskCount, r::kSwCreditMaskStride) >= 0) {
    return true;
  }
  if (addr == r::kImplCtrlOffset) return r::kImplCtrlThresholdMapping.get(merged) <= 2u;
  if (addr == r::kBufferCapacityOffset) return (merged & fill_mask_) != 0;
  if (addr == r::kLfsrSeedOffset) return r::kLfsrSeedSeed.get(merged) != 0;
  return false;  // read-only or unmapped
}

void FecnMarker::apply_write(uint32_t addr, uint32_t merged) {
  idle_shown_ = false;  // the settings the idle edge's events came from may change
  int i;
  if (addr == r::kSwControlMapOffset) {
    control_map_ = merged;
  } else if ((i = array_index(addr, r::kSwVictimMaskOffset, r::kSwVictimMaskCount, r::kSwVictimMaskStride)) >= 0) {
    if (static_cast<unsigned>(i) == mask_word_of_port(params_.port_num)) {
      victim_mask_ = (merged >> (params_.port_num % 32u)) & 1u;
    }
  } else if (addr == r::kSwSettingThresholdOffset) {
    sw_threshold_ = r::kSwSettingThresholdThreshold.get(merged);
    sw_packet_size_ = r::kSwSettingThresholdPacketSize.get(merged);
  } else if (addr == r::kSwSettingMarkingOffset) {
    sw_marking_rate_ = r::kSwSettingMarkingMarkingRate.get(merged);
  } else if (addr == r::kPortSettingOffset) {
    port_valid_ = r::kPortSettingValid.get(merged);
    port_threshold_ = r::kPortSettingThreshold.get(merged);
    port_packet_size_ = r::kPortSettingPacketSize.get(merged);
    port_marking_rate_ = r::kPortSettingCongParm.get(merged);
  } else if (addr == r::kImplCtrlOffset) {
    mapping_ = static_cast<ThresholdMapping>(r::kImplCtrlThresholdMapping.get(merged));
    marking_mode_ = static_cast<MarkingMode>(r::kImplCtrlMarkingMode.get(merged));
    hysteresis_ = r::kImplCtrlHysteresis.get(merged);
  } else if (addr == r::kBufferCapacityOffset) {
    buffer_capacity_ = merged & fill_mask_;
  } else if (addr == r::kLfsrSeedOffset) {
    lfsr_ = static_cast<uint16_t>(r::kLfsrSeedSeed.get(merged));
  }
  // LOG_CTRL acts in step(); the credit-starvation words are write-ignored.
}

bool FecnMarker::write_csr(uint32_t addr, uint32_t wdata, uint32_t wstrb) {
  uint32_t current = 0;
  if (!read_csr(addr, &current)) current = 0;
  const uint32_t merged = apply_strobe(current, wdata, wstrb);
  if (!legal_write(addr, merged)) return false;
  apply_write(addr, merged);
  if (addr == r::kLogCtrlOffset && r::kLogCtrlClear.get(merged)) clear_log();
  return true;
}

}  // namespace ibcc::cc
