#include "net/fabric/ecn_marking.h"

#include <algorithm>
#include <cmath>

#include "net/fabric/node_context.h"

namespace ibcc::net {

std::unique_ptr<MarkingPoint> EcnMarking::make(const MarkingSetup& setup) {
  const Scenario& s = setup.ctx.scenario();
  cc::EcnMarkerParams ep;
  ep.kmin_bytes = s.cc.ecn.kmin_bytes;
  ep.kmax_bytes = s.cc.ecn.kmax_bytes;
  ep.pmax_q16 = static_cast<uint32_t>(std::clamp(std::llround(s.cc.ecn.pmax * 65536.0), 1LL, 65536LL));
  ep.num_priorities = s.fabric.vls;
  ep.seed = setup.seed;
  return std::make_unique<EcnMarking>(ep);
}

}  // namespace ibcc::net
