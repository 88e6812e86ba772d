// The VLArbitration unit alone (no fabric): which VL it serves, packet by packet, for the
// tables' weights, the high-priority limit and the VLs that have something to send.
#include <gtest/gtest.h>

#include <map>

#include "net/fabric/vl_arbiter.h"

namespace ibcc::net {
namespace {

// Serves `n` packets of `bytes` each with every VL of `ready` always ready; counts per VL.
std::map<int, int> serve(const VlArbTables& t, uint32_t ready, int n, uint32_t bytes = 2048) {
  VlArbiter a;
  std::map<int, int> count;
  for (int i = 0; i < n; ++i) {
    const int vl = a.pick(t, 4, ready);
    ++count[vl];
    if (vl >= 0) a.sent(bytes);
  }
  return count;
}

TEST(VlArbiter, WeightsSharePacketsInProportion) {
  // 32 x 64 B = one 2 KiB packet per turn for VL0, three for VL1.
  const auto c = serve({{}, {{0, 32}, {1, 96}}, 0}, 0b11, 400);
  EXPECT_EQ(c.at(0), 100);
  EXPECT_EQ(c.at(1), 300);
}

TEST(VlArbiter, AnEntryWhoseVlIsNotReadyIsSkipped) {
  const auto c = serve({{}, {{0, 32}, {1, 96}}, 0}, 0b10, 10);
  EXPECT_EQ(c.count(0), 0u);
  EXPECT_EQ(c.at(1), 10);
}

TEST(VlArbiter, NothingReadyGivesNoVl) {
  VlArbiter a;
  EXPECT_EQ(a.pick({{{1, 255}}, {{0, 255}}, 0}, 4, 0), -1);
  // A VL beyond the port's VLs is never served.
  EXPECT_EQ(a.pick({{}, {{5, 255}}, 0}, 4, 0b100000), -1);
}

TEST(VlArbiter, HighWithoutLimitStarvesLow) {
  const auto c = serve({{{1, 255}}, {{0, 255}}, 255}, 0b11, 100);
  EXPECT_EQ(c.at(1), 100);
  EXPECT_EQ(c.count(0), 0u);
}

TEST(VlArbiter, HighLimitZeroAlternatesOnePacketEach) {
  VlArbiter a;
  const VlArbTables t{{{1, 255}}, {{0, 255}}, 0};
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(a.pick(t, 4, 0b11), 1) << i;
    a.sent(2048);
    EXPECT_EQ(a.pick(t, 4, 0b11), 0) << i;
    a.sent(2048);
  }
}

TEST(VlArbiter, HighLimitCountsFourKibUnits) {
  // Limit 2 = 8 KiB: four 2 KiB high packets, then one low one.
  const auto c = serve({{{1, 255}}, {{0, 255}}, 2}, 0b11, 500);
  EXPECT_EQ(c.at(1), 400);
  EXPECT_EQ(c.at(0), 100);
}

TEST(VlArbiter, HighServedWhileLowHasNothing) {
  const auto c = serve({{{1, 255}}, {{0, 255}}, 0}, 0b10, 20);
  EXPECT_EQ(c.at(1), 20);
}

}  // namespace
}  // namespace ibcc::net
