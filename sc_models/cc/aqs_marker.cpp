// The AQS marker (aqs_marker.h).
#include "cc/aqs_marker.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ibcc::cc {

void AqsMarkerParams::validate() const {
  auto fail = [](const std::string& what) { throw std::invalid_argument("aqs_marker: " + what); };
  if (num_vls == 0 || num_vls > 15) fail("VLs must be 1..15, got " + std::to_string(num_vls));
  if (period_cycles == 0) fail("the averaging period (aqs_time) must be at least one cycle");
  if (weight_shift > 15) fail("aqs_weight must be 0..15, got " + std::to_string(weight_shift));
  if (!profiles.empty() && profiles.size() != num_vls) {
    fail("one profile per VL: " + std::to_string(profiles.size()) + " profiles for " + std::to_string(num_vls) + " VLs");
  }
  for (size_t v = 0; v < profiles.size(); ++v) {
    const AqsProfile& p = profiles[v];
    const std::string vl = "VL " + std::to_string(v) + ": ";
    if (p.percent == 0 || p.percent > 100) fail(vl + "percent must be 1..100, got " + std::to_string(p.percent));
    if (p.max_bytes <= p.min_bytes) {
      fail(vl + "max (" + std::to_string(p.max_bytes) + " bytes) must exceed min (" + std::to_string(p.min_bytes) + " bytes)");
    }
    if (p.max_bytes >= (uint64_t{1} << 40)) fail(vl + "max must be below 2^40 bytes");
  }
  if (seed == 0) fail("the random seed must not be 0");
}

AqsMarker::AqsMarker(const AqsMarkerParams& params) : params_(params), draw_(params.seed) {
  params_.validate();
  if (params_.profiles.empty()) params_.profiles.assign(params_.num_vls, AqsProfile{});
  vls_.resize(params_.num_vls);
}

bool AqsMarker::sample(Vl& v) const {
  const uint64_t target = v.queue << kFrac;
  const unsigned w = params_.weight_shift;
  uint64_t next;
  if (target >= v.avg) {
    next = v.avg + ((target - v.avg) >> w);
  } else {
    // Down by the same fraction, rounded away from the old value so that an idle queue's AQS
    // reaches 0.
    next = v.avg - ((v.avg - target + (uint64_t{1} << w) - 1) >> w);
  }
  if (next == v.avg) return false;
  v.avg = next;
  return true;
}

void AqsMarker::advance(uint64_t cycle) {
  const uint64_t period = params_.period_cycles;
  const uint64_t last = cycle / period * period;  // the last sample at or before `cycle`
  if (last <= sampled_ || last == 0) return;
  const uint64_t first = sampled_ == 0 ? period : sampled_ + period;
  const uint64_t count = (last - first) / period + 1;
  for (Vl& v : vls_) {
    // The queue is constant over these samples: once one changes nothing, none after does.
    for (uint64_t k = 0; k < count && sample(v); ++k) {
    }
  }
  sampled_ = last;
}

void AqsMarker::set_queue(uint64_t cycle, unsigned vl, uint64_t bytes) {
  // The samples up to `cycle` see the queue as it was (a change is seen after its cycle).
  advance(cycle);
  vls_.at(vl).queue = bytes;
}

uint32_t AqsMarker::probability_q16(unsigned vl) const {
  const AqsProfile& p = params_.profiles.at(vl);
  const uint64_t avg = vls_.at(vl).avg >> kFrac;
  if (avg <= p.min_bytes) return 0;
  if (avg > p.max_bytes) return 65536;
  const uint64_t at_max = uint64_t{p.percent} * 65536 / 100;
  return static_cast<uint32_t>((avg - p.min_bytes) * at_max / (p.max_bytes - p.min_bytes));
}

bool AqsMarker::depart(uint64_t cycle, unsigned vl, bool markable) {
  advance(cycle);
  if (!markable) return false;
  Vl& v = vls_.at(vl);
  ++v.counters.decisions;
  v.counters.max_avg_bytes = std::max(v.counters.max_avg_bytes, v.avg >> kFrac);
  const bool mark = draw_.decide(probability_q16(vl));
  if (mark) ++v.counters.marked;
  return mark;
}

}  // namespace ibcc::cc
