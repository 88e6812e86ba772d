// Units, the scenario reader and its errors, --set overrides.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "net/scenario/scenario_yaml.h"
#include "tests/net/base_scenario.h"
#include "net/scenario/units.h"

namespace ibcc::net {
namespace {

using testing::base_text;

TEST(Units, ParseWhatScenariosWrite) {
  EXPECT_EQ(parse_time_ps("5ns"), 5000u);
  EXPECT_EQ(parse_time_ps("1.5 us"), 1500000u);
  EXPECT_EQ(parse_time_ps("2s"), 2000000000000u);
  EXPECT_EQ(parse_rate_bps("20Gb/s"), 20e9);
  EXPECT_EQ(parse_rate_bps("13.5Gb/s"), 13.5e9);
  EXPECT_EQ(parse_bytes("16KiB"), 16384u);
  EXPECT_EQ(parse_bytes("2048"), 2048u);
  EXPECT_EQ(parse_bytes("1KB"), 1000u);
  EXPECT_EQ(parse_hz("250MHz"), 250000000u);
  EXPECT_FALSE(parse_time_ps("5"));          // a time needs a unit
  EXPECT_FALSE(parse_time_ps("5 parsecs"));
  EXPECT_FALSE(parse_time_ps("-1ns"));
  EXPECT_FALSE(parse_rate_bps("fast"));
  EXPECT_FALSE(parse_bytes("1.5B"));
}

TEST(Scenario, LinkSpeedsCarryTheEncoding) {
  std::string text = base_text();
  text.replace(text.find("{width: 4x, speed: QDR, propagation: 5ns}"), 41, "{width: 4x, speed: DDR, propagation: 5ns}");
  const Scenario ddr = load_scenario_text(text, "t.yaml");
  EXPECT_DOUBLE_EQ(ddr.links[0].signal_bps, 20e9);
  EXPECT_DOUBLE_EQ(ddr.links[0].data_bps, 16e9);  // 8b/10b
  const Scenario fdr = load_scenario_text(text, "t.yaml", {{"fabric.link_defaults.speed", "FDR"}});
  EXPECT_NEAR(fdr.links[0].data_bps, 4 * 14.0625e9 * 64 / 66, 1);  // 64b/66b
  const Scenario rate = load_scenario_text(
      text, "t.yaml", {{"fabric.link_defaults", "{rate: 40Gb/s, encoding: 64b66b, propagation: 1us, width: null, speed: null}"}});
  EXPECT_NEAR(rate.links[0].data_bps, 40e9 * 64 / 66, 1);
  EXPECT_EQ(rate.links[0].propagation_ps, 1000000u);
  // The PAM4 speeds: 256b/257b under RS(544,514) FEC, so 4x HDR, NDR and XDR carry 200, 400
  // and 800 Gb/s of data (their nominal rates) from 212.5, 425 and 850 Gb/s.
  for (const auto& [speed, signal, data] : std::vector<std::tuple<std::string, double, double>>{
           {"HDR", 212.5e9, 200e9}, {"NDR", 425e9, 400e9}, {"XDR", 850e9, 800e9}}) {
    const Scenario pam4 = load_scenario_text(text, "t.yaml", {{"fabric.link_defaults.speed", speed}});
    EXPECT_NEAR(pam4.links[0].signal_bps, signal, 1) << speed;
    EXPECT_NEAR(pam4.links[0].data_bps, data, 1) << speed;
  }
  const Scenario fec = load_scenario_text(
      text, "t.yaml", {{"fabric.link_defaults", "{rate: 850Gb/s, encoding: 256b257b_rs544, width: null, speed: null}"}});
  EXPECT_NEAR(fec.links[0].data_bps, 800e9, 1);
  // `ibcc topo --write`'s links give rate + encoding: each encoding is named back.
  for (const LinkEncoding& e : kEncodings) EXPECT_STREQ(encoding_of(e.efficiency), e.name);
}

TEST(Scenario, OverridesReachTheModel) {
  const Scenario s = load_scenario_text(base_text(), "t.yaml",
                                        {{"cc.switch.threshold", "9"}, {"cc.switch.mapping", "sum"}, {"sim.seed", "7"}});
  EXPECT_EQ(s.cc.sw.threshold, 9u);
  EXPECT_EQ(s.cc.sw.mapping, cc::ThresholdMapping::kSum);
  EXPECT_EQ(s.sim.seed, 7u);
}

TEST(Scenario, OverrideOfAnUnknownKeyIsAnError) {
  try {
    load_scenario_text(base_text(), "t.yaml", {{"cc.switch.treshold", "9"}});
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("cc.switch.treshold: unknown key"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--set"), std::string::npos) << e.what();
  }
}

TEST(Scenario, ErrorsNameFileLineAndKey) {
  std::string text = base_text();
  text.replace(text.find("threshold: 15"), 13, "threshold: 16");
  try {
    load_scenario_text(text, "t.yaml");
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(), "t.yaml:17: cc.switch.threshold: out of range: expected 0..15, got 16");
  }
}

TEST(Scenario, OpenSmStyleCctListSetsTheLimit) {
  const Scenario s = load_scenario_text(base_text(), "t.yaml", {{"cc.ca", "{cct: ['0:0', '0:1', '1:3'], ccti_limit: null}"}});
  ASSERT_EQ(s.cc.ca.cct.size(), 3u);
  EXPECT_EQ(s.cc.ca.cct[2], (1u << 14) | 3u);
  EXPECT_EQ(s.cc.ca.ccti_limit, 2u);  // CCTI_Limit = entries - 1, as OpenSM sets it
}

TEST(Scenario, PatternsSplitTheNodes) {
  std::string text = base_text();
  const Scenario s = load_scenario_text(
      text, "t.yaml",
      {{"traffic", "{flows: null, patterns: [{type: uniform, sources: '0%..34%'}, {type: hotspot, sources: '34%..100%', hotspots: 1}]}"}});
  std::set<std::string> srcs;
  for (const auto& f : s.flows) EXPECT_TRUE(srcs.insert(f.src).second) << f.src << " sends in two patterns";
  EXPECT_GE(srcs.size(), 2u);  // a hot node does not send to itself: it may have nothing to send
}

TEST(Scenario, FatTreePodsAreCheckedAndCounted) {
  auto load = [](const std::string& gen) {
    return load_scenario_text(base_text(), "t.yaml",
                              {{"topology", "{generate: " + gen + ", switches: null, hcas: null, links: null}"},
                               {"traffic", "{flows: null, patterns: [{type: permutation}]}"}});
  };
  EXPECT_EQ(load("{family: fattree, radix: 8, levels: 3, pods: 3}").hcas.size(), 48u);
  auto error_of = [&](const std::string& gen) {
    try {
      load(gen);
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error_of("{family: fattree, radix: 8, levels: 3, pods: 9}"),
              ::testing::HasSubstr("topology.generate.pods: expected 1..8 (a top switch has 8 down-ports), got 9"));
  EXPECT_THAT(error_of("{family: fattree, radix: 8, levels: 1, pods: 2}"),
              ::testing::HasSubstr("a one-level fat tree (one switch) has no pods"));
  EXPECT_THAT(error_of("{family: clos3, pods: 2}"), ::testing::HasSubstr("only a fattree generator has it"));
  // 64 ports, 3 levels: 44 pods (48,896 LIDs) fit an IB subnet, 45 (49,984) do not.
  EXPECT_THAT(error_of("{family: fattree, radix: 64, levels: 3, pods: 45}"),
              ::testing::HasSubstr("with 45 pods has 46080 hosts and 3904 switches; an IB subnet has at most 49151 LIDs"));
  // An Ethernet fabric has no LID space; its size is bounded by its forwarding tables: a
  // 254-port tree (4.1 M hosts) is refused before anything is generated.
  auto ethernet_error_of = [&](const std::string& gen) {
    try {
      load_scenario_text(base_text(), "t.yaml",
                         {{"fabric.flow_control", "pfc"},
                          {"topology", "{generate: " + gen + ", switches: null, hcas: null, links: null}"},
                          {"traffic", "{flows: null, patterns: [{type: permutation}]}"}});
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(ethernet_error_of("{family: fattree, radix: 254, levels: 3}"),
              ::testing::HasSubstr("has 4096766 hosts and 80645 switches; their forwarding tables alone would take "
                                   "628 GiB (at most 16)"));
}

TEST(Scenario, IncastAndPermutationPatterns) {
  const std::string gen = "{generate: {family: clos3, leaves: 4, spines: 2, switch_ports: 6}, switches: null, hcas: null, links: null}";
  const Scenario incast = load_scenario_text(base_text(), "t.yaml",
                                             {{"topology", gen}, {"traffic", "{flows: null, patterns: [{type: incast, dst: H5}]}"}});
  EXPECT_EQ(incast.flows.size(), 15u);  // every other node of 16
  for (const auto& f : incast.flows) EXPECT_EQ(f.dst, "H5");
  const Scenario perm = load_scenario_text(base_text(), "t.yaml",
                                           {{"topology", gen}, {"traffic", "{flows: null, patterns: [{type: permutation}]}"}});
  std::set<std::string> srcs, dsts;
  for (const auto& f : perm.flows) {
    EXPECT_NE(f.src, f.dst);
    srcs.insert(f.src);
    dsts.insert(f.dst);
  }
  EXPECT_EQ(srcs.size(), 16u);
  EXPECT_EQ(dsts.size(), 16u);
}

}  // namespace
}  // namespace ibcc::net

namespace ibcc::net {
namespace {

// One parse for reading and resolving (ScenarioDocument) gives what separate parses give:
// reading leaves the document as it was, and the overrides apply once.
TEST(ResolvedScenario, OneParseEqualsTwo) {
  const char* files[] = {"topologies/seed-testbed/scenario1.yaml", "topologies/seed-testbed/pingpong.yaml",
                         "topologies/clos648/hotspot.yaml", "topologies/dynamics/three-contributors.yaml",
                         "tests/scenarios/base.yaml"};
  for (const char* f : files) {
    for (const std::vector<Override>& ov :
         {std::vector<Override>{}, std::vector<Override>{{"cc.switch.threshold", "3"}, {"sim.time", "2ms"},
                                                         {"fabric.switch.latency", "200ns"}}}) {
      SCOPED_TRACE(std::string(f) + (ov.empty() ? "" : " with overrides"));
      const std::string path = std::string(IBCC_SOURCE_DIR) + "/" + f;
      const std::string text = read_text_file(path, "scenario file");
      const Scenario two = load_scenario_text(text, path, ov);
      const std::string expected = resolved_scenario_yaml(text, path, ov, two);
      ScenarioDocument doc(text, path);
      const Scenario one = doc.load(ov);
      EXPECT_EQ(doc.resolved_yaml(ov, one), expected);
      EXPECT_EQ(one.cc.sw.threshold, two.cc.sw.threshold);
      EXPECT_EQ(one.flows.size(), two.flows.size());
    }
  }
}

// resolved.yaml of every shipped scenario loads to the same settings, and resolving it again
// gives the same text (a fixpoint): what a run records is what it ran.
TEST(ResolvedScenario, ShippedScenariosRoundTrip) {
  const char* files[] = {"topologies/seed-testbed/scenario1.yaml", "topologies/seed-testbed/scenario2.yaml",
                         "topologies/seed-testbed/pingpong.yaml", "topologies/clos648/hotspot.yaml",
                         "topologies/dynamics/three-contributors.yaml"};
  for (const char* f : files) {
    SCOPED_TRACE(f);
    const std::string path = std::string(IBCC_SOURCE_DIR) + "/" + f;
    const std::string text = read_text_file(path, "scenario file");
    const std::vector<Override> ov = {{"cc.switch.threshold", "9"}, {"sim.seed", "5"}};
    const Scenario s = load_scenario_text(text, path, ov);
    const std::string resolved = resolved_scenario_yaml(text, path, ov, s);
    const Scenario back = load_scenario_text(resolved, "resolved.yaml");
    EXPECT_EQ(back.cc.sw.threshold, 9u);
    EXPECT_EQ(back.sim.seed, 5u);
    EXPECT_EQ(back.cc.ca.cct, s.cc.ca.cct);
    EXPECT_EQ(back.cc.ca.ccti_limit, s.cc.ca.ccti_limit);
    EXPECT_EQ(back.cc.ca.sl_default.ccti_timer, s.cc.ca.sl_default.ccti_timer);
    EXPECT_EQ(back.fabric.switch_buffer_per_vl, s.fabric.switch_buffer_per_vl);
    EXPECT_EQ(back.fabric.hca_sink_bps, s.fabric.hca_sink_bps);
    EXPECT_EQ(back.fabric.credit_in_order, s.fabric.credit_in_order);
    EXPECT_EQ(back.fabric.oldest_first, s.fabric.oldest_first);
    EXPECT_EQ(back.sim.sim_time_ps, s.sim.sim_time_ps);
    ASSERT_EQ(back.flows.size(), s.flows.size());
    for (size_t i = 0; i < s.flows.size(); ++i) {
      EXPECT_EQ(back.flows[i].name, s.flows[i].name);
      EXPECT_EQ(back.flows[i].dst, s.flows[i].dst);
      EXPECT_EQ(back.flows[i].hot_dsts, s.flows[i].hot_dsts);
    }
    // (The header comment names the file it came from; the rest must be identical.)
    auto body = [](const std::string& t) { return t.substr(t.find("\nname:")); };
    EXPECT_EQ(body(resolved_scenario_yaml(resolved, "resolved.yaml", {}, back)), body(resolved)) << "not a fixpoint";
  }
}

// A key given twice, a second document: errors naming the lines, not a silent first value.
TEST(ScenarioReader, DuplicateKeysAndSecondDocumentsAreErrors) {
  const std::string base = base_text();
  try {
    load_scenario_text(base + "cc: {enabled: false}\n", "dup.yaml");
    FAIL() << "a duplicate top-level key was accepted";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("cc: given twice"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_scenario_text(base + "---\nname: two\n", "two.yaml"), ScenarioError);
}

}  // namespace
}  // namespace ibcc::net
