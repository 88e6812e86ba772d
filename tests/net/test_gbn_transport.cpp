// Go-Back-N alone (GbnTransport): the sender's window, timeout and NACK, the receiver's
// in-order acceptance and its one NACK per gap, and the seed chapter's chain of events.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "net/fabric/gbn_transport.h"

namespace ibcc::net {
namespace {

// Flow 0 sends messages of `packets` packets of 1000 bytes on QP 7.
struct Sender {
  GbnTransport gbn;
  Flow f;
  Flow::Lane& lane;
  explicit Sender(uint32_t window, uint64_t timeout, bool nack = true) : gbn(window, timeout, nack), lane(lanes()) {}
  Flow::Lane& lanes() {
    f.lanes.resize(1);
    f.lanes[0].qp = 7;
    f.lanes[0].dlid = 3;
    f.lanes[0].message_left = 1u << 30;
    return f.lanes[0];
  }
  // Sends what the transport lets it send at `now`: the PSN sent, or -1 if it holds.
  int64_t send(uint64_t now, uint64_t* next = nullptr) {
    const GbnTransport::Sent* again = nullptr;
    uint64_t n = UINT64_MAX;
    const GbnTransport::Turn t = gbn.turn(f, 0, 7, now, false, &again, &n);
    if (next) *next = n;
    if (t == GbnTransport::Turn::kHold) return -1;
    EXPECT_EQ(t == GbnTransport::Turn::kAgain, again != nullptr);
    IbExtension e;
    e.payload_bytes = 1000;
    gbn.sending(f, lane, 0, e, again, now);
    return e.psn;
  }
  void ack(uint32_t psn, bool nack = false) {
    IbExtension a;
    a.flow = 0;
    a.qp = 7;
    a.psn = psn;
    a.nack = nack;
    gbn.acknowledged(f, a);
  }
};

TEST(GbnTransport, TheWindowHoldsUntilAnAck) {
  Sender s(4, 1000);
  for (int p = 0; p < 4; ++p) EXPECT_EQ(s.send(10), p);
  uint64_t next = 0;
  EXPECT_EQ(s.send(11, &next), -1) << "four out: the window is full";
  EXPECT_EQ(next, 1010u) << "the oldest's retransmission deadline";
  s.ack(2);  // PSNs 0 and 1 acknowledged
  EXPECT_EQ(s.send(12), 4);
  EXPECT_EQ(s.send(12), 5);
  EXPECT_EQ(s.send(12), -1);
  EXPECT_EQ(s.f.stats.packs, 1u);
  EXPECT_EQ(s.f.stats.retransmitted_packets, 0u);
}

TEST(GbnTransport, ATimeoutGoesBackToTheOldest) {
  Sender s(8, 100);
  for (int p = 0; p < 3; ++p) EXPECT_EQ(s.send(0), p);
  s.ack(1);  // PSN 0 in; 1 and 2 lost
  EXPECT_EQ(s.send(50), 3) << "before the deadline: new data";
  EXPECT_EQ(s.send(100), 1) << "the deadline passed: back to PSN 1";
  EXPECT_EQ(s.send(101), 2);
  EXPECT_EQ(s.send(102), 3);
  EXPECT_EQ(s.send(103), 4) << "then new data again";
  EXPECT_EQ(s.f.stats.timeouts, 1u);
  EXPECT_EQ(s.f.stats.retransmitted_packets, 3u);
  EXPECT_EQ(s.f.stats.chain[FlowStats::kPack][FlowStats::kTimeout], 1u);
}

TEST(GbnTransport, ANackGoesBackAndAStaleOneIsIgnored) {
  Sender s(8, 1000);
  for (int p = 0; p < 5; ++p) s.send(0);
  s.ack(2, true);  // the receiver misses PSN 2
  s.ack(2, true);  // a second NACK for it before it went again: stale
  EXPECT_EQ(s.send(1), 2);
  EXPECT_EQ(s.send(2), 3);
  EXPECT_EQ(s.f.stats.nacks, 1u);
  EXPECT_EQ(s.f.stats.retransmitted_packets, 2u);
  EXPECT_EQ(s.f.stats.chain[FlowStats::kNack][FlowStats::kNack], 0u);
}

TEST(GbnTransport, TheReceiverTakesInOrderAndNacksOncePerGap) {
  GbnTransport gbn(8, 100, true);
  auto arrive = [&](uint32_t psn, uint32_t* ack, bool* nack, bool* discard) {
    IbExtension e;
    e.slid = 5;
    e.qp = 7;
    e.psn = psn;
    const bool answered = gbn.receive(e, ack, nack);
    *discard = e.discard;
    return answered;
  };
  uint32_t ack = 0;
  bool nack = false, discard = false;
  ASSERT_TRUE(arrive(0, &ack, &nack, &discard));
  EXPECT_EQ(ack, 1u);
  EXPECT_FALSE(nack || discard);
  ASSERT_TRUE(arrive(2, &ack, &nack, &discard)) << "PSN 1 lost: a NACK";
  EXPECT_TRUE(nack && discard);
  EXPECT_EQ(ack, 1u);
  EXPECT_FALSE(arrive(3, &ack, &nack, &discard)) << "the same gap: no second NACK";
  EXPECT_TRUE(discard);
  ASSERT_TRUE(arrive(0, &ack, &nack, &discard)) << "a duplicate is acknowledged again";
  EXPECT_FALSE(nack);
  EXPECT_TRUE(discard);
  ASSERT_TRUE(arrive(1, &ack, &nack, &discard));
  EXPECT_EQ(ack, 2u);
  ASSERT_TRUE(arrive(3, &ack, &nack, &discard)) << "a new gap: a NACK again";
  EXPECT_TRUE(nack);

  GbnTransport simple(8, 100, false);
  IbExtension e;
  e.psn = 1;
  EXPECT_FALSE(simple.receive(e, &ack, &nack)) << "simple_gbn: timeouts only, no NACK";
  EXPECT_TRUE(e.discard);
}

}  // namespace
}  // namespace ibcc::net
