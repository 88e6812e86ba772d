// Traffic patterns, settings in the units people use, and the latency statistics.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "net/fabric/fabric.h"
#include "net/observe/latency_histogram.h"
#include "net/observe/metrics.h"
#include "net/scenario/scenario_yaml.h"
#include "net/scenario/topology.h"
#include "tests/net/base_scenario.h"

namespace ibcc::net {
namespace {

using testing::base_text;

const char* kFabric8 = R"(
name: eight hosts
sim: {time: 1ms, log_interval: 100us, seed: 3}
topology:
  generate: {family: kary_ntree, k: 2, n: 3}
)";

Scenario with_patterns(const std::string& patterns) {
  return load_scenario_text(std::string(kFabric8) + "traffic:\n  patterns:\n" + patterns, "t.yaml");
}

TEST(Traffic, HotspotContributorsKeepToOneHotspotDealtEvenly) {
  const Scenario s = with_patterns("    - {name: hot, type: hotspot, sources: all, hotspots: 2}\n");
  std::map<std::string, int> per_hot;
  for (const auto& f : s.flows) {
    ASSERT_FALSE(f.dst.empty()) << f.name << ": a fixed assignment gives each contributor one destination";
    EXPECT_NE(f.dst, f.src);
    ++per_hot[f.dst];
  }
  ASSERT_EQ(per_hot.size(), 2u);
  // 8 sources, 2 hotspots, neither sends to itself: 7 contributors, dealt 4 and 3.
  EXPECT_LE(std::abs(per_hot.begin()->second - per_hot.rbegin()->second), 1);
  const Scenario pm = with_patterns("    - {name: hot, type: hotspot, sources: all, hotspots: 3, assignment: per_message}\n");
  for (const auto& f : pm.flows) {
    EXPECT_TRUE(f.dst.empty());
    EXPECT_EQ(f.qp_policy, QpPolicy::kPerDestination);
  }
}

TEST(Traffic, RingAllToAllAndSkew) {
  const Scenario ring = with_patterns("    - {name: r, type: ring}\n");
  ASSERT_EQ(ring.flows.size(), 8u);
  for (size_t i = 0; i < ring.flows.size(); ++i) {
    EXPECT_EQ(ring.flows[i].src, ring.hcas[i].name);
    EXPECT_EQ(ring.flows[i].dst, ring.hcas[(i + 1) % 8].name) << "natural order: rank -> rank + 1";
  }
  const Scenario a2a = with_patterns("    - {name: a, type: all_to_all}\n");
  ASSERT_EQ(a2a.flows.size(), 8u);
  for (const auto& f : a2a.flows) {
    EXPECT_EQ(f.uniform_dsts.size(), 7u);
    EXPECT_EQ(f.dst_order, DstOrder::kSequence);
    EXPECT_EQ(std::set<std::string>(f.uniform_dsts.begin(), f.uniform_dsts.end()).count(f.src), 0u);
  }
  const Scenario inc = with_patterns("    - {name: i, type: incast, dst: H1, skew: 10us, start: 5us}\n");
  ASSERT_EQ(inc.flows.size(), 7u);
  std::set<uint64_t> starts;
  for (const auto& f : inc.flows) starts.insert(f.start_ps);
  EXPECT_EQ(*starts.begin(), 5000000u);
  EXPECT_EQ(*starts.rbegin(), 5000000u + 6 * 10000000u);
  EXPECT_EQ(starts.size(), 7u);
}

// The fabric builder and `ibcc topo` resolve a pattern's destination names through one
// UniformDestinations: each flow's ids are its own names' nodes, in its order, and the flows
// of the pattern share one resolved list (looked up once).
TEST(Traffic, UniformDestinationsResolvedOncePerSharedList) {
  const Scenario a2a = with_patterns("    - {name: a, type: all_to_all}\n");
  const Topology t = build_topology(a2a);
  UniformDestinations u(t);
  const SharedSeq<int> first = u.of(a2a.flows.front());
  for (const auto& f : a2a.flows) {
    const SharedSeq<int> ids = u.of(f);
    EXPECT_EQ(ids.all().get(), first.all().get()) << f.name << ": resolved again";
    ASSERT_EQ(ids.size(), f.uniform_dsts.size());
    for (size_t k = 0; k < ids.size(); ++k) {
      EXPECT_EQ(ids[k], t.find(f.uniform_dsts[k])) << f.name << " #" << k;
      EXPECT_NE(ids[k], t.find(f.src));
    }
  }
}

TEST(Traffic, AllToAllVisitsEveryDestination) {
  Scenario s = load_scenario_text(std::string(kFabric8) +
                                      "cc: {enabled: false}\ntraffic:\n  patterns:\n    - {name: a, type: all_to_all, message: 2KiB}\n",
                                  "t.yaml", {{"sim.time", "200us"}});
  Fabric f("fabric", s);
  f.run();
  for (const auto& fl : f.flows()) EXPECT_GE(fl.stats.delivered_packets, 7u) << fl.spec.name;
}

TEST(Units, CctiTimerAsATimeIsRoundedAndReported) {
  const Scenario s = load_scenario_text(base_text(), "b.yaml", {{"cc.ca.ccti_timer", "20us"}});
  EXPECT_EQ(s.cc.ca.sl_default.ccti_timer, 20u);  // 19.53 units
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_NE(s.notes[0].find("rounded to 20"), std::string::npos) << s.notes[0];
  const Scenario exact = load_scenario_text(base_text(), "b.yaml", {{"cc.ca.ccti_timer", "153.6us"}});
  EXPECT_EQ(exact.cc.ca.sl_default.ccti_timer, 150u);
  EXPECT_TRUE(exact.notes.empty());
  EXPECT_THROW(load_scenario_text(base_text(), "b.yaml", {{"cc.ca.ccti_timer", "100ns"}}), ScenarioError);
  EXPECT_THROW(load_scenario_text(base_text(), "b.yaml", {{"cc.ca.ccti_timer", "1s"}}), ScenarioError);
}

TEST(Units, CctiLimitBeyondTheTableNamesBoth) {
  try {
    load_scenario_text(base_text(), "b.yaml", {{"cc.ca.cct", "['0:0', '0:1', '0:2']"}, {"cc.ca.ccti_limit", "200"}});
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("200"), std::string::npos) << m;
    EXPECT_NE(m.find("last index is 2"), std::string::npos) << m;
  }
  EXPECT_THROW(load_scenario_text(base_text(), "b.yaml", {{"cc.ca.ccti_limit", "128"}}), ScenarioError);
  // Without an explicit CCTI_Limit, it is the table's last index (as OpenSM sets it).
  std::string text = base_text();
  text.replace(text.find(", ccti_limit: 127"), 17, "");
  const Scenario s = load_scenario_text(text, "b.yaml", {{"cc.ca.cct", "{linear: {entries: 64}}"}});
  EXPECT_EQ(s.cc.ca.ccti_limit, 63u);
}

TEST(Latency, HistogramQuantilesWithinTheirResolution) {
  LatencyHistogram h;
  for (uint64_t v = 1; v <= 100000; ++v) h.add(v);
  EXPECT_EQ(h.count(), 100000u);
  EXPECT_EQ(h.min(), 1u);
  EXPECT_EQ(h.max(), 100000u);
  EXPECT_NEAR(h.mean(), 50000.5, 1e-6);
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    const double exact = q * 100000;
    EXPECT_GE(static_cast<double>(h.quantile(q)), exact) << q;
    EXPECT_LE(static_cast<double>(h.quantile(q)), exact * 1.016 + 1) << q;
  }
  for (uint64_t v : {0ull, 1ull, 127ull, 128ull, 129ull, 1000ull, 123456789ull}) {
    EXPECT_GE(LatencyHistogram::upper(LatencyHistogram::bucket(v)), v);
    EXPECT_LE(LatencyHistogram::upper(LatencyHistogram::bucket(v)), v + v / 64 + 1);
  }
}

// The bucket counts take samples in batches (LatencyHistogram::kPending): whenever it is read,
// between batches or not, directly or through a merge on either side, it holds every sample
// added so far, as a count per bucket kept beside it shows.
TEST(Latency, HistogramReadsSeeEverySampleWhateverTheBatch) {
  std::mt19937_64 rng(3);
  LatencyHistogram a, b;
  std::map<uint64_t, uint64_t> ref;  // bucket upper bound -> samples (both histograms)
  auto add = [&](LatencyHistogram& h, uint64_t v) {
    h.add(v);
    ++ref[LatencyHistogram::upper(LatencyHistogram::bucket(v))];
  };
  auto expect_buckets = [&](const LatencyHistogram& h, const std::map<uint64_t, uint64_t>& want) {
    std::map<uint64_t, uint64_t> got;
    // (buckets() caps the last upper bound at the exact max; compare below it by bucket.)
    for (const auto& [upper, n] : h.buckets()) got[LatencyHistogram::upper(LatencyHistogram::bucket(upper))] += n;
    EXPECT_EQ(got, want);
  };
  // Reads after 1, 2, ... samples: every count modulo the batch comes up.
  for (unsigned n = 1; n <= 3 * LatencyHistogram::kPending + 1; ++n) {
    add(a, rng() % 5000);
    ASSERT_EQ(a.count(), n);
    expect_buckets(a, ref);
    EXPECT_GE(a.quantile(1.0), a.quantile(0.5));
  }
  for (unsigned n = 0; n < LatencyHistogram::kPending + 5; ++n) add(b, 100000 + rng() % 100000);
  a.merge(b);  // both sides with samples still waiting
  EXPECT_EQ(a.count(), 3 * LatencyHistogram::kPending + 1 + LatencyHistogram::kPending + 5);
  expect_buckets(a, ref);
  EXPECT_GE(a.quantile(0.999), 100000u);
  EXPECT_EQ(b.count(), LatencyHistogram::kPending + 5);
}

// An uncongested ping-pong's half round trip is one packet's path: injection, two switch
// latencies, serialization and propagation; its packets' latency is measured from creation.
TEST(Latency, PingPongOnAnIdleFabric) {
  Scenario s = load_scenario_text(
      base_text(), "b.yaml",
      {{"traffic.flows", "[{name: P, type: pingpong, src: H1, dst: H3, group: probe}]"}, {"cc.enabled", "false"}});
  Fabric f("fabric", s);
  f.run();
  const auto m = compute_metrics(f, {0, 0});
  const double ser_us = (8 + 26) * 8 / 32e9 * 1e6;  // 8-byte ping on QDR 4x
  const double expect_us = 2 * 0.1 + 3 * 0.005 + 3 * ser_us;  // switch latency, propagation, three links (cut-through)
  ASSERT_TRUE(m.count("pingpong_avg_us.probe"));
  EXPECT_NEAR(m.at("pingpong_avg_us.probe"), expect_us, 0.03);
  EXPECT_NEAR(m.at("pingpong_max_us.probe"), m.at("pingpong_min_us.probe"), 0.01) << "an idle fabric: every round trip alike";
  EXPECT_GT(f.flows()[0].stats.pingpong_rtt.count(), 1000u);
  EXPECT_TRUE(m.count("latency_p99_us.probe"));
}

// RTT probes (cc.dcqcn.rtt_probe_interval): on an idle fabric each round trip is a control
// packet's path there and back (two switch latencies, three links' propagation each way; the
// 32-byte probe's serialization at most once per link), every one alike; a flow sends one
// probe per interval while it sends data, and none without probes.
const char* kNvidiaCc = "{marking: nvidia, reaction: dcqcn, dcqcn: {rtt_probe_interval: 5us}}";

TEST(Latency, RttProbesOnAnIdleFabric) {
  Scenario s = load_scenario_text(
      base_text(), "b.yaml",
      {{"traffic.flows", "[{name: F1, src: H1, dst: H3, rate: 1Gb/s, message: 2KiB, group: probed}]"}, {"cc", kNvidiaCc}});
  Fabric f("fabric", s);
  f.run();
  const auto m = compute_metrics(f, {0, 0});
  const double bare_us = 2 * (2 * 0.1 + 3 * 0.005);        // switch latencies and propagation, both ways
  const double ser_us = 32 * 8 / 32e9 * 1e6;                 // a 32-byte control packet on QDR 4x
  ASSERT_TRUE(m.count("probe_rtt_min_us.probed"));
  EXPECT_GE(m.at("probe_rtt_min_us.probed"), bare_us - 0.005);
  EXPECT_LE(m.at("probe_rtt_min_us.probed"), bare_us + 2 * 3 * ser_us + 0.005);
  EXPECT_NEAR(m.at("probe_rtt_max_us.probed"), m.at("probe_rtt_min_us.probed"), 0.01) << "an idle fabric: every round trip alike";
  // 1 Gb/s of 2 KiB messages: a packet every 16.4 us, so one probe per packet (5 us after it)
  // over the 1 ms run: about 61.
  const FlowStats& st = f.flows()[0].stats;
  EXPECT_NEAR(static_cast<double>(st.probes_sent), 1e-3 * 1e9 / (2048 * 8), 2);
  EXPECT_GE(st.probe_rtt.count() + 1, st.probes_sent) << "every probe but one still in flight is answered";
}

TEST(Latency, RttProbesSeeTheQueue) {
  // Two saturating flows into H3: its switch port queues, and the probes' round trips grow.
  Scenario s = load_scenario_text(base_text(), "b.yaml", {{"cc", kNvidiaCc}});
  Fabric f("fabric", s);
  f.run();
  const auto m = compute_metrics(f, {0, 0});
  ASSERT_TRUE(m.count("probe_rtt_p50_us"));
  // Half the probes wait behind at least 4 KB at S2/1 (1 us at QDR) on top of the bare path.
  const double bare_us = 2 * (2 * 0.1 + 3 * 0.005) + 2 * 3 * 32 * 8 / 32e9 * 1e6;
  EXPECT_GT(m.at("probe_rtt_p50_us"), bare_us + 1.0) << "the queue at S2/1 shows";
  EXPECT_GT(f.flows()[0].stats.probes_sent, 100u);
}

TEST(Latency, RttProbesAreOffByDefault) {
  Scenario s = load_scenario_text(base_text(), "b.yaml", {{"cc", "{marking: nvidia, reaction: dcqcn}"}});
  Fabric f("fabric", s);
  f.run();
  EXPECT_EQ(f.flows()[0].stats.probes_sent, 0u);
  EXPECT_FALSE(compute_metrics(f, {0, 0}).count("probe_rtt_p99_us"));
}

TEST(Latency, RttResponseSlNeedsProbes) {
  try {
    load_scenario_text(base_text(), "b.yaml", {{"cc", "{marking: nvidia, reaction: dcqcn, dcqcn: {rtt_resp_sl: 1}}"}});
    FAIL() << "rtt_resp_sl without probes was accepted";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("cc.dcqcn.rtt_probe_interval"), std::string::npos) << e.what();
  }
}

TEST(Latency, IrdWaitsCountAtTheSource) {
  // CC on, a slow sink: the two flows get throttled; their packets' latency includes the
  // IRD waits at the source, so p99 exceeds the fabric's transit time by far.
  Scenario s = load_scenario_text(base_text(), "b.yaml", {{"sim.time", "3ms"}, {"fabric.hca", "{sink_rate: 10Gb/s}"}});
  Fabric f("fabric", s);
  f.run();
  const auto m = compute_metrics(f, {1000000000, 0});
  EXPECT_GT(m.at("latency_p99_us"), 10.0);
  EXPECT_GE(m.at("latency_p99_us"), m.at("latency_p50_us"));
  EXPECT_GE(m.at("latency_max_us"), m.at("latency_p999_us"));
  const auto names = metric_names(s);
  for (const auto& [k, v] : m) EXPECT_TRUE(names.count(k)) << k << " is not declared by metric_names()";
}

}  // namespace
}  // namespace ibcc::net
