// The Ethernet and lossy regimes on the small fabric: PFC's pause frames keep a congested
// fabric lossless without credits, a threshold too high for its headroom is caught as the
// overflow it causes, a buffer too small for the headroom is refused; ECN marking with
// DCQCN's NP and RP throttles the same incast with CNPs paced per flow; a lossy fabric drops
// and counts what its input, output or shared buffers cannot take.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "net/fabric/dcqcn_reaction.h"
#include "net/fabric/fabric.h"
#include "net/fabric/hca.h"
#include "net/fabric/switch.h"
#include "net/scenario/scenario_yaml.h"
#include "tests/net/base_scenario.h"

namespace ibcc::net {
namespace {

using testing::base_text;

TEST(Pfc, PausesKeepTheIncastLossless) {
  const Scenario s = load_scenario_text(base_text(), "base.yaml",
                                        {{"cc.enabled", "false"}, {"sim.time", "2ms"}, {"fabric.flow_control", "pfc"},
                                         {"fabric.switch", "{buffer_per_vl: 32KiB}"}});
  Fabric f("fabric", s);
  f.run();  // throws on an overflow
  // Both flows cross S1/4 at 32 Gb/s each into one 32 Gb/s link: S1's inputs fill and pause
  // the HCAs, which resume below XON.
  const Node& s1 = f.node(0);
  const Node& s2 = f.node(1);
  EXPECT_GT(s1.in[1].pauses_sent, 0u);
  EXPECT_GT(s1.in[2].pauses_sent, 0u);
  EXPECT_GT(f.node(f.topology().find("H1")).out[1].pauses, 0u);
  EXPECT_EQ(f.injected, f.delivered + f.pool().live());
  // The thresholds: the buffer less 2 MTU packets (2074 bytes: 33 credits each) and what a
  // round trip lets through at 16 bytes per cycle (32 Gb/s at 250 MHz): 2 + 2 cycles of
  // propagation, 4 of a 64-byte pause frame and 1, 144 bytes, 3 credits; XON 2 MTU lower.
  EXPECT_EQ(s2.in[4].capacity, 512u);
  EXPECT_EQ(s2.in[4].xoff, 512u - 66u - 3u);
  EXPECT_EQ(s2.in[4].xon, 512u - 66u - 3u - 66u);
  // Both flows share H3's link, as with credits.
  const double a = static_cast<double>(f.flows()[0].stats.delivered_bytes);
  const double b = static_cast<double>(f.flows()[1].stats.delivered_bytes);
  EXPECT_NEAR(a / (a + b), 0.5, 0.05);
}

// The ports' report (what the summary's ports and PFC totals are written from) reads the
// ports' own counters; a parallel run's shards each report their own nodes' ports, which
// together, in node order, are the fabric's report.
TEST(Pfc, PortReportsReadThePortsAndSplitByShard) {
  // A small Clos (4 leaves of 4 hosts, 2 spines) under a uniform load, lossless by PFC.
  const Scenario s = load_scenario_text(R"(name: small clos
sim: {time: 200us, log_interval: 50us}
fabric:
  flow_control: pfc
  switch: {buffer_per_vl: 16KiB}
  link_defaults: {width: 4x, speed: QDR, propagation: 10ns}
topology:
  generate: {family: clos3, leaves: 4, spines: 2, switch_ports: 8}
cc: {enabled: false}
traffic:
  patterns:
    - {name: u, type: uniform, sources: all, message: 16KiB, outstanding: 4}
)",
                                        "small_clos.yaml");
  Fabric f("fabric", s, nullptr, 2);
  ASSERT_EQ(f.partition().parts, 2u);
  f.set_run_ahead(true);
  f.run();
  const std::vector<PortReport> all = f.port_reports();
  size_t rows = 0;
  for (unsigned n = 0; n < f.topology().nodes.size(); ++n) rows += f.node(n).out.size() - 1;
  ASSERT_EQ(all.size(), rows);
  uint64_t hca_pauses = 0, sent = 0;
  for (const PortReport& r : all) {
    const Node& node = f.node(r.node);
    EXPECT_EQ(r.packets, node.out[r.port].packets);
    EXPECT_EQ(r.bytes, node.out[r.port].bytes);
    EXPECT_EQ(r.pauses_received, node.out[r.port].pauses);
    EXPECT_EQ(r.pauses_sent, node.in[r.port].pauses_sent);
    if (r.node >= f.topology().num_switches) {
      hca_pauses += r.pauses_received;
    } else {
      const PortCounters& pc = static_cast<const Switch&>(node).counters(r.port);
      uint64_t pkts = 0;
      for (unsigned v = 0; v < pc.vls(); ++v) pkts += pc.vl(v).xmit_pkts;
      EXPECT_EQ(r.xmit_pkts, pkts);
      EXPECT_EQ(r.xmit_wait, pc.xmit_wait(f.now()));
      sent += r.pauses_sent;
    }
  }
  EXPECT_GT(hca_pauses, 0u);
  EXPECT_GT(sent, 0u);
  std::vector<PortReport> merged = f.port_reports(0);
  const std::vector<PortReport> second = f.port_reports(1);
  EXPECT_FALSE(merged.empty());
  EXPECT_FALSE(second.empty());
  merged.insert(merged.end(), second.begin(), second.end());
  std::stable_sort(merged.begin(), merged.end(), [](const PortReport& a, const PortReport& b) { return a.node < b.node; });
  ASSERT_EQ(merged.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(std::memcmp(&merged[i], &all[i], sizeof(PortReport)), 0) << "row " << i;
  }
}

TEST(Pfc, XoffTooHighOverflowsAndSaysSo) {
  const Scenario s = load_scenario_text(base_text(), "base.yaml",
                                        {{"cc.enabled", "false"}, {"sim.time", "2ms"}, {"fabric.flow_control", "pfc"},
                                         {"fabric.switch", "{buffer_per_vl: 32KiB}"}, {"fabric.hca", "{buffer_per_vl: 32KiB}"},
                                         {"fabric.pfc", "{xoff: 32KiB}"}});
  Fabric f("fabric", s);
  try {
    f.run();
    FAIL() << "no overflow";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("PFC: XOFF at 512 credits came too late"), std::string::npos) << e.what();
  }
}

TEST(Pfc, ABufferWithoutRoomForTheHeadroomIsRefused) {
  const Scenario s = load_scenario_text(base_text(), "base.yaml",
                                        {{"fabric.flow_control", "pfc"}, {"fabric.switch", "{buffer_per_vl: 4KiB}"}});
  try {
    Fabric f("fabric", s);
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot hold PFC's headroom"), std::string::npos) << e.what();
  }
}

// Every flow was marked and got CNPs for its marks, fewer than its marks and at most one per
// `interval_us` of the `run_us` run (the NP's pacing), and every CNP the HCAs sent arrived.
void expect_paced_cnps(const Fabric& f, uint64_t run_us, uint64_t interval_us) {
  uint64_t cnps = 0;
  for (const auto& fl : f.flows()) {
    EXPECT_GT(fl.stats.fecn_marked, 0u) << fl.spec.name;
    EXPECT_GT(fl.stats.becn_received, 0u) << fl.spec.name;
    EXPECT_LT(fl.stats.becn_received, fl.stats.fecn_marked) << fl.spec.name;
    EXPECT_LE(fl.stats.becn_received, run_us / interval_us + 1u) << fl.spec.name;
    cnps += fl.stats.becn_received;
  }
  EXPECT_EQ(cnps, f.cnps);
}

TEST(Dcqcn, EcnAndCnpsThrottleTheIncast) {
  const Scenario s = load_scenario_text(
      base_text(), "base.yaml",
      {{"sim.time", "3ms"}, {"fabric.hca", "{sink_rate: 10Gb/s}"}, {"fabric.switch", "{buffer_per_vl: 256KiB}"},
       {"cc.marking", "ecn"}, {"cc.reaction", "dcqcn"}, {"cc.ecn", "{kmin: 5KB, kmax: 100KB, pmax: 0.1}"},
       {"cc.dcqcn", "{cnp_interval: 10us, cnp_generation: 1us}"}});
  Fabric f("fabric", s);
  f.run();
  expect_paced_cnps(f, 3000, 10);
  // The sources were cut below the 10 Gb/s the sink drains: each RP rate is below line rate.
  Hca& h1 = static_cast<Hca&>(f.node(f.topology().find("H1")));
  auto* dcqcn = dynamic_cast<DcqcnReaction*>(&h1.reaction());
  ASSERT_NE(dcqcn, nullptr) << "cc.reaction: dcqcn makes a DcqcnReaction";
  EXPECT_GT(dcqcn->port().cnps_received(), 0u);
  EXPECT_LT(dcqcn->port().rp().params().min_rate_kbps, dcqcn->port().rp().params().line_rate_kbps);
}

TEST(Dcqcn, NvidiaMarkingOnIbCreditsThrottlesTheIncast) {
  // NVIDIA-style CC on an IB fabric (credits, no PFC): the averaged-queue marking point and
  // DCQCN's NP and RP on the incast of EcnAndCnpsThrottleTheIncast.
  const Scenario s = load_scenario_text(
      base_text(), "base.yaml",
      {{"sim.time", "3ms"}, {"fabric.hca", "{sink_rate: 10Gb/s}"}, {"fabric.switch", "{buffer_per_vl: 256KiB}"},
       {"cc.marking", "nvidia"}, {"cc.reaction", "dcqcn"},
       {"cc.nvidia", "{aqs_weight: 2, aqs_time: 1us, profile: {percent: 10, min: 5KB, max: 100KB}}"},
       {"cc.dcqcn", "{cnp_interval: 10us, cnp_generation: 1us}"}});
  Fabric f("fabric", s);
  f.run();
  expect_paced_cnps(f, 3000, 10);
  Hca& h1 = static_cast<Hca&>(f.node(f.topology().find("H1")));
  auto* dcqcn = dynamic_cast<DcqcnReaction*>(&h1.reaction());
  ASSERT_NE(dcqcn, nullptr);
  EXPECT_GT(dcqcn->port().cnps_received(), 0u);
  // Credits keep it lossless; the sources were cut below the sink's 10 Gb/s, so S1 no longer
  // holds the full input buffers (2 x 124 packets of 2 KiB) it holds without CC.
  EXPECT_EQ(f.injected, f.delivered + f.pool().live());
  const Switch& s1 = static_cast<const Switch&>(f.node(0));
  EXPECT_LT(s1.queued_packets(), 60u);
}

// Two 32 Gb/s flows through S1/4 (32 Gb/s): half of what they send cannot leave.
Scenario lossy(const std::string& buffering) {
  return load_scenario_text(base_text(), "base.yaml",
                            {{"cc.enabled", "false"}, {"sim.time", "1ms"}, {"fabric.flow_control", "none"},
                             {"fabric.switch", "{buffering: " + buffering + ", buffer_per_vl: 16KiB" +
                                                   // (each limit is read only with the buffering that has it)
                                                   (buffering == "input" ? "" : ", output_buffer: 24KiB") +
                                                   (buffering == "shared" ? ", shared_buffer: 40KiB" : "") + "}"}});
}

TEST(Lossy, InputBuffersDropHalfOfAnOverloadedIncast) {
  const Scenario s = lossy("input");
  Fabric f("fabric", s);
  f.run();  // conservation with drops is checked at every log tick
  EXPECT_EQ(f.injected, f.delivered + f.dropped + f.pool().live());
  const Node& s1 = f.node(0);
  EXPECT_GT(s1.in[1].drops, 0u);
  EXPECT_GT(s1.in[2].drops, 0u);
  EXPECT_EQ(s1.in[4].drops + f.node(1).in[4].drops, 0u) << "the core link is never overloaded";
  uint64_t flow_drops = 0;
  for (const auto& fl : f.flows()) {
    flow_drops += fl.stats.dropped_packets;
    const double lost = static_cast<double>(fl.stats.dropped_packets) / static_cast<double>(fl.stats.injected_packets);
    EXPECT_NEAR(lost, 0.5, 0.05) << fl.spec.name;
  }
  EXPECT_EQ(flow_drops, f.dropped);
}

TEST(Lossy, OutputBufferHoldsItsLimit) {
  const Scenario s = lossy("output");
  Fabric f("fabric", s);
  f.run();
  EXPECT_EQ(f.injected, f.delivered + f.dropped + f.pool().live());
  EXPECT_GT(f.dropped, 0u);
  // No input limit applies; the egress queue of S1/4 never passed 24 KiB.
  const auto& s1 = static_cast<const Switch&>(f.node(0));
  EXPECT_GT(s1.egress_peak(4), 20000u);
  EXPECT_LE(s1.egress_peak(4), 24576u);
}

TEST(Lossy, SharedPoolHoldsItsLimit) {
  const Scenario s = load_scenario_text(
      base_text(), "base.yaml",
      {{"cc.enabled", "false"}, {"sim.time", "1ms"}, {"fabric.flow_control", "none"},
       {"fabric.switch", "{buffering: shared, buffer_per_vl: 16KiB, output_buffer: 64KiB, shared_buffer: 20KiB}"}});
  Fabric f("fabric", s);
  f.run();
  EXPECT_GT(f.dropped, 0u);
  const auto& s1 = static_cast<const Switch&>(f.node(0));
  EXPECT_LE(s1.egress_peak(4), 20480u) << "the pool, not the output's 64 KiB, limits the queue";
}

// Go-Back-N over a lossy output-buffered switch: drops are recovered, and once the flows
// stop, every packet they made has been delivered exactly once.
void gbn_delivers_everything_once(const std::string& transport) {
  const Scenario s = load_scenario_text(
      base_text(), "base.yaml",
      {{"cc.enabled", "false"}, {"sim.time", "6ms"}, {"fabric.flow_control", "none"},
       {"fabric.switch", "{buffering: output, output_buffer: 24KiB}"},
       {"fabric.hca", "{transport: " + transport + ", gbn_window: 16, gbn_timeout: 20us}"},
       {"traffic.flows", "[{name: F1, src: H1, dst: H3, stop: 1ms}, {name: F2, src: H2, dst: H3, stop: 1ms}]"}});
  Fabric f("fabric", s);
  f.run();
  EXPECT_GT(f.dropped, 0u);
  for (const auto& fl : f.flows()) {
    const FlowStats& st = fl.stats;
    EXPECT_GT(st.retransmitted_packets, 0u) << fl.spec.name;
    EXPECT_GT(st.delivered_packets, 0u) << fl.spec.name;
    // Every packet made (sent once, or more) is delivered once; the rest of the sends were
    // dropped or discarded.
    EXPECT_EQ(st.delivered_packets, st.injected_packets - st.retransmitted_packets) << fl.spec.name;
    EXPECT_EQ(st.injected_packets, st.delivered_packets + st.dropped_packets + st.discarded_packets) << fl.spec.name;
  }
  EXPECT_EQ(f.pool().live(), 0u);
}

TEST(Lossy, GoBackNDeliversEveryPacketOnce) { gbn_delivers_everything_once("gbn"); }
TEST(Lossy, SimpleGoBackNDeliversEveryPacketOnce) { gbn_delivers_everything_once("simple_gbn"); }

}  // namespace
}  // namespace ibcc::net
