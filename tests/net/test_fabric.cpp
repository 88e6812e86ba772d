// The fabric end to end on small cases: conservation, credits, what a saturated link
// delivers, and that a fault built into the model is caught.
#include <gtest/gtest.h>

#include <vector>

#include "net/fabric/fabric.h"
#include "net/scenario/scenario_yaml.h"
#include "tests/net/base_scenario.h"

namespace ibcc::net {
namespace {

using testing::base_text;

// Two saturating flows into H3 over QDR links: H3's link is the bottleneck; each flow gets
// half of its payload rate, and the run ends with every invariant intact.
TEST(Fabric, TwoFlowsShareTheBottleneckLink) {
  const Scenario s = load_scenario_text(base_text(), "base.yaml", {{"cc.enabled", "false"}, {"sim.time", "2ms"}});
  Fabric f("fabric", s);
  f.run();  // throws on a broken invariant
  const double secs = 2e-3;
  const double payload_share = 2048.0 / (2048 + Fabric::kHeaderBytes);
  double total = 0;
  for (const auto& fl : f.flows()) {
    const double gbps = fl.stats.delivered_bytes * 8 / secs / 1e9;
    EXPECT_NEAR(gbps, 16 * payload_share, 0.5) << fl.spec.name;
    total += gbps;
  }
  EXPECT_NEAR(total, 32 * payload_share, 0.6);
  EXPECT_EQ(f.injected, f.delivered + f.pool().live());
  EXPECT_GT(f.hops, 3 * f.delivered - 10);
}

TEST(Fabric, CongestionControlMarksAndThrottles) {
  const Scenario s = load_scenario_text(base_text(), "base.yaml",
                                        {{"sim.time", "3ms"}, {"fabric.hca", "{sink_rate: 10Gb/s}"}});
  Fabric f("fabric", s);
  f.run();
  for (const auto& fl : f.flows()) {
    EXPECT_GT(fl.stats.fecn_marked, 0u) << fl.spec.name;
    EXPECT_EQ(fl.stats.becn_received, fl.stats.fecn_marked) << "a CNP per FECN, every one back at the source";
  }
  EXPECT_GT(f.cnps, 0u);
}

// Two saturating flows on different VLs into one output, under VLArbitration tables.
std::vector<double> vlarb_rates(const std::string& tables) {
  const Scenario s = load_scenario_text(
      base_text(), "base.yaml",
      {{"cc.enabled", "false"},
       {"sim.time", "2ms"},
       {"fabric.switch", "{vl_arbitration: " + tables + "}"},
       {"traffic.flows", "[{name: F1, src: H1, dst: H3, sl: 0}, {name: F2, src: H2, dst: H3, sl: 1}]"}});
  Fabric f("fabric", s);
  f.run();
  return {f.flows()[0].stats.delivered_bytes * 1.0, f.flows()[1].stats.delivered_bytes * 1.0};
}

TEST(Fabric, VlArbitrationWeightsShareTheLink) {
  // Weights in 64-byte units: VL0 may send 2 KiB (one packet), VL1 6 KiB (three) per turn.
  const auto r = vlarb_rates("{low: [[0, 32], [1, 96]]}");
  EXPECT_NEAR(r[1] / r[0], 3.0, 0.1);
}

TEST(Fabric, VlArbitrationHighPriorityWithoutLimitStarvesLow) {
  const auto r = vlarb_rates("{high: [[1, 255]], low: [[0, 255]], high_limit: 255}");
  EXPECT_LT(r[0], 0.02 * r[1]);
}

TEST(Fabric, VlArbitrationHighLimitZeroAlternates) {
  // LimitOfHighPriority 0: one high-priority packet, then a low one may go.
  const auto r = vlarb_rates("{high: [[1, 255]], low: [[0, 255]], high_limit: 0}");
  EXPECT_NEAR(r[1] / r[0], 1.0, 0.05);
}

// F1 saturates H1's link into S1; F2 offers 2 Gb/s from H2 to the same output (S1/4), so
// F1 keeps S1's 16 KiB input buffer full. Round robin serves F2's packet after at most
// one of F1's; oldest first makes it wait behind every F1 packet that arrived before it,
// about a full buffer's drain time at QDR (16 KiB / 4 GB/s = 4.1 us), as in an
// output-queued switch. F2 gets its offered rate either way. Returns F2's mean latency
// in us and its Gb/s; one fabric per test (SystemC elaborates once per process).
std::pair<double, double> light_flow(const std::string& arbitration) {
  const Scenario s = load_scenario_text(
      base_text(), "base.yaml",
      {{"cc.enabled", "false"},
       {"sim.time", "1ms"},
       {"fabric.switch", "{buffer_per_vl: 16KiB, input_arbitration: " + arbitration + "}"},
       {"traffic.flows", "[{name: F1, src: H1, dst: H3}, {name: F2, src: H2, dst: H3, rate: 2Gb/s, message: 2KiB}]"}});
  Fabric f("fabric", s);
  f.run();
  const auto& f2 = f.flows()[1].stats;
  return {f2.packet_latency.mean() * 1e6 / s.fabric.core_clock_hz, f2.delivered_bytes * 8 / 1e-3 / 1e9};
}
constexpr double kBufferDrainUs = 16384 / 4e9 * 1e6;

TEST(Fabric, RoundRobinLetsALightInputPass) {
  const auto [latency_us, gbps] = light_flow("round_robin");
  EXPECT_NEAR(gbps, 2.0, 0.1);
  EXPECT_LT(latency_us, 0.5 * kBufferDrainUs);
}

TEST(Fabric, OldestFirstMakesALightInputWaitInLine) {
  const auto [latency_us, gbps] = light_flow("oldest_first");
  EXPECT_NEAR(gbps, 2.0, 0.1);
  EXPECT_GT(latency_us, 0.8 * kBufferDrainUs);
}

TEST(Fabric, BecnInAcks) {
  const Scenario s = load_scenario_text(base_text(), "base.yaml",
                                        {{"sim.time", "3ms"}, {"fabric.hca", "{sink_rate: 10Gb/s}"}, {"cc.ca.becn", "ack"}});
  Fabric f("fabric", s);
  f.run();
  for (const auto& fl : f.flows()) {
    EXPECT_GT(fl.stats.becn_received, 0u);
    EXPECT_EQ(fl.stats.becn_received, fl.stats.fecn_marked);
  }
}

TEST(Fabric, SinkHiccupsHalveTheDrain) {
  // The sink stops 50 us of every 100 us: H3 drains half of what its link brings.
  const Scenario s = load_scenario_text(
      base_text(), "base.yaml",
      {{"cc.enabled", "false"}, {"sim.time", "2ms"}, {"fabric.hca", "{sink_hiccup: {period: 100us, duration: 50us}}"}});
  Fabric f("fabric", s);
  f.run();
  double total = 0;
  for (const auto& fl : f.flows()) total += fl.stats.delivered_bytes * 8 / 2e-3 / 1e9;
  const double payload_share = 2048.0 / (2048 + Fabric::kHeaderBytes);
  EXPECT_NEAR(total, 0.5 * 32 * payload_share, 1.0);
}

TEST(Fabric, LeakedCreditIsCaught) {
  const Scenario s = load_scenario_text(base_text(), "base.yaml", {{"debug", "{faults: [leak_credit_return]}"}});
  Fabric f("fabric", s);
  try {
    f.run();
    FAIL() << "the leak went unnoticed";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("credits not conserved on link S2/1 -> H3/1 VL0"), std::string::npos) << e.what();
  }
}

// A link left for a user's module (claim_link) that nobody binds stops the run with a
// ModelError naming it, instead of sending into nothing.
TEST(Fabric, ClaimedLinkLeftUnboundIsAnError) {
  const Scenario s = load_scenario_text(base_text(), "base.yaml", {{"sim.time", "10us"}});
  Fabric f("fabric", s);
  EXPECT_THROW(f.claim_link(0, 99), std::invalid_argument);
  f.claim_link(static_cast<unsigned>(f.topology().find("H3")), 1);
  try {
    f.run();
    FAIL() << "ran with an unbound link";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("H3/1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not bound"), std::string::npos) << e.what();
  }
}

// Run-ahead (the calendar going on without the kernel) is refused when a link is claimed:
// a user's module on it lives in the kernel's time. Here the claimed link's ends are bound
// straight to each other, as the builder would have bound them.
TEST(Fabric, RunAheadRefusesAClaimedLink) {
  const Scenario s = load_scenario_text(base_text(), "base.yaml", {{"sim.time", "10us"}});
  Fabric f("fabric", s);
  const unsigned a = static_cast<unsigned>(f.topology().find("H3"));
  f.claim_link(a, 1);
  Node& na = f.node(a);
  Node& nb = f.node(static_cast<unsigned>(na.out[1].peer));
  const unsigned pb = na.out[1].peer_port;
  na.end(1).out.bind(nb.end(pb).in);
  nb.end(pb).out.bind(na.end(1).in);
  f.set_run_ahead(true);
  try {
    f.run();
    FAIL() << "ran ahead of a claimed link";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("H3/1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cannot run ahead"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ibcc::net
