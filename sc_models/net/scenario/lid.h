// A node's address in the model: the destination a forwarding table is indexed by, a
// packet's DLID and SLID. On an IB fabric (credit-based flow control) it is the LID, and a
// subnet has the unicast LIDs 1..kMaxUnicastLid, one per HCA port and switch. An Ethernet
// fabric (fabric.flow_control pfc or none) addresses its end points otherwise (MAC and IP),
// without that limit: there the model numbers its nodes the same way, past kMaxUnicastLid.
#pragma once

#include <cstdint>

namespace ibcc::net {

using Lid = uint32_t;
inline constexpr Lid kMaxUnicastLid = 0xbfff;
// An Ethernet fabric's size is bounded by its forwarding tables (one per switch, 2 bytes per
// address): a generated fabric whose tables would take more is refused before it is built.
inline constexpr double kMaxLftGib = 16;

}  // namespace ibcc::net
