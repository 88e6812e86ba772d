// A switch output's marking point (the congestion point of cc.marking): what it sees of its
// output and, for each packet that departs, whether the packet leaves marked (FECN, or ECN's
// congestion-experienced bit, which travels where FECN does). Each regime is a class behind
// this interface (FecnMarking, EcnMarking), made by name from the registry below: a new
// regime is a new class and a line in the registry, and Switch has no branch on the regime.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cc/fecn_marker.h"
#include "net/fabric/regime_class.h"
#include "net/fabric/rtl_engine.h"

namespace ibcc::net {

class NodeContext;

class MarkingPoint {
 public:
  // What the marking point watches of its output, beyond the departures (fixed by its class).
  struct Watches {
    // The VoQ fill per (input, VL) of packets fully received for this output, and the
    // output's credits per VL: set_fill, set_credits, cong_state.
    bool voq_fill = false;
    // The bytes queued for the output per VL in every input's VoQs, the departing packet's
    // included (Departure::egress_bytes): the switch measures its egress queues.
    bool egress_bytes = false;
  };
  explicit MarkingPoint(Watches w) : watches_(w) {}
  virtual ~MarkingPoint() = default;
  MarkingPoint(const MarkingPoint&) = delete;
  MarkingPoint& operator=(const MarkingPoint&) = delete;
  const Watches& watches() const { return watches_; }

  // Watches::voq_fill. A change made at cycle t is seen by the edge of t + 1.
  virtual void set_fill(uint64_t /*cycle*/, unsigned /*input*/, unsigned /*vl*/, uint32_t /*credits*/) {}
  virtual void set_credits(uint64_t /*cycle*/, unsigned /*vl*/, uint32_t /*credits*/) {}
  // The congestion state of each VL (bit v) as the marking point holds it now.
  virtual uint32_t cong_state() const { return 0; }
  // Watches::voq_fill: the VoQ fill (credits) at which a VL enters the congestion state and
  // below which it leaves it, and what is compared with them ("" and 0: no such level).
  struct TripLevel {
    std::string measure;
    uint32_t enter_credits = 0, exit_credits = 0;
  };
  virtual TripLevel trip_level() const { return {}; }

  struct Departure {
    unsigned vl = 0, sl = 0, slid = 0, dlid = 0;
    unsigned credits = 0;       // the packet's size, 64-byte credits
    bool data = false;          // a data packet (only these carry a mark)
    uint64_t egress_bytes = 0;  // Watches::egress_bytes: queued for the output on its VL, it included
  };
  // A packet departs at `cycle`: true if it leaves marked (a data packet only).
  virtual bool depart(uint64_t cycle, const Departure& d) = 0;

  // What a statistics interval reports of VL `vl`, up to cycle `cycle` (then reset):
  // whether it is congested now, the edges it spent congested, the packets marked.
  // `egress_bytes` is the VL's egress queue now (Watches::egress_bytes).
  struct Sample {
    bool congested = false;
    uint64_t congested_edges = 0;
    uint64_t marks = 0;
  };
  virtual Sample take_sample(uint64_t cycle, unsigned vl, uint64_t egress_bytes) = 0;

 private:
  Watches watches_;
};

// What a marking point of switch `node`'s output `port` is made from.
struct MarkingSetup {
  const NodeContext& ctx;
  unsigned node = 0, port = 0;
  unsigned inputs = 1;          // the switch's linked inputs (the VoQs a FECN marker sees)
  uint32_t buffer_credits = 0;  // the per-VL input buffer of the switch (at port `port`), credits: the fills' capacity
  uint32_t tick_cycles = 0;     // 1.024 us in core cycles (the blocks' timebase)
  uint32_t seed = 0;            // the port's own seed, from the scenario's (random draws)
  // RTL in the loop: the Verilated block that decides instead of the C++ core at this
  // port (null: none), for a FECN marker of these parameters.
  std::function<std::unique_ptr<RtlMarkerEngine>(const cc::FecnMarkerParams&)> rtl;
  // A remark for the run's notes (a setting that can never take effect here).
  std::function<void(const std::string&)> note;
};

using MarkingClass = RegimeClass<MarkingPoint, MarkingSetup>;  // (the cc.marking values: the scenario's kMarkings)
// Every marking class (regimes.cpp).
const std::vector<MarkingClass>& marking_classes();
// The marking point of class `name`; std::invalid_argument for a name no class has.
std::unique_ptr<MarkingPoint> make_marking(std::string_view name, const MarkingSetup& setup);

}  // namespace ibcc::net
