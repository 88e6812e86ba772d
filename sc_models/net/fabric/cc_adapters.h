// The CC cores of sc_models/cc/ inside the network model: configured through their
// registers (the same register map the RTL has) and advanced lazily, only when something
// they see changes or a decision is needed. tests/test_lazy_advance.cpp proves that
// advance_idle() equals stepping every cycle, so this is cycle-exact.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "cc/ccti_block.h"
#include "cc/fecn_marker.h"
#include "net/fabric/marking_point.h"
#include "net/fabric/rtl_engine.h"
#include "net/scenario/scenario.h"

namespace ibcc::net {

// Programs a core through its registers, as a management agent would (the register map the
// RTL shares): the C++ core, or the RTL through its AXI4-Lite port (anything with
// write_csr(addr, data, strb)). Throws std::logic_error if the block refuses a write.
template <typename Block>
void configure_marker(Block& block, const cc::FecnMarkerParams& params, const SwitchCcSpec& sw,
                      const PortCcOverride* port, bool victim_mask, uint32_t buffer_credits, uint16_t lfsr_seed = 0);
template <typename Block>
void configure_ccti(Block& block, const cc::CctiBlockParams& params, const CaCcSpec& ca, uint32_t mtu_tx_cycles);

// One switch output's FECN marker. Convention: a change made at cycle t is seen by the
// edge of cycle t + 1 (the core registers its inputs); a departure at t is the edge of t.
// It is the marking point's state as well (FecnMarking, fecn_marking.h, adds the decisions'
// interface): the interface's pointer shares the cache line of what every call reads first.
class MarkerPort : public MarkingPoint {
 public:
  // `rtl`, if given, is the Verilated block that decides instead of the C++ core (ibcc run
  // --rtl): configured the same way, clocked edge by edge where the core advances lazily.
  // `lfsr_seed` (nonzero) starts the random-marking generator; 0 leaves its reset value.
  MarkerPort(const cc::FecnMarkerParams& params, const SwitchCcSpec& sw, const PortCcOverride* port,
             bool victim_mask, uint32_t buffer_credits, std::unique_ptr<RtlMarkerEngine> rtl = nullptr,
             uint16_t lfsr_seed = 0);

  void set_fill(uint64_t cycle, unsigned input, unsigned vl, uint32_t credits) override {
    advance_to(cycle);
    in_.set_fill(input * num_vls_ + vl, credits > fill_max_ ? fill_max_ : credits);
    settled_ = 0;
  }
  // The marker uses a VL's credits only to tell root (some credits) from victim (none)
  // (FecnMarker::next_cong_state), so a change that keeps that answer is not passed on: the
  // core's outputs are the same and the network model saves the settling edges of a credit return.
  void set_credits(uint64_t cycle, unsigned vl, uint32_t credits) override {
    advance_to(cycle);  // always: which edge a later departure in this cycle takes must not
                        // depend on whether this change was passed on
    const uint32_t v = credits > fill_max_ ? fill_max_ : credits;
    if ((in_.credits[vl] != 0) == (v != 0)) return;
    in_.credits[vl] = v;
    settled_ = 0;
  }
  // The edge at `cycle` with a departing packet; returns the FECN decision.
  bool depart(uint64_t cycle, unsigned vl, unsigned sl, unsigned slid, unsigned dlid, unsigned credits);
  // (FecnMarking's decisions for the switch.)
  bool depart(uint64_t cycle, const Departure& d) override {
    return d.data && depart(cycle, d.vl, d.sl, d.slid, d.dlid, d.credits);
  }
  Sample take_sample(uint64_t cycle, unsigned vl, uint64_t egress_bytes) override;

  // Runs the edges up to and including `cycle` (a sampler at cycle T asks for T - 1, so
  // that a departure later in cycle T still takes edge T).
  void advance_to(uint64_t cycle) {
    if (rtl_) return rtl_advance_to(cycle);
    // Edges that may still change the state (inputs changed less than settle_edges() edges
    // ago, and the core not at its fixed point) run one at a time, so that the congested
    // edges are counted exactly; after that the state holds.
    while (cycle > done_ && settled_ < settle_edges_) {
      if (core_.settled(in_)) {  // the fixed point came early
        settled_ = settle_edges_;
        break;
      }
      core_.step(in_);  // an idle edge: what advance_idle(in_, 1, settled_) runs when not settled
      ++settled_;
      ++done_;
      count_congested(1);
      forget_registered_changes();
    }
    if (cycle > done_) {
      const uint64_t n = cycle - done_;
      core_.advance_idle(in_, n, settled_);
      done_ = cycle;
      count_congested(n);
    }
  }
  // The congestion state of each VL (bit v), of the RTL when it is in the loop.
  uint32_t cong_state() const override {
    if (!rtl_) return core_.outputs().cong_state;
    uint32_t s = 0;
    for (unsigned v = 0; v < num_vls_; ++v) s |= static_cast<uint32_t>(rtl_->congested(v)) << v;
    return s;
  }
  bool congested(unsigned vl) const { return rtl_ ? rtl_->congested(vl) : core_.congested(vl); }
  TripLevel trip_level() const override;
  // The C++ core (configured, but not clocked while the RTL is in the loop).
  const cc::FecnMarker& core() const { return core_; }

  // Statistics the model keeps (not registers of the block): edges each VL spent in the
  // congestion state and packets marked, since the last take_stats().
  struct Stats {
    uint64_t congested_edges = 0;
    uint64_t marks = 0;
  };
  Stats take_stats(unsigned vl) {
    Stats s = stats_[vl];
    stats_[vl] = {};
    return s;
  }

 private:
  // What every call reads first, then the core's inputs and the core (laid out by use:
  // FecnMarker's members).
  uint64_t done_ = 0;     // edges up to and including this cycle are done
  unsigned settled_ = 0;  // idle edges run since the inputs last changed (capped at settle_edges_)
  unsigned settle_edges_;  // core_.settle_edges()
  unsigned num_vls_;
  uint32_t fill_max_;
  std::unique_ptr<RtlMarkerEngine> rtl_;
  cc::FecnMarkerInputs in_;
  cc::FecnMarker core_;
  std::array<Stats, cc::FecnMarker::kMaxVls> stats_{};  // [vl < num_vls_] (congested VLs and marks only)

  void rtl_advance_to(uint64_t cycle);
  // The changed fills the core has registered need not be listed any more.
  void forget_registered_changes() {
    if (!in_.changed.empty() && core_.registered_fill_version() == in_.fill_version) in_.fills_registered();
  }
  void count_congested(uint64_t edges) {
    for (uint32_t s = cong_state(); s != 0; s &= s - 1) stats_[__builtin_ctz(s)].congested_edges += edges;
  }
};

// One HCA's CCTI block. Convention as MarkerPort's: a BECN at cycle t arrives at the edge
// of t (or the next one, if that edge already ran) and the block applies it at the edge
// after. A lookup at t is a query sampled at that same edge (or the next): the block reads
// the flow's word there and looks its IRD up at the edge after, from the state before that
// edge, as the send arbiter of an HCA would ask its CCTI block.
class CctiPort {
 public:
  // `rtl`, if given, is the Verilated block that decides instead of the C++ core (ibcc run
  // --rtl): configured the same way and clocked edge by edge with the same inputs.
  CctiPort(const cc::CctiBlockParams& params, const CaCcSpec& ca, uint32_t mtu_tx_cycles,
           std::unique_ptr<RtlCctiEngine> rtl = nullptr);

  void becn(uint64_t cycle, uint32_t qp, uint32_t sl, uint32_t rlid, uint32_t llid);
  struct Lookup {
    uint32_t ird = 0;   // core cycles
    uint32_t ccti = 0;  // the flow's CCTI
  };
  // The IRD and CCTI of flow (qp, sl) for a packet sent at `cycle` (two edges).
  Lookup lookup(uint64_t cycle, uint32_t qp, uint32_t sl);
  // Observation for statistics and waves (no edge, no query): flow (qp, sl)'s CCTI after
  // the edge of `cycle`.
  uint32_t observe_ccti(uint64_t cycle, uint32_t qp, uint32_t sl) {
    advance_to(cycle);
    const unsigned f = core_.flow_index(qp, sl);
    return rtl_ ? rtl_->flow_ccti(f) : core_.ccti(f);
  }
  void advance_to(uint64_t cycle) {
    if (cycle <= done_) return;
    if (rtl_) {
      while (done_ < cycle) {
        rtl_->edge(idle_);
        ++done_;
      }
      return;
    }
    core_.advance_idle(idle_, cycle - done_);
    done_ = cycle;
  }
  // The C++ core (configured, but not clocked while the RTL is in the loop): what the
  // model asks it is static configuration (SL-based or not, the number of flows).
  const cc::CctiBlock& core() const { return core_; }

 private:
  // What every call reads first, then the inputs and the core (laid out by use).
  uint64_t done_ = 0;
  std::unique_ptr<RtlCctiEngine> rtl_;
  cc::CctiBlockInputs idle_;
  cc::CctiBlock core_;
};

}  // namespace ibcc::net
