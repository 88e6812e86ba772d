// Switch-port CC unit (one per output port): threshold logic, root/victim congestion state,
// FECN marking, counters and the switch CongestionLog. Cycle-exact reference of
// rtl/fecn_marker.sv; plain C++ so the network model, the co-simulation and the unit tests
// all run this one piece of logic.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "cc/axil_slave.h"
#include "cc/cc_policies.h"
#include "cc/event_log.h"
#include "cc/fecn_marker_regfile.h"
#include "cc/timebase.h"
#include "common/fixed_vec.h"
#include "common/small_div.h"

namespace ibcc::cc {

// Build parameters (RTL parameters of the same names).
struct FecnMarkerParams {
  unsigned num_inputs = 8;    // NumInputs: input ports whose VoQs feed this output
  unsigned num_vls = 4;       // NumVls: data VLs, 2..15
  unsigned fill_width = 12;   // FillWidth: bits of a VoQ fill and a credit count
  unsigned port_num = 0;      // PortNum: this port's bit in Victim_Mask and PortMap
  uint32_t tick_cycles = 256; // TickCycles: core cycles per 1.024 us (250 MHz core)

  // Throws std::invalid_argument naming the offending parameter.
  void validate() const;
};

// What the unit sees at one rising edge.
// Laid out by use: the network model reads the packet, the bus (idle there) and the change
// tracking at every edge, the credits at every settling edge, and the changed fills' list
// and the fills themselves when a fill changed (MarkerPort::set_fill).
struct FecnMarkerInputs {
  bool pkt_valid = false;          // a packet departs this cycle
  bool tracked = false;            // (change tracking, below)
  bool changed_overflow = false;
  AxiLiteIn axi;
  uint32_t pkt_vl = 0;
  uint32_t pkt_sl = 0;
  uint32_t pkt_slid = 0;
  uint32_t pkt_dlid = 0;
  uint32_t pkt_len = 0;  // credits
  uint64_t fill_version = 0;   // set_fill calls so far
  uint64_t changed_since = 0;  // `changed` lists the fills set since this version
  FixedVec<uint32_t, 15> credits;  // [vl], credits available toward the downstream port
  std::vector<uint32_t> voq_fill;  // [input * num_vls + vl], 64-byte credits
  static constexpr size_t kMaxChanged = 8;
  FixedVec<uint32_t, kMaxChanged> changed;

  explicit FecnMarkerInputs(const FecnMarkerParams& p)
      : credits(p.num_vls, 0), voq_fill(p.num_inputs * p.num_vls, 0) {}

  // Optional change tracking, for a model that changes one fill at a time (the network
  // model): set_fill() notes which fills changed, and the core registers just those instead
  // of comparing all num_inputs * num_vls of them at every edge. Writing voq_fill directly
  // (the co-simulation, the tests) works as before: untracked inputs are compared in full.
  // More than kMaxChanged changes between two registrations are compared in full too.
  void set_fill(unsigned index, uint32_t value) {
    voq_fill[index] = value;
    tracked = true;
    ++fill_version;
    if (changed.size() < kMaxChanged) changed.push_back(index);
    else changed_overflow = true;
  }
  // After the core registered version `fill_version` (FecnMarker::registered_fill_version),
  // the list starts again.
  void fills_registered() {
    changed.clear();
    changed_overflow = false;
    changed_since = fill_version;
  }
};

struct FecnMarkerOutputs {
  uint32_t cong_state = 0;  // bit v: Port VL v in the congestion state
  bool fecn_valid = false;  // the decision for the packet of the previous edge
  bool fecn_mark = false;
  AxiLiteOut axi;
};

struct SwitchLogEvent {
  uint32_t slid = 0;
  uint32_t dlid = 0;
  uint32_t sl = 0;
  uint32_t timestamp = 0;
};

// What happened at one edge, for functional coverage and debugging.
struct FecnMarkerEvents {
  uint32_t entered = 0;        // VLs entering the congestion state
  uint32_t left = 0;           // VLs leaving it
  uint32_t victim_blocked = 0; // VLs over the trip level but held out as victims
  uint32_t victim_masked = 0;  // VLs in the state only because of Victim_Mask
  bool eligible = false;       // the departing packet was eligible for marking
  bool marked = false;
  bool skipped = false;        // eligible but skipped by Marking_Rate
  bool too_small = false;      // in a congested VL but below Packet_Size
  bool hysteresis_held = false;// a VL stayed congested only thanks to hysteresis
  bool log_wrapped = false;    // an event overwrote the oldest of 15
  bool log_cleared = false;
  bool log_counter_saturated = false;  // LogEventsCounter held at 0xffff
  bool write_error = false;
  bool read_error = false;
};

class alignas(64) FecnMarker {
 public:
  static constexpr unsigned kLogDepth = 15;
  static constexpr unsigned kSkipWidth = 17;  // holds a random gap up to 2 * 0xffff

  explicit FecnMarker(const FecnMarkerParams& params);

  const FecnMarkerParams& params() const { return params_; }

  void reset();

  // One rising edge with these inputs. Returns the outputs after the edge.
  const FecnMarkerOutputs& step(const FecnMarkerInputs& in);
  const FecnMarkerOutputs& outputs() const { return out_; }
  // (At the fixed point of advance_idle the events are worked out when asked for: they are a
  // function of the state there.)
  const FecnMarkerEvents& events() const {
    if (idle_events_pending_) show_idle_events();
    return events_;
  }

  // The pipeline of the congestion state (rtl/fecn_marker.sv): the fills are registered at
  // the boundary (1 edge), reduced per VL over reduce_stages() edges and their measures
  // registered (1 edge), and the state taken at the edge after. The trip levels and the
  // mapping are registered from the CSRs, one edge before the state reads them.
  // Edges the reduction tree takes: one per two levels of its binary tree, at least one.
  unsigned reduce_stages() const { return reduce_stages_; }
  // Edges from a change of a fill to the congestion state it brings.
  unsigned state_latency() const { return reduce_stages_ + 3; }
  // Idle edges after which any input change has settled (advance_idle's fixed point):
  // the state latency, and one more edge for hysteresis (the state switches to the exit level).
  unsigned settle_edges() const { return state_latency() + 1; }

  // `cycles` edges with these inputs, no packet and an idle bus, in O(1): the state is a
  // fixed point after settle_edges() edges, so only the timebase moves further. Equal to
  // calling step() `cycles` times (tests/test_lazy_advance.cpp proves it). `settled_edges`: edges already run with these
  // very inputs since they last changed (a packet's edge counts: it registers the inputs as
  // an idle edge does, and what it changes besides, idle edges never touch); the network
  // model tracks it so that advancing at every event skips the settling edges.
  void advance_idle(const FecnMarkerInputs& in, uint64_t cycles, unsigned settled_edges = 0);

  // Would an idle edge with these inputs (no packet, idle bus) change nothing but the
  // timebase? True when the inputs are the registered ones and every VL's congestion state
  // is its own next state: the fixed point advance_idle() runs to. The network model asks
  // this after each settling edge and stops settling early.
  bool settled(const FecnMarkerInputs& in) const;

  // The version of tracked inputs (FecnMarkerInputs::set_fill) the fill registers hold, or
  // UINT64_MAX if they were last registered from untracked inputs.
  uint64_t registered_fill_version() const { return registered_version_; }

  // Register access (the AXI slave calls these; tests and the network model may too).
  // read_csr has no side effects. write_csr returns false (SLVERR) and changes nothing on
  // an unmapped or read-only address or an illegal value.
  bool read_csr(uint32_t addr, uint32_t* data) const;
  bool write_csr(uint32_t addr, uint32_t wdata, uint32_t wstrb);

  // Effective settings (port override or switch-wide) and state, for models and waves.
  unsigned threshold() const;
  unsigned packet_size() const;
  unsigned marking_rate() const;
  bool victim_mask() const { return regs_.sw_victim_mask_mask != 0; }
  bool port_override() const { return regs_.port_setting_valid != 0; }
  ThresholdMapping mapping() const { return static_cast<ThresholdMapping>(regs_.impl_ctrl_threshold_mapping); }
  MarkingMode marking_mode() const { return trip_.marking_mode; }
  unsigned hysteresis() const { return regs_.impl_ctrl_hysteresis; }
  uint32_t buffer_capacity() const { return regs_.buffer_capacity_credits; }
  // The fill (credits) at which a VL enters the congestion state, and below which it leaves
  // it: what the mapping's measure (the largest VoQ, the sum, or the sum times the
  // contributing inputs) is compared with, rounded up to whole credits; 0 when Threshold is 0.
  uint32_t enter_level_credits() const { return trip_.threshold ? static_cast<uint32_t>((trip_.enter + 15) / 16) : 0; }
  uint32_t exit_level_credits() const { return trip_.threshold ? static_cast<uint32_t>((trip_.exit + 15) / 16) : 0; }
  uint32_t skip_count(unsigned vl) const { return vl_[vl].skip; }
  uint16_t lfsr() const { return static_cast<uint16_t>(regs_.lfsr_seed_seed); }
  uint32_t timestamp() const { return timebase_.timestamp(); }
  uint32_t pkts_sent() const { return pkts_sent_; }
  uint32_t pkts_marked() const { return pkts_marked_; }
  uint32_t cong_entries() const { return cong_entries_; }
  unsigned log_count() const { return log_.count(); }
  // Event e of the log, 0 = most recent; e < log_count().
  const SwitchLogEvent& log_event(unsigned e) const { return log_.recent(e); }

  // Would the packet (vl, len) be eligible right now? (The marking decision itself also
  // depends on the Marking_Rate counter.)
  bool congested(unsigned vl) const { return (cong_state_ >> vl) & 1u; }

  // The congestion state a VL takes at the next edge, from the fills' measures at the end of
  // the pipeline, the registered trip levels and the registered credits.
  bool next_cong_state(unsigned vl, FecnMarkerEvents* ev) const;

  static constexpr unsigned kMaxVls = 15;

 private:
  struct FillSummary {
    uint32_t sum;
    uint32_t contributors;  // VoQs with a nonzero fill
    uint32_t max;
    uint32_t at_max;        // VoQs whose fill is `max` (a fall from it needs no search unless it was the only one)
  };
  // What the pipeline carries of a summary (at_max is bookkeeping of the C++ only).
  struct Measure {
    uint32_t sum = 0;
    uint32_t contributors = 0;
    uint32_t max = 0;
  };
  // Takes `fill` into f's largest fill and the count of VoQs at it (f.at_max 0: none yet).
  static void count_max(FillSummary* f, uint32_t fill) {
    if (fill > f->max || f->at_max == 0) {
      f->max = fill;
      f->at_max = 1;
    } else if (fill == f->max) {
      ++f->at_max;
    }
  }
  // Each returns whether a registered fill changed.
  bool register_fills(const FecnMarkerInputs& in);
  bool register_all_fills(const std::vector<uint32_t>& voq_fill);
  bool register_fill(unsigned index, uint32_t fill);
  bool fills_are_registered(const FecnMarkerInputs& in) const;
  bool fills_equal(const std::vector<uint32_t>& voq_fill) const;  // the registers hold these
  void idle_edge(const FecnMarkerInputs& in);
  void show_idle_edge();
  void show_idle_events() const;
  bool next_cong_state(unsigned vl, const Measure& fills, FecnMarkerEvents* ev) const;
  // Does the measure of the mapping reach `trip` (sixteenths of the capacity times the
  // capacity: Trip)?
  bool crossed(const Measure& f, uint64_t trip) const;
  // The measures the state logic reads at the next edge: the pipeline's last stage.
  const Measure& measure(unsigned vl) const { return pipe_[pipe_head_ * trip_.num_vls + vl]; }
  // One edge of the pipeline: the summaries of the registered fills enter it.
  void shift_pipeline();
  // The settings the threshold and marking logic read, worked out from the registers whenever they
  // change (update_trip), not at every VL of every edge.
  struct Trip {
    uint64_t enter = 0;  // enter_level16 * capacity
    uint64_t exit = 0;   // exit_level16 * capacity
    uint8_t threshold = 0;  // (4 bits)
    bool band = false;   // the two levels differ (hysteresis)
    ThresholdMapping mapping = ThresholdMapping::kPerVoq;
    bool victim_mask = false;
    MarkingMode marking_mode = MarkingMode::kCounter;  // (what a departure in a congested VL reads)
    uint8_t num_vls = 0;  // params_.num_vls, beside what every edge reads with it
    uint16_t packet_size = 0;
    uint32_t marking_rate = 0;
  };
  void update_trip();
  // The part of Trip the state logic reads, registered (trip_q1_, trip_q_): the same?
  static bool same_state_config(const Trip& a, const Trip& b) {
    return a.enter == b.enter && a.exit == b.exit && a.threshold == b.threshold && a.band == b.band &&
           a.mapping == b.mapping && a.victim_mask == b.victim_mask;
  }
  uint32_t next_state_all(FecnMarkerEvents* ev) const;  // every VL's next congestion state (and events)
  void take_state(const FecnMarkerInputs& in, uint32_t next_state);
  void clear_log();
  struct CsrHw;  // the read-only fields the register file reads from the datapath

  // The members are laid out by use, in cache lines (the class is line-aligned): what every
  // edge reads and writes first (the network model advances thousands of these, and each
  // line an edge touches is likely a cache miss), then an edge's outputs and events, the
  // fill registers' bookkeeping, the per-VL registers; the register file, log and bus last.
  //
  // Datapath state. The VoQ fills and credits come from every input port across the switch:
  // the unit registers them at its boundary (fill_q_, vl_[].credits), so the threshold logic
  // sees the values of the previous edge.
  // Line 0: every edge.
  uint32_t cong_state_ = 0;
  bool fills_registered_ = false;
  bool idle_shown_ = false;  // outputs and events are those of an idle edge at the fixed point
  mutable bool idle_events_pending_ = false;  // events_ are to be those of an idle edge at the fixed point
  bool slave_idle_ = true;   // axi_.idle(), kept as the slave changes (reset, clock)
  uint64_t registered_version_ = UINT64_MAX;  // see registered_fill_version()
  Timebase timebase_;
  uint32_t fill_mask_;
  Trip trip_;    // from the CSRs: what the marking logic reads
  Trip trip_q_;  // registered at every edge from trip_q1_: what the state logic reads
  uint32_t pkts_sent_ = 0;
  // Line 1: an edge's outputs and events, counters.
  FecnMarkerOutputs out_;
  mutable FecnMarkerEvents events_;
  uint32_t pkts_marked_ = 0;
  uint32_t cong_entries_ = 0;
  // Line 2: registering fills.
  SmallDiv by_vl_;  // a fill's index (input * VLs + VL) into its VL and input
  // The registered fills, [vl * num_inputs + input] (fill_width <= 16 bits): a VL's lie side
  // by side, so that the search for its largest after the largest fell reads few lines.
  std::vector<uint16_t> fill_q_;
  FecnMarkerParams params_;
  bool port_map_bit_ = false;
  // Per VL (< num_vls), together: an edge reads one VL's registered fills, credits and
  // Marking_Rate counter side by side.
  struct VlRegs {
    FillSummary fills{0, 0, 0, 0};  // of fill_q_
    uint32_t credits = 0;           // registered credits
    uint32_t skip = 0;              // packets still to skip before the next mark
  };
  std::array<VlRegs, kMaxVls> vl_{};
  // The pipeline from the fills to the measures: a ring of measure_delay_ stages, each the
  // summaries of all VLs ([stage * num_vls + vl]); pipe_head_ is the oldest (the one the
  // state logic reads). Stages not yet holding the summaries of the registered fills:
  // pipe_stale_ (0: flushed).
  std::vector<Measure> pipe_;
  unsigned pipe_head_ = 0;
  unsigned pipe_stale_ = 0;
  unsigned reduce_stages_ = 1;
  unsigned measure_delay_ = 2;
  // The trip levels and settings one edge after the CSRs (the RTL registers the levels there,
  // and multiplies them by the capacity into trip_q_ at the next edge).
  Trip trip_q1_;

  // The CSRs: storage, decode and legality generated from rtl/regs/fecn_marker.yaml,
  // decoded as rtl/fecn_marker_reg_top.sv decodes them.
  regs::fecn_marker::DecodeParams decode_params_;
  regs::fecn_marker::RegFile regs_;
  EventLog<SwitchLogEvent, kLogDepth> log_;
  AxiLiteSlave axi_;
  // An idle bus (no request) on an idle slave: axi_.quiet(in), from the copy kept here.
  bool quiet_bus(const AxiLiteIn& in) const { return AxiLiteSlave::quiet(in, slave_idle_); }
};

}  // namespace ibcc::cc
