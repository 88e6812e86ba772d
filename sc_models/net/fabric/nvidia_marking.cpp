#include "net/fabric/nvidia_marking.h"

#include <algorithm>

#include "net/fabric/node_context.h"

namespace ibcc::net {

std::unique_ptr<MarkingPoint> NvidiaMarking::make(const MarkingSetup& setup) {
  const Scenario& s = setup.ctx.scenario();
  const NvidiaMarkingSpec& m = s.cc.nvidia;
  cc::AqsMarkerParams p;
  p.num_vls = s.fabric.vls;
  const uint64_t ps = setup.ctx.ps_per_cycle();
  p.period_cycles = std::max<uint64_t>(1, (m.aqs_time_ps + ps / 2) / ps);
  p.weight_shift = m.aqs_weight;
  auto profile = [](const NvidiaProfileSpec& n) { return cc::AqsProfile{n.percent, n.min_bytes, n.max_bytes}; };
  p.profiles.assign(p.num_vls, profile(m.profile));
  for (const auto& [vl, n] : m.vl_profiles) p.profiles.at(vl) = profile(n);
  p.seed = setup.seed;
  return std::make_unique<NvidiaMarking>(p, setup.inputs);
}

}  // namespace ibcc::net
