// What crosses a cut link of a parallel run (a link between two shards): a packet's head on
// the forward path, a link's credits or a PFC pause on the backward path, due at the
// receiving port at cycle `at`. Plain bytes (trivially copyable, no pointer: the receiving
// port is named by its node and port numbers, the packet by a copy of its fields), so that
// the same message goes from one shard to another within a process (a vector between two
// threads) or between processes (MPI, as bytes). The receiving shard makes the packet anew
// from its own pool (NodeContext::deliver); the sender gives its copy back to its own pool
// at the end of the window (CutLinkEnd): each shard's packets stay in its own memory.
#pragma once

#include <cstdint>
#include <type_traits>

#include "net/fabric/packet.h"

namespace ibcc::net {

struct WireMessage {
  uint64_t at = 0;     // the cycle it reaches the receiving port
  uint64_t sent = 0;   // the sender's cycle (the age the receiving event counts from)
  uint32_t node = 0;   // the receiving end: node and port
  uint32_t port = 0;
  // The backward path: IbCredit's VL, credits and kind (credits, pause, resume).
  uint32_t vl = 0, credits = 0, pfc = 0;
  // The forward path: a head, with the payload's length and command and the packet's fields
  // (IbFields::next, the sender's queue link, means nothing here).
  uint32_t data_length = 0;
  bool head = false;
  uint8_t command = 0;
  IbFields packet;
};
static_assert(std::is_trivially_copyable_v<WireMessage>, "a wire message travels between processes as bytes");

}  // namespace ibcc::net
