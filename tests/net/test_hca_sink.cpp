// The HCA's sink alone (HcaSink): a test node owns one, and a probe for its switch sends it
// packets. It drains one packet at a time at its rate, paused by its hiccups, returns each
// packet's credits when drained, counts the packet to its flow, hands a ping drained whole
// back to its HCA, and the two faults it can be armed with do what they say.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "net/fabric/hca_sink.h"
#include "net/fabric/link.h"
#include "tests/net/base_scenario.h"
#include "tests/net/node_bench.h"

namespace ibcc::net {
namespace {

using testing::base_text;
using testing::bench;
using testing::data_header;
using testing::probe;
using testing::Probe;

// base.yaml: nodes S1, S2, H1, H2, H3; H1 hangs off S1 port 1.
constexpr unsigned kH1 = 2;

// A node that is nothing but a sink: what arrives on its port goes to the sink, and the
// sink's drains end in its kSinkDone events, each recorded.
class SinkNode : public Node {
 public:
  SinkNode(NodeContext& ctx, unsigned index, const HcaSink::Config& cfg) : Node("H1", ctx, index), sink(ctx, *this, cfg) {
    out.resize(2);
    in.resize(2);
  }
  void handle(const Event& e) override {
    if (e.kind == EventKind::kArrive) {
      if (!accept(ctx_, *this, "sink", 1, e.pkt)) return;
      arrived.push_back({ctx_.now(), ib(e.pkt).tail_cycle});
      sink.push(e.pkt);
    } else if (e.kind == EventKind::kSinkDone) {
      Done d;
      d.cycle = ctx_.now();
      d.ping = sink.drained(&d.in);
      done.push_back(d);
      sink.start();
    }
  }
  struct Arrived {
    uint64_t head = 0, tail = 0;
  };
  struct Done {
    uint64_t cycle = 0;
    bool ping = false;
    HcaSink::PingIn in;
  };
  HcaSink sink;
  std::vector<Arrived> arrived;
  std::vector<Done> done;
};

struct Bench {
  std::unique_ptr<Scenario> scenario;  // the context reads it for its whole life
  std::unique_ptr<NodeContext> ctx;
  SinkNode* node = nullptr;
  uint32_t wire = 0;
  uint64_t drain = 0;  // cycles to drain one MTU packet at half the link's rate
};

// The sink at half its link's rate; flow 0 is base.yaml's F1 (made a ping-pong flow if asked).
Bench make_bench(const HcaSink::Config& cfg, bool pingpong = false) {
  Bench b;
  b.scenario = std::make_unique<Scenario>(load_scenario_text(base_text(), "base.yaml", {{"cc.enabled", "false"}}));
  const Scenario& s = *b.scenario;
  b.ctx = bench(s, kH1, [&](NodeContext& c, unsigned n) { return std::make_unique<SinkNode>(c, n, cfg); });
  b.node = static_cast<SinkNode*>(&b.ctx->node(kH1));
  const double cpb = 2 * b.node->out[1].cycles_per_byte;
  b.node->sink.set_cycles_per_byte(cpb);
  Flow f;
  f.spec = s.flows.front();
  f.spec.pingpong = pingpong;
  f.spec.message_bytes = s.fabric.mtu;
  f.src = b.ctx->topology().find("H3");
  f.dst = kH1;
  b.ctx->flows().push_back(f);
  b.wire = b.ctx->wire_bytes(s.fabric.mtu);
  b.drain = static_cast<uint64_t>(std::ceil(b.wire * cpb));
  return b;
}

void send(Bench& b, unsigned n) {
  Probe& s1 = probe(*b.ctx, "S1");
  for (unsigned i = 0; i < n; ++i) s1.send(1, data_header(*b.ctx, "H3", "H1", b.ctx->scenario().fabric.mtu));
}

TEST(HcaSink, DrainsOneAtATimeAtItsRateAndReturnsTheCredits) {
  Bench b = make_bench({});
  Probe& s1 = probe(*b.ctx, "S1");
  const unsigned vl = data_header(*b.ctx, "H3", "H1", 1).vl;
  const uint32_t credits_before = s1.out[1].vls[vl].credits;
  send(b, 4);
  b.ctx->run_until(b.ctx->cycles(1000000000));
  ASSERT_EQ(b.node->done.size(), 4u);
  // The first drain ends its drain time after its head arrived (the sink is slower than the
  // link, so not before its tail); each next one its drain time after the one before.
  EXPECT_EQ(b.node->done[0].cycle, std::max(b.node->arrived[0].head + b.drain, b.node->arrived[0].tail));
  for (size_t i = 1; i < 4; ++i) EXPECT_EQ(b.node->done[i].cycle - b.node->done[i - 1].cycle, b.drain) << i;
  const FlowStats& st = b.ctx->flows()[0].stats;
  EXPECT_EQ(st.delivered_packets, 4u);
  EXPECT_EQ(st.delivered_bytes, 4u * b.ctx->scenario().fabric.mtu);
  EXPECT_EQ(b.ctx->delivered, 4u);
  EXPECT_EQ(s1.out[1].vls[vl].credits, credits_before) << "every credit back at the switch";
  EXPECT_EQ(b.node->sink.queue_packets(), 0u);
}

TEST(HcaSink, AHiccupHoldsTheDrainUntilItEnds) {
  HcaSink::Config cfg;
  const uint64_t drain = make_bench(cfg).drain;  // the drain time at this rate
  cfg.hiccup_period = 100 * drain;
  cfg.hiccup_duration = 10 * drain;
  Bench b = make_bench(cfg);
  send(b, 2);
  b.ctx->run_until(b.ctx->cycles(1000000000));
  ASSERT_EQ(b.node->done.size(), 2u);
  const uint64_t head = b.node->arrived[0].head;
  ASSERT_LT(head % cfg.hiccup_period, cfg.hiccup_duration) << "the first packet must arrive inside the hiccup";
  const uint64_t begin = head - head % cfg.hiccup_period + cfg.hiccup_duration;
  EXPECT_EQ(b.node->done[0].cycle, begin + b.drain);
  EXPECT_EQ(b.node->done[1].cycle, begin + 2 * b.drain) << "after the hiccup, the next drains at once";
}

TEST(HcaSink, APingDrainedWholeIsHandedBackToBeAnswered) {
  HcaSink::Config cfg;
  cfg.completion_cycles = 123;
  Bench b = make_bench(cfg, /*pingpong=*/true);
  send(b, 1);
  b.ctx->run_until(b.ctx->cycles(1000000000));
  ASSERT_EQ(b.node->done.size(), 1u);
  const SinkNode::Done& d = b.node->done[0];
  ASSERT_TRUE(d.ping);
  EXPECT_EQ(d.in.flow, 0u);
  EXPECT_EQ(d.in.dlid, b.ctx->topology().nodes[b.ctx->topology().find("H3")].lid) << "answered to the ping's source";
  EXPECT_EQ(d.in.bytes, b.ctx->scenario().fabric.mtu);
  EXPECT_EQ(d.in.ready, d.cycle + 123) << "after the completion latency";
  EXPECT_EQ(b.ctx->flows()[0].stats.delivered_packets, 1u);
}

TEST(HcaSink, TheArmedFaultsLoseAPacketAndItsCredits) {
  {
    Bench b = make_bench({});
    b.node->sink.arm_faults(false, /*lose_one_packet=*/true);
    send(b, 3);
    b.ctx->run_until(b.ctx->cycles(1000000000));
    ASSERT_EQ(b.node->done.size(), 3u);
    EXPECT_EQ(b.ctx->flows()[0].stats.delivered_packets, 2u) << "one packet vanished uncounted";
    EXPECT_EQ(b.ctx->delivered, 2u);
  }
  {
    Bench b = make_bench({});
    Probe& s1 = probe(*b.ctx, "S1");
    const unsigned vl = data_header(*b.ctx, "H3", "H1", 1).vl;
    const uint32_t credits_before = s1.out[1].vls[vl].credits;
    b.node->sink.arm_faults(/*leak_one_credit=*/true, false);
    send(b, 3);
    b.ctx->run_until(b.ctx->cycles(1000000000));
    EXPECT_EQ(b.ctx->flows()[0].stats.delivered_packets, 3u);
    EXPECT_EQ(s1.out[1].vls[vl].credits, credits_before - NodeContext::credits_of(b.wire))
        << "the first packet's credits never came back";
  }
}

}  // namespace
}  // namespace ibcc::net
