// cc.marking: nvidia. The marking point NVIDIA's OpenSM configures on its IB switches, as
// cc/aqs_marker.h reads it: per VL, an averaged queue (AQS) of the packets fully received for
// the output in every input's VoQs (the VoQ fills the FECN marker also sees), sampled once per
// aqs_time, and a WRED profile on it. Only data packets take a decision and carry the mark
// (FECN, which the destination answers as the reaction point's regime says).
#pragma once

#include <memory>
#include <vector>

#include "cc/aqs_marker.h"
#include "net/fabric/marking_point.h"

namespace ibcc::net {

class NvidiaMarking final : public MarkingPoint {
 public:
  NvidiaMarking(const cc::AqsMarkerParams& params, unsigned inputs)
      : MarkingPoint({true, false}), core_(params), inputs_(inputs), fill_(static_cast<size_t>(inputs) * params.num_vls, 0),
        queue_credits_(params.num_vls, 0), marks_(params.num_vls, 0) {}
  // From the scenario's cc.nvidia, with the port's own seed.
  static std::unique_ptr<MarkingPoint> make(const MarkingSetup& setup);

  void set_fill(uint64_t cycle, unsigned input, unsigned vl, uint32_t credits) override {
    uint32_t& f = fill_[static_cast<size_t>(vl) * inputs_ + input];
    queue_credits_[vl] = queue_credits_[vl] - f + credits;
    f = credits;
    core_.set_queue(cycle, vl, uint64_t{queue_credits_[vl]} * 64);
  }
  // The VLs whose averaged queue is above their profile's min (a departing packet may be
  // marked).
  uint32_t cong_state() const override {
    uint32_t bits = 0;
    for (unsigned v = 0; v < core_.params().num_vls; ++v) bits |= uint32_t{core_.probability_q16(v) > 0} << v;
    return bits;
  }
  bool depart(uint64_t cycle, const Departure& d) override {
    if (!core_.depart(cycle, d.vl, d.data)) return false;
    ++marks_[d.vl];
    return true;
  }
  Sample take_sample(uint64_t cycle, unsigned vl, uint64_t /*egress_bytes*/) override {
    core_.advance(cycle);
    Sample s;
    s.marks = marks_[vl];
    marks_[vl] = 0;
    s.congested = core_.probability_q16(vl) > 0;
    return s;
  }
  const cc::AqsMarker& core() const { return core_; }

 private:
  cc::AqsMarker core_;
  unsigned inputs_;
  std::vector<uint32_t> fill_;           // [vl][input]: credits, as set_fill gave them
  std::vector<uint32_t> queue_credits_;  // [vl]: their sum
  std::vector<uint64_t> marks_;          // [vl]: marks since the last sample
};

}  // namespace ibcc::net
