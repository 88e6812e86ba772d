// The DCQCN congestion point (ecn_marker.h).
#include "cc/ecn_marker.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ibcc::cc {

void EcnMarkerParams::validate() const {
  auto fail = [](const std::string& what) { throw std::invalid_argument("ecn_marker: " + what); };
  if (kmax_bytes <= kmin_bytes) fail("Kmax (" + std::to_string(kmax_bytes) + " bytes) must exceed Kmin (" +
                                     std::to_string(kmin_bytes) + " bytes)");
  if (pmax_q16 == 0 || pmax_q16 > 65536) fail("Pmax must be in (0, 1] (got " + std::to_string(pmax_q16) + "/65536)");
  if (num_priorities == 0 || num_priorities > 16) fail("priorities must be 1..16");
  if (seed == 0) fail("the random seed must not be 0");
}

EcnMarker::EcnMarker(const EcnMarkerParams& params) : params_(params), draw_(params.seed) {
  params_.validate();
  counters_.resize(params_.num_priorities);
}

uint32_t EcnMarker::probability_q16(uint64_t bytes) const {
  if (bytes <= params_.kmin_bytes) return 0;
  if (bytes > params_.kmax_bytes) return 65536;
  // Linear from 0 just above Kmin to Pmax at Kmax.
  return static_cast<uint32_t>((bytes - params_.kmin_bytes) * params_.pmax_q16 /
                               (params_.kmax_bytes - params_.kmin_bytes));
}

bool EcnMarker::depart(unsigned priority, uint64_t bytes) {
  Counters& c = counters_.at(priority);
  ++c.packets;
  c.max_bytes = std::max(c.max_bytes, bytes);
  const bool mark = draw_.decide(probability_q16(bytes));
  if (mark) ++c.marked;
  return mark;
}

}  // namespace ibcc::cc
