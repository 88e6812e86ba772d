// The AQS marker (NVIDIA-style switch marking: an averaged queue and a per-VL profile).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "cc/aqs_marker.h"

using ibcc::cc::AqsMarker;
using ibcc::cc::AqsMarkerParams;
using ibcc::cc::AqsProfile;

namespace {

AqsMarkerParams params(unsigned vls = 1, uint64_t period = 10, unsigned weight = 2) {
  AqsMarkerParams p;
  p.num_vls = vls;
  p.period_cycles = period;
  p.weight_shift = weight;
  p.profiles.assign(vls, AqsProfile{50, 10000, 30000});
  return p;
}

}  // namespace

TEST(AqsMarker, TheAverageIsAnEwmaSampledOncePerPeriod) {
  AqsMarker m(params());
  m.set_queue(0, 0, 40000);
  // Nothing before the first sample, at cycle 10.
  m.advance(9);
  EXPECT_EQ(m.average_bytes(0), 0u);
  // Each sample moves the AQS a quarter of the way: 10000, 17500, 23125 after 1, 2, 3.
  m.advance(10);
  EXPECT_EQ(m.average_bytes(0), 10000u);
  m.advance(29);
  EXPECT_EQ(m.average_bytes(0), 17500u);
  m.advance(30);
  EXPECT_EQ(m.average_bytes(0), 23125u);
  // After n samples: 40000 (1 - (3/4)^n), within the fraction bits' rounding.
  m.advance(200);
  EXPECT_NEAR(static_cast<double>(m.average_bytes(0)), 40000 * (1 - std::pow(0.75, 20)), 1.0);
}

TEST(AqsMarker, AChangeIsSeenBySamplesAfterItsCycle) {
  AqsMarker m(params());
  m.set_queue(10, 0, 40000);  // at the cycle of the first sample: that sample still sees 0
  m.advance(10);
  EXPECT_EQ(m.average_bytes(0), 0u);
  m.advance(20);
  EXPECT_EQ(m.average_bytes(0), 10000u);
}

TEST(AqsMarker, WeightZeroFollowsTheQueueAtEachSample) {
  AqsMarker m(params(1, 10, 0));
  m.set_queue(3, 0, 25000);
  m.advance(10);
  EXPECT_EQ(m.average_bytes(0), 25000u);
  m.set_queue(15, 0, 0);
  m.advance(19);
  EXPECT_EQ(m.average_bytes(0), 25000u);
  m.advance(20);
  EXPECT_EQ(m.average_bytes(0), 0u);
}

TEST(AqsMarker, AnIdleQueueDecaysToZero) {
  AqsMarker m(params(1, 10, 4));
  m.set_queue(0, 0, 100000);
  m.advance(100000);
  EXPECT_EQ(m.average_bytes(0), 99999u);  // (from below, the EWMA stops within a fraction of a byte)
  m.set_queue(100000, 0, 0);
  m.advance(10000000);
  EXPECT_EQ(m.average_bytes(0), 0u);
}

TEST(AqsMarker, LazyAdvanceEqualsStepping) {
  // The same queue changes, once advanced cycle by cycle and once only where something
  // happens: the same averages and the same decisions.
  AqsMarkerParams p = params(2, 7, 3);
  p.profiles[1] = AqsProfile{100, 0, 5000};
  AqsMarker step(p), lazy(p);
  uint32_t x = 12345;
  auto next = [&x]() {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
  };
  uint64_t cycle = 0;
  for (int e = 0; e < 2000; ++e) {
    const uint64_t gap = next() % 50;
    for (uint64_t c = cycle + 1; c <= cycle + gap; ++c) step.advance(c);
    cycle += gap;
    const unsigned vl = next() % 2;
    if (next() % 3) {
      const uint64_t q = next() % 40000;
      step.set_queue(cycle, vl, q);
      lazy.set_queue(cycle, vl, q);
    } else {
      const bool markable = next() % 4 != 0;
      EXPECT_EQ(step.depart(cycle, vl, markable), lazy.depart(cycle, vl, markable)) << "cycle " << cycle;
    }
    ASSERT_EQ(step.average_bytes(0), lazy.average_bytes(0)) << "cycle " << cycle;
    ASSERT_EQ(step.average_bytes(1), lazy.average_bytes(1)) << "cycle " << cycle;
  }
  EXPECT_GT(lazy.counters(0).marked + lazy.counters(1).marked, 0u);
}

TEST(AqsMarker, TheProfileIsWredsOnTheAverage) {
  AqsMarker m(params(1, 1, 0));  // weight 0: the AQS is the queue one cycle later
  auto at = [&m](uint64_t bytes, uint64_t cycle) {
    m.set_queue(cycle, 0, bytes);
    m.advance(cycle + 1);
    return m.probability_q16(0);
  };
  EXPECT_EQ(at(10000, 10), 0u);                 // at min: never
  EXPECT_EQ(at(20000, 20), 65536u * 50 / 200);  // halfway: half of 50 %
  EXPECT_EQ(at(30000, 30), 65536u * 50 / 100);  // at max: percent
  EXPECT_EQ(at(30001, 40), 65536u);             // above max: every packet
}

TEST(AqsMarker, OnlyMarkablePacketsDecideAndDraw) {
  AqsMarkerParams p = params(1, 1, 0);
  p.profiles[0] = AqsProfile{100, 0, 1000};
  AqsMarker m(p);
  m.set_queue(0, 0, 500000);
  EXPECT_FALSE(m.depart(5, 0, false));
  EXPECT_EQ(m.counters(0).decisions, 0u);
  EXPECT_TRUE(m.depart(6, 0, true));
  EXPECT_EQ(m.counters(0).decisions, 1u);
  EXPECT_EQ(m.counters(0).marked, 1u);
}

TEST(AqsMarker, EachVlHasItsOwnQueueAndProfile) {
  AqsMarkerParams p = params(2, 1, 0);
  p.profiles[1] = AqsProfile{100, 100, 200};
  AqsMarker m(p);
  m.set_queue(0, 0, 150);
  m.set_queue(0, 1, 150);
  m.advance(1);
  EXPECT_EQ(m.probability_q16(0), 0u);  // VL 0: below its min of 10000
  EXPECT_EQ(m.probability_q16(1), 65536u / 2);
}

TEST(AqsMarker, TheSeedDrawsTheMarks) {
  auto marks = [](uint32_t seed) {
    AqsMarkerParams p = params(1, 1, 0);
    p.seed = seed;
    AqsMarker m(p);
    m.set_queue(0, 0, 20000);  // 25 %
    uint64_t bits = 0;
    for (unsigned i = 0; i < 64; ++i) bits |= uint64_t{m.depart(10 + i, 0, true)} << i;
    return bits;
  };
  EXPECT_EQ(marks(7), marks(7));
  EXPECT_NE(marks(7), marks(8));
}

TEST(AqsMarker, BadParametersAreNamed) {
  auto bad = [](AqsMarkerParams p, const char* what) {
    try {
      AqsMarker m(p);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  AqsMarkerParams p = params();
  p.period_cycles = 0;
  bad(p, "aqs_time");
  p = params();
  p.weight_shift = 16;
  bad(p, "aqs_weight");
  p = params();
  p.profiles[0].percent = 0;
  bad(p, "percent");
  p = params();
  p.profiles[0].max_bytes = p.profiles[0].min_bytes;
  bad(p, "must exceed min");
  p = params();
  p.seed = 0;
  bad(p, "seed");
}
