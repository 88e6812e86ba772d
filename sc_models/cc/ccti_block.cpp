// HCA CCTI block: cycle-exact reference of rtl/ccti_block.sv.
#include "cc/ccti_block.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "cc/ccti_block_regfile.h"

namespace ibcc::cc {

namespace r = ibcc::regs::ccti_block;
namespace {

bool power_of_two(unsigned v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

void CctiBlockParams::validate() const {
  auto fail = [](const std::string& what) { throw std::invalid_argument("ccti_block: " + what); };
  // The register map's FLOW_CCTI window holds kFlowCctiCount flows.
  if (!power_of_two(num_qps) || num_qps < 16 || num_qps > r::kFlowCctiCount) {
    fail("num_qps must be a power of two in 16.." + std::to_string(r::kFlowCctiCount) + ", got " + std::to_string(num_qps));
  }
  // The register map's CCT window holds 64 entry pairs (CCT_ENTRY_PAIR).
  if (!power_of_two(cct_entries) || cct_entries < 64 || cct_entries > 2 * r::kCctEntryPairCount) {
    fail("cct_entries must be a power of two in 64.." + std::to_string(2 * r::kCctEntryPairCount) + ", got " +
         std::to_string(cct_entries));
  }
  if (tick_cycles < 2) fail("tick_cycles must be at least 2, got " + std::to_string(tick_cycles));
}

CctiBlock::CctiBlock(const CctiBlockParams& params)
    : params_(params), timebase_(params.tick_cycles), axi_(r::kAddrWidth) {
  params_.validate();
  decode_params_.cct_entries = params_.cct_entries;
  decode_params_.num_qps = params_.num_qps;
  cct_.assign(params_.cct_entries / 2, 0);
  flows_.assign(params_.num_qps, FlowWord{});
  reset();
}

void CctiBlock::reset() {
  quiet_edges_ = 0;
  last_query_qp_ = last_query_sl_ = 0;
  regs_.reset(decode_params_);  // the CCT is a RAM: a reset leaves it as it is
  update_settings();
  // The flow RAM keeps its words; a reset clears the flags saying they were written.
  for (FlowWord& w : flows_) w.written = false;
  sl_expiries_.fill(0);
  height_.fill(0);
  pending_ = {};
  query_flow_ = 0;
  query_sl_ = 0;
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
  slave_idle_ = axi_.idle();
  out_ = {};
  out_.axi = axi_.outputs();
  events_ = {};
}

void CctiBlock::clear_log() {
  log_.clear();
  event_map_ = 0;
}

uint32_t CctiBlock::effective_limit() const { return set_.limit; }

void CctiBlock::update_settings() {
  set_.control_map = regs_.ca_setting_control_map;
  set_.mtu_tx = regs_.mtu_tx_cycles_cycles;
  set_.limit = std::min<uint32_t>(regs_.cct_limit_ccti_limit, params_.cct_entries - 1u);
  set_.limit_clamped = regs_.cct_limit_ccti_limit > params_.cct_entries - 1u;
  set_.sl_based = regs_.ca_setting_port_control != 0;
  set_.ird_formula = static_cast<IrdFormula>(regs_.impl_ctrl_ird_formula);
  for (unsigned s = 0; s < kNumSls; ++s) sl_min_[s] = static_cast<uint8_t>(regs_.ca_sl_min_ccti_min[s]);
}


// A flow's CCTI after this edge's expiries (`expired`: the SLs expiring, 0 for the state now).
uint32_t CctiBlock::ccti_after(const FlowWord& w, uint32_t expired) const {
  if (!w.written) return 0;
  const uint64_t d = sl_expiries_[w.sl] - w.stamp + ((expired >> w.sl) & 1u);
  return decayed_ccti(w.base, d, sl_min_[w.sl]);
}

uint32_t CctiBlock::ccti(unsigned flow) const { return ccti_after(flows_[flow], 0); }

CctiBlock::Lookup CctiBlock::lookup(unsigned flow, uint32_t sl) const {
  sl &= 0xfu;
  const uint32_t c = ccti(flow);
  const uint32_t floor = std::max<uint32_t>(c, sl_min_[sl]);
  return {c, std::min(floor, set_.limit), ((set_.control_map >> sl) & 1u) != 0};
}

uint32_t CctiBlock::ird_now(uint32_t qp, uint32_t sl) const {
  const Lookup l = lookup(flow_index(qp, sl), sl);
  return l.enabled ? ird_cycles(set_.ird_formula, cct_entry(l.index), set_.mtu_tx) : 0u;
}

const CctiBlockOutputs& CctiBlock::step(const CctiBlockInputs& in) {
  events_ = {};

  // An idle bus on an idle slave: the slave keeps its state and outputs.
  const bool bus_quiet = quiet_bus(in.axi);
  if (bus_quiet && !full_edges_ && !in.becn_valid && !pending_.valid && !expiry_at_this_edge()) return quiet_step(in);
  const RegWrite wr = bus_quiet ? RegWrite{} : axi_.write_request();
  const RegRead rd = bus_quiet ? RegRead{} : axi_.read_request();
  uint32_t rdata = 0;
  bool read_error = false;
  if (rd.valid) read_error = !read_csr(rd.addr, &rdata);
  r::WriteDecode wd;
  if (wr.valid) wd = regs_.check_write(decode_params_, wr.addr, wr.data, wr.strb);
  const bool write_ok = wd.ok;
  const bool clear = r::RegFile::log_ctrl_clear(wd);

  // Registered IRD lookup of the query sampled at the last edge, from the state now.
  {
    const Lookup l = lookup(query_flow_, query_sl_);
    query_entry_ = cct_entry(l.index);
    query_enabled_ = l.enabled;
    query_ccti_ = l.ccti;
    const uint32_t min = sl_min_[query_sl_];
    events_.query_first = l.index == 0;
    events_.query_last = l.index == effective_limit();
    events_.query_limit_clamped = set_.limit_clamped && l.index == effective_limit();
    events_.query_min_floor = l.ccti < min && min <= effective_limit();
  }

  // Timer expiries at this edge.
  const bool tick = timebase_.tick();
  uint32_t expired = 0;
  for (unsigned s = 0; s < kNumSls; ++s) {
    if (tick && timer_running(s) && timer_count_[s] == 1) expired |= 1u << s;
  }
  if (expired) {
    // What the expiries do to the flows (coverage; the words do not change).
    for (const FlowWord& w : flows_) {
      if (!w.written || !((expired >> w.sl) & 1u)) continue;
      if (ccti_after(w, expired) < ccti_after(w, 0)) {
        events_.decremented = true;
      } else {
        events_.held_at_min = true;
      }
    }
  }

  // The BECN registered at the last edge: the flow's CCTI after this edge's expiry, then
  // the increase.
  const PendingBecn b = pending_;
  const bool becn = b.valid && ((set_.control_map >> b.sl) & 1u);
  events_.becn = becn;
  events_.becn_disabled_sl = b.valid && !becn;
  const uint32_t limit = effective_limit();
  bool trigger = false;
  uint32_t next = 0;
  if (becn) {
    FlowWord& w = flows_[b.flow];
    // CCTI_Min is the floor from the start (IBA: CCTI never goes below it): a flow still at
    // its reset CCTI 0, or decayed below a CCTI_Min raised since, rises from the floor.
    const uint32_t c = std::max<uint32_t>(ccti_after(w, expired), sl_min_[b.sl]);
    const uint32_t raised = c + regs_.ca_sl_timer_ccti_increase[b.sl];
    events_.becn_at_limit = raised >= limit;
    next = std::min(raised, limit);
    const uint32_t tt = regs_.ca_sl_timer_trigger_threshold[b.sl];
    trigger = tt != 0 && c < tt && next >= tt;
    w.base = next;
    w.sl = b.sl;
    w.stamp = sl_expiries_[b.sl] + ((expired >> b.sl) & 1u);
    w.written = true;
  }

  // Per-SL heights and timers: an expiry lowers its SL's height by one and re-arms the timer
  // while the height (with this edge's BECN) stays above CCTI_Min; a BECN arms an idle
  // timer; a running timer is never restarted by a BECN.
  for (unsigned s = 0; s < kNumSls; ++s) {
    const uint32_t bit = 1u << s;
    uint32_t h = height_[s];
    if ((expired & bit) && h > 0) --h;
    if (becn && b.sl == s && next > h) h = next;
    height_[s] = h;
    const bool above = h > sl_min_[s];
    if (expired & bit) {
      events_.expiry_with_becn = events_.expiry_with_becn || (becn && b.sl == s);
      ++sl_expiries_[s];
      if (above) {
        timer_count_[s] = regs_.ca_sl_timer_ccti_timer[s];
        events_.timer_rearmed = true;
      } else {
        timer_running_ &= ~bit;
        timer_count_[s] = 0;
        events_.timer_stopped = true;
      }
    } else if (becn && b.sl == s && !timer_running(s)) {
      timer_running_ |= bit;
      timer_count_[s] = regs_.ca_sl_timer_ccti_timer[s];
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
    const auto pushed = log_.push({b.qp, b.rqpn, b.sl, b.st, b.llid, b.rlid, timebase_.timestamp()});
    events_.log_wrapped = pushed.wrapped;
    events_.log_counter_saturated = pushed.saturated;
    event_map_ |= 1u << b.sl;
  }
  events_.trigger = trigger;

  // This edge registers the arriving BECN and query (their flows chosen by the control mode
  // before this edge's CSR write).
  const uint32_t bsl = in.becn_sl & 0xfu;
  pending_ = {in.becn_valid, flow_index(in.becn_qp, bsl), in.becn_qp & (params_.num_qps - 1u), bsl,
              in.becn_rqpn & 0xffffffu, in.becn_rlid & 0xffffu, in.becn_llid & 0xffffu, in.becn_st & 0xfu};
  const uint32_t qsl = in.query_sl & 0xfu;
  query_flow_ = flow_index(in.query_qp, qsl);
  query_sl_ = qsl;

  regs_.apply(decode_params_, wd);
  update_settings();
  write_cct(wd);
  events_.write_error = wr.valid && !write_ok;
  events_.read_error = rd.valid && read_error;

  // A read of the FLOW_CCTI window answers with the flow after this edge (the RTL reads the
  // word at this edge and decays it in the next cycle).
  if (rd.valid && !read_error && flow_window(rd.addr)) read_csr(rd.addr, &rdata);

  timebase_.clock();
  if (!bus_quiet) {
    axi_.clock(in.axi, wr.valid && !write_ok, rdata, read_error);
    slave_idle_ = axi_.idle();
  }

  out_.ird = query_enabled_ ? ird_cycles(set_.ird_formula, query_entry_, set_.mtu_tx) : 0u;
  out_.ccti = query_ccti_;
  out_.timer_expired = expired;
  out_.trigger_event = trigger;
  if (!bus_quiet) out_.axi = axi_.outputs();

  const bool quiet = bus_quiet && !in.becn_valid && !b.valid && expired == 0 && in.query_qp == last_query_qp_ &&
                     qsl == last_query_sl_;
  quiet_edges_ = quiet ? (quiet_edges_ >= 2 ? 2u : quiet_edges_ + 1) : 0u;
  last_query_qp_ = in.query_qp;
  last_query_sl_ = qsl;
  return out_;
}

bool CctiBlock::expiry_at_this_edge() const {
  if (!timebase_.tick() || timer_running_ == 0) return false;
  for (unsigned s = 0; s < kNumSls; ++s) {
    if (timer_running(s) && timer_count_[s] == 1) return true;
  }
  return false;
}

// step() at an edge with an idle bus, no BECN registered or arriving and no expiry: what the
// full edge does then, and nothing else (the unit tests compare both on every edge kind).
const CctiBlockOutputs& CctiBlock::quiet_step(const CctiBlockInputs& in) {
  const Lookup l = lookup(query_flow_, query_sl_);
  query_entry_ = cct_entry(l.index);
  query_enabled_ = l.enabled;
  query_ccti_ = l.ccti;
  const uint32_t min = sl_min_[query_sl_];
  const uint32_t limit = effective_limit();
  events_.query_first = l.index == 0;
  events_.query_last = l.index == limit;
  events_.query_limit_clamped = set_.limit_clamped && l.index == limit;
  events_.query_min_floor = l.ccti < min && min <= limit;
  if (timebase_.tick()) {
    for (unsigned s = 0; s < kNumSls; ++s) {
      if (timer_running(s) && timer_count_[s] > 1) --timer_count_[s];
    }
  }
  const uint32_t bsl = in.becn_sl & 0xfu;
  pending_ = {false, flow_index(in.becn_qp, bsl), in.becn_qp & (params_.num_qps - 1u), bsl,
              in.becn_rqpn & 0xffffffu, in.becn_rlid & 0xffffu, in.becn_llid & 0xffffu, in.becn_st & 0xfu};
  const uint32_t qsl = in.query_sl & 0xfu;
  query_flow_ = flow_index(in.query_qp, qsl);
  query_sl_ = qsl;
  timebase_.clock();
  out_.ird = query_enabled_ ? ird_cycles(set_.ird_formula, query_entry_, set_.mtu_tx) : 0u;
  out_.ccti = query_ccti_;
  out_.timer_expired = 0;
  out_.trigger_event = false;
  const bool quiet = in.query_qp == last_query_qp_ && qsl == last_query_sl_;
  quiet_edges_ = quiet ? (quiet_edges_ >= 2 ? 2u : quiet_edges_ + 1) : 0u;
  last_query_qp_ = in.query_qp;
  last_query_sl_ = qsl;
  return out_;
}

void CctiBlock::advance_idle(const CctiBlockInputs& in, uint64_t cycles) {
  if (in.becn_valid || !quiet_bus(in.axi)) {
    throw std::logic_error("ccti_block: advance_idle needs no BECN and an idle bus");
  }
  // Real edges settle the registered outputs: two quiet ones with this query in a row, of
  // which the last edges may already have been some; between expiries only counters move.
  const bool same_query = in.query_qp == last_query_qp_ && (in.query_sl & 0xfu) == last_query_sl_;
  unsigned settle = same_query ? 2u - std::min(quiet_edges_, 2u) : 2u;
  while (cycles > 0) {
    if (settle > 0) {
      step(in);
      --cycles;
      --settle;
      // An expiry changes CCTIs the registered lookup shows only one edge later.
      if (out_.timer_expired != 0 && settle == 0) settle = 1;
      continue;
    }
    // Only the running timers count (most blocks have none running most of the time).
    uint64_t ticks_to_expiry = std::numeric_limits<uint64_t>::max();
    for (uint32_t r = timer_running_; r != 0; r &= r - 1) {
      const uint32_t count = timer_count_[__builtin_ctz(r)];
      if (count >= 1) ticks_to_expiry = std::min<uint64_t>(ticks_to_expiry, count);
    }
    uint64_t bulk = cycles;
    if (ticks_to_expiry != std::numeric_limits<uint64_t>::max()) {
      const uint64_t expiry_edge =
          timebase_.edges_to_next_tick() + (ticks_to_expiry - 1) * timebase_.tick_cycles();
      bulk = std::min(cycles, expiry_edge - 1);
    }
    if (timer_running_ != 0) {
      const uint64_t ticks = timebase_.ticks_within(bulk);
      for (uint32_t r = timer_running_; r != 0; r &= r - 1) {
        uint32_t& count = timer_count_[__builtin_ctz(r)];
        if (count > 1) count -= static_cast<uint32_t>(ticks);
      }
    }
    timebase_.advance(bulk);
    cycles -= bulk;
    settle = 2;  // the next edge is an expiry (or the end)
  }
}

// What the hardware drives into the register file (read-only fields, the log and flow
// windows).
struct CctiBlock::CsrHw {
  const CctiBlock& b;
  uint32_t log_header_threshold_event_counter() const { return b.log_.counter(); }
  uint32_t log_event_map_event_map() const { return b.event_map_; }
  uint32_t log_timestamp_current_time_stamp() const { return b.timebase_.timestamp(); }
  uint32_t timestamp_timestamp() const { return b.timebase_.timestamp(); }
  bool log_event_valid(uint32_t e) const { return e < b.log_.count(); }
  uint32_t log_event_lqpn_local_qpn(uint32_t e) const { return b.log_event(e).local_qpn; }
  uint32_t log_event_lqpn_sl(uint32_t e) const { return b.log_event(e).sl; }
  uint32_t log_event_lqpn_service_type(uint32_t e) const { return b.log_event(e).service_type; }
  uint32_t log_event_rqpn_remote_qpn(uint32_t e) const { return b.log_event(e).remote_qpn; }
  uint32_t log_event_lids_local_lid(uint32_t e) const { return b.log_event(e).llid; }
  uint32_t log_event_lids_rlid(uint32_t e) const { return b.log_event(e).rlid; }
  uint32_t log_event_timestamp_timestamp(uint32_t e) const { return b.log_event(e).timestamp; }
  uint32_t becn_count_count() const { return b.becn_count_; }
  uint32_t timer_expiries_count() const { return b.timer_expiries_; }
  uint32_t timer_running_sl_mask() const { return b.timer_running_; }
  bool flow_valid(uint32_t) const { return true; }
  uint32_t flow_ccti_sl(uint32_t f) const { return b.flows_[f].written ? b.flows_[f].sl : 0u; }
  uint32_t flow_ccti_ccti(uint32_t f) const { return b.ccti(f); }
  uint32_t cct_entry_pair(uint32_t k) const { return b.cct_[k]; }
};

void CctiBlock::write_cct(const r::WriteDecode& wd) {
  if (r::RegFile::cct_entry_pair_write(wd)) cct_[wd.index] = regs::apply_strobe(cct_[wd.index], wd.merged, wd.strb);
}

bool CctiBlock::read_csr(uint32_t addr, uint32_t* data) const {
  return regs_.read(decode_params_, CsrHw{*this}, addr, data);
}

bool CctiBlock::write_csr(uint32_t addr, uint32_t wdata, uint32_t wstrb) {
  const r::WriteDecode wd = regs_.check_write(decode_params_, addr, wdata, wstrb);
  if (!wd.ok) return false;
  regs_.apply(decode_params_, wd);
  update_settings();
  write_cct(wd);
  quiet_edges_ = 0;  // settings the registered outputs came from may change
  if (r::RegFile::log_ctrl_clear(wd)) clear_log();
  return true;
}

}  // namespace ibcc::cc
