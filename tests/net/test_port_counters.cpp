// PortCounters: a port's PortXmitData/PortRcvData/packets per VL and its PortXmitWait.
#include <gtest/gtest.h>

#include "net/fabric/port_counters.h"

namespace ibcc::net {
namespace {

TEST(PortCounters, DataIsCountedInFourOctetWordsThatAddUpToTheTotal) {
  PortCounters c(2);
  c.sent(0, 2074, 10);
  c.received(1, 30);
  PortCounters::Interval a = c.take_interval(0);
  EXPECT_EQ(a.xmit_data, 518u);  // 2074 / 4, the 2 octets left over carried to the next
  EXPECT_EQ(a.xmit_pkts, 1u);
  c.sent(0, 2074, 300);
  a = c.take_interval(0);
  EXPECT_EQ(a.xmit_data, 519u);  // 4148 / 4 = 1037 words in all
  const PortCounters::Interval b = c.take_interval(1);
  EXPECT_EQ(b.rcv_data, 7u);
  EXPECT_EQ(b.rcv_pkts, 1u);
  EXPECT_EQ(c.take_interval(1).rcv_pkts, 0u);  // increments, not totals
}

TEST(PortCounters, WaitRunsFromAFailedArbitrationWithAReadyHeadToTheNextStart) {
  PortCounters c(1);
  c.arbitration_failed(false, 5);  // nothing ready: no wait
  EXPECT_EQ(c.xmit_wait(50), 0u);
  c.arbitration_failed(true, 100);  // ready, no credits
  c.arbitration_failed(true, 130);  // still: the wait goes on from 100
  EXPECT_EQ(c.xmit_wait(150), 50u);
  EXPECT_EQ(c.take_wait_interval(150), 50u);  // the wait in progress counts up to the sample
  c.sent(0, 64, 180);
  EXPECT_EQ(c.xmit_wait(1000), 80u);
  EXPECT_EQ(c.take_wait_interval(1000), 30u);
  c.arbitration_failed(true, 2000);
  c.arbitration_failed(false, 2010);  // what was ready is gone (never in a lossless fabric): the wait ends
  EXPECT_EQ(c.xmit_wait(5000), 90u);
}

}  // namespace
}  // namespace ibcc::net
