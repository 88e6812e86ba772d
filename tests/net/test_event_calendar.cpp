// The calendar hands out events in (cycle, order of scheduling) order, including events
// scheduled for the cycle being handed out and events beyond the wheel, as a plain sorted
// reference does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "net/event_calendar.h"

namespace {

struct Ev {
  uint64_t cycle = 0;
  uint64_t seq = 0;
  uint32_t tag = 0;
};

using Calendar = ibcc::net::EventCalendar<Ev>;

TEST(EventCalendar, OrderMatchesASortedReferenceUnderRandomTraffic) {
  std::mt19937_64 rng(7);
  Calendar cal;
  std::vector<Ev> expected_all, got;
  uint64_t seq = 0;
  auto schedule = [&](uint64_t cycle) {
    Ev e{cycle, seq, static_cast<uint32_t>(seq)};
    ++seq;
    cal.push(e);
    expected_all.push_back(e);
  };
  // Delays near (most), at the current cycle, at the wheel's edge and far beyond it.
  auto delay = [&]() -> uint64_t {
    switch (rng() % 8) {
      case 0: return 0;
      case 1: return Calendar::kWheel - 1 + rng() % 3;
      case 2: return Calendar::kWheel * (1 + rng() % 5) + rng() % 100;
      default: return 1 + rng() % 300;
    }
  };
  for (int i = 0; i < 2000; ++i) schedule(rng() % 50);
  uint64_t now = 0;
  size_t handled = 0;
  while (!cal.empty()) {
    const uint64_t next = cal.next_cycle();
    ASSERT_GE(next, now);
    now = next;
    cal.open(now);
    Ev e;
    while (cal.pop(&e)) {
      ASSERT_EQ(e.cycle, now);
      got.push_back(e);
      // Handling schedules more, until enough have run; bursts make some buckets large.
      if (++handled < 60000) {
        const unsigned n = rng() % 7 == 0 ? 1 + rng() % 40 : rng() % 2 + (rng() % 3 == 0);
        for (unsigned k = 0; k < n; ++k) schedule(now + delay());
      }
    }
    ASSERT_EQ(cal.size(), seq - got.size());
  }
  std::vector<Ev> expected = expected_all;
  std::stable_sort(expected.begin(), expected.end(),
                   [](const Ev& a, const Ev& b) { return a.cycle != b.cycle ? a.cycle < b.cycle : a.seq < b.seq; });
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].tag, expected[i].tag) << "event " << i;
  }
  EXPECT_GT(got.size(), 60000u);
}

}  // namespace
