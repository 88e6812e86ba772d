// The Hca alone: a probe stands for its switch (tests/net/node_bench.h). Injection at line
// rate within the credits it has, CNPs ahead of data in answer to FECN, and a BECN raising
// the flow's CCTI, which spaces its packets.
#include <gtest/gtest.h>

#include <memory>

#include "net/fabric/ccti_reaction.h"
#include "net/fabric/hca.h"
#include "tests/net/base_scenario.h"
#include "tests/net/node_bench.h"

namespace ibcc::net {
namespace {

using testing::base_text;
using testing::bench;
using testing::data_header;
using testing::probe;
using testing::Probe;

// base.yaml: nodes S1, S2, H1, H2, H3; H1 hangs off S1 port 1; flow F1 goes H1 -> H3.
constexpr unsigned kH1 = 2;

std::unique_ptr<NodeContext> hca_bench(const Scenario& s) {
  auto ctx = bench(s, kH1, [&](NodeContext& c, unsigned n) { return std::make_unique<Hca>("H1", c, n, s.sim.seed); });
  Hca& h = static_cast<Hca&>(ctx->node(kH1));
  h.flows().push_back(testing::add_flow(*ctx, s.flows.front(), kH1, "H3"));
  if (s.cc.enabled) {
    cc::CctiBlockParams cp;
    cp.num_qps = s.cc.ca.num_qps;
    cp.cct_entries = 128;
    cp.tick_cycles = static_cast<uint32_t>(ctx->cycles(1024000));
    const auto mtu_tx = static_cast<uint32_t>(ser_cycles(h.out[1], ctx->wire_bytes(s.fabric.mtu)));
    h.set_reaction(std::make_unique<CctiReaction>(std::make_unique<CctiPort>(cp, s.cc.ca, mtu_tx)));
  }
  h.wake(0);
  return ctx;
}

ibcc::net::Lid lid(const NodeContext& ctx, const char* name) { return ctx.topology().nodes[ctx.topology().find(name)].lid; }

TEST(Hca, InjectsAtLineRateWithinItsCredits) {
  const Scenario s = load_scenario_text(base_text(), "base.yaml", {{"cc.enabled", "false"}});
  auto ctx = hca_bench(s);
  Hca& h = static_cast<Hca&>(ctx->node(kH1));
  Probe& s1 = probe(*ctx, "S1");
  s1.drain = false;
  ctx->run_until(ctx->cycles(100000000));
  const uint32_t wire = ctx->wire_bytes(s.fabric.mtu);
  const uint64_t ser = ser_cycles(h.out[1], wire);
  const size_t fit = h.out[1].capacity / NodeContext::credits_of(wire);
  ASSERT_EQ(s1.got.size(), fit) << "sent beyond the switch's buffer";
  for (size_t i = 0; i < s1.got.size(); ++i) {
    const IbExtension& e = s1.got[i].hdr;
    EXPECT_EQ(e.slid, lid(*ctx, "H1"));
    EXPECT_EQ(e.dlid, lid(*ctx, "H3"));
    EXPECT_EQ(e.opcode, Opcode::kData);
    EXPECT_EQ(e.payload_bytes, s.fabric.mtu);
    EXPECT_EQ(e.wire_bytes, wire);
    EXPECT_EQ(e.last, (i + 1) % (s.flows.front().message_bytes / s.fabric.mtu) == 0) << i;
    if (i) {
      EXPECT_EQ(s1.got[i].head - s1.got[i - 1].head, ser) << "not back to back at " << i;
    }
  }
  s1.drain = true;
  s1.release_held();
  ctx->run_until(ctx->cycles(200000000));
  EXPECT_GT(s1.got.size(), 3 * fit) << "credits returned, sending resumed";
}

// Credits that come back while the HCA sends wait for it to be done (OutPort::defer_credits):
// the same packets leave at the same cycles, with the CCTI block on, in fewer events.
TEST(Hca, CreditsReturnedWhileSendingWaitWithoutChangingTheTiming) {
  const Scenario s = load_scenario_text(base_text(), "base.yaml", {});
  std::vector<Probe::Got> got[2];
  uint64_t events[2] = {0, 0};
  for (int defer = 0; defer < 2; ++defer) {
    auto ctx = hca_bench(s);
    Hca& h = static_cast<Hca&>(ctx->node(kH1));
    h.out[1].defer_credits = defer == 1;
    Probe& s1 = probe(*ctx, "S1");
    ctx->run_until(ctx->cycles(50000000));
    ASSERT_GT(s1.got.size(), 20u);
    got[defer] = s1.got;
    events[defer] = ctx->events;
  }
  ASSERT_EQ(got[1].size(), got[0].size());
  for (size_t i = 0; i < got[0].size(); ++i) {
    EXPECT_EQ(got[1][i].head, got[0][i].head) << "packet " << i;
    EXPECT_EQ(got[1][i].hdr.psn, got[0][i].hdr.psn) << "packet " << i;
  }
  EXPECT_LT(events[1], events[0]) << "no credit return waited";
}

TEST(Hca, AnswersFecnWithACnpAheadOfItsData) {
  const Scenario s = load_scenario_text(base_text(), "base.yaml", {});
  auto ctx = hca_bench(s);
  Hca& h = static_cast<Hca&>(ctx->node(kH1));
  Probe& s1 = probe(*ctx, "S1");
  const uint64_t t = ctx->cycles(10000000);
  ctx->run_until(t);
  IbExtension marked = data_header(*ctx, "H3", "H1", 1024);
  marked.fecn = true;
  marked.qp = 7;
  s1.send(1, marked);
  const size_t before = s1.got.size();
  ctx->run_until(ctx->cycles(30000000));
  const uint64_t arrived = t + s1.out[1].prop_cycles;
  size_t first_after = before;
  while (first_after < s1.got.size() && s1.got[first_after].head < arrived + h.out[1].prop_cycles) ++first_after;
  ASSERT_LT(first_after, s1.got.size());
  const IbExtension& cnp = s1.got[first_after].hdr;
  EXPECT_EQ(cnp.opcode, Opcode::kCnp);
  EXPECT_TRUE(cnp.becn);
  EXPECT_EQ(cnp.dlid, lid(*ctx, "H3"));
  EXPECT_EQ(cnp.slid, lid(*ctx, "H1"));
  EXPECT_EQ(cnp.qp, 7u);
  EXPECT_EQ(cnp.wire_bytes, s.fabric.cnp_bytes);
  size_t cnps = 0;
  for (const auto& g : s1.got) cnps += g.hdr.opcode == Opcode::kCnp;
  EXPECT_EQ(cnps, 1u);
  EXPECT_EQ(ctx->flows()[0].stats.fecn_marked, 1u);
  EXPECT_EQ(h.sink_queue_packets(), 0u);
  EXPECT_EQ(s1.out[1].vls[0].credits, s1.out[1].capacity) << "the drained packet's credits came back";
}

TEST(Hca, BecnRaisesTheCctiAndSpacesItsPackets) {
  const Scenario s = load_scenario_text(base_text(), "base.yaml", {});
  auto ctx = hca_bench(s);
  Hca& h = static_cast<Hca&>(ctx->node(kH1));
  Probe& s1 = probe(*ctx, "S1");
  const uint64_t t = ctx->cycles(10000000);
  ctx->run_until(t);
  const uint32_t qp = ctx->flows()[0].lanes[0].qp;
  EXPECT_EQ(h.reaction().ccti(t, qp, 0), 0u);
  const uint64_t ser = ser_cycles(h.out[1], ctx->wire_bytes(s.fabric.mtu));
  for (size_t i = 1; i < s1.got.size(); ++i) ASSERT_EQ(s1.got[i].head - s1.got[i - 1].head, ser);

  IbExtension becn = data_header(*ctx, "H3", "H1", 0);
  becn.opcode = Opcode::kCnp;
  becn.becn = true;
  becn.qp = qp;
  becn.wire_bytes = s.fabric.cnp_bytes;
  becn.credits = NodeContext::credits_of(becn.wire_bytes);
  s1.send(1, becn);
  const size_t before = s1.got.size();
  const uint64_t t2 = ctx->cycles(40000000);
  ctx->run_until(t2);
  EXPECT_EQ(h.reaction().ccti(t2, qp, 0), s.cc.ca.sl_default.ccti_increase);
  EXPECT_EQ(ctx->flows()[0].stats.becn_received, 1u);
  // Well after the BECN every gap is the same, and longer than a packet's time on the wire.
  ASSERT_GT(s1.got.size(), before + 4);
  const size_t n = s1.got.size();
  const uint64_t gap = s1.got[n - 1].head - s1.got[n - 2].head;
  EXPECT_GT(gap, ser);
  EXPECT_EQ(s1.got[n - 2].head - s1.got[n - 3].head, gap);
}

}  // namespace
}  // namespace ibcc::net
