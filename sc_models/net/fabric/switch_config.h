// What a switch and its units are built with, from the scenario's fabric.switch settings
// (SwitchConfig::from, switch.cpp), read once: the units never read the scenario while they
// run.
#pragma once

#include <cstdint>

#include "net/scenario/scenario.h"

namespace ibcc::net {

class NodeContext;

struct SwitchConfig {
  uint64_t latency = 0;          // cycles from a head's arrival to its eligibility (switch_latency)
  bool fill_from_head = false;   // a packet counts in its VoQ's fill from its head (fill_count: head)
  bool credit_in_order = false;  // a head that lacks credits holds its VL (credit_order: in_order)
  bool oldest_first = false;     // the oldest eligible head goes first (arbitration: oldest_first)
  bool ignore_credits = false;   // the fault faults.ignore_credits
  double crossbar_speedup = 1;   // an input's crossbar read side, in multiples of its link rate
  const VlArbTables* vlarb = nullptr;  // VLArbitration tables between VLs (null: round robin)
  // Adaptive routing (fabric.adaptive_routing) and the bounded variant's bound, bytes.
  FabricParams::AdaptiveRouting adaptive = FabricParams::AdaptiveRouting::kOff;
  uint64_t ar_bound = 0;
  static SwitchConfig from(const NodeContext& ctx);
};

}  // namespace ibcc::net
