// The marking point of the congestion control NVIDIA's OpenSM configures on its IB switches
// (its switch settings: aqs_weight and aqs_time, and per VL a marking profile {percent, min,
// max}), as we read them: each VL of an output keeps an averaged queue size (AQS), updated
// once every aqs_time by an exponentially weighted moving average of weight 2^-aqs_weight
// over the queue at that moment; a departing packet is marked with a probability that is 0
// while the AQS is at or below the profile's min, rises linearly to percent % at its max and
// is 100 % above it (WRED's profile). Plain C++, cycle-level, no SystemC; docs/cc_blocks.md,
// "AQS marker".
//
// Time is in core cycles. The queue is given by set_queue at the cycle it changes; a change at
// cycle t is seen by the averaging samples after t (at every cycle that is a multiple of the
// period). Between changes the state advances lazily (advance): a jump over many periods
// gives what stepping each one does, because each sample applies the same integer update.
#pragma once

#include <cstdint>
#include <vector>

#include "cc/mark_draw.h"

namespace ibcc::cc {

struct AqsProfile {
  unsigned percent = 1;           // the marking probability at `max_bytes`, %: 1..100
  uint64_t min_bytes = 5000;      // at or below: no mark
  uint64_t max_bytes = 200000;    // above min; above it every packet is marked
};

struct AqsMarkerParams {
  unsigned num_vls = 1;           // VLs of the output (1..15), each with its queue, AQS and profile
  uint64_t period_cycles = 256;   // aqs_time in core cycles: one averaging sample per this (>= 1)
  unsigned weight_shift = 3;      // aqs_weight: AQS += (queue - AQS) / 2^weight_shift (0..15; 0: no averaging)
  std::vector<AqsProfile> profiles;  // one per VL (empty: the default profile on every VL)
  uint32_t seed = 1;              // the random source's start (never 0)

  void validate() const;  // std::invalid_argument naming the parameter
};

class AqsMarker {
 public:
  explicit AqsMarker(const AqsMarkerParams& params);

  // The queue of VL `vl` is `bytes` from cycle `cycle` on (cycles never go back).
  void set_queue(uint64_t cycle, unsigned vl, uint64_t bytes);
  // Applies the averaging samples up to and including cycle `cycle`.
  void advance(uint64_t cycle);

  // A packet of VL `vl` departs at cycle `cycle`: marked or not. `markable`: a packet that can
  // carry the mark (data); only those take a decision and draw.
  bool depart(uint64_t cycle, unsigned vl, bool markable);

  // The AQS of VL `vl`, bytes (rounded down), as of the last advance.
  uint64_t average_bytes(unsigned vl) const { return vls_.at(vl).avg >> kFrac; }
  // The marking probability of VL `vl` at its current AQS, in 1/65536 (65536: always).
  uint32_t probability_q16(unsigned vl) const;

  struct Counters {
    uint64_t decisions = 0;  // markable departures
    uint64_t marked = 0;
    uint64_t max_avg_bytes = 0;  // the largest AQS a decision saw
  };
  const Counters& counters(unsigned vl) const { return vls_.at(vl).counters; }
  const AqsMarkerParams& params() const { return params_; }

 private:
  static constexpr unsigned kFrac = 16;  // the AQS keeps 16 fraction bits

  struct Vl {
    uint64_t queue = 0;  // bytes, as set_queue last gave them
    uint64_t avg = 0;    // bytes << kFrac
    Counters counters;
  };
  // One sample of VL `v`: false if it changed nothing (then no later sample at the same
  // queue does either).
  bool sample(Vl& v) const;

  AqsMarkerParams params_;
  std::vector<Vl> vls_;
  uint64_t sampled_ = 0;  // the last cycle whose sample has been applied (0: none yet)
  MarkDraw draw_;
};

}  // namespace ibcc::cc
