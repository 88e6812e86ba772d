// The DCQCN cores: the congestion point's marking profile, the notification point's CNP
// pacing (per flow, the NIC's generator, DCQCN+'s adaptive interval) and the reaction
// point's rate cut and recovery, checked against values worked out by hand from the
// DCQCN paper's and the dissertation's rules; and the reaction point's lazy advance against
// stepping every cycle.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "cc/dcqcn_np.h"
#include "cc/dcqcn_rp.h"
#include "cc/ecn_marker.h"

namespace {

using ibcc::cc::DcqcnNp;
using ibcc::cc::DcqcnNpParams;
using ibcc::cc::DcqcnRp;
using ibcc::cc::DcqcnRpParams;
using ibcc::cc::DcqcnVariant;
using ibcc::cc::EcnMarker;
using ibcc::cc::EcnMarkerParams;

// --- congestion point -----------------------------------------------------------------------

TEST(EcnMarker, ProbabilityIsTheRedProfile) {
  EcnMarkerParams p;
  p.kmin_bytes = 1000;
  p.kmax_bytes = 5000;
  p.pmax_q16 = 6554;  // 10 %
  EcnMarker m(p);
  EXPECT_EQ(m.probability_q16(0), 0u);
  EXPECT_EQ(m.probability_q16(1000), 0u);
  EXPECT_EQ(m.probability_q16(3000), 3277u);  // half of Pmax, (2000 * 6554) / 4000
  EXPECT_EQ(m.probability_q16(5000), 6554u);
  EXPECT_EQ(m.probability_q16(5001), 65536u);
}

TEST(EcnMarker, MarkedFractionFollowsTheProfile) {
  EcnMarkerParams p;
  p.kmin_bytes = 0;
  p.kmax_bytes = 4000;
  p.pmax_q16 = 13107;  // 20 %
  p.num_priorities = 3;
  EcnMarker m(p);
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    m.depart(0, 3000);  // 3/4 of the way: 15 %
    m.depart(1, 0);     // empty queue: never
    m.depart(2, 9000);  // above Kmax: always
  }
  const double frac = static_cast<double>(m.counters(0).marked) / n;
  const double sigma = std::sqrt(0.15 * 0.85 / n);
  EXPECT_NEAR(frac, 0.15, 4 * sigma);
  EXPECT_EQ(m.counters(1).marked, 0u);
  EXPECT_EQ(m.counters(2).marked, static_cast<uint64_t>(n));
  EXPECT_EQ(m.counters(2).max_bytes, 9000u);
}

TEST(EcnMarker, BadParametersAreNamed) {
  EcnMarkerParams p;
  p.kmax_bytes = p.kmin_bytes;
  try {
    EcnMarker m(p);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("Kmax"), std::string::npos) << e.what();
  }
  p = {};
  p.pmax_q16 = 0;
  EXPECT_THROW(EcnMarker{p}, std::invalid_argument);
}

// --- notification point ---------------------------------------------------------------------

// Drains the CNPs due at `cycle`.
std::vector<DcqcnNp::Cnp> due(DcqcnNp& np, uint64_t cycle) {
  std::vector<DcqcnNp::Cnp> out;
  DcqcnNp::Cnp c;
  while (np.pop(cycle, &c)) out.push_back(c);
  return out;
}

TEST(DcqcnNp, OneCnpPerFlowPerInterval) {
  DcqcnNpParams p;
  p.min_interval_cycles = 100;
  p.gen_cycles = 0;
  DcqcnNp np(p);
  int sent = 0;
  for (uint64_t c = 0; c < 1000; ++c) {
    np.marked(7, c);
    for (const auto& cnp : due(np, c)) {
      EXPECT_EQ(cnp.flow, 7u);
      EXPECT_EQ(c % 100, 0u) << "cycle " << c;
      ++sent;
    }
  }
  EXPECT_EQ(sent, 10);
  EXPECT_EQ(np.counters().too_soon, 990u);
}

TEST(DcqcnNp, TheGeneratorServesWaitingFlowsInOrder) {
  DcqcnNpParams p;
  p.min_interval_cycles = 0;
  p.gen_cycles = 250;
  DcqcnNp np(p);
  for (unsigned f = 0; f < 10; ++f) np.marked(f, 1000);
  np.marked(3, 1001);  // already waiting: not queued twice
  EXPECT_EQ(np.counters().already_waiting, 1u);
  std::vector<unsigned> order;
  for (uint64_t c = 1000; c < 5000; ++c) {
    for (const auto& cnp : due(np, c)) {
      EXPECT_EQ(c, 1000u + 250u * order.size());
      order.push_back(cnp.flow);
    }
  }
  EXPECT_EQ(order, (std::vector<unsigned>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(np.next_due(), UINT64_MAX);
  EXPECT_EQ(np.counters().max_waiting, 10u);
}

// A fixed round-robin arrival order and a generator slower than the arrivals: every flow
// still gets its share of the CNPs.
TEST(DcqcnNp, CnpsAreFairUnderRoundRobinArrivals) {
  DcqcnNpParams p;
  p.min_interval_cycles = 0;
  p.gen_cycles = 250;
  DcqcnNp np(p);
  std::vector<int> got(8, 0);
  for (uint64_t c = 0; c < 2'000'000; ++c) {
    if (c % 210 == 0) np.marked(static_cast<unsigned>((c / 210) % 8), c);
    for (const auto& cnp : due(np, c)) ++got[cnp.flow];
  }
  const int total = 2'000'000 / 250;
  for (unsigned f = 0; f < 8; ++f) EXPECT_NEAR(got[f], total / 8, total / 80) << "flow " << f;
}

TEST(DcqcnNp, PlusIntervalGrowsWithTheIncast) {
  DcqcnNpParams p;
  p.variant = DcqcnVariant::kPlus;
  p.min_interval_cycles = 1000;
  p.gen_cycles = 100;
  p.active_window_cycles = 5000;
  DcqcnNp np(p);
  // 5 flows: 5 x 100 < 1000, the floor holds.
  for (unsigned f = 0; f < 5; ++f) np.marked(f, 10);
  EXPECT_EQ(np.active_flows(10), 5u);
  EXPECT_EQ(np.interval(10), 1000u);
  // 40 flows: 4000 cycles, and the CNP carries it.
  for (unsigned f = 5; f < 40; ++f) np.marked(f, 20);
  EXPECT_EQ(np.interval(20), 4000u);
  DcqcnNp::Cnp c;
  ASSERT_TRUE(np.pop(30, &c));
  EXPECT_EQ(c.interval_cycles, 4000u);
  // The first five leave the window at 5010, the rest at 5020.
  EXPECT_EQ(np.active_flows(5010), 35u);
  EXPECT_EQ(np.active_flows(5020), 0u);
  EXPECT_EQ(np.interval(5020), 1000u);
}

// --- reaction point -------------------------------------------------------------------------

DcqcnRpParams rp_params() {
  DcqcnRpParams p;
  p.core_clock_hz = 250'000'000;
  p.line_rate_kbps = 40'000'000;
  p.rate_timer_cycles = 1000;
  p.alpha_timer_cycles = 1000;
  p.byte_counter_bytes = 0;
  return p;
}

TEST(DcqcnRp, FirstCnpHalvesAtAlphaOne) {
  DcqcnRp rp(rp_params());
  EXPECT_EQ(rp.rate_kbps(0, 0), 40'000'000u);
  rp.cnp(0, 100);
  const auto& s = rp.state(0);
  EXPECT_EQ(s.rc_kbps, 20'000'000u);
  EXPECT_EQ(s.rt_kbps, 40'000'000u);
  EXPECT_EQ(s.alpha_q20, 1u << 20);  // (1 - g) + g
  EXPECT_EQ(s.next_rate, 1100u);
  EXPECT_EQ(s.next_alpha, 1100u);
}

TEST(DcqcnRp, FastRecoveryThenAdditiveIncrease) {
  DcqcnRp rp(rp_params());
  rp.cnp(0, 0);  // Rc 20 G, Rt 40 G
  rp.cnp(0, 1);  // Rt 20 G, Rc 20 G (1 - alpha/2) = 10 G
  EXPECT_EQ(rp.state(0).rt_kbps, 20'000'000u);
  EXPECT_EQ(rp.state(0).rc_kbps, 10'000'000u);
  // Five fast-recovery halvings of the distance to Rt: 20 G - 10 G / 32.
  EXPECT_EQ(rp.rate_kbps(0, 1 + 5 * 1000), 19'687'500u);
  EXPECT_EQ(rp.state(0).rt_kbps, 20'000'000u);
  // The sixth event is additive: Rt + 40 Mb/s, Rc halfway.
  EXPECT_EQ(rp.rate_kbps(0, 1 + 6 * 1000), (20'040'000u + 19'687'500u) / 2);
  EXPECT_EQ(rp.state(0).rt_kbps, 20'040'000u);
  // With no byte counter there is no hyper increase: the seventh adds R_AI again.
  rp.advance(0, 1 + 7 * 1000);
  EXPECT_EQ(rp.state(0).rt_kbps, 20'080'000u);
}

TEST(DcqcnRp, HyperIncreaseWhenTimerAndByteCounterBothPassF) {
  DcqcnRpParams p = rp_params();
  p.byte_counter_bytes = 1000;
  DcqcnRp rp(p);
  rp.cnp(0, 0);
  rp.cnp(0, 1);  // Rt 20 G, Rc 10 G
  // Six timer events (T = 0..5) with no bytes: five fast recovery, then additive (BC = 0).
  rp.advance(0, 1 + 6 * 1000);
  EXPECT_EQ(rp.state(0).timer_count, 6u);
  EXPECT_EQ(rp.state(0).rt_kbps, 20'040'000u);
  // Seven byte-counter events: BC = 0..4 with T = 6 are additive (max(T, BC) >= F, min < F
  // until BC passes F), BC = 5 additive, BC = 6 hyper with i = min(6, 6) - 5 = 1.
  rp.sent(0, 1 + 6 * 1000, 7000);
  EXPECT_EQ(rp.state(0).byte_count, 7u);
  EXPECT_EQ(rp.state(0).rt_kbps, 20'040'000u + 6 * 40'000u + 100'000u);
}

TEST(DcqcnRp, AlphaDecaysToZeroAndTheFlowGoesQuiet) {
  DcqcnRp rp(rp_params());
  rp.cnp(0, 0);
  rp.advance(0, 1000);
  EXPECT_EQ(rp.state(0).alpha_q20, (1u << 20) - 4096u);  // (1 - 1/256) alpha
  uint32_t last = rp.state(0).alpha_q20;
  for (uint64_t c = 2000; c < 10'000'000 && rp.state(0).next_alpha != DcqcnRp::kNever; c += 1000) {
    rp.advance(0, c);
    ASSERT_LT(rp.state(0).alpha_q20, last);
    last = rp.state(0).alpha_q20;
  }
  EXPECT_EQ(rp.state(0).alpha_q20, 0u);
  EXPECT_EQ(rp.state(0).next_alpha, DcqcnRp::kNever);
  EXPECT_EQ(rp.state(0).rc_kbps, 40'000'000u);  // recovered meanwhile
  EXPECT_EQ(rp.state(0).next_rate, DcqcnRp::kNever);
  // A CNP with alpha 0 cuts nothing, but alpha rises by g.
  rp.cnp(0, 20'000'000);
  EXPECT_EQ(rp.state(0).rc_kbps, 40'000'000u);
  EXPECT_EQ(rp.state(0).alpha_q20, (1u << 20) / 256);
}

TEST(DcqcnRp, OneCutPerReducePeriod) {
  DcqcnRpParams p = rp_params();
  p.reduce_period_cycles = 500;
  DcqcnRp rp(p);
  rp.cnp(0, 0);
  rp.cnp(0, 100);  // held back
  EXPECT_EQ(rp.state(0).cuts, 1u);
  EXPECT_EQ(rp.rate_kbps(0, 499), 20'000'000u);
  EXPECT_EQ(rp.rate_kbps(0, 500), 10'000'000u);  // cut at the end of the period
  EXPECT_EQ(rp.state(0).cuts, 2u);
  EXPECT_EQ(rp.state(0).last_cut, 500u);
}

TEST(DcqcnRp, MinimumRateHolds) {
  DcqcnRpParams p = rp_params();
  p.min_rate_kbps = 6'000'000;
  DcqcnRp rp(p);
  rp.cnp(0, 0);
  rp.cnp(0, 1);
  EXPECT_EQ(rp.state(0).rc_kbps, 10'000'000u);
  rp.cnp(0, 2);
  EXPECT_EQ(rp.state(0).rc_kbps, 6'000'000u);
}

// NVIDIA's cut parameters: Gd (rpg_gd = gd_log2 + 10) divides alpha's cut, rpg_min_dec_fac
// floors it, rate_to_set_on_first_cnp replaces the first cut.
TEST(DcqcnRp, CutDivisorAndFloor) {
  DcqcnRpParams p = rp_params();
  p.gd_log2 = 2;  // Rc (1 - alpha / 4)
  DcqcnRp quarter(p);
  quarter.cnp(0, 0);
  EXPECT_EQ(quarter.state(0).rc_kbps, 30'000'000u);
  p.gd_log2 = 0;  // Rc (1 - alpha): all of it at alpha 1, held by the floor
  p.min_dec_q16 = 65536 * 3 / 4;
  DcqcnRp floored(p);
  floored.cnp(0, 0);
  EXPECT_EQ(floored.state(0).rc_kbps, 30'000'000u);
  p.min_dec_q16 = 0;  // no floor: only the minimum rate holds it
  DcqcnRp whole(p);
  whole.cnp(0, 0);
  EXPECT_EQ(whole.state(0).rc_kbps, p.min_rate_kbps);
  p = rp_params();
  p.min_dec_q16 = 65536 / 2;  // at Gd 2 a cut never takes more than half: no effect
  DcqcnRp paper(p);
  DcqcnRp plain(rp_params());
  for (uint64_t c = 0; c < 5; ++c) {
    paper.cnp(0, c * 10);
    plain.cnp(0, c * 10);
    EXPECT_EQ(paper.state(0).rc_kbps, plain.state(0).rc_kbps);
  }
}

TEST(DcqcnRp, FirstCnpSetsTheRate) {
  DcqcnRpParams p = rp_params();
  p.first_cnp_rate_kbps = 5'000'000;
  DcqcnRp rp(p);
  rp.cnp(0, 0);
  EXPECT_EQ(rp.state(0).rc_kbps, 5'000'000u);
  EXPECT_EQ(rp.state(0).rt_kbps, 40'000'000u);
  rp.cnp(0, 1);  // the second cuts as usual: alpha stays 1, half
  EXPECT_EQ(rp.state(0).rc_kbps, 2'500'000u);
  p.first_cnp_rate_kbps = 80'000'000;  // above the rate: never raises it
  DcqcnRp above(p);
  above.cnp(0, 0);
  EXPECT_EQ(above.state(0).rc_kbps, 40'000'000u);
}

TEST(DcqcnRp, TransmitCyclesAtTheRate) {
  DcqcnRp rp(rp_params());
  EXPECT_EQ(rp.transmit_cycles(0, 0, 4096), 205u);  // 4096 B at 40 Gb/s, 250 MHz: 204.8
  rp.cnp(0, 0);
  EXPECT_EQ(rp.transmit_cycles(0, 0, 4096), 410u);  // 409.6 at 20 Gb/s
}

TEST(DcqcnRp, PlusPeriodFollowsTheCnpInterval) {
  DcqcnRpParams p = rp_params();
  p.variant = DcqcnVariant::kPlus;
  p.lambda_q8 = 512;  // 2
  p.mtu_bytes = 4096;
  DcqcnRp rp(p);
  rp.cnp(0, 0, 3000);  // Rc 20 G: MTU / Rc = 409.6 -> 410 cycles < tau
  EXPECT_EQ(rp.state(0).next_rate, 6000u);
  rp.cnp(0, 10, 100);  // Rc 10 G: MTU / Rc = 819.2 -> 820 > tau
  EXPECT_EQ(rp.state(0).next_rate, 10u + 1640u);
  // Increase steps: S = 0..4 fast, 5..20 min(Rc/10, R_l/100), above 4F hyper.
  rp.advance(0, 10 + 5 * 1640);  // periods change with Rc: just check the stage count moved
  EXPECT_GE(rp.state(0).timer_count, 5u);
}

TEST(DcqcnRp, PlusIncreaseSteps) {
  DcqcnRpParams p = rp_params();
  p.variant = DcqcnVariant::kPlus;
  p.line_rate_kbps = 100'000'000;
  p.rl_kbps = 10'000'000;  // R_l / 100 = 100 Mb/s
  p.lambda_q8 = 256;
  DcqcnRp rp(p);
  rp.cnp(0, 0, 1'000'000);  // tau dominates: K = 1,000,000 cycles
  rp.cnp(0, 1, 1'000'000);  // Rt 50 G, Rc 25 G
  ASSERT_EQ(rp.state(0).rt_kbps, 50'000'000u);
  ASSERT_EQ(rp.state(0).rc_kbps, 25'000'000u);
  const uint64_t k = 1'000'000;
  rp.advance(0, 1 + 5 * k);  // five fast recovery steps: Rt stays
  EXPECT_EQ(rp.state(0).rt_kbps, 50'000'000u);
  const uint64_t rc5 = rp.state(0).rc_kbps;
  EXPECT_EQ(rc5, 50'000'000u - 25'000'000u / 32);
  rp.advance(0, 1 + 6 * k);  // S = 5: + min(Rc / 10, R_l / 100) = 100 Mb/s
  EXPECT_EQ(rp.state(0).rt_kbps, 50'100'000u);
}

// Why DCQCN+ does not share a port fairly among flows that its NP paces alike: two flows at
// 156 and 312 Mb/s given the same CNPs at the same cycles (as the NP gives every flow of an
// incast one CNP per tau once marking is dense) keep their 1 : 2 ratio, because below R_l / 10
// every step of the rule scales with Rc (the cut by (1 - alpha / 2), fast recovery halfway to
// Rt, the additive step Rc / 10) and K is the same for both. DCQCN's additive step R_AI is
// the same for both flows, so under the same CNPs their ratio moves toward 1.
double ratio_after_equal_cnps(DcqcnVariant v) {
  DcqcnRpParams p = rp_params();
  p.variant = v;
  p.mtu_bytes = 1024;
  p.lambda_q8 = 794;               // 3.1: K = 3.1 x tau = 62,000 cycles (248 us)
  p.alpha_timer_cycles = 13750;    // 55 us
  p.rate_timer_cycles = 13750;     // DCQCN: 55 us
  p.ai_rate_kbps = 40'000;         // DCQCN: R_AI 40 Mb/s
  DcqcnRp rp(p);
  const uint64_t tau = 20'000;     // 80 us: the NP's interval for 80 flows at 1 CNP per us
  for (int i = 0; i < 8; ++i) rp.cnp(0, 0, tau);  // 40 G halved eight times at alpha 1: 156 Mb/s
  for (int i = 0; i < 7; ++i) rp.cnp(1, 0, tau);  // seven times: 312 Mb/s
  EXPECT_EQ(rp.state(0).rc_kbps * 2, rp.state(1).rc_kbps);
  EXPECT_EQ(rp.state(0).alpha_q20, rp.state(1).alpha_q20);
  // A CNP to both every 2 ms (500,000 cycles): 5 fast recovery and 3 additive steps in
  // between; six rounds leave both under R_l / 10 (4 Gb/s) and over MTU / tau (102 Mb/s).
  for (uint64_t c = 1; c <= 6; ++c) {
    rp.cnp(0, c * 500'000, tau);
    rp.cnp(1, c * 500'000, tau);
  }
  const uint64_t end = 7 * 500'000 - 1;
  if (v == DcqcnVariant::kPlus) EXPECT_LT(rp.rate_kbps(1, end), 4'000'000u);
  EXPECT_GE(rp.state(0).increases, 6u * 8u);  // both recovered in between
  return static_cast<double>(rp.rate_kbps(0, end)) / static_cast<double>(rp.rate_kbps(1, end));
}

TEST(DcqcnRp, PlusKeepsTheRatioOfFlowsPacedAlike) {
  const double plus = ratio_after_equal_cnps(DcqcnVariant::kPlus);
  const double dcqcn = ratio_after_equal_cnps(DcqcnVariant::kDcqcn);
  std::printf("rate ratio of the two flows after 6 equal CNPs: DCQCN+ %.4f, DCQCN %.4f (start 0.5)\n", plus, dcqcn);
  EXPECT_NEAR(plus, 0.5, 0.001);  // rounding only
  EXPECT_GT(dcqcn, 0.9);
}

TEST(DcqcnRp, BadParametersAreNamed) {
  DcqcnRpParams p = rp_params();
  p.min_rate_kbps = 0;
  EXPECT_THROW(DcqcnRp{p}, std::invalid_argument);
  p = rp_params();
  p.g_shift = 0;
  EXPECT_THROW(DcqcnRp{p}, std::invalid_argument);
  p = rp_params();
  p.rate_timer_cycles = 0;
  EXPECT_THROW(DcqcnRp{p}, std::invalid_argument);
  p = rp_params();
  p.gd_log2 = 17;
  EXPECT_THROW(DcqcnRp{p}, std::invalid_argument);
  p = rp_params();
  p.min_dec_q16 = 65537;
  EXPECT_THROW(DcqcnRp{p}, std::invalid_argument);
}

bool same(const DcqcnRp::FlowState& a, const DcqcnRp::FlowState& b) {
  return a.rc_kbps == b.rc_kbps && a.rt_kbps == b.rt_kbps && a.alpha_q20 == b.alpha_q20 &&
         a.timer_count == b.timer_count && a.byte_count == b.byte_count && a.bytes == b.bytes &&
         a.next_alpha == b.next_alpha && a.next_rate == b.next_rate && a.last_cut == b.last_cut &&
         a.cut_pending == b.cut_pending && a.tau_cycles == b.tau_cycles && a.cuts == b.cuts &&
         a.increases == b.increases && a.cnps == b.cnps;
}

// Advancing a flow only when something happens to it equals advancing it every cycle.
TEST(DcqcnRp, LazyAdvanceEqualsStepping) {
  for (const DcqcnVariant v : {DcqcnVariant::kDcqcn, DcqcnVariant::kPlus}) {
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      std::mt19937_64 rng(seed);
      DcqcnRpParams p = rp_params();
      p.variant = v;
      p.rate_timer_cycles = 50 + rng() % 200;
      p.alpha_timer_cycles = 50 + rng() % 200;
      p.byte_counter_bytes = rng() % 2 ? 20'000 : 0;
      p.reduce_period_cycles = rng() % 3 ? rng() % 300 : 0;
      p.g_shift = 4;  // alpha moves fast enough to reach 0 within the run
      if (seed > 3) {  // NVIDIA's cut parameters
        p.gd_log2 = static_cast<unsigned>(rng() % 3);
        p.min_dec_q16 = rng() % 2 ? 65536 / 3 : 0;
        p.first_cnp_rate_kbps = rng() % 2 ? 10'000'000 : 0;
      }
      DcqcnRp lazy(p), stepped(p);
      const unsigned flows = 4;
      for (uint64_t c = 0; c < 60'000; ++c) {
        for (unsigned f = 0; f < flows; ++f) stepped.advance(f, c);
        if (rng() % 700 == 0) {
          const unsigned f = rng() % flows;
          const uint64_t tau = rng() % 500;
          lazy.cnp(f, c, tau);
          stepped.cnp(f, c, tau);
        }
        if (rng() % 40 == 0) {
          const unsigned f = rng() % flows;
          const uint64_t bytes = 1 + rng() % 4096;
          lazy.sent(f, c, bytes);
          stepped.sent(f, c, bytes);
        }
      }
      for (unsigned f = 0; f < flows; ++f) {
        lazy.advance(f, 60'000);
        stepped.advance(f, 60'000);
        ASSERT_TRUE(same(lazy.state(f), stepped.state(f))) << "variant " << int(v) << " seed " << seed << " flow " << f;
        EXPECT_GT(lazy.state(f).cuts, 0u);
      }
    }
  }
}

TEST(DcqcnRp, AdvancingBackwardsIsAnError) {
  DcqcnRp rp(rp_params());
  rp.advance(0, 100);
  EXPECT_THROW(rp.advance(0, 99), std::logic_error);
}

}  // namespace
