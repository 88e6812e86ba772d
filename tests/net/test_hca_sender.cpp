// The HCA's sender alone (HcaSender): a test node owns one, with a reaction point the test
// scripts, and a probe for its switch records what leaves. Control packets ahead of data,
// ping-pong answers ahead of data, the host interface's rate, the reaction point's pacing
// and the round robin between flows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "net/fabric/hca_sender.h"
#include "net/fabric/link.h"
#include "tests/net/base_scenario.h"
#include "tests/net/node_bench.h"

namespace ibcc::net {
namespace {

using testing::base_text;
using testing::bench;
using testing::probe;


// base.yaml: nodes S1, S2, H1, H2, H3; H1 hangs off S1 port 1.
constexpr unsigned kH1 = 2;

// A reaction point that holds every packet until `until` and counts what it is told.
class Scripted final : public ReactionPoint {
 public:
  uint64_t until = 0;
  unsigned gaps = 0, sent_packets = 0;
  uint64_t paced_until(uint32_t, uint32_t) const override { return until; }
  Gap gap(uint64_t, uint32_t, uint32_t) override {
    ++gaps;
    return {};
  }
  void sent(uint64_t, uint32_t, uint32_t, uint32_t, uint64_t, const Gap&, int, ::ibcc::net::Probe*) override { ++sent_packets; }
  void becn(uint64_t, const IbExtension&, uint64_t, ::ibcc::net::Probe*) override {}
  void fecn(uint64_t, const IbExtension&, NotificationOut&) override {}
};

// A node that is nothing but a sender, handling its events as the Hca does.
class SenderNode : public Node {
 public:
  SenderNode(NodeContext& ctx, unsigned index, const HcaConfig& cfg) : Node("H1", ctx, index), sender(ctx, *this, cfg, 1) {
    out.resize(2);
    in.resize(2);
    sender.set_reaction(&reaction);
  }
  void handle(const Event& e) override {
    switch (e.kind) {
      case EventKind::kTxDone: sender.try_send(); break;
      case EventKind::kCredit:
        out[1].vls[e.vl].returning -= e.value;
        out[1].vls[e.vl].credits += e.value;
        sender.try_send();
        break;
      case EventKind::kHcaWake: sender.woken(e.cycle); break;
      default: break;
    }
  }
  Scripted reaction;
  HcaSender sender;
};

struct Bench {
  std::unique_ptr<Scenario> scenario;  // the context reads it for its whole life
  std::unique_ptr<NodeContext> ctx;
  SenderNode* node = nullptr;
  testing::Probe* s1 = nullptr;
  uint32_t wire = 0;  // an MTU packet's
  uint64_t ser = 0;   // its cycles on the link
};

// The sender with `flows` flows from H1 to H3 (base.yaml's F1, QPs 1, 2, ...), its host
// interface at `host_share` of the link's rate.
Bench make_bench(unsigned flows = 1, double host_share = 1.0) {
  Bench b;
  b.scenario = std::make_unique<Scenario>(load_scenario_text(base_text(), "base.yaml", {{"cc.enabled", "false"}}));
  const Scenario& s = *b.scenario;
  b.ctx = bench(s, kH1, [&](NodeContext& c, unsigned n) {
    return std::make_unique<SenderNode>(c, n, HcaConfig::from(c));
  });
  b.node = static_cast<SenderNode*>(&b.ctx->node(kH1));
  b.s1 = &probe(*b.ctx, "S1");
  b.node->sender.set_host_cycles_per_byte(b.node->out[1].cycles_per_byte / host_share);
  b.wire = b.ctx->wire_bytes(s.fabric.mtu);
  b.ser = ser_cycles(b.node->out[1], b.wire);
  for (unsigned i = 0; i < flows; ++i) {
    FlowSpec spec = s.flows.front();
    spec.qp = i + 1;
    b.node->sender.flows.push_back(testing::add_flow(*b.ctx, spec, kH1, "H3"));
  }
  return b;
}

ibcc::net::Lid lid(const NodeContext& ctx, const char* name) { return ctx.topology().nodes[ctx.topology().find(name)].lid; }

TEST(HcaSender, SendsControlPacketsAheadOfData) {
  Bench b = make_bench();
  NotificationOut::Cnp c;
  c.dlid = lid(*b.ctx, "H2");
  c.qp = 9;
  b.node->sender.queue_cnp(c);
  b.node->sender.queue_cnp(c);
  EXPECT_EQ(b.node->sender.control_queue_packets(), 2u);
  b.node->sender.wake(0);
  b.ctx->run_until(b.ctx->cycles(100000000));
  ASSERT_GE(b.s1->got.size(), 4u);
  EXPECT_EQ(b.s1->got[0].hdr.opcode, Opcode::kCnp);
  EXPECT_EQ(b.s1->got[1].hdr.opcode, Opcode::kCnp);
  EXPECT_TRUE(b.s1->got[0].hdr.becn);
  EXPECT_EQ(b.s1->got[0].hdr.dlid, lid(*b.ctx, "H2"));
  EXPECT_EQ(b.s1->got[0].hdr.qp, 9u);
  EXPECT_EQ(b.s1->got[2].hdr.opcode, Opcode::kData);
  EXPECT_EQ(b.node->sender.control_queue_packets(), 0u);
}

TEST(HcaSender, AnswersAPingBeforeItsData) {
  Bench b = make_bench();
  const uint32_t mtu = b.scenario->fabric.mtu;
  HcaSink::PingIn ping;
  ping.flow = 0;
  ping.dlid = lid(*b.ctx, "H2");
  ping.bytes = 2 * mtu + 1;  // three packets, the last of one byte
  ping.ready = 1000;
  ping.ping_cycle = 7;
  b.node->sender.queue_reply(ping);  // wakes the sender when it is ready
  b.ctx->run_until(999);
  EXPECT_TRUE(b.s1->got.empty()) << "the flow itself was not woken; the answer is not ready";
  b.ctx->run_until(b.ctx->cycles(100000000));
  ASSERT_GE(b.s1->got.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    const IbExtension& e = b.s1->got[i].hdr;
    EXPECT_TRUE(e.reply) << i;
    EXPECT_EQ(e.dlid, ping.dlid) << i;
    EXPECT_EQ(e.ping_cycle, 7u) << i;
    EXPECT_EQ(e.payload_bytes, i < 2 ? mtu : 1u) << i;
    EXPECT_EQ(e.last, i == 2) << i;
  }
  EXPECT_EQ(b.s1->got[0].head, 1000u + b.node->out[1].prop_cycles) << "it left when ready";
  EXPECT_FALSE(b.s1->got[3].hdr.reply);
  EXPECT_EQ(b.s1->got[3].hdr.dlid, lid(*b.ctx, "H3")) << "then the flow's data";
}

TEST(HcaSender, TheHostInterfaceSpacesPacketsAtItsRate) {
  for (double share : {1.0, 0.5}) {
    Bench b = make_bench(1, share);
    b.node->sender.wake(0);
    b.ctx->run_until(b.ctx->cycles(100000000));
    ASSERT_GE(b.s1->got.size(), 3u);
    const auto host = static_cast<uint64_t>(std::ceil(b.wire * b.node->out[1].cycles_per_byte / share));
    EXPECT_EQ(b.s1->got[2].head - b.s1->got[1].head, std::max(host, b.ser)) << "host at " << share << " of the link";
  }
}

TEST(HcaSender, TheReactionPointPacesData) {
  Bench b = make_bench();
  b.node->reaction.until = 5000;
  b.node->sender.wake(0);
  b.ctx->run_until(4000);
  EXPECT_TRUE(b.s1->got.empty());
  b.ctx->run_until(b.ctx->cycles(100000000));
  ASSERT_FALSE(b.s1->got.empty());
  EXPECT_EQ(b.s1->got[0].head, 5000u + b.node->out[1].prop_cycles) << "woken when the pacing allowed it";
  EXPECT_EQ(b.node->reaction.sent_packets, b.s1->got.size()) << "each data packet told to the reaction point";
  EXPECT_EQ(b.node->reaction.gaps, b.s1->got.size());
}

TEST(HcaSender, ServesFlowsRoundRobin) {
  Bench b = make_bench(3);
  b.node->sender.wake(0);
  b.ctx->run_until(b.ctx->cycles(100000000));
  ASSERT_GE(b.s1->got.size(), 9u);
  for (size_t i = 0; i < 9; ++i) EXPECT_EQ(b.s1->got[i].hdr.qp, i % 3 + 1) << "packet " << i;
  uint64_t least = UINT64_MAX, most = 0;
  for (const Flow& f : b.ctx->flows()) {
    least = std::min(least, f.stats.injected_packets);
    most = std::max(most, f.stats.injected_packets);
  }
  EXPECT_LE(most - least, 1u) << "each flow had its turn";
}

}  // namespace
}  // namespace ibcc::net
