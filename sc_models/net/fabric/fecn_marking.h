// cc.marking: fecn. IB CC's congestion point on a switch output: the FECN marker core
// (cc/fecn_marker.h) through its lazy adapter MarkerPort (cc_adapters.h), seeing the VoQ
// fill of the packets fully received for the output and the output's credits. Only data
// packets are its decisions (IBA: FECN is ignored on ACKs and CNPs, so they must not use up
// a Marking_Rate decision, count as a mark or enter the CongestionLog).
#pragma once

#include <memory>

#include "net/fabric/cc_adapters.h"
#include "net/fabric/marking_point.h"
#include "net/fabric/vl_array.h"

namespace ibcc::net {

static_assert(kMaxVls == cc::FecnMarker::kMaxVls, "a port's VLs are the FECN marker's");

class FecnMarking final : public MarkingPoint {
 public:
  // `rtl`, `lfsr_seed`: as MarkerPort's.
  FecnMarking(const cc::FecnMarkerParams& params, const SwitchCcSpec& sw, const PortCcOverride* port, bool victim_mask,
              uint32_t buffer_credits, std::unique_ptr<RtlMarkerEngine> rtl = nullptr, uint16_t lfsr_seed = 0)
      : MarkingPoint({true, false}), m_(params, sw, port, victim_mask, buffer_credits, std::move(rtl), lfsr_seed) {}
  // From the scenario's cc.switch, cc.ports and Victim_Mask settings for this output.
  static std::unique_ptr<MarkingPoint> make(const MarkingSetup& setup);

  void set_fill(uint64_t cycle, unsigned input, unsigned vl, uint32_t credits) override {
    m_.set_fill(cycle, input, vl, credits);
  }
  void set_credits(uint64_t cycle, unsigned vl, uint32_t credits) override { m_.set_credits(cycle, vl, credits); }
  uint32_t cong_state() const override { return m_.cong_state(); }
  bool depart(uint64_t cycle, const Departure& d) override {
    return d.data && m_.depart(cycle, d.vl, d.sl, d.slid, d.dlid, d.credits);
  }
  Sample take_sample(uint64_t cycle, unsigned vl, uint64_t egress_bytes) override;

  MarkerPort& marker() { return m_; }

 private:
  MarkerPort m_;
};

}  // namespace ibcc::net
