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

class FecnMarking final : public MarkerPort {
 public:
  using MarkerPort::MarkerPort;
  // From the scenario's cc.switch, cc.ports and Victim_Mask settings for this output.
  static std::unique_ptr<MarkingPoint> make(const MarkingSetup& setup);
};

}  // namespace ibcc::net
