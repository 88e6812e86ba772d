// The VoQ arbiter alone (no fabric): which requesting (input, VL) pair it visits first and in
// what order, round robin after each grant, across 64-bit words of the request bitmap.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "net/fabric/voq_arbiter.h"

namespace ibcc::net {
namespace {

// The pairs scan() visits when no visit says "go".
std::vector<unsigned> visits(const VoqArbiter& a) {
  std::vector<unsigned> v;
  EXPECT_EQ(a.scan([&](unsigned p) {
    v.push_back(p);
    return false;
  }), -1);
  return v;
}

TEST(VoqArbiter, VisitsOnlyRequestingPairsFromThePointerAndWraps) {
  VoqArbiter a(10);
  for (unsigned p : {1u, 4u, 7u, 9u}) a.request(p, true);
  EXPECT_EQ(visits(a), (std::vector<unsigned>{1, 4, 7, 9}));
  a.granted(4);  // served pair 4: the next scan starts at 5
  EXPECT_EQ(a.pointer(), 5u);
  EXPECT_EQ(visits(a), (std::vector<unsigned>{7, 9, 1, 4}));
  a.request(7, false);
  EXPECT_FALSE(a.requesting(7));
  EXPECT_EQ(visits(a), (std::vector<unsigned>{9, 1, 4}));
  a.granted(9);  // the last pair: wraps to 0
  EXPECT_EQ(a.pointer(), 0u);
}

TEST(VoqArbiter, ScanStopsAtTheFirstPairThatMayGo) {
  VoqArbiter a(8);
  for (unsigned p = 0; p < 8; ++p) a.request(p, true);
  a.granted(2);
  int asked = 0;
  EXPECT_EQ(a.scan([&](unsigned p) {
    ++asked;
    return p % 2 == 0;  // only even pairs may go
  }), 4);
  EXPECT_EQ(asked, 2);  // 3 (no), 4 (yes)
}

TEST(VoqArbiter, RoundRobinServesBackloggedPairsInTurn) {
  // 36 inputs x 2 VLs (two words): with every pair always requesting and always allowed to
  // go, 720 grants serve each pair exactly 10 times, in pair order.
  VoqArbiter a(72);
  for (unsigned p = 0; p < 72; ++p) a.request(p, true);
  std::vector<int> served(72, 0);
  int last = -1;
  for (int i = 0; i < 720; ++i) {
    const int p = a.scan([](unsigned) { return true; });
    ASSERT_EQ(p, (last + 1) % 72);
    ++served[static_cast<size_t>(p)];
    a.granted(static_cast<unsigned>(p));
    last = p;
  }
  for (int n : served) EXPECT_EQ(n, 10);
}

TEST(VoqArbiter, EqualsALinearScanOverManyWords) {
  // 255 ports x 15 VLs (60 words): random requests and pointers, compared with the obvious
  // O(pairs) scan.
  std::mt19937 rng(5);
  const unsigned n = 255 * 15;
  VoqArbiter a(n);
  std::vector<bool> req(n, false);
  for (int round = 0; round < 200; ++round) {
    for (int k = 0; k < 40; ++k) {
      const unsigned p = rng() % n;
      const bool on = rng() % 2;
      a.request(p, on);
      req[p] = on;
    }
    a.granted(rng() % n);
    std::vector<unsigned> expect;
    for (unsigned i = 0; i < n; ++i) {
      const unsigned p = (a.pointer() + i) % n;
      if (req[p]) expect.push_back(p);
    }
    ASSERT_EQ(visits(a), expect) << "round " << round;
  }
}

}  // namespace
}  // namespace ibcc::net
