// A partition of the fabric for a conservative, window-synchronous parallel run: the nodes in
// groups, each group's events on its own calendar, messages between groups (packet heads,
// credits, pauses) crossing only on links that join two groups, and the window (how far every
// group may run before it must see the others' messages) the smallest latency of any message
// that crosses: the propagation of the fastest cut link, in core cycles as the model counts
// it (a link's propagation rounded up to whole cycles, for heads and credits alike).
//
// The unit of partitioning is a switch with the HCAs linked to it (an HCA's events are its
// leaf's business: cutting the link between them would put a window of one propagation on
// every packet); units are weighed by the load the scenario's flows are expected to offer
// their switch's outputs (expected_load.h) and split by METIS's k-way partitioner (a fixed
// seed: the same fabric gives the same partition), the load between units as edge weights so
// that busy links stay inside a group.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "net/scenario/expected_load.h"
#include "net/scenario/scenario.h"
#include "net/scenario/topology.h"

namespace ibcc::net {

class PartitionError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct PartitionPlan {
  unsigned parts = 1;
  std::vector<uint32_t> part_of;  // [node] -> group
  struct Group {
    unsigned switches = 0, hcas = 0;
    double load_bps = 0;  // expected offered load on its switches' outputs
  };
  std::vector<Group> groups;
  unsigned units = 0;            // switches (each with its HCAs)
  uint64_t links = 0, cut_links = 0;
  // The window, core cycles (0: nothing is cut, one group), the link that sets it and its
  // propagation.
  uint64_t window_cycles = 0;
  std::string window_link;
  uint64_t window_link_ps = 0;
  // The largest group's load over the mean (1: balanced); with no load, by units.
  double imbalance = 1.0;
};

// Splits `t` into `parts` groups (1: all in group 0). PartitionError if `parts` exceeds the
// units, or a cut link carries a message in less than one cycle (propagation 0).
PartitionPlan partition_fabric(const Topology& t, const Scenario& s, const std::vector<PortLoad>& loads, unsigned parts,
                               uint64_t ps_per_cycle);

// What keeps a scenario from running on `threads` threads, found before anything is built:
// more groups than the fabric has units (as the partition counts them). Empty when it can.
std::string parallel_refusal(const Scenario& s, unsigned threads);

}  // namespace ibcc::net
