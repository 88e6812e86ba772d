// The calendar hands out events in (cycle, order of scheduling) order, including events
// scheduled for the cycle being handed out, events beyond the wheel and events filled in
// place (emplace), as a plain sorted reference does; a cancelled event comes out marked, in
// its place, and the others keep their order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <unordered_map>
#include <vector>

#include "net/fabric/event_calendar.h"

namespace {

struct Ev {
  uint64_t cycle = 0;
  uint64_t seq = 0;
  uint32_t tag = 0;
  bool cancelled = false;
  uint32_t link = 0;  // the calendar's
  void cancel() { cancelled = true; }
};

using Calendar = ibcc::net::EventCalendar<Ev>;

// Hands the open cycle's events to `handle` as the fabric does (take, then the list walked
// with next_of before any is handled, each copied out and given back with free_node),
// including those `handle` pushes for that cycle.
template <typename Handle>
void each_event_now(Calendar& cal, Handle&& handle) {
  std::vector<uint32_t> list;
  for (uint32_t n = cal.take(); n != Calendar::kEnd; n = cal.take()) {
    list.clear();
    for (uint32_t k = n; k != Calendar::kEnd; k = cal.next_of(k)) list.push_back(k);
    for (uint32_t k : list) {
      const Ev e = cal.at(k);
      cal.free_node(k);
      handle(e);
    }
  }
}

TEST(EventCalendar, OrderMatchesASortedReferenceUnderRandomTraffic) {
  std::mt19937_64 rng(7);
  Calendar cal;
  std::vector<Ev> expected_all, got;
  uint64_t seq = 0;
  auto schedule = [&](uint64_t cycle) {
    Ev e{cycle, seq, static_cast<uint32_t>(seq)};
    ++seq;
    // Within the wheel, half of them filled in place (emplace), as the fabric does.
    if (cycle < cal.wheel_end() && rng() % 2) {
      uint32_t handle;
      Ev& slot = cal.emplace(cycle, &handle);
      slot.cycle = e.cycle;
      slot.seq = e.seq;
      slot.tag = e.tag;
      slot.cancelled = false;
    } else {
      cal.push(e);
    }
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
    each_event_now(cal, [&](const Ev& e) {
      ASSERT_EQ(e.cycle, now);
      got.push_back(e);
      // Handling schedules more, until enough have run; bursts make some buckets large.
      if (++handled < 60000) {
        const unsigned n = rng() % 7 == 0 ? 1 + rng() % 40 : rng() % 2 + (rng() % 3 == 0);
        for (unsigned k = 0; k < n; ++k) schedule(now + delay());
      }
    });
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

TEST(EventCalendar, CancelledEventsComeOutMarkedAndTheRestInOrder) {
  std::mt19937_64 rng(11);
  Calendar cal;
  std::vector<Ev> expected_all, got;
  std::unordered_map<uint32_t, uint32_t> handle_of;  // pending events that have a handle
  std::set<uint32_t> cancelled;
  uint64_t seq = 0, now = 0;
  size_t far = 0;
  auto schedule = [&](uint64_t cycle) {
    Ev e{cycle, seq, static_cast<uint32_t>(seq)};
    ++seq;
    const uint32_t h = cal.push(e);
    if (cycle >= now + Calendar::kWheel) {
      EXPECT_EQ(h, Calendar::kNoHandle) << "an event beyond the wheel cannot be cancelled";
      ++far;
    } else {
      ASSERT_NE(h, Calendar::kNoHandle);
      handle_of[e.tag] = h;
    }
    expected_all.push_back(e);
  };
  for (int i = 0; i < 500; ++i) schedule(rng() % 50);
  size_t handled = 0, seen_cancelled = 0;
  while (!cal.empty()) {
    now = cal.next_cycle();
    cal.open(now);
    each_event_now(cal, [&](const Ev& e) {
      handle_of.erase(e.tag);
      if (e.cancelled) {
        EXPECT_TRUE(cancelled.count(e.tag)) << "event " << e.tag << " came out cancelled but was not";
        ++seen_cancelled;
        return;
      }
      EXPECT_FALSE(cancelled.count(e.tag)) << "event " << e.tag << " was cancelled but came out live";
      got.push_back(e);
      if (++handled < 20000) {
        for (unsigned k = rng() % 3; k > 0; --k) {
          schedule(now + (rng() % 10 == 0 ? Calendar::kWheel + rng() % 500 : rng() % 200));
        }
        // Cancel a pending event now and then, also one of this very cycle.
        if (!handle_of.empty() && rng() % 3 == 0) {
          auto it = handle_of.begin();
          std::advance(it, static_cast<long>(rng() % std::min<size_t>(handle_of.size(), 8)));
          cal.cancel(it->second);
          cancelled.insert(it->first);
          handle_of.erase(it);
        }
      }
    });
  }
  EXPECT_EQ(seen_cancelled, cancelled.size());
  EXPECT_GT(cancelled.size(), 300u);
  EXPECT_GT(far, 100u);
  std::vector<Ev> expected;
  for (const Ev& e : expected_all) {
    if (!cancelled.count(e.tag)) expected.push_back(e);
  }
  std::stable_sort(expected.begin(), expected.end(),
                   [](const Ev& a, const Ev& b) { return a.cycle != b.cycle ? a.cycle < b.cycle : a.seq < b.seq; });
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i].tag, expected[i].tag) << "event " << i;
}

}  // namespace
