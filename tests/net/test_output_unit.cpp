// OutputUnit alone: one switch output's VoQs and arbitration, with its link state (OutPort)
// and the crossbar passed in as the Switch passes them. Round robin between inputs, a head
// held back until it is eligible, credits a head lacks, the credits kept for a head a
// smaller one passed by (first_fit), the VL held by a head in order (in_order), oldest first.
#include <gtest/gtest.h>

#include <vector>

#include "net/fabric/output_unit.h"

namespace ibcc::net {
namespace {

constexpr unsigned kPorts = 3, kVls = 2, kOut = 3;

struct Bench {
  explicit Bench(SwitchConfig c = {}) : cfg(c), unit(kPorts, kVls, cfg), xbar(kPorts) {
    op.vls = VlArray<OutPort::Vl>(kVls, OutPort::Vl{});
    op.set_all_credits(100);
    op.rate_bytes_per_cycle = 1;
    for (unsigned p = 1; p <= kPorts; ++p) xbar.set_capacity(p, 1);
  }
  // A packet of `credits` from input `ip` on VL `vl`, eligible at `eligible`.
  void queue(unsigned ip, unsigned vl, uint32_t credits, uint64_t eligible = 0) {
    tlm::tlm_generic_payload* p = pool.alloc();
    ib(p).credits = credits;
    ib(p).eligible_cycle = eligible;
    unit.push(ip, vl, p);
  }
  // The (input, VL) the unit sends at `now`, taking its head; (0, 0) if none may go.
  std::pair<unsigned, unsigned> send(uint64_t now, uint64_t* next = nullptr) {
    uint64_t next_eligible = UINT64_MAX;
    const int go = unit.pick(kOut, now, op, xbar, scratch, &next_eligible);
    if (next) *next = next_eligible;
    if (go < 0) return {0, 0};
    unit.granted(static_cast<unsigned>(go), scratch);
    const unsigned ip = unit.input_of(go), vl = unit.vl_of(go);
    tlm::tlm_generic_payload* p = unit.pop(ip, vl);
    op.vls[vl].credits -= ib(p).credits;
    pool.free(p);
    return {ip, vl};
  }
  SwitchConfig cfg;
  PacketPool pool;
  OutputUnit unit;
  OutputUnit::Scratch scratch;
  OutPort op;
  Crossbar xbar;
};

using Sent = std::pair<unsigned, unsigned>;

TEST(OutputUnit, ServesInputsRoundRobin) {
  Bench b;
  for (unsigned ip = 1; ip <= kPorts; ++ip) {
    b.queue(ip, 0, 1);
    b.queue(ip, 0, 1);
  }
  EXPECT_EQ(b.unit.pending(), 3u);
  std::vector<unsigned> order;
  for (int i = 0; i < 6; ++i) order.push_back(b.send(0).first);
  EXPECT_EQ(order, (std::vector<unsigned>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(b.unit.pending(), 0u);
  EXPECT_EQ(b.send(0), Sent(0, 0));
}

TEST(OutputUnit, WaitsForAHeadToBeEligibleAndSaysWhen) {
  Bench b;
  b.queue(2, 1, 1, 50);
  uint64_t next = 0;
  EXPECT_EQ(b.send(10, &next), Sent(0, 0));
  EXPECT_EQ(next, 50u);
  EXPECT_EQ(b.send(50), Sent(2, 1));
}

TEST(OutputUnit, AHeadShortOfCreditsWaitsAndItsNeedIsNoted) {
  Bench b;
  b.op.vls[0].credits = 10;
  b.queue(1, 0, 33);
  EXPECT_EQ(b.send(0), Sent(0, 0));
  EXPECT_EQ(b.op.vls[0].need, 33u);
  b.op.vls[0].credits = 33;
  EXPECT_EQ(b.send(0), Sent(1, 0));
}

TEST(OutputUnit, KeepsTheCreditsOfAHeadASmallerOnePassedBy) {
  Bench b;  // first_fit (credit_order default)
  b.op.vls[0].credits = 20;
  b.queue(1, 0, 33);  // large head, short of credits
  b.queue(2, 0, 1);   // small packets behind it in the scan
  b.queue(2, 0, 1);
  EXPECT_EQ(b.send(0), Sent(2, 0));  // the small one passes the large one by ...
  EXPECT_EQ(b.unit.reserve(0).credits, 33u);  // ... which from now on has its credits kept
  EXPECT_EQ(b.send(0), Sent(0, 0));  // 19 credits: the small one may not take the large one's
  b.op.vls[0].credits = 33;
  EXPECT_EQ(b.send(0), Sent(1, 0));  // the large head goes first
  EXPECT_EQ(b.unit.reserve(0).pair, OutputUnit::CreditReserve::kNone);
}

TEST(OutputUnit, InOrderAHeadShortOfCreditsHoldsItsVl) {
  SwitchConfig cfg;
  cfg.credit_in_order = true;
  Bench b(cfg);
  b.op.vls[0].credits = 20;
  b.queue(1, 0, 33);
  b.queue(2, 0, 1);
  b.queue(3, 1, 1);
  EXPECT_EQ(b.send(0), Sent(3, 1));  // VL 1 goes; VL 0 is held by input 1's head
  EXPECT_EQ(b.send(0), Sent(0, 0));
}

TEST(OutputUnit, OldestFirstServesTheOldestEligibleHead) {
  SwitchConfig cfg;
  cfg.oldest_first = true;
  Bench b(cfg);
  b.queue(1, 0, 1, 30);
  b.queue(2, 0, 1, 10);
  b.queue(3, 0, 1, 20);
  std::vector<unsigned> order;
  for (int i = 0; i < 3; ++i) order.push_back(b.send(40).first);
  EXPECT_EQ(order, (std::vector<unsigned>{2, 3, 1}));
}

TEST(OutputUnit, AnInputWhoseCrossbarPortIsFullIsNotedAndPassed) {
  Bench b;
  b.xbar.connect(1, 1);  // input 1's read side is busy with another output
  b.queue(1, 0, 1);
  b.queue(2, 0, 1);
  EXPECT_EQ(b.send(0), Sent(2, 0));
  EXPECT_TRUE(b.xbar.waits_for(kOut, 1));
}

}  // namespace
}  // namespace ibcc::net
