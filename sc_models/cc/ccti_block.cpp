// HCA CCTI block: cycle-exact reference of rtl/ccti_block.sv.
#include "cc/ccti_block.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "cc/ccti_block_regs.h"

namespace ibcc::cc {

namespace r = ibcc::regs::ccti_block;
using ibcc::regs::apply_strobe;

namespace {

int array_index(uint32_t addr, uint32_t offset, uint32_t count, uint32_t stride) {
  if (addr < offset) return -1;
  const uint32_t delta = addr - offset;
  if (delta % stride != 0 || delta / stride >= count) return -1;
  return static_cast<int>(delta / stride);
}

bool power_of_two(unsigned v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

void CctiBlockParams::validate() const {
  auto fail = [](const std::string& what) { throw std::invalid_argument("ccti_block: " + what); };
  if (!power_of_two(num_qps) || num_qps < 16 || num_qps > 256) {
    fail("num_qps must be a power of two in 16..256, got " + std::to_string(num_qps));
  }
  if (!power_of_two(cct_entries) || cct_entries < 64 || cct_entries > 512) {
    fail("cct_entries must be a power of two in 64..512, got " + std::to_string(cct_entries));
  }
  if (tick_cycles < 2) fail("tick_cycles must be at least 2, got " + std::to_string(tick_cycles));
}

CctiBlock::CctiBlock(const CctiBlockParams& params)
    : params_(params), timebase_(params.tick_cycles), axi_(r::kAddrWidth) {
  params_.validate();
  cct_.assign(params_.cct_entries, 0);
  ccti_.assign(params_.num_qps, 0);
  flow_sl_.assign(params_.num_qps, 0);
  reset();
}

void CctiBlock::reset() {
  quiet_edges_ = 0;
  last_query_qp_ = last_query_sl_ = 0;
  sl_based_ = r::kCaSettingPortControl.reset & 1u;
  control_map_ = r::kCaSettingControlMap.reset;
  timer_reload_.fill(r::kCaSlTimerCctiTimer.reset);
  increase_.fill(r::kCaSlTimerCctiIncrease.reset);
  trigger_threshold_.fill(r::kCaSlTimerTriggerThreshold.reset);
  ccti_min_.fill(r::kCaSlMinCctiMin.reset);
  cct_limit_ = r::kCctLimitCctiLimit.reset;
  std::fill(cct_.begin(), cct_.end(), uint16_t{0});
  ird_formula_ = static_cast<IrdFormula>(r::kImplCtrlIrdFormula.reset);
  mtu_tx_cycles_ = r::kMtuTxCyclesCycles.reset;
  std::fill(ccti_.begin(), ccti_.end(), 0u);
  std::fill(flow_sl_.begin(), flow_sl_.end(), 0u);
  timer_running_ = 0;
  timer_count_.fill(0);
  becn_count_ = timer_expiries_ = 0;
  log_.reset();
  event_map_ = 0;
  query_entry_ = 0;
  query_enabled_ = false;
  query_ccti_ = 0;
  timebase_.reset();
  axi_.reset();
  out_ = {};
  out_.axi = axi_.outputs();
  events_ = {};
}

void CctiBlock::clear_log() {
  log_.clear();
  event_map_ = 0;
}

uint32_t CctiBlock::effective_limit() const {
  return std::min<uint32_t>(cct_limit_, params_.cct_entries - 1u);
}


unsigned CctiBlock::governing_sl(unsigned f) const {
  if (sl_based_) return f < kNumSls ? f : kNumSls;
  return flow_sl_[f];
}

CctiBlock::Lookup CctiBlock::lookup(uint32_t qp, uint32_t sl) const {
  sl &= 0xfu;
  const uint32_t c = ccti_[flow_index(qp, sl)];
  const uint32_t floor = std::max(c, ccti_min_[sl]);
  return {std::min(floor, effective_limit()), ((control_map_ >> sl) & 1u) != 0};
}

uint32_t CctiBlock::ird_now(uint32_t qp, uint32_t sl) const {
  const Lookup l = lookup(qp, sl);
  return l.enabled ? ird_cycles(ird_formula_, cct_[l.index], mtu_tx_cycles_) : 0u;
}

const CctiBlockOutputs& CctiBlock::step(const CctiBlockInputs& in) {
  events_ = {};

  // An idle bus on an idle slave: the slave keeps its state and outputs.
  const bool bus_quiet = axi_.quiet(in.axi);
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
    write_ok = legal_write(wr.addr);
  }
  const bool clear = write_ok && wr.addr == r::kLogCtrlOffset && r::kLogCtrlClear.get(merged);

  // Registered IRD lookup of the current state.
  {
    const uint32_t sl = in.query_sl & 0xfu;
    const Lookup l = lookup(in.query_qp, sl);
    const uint32_t c = ccti_[flow_index(in.query_qp, sl)];
    query_entry_ = cct_[l.index];
    query_enabled_ = l.enabled;
    query_ccti_ = c;
    events_.query_first = l.index == 0;
    events_.query_last = l.index == effective_limit();
    events_.query_limit_clamped = cct_limit_ > params_.cct_entries - 1u && l.index == effective_limit();
    events_.query_min_floor = c < ccti_min_[sl] && ccti_min_[sl] <= effective_limit();
  }

  // Timer expiries at this edge.
  const bool tick = timebase_.tick();
  uint32_t expired = 0;
  for (unsigned s = 0; s < kNumSls; ++s) {
    if (tick && timer_running(s) && timer_count_[s] == 1) expired |= 1u << s;
  }

  // BECN.
  const uint32_t bsl = in.becn_sl & 0xfu;
  const bool becn = in.becn_valid && ((control_map_ >> bsl) & 1u);
  events_.becn = becn;
  events_.becn_disabled_sl = in.becn_valid && !becn;
  const unsigned bflow = flow_index(in.becn_qp, bsl);
  const uint32_t limit = effective_limit();
  bool trigger = false;

  // Per-flow CCTI: the expiry's decrement first, then the BECN's increase. Expiries are
  // rare (at most once per tick), so the sweep over all flows runs only then.
  if (expired) {
    for (unsigned f = 0; f < params_.num_qps; ++f) {
      const unsigned s = governing_sl(f);
      if (s >= kNumSls || !((expired >> s) & 1u)) continue;
      if (ccti_[f] > ccti_min_[s]) {
        --ccti_[f];
        events_.decremented = true;
      } else {
        events_.held_at_min = true;
      }
    }
  }
  if (becn) {
    const uint32_t c = ccti_[bflow];
    const uint32_t raised = c + increase_[bsl];
    events_.becn_at_limit = raised >= limit;
    const uint32_t next = std::min(raised, limit);
    const uint32_t tt = trigger_threshold_[bsl];
    trigger = tt != 0 && c < tt && next >= tt;
    ccti_[bflow] = next;
    if (!sl_based_) flow_sl_[bflow] = bsl;
  }

  // Per-SL timers: re-arm after an expiry while a flow of the SL is above CCTI_Min; a
  // BECN arms an idle timer; a running timer is never restarted by a BECN.
  uint32_t above = 0;
  if (expired) {
    for (unsigned f = 0; f < params_.num_qps; ++f) {
      const unsigned s = governing_sl(f);
      if (s < kNumSls && ccti_[f] > ccti_min_[s]) above |= 1u << s;
    }
  }
  for (unsigned s = 0; s < kNumSls; ++s) {
    const uint32_t bit = 1u << s;
    const bool arm = becn && bsl == s && !timer_running(s);
    if (expired & bit) {
      events_.expiry_with_becn = events_.expiry_with_becn || (becn && bsl == s);
      if (above & bit) {
        timer_count_[s] = timer_reload_[s];
        events_.timer_rearmed = true;
      } else {
        timer_running_ &= ~bit;
        timer_count_[s] = 0;
        events_.timer_stopped = true;
      }
    } else if (arm) {
      timer_running_ |= bit;
      timer_count_[s] = timer_reload_[s];
      events_.timer_armed = true;
    } else if (tick && timer_running(s) && timer_count_[s] > 1) {
      --timer_count_[s];
    }
  }
  timer_expiries_ += static_cast<uint32_t>(__builtin_popcount(expired));
  if (becn) ++becn_count_;

  // Congestion log: a clear of this edge happens before this edge's event.
  if (clear) {
    clear_log();
    events_.log_cleared = true;
  }
  if (trigger) {
    const auto pushed = log_.push({in.becn_qp & (params_.num_qps - 1u), in.becn_rqpn & 0xffffffu, bsl,
                                   in.becn_st & 0xfu, in.becn_llid & 0xffffu, in.becn_rlid & 0xffffu, timebase_.timestamp()});
    events_.log_wrapped = pushed.wrapped;
    events_.log_counter_saturated = pushed.saturated;
    event_map_ |= 1u << bsl;
  }
  events_.trigger = trigger;

  if (wr.valid && write_ok) apply_write(wr.addr, merged);
  events_.write_error = wr.valid && !write_ok;
  events_.read_error = rd.valid && read_error;

  timebase_.clock();
  if (!bus_quiet) axi_.clock(in.axi, wr.valid && !write_ok, rdata, read_error);

  out_.ird = query_enabled_ ? ird_cycles(ird_formula_, query_entry_, mtu_tx_cycles_) : 0u;
  out_.ccti = query_ccti_;
  out_.timer_expired = expired;
  out_.trigger_event = trigger;
  if (!bus_quiet) out_.axi = axi_.outputs();

  const uint32_t qsl = in.query_sl & 0xfu;
  const bool quiet = bus_quiet && !in.becn_valid && expired == 0 && in.query_qp == last_query_qp_ && qsl == last_query_sl_;
  quiet_edges_ = quiet ? (quiet_edges_ >= 2 ? 2u : quiet_edges_ + 1) : 0u;
  last_query_qp_ = in.query_qp;
  last_query_sl_ = qsl;
  return out_;
}

void CctiBlock::advance_idle(const CctiBlockInputs& in, uint64_t cycles) {
  if (in.becn_valid || !axi_.quiet(in.axi)) {
    throw std::logic_error("ccti_block: advance_idle needs no BECN and an idle bus");
  }
  // Real edges settle the registered outputs (none needed if the last two edges were quiet
  // ones with this query); between expiries only counters move.
  unsigned settle =
      quiet_edges_ >= 2 && in.query_qp == last_query_qp_ && (in.query_sl & 0xfu) == last_query_sl_ ? 0u : 2u;
  while (cycles > 0) {
    if (settle > 0) {
      step(in);
      --cycles;
      --settle;
      // An expiry changes CCTIs the registered lookup shows only one edge later.
      if (out_.timer_expired != 0 && settle == 0) settle = 1;
      continue;
    }
    uint64_t ticks_to_expiry = std::numeric_limits<uint64_t>::max();
    for (unsigned s = 0; s < kNumSls; ++s) {
      if (timer_running(s) && timer_count_[s] >= 1) {
        ticks_to_expiry = std::min<uint64_t>(ticks_to_expiry, timer_count_[s]);
      }
    }
    uint64_t bulk = cycles;
    if (ticks_to_expiry != std::numeric_limits<uint64_t>::max()) {
      const uint64_t expiry_edge =
          timebase_.edges_to_next_tick() + (ticks_to_expiry - 1) * timebase_.tick_cycles();
      bulk = std::min(cycles, expiry_edge - 1);
    }
    const uint64_t ticks = timebase_.ticks_within(bulk);
    for (unsigned s = 0; s < kNumSls; ++s) {
      if (timer_running(s) && timer_count_[s] > 1) timer_count_[s] -= static_cast<uint32_t>(ticks);
    }
    timebase_.advance(bulk);
    cycles -= bulk;
    settle = 2;  // the next edge is an expiry (or the end)
  }
}

bool CctiBlock::read_csr(uint32_t addr, uint32_t* data) const {
  uint32_t v = 0;
  int i;
  const uint32_t pairs = params_.cct_entries / 2u;
  if (addr & 3u) return false;
  if (addr == r::kCongestionInfoOffset) {
    v = r::kCongestionInfoControlTableCap.put(params_.cct_entries / 64u);
  } else if (addr == r::kCaSettingOffset) {
    v = r::kCaSettingPortControl.put(sl_based_ ? 1u : 0u) | r::kCaSettingControlMap.put(control_map_);
  } else if ((i = array_index(addr, r::kCaSlTimerOffset, r::kCaSlTimerCount, r::kCaSlTimerStride)) >= 0) {
    v = r::kCaSlTimerCctiTimer.put(timer_reload_[i]) | r::kCaSlTimerCctiIncrease.put(increase_[i]) |
        r::kCaSlTimerTriggerThreshold.put(trigger_threshold_[i]);
  } else if ((i = array_index(addr, r::kCaSlMinOffset, r::kCaSlMinCount, r::kCaSlMinStride)) >= 0) {
    v = r::kCaSlMinCctiMin.put(ccti_min_[i]);
  } else if (addr == r::kCctLimitOffset) {
    v = r::kCctLimitCctiLimit.put(cct_limit_);
  } else if ((i = array_index(addr, r::kCctEntryPairOffset, pairs, r::kCctEntryPairStride)) >= 0) {
    v = r::kCctEntryPairEntryEven.put(cct_[2 * i]) | r::kCctEntryPairEntryOdd.put(cct_[2 * i + 1]);
  } else if (addr == r::kLogHeaderOffset) {
    v = r::kLogHeaderLogType.put(2) | r::kLogHeaderThresholdEventCounter.put(log_.counter());
  } else if (addr == r::kLogEventMapOffset) {
    v = r::kLogEventMapEventMap.put(event_map_);
  } else if (addr == r::kLogTimestampOffset || addr == r::kTimestampOffset) {
    v = timebase_.timestamp();
  } else if ((i = array_index(addr, r::kLogEventLqpnOffset, r::kLogEventLqpnCount, r::kLogEventLqpnStride)) >= 0) {
    if (static_cast<unsigned>(i) < log_.count()) {
      const CaLogEvent& e = log_event(i);
      v = r::kLogEventLqpnLocalQpn.put(e.local_qpn) | r::kLogEventLqpnSl.put(e.sl) |
          r::kLogEventLqpnServiceType.put(e.service_type);
    }
  } else if ((i = array_index(addr, r::kLogEventRqpnOffset, r::kLogEventRqpnCount, r::kLogEventRqpnStride)) >= 0) {
    if (static_cast<unsigned>(i) < log_.count()) v = r::kLogEventRqpnRemoteQpn.put(log_event(i).remote_qpn);
  } else if ((i = array_index(addr, r::kLogEventLidsOffset, r::kLogEventLidsCount, r::kLogEventLidsStride)) >= 0) {
    if (static_cast<unsigned>(i) < log_.count()) {
      const CaLogEvent& e = log_event(i);
      v = r::kLogEventLidsLocalLid.put(e.llid) | r::kLogEventLidsRlid.put(e.rlid);
    }
  } else if ((i = array_index(addr, r::kLogEventTimestampOffset, r::kLogEventTimestampCount, r::kLogEventTimestampStride)) >= 0) {
    if (static_cast<unsigned>(i) < log_.count()) v = log_event(i).timestamp;
  } else if (addr == r::kImplCtrlOffset) {
    v = r::kImplCtrlIrdFormula.put(static_cast<uint32_t>(ird_formula_));
  } else if (addr == r::kMtuTxCyclesOffset) {
    v = r::kMtuTxCyclesCycles.put(mtu_tx_cycles_);
  } else if (addr == r::kLogCtrlOffset) {
    v = 0;
  } else if (addr == r::kBecnCountOffset) {
    v = becn_count_;
  } else if (addr == r::kTimerExpiriesOffset) {
    v = timer_expiries_;
  } else if (addr == r::kTimerRunningOffset) {
    v = timer_running_;
  } else if (addr == r::kBlockInfoOffset) {
    v = r::kBlockInfoCctEntries.put(params_.cct_entries) | r::kBlockInfoNumQps.put(params_.num_qps);
  } else if ((i = array_index(addr, r::kFlowCctiOffset, params_.num_qps, r::kFlowCctiStride)) >= 0) {
    v = r::kFlowCctiSl.put(flow_sl_[i]) | r::kFlowCctiCcti.put(ccti_[i]);
  } else {
    return false;
  }
  *data = v;
  return true;
}

bool CctiBlock::legal_write(uint32_t addr) const {
  if (addr & 3u) return false;
  return addr == r::kCaSettingOffset || addr == r::kCctLimitOffset || addr == r::kImplCtrlOffset ||
         addr == r::kMtuTxCyclesOffset || addr == r::kLogCtrlOffset ||
         array_index(addr, r::kCaSlTimerOffset, r::kCaSlTimerCount, r::kCaSlTimerStride) >= 0 ||
         array_index(addr, r::kCaSlMinOffset, r::kCaSlMinCount, r::kCaSlMinStride) >= 0 ||
         array_index(addr, r::kCctEntryPairOffset, params_.cct_entries / 2u, r::kCctEntryPairStride) >= 0;
}

void CctiBlock::apply_write(uint32_t addr, uint32_t merged) {
  quiet_edges_ = 0;  // settings the registered outputs came from may change
  int i;
  if (addr == r::kCaSettingOffset) {
    sl_based_ = r::kCaSettingPortControl.get(merged) & 1u;
    control_map_ = r::kCaSettingControlMap.get(merged);
  } else if ((i = array_index(addr, r::kCaSlTimerOffset, r::kCaSlTimerCount, r::kCaSlTimerStride)) >= 0) {
    timer_reload_[i] = r::kCaSlTimerCctiTimer.get(merged);
    increase_[i] = r::kCaSlTimerCctiIncrease.get(merged);
    trigger_threshold_[i] = r::kCaSlTimerTriggerThreshold.get(merged);
  } else if ((i = array_index(addr, r::kCaSlMinOffset, r::kCaSlMinCount, r::kCaSlMinStride)) >= 0) {
    ccti_min_[i] = r::kCaSlMinCctiMin.get(merged);
  } else if (addr == r::kCctLimitOffset) {
    cct_limit_ = r::kCctLimitCctiLimit.get(merged);
  } else if ((i = array_index(addr, r::kCctEntryPairOffset, params_.cct_entries / 2u, r::kCctEntryPairStride)) >= 0) {
    cct_[2 * i] = static_cast<uint16_t>(r::kCctEntryPairEntryEven.get(merged));
    cct_[2 * i + 1] = static_cast<uint16_t>(r::kCctEntryPairEntryOdd.get(merged));
  } else if (addr == r::kImplCtrlOffset) {
    ird_formula_ = static_cast<IrdFormula>(r::kImplCtrlIrdFormula.get(merged));
  } else if (addr == r::kMtuTxCyclesOffset) {
    mtu_tx_cycles_ = r::kMtuTxCyclesCycles.get(merged);
  }
  // LOG_CTRL acts in step() / write_csr().
}

bool CctiBlock::write_csr(uint32_t addr, uint32_t wdata, uint32_t wstrb) {
  if (!legal_write(addr)) return false;
  uint32_t current = 0;
  if (!read_csr(addr, &current)) current = 0;
  const uint32_t merged = apply_strobe(current, wdata, wstrb);
  apply_write(addr, merged);
  if (addr == r::kLogCtrlOffset && r::kLogCtrlClear.get(merged)) clear_log();
  return true;
}

}  // namespace ibcc::cc
