// cc.marking: ecn. DCQCN's congestion point on a switch output: the ECN marker core
// (cc/ecn_marker.h, RED between Kmin and Kmax) deciding from the bytes waiting for the
// output on the packet's VL in the VoQs of every input (its egress queue), the packet
// included. Every packet is a decision of the core; only data packets carry the mark.
#pragma once

#include <memory>
#include <vector>

#include "cc/ecn_marker.h"
#include "net/fabric/marking_point.h"

namespace ibcc::net {

class EcnMarking final : public MarkingPoint {
 public:
  explicit EcnMarking(const cc::EcnMarkerParams& params)
      : MarkingPoint({false, true}), core_(params), marks_(params.num_priorities, 0) {}
  // From the scenario's cc.ecn, with the port's own seed.
  static std::unique_ptr<MarkingPoint> make(const MarkingSetup& setup);

  bool depart(uint64_t /*cycle*/, const Departure& d) override {
    if (!core_.depart(d.vl, d.egress_bytes) || !d.data) return false;
    ++marks_[d.vl];
    return true;
  }
  // Congested while the egress queue is above Kmin.
  Sample take_sample(uint64_t /*cycle*/, unsigned vl, uint64_t egress_bytes) override {
    Sample s;
    s.marks = marks_[vl];
    marks_[vl] = 0;
    s.congested = egress_bytes > core_.params().kmin_bytes;
    return s;
  }
  const cc::EcnMarker& core() const { return core_; }

 private:
  cc::EcnMarker core_;
  std::vector<uint64_t> marks_;  // [vl]: marks since the last sample
};

}  // namespace ibcc::net
