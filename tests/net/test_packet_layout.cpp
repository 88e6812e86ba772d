// The per-hop fields of a packet lie in one cache line (packet.h): a packet dequeued long
// after it arrived costs one miss. Measured on pool-allocated packets, as the fabric gets them.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "net/fabric/node_context.h"
#include "net/fabric/packet.h"

namespace {

using ibcc::net::ib;
using ibcc::net::IbExtension;
using ibcc::net::PacketPool;

TEST(PacketLayout, PerHopFieldsShareOneCacheLine) {
  PacketPool pool;
  std::vector<tlm::tlm_generic_payload*> held;
  for (int i = 0; i < 16; ++i) held.push_back(pool.alloc());
  for (tlm::tlm_generic_payload* p : held) {
    IbExtension& e = ib(p);
    const auto line = [p](const void* field) {
      return (reinterpret_cast<uintptr_t>(field) - reinterpret_cast<uintptr_t>(p)) / 64;
    };
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << "an IbPacket starts a cache line";
    const auto first = line(&e.next);
    // Each field's first and last byte.
    auto same_line = [&](const auto& field) {
      const char* b = reinterpret_cast<const char*>(&field);
      return line(b) == first && line(b + sizeof(field) - 1) == first;
    };
    EXPECT_TRUE(same_line(e.next) && same_line(e.eligible_cycle) && same_line(e.tail_cycle) && same_line(e.credits) &&
                same_line(e.wire_bytes) && same_line(e.hop) && same_line(e.dlid) && same_line(e.slid) &&
                same_line(e.in_port) && same_line(e.vl) && same_line(e.sl) && same_line(e.opcode) &&
                same_line(e.fecn) && same_line(e.becn) && same_line(e.in_fill));
  }
  for (tlm::tlm_generic_payload* p : held) p->release();
}

}  // namespace

namespace {

// A queue counts up to 2^24 - 1 packets (PacketFifo is 32 bytes) and says so beyond,
// instead of wrapping its count.
TEST(PacketFifo, CountsItsPacketsAndSaysWhenItCannot) {
  static_assert(sizeof(ibcc::net::PacketFifo) == 32 && alignof(ibcc::net::PacketFifo) == 32);
  PacketPool pool;
  tlm::tlm_generic_payload* a = pool.alloc();
  tlm::tlm_generic_payload* b = pool.alloc();
  ib(a).credits = 33;
  ib(b).credits = 2;
  ibcc::net::PacketFifo q;
  q.push(a);
  q.push(b);
  EXPECT_EQ(q.count, 2u);
  EXPECT_EQ(q.head_credits, 33u);
  EXPECT_EQ(q.pop(), a);
  EXPECT_EQ(q.head_credits, 2u);
  q.count = ibcc::net::PacketFifo::kMaxCount;
  EXPECT_THROW(q.push(a), ibcc::net::ModelError);
  a->release();
  b->release();
}

}  // namespace
