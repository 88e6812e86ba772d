// InputUnit alone: one port's receive side as the link drives it. Fill accounting per VL
// (used, peak, the cycle it last moved, credits arrived and sent back), what a credited link
// returns (and the fault that loses it), a lossy link's drop, an overflow, and PFC's pause
// and resume with their hysteresis.
#include <gtest/gtest.h>

#include "net/fabric/input_unit.h"

namespace ibcc::net {
namespace {

InputUnit unit(unsigned vls, uint32_t capacity, InputUnit::FlowControl fc = InputUnit::FlowControl::kCredits,
               uint32_t xoff = 0, uint32_t xon = 0) {
  InputUnit u;
  InputUnit::Link l;
  l.capacity = capacity;
  l.vls = vls;
  l.upstream = 0;
  l.flow_control = fc;
  l.xoff = xoff;
  l.xon = xon;
  u.connect(l);
  return u;
}

using Arrival = InputUnit::Arrival;
using Return = InputUnit::Return;

TEST(InputUnit, AccountsFillPerVl) {
  InputUnit u = unit(2, 100);
  EXPECT_EQ(u.arrive(0, 30, 10), Arrival::kAccepted);
  EXPECT_EQ(u.arrive(1, 5, 11), Arrival::kAccepted);
  EXPECT_EQ(u.arrive(0, 20, 12), Arrival::kAccepted);
  EXPECT_EQ(u.vl[0].used, 50u);
  EXPECT_EQ(u.vl[1].used, 5u);
  EXPECT_EQ(u.vl[0].arrived, 50u);
  EXPECT_EQ(u.vl[0].moved, 10u) << "moved: when the empty buffer filled, not each arrival";
  EXPECT_EQ(u.vl[1].moved, 11u);
  const Return r = u.release(0, 30, 20, false);
  EXPECT_EQ(r.kind, Return::kCredits);
  EXPECT_EQ(r.credits, 30u);
  EXPECT_EQ(u.vl[0].used, 20u);
  EXPECT_EQ(u.vl[0].peak, 50u) << "the peak stays until the observer resets it";
  EXPECT_EQ(u.vl[0].moved, 20u);
  EXPECT_EQ(u.vl[0].released, 30u);
  EXPECT_EQ(u.vl[1].released, 0u);
}

TEST(InputUnit, LeakedCreditsAreNotSentBack) {
  InputUnit u = unit(1, 100);
  u.arrive(0, 8, 0);
  const Return r = u.release(0, 8, 5, true);
  EXPECT_EQ(r.kind, Return::kCredits);
  EXPECT_EQ(r.credits, 0u) << "the credit message goes, carrying none";
  EXPECT_EQ(u.vl[0].used, 0u) << "the buffer is freed all the same";
  EXPECT_EQ(u.vl[0].released, 0u);
}

TEST(InputUnit, OverflowOfALosslessBufferIsReported) {
  InputUnit u = unit(1, 10);
  EXPECT_EQ(u.arrive(0, 10, 0), Arrival::kAccepted) << "exactly full fits";
  EXPECT_EQ(u.arrive(0, 1, 1), Arrival::kOverflow);
}

TEST(InputUnit, LossyLinkDropsWhatDoesNotFitAndReturnsNothing) {
  InputUnit u = unit(1, 10, InputUnit::FlowControl::kLossy);
  EXPECT_EQ(u.arrive(0, 8, 0), Arrival::kAccepted);
  EXPECT_EQ(u.arrive(0, 3, 1), Arrival::kDrop);
  EXPECT_EQ(u.vl[0].used, 8u) << "a dropped packet takes no room";
  EXPECT_EQ(u.vl[0].arrived, 11u) << "but it came off the wire";
  EXPECT_EQ(u.arrive(0, 2, 2), Arrival::kAccepted);
  u.unaccount(0, 2);  // dropped further on
  EXPECT_EQ(u.vl[0].used, 8u);
  EXPECT_EQ(u.release(0, 8, 3, false).kind, Return::kNothing) << "no credits on a lossy link";
  EXPECT_EQ(u.vl[0].used, 0u);
}

TEST(InputUnit, PfcPausesAtXoffOnceAndResumesAtXon) {
  InputUnit u = unit(2, 100, InputUnit::FlowControl::kPfc, 60, 40);
  EXPECT_EQ(u.arrive(0, 59, 0), Arrival::kAccepted);
  EXPECT_EQ(u.arrive(0, 1, 1), Arrival::kPause) << "at XOFF";
  u.pause_sent(0, true);
  EXPECT_EQ(u.paused, 1u);
  EXPECT_EQ(u.pauses_sent, 1u);
  EXPECT_EQ(u.arrive(0, 10, 2), Arrival::kAccepted) << "already paused: no second XOFF";
  EXPECT_EQ(u.arrive(1, 60, 2), Arrival::kPause) << "each VL on its own";
  u.pause_sent(1, true);
  EXPECT_EQ(u.release(0, 20, 3, false).kind, Return::kNothing) << "50 > XON: still paused";
  const Return r = u.release(0, 10, 4, false);
  EXPECT_EQ(r.kind, Return::kResume) << "at XON";
  EXPECT_EQ(r.credits, 0u);
  u.pause_sent(0, false);
  EXPECT_EQ(u.paused, 2u) << "VL1 stays paused";
  EXPECT_EQ(u.pauses_sent, 2u) << "a resume is not counted as a pause";
  EXPECT_EQ(u.release(0, 10, 5, false).kind, Return::kNothing) << "resumed already";
  EXPECT_EQ(u.vl[0].released, 0u) << "no credits with PFC";
}

TEST(InputUnit, ConnectTakesTheLinkWholeAndRefusesOneItCannotServe) {
  InputUnit u = unit(3, 50, InputUnit::FlowControl::kPfc, 30, 20);
  EXPECT_TRUE(u.pfc);
  EXPECT_FALSE(u.lossy);
  EXPECT_EQ(u.vl.size(), 3u);
  EXPECT_EQ(u.xoff, 30u);
  u.arrive(0, 40, 0);
  u.pause_sent(0, true);
  u = unit(2, 50);  // connected again: empty, nothing paused, no PFC thresholds
  EXPECT_FALSE(u.pfc);
  EXPECT_EQ(u.paused, 0u);
  EXPECT_EQ(u.xoff, 0u);
  EXPECT_EQ(u.vl[0].used, 0u);
  EXPECT_THROW(unit(0, 50), std::invalid_argument);
  EXPECT_THROW(unit(kMaxVls + 1, 50), std::invalid_argument);
  EXPECT_THROW(unit(1, 50, InputUnit::FlowControl::kPfc, 60, 40), std::invalid_argument) << "XOFF above the buffer";
  EXPECT_THROW(unit(1, 50, InputUnit::FlowControl::kPfc, 30, 40), std::invalid_argument) << "XON above XOFF";
  EXPECT_NO_THROW(unit(1, 50, InputUnit::FlowControl::kCredits, 60, 40)) << "thresholds matter only with PFC";
}

}  // namespace
}  // namespace ibcc::net
