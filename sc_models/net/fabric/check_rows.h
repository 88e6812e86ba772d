// What the model's invariants read of the nodes (Fabric::check_rows, Fabric::check_invariants):
// per output port VL its credits and what it sent, per input port VL what arrived and what
// it holds, and the packets the nodes hold. Taken from the nodes of one process's shards,
// so that a run over processes checks every link, including those whose two ends run in two
// processes, at the process that closes the log intervals: each process sends its rows
// there as bytes (the rows as they lie in memory).
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "common/byte_stream.h"

namespace ibcc::net {

// An output port's VL, as its sender sees the link.
struct OutVlRow {
  uint32_t node = 0, port = 0, vl = 0;
  uint32_t credits = 0, sent = 0, returning = 0;
  uint32_t capacity = 0;      // the peer's buffer, as the sender counts it
  uint32_t uncredited = 0;    // PFC: no credits (credits is paused or open)
  uint32_t user_bound = 0;    // a module bound into the link
  uint32_t credits_back = 0;  // (user_bound) credits the module passed back so far
};

// An input port's VL.
struct InVlRow {
  uint32_t node = 0, port = 0, vl = 0;
  uint32_t arrived = 0, used = 0, released = 0;
  uint32_t capacity = 0;
  uint32_t pad = 0;
};

static_assert(std::is_trivially_copyable_v<OutVlRow> && sizeof(OutVlRow) == 10 * 4, "rows travel as bytes, no padding");
static_assert(std::is_trivially_copyable_v<InVlRow> && sizeof(InVlRow) == 8 * 4, "rows travel as bytes, no padding");

struct CheckRows {
  std::vector<OutVlRow> outs;
  std::vector<InVlRow> ins;
  uint64_t held = 0;  // packets in HCAs' sink and CNP queues and in switches' VoQs

  void to_bytes(ByteWriter& w) const {
    w.put_vector(outs);
    w.put_vector(ins);
    w.put(held);
  }
  // Appends another process's rows (read from its bytes) to these.
  void add_bytes(ByteReader& r) {
    std::vector<OutVlRow> o;
    std::vector<InVlRow> i;
    r.take_vector(o, "the output VLs' check rows");
    r.take_vector(i, "the input VLs' check rows");
    held += r.take<uint64_t>("the packets the nodes hold");
    outs.insert(outs.end(), o.begin(), o.end());
    ins.insert(ins.end(), i.begin(), i.end());
  }
};

}  // namespace ibcc::net
