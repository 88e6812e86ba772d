// The Switch alone: probes on its ports send what a test scripts and record what leaves it
// (tests/net/node_bench.h). Cut-through timing, credit flow control, round robin between
// inputs, a missing route, FECN marking when an output is oversubscribed, and the link
// protocol at its sockets.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "net/fabric/fecn_marking.h"
#include "net/fabric/switch.h"
#include "tests/net/base_scenario.h"
#include "tests/net/node_bench.h"

namespace ibcc::net {
namespace {

using testing::base_text;
using testing::bench;
using testing::data_header;
using testing::probe;
using testing::Probe;

// base.yaml: S1 (node 0) has H1 on port 1, H2 on port 2 and S2 on port 4; H3 is behind S2.
constexpr unsigned kS1 = 0;

template <typename BeforeBind = void (*)(NodeContext&)>
std::unique_ptr<NodeContext> switch_bench(const Scenario& s, bool markers, BeforeBind before_bind = [](NodeContext&) {}) {
  auto ctx = bench(
      s, kS1,
      [&](NodeContext& c, unsigned n) {
        return std::make_unique<Switch>("S1", c, n, c.topology().nodes[n].ports);
      },
      before_bind);
  if (markers) {
    Switch& sw = static_cast<Switch&>(ctx->node(kS1));
    const unsigned inputs = sw.number_marker_inputs();
    for (unsigned p = 1; p <= sw.ports(); ++p) {
      if (sw.out[p].peer < 0) continue;
      cc::FecnMarkerParams mp;
      mp.num_inputs = inputs;
      mp.num_vls = s.fabric.vls;
      mp.fill_width = 16;
      mp.port_num = p;
      mp.tick_cycles = static_cast<uint32_t>(ctx->cycles(1024000));
      sw.attach_marking(p, std::make_unique<FecnMarking>(mp, s.cc.sw, nullptr, false, sw.in[p].capacity));
    }
  }
  return ctx;
}

Scenario no_cc() { return load_scenario_text(base_text(), "base.yaml", {{"cc.enabled", "false"}}); }

TEST(Switch, CutsThroughAfterItsLatency) {
  const Scenario s = no_cc();
  auto ctx = switch_bench(s, false);
  Switch& sw = static_cast<Switch&>(ctx->node(kS1));
  Probe& h1 = probe(*ctx, "H1");
  Probe& s2 = probe(*ctx, "S2");
  const IbExtension hdr = data_header(*ctx, "H1", "H3", 2048);
  h1.send(1, hdr);
  ctx->run_until(ctx->cycles(100000000));  // 100 us

  const uint64_t prop = ctx->cycles(s.links.front().propagation_ps);
  const uint64_t lat = sw.config().latency;
  const uint64_t ser = ser_cycles(h1.out[1], hdr.wire_bytes);
  ASSERT_GT(lat, 0u);
  ASSERT_EQ(s2.got.size(), 1u);
  EXPECT_EQ(s2.got[0].port, 4u);
  // The head leaves S1 once the switch latency has passed, before its tail is in.
  EXPECT_EQ(s2.got[0].head, prop + lat + prop);
  EXPECT_EQ(s2.got[0].tail, prop + std::max(lat + ser, ser) + prop);
  EXPECT_EQ(s2.got[0].hdr.dlid, hdr.dlid);
  EXPECT_FALSE(s2.got[0].hdr.fecn);
  // Everything returned: H1's credits toward S1 and S1's toward S2 are full again.
  EXPECT_EQ(h1.out[1].vls[0].credits, h1.out[1].capacity);
  EXPECT_EQ(sw.out[4].vls[0].credits, sw.out[4].capacity);
  EXPECT_EQ(sw.queued_packets(), 0u);
  EXPECT_EQ(ctx->pool().live(), 0u);
}

// With a FECN marker on the output, a packet's tail-in event counts it in its VoQ's fill if
// it is still waiting. One that cuts through leaves first: its tail event is cancelled, so the
// switch handles exactly the events it handles without markers.
TEST(Switch, ACutThroughPacketCostsNoTailEvent) {
  const Scenario s = no_cc();
  uint64_t events[2] = {0, 0};
  for (int markers = 0; markers < 2; ++markers) {
    auto ctx = switch_bench(s, markers == 1);
    Probe& h1 = probe(*ctx, "H1");
    Probe& s2 = probe(*ctx, "S2");
    h1.send(1, data_header(*ctx, "H1", "H3", 2048));
    ctx->run_until(ctx->cycles(100000000));
    ASSERT_EQ(s2.got.size(), 1u);
    Switch& sw = static_cast<Switch&>(ctx->node(kS1));
    EXPECT_EQ(sw.in[1].tail.pkt, nullptr) << "no tail left pending";
    events[markers] = ctx->events;
  }
  EXPECT_EQ(events[1], events[0]);
}

TEST(Switch, StopsWithoutCreditsAndResumesWhenTheyReturn) {
  const Scenario s = no_cc();
  auto ctx = switch_bench(s, false);
  Switch& sw = static_cast<Switch&>(ctx->node(kS1));
  Probe& h1 = probe(*ctx, "H1");
  Probe& s2 = probe(*ctx, "S2");
  s2.drain = false;
  const IbExtension hdr = data_header(*ctx, "H1", "H3", 2048);
  const unsigned fit = sw.out[4].capacity / hdr.credits;  // packets S2's buffer holds
  const unsigned n = fit + 3;
  for (unsigned i = 0; i < n; ++i) h1.send(1, hdr);
  ctx->run_until(ctx->cycles(200000000));
  EXPECT_EQ(s2.got.size(), fit) << "S1 sent more than S2 had credits for";
  EXPECT_EQ(sw.queued_packets(), 3u);
  EXPECT_LT(sw.out[4].vls[0].credits, hdr.credits);
  s2.drain = true;
  s2.release_held();
  ctx->run_until(ctx->cycles(400000000));
  EXPECT_EQ(s2.got.size(), n);
  EXPECT_EQ(sw.queued_packets(), 0u);
  EXPECT_EQ(h1.unsent(), 0u);
  EXPECT_EQ(ctx->pool().live(), 0u);
}

TEST(Switch, RoundRobinAlternatesTwoBackloggedInputsBackToBack) {
  const Scenario s = no_cc();
  auto ctx = switch_bench(s, false);
  Probe& h1 = probe(*ctx, "H1");
  Probe& h2 = probe(*ctx, "H2");
  Probe& s2 = probe(*ctx, "S2");
  const IbExtension a = data_header(*ctx, "H1", "H3", 2048), b = data_header(*ctx, "H2", "H3", 2048);
  for (int i = 0; i < 6; ++i) {
    h1.send(1, a);
    h2.send(1, b);
  }
  ctx->run_until(ctx->cycles(200000000));
  ASSERT_EQ(s2.got.size(), 12u);
  const uint64_t ser = ser_cycles(h1.out[1], a.wire_bytes);
  for (size_t i = 1; i < s2.got.size(); ++i) {
    EXPECT_NE(s2.got[i].hdr.slid, s2.got[i - 1].hdr.slid) << "packet " << i;
    EXPECT_EQ(s2.got[i].head - s2.got[i - 1].head, ser) << "the output idled before packet " << i;
  }
}

// Credits that come back while an output sends, to a VL that has credits, wait for the
// output to be done (OutPort::defer_credits) instead of being an event each: the same
// packets leave at the same cycles, with FECN markers too, in fewer events, and every credit
// is back in the end.
TEST(Switch, CreditsReturnedWhileSendingWaitWithoutChangingTheTiming) {
  const Scenario s = no_cc();
  std::vector<Probe::Got> got[2];
  uint64_t events[2] = {0, 0};
  for (int defer = 0; defer < 2; ++defer) {
    auto ctx = switch_bench(s, true);
    Switch& sw = static_cast<Switch&>(ctx->node(kS1));
    sw.out[4].defer_credits = defer == 1;
    Probe& h1 = probe(*ctx, "H1");
    Probe& h2 = probe(*ctx, "H2");
    Probe& s2 = probe(*ctx, "S2");
    const IbExtension a = data_header(*ctx, "H1", "H3", 2048), b = data_header(*ctx, "H2", "H3", 1024);
    for (int i = 0; i < 8; ++i) {
      h1.send(1, a);
      h2.send(1, b);
    }
    ctx->run_until(ctx->cycles(200000000));
    ASSERT_EQ(s2.got.size(), 16u);
    got[defer] = s2.got;
    events[defer] = ctx->events;
    EXPECT_EQ(sw.out[4].vls[0].credits, sw.out[4].capacity);
    EXPECT_EQ(sw.out[4].vls[0].returning, 0u);
    EXPECT_EQ(sw.out[4].vls[0].deferred, 0u);
  }
  for (size_t i = 0; i < got[0].size(); ++i) {
    EXPECT_EQ(got[1][i].head, got[0][i].head) << "packet " << i;
    EXPECT_EQ(got[1][i].tail, got[0][i].tail) << "packet " << i;
    EXPECT_EQ(got[1][i].hdr.slid, got[0][i].hdr.slid) << "packet " << i;
  }
  EXPECT_LT(events[1], events[0]) << "no credit return waited";
}

TEST(Switch, NoRouteIsAModelError) {
  const Scenario s = no_cc();
  auto ctx = switch_bench(s, false);
  IbExtension hdr = data_header(*ctx, "H1", "H3", 256);
  hdr.dlid = 999;
  probe(*ctx, "H1").send(1, hdr);
  try {
    ctx->run_until(ctx->cycles(10000000));
    FAIL() << "no error";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("no route for DLID 999"), std::string::npos) << e.what();
  }
}

// A user's module bound to a link in place of the neighbour: an initiator socket of the
// link protocol of its own.
struct UserInitiator : sc_core::sc_module, tlm::tlm_bw_transport_if<IbLinkProtocol> {
  tlm::tlm_initiator_socket<32, IbLinkProtocol> socket;
  explicit UserInitiator(sc_core::sc_module_name name) : sc_core::sc_module(name), socket("socket") { socket.bind(*this); }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_core::sc_time&) override {
    return tlm::TLM_ACCEPTED;
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
};

// The ports' sockets speak the link protocol of link_socket.h and nothing else. A payload
// that is not an IbPacket is refused from a user's module; from another port of the
// fabric it cannot come (transmit() sends PacketPool packets only), and such a link does
// not ask each packet's type (PortEnd::peer_is_fabric_).
TEST(Switch, LinkSocketsRejectWhatIsNotTheLinkProtocol) {
  const Scenario s = no_cc();
  std::unique_ptr<UserInitiator> user;
  auto ctx = switch_bench(s, false, [&](NodeContext& c) {
    c.claim_link(kS1, 2);
    user = std::make_unique<UserInitiator>("user");
    user->socket.bind(c.node(kS1).end(2).in);
  });
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  tlm::tlm_generic_payload foreign;  // not an IbPacket of the fabric's pool
  tlm::tlm_phase begin = tlm::BEGIN_REQ;
  EXPECT_THROW(user->socket->nb_transport_fw(foreign, begin, delay), ModelError);
  PortEnd& port = ctx->node(kS1).end(1);
  tlm::tlm_generic_payload* pkt = ctx->pool().alloc();
  tlm::tlm_phase end_req = tlm::END_REQ;
  EXPECT_THROW(port.nb_transport_fw(*pkt, end_req, delay), ModelError);
  tlm::tlm_phase credit = IB_CREDIT;
  EXPECT_THROW(port.nb_transport_bw(foreign, credit, delay), ModelError) << "a credit payload carries IbCredit";
  EXPECT_THROW(port.nb_transport_bw(*pkt, begin, delay), ModelError);
  EXPECT_THROW(port.b_transport(*pkt, delay), ModelError);
  // The right phase and payload are taken, and the head booked at the input it came in on.
  EXPECT_EQ(port.nb_transport_fw(*pkt, begin, delay), tlm::TLM_ACCEPTED);
  EXPECT_EQ(ib(pkt).in_port, 1u);
  EXPECT_FALSE(ctx->idle());
}

// How many of the packets S2 receives carry FECN when H1 alone, or H1 and H2 together,
// send `per_source` packets to H3 through S1's port 4.
size_t marked(bool both, int per_source, size_t* received) {
  const Scenario s = load_scenario_text(base_text(), "base.yaml", {});
  auto ctx = switch_bench(s, true);
  Probe& s2 = probe(*ctx, "S2");
  for (int i = 0; i < per_source; ++i) {
    probe(*ctx, "H1").send(1, data_header(*ctx, "H1", "H3", 2048));
    if (both) probe(*ctx, "H2").send(1, data_header(*ctx, "H2", "H3", 2048));
  }
  ctx->run_until(ctx->cycles(1000000000));
  *received = s2.got.size();
  return static_cast<size_t>(std::count_if(s2.got.begin(), s2.got.end(), [](const Probe::Got& g) { return g.hdr.fecn; }));
}

TEST(Switch, MarksFecnOnlyWhenItsOutputIsOversubscribed) {
  size_t got1 = 0, got2 = 0;
  const size_t alone = marked(false, 40, &got1);
  const size_t shared = marked(true, 40, &got2);
  EXPECT_EQ(got1, 40u);
  EXPECT_EQ(got2, 80u);
  EXPECT_EQ(alone, 0u) << "one line-rate input never fills the VoQs past the threshold";
  EXPECT_GT(shared, 10u) << "two line-rate inputs into one output: the root of congestion marks";
}

// IBCC_SPEC section 1: FECN is ignored on ACKs and CNPs, so they are no marking decisions.
// With Packet_Size 0 every packet is large enough; ACKs interleaved with the data into the
// congested output must neither use up Marking_Rate decisions nor count as marks: the
// marker's mark count is the number of data packets that leave with FECN.
TEST(Switch, AcksAndCnpsTakeNoMarkingDecision) {
  const Scenario s = load_scenario_text(base_text(), "base.yaml",
                                        {{"cc.switch.packet_size", "0"}, {"cc.switch.marking_rate", "1"}});
  auto ctx = switch_bench(s, true);
  Probe& s2 = probe(*ctx, "S2");
  for (int i = 0; i < 60; ++i) {
    probe(*ctx, "H1").send(1, data_header(*ctx, "H1", "H3", 2048));
    probe(*ctx, "H2").send(1, data_header(*ctx, "H2", "H3", 2048));
    IbExtension ack = data_header(*ctx, "H2", "H3", 0);
    ack.opcode = i % 2 ? Opcode::kAck : Opcode::kCnp;
    ack.wire_bytes = s.fabric.ack_bytes;
    ack.credits = NodeContext::credits_of(ack.wire_bytes);
    probe(*ctx, "H2").send(1, ack);
  }
  ctx->run_until(ctx->cycles(1000000000));
  ASSERT_EQ(s2.got.size(), 180u);
  size_t fecn_data = 0;
  for (const Probe::Got& g : s2.got) {
    if (g.hdr.opcode != Opcode::kData) EXPECT_FALSE(g.hdr.fecn) << "an ACK or CNP is never marked";
    else if (g.hdr.fecn) ++fecn_data;
  }
  Switch& sw = static_cast<Switch&>(ctx->node(kS1));
  uint64_t marks = 0;
  for (unsigned vl = 0; vl < s.fabric.vls; ++vl) marks += sw.marking(4)->take_sample(ctx->now(), vl, 0).marks;
  EXPECT_GT(fecn_data, 10u) << "the congested output marks its data";
  EXPECT_EQ(marks, fecn_data) << "every mark the marker counts is a data packet's FECN";
  EXPECT_EQ(sw.out[4].marked, fecn_data);
}

}  // namespace
}  // namespace ibcc::net
