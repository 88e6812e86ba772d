// The CC regimes' classes alone, behind their interfaces: every cc.marking and cc.reaction
// name has a class in the registry; each marking point and reaction point does its part of
// the loop without a switch or an HCA around it (FecnMarking, EcnMarking, CctiReaction,
// DcqcnReaction, NoReaction).
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "net/fabric/ccti_reaction.h"
#include "net/fabric/dcqcn_reaction.h"
#include "net/fabric/ecn_marking.h"
#include "net/fabric/fecn_marking.h"
#include "net/fabric/nvidia_marking.h"
#include "net/fabric/switch.h"
#include "net/scenario/scenario_yaml.h"
#include "tests/net/base_scenario.h"
#include "tests/net/node_bench.h"

namespace ibcc::net {
namespace {

using testing::base_text;
using testing::bench;

constexpr unsigned kS1 = 0;  // base.yaml: S1 port 1 faces H1, port 4 faces S2
constexpr unsigned kH1 = 2;

std::unique_ptr<NodeContext> switch_bench(const Scenario& s) {
  return bench(s, kS1, [](NodeContext& c, unsigned n) { return std::make_unique<Switch>("S1", c, n, 4); });
}

// Collects what a notification point sends.
struct Out final : NotificationOut {
  std::vector<Cnp> cnps;
  std::vector<uint64_t> wakes;
  void queue_cnp(const Cnp& c) override { cnps.push_back(c); }
  void wake(uint64_t cycle) override { wakes.push_back(cycle); }
};

IbExtension marked_data(ibcc::net::Lid slid, uint32_t qp) {
  IbExtension e;
  e.slid = slid;
  e.dlid = 9;
  e.qp = qp;
  e.opcode = Opcode::kData;
  e.fecn = true;
  e.flow = 3;
  return e;
}

TEST(Regimes, EveryNameHasAClass) {
  for (const auto& m : kMarkings) {
    bool found = false;
    for (const MarkingClass& c : marking_classes()) found |= std::string(c.name) == m.name;
    EXPECT_TRUE(found) << "cc.marking: " << m.name;
  }
  for (const auto& r : kReactions) {
    bool found = false;
    for (const ReactionClass& c : reaction_classes()) found |= std::string(c.name) == r.name;
    EXPECT_TRUE(found) << "cc.reaction: " << r.name;
  }
  EXPECT_EQ(marking_classes().size(), std::size(kMarkings)) << "a class no scenario can name";
  EXPECT_EQ(reaction_classes().size(), std::size(kReactions));
  const Scenario s = load_scenario_text(base_text(), "base.yaml", {});
  auto ctx = switch_bench(s);
  EXPECT_THROW(make_marking("red", MarkingSetup{*ctx, kS1, 4, 2, 64, 256, 1, nullptr, nullptr}), std::invalid_argument);
  EXPECT_THROW(make_reaction("timely", ReactionSetup{*ctx, kH1, 1.0, 1.0, 256, nullptr}), std::invalid_argument);
}

TEST(Regimes, FecnMarkingMarksDataOfACongestedVlOnly) {
  // Threshold 15 trips at 1/16 of the buffer; Marking_Rate 0 marks every eligible packet;
  // Packet_Size 0 makes every size eligible. Port 4 faces a switch (no Victim_Mask).
  const Scenario s = load_scenario_text(base_text(), "base.yaml",
                                        {{"cc.switch", "{threshold: 15, marking_rate: 0, packet_size: 0}"}});
  auto ctx = switch_bench(s);
  std::vector<std::string> notes;
  const MarkingSetup setup{*ctx, kS1, 4, 2, 64, 256, 1, nullptr, [&](const std::string& n) { notes.push_back(n); }};
  std::unique_ptr<MarkingPoint> m = make_marking("fecn", setup);
  ASSERT_NE(dynamic_cast<FecnMarking*>(m.get()), nullptr);
  EXPECT_TRUE(m->watches().voq_fill);
  EXPECT_FALSE(m->watches().egress_bytes);
  m->set_credits(0, 0, 64);
  MarkingPoint::Departure d{0, 0, 1, 9, 33, true, 0};
  EXPECT_FALSE(m->depart(10, d)) << "an empty VoQ: not congested";
  m->set_fill(20, 1, 0, 40);  // 40 of 64 credits: above 1/16
  EXPECT_EQ(m->cong_state(), 0u) << "seen from the next edge on";
  d.data = false;
  EXPECT_FALSE(m->depart(30, d)) << "an ACK or CNP is never marked";
  d.data = true;
  EXPECT_TRUE(m->depart(31, d));
  EXPECT_EQ(m->cong_state(), 1u) << "VL 0 congested";
  d.vl = 1;
  EXPECT_FALSE(m->depart(32, d)) << "another VL is not congested";
  const MarkingPoint::Sample s0 = m->take_sample(40, 0, 0);
  EXPECT_TRUE(s0.congested);
  EXPECT_EQ(s0.marks, 1u) << "the ACK's departure is no mark";
  EXPECT_GT(s0.congested_edges, 0u);
  EXPECT_EQ(m->take_sample(40, 0, 0).marks, 0u) << "a sample resets the counts";
  EXPECT_TRUE(notes.empty()) << notes.front();
}

TEST(Regimes, FecnMarkingNotesAThresholdNoVoqCanReach) {
  // Threshold 1 trips at 15/16 of 64 credits (60); a VoQ of 2 KiB + header packets (33
  // credits) holds at most 33.
  const Scenario s = load_scenario_text(base_text(), "base.yaml", {{"cc.switch", "{threshold: 1}"}, {"fabric.mtu", "2048"}});
  auto ctx = switch_bench(s);
  std::vector<std::string> notes;
  make_marking("fecn", MarkingSetup{*ctx, kS1, 4, 2, 64, 256, 1, nullptr, [&](const std::string& n) { notes.push_back(n); }});
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("cc.switch.threshold 1 trips at 60"), std::string::npos) << notes[0];
}

TEST(Regimes, EcnMarkingFollowsItsEgressQueue) {
  // Kmin 10 KB, Kmax 20 KB, Pmax 1: nothing below Kmin, every data packet above Kmax.
  const Scenario s = load_scenario_text(base_text(), "base.yaml",
                                        {{"cc.marking", "ecn"}, {"cc.ecn", "{kmin: 10KB, kmax: 20KB, pmax: 1}"}});
  auto ctx = switch_bench(s);
  std::unique_ptr<MarkingPoint> m = make_marking("ecn", MarkingSetup{*ctx, kS1, 4, 2, 64, 256, 7, nullptr, nullptr});
  ASSERT_NE(dynamic_cast<EcnMarking*>(m.get()), nullptr);
  EXPECT_TRUE(m->watches().egress_bytes);
  EXPECT_FALSE(m->watches().voq_fill);
  MarkingPoint::Departure d{0, 0, 1, 9, 33, true, 5000};
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(m->depart(0, d));
  d.egress_bytes = 30000;
  EXPECT_TRUE(m->depart(0, d));
  d.data = false;
  EXPECT_FALSE(m->depart(0, d)) << "only data carries the mark";
  MarkingPoint::Sample st = m->take_sample(0, 0, 15000);
  EXPECT_EQ(st.marks, 1u);
  EXPECT_TRUE(st.congested) << "above Kmin";
  st = m->take_sample(0, 0, 9000);
  EXPECT_EQ(st.marks, 0u);
  EXPECT_FALSE(st.congested);
}

TEST(Regimes, NvidiaMarkingFollowsTheAverageOfItsVoqs) {
  // aqs_weight 1 (half the way per sample), one sample per 100 cycles (400 ns at 250 MHz);
  // VL 0: 10 % between 10 KB and 20 KB; VL 1 its own profile, 100 % from 1 KB to 2 KB.
  const Scenario s = load_scenario_text(
      base_text(), "base.yaml",
      {{"cc.marking", "nvidia"},
       {"cc.nvidia", "{aqs_weight: 1, aqs_time: 400ns, profile: {percent: 10, min: 10KB, max: 20KB}, "
                     "vl_profiles: [{vl: 1, percent: 100, min: 1KB, max: 2KB}]}"}});
  auto ctx = switch_bench(s);
  std::unique_ptr<MarkingPoint> m = make_marking("nvidia", MarkingSetup{*ctx, kS1, 4, 2, 64, 256, 7, nullptr, nullptr});
  auto* nv = dynamic_cast<NvidiaMarking*>(m.get());
  ASSERT_NE(nv, nullptr);
  EXPECT_TRUE(m->watches().voq_fill);
  EXPECT_EQ(nv->core().params().period_cycles, 100u);
  // Two inputs' VoQs for VL 0 hold 300 and 200 credits (32,000 bytes): the average reaches
  // 16,000 bytes at the first sample, 24,000 at the second.
  m->set_fill(0, 0, 0, 300);
  m->set_fill(0, 1, 0, 200);
  MarkingPoint::Departure d{0, 0, 1, 9, 33, true, 0};
  EXPECT_EQ(m->take_sample(99, 0, 0).congested, false) << "no sample yet";
  m->take_sample(100, 0, 0);
  EXPECT_EQ(nv->core().average_bytes(0), 16000u);
  EXPECT_EQ(nv->core().probability_q16(0), (16000u - 10000u) * (65536u * 10 / 100) / 10000u);  // 60 % of the way to 10 %
  m->take_sample(200, 0, 0);
  EXPECT_EQ(nv->core().average_bytes(0), 24000u);
  EXPECT_TRUE(m->depart(200, d)) << "above max: every data packet";
  d.data = false;
  EXPECT_FALSE(m->depart(200, d)) << "only data carries the mark";
  // VL 1 with 20 credits (1,280 bytes), its own profile: 28 % of the way to 2 KB at 100 %.
  m->set_fill(200, 0, 1, 20);
  m->take_sample(300, 1, 0);
  EXPECT_EQ(nv->core().average_bytes(1), 640u);
  m->take_sample(400, 1, 0);
  EXPECT_EQ(nv->core().average_bytes(1), 960u);
  EXPECT_EQ(m->cong_state(), 1u) << "VL 1's average is still below its min";
  // Meanwhile VL 0 went on averaging (28,000 and 30,000 bytes at cycles 300 and 400). An
  // input's VoQ drains: the sum falls to 12,800 bytes, and the average with it.
  EXPECT_EQ(nv->core().average_bytes(0), 30000u);
  m->set_fill(400, 0, 0, 0);
  MarkingPoint::Sample st = m->take_sample(500, 0, 0);
  EXPECT_EQ(nv->core().average_bytes(0), (30000u + 12800u) / 2);
  EXPECT_EQ(st.marks, 1u);
  EXPECT_TRUE(st.congested);
}

TEST(Regimes, CctiReactionRaisesTheCctiAndSpacesTheFlow) {
  const Scenario s = load_scenario_text(base_text(), "base.yaml",
                                        {{"cc.ca", "{ccti_timer: 150, ccti_increase: 4, ccti_limit: 127, becn: ack}"}});
  auto ctx = switch_bench(s);
  std::unique_ptr<ReactionPoint> r = make_reaction("ibcc", ReactionSetup{*ctx, kH1, 1.0, 1.0, 256, nullptr});
  ASSERT_NE(dynamic_cast<CctiReaction*>(r.get()), nullptr);
  EXPECT_TRUE(r->becn_in_ack());
  EXPECT_FALSE(r->needs_credit_events());
  const uint32_t qp = 5;
  EXPECT_EQ(r->paced_until(qp, 0), 0u);
  ReactionPoint::Gap g = r->gap(100, qp, 0);
  EXPECT_EQ(g.ccti, 0u);
  r->sent(100, qp, 0, 2074, 2174, g, 0, nullptr);
  EXPECT_EQ(r->paced_until(qp, 0), 2174u + g.ird);
  IbExtension becn = marked_data(1, qp);
  becn.opcode = Opcode::kCnp;
  becn.becn = true;
  r->becn(200, becn, 1, nullptr);
  EXPECT_EQ(r->ccti(210, qp, 0), 4u);
  g = r->gap(300, qp, 0);
  EXPECT_EQ(g.ccti, 4u);
  EXPECT_GT(g.ird, 0u) << "the CCT's entry 4 delays the next packet";
  Out out;
  r->fecn(400, marked_data(7, 12), out);
  ASSERT_EQ(out.cnps.size(), 1u) << "every FECN answered at once";
  EXPECT_EQ(out.cnps[0].dlid, 7u);
  EXPECT_EQ(out.cnps[0].qp, 12u);
  EXPECT_EQ(out.cnps[0].flow, 3);
  r->issue_due(500, out);
  EXPECT_EQ(out.cnps.size(), 1u);
  EXPECT_FALSE(r->rate_kbps(500, qp));
}

TEST(Regimes, DcqcnReactionAnswersOncePerIntervalAndCutsTheRate) {
  const Scenario s = load_scenario_text(base_text(), "base.yaml",
                                        {{"fabric.flow_control", "pfc"}, {"cc.marking", "ecn"}, {"cc.reaction", "dcqcn"},
                                         {"cc.dcqcn", "{cnp_interval: 10us, cnp_generation: 1us}"}});
  auto ctx = switch_bench(s);
  const double cpb = 8.0 * 1e12 / 8e9 / static_cast<double>(ctx->ps_per_cycle());  // 8 Gb/s
  std::unique_ptr<ReactionPoint> r = make_reaction("dcqcn", ReactionSetup{*ctx, kH1, cpb, cpb, 256, nullptr});
  ASSERT_NE(dynamic_cast<DcqcnReaction*>(r.get()), nullptr);
  EXPECT_TRUE(r->needs_credit_events());
  EXPECT_FALSE(r->becn_in_ack());
  EXPECT_FALSE(r->ccti(0, 1, 0));
  const uint32_t qp = 2;
  const uint64_t line = *r->rate_kbps(0, qp);
  EXPECT_EQ(line, 8'000'000u);
  Out out;
  const uint64_t interval = ctx->cycles(10'000'000), gen = ctx->cycles(1'000'000);
  r->fecn(1000, marked_data(7, qp), out);
  r->issue_due(1000, out);
  ASSERT_EQ(out.cnps.size(), 1u) << "the generator is free: at once";
  EXPECT_EQ(out.cnps[0].dlid, 7u);
  EXPECT_EQ(out.cnps[0].interval_cycles, interval);
  r->fecn(1001, marked_data(8, qp), out);  // another flow, while the generator is busy
  r->issue_due(1001, out);
  EXPECT_EQ(out.cnps.size(), 1u);
  ASSERT_EQ(out.wakes.size(), 1u) << "the HCA is woken when the generator is free";
  EXPECT_EQ(out.wakes[0], 1000 + gen);
  r->issue_due(1000 + gen, out);
  ASSERT_EQ(out.cnps.size(), 2u);
  EXPECT_EQ(out.cnps[1].dlid, 8u);
  r->fecn(1000 + interval / 2, marked_data(7, qp), out);
  r->issue_due(1000 + interval / 2 + gen, out);
  EXPECT_EQ(out.cnps.size(), 2u) << "the first flow again inside its interval: no CNP";
  r->fecn(1000 + interval, marked_data(7, qp), out);
  r->issue_due(1000 + interval, out);
  EXPECT_EQ(out.cnps.size(), 3u) << "after its interval";
  IbExtension cnp = marked_data(1, qp);
  cnp.opcode = Opcode::kCnp;
  cnp.becn = true;
  r->becn(5000, cnp, 1, nullptr);
  EXPECT_LT(*r->rate_kbps(5000, qp), line) << "a CNP cuts the rate";
  r->sent(6000, qp, 0, 2074, 6000 + 2074, {}, 0, nullptr);
  EXPECT_GT(r->paced_until(qp, 0), 6000u + static_cast<uint64_t>(2074 * cpb)) << "paced below line rate";
}

TEST(Regimes, NoReactionDoesNothing) {
  NoReaction r;
  Out out;
  r.fecn(1, marked_data(1, 1), out);
  r.issue_due(2, out);
  EXPECT_TRUE(out.cnps.empty());
  EXPECT_EQ(r.paced_until(1, 0), 0u);
  EXPECT_EQ(r.gap(1, 1, 0).ird, 0u);
  EXPECT_FALSE(r.ccti(1, 1, 0));
  EXPECT_FALSE(r.rate_kbps(1, 1));
}

}  // namespace
}  // namespace ibcc::net
