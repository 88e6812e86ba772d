// The fabric end to end on small cases: conservation, credits, what a saturated link
// delivers, and that a fault built into the model is caught.
#include <gtest/gtest.h>

#include <vector>

#include "net/fabric.h"
#include "net/scenario_yaml.h"
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

}  // namespace
}  // namespace ibcc::net
