// Switch-port CC unit: cycle-exact reference of rtl/fecn_marker.sv.
#include "cc/fecn_marker.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cc/fecn_marker_regfile.h"

namespace ibcc::cc {

namespace r = ibcc::regs::fecn_marker;
void FecnMarkerParams::validate() const {
  auto fail = [](const std::string& what) { throw std::invalid_argument("fecn_marker: " + what); };
  if (num_inputs < 1 || num_inputs > 254) fail("num_inputs must be 1..254, got " + std::to_string(num_inputs));
  if (num_vls < 2 || num_vls > 15) fail("num_vls must be 2..15, got " + std::to_string(num_vls));
  if (fill_width < 4 || fill_width > 16) fail("fill_width must be 4..16, got " + std::to_string(fill_width));
  if (port_num > 255) fail("port_num must be 0..255, got " + std::to_string(port_num));
  if (tick_cycles < 2) fail("tick_cycles must be at least 2, got " + std::to_string(tick_cycles));
}

FecnMarker::FecnMarker(const FecnMarkerParams& params)
    : timebase_(params.tick_cycles),
      fill_mask_((1u << params.fill_width) - 1u),
      fill_q_(params.num_inputs * params.num_vls, 0),
      params_(params),
      axi_(r::kAddrWidth) {
  params_.validate();
  by_vl_ = SmallDiv(params_.num_vls);
  // ibcc_fill_reduce: a register after every second level of the tree and after the last
  // (one input is a tree of one level).
  unsigned levels = 1;
  while ((1u << levels) < params_.num_inputs) ++levels;
  reduce_stages_ = (levels + 1) / 2;
  measure_delay_ = reduce_stages_ + 1;
  pipe_.assign(static_cast<size_t>(measure_delay_) * params_.num_vls, Measure{});
  decode_params_.port_num = params_.port_num;
  decode_params_.fill_width = params_.fill_width;
  decode_params_.num_vls = params_.num_vls;
  decode_params_.num_inputs = params_.num_inputs;
  reset();
}

void FecnMarker::reset() {
  regs_.reset(decode_params_);
  update_trip();
  trip_q_ = Trip{};  // the registered trip levels and mapping reset to 0 (Threshold 0: off)
  trip_q_.num_vls = trip_.num_vls;
  trip_q1_ = trip_q_;
  std::fill(fill_q_.begin(), fill_q_.end(), uint16_t{0});
  vl_.fill(VlRegs{});
  std::fill(pipe_.begin(), pipe_.end(), Measure{});
  pipe_head_ = 0;
  pipe_stale_ = 0;
  fills_registered_ = false;
  registered_version_ = UINT64_MAX;
  idle_shown_ = false;
  idle_events_pending_ = false;
  cong_state_ = 0;
  pkts_sent_ = pkts_marked_ = cong_entries_ = 0;
  log_.reset();
  port_map_bit_ = false;
  timebase_.reset();
  axi_.reset();
  slave_idle_ = axi_.idle();
  out_ = {};
  out_.axi = axi_.outputs();
  events_ = {};
}

unsigned FecnMarker::threshold() const {
  return regs_.port_setting_valid ? regs_.port_setting_threshold : regs_.sw_setting_threshold_threshold;
}
unsigned FecnMarker::packet_size() const { return trip_.packet_size; }
unsigned FecnMarker::marking_rate() const { return trip_.marking_rate; }

void FecnMarker::clear_log() {
  log_.clear();
  port_map_bit_ = false;
}

// The summary of the registered fills is kept with them (updated as they are registered,
// at the end of each edge), so the threshold logic of the next edge reads it ready-made.
// Returns whether a registered fill changed.
bool FecnMarker::register_fills(const FecnMarkerInputs& in) {
  if (in.tracked && fills_registered_ && registered_version_ != UINT64_MAX) {
    // Most edges register what the previous one did: then registers and summary stay.
    if (registered_version_ == in.fill_version) return false;
    if (registered_version_ == in.changed_since && !in.changed_overflow) {
      bool changed = false;
      for (const uint32_t i : in.changed) changed |= register_fill(i, in.voq_fill[i] & fill_mask_);
      registered_version_ = in.fill_version;
      return changed;
    }
  }
  const bool changed = register_all_fills(in.voq_fill);
  registered_version_ = in.tracked ? in.fill_version : UINT64_MAX;
  return changed;
}

bool FecnMarker::register_fill(unsigned index, uint32_t fill) {
  const unsigned vl = by_vl_.rem(index), input = by_vl_.quot(index);
  uint16_t* row = &fill_q_[static_cast<size_t>(vl) * params_.num_inputs];
  const uint32_t old = row[input];
  if (old == fill) return false;
  row[input] = static_cast<uint16_t>(fill);
  FillSummary& f = vl_[vl].fills;
  f.sum = f.sum - old + fill;
  f.contributors = f.contributors - (old != 0) + (fill != 0);
  if (fill > f.max) {
    f.max = fill;
    f.at_max = 1;
  } else if (fill == f.max) {
    ++f.at_max;  // (old differs, so it was below)
  } else if (old == f.max && --f.at_max == 0) {  // the only largest fell: find the new largest
    f.max = 0;
    f.at_max = 0;
    for (unsigned i = 0; i < params_.num_inputs; ++i) count_max(&f, row[i]);
  }
  return true;
}

bool FecnMarker::fills_equal(const std::vector<uint32_t>& voq_fill) const {
  const unsigned vls = params_.num_vls, inputs = params_.num_inputs;
  for (unsigned p = 0; p < inputs; ++p) {
    for (unsigned v = 0; v < vls; ++v) {
      if ((voq_fill[p * vls + v] & fill_mask_) != fill_q_[static_cast<size_t>(v) * inputs + p]) return false;
    }
  }
  return true;
}

bool FecnMarker::register_all_fills(const std::vector<uint32_t>& voq_fill) {
  if (fills_registered_ && fills_equal(voq_fill)) return false;
  fills_registered_ = true;
  for (VlRegs& v : vl_) v.fills = {0, 0, 0, 0};
  const unsigned vls = params_.num_vls, inputs = params_.num_inputs;
  const uint32_t* in = voq_fill.data();
  for (unsigned p = 0; p < inputs; ++p, in += vls) {
    for (unsigned v = 0; v < vls; ++v) {
      const uint32_t fill = in[v] & fill_mask_;
      fill_q_[static_cast<size_t>(v) * inputs + p] = static_cast<uint16_t>(fill);
      FillSummary& f = vl_[v].fills;
      f.sum += fill;
      f.contributors += fill != 0;
      count_max(&f, fill);
    }
  }
  return true;
}

void FecnMarker::update_trip() {
  trip_.threshold = static_cast<uint8_t>(threshold());
  trip_.num_vls = static_cast<uint8_t>(params_.num_vls);
  trip_.enter = uint64_t{enter_level16(trip_.threshold)} * buffer_capacity();
  trip_.exit = uint64_t{exit_level16(trip_.threshold, hysteresis())} * buffer_capacity();
  trip_.band = enter_level16(trip_.threshold) != exit_level16(trip_.threshold, hysteresis());
  trip_.mapping = mapping();
  trip_.victim_mask = victim_mask();
  trip_.marking_mode = static_cast<MarkingMode>(regs_.impl_ctrl_marking_mode);
  trip_.packet_size = static_cast<uint16_t>(regs_.port_setting_valid ? regs_.port_setting_packet_size
                                                                      : regs_.sw_setting_threshold_packet_size);
  trip_.marking_rate = regs_.port_setting_valid ? regs_.port_setting_cong_parm : regs_.sw_setting_marking_marking_rate;
}

bool FecnMarker::crossed(const Measure& f, uint64_t trip) const {
  switch (trip_q_.mapping) {
    case ThresholdMapping::kPerVoq: return uint64_t{f.max} * 16u >= trip;
    case ThresholdMapping::kSum: return uint64_t{f.sum} * 16u >= trip;
    case ThresholdMapping::kSumDivPorts:
      return f.contributors != 0 && uint64_t{f.sum} * 16u * f.contributors >= trip;
  }
  return false;
}

bool FecnMarker::next_cong_state(unsigned vl, FecnMarkerEvents* ev) const {
  return next_cong_state(vl, measure(vl), ev);
}

// The state logic: the measures at the end of the pipeline against the registered trip
// levels (trip_q_), the registered credits telling root from victim.
bool FecnMarker::next_cong_state(unsigned vl, const Measure& fills, FecnMarkerEvents* ev) const {
  if (trip_q_.threshold == 0) return false;
  const bool now = congested(vl);
  const bool over = crossed(fills, now ? trip_q_.exit : trip_q_.enter);
  const bool root = vl_[vl].credits != 0;
  const bool next = over && (root || trip_q_.victim_mask);
  if (ev) {
    const uint32_t bit = 1u << vl;
    if (over && !root && !trip_q_.victim_mask) ev->victim_blocked |= bit;
    if (next && !root) ev->victim_masked |= bit;
    // Held by hysteresis: still in the state, but below the entry level.
    if (next && now && trip_q_.band && !crossed(fills, trip_q_.enter)) ev->hysteresis_held = true;
  }
  return next;
}

uint32_t FecnMarker::next_state_all(FecnMarkerEvents* ev) const {
  uint32_t s = 0;
  for (unsigned v = 0; v < trip_.num_vls; ++v) s |= static_cast<uint32_t>(next_cong_state(v, measure(v), ev)) << v;
  return s;
}

// The summaries of the registered fills (before this edge registers new ones) enter the
// pipeline; the oldest stage, which the state logic just read, makes room for them.
void FecnMarker::shift_pipeline() {
  if (pipe_stale_ == 0) return;  // every stage holds these summaries already
  Measure* stage = &pipe_[static_cast<size_t>(pipe_head_) * trip_.num_vls];
  for (unsigned v = 0; v < trip_.num_vls; ++v) stage[v] = {vl_[v].fills.sum, vl_[v].fills.contributors, vl_[v].fills.max};
  if (++pipe_head_ == measure_delay_) pipe_head_ = 0;
  --pipe_stale_;
}

// The end of an edge's datapath: the congestion state it entered, and the inputs registered.
void FecnMarker::take_state(const FecnMarkerInputs& in, uint32_t next_state) {
  events_.entered = next_state & ~cong_state_;
  events_.left = cong_state_ & ~next_state;
  if (events_.entered) {
    port_map_bit_ = true;
    cong_entries_ += static_cast<uint32_t>(__builtin_popcount(events_.entered));
  }
  cong_state_ = next_state;
  shift_pipeline();
  if (register_fills(in)) pipe_stale_ = measure_delay_;
  for (unsigned v = 0; v < trip_.num_vls; ++v) vl_[v].credits = in.credits[v] & fill_mask_;
  trip_q_ = trip_q1_;
  trip_q1_ = trip_;  // (before this edge's CSR write, which comes after)
}

// An edge with no packet and an idle bus on an idle slave (most edges of the network model):
// what step() does then, without its bus, packet and log parts.
void FecnMarker::idle_edge(const FecnMarkerInputs& in) {
  events_ = {};
  idle_shown_ = false;
  idle_events_pending_ = false;
  const uint32_t next_state = next_state_all(&events_);
  take_state(in, next_state);
  timebase_.clock();
  out_.cong_state = cong_state_;
  out_.fecn_valid = false;
  out_.fecn_mark = false;
}

const FecnMarkerOutputs& FecnMarker::step(const FecnMarkerInputs& in) {
  // An idle bus on an idle slave (every edge of the network model): the slave keeps its
  // state and outputs, so its part of the edge is skipped.
  const bool bus_quiet = quiet_bus(in.axi);
  if (bus_quiet && !in.pkt_valid) {
    idle_edge(in);
    return out_;
  }
  events_ = {};
  idle_shown_ = false;
  idle_events_pending_ = false;

  // The bus requests of this edge see the registers as they are before the edge.
  const RegWrite wr = bus_quiet ? RegWrite{} : axi_.write_request();
  const RegRead rd = bus_quiet ? RegRead{} : axi_.read_request();
  uint32_t rdata = 0;
  bool read_error = false;
  if (rd.valid) read_error = !read_csr(rd.addr, &rdata);
  r::WriteDecode wd;
  if (wr.valid) wd = regs_.check_write(decode_params_, wr.addr, wr.data, wr.strb);
  const bool write_ok = wd.ok;
  const bool clear_log_now = r::RegFile::log_ctrl_clear(wd);

  // Congestion state per VL.
  const uint32_t next_state = next_state_all(&events_);

  // The departing packet.
  bool mark = false;
  if (in.pkt_valid) {
    ++pkts_sent_;
    const unsigned vl = in.pkt_vl;
    if (vl < trip_.num_vls && congested(vl)) {
      if ((in.pkt_len & 0xffu) >= packet_size()) {
        events_.eligible = true;
        uint32_t& skip = vl_[vl].skip;
        if (skip == 0) {
          mark = true;
          if (marking_mode() == MarkingMode::kCounter) {
            skip = marking_rate();
          } else {
            // The LFSR steps as the hardware writes it; a seed write of this edge wins.
            skip = random_gap(lfsr(), marking_rate());
            regs_.lfsr_seed_seed = lfsr16_next(lfsr());
          }
        } else {
          --skip;
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
  take_state(in, next_state);

  // Register write last: this edge's datapath used the old configuration.
  if (wd.valid && wd.ok) {
    regs_.apply(decode_params_, wd);
    update_trip();
  }
  events_.write_error = wr.valid && !write_ok;
  events_.read_error = rd.valid && read_error;

  timebase_.clock();
  if (!bus_quiet) {
    axi_.clock(in.axi, wr.valid && !write_ok, rdata, read_error);
    slave_idle_ = axi_.idle();
  }

  out_.cong_state = cong_state_;
  out_.fecn_valid = in.pkt_valid;
  out_.fecn_mark = mark;
  if (!bus_quiet) out_.axi = axi_.outputs();
  return out_;
}

void FecnMarker::advance_idle(const FecnMarkerInputs& in, uint64_t cycles, unsigned settled_edges) {
  if (in.pkt_valid || !quiet_bus(in.axi)) {
    throw std::logic_error("fecn_marker: advance_idle needs no packet and an idle bus");
  }
  // At most settle_edges() edges change the state (input register, pipeline, congestion
  // state, hysteresis); fewer when the fixed point is reached earlier.
  const unsigned most = settle_edges();
  const uint64_t need = settled_edges >= most ? 0 : most - settled_edges;
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
  if (in.pkt_valid || !quiet_bus(in.axi)) return false;
  for (unsigned v = 0; v < trip_.num_vls; ++v) {
    if ((in.credits[v] & fill_mask_) != vl_[v].credits) return false;
  }
  if (!fills_are_registered(in) || pipe_stale_ != 0 || !same_state_config(trip_q_, trip_) ||
      !same_state_config(trip_q1_, trip_)) {
    return false;
  }
  return next_state_all(nullptr) == cong_state_;
}

// Outputs and events as an idle edge at the fixed point leaves them.
// The events are a function of the state there, so they are worked out only if asked for
// (events()).
void FecnMarker::show_idle_edge() {
  if (idle_shown_) return;
  idle_shown_ = true;
  idle_events_pending_ = true;
  out_.fecn_valid = false;
  out_.fecn_mark = false;
}

void FecnMarker::show_idle_events() const {
  idle_events_pending_ = false;
  events_ = {};
  next_state_all(&events_);
}

// What the hardware drives into the register file (read-only fields, the log window).
struct FecnMarker::CsrHw {
  const FecnMarker& m;
  uint32_t log_header_log_events_counter() const { return m.log_.counter(); }
  uint32_t log_timestamp_current_time_stamp() const { return m.timebase_.timestamp(); }
  uint32_t timestamp_timestamp() const { return m.timebase_.timestamp(); }
  uint32_t log_portmap_map() const { return m.port_map_bit_; }
  bool log_event_valid(uint32_t e) const { return e < m.log_.count(); }
  uint32_t log_event_lids_slid(uint32_t e) const { return m.log_event(e).slid; }
  uint32_t log_event_lids_dlid(uint32_t e) const { return m.log_event(e).dlid; }
  uint32_t log_event_sl_sl(uint32_t e) const { return m.log_event(e).sl; }
  uint32_t log_event_timestamp_timestamp(uint32_t e) const { return m.log_event(e).timestamp; }
  uint32_t cong_state_vl_mask() const { return m.cong_state_; }
  uint32_t pkts_sent_count() const { return m.pkts_sent_; }
  uint32_t pkts_marked_count() const { return m.pkts_marked_; }
  uint32_t cong_entries_count() const { return m.cong_entries_; }
};

bool FecnMarker::read_csr(uint32_t addr, uint32_t* data) const {
  return regs_.read(decode_params_, CsrHw{*this}, addr, data);
}

bool FecnMarker::write_csr(uint32_t addr, uint32_t wdata, uint32_t wstrb) {
  const r::WriteDecode wd = regs_.check_write(decode_params_, addr, wdata, wstrb);
  if (!wd.ok) return false;
  if (idle_events_pending_) show_idle_events();  // the events of the edge before the write
  regs_.apply(decode_params_, wd);
  update_trip();
  idle_shown_ = false;  // the settings the idle edge's events came from may change
  if (r::RegFile::log_ctrl_clear(wd)) clear_log();
  return true;
}

}  // namespace ibcc::cc
