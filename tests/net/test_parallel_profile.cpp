// The parallel profile's arithmetic: events per group and window, the busiest group's summed
// into the critical path, serial events on it too.
#include <gtest/gtest.h>

#include "net/parallel/parallel_profile.h"

namespace ibcc::net {
namespace {

TEST(ParallelProfile, TheCriticalPathIsTheBusiestGroupPerWindow) {
  // Nodes 0, 1 in group 0; node 2 in group 1; windows of 4 cycles.
  ParallelProfile p({0, 0, 1}, 2, 4);
  // Window 0 (cycles 0..3): group 0 three events, group 1 one.
  p.count(0, 0);
  p.count(1, 1);
  p.count(3, 0);
  p.count(3, 2);
  // Window 1: group 1 two events; a serial event.
  p.count(4, 2);
  p.count(7, 2);
  p.count_serial(7);
  // Window 5 (nothing between): one event each.
  p.count(20, 1);
  p.count(23, 2);
  const ParallelProfile::Result r = p.result();
  EXPECT_EQ(r.events, 9u);
  EXPECT_EQ(r.serial, 1u);
  EXPECT_EQ(r.critical, 3u + 2u + 1u + 1u);  // the busiest per window, plus the serial one
  EXPECT_EQ(r.busy_windows, 3u);
  EXPECT_EQ(r.per_group, (std::vector<uint64_t>{4, 4}));
  EXPECT_DOUBLE_EQ(r.bound(), 9.0 / 7.0);
}

TEST(ParallelProfile, OneGroupGainsNothing) {
  ParallelProfile p({0, 0}, 1, 0);
  for (uint64_t c = 0; c < 10; ++c) p.count(c, c % 2);
  const ParallelProfile::Result r = p.result();
  EXPECT_EQ(r.critical, r.events);
  EXPECT_DOUBLE_EQ(r.bound(), 1.0);
  EXPECT_EQ(r.window_cycles, 1u);  // (no window: counted per cycle)
}

}  // namespace
}  // namespace ibcc::net
