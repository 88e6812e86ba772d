// The switch's crossbar alone: an input's read side shared up to its capacity, and the
// outputs that wait for an input, remembered until they arbitrate again.
#include <gtest/gtest.h>

#include <vector>

#include "net/fabric/crossbar.h"

namespace ibcc::net {
namespace {

TEST(Crossbar, AnInputServesOutputsUpToItsCapacity) {
  Crossbar x(4);
  x.set_capacity(1, 2.0);  // speedup 2 over a 1 byte/cycle link
  EXPECT_TRUE(x.fits(1, 1.0));
  x.connect(1, 1.0);
  EXPECT_TRUE(x.fits(1, 1.0)) << "a second output at the same rate fits a speedup of 2";
  x.connect(1, 1.0);
  EXPECT_FALSE(x.fits(1, 1.0)) << "a third does not";
  x.disconnect(1, 1.0);
  EXPECT_TRUE(x.fits(1, 1.0));
  x.disconnect(1, 1.0);
  EXPECT_EQ(x.active(1), 0.0);
  x.set_capacity(2, 1.0);
  EXPECT_TRUE(x.fits(2, 4.0)) << "an idle input serves one output, however fast";
  x.connect(2, 4.0);
  EXPECT_FALSE(x.fits(2, 0.5));
}

TEST(Crossbar, RoundingLeavesNoResidue) {
  Crossbar x(2);
  x.set_capacity(1, 1.0);
  for (int i = 0; i < 1000; ++i) {
    x.connect(1, 0.1);
    x.connect(1, 0.7);
    x.disconnect(1, 0.1);
    x.disconnect(1, 0.7);
  }
  EXPECT_EQ(x.active(1), 0.0) << "a sum that should be zero is zero";
}

TEST(Crossbar, WaitsAreKeptPerOutputUntilItArbitratesAgain) {
  Crossbar x(130);  // three words of outputs and inputs
  x.note_wait(3, 1);
  x.note_wait(3, 129);
  x.note_wait(70, 2);
  EXPECT_TRUE(x.waits_for(3, 1));
  EXPECT_TRUE(x.waits_for(3, 129));
  EXPECT_FALSE(x.waits_for(3, 2));
  EXPECT_TRUE(x.waits_for(70, 2));
  std::vector<unsigned> seen;
  x.for_each_waiting([&](unsigned o) { seen.push_back(o); });
  EXPECT_EQ(seen, (std::vector<unsigned>{3, 70}));
  x.clear_waits(3);
  EXPECT_FALSE(x.waits_for(3, 1));
  EXPECT_FALSE(x.waits_for(3, 129));
  EXPECT_TRUE(x.waits_for(70, 2)) << "another output's waits stay";
  seen.clear();
  x.for_each_waiting([&](unsigned o) { seen.push_back(o); });
  EXPECT_EQ(seen, (std::vector<unsigned>{70}));
}

}  // namespace
}  // namespace ibcc::net
