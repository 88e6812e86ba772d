// The DCQCN congestion point: RED-style ECN marking on a switch egress queue (Kmin, Kmax,
// Pmax), one decision per departing packet from the queue's size as it leaves. Plain C++,
// cycle-level (a decision is one clock edge), no SystemC; docs/cc_blocks.md, "ECN marker".
#pragma once

#include <cstdint>
#include <vector>

#include "cc/mark_draw.h"

namespace ibcc::cc {

struct EcnMarkerParams {
  uint64_t kmin_bytes = 5 * 1024;    // Kmin: at or below, no packet is marked
  uint64_t kmax_bytes = 200 * 1024;  // Kmax: above, every packet is marked
  // Pmax: the marking probability reached at Kmax, in 1/65536 (655 = 1 %, the DCQCN
  // paper's setting; 65536 = 100 %).
  uint32_t pmax_q16 = 655;
  unsigned num_priorities = 1;  // queues (priorities / VLs) of the port, each with its counters
  uint32_t seed = 1;            // the random source's start (never 0)

  void validate() const;  // std::invalid_argument naming the parameter
};

class EcnMarker {
 public:
  explicit EcnMarker(const EcnMarkerParams& params);

  // The marking probability at queue size `bytes`, in 1/65536 (65536: always).
  uint32_t probability_q16(uint64_t bytes) const;

  // A packet leaves queue `priority` whose size (bytes, the packet included) is `bytes`:
  // marked or not. The random source steps once per decision in the marking range only, so a
  // queue outside (Kmin, Kmax] draws nothing.
  bool depart(unsigned priority, uint64_t bytes);

  struct Counters {
    uint64_t packets = 0;  // decisions
    uint64_t marked = 0;
    uint64_t max_bytes = 0;  // the largest queue a packet left
  };
  const Counters& counters(unsigned priority) const { return counters_.at(priority); }
  const EcnMarkerParams& params() const { return params_; }

 private:
  EcnMarkerParams params_;
  MarkDraw draw_;
  std::vector<Counters> counters_;
};

}  // namespace ibcc::cc
