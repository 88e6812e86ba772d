// IB VLArbitration of one output port (IBA 7.6.9): a high- and a low-priority table of
// (VL, weight) entries. The high table is served while LimitOfHighPriority allows (in 4 KiB
// units; 0 = one packet; 255 = no limit) or while no low-priority VL may send; in each table
// an entry lets its VL send weight x 64 bytes before the next entry with a ready VL gets its
// turn. Plain C++ (no SystemC, no fabric): the switch asks pick() which VL to serve among
// those with a packet that may go, and reports what it sent with sent().
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "net/scenario/scenario.h"

namespace ibcc::net {

class VlArbiter {
 public:
  // The VL to serve next among those whose bit is set in `ready` (VLs >= num_vls are never
  // ready), or -1. Commits the table entry it chose.
  int pick(const VlArbTables& t, unsigned num_vls, uint32_t ready);
  // The packet of the VL pick() returned has been sent.
  void sent(uint32_t bytes);

 private:
  // Per table (0 high, 1 low): the current entry and the bytes it may still send; bytes
  // sent from the high table since the last low-priority packet.
  int walk(const std::vector<std::pair<unsigned, unsigned>>& table, unsigned t, unsigned num_vls, uint32_t ready,
           bool commit);
  unsigned entry_[2] = {0, 0};
  int64_t left_[2] = {0, 0};
  uint64_t high_count_ = 0;
  bool from_high_ = false;
};

}  // namespace ibcc::net
