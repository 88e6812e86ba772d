// The HCA CCTI block against IBCC_SPEC section 3 and the choices named in docs/cc_blocks.md:
// BECN increase and clamp, the per-SL timer (hfi1 semantics), CCTI_Min, QP- and SL-based
// control, Trigger_Threshold events, the CCT index range and both IRD formulas.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "cc/ccti_block.h"
#include "cc/ccti_block_regs.h"

namespace {

namespace r = ibcc::regs::ccti_block;
using ibcc::cc::CctiBlock;
using ibcc::cc::CctiBlockInputs;
using ibcc::cc::CctiBlockParams;

constexpr uint32_t kTick = 8;

class CctiBlockTest : public ::testing::Test {
 protected:
  CctiBlockTest() : b(params()) {
    write(r::kCaSettingOffset, r::kCaSettingControlMap.put(0xffff));  // QP-based, all SLs on
    write(r::kCctLimitOffset, r::kCctLimitCctiLimit.put(127));
    for (uint32_t k = 0; k < 64; ++k) {
      // entry i = shift 0, multiplier i + 1 (distinct, nonzero)
      write(r::kCctEntryPairOffset + 4 * k, ((2 * k + 1) << 16) | (2 * k + 2));
    }
  }
  static CctiBlockParams params() {
    CctiBlockParams p;
    p.num_qps = 64;
    p.cct_entries = 128;
    p.tick_cycles = kTick;
    return p;
  }
  void write(uint32_t addr, uint32_t v) { ASSERT_TRUE(b.write_csr(addr, v, 0xf)) << std::hex << addr; }
  void sl_setting(unsigned sl, uint32_t timer, uint32_t increase, uint32_t trigger = 0, uint32_t min = 0) {
    write(r::kCaSlTimerOffset + sl * r::kCaSlTimerStride,
          r::kCaSlTimerCctiTimer.put(timer) | r::kCaSlTimerCctiIncrease.put(increase) |
              r::kCaSlTimerTriggerThreshold.put(trigger));
    write(r::kCaSlMinOffset + sl * r::kCaSlMinStride, r::kCaSlMinCctiMin.put(min));
  }
  // A BECN arrives at one edge and is applied at the next: two edges.
  void becn(uint32_t qp, uint32_t sl) {
    arrive(qp, sl);
    idle(1);
  }
  void arrive(uint32_t qp, uint32_t sl) {
    CctiBlockInputs in;
    in.becn_valid = true;
    in.becn_qp = qp;
    in.becn_sl = sl;
    in.becn_rqpn = 0x123456;
    in.becn_rlid = 0x42;
    in.becn_llid = 0x17;
    in.becn_st = 1;
    b.step(in);
  }
  void idle(uint64_t cycles) {
    CctiBlockInputs in;
    for (uint64_t i = 0; i < cycles; ++i) b.step(in);
  }
  CctiBlock b;
};

TEST_F(CctiBlockTest, BecnRaisesByIncreaseAndClampsAtLimit) {
  sl_setting(3, 0, 5);
  write(r::kCctLimitOffset, r::kCctLimitCctiLimit.put(12));
  becn(7, 3);
  EXPECT_EQ(b.ccti(7), 5u);
  becn(7, 3);
  EXPECT_EQ(b.ccti(7), 10u);
  becn(7, 3);
  EXPECT_EQ(b.ccti(7), 12u) << "clamped at CCTI_Limit";
  EXPECT_TRUE(b.events().becn_at_limit);
  EXPECT_EQ(b.ccti(8), 0u) << "other QPs untouched";
}

TEST_F(CctiBlockTest, LimitBeyondTheTableActsAsLastEntry) {
  write(r::kCctLimitOffset, r::kCctLimitCctiLimit.put(0xffff));
  EXPECT_EQ(b.effective_limit(), 127u);
  sl_setting(0, 0, 200);
  becn(1, 0);
  EXPECT_EQ(b.ccti(1), 127u);
}

TEST_F(CctiBlockTest, TimerDecrementsToMinAndStops) {
  sl_setting(2, 3, 4, 0, 2);  // timer 3 ticks, +4, min 2
  idle(kTick - 2);             // the BECN arrives at the next edge, applied at a tick edge
  becn(9, 2);                  // arms the timer (count 3) at a tick edge: no decrement yet
  EXPECT_EQ(b.ccti(9), 6u) << "from the floor CCTI_Min 2, +4";
  EXPECT_TRUE(b.timer_running(2));
  // Ticks come every kTick edges; the 3rd tick after arming is the expiry.
  idle(3 * kTick - 1);
  EXPECT_EQ(b.ccti(9), 6u);
  idle(1);
  EXPECT_EQ(b.ccti(9), 5u) << "first expiry";
  EXPECT_TRUE(b.timer_running(2)) << "re-armed: 5 > min 2";
  idle(9 * kTick);
  EXPECT_EQ(b.ccti(9), 2u);
  EXPECT_FALSE(b.timer_running(2)) << "at CCTI_Min: the timer goes idle";
  idle(10 * kTick);
  EXPECT_EQ(b.ccti(9), 2u) << "never below CCTI_Min";
}

// IBCC_SPEC section 1: "CCTI never goes below CCTI_Min" -- so the floor holds from the start,
// and the first BECN raises a flow from CCTI_Min, not from its reset value 0 (else the first
// CCTI_Min / CCTI_Increase BECNs would change nothing a lookup sees).
TEST_F(CctiBlockTest, CctiMinIsTheFloorFromTheStart) {
  sl_setting(1, 0, 1, 0, 10);  // no timer, +1, min 10
  write(r::kMtuTxCyclesOffset, 1000);
  EXPECT_EQ(b.ird_now(5, 1), 1000u * 11u) << "entry 10 (multiplier 11) before any BECN";
  becn(5, 1);
  EXPECT_EQ(b.ccti(5), 11u) << "the first BECN raises the flow from CCTI_Min 10";
  EXPECT_EQ(b.ird_now(5, 1), 1000u * 12u) << "and its delay with it";
  becn(5, 1);
  EXPECT_EQ(b.ccti(5), 12u);
  // A CCTI_Min raised above a flow's CCTI lifts it at its next BECN too.
  sl_setting(1, 0, 1, 0, 20);
  becn(5, 1);
  EXPECT_EQ(b.ccti(5), 21u);
  // Clamped at CCTI_Limit like any increase, also when CCTI_Min lies above it.
  write(r::kCctLimitOffset, r::kCctLimitCctiLimit.put(15));
  becn(6, 1);
  EXPECT_EQ(b.ccti(6), 15u);
}

TEST_F(CctiBlockTest, RunningTimerIsNotRestartedByBecn) {
  sl_setting(1, 4, 1);
  idle(kTick - 2);
  becn(0, 1);  // armed with 4 at a tick edge
  idle(2 * kTick);
  const uint32_t count = b.timer_count(1);
  becn(0, 1);  // no restart
  EXPECT_EQ(b.timer_count(1), count);
  idle(2 * kTick - 2);
  EXPECT_EQ(b.ccti(0), 1u) << "expired 4 ticks after the first BECN, not the second";
}

TEST_F(CctiBlockTest, QpBasedTimerDecrementsEveryQpOfItsSl) {
  sl_setting(4, 1, 3);
  sl_setting(5, 0, 3);  // SL 5 timer 0: never expires
  becn(10, 4);  // applied at edge 2: arms SL 4 (1 tick)
  becn(11, 4);  // edge 4
  becn(12, 5);  // edge 6
  idle(kTick - 6);  // through edge 8, the first tick: SL 4 expires once
  EXPECT_EQ(b.ccti(10), 2u);
  EXPECT_EQ(b.ccti(11), 2u);
  EXPECT_EQ(b.ccti(12), 3u) << "another SL's QP keeps its CCTI";
  EXPECT_EQ(b.flow_sl(12), 5u);
}

TEST_F(CctiBlockTest, SlBasedControlKeepsOneCctiPerSl) {
  write(r::kCaSettingOffset, r::kCaSettingPortControl.put(1) | r::kCaSettingControlMap.put(0xffff));
  sl_setting(6, 0, 2);
  becn(33, 6);
  becn(40, 6);
  EXPECT_EQ(b.ccti(6), 4u) << "flow = SL 6 whatever the QP";
  EXPECT_EQ(b.ccti(33), 0u);
}

TEST_F(CctiBlockTest, ControlMapOffIgnoresBecnAndGivesNoDelay) {
  write(r::kCaSettingOffset, r::kCaSettingControlMap.put(0xfffe));  // SL 0 off
  sl_setting(0, 0, 9);
  becn(3, 0);
  EXPECT_EQ(b.ccti(3), 0u);
  EXPECT_TRUE(b.events().becn_disabled_sl);
  EXPECT_EQ(b.ird_now(3, 0), 0u);
}

TEST_F(CctiBlockTest, TriggerThresholdLogsCrossings) {
  sl_setting(7, 0, 2, 5);
  becn(20, 7);  // 2
  becn(20, 7);  // 4
  EXPECT_EQ(b.log_count(), 0u);
  becn(20, 7);  // 6: crosses 5
  EXPECT_TRUE(b.events().trigger);
  becn(20, 7);  // 8: already above
  EXPECT_EQ(b.log_count(), 1u);
  uint32_t v = 0;
  // The IBA CongestionLogEvent layout (libibmad's; verif/rtl/check_ibmad_layout.py): word 0
  // local QP 31:8, SL 7:4, service type 3:0; word 1 remote QP; word 2 local LID 31:16,
  // remote LID 15:0.
  ASSERT_TRUE(b.read_csr(r::kLogEventLqpnOffset, &v));
  EXPECT_EQ(v, (20u << 8) | (7u << 4) | 1u);
  ASSERT_TRUE(b.read_csr(r::kLogEventRqpnOffset, &v));
  EXPECT_EQ(v, 0x123456u << 8);
  ASSERT_TRUE(b.read_csr(r::kLogEventLidsOffset, &v));
  EXPECT_EQ(v, (0x17u << 16) | 0x42u);
  ASSERT_TRUE(b.read_csr(r::kLogEventMapOffset, &v));
  EXPECT_EQ(r::kLogEventMapEventMap.get(v), 1u << 7);
  for (uint32_t qp = 30; qp < 45; ++qp) {
    for (int i = 0; i < 3; ++i) becn(qp, 7);
  }
  EXPECT_EQ(b.log_count(), 13u) << "the 13 most recent";
  ASSERT_TRUE(b.read_csr(r::kLogHeaderOffset, &v));
  EXPECT_EQ(r::kLogHeaderThresholdEventCounter.get(v), 16u);
  ASSERT_TRUE(b.read_csr(r::kLogEventLqpnOffset, &v));
  EXPECT_EQ(r::kLogEventLqpnLocalQpn.get(v), 44u);
}

TEST_F(CctiBlockTest, IrdFormulasAndIndexRange) {
  write(r::kMtuTxCyclesOffset, 1000);
  // Entry 5: shift 2, multiplier 7.
  write(r::kCctEntryPairOffset + 4 * 2, (uint32_t{2u << 14 | 7u} ) | (5u << 16));
  sl_setting(0, 0, 5);
  becn(1, 0);  // CCTI 5
  EXPECT_EQ(b.ird_now(1, 0), (1000u >> 2) * 7u) << "omnipath: (T >> shift) * multiplier";
  write(r::kImplCtrlOffset, 1);
  EXPECT_EQ(b.ird_now(1, 0), 7u << 2) << "shift_left: multiplier << shift";
  write(r::kImplCtrlOffset, 0);
  EXPECT_EQ(b.ird_now(2, 0), 1000u * 1u) << "CCTI 0: entry 0 (multiplier 1)";
  sl_setting(0, 0, 5, 0, 3);
  EXPECT_EQ(b.ird_now(2, 0), 1000u * 4u) << "CCTI_Min 3 floors the index";
  write(r::kCctLimitOffset, r::kCctLimitCctiLimit.put(2));
  EXPECT_EQ(b.ird_now(2, 0), 1000u * 3u) << "the index never passes CCTI_Limit";
}

TEST_F(CctiBlockTest, BecnTakesEffectAtTheNextEdge) {
  sl_setting(0, 0, 3);
  arrive(4, 0);
  EXPECT_EQ(b.ccti(4), 0u) << "registered, not yet applied";
  EXPECT_FALSE(b.events().becn);
  arrive(4, 0);  // back to back on one flow: the RTL forwards the first's write
  EXPECT_EQ(b.ccti(4), 3u);
  EXPECT_TRUE(b.events().becn);
  idle(1);
  EXPECT_EQ(b.ccti(4), 6u);
  EXPECT_EQ(b.becn_count(), 2u);
}

TEST_F(CctiBlockTest, RegisteredLookupAnswersTwoEdgesLater) {
  sl_setting(0, 0, 3);
  becn(4, 0);
  CctiBlockInputs in;
  in.query_qp = 4;
  in.query_sl = 0;
  const auto& out = b.step(in);  // the query's word is read
  EXPECT_EQ(out.ccti, 0u) << "still the answer for the earlier query (flow 0)";
  b.step(CctiBlockInputs{});     // its IRD is looked up
  EXPECT_EQ(out.ccti, 3u);
  EXPECT_EQ(out.ird, b.ird_now(4, 0));
}

TEST_F(CctiBlockTest, FlowWindowReadsTheDecayedCcti) {
  sl_setting(3, 1, 6, 0, 1);  // timer 1 tick, +6, min 1
  becn(9, 3);
  uint32_t v = 0;
  ASSERT_TRUE(b.read_csr(r::kFlowCctiOffset + 4 * 9, &v));
  EXPECT_EQ(r::kFlowCctiCcti.get(v), 7u) << "from the floor CCTI_Min 1, +6";
  EXPECT_EQ(r::kFlowCctiSl.get(v), 3u);
  idle(3 * kTick);  // three expiries
  ASSERT_TRUE(b.read_csr(r::kFlowCctiOffset + 4 * 9, &v));
  EXPECT_EQ(r::kFlowCctiCcti.get(v), 4u);
  idle(10 * kTick);
  EXPECT_EQ(b.ccti(9), 1u) << "floored at CCTI_Min";
  EXPECT_FALSE(b.timer_running(3));
  b.reset();
  EXPECT_EQ(b.ccti(9), 0u) << "a reset forgets the flows";
  ASSERT_TRUE(b.read_csr(r::kFlowCctiOffset + 4 * 9, &v));
  EXPECT_EQ(v, 0u);
}

// The lazy decay (a stamp per flow, an expiry count and a height per SL) against the eager
// rule of IBCC_SPEC section 3 (every flow of the SL above CCTI_Min drops by one at each
// expiry; the timer re-arms while one stays above): equal while CCTI_Min is constant and
// each flow keeps its SL, as in a fabric.
TEST_F(CctiBlockTest, LazyDecayEqualsTheEagerRule) {
  const uint32_t mins[4] = {0, 2, 5, 1};
  for (unsigned sl = 0; sl < 4; ++sl) sl_setting(sl, 1 + sl, 1 + sl % 3, 0, mins[sl]);
  std::vector<uint32_t> ref(64, 0);
  uint32_t seed = 12345;
  auto rnd = [&seed] { seed = seed * 1103515245u + 12345u; return seed >> 8; };
  bool pending = false;
  uint32_t pend_flow = 0;
  unsigned expiries = 0, decrements = 0;
  for (int edge = 0; edge < 200000; ++edge) {
    CctiBlockInputs in;
    if (rnd() % 100 < 3) {
      in.becn_valid = true;
      in.becn_qp = rnd() % 64;
      in.becn_sl = in.becn_qp % 4;  // each flow keeps its SL
    }
    in.query_qp = rnd() % 64;
    in.query_sl = in.query_qp % 4;
    const auto& out = b.step(in);
    // Eager: this edge's expiries first, then the BECN registered at the last edge.
    for (unsigned f = 0; f < 64; ++f) {
      const unsigned sl = f % 4;
      if (((out.timer_expired >> sl) & 1u) && ref[f] > mins[sl]) {
        --ref[f];
        ++decrements;
      }
    }
    // (from CCTI_Min at the least: the floor holds from the start)
    if (pending) {
      ref[pend_flow] = std::min<uint32_t>(std::max(ref[pend_flow], mins[pend_flow % 4]) + 1 + (pend_flow % 4) % 3, 127);
    }
    pending = in.becn_valid;
    pend_flow = in.becn_qp;
    for (unsigned f = 0; f < 64; ++f) ASSERT_EQ(b.ccti(f), ref[f]) << "flow " << f << " edge " << edge;
    for (unsigned sl = 0; sl < 4; ++sl) {
      if (!((out.timer_expired >> sl) & 1u)) continue;
      ++expiries;
      bool above = false;
      for (unsigned f = sl; f < 64; f += 4) above = above || ref[f] > mins[sl];
      ASSERT_EQ(b.timer_running(sl), above) << "SL " << sl << " edge " << edge;
    }
  }
  EXPECT_GT(expiries, 1000u);
  EXPECT_GT(decrements, 10000u);
}

TEST(CctiBlockParams, BadParametersAreNamed) {
  CctiBlockParams p;
  p.num_qps = 48;
  try {
    CctiBlock b(p);
    FAIL() << "48 QPs accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("num_qps"), std::string::npos);
  }
}

}  // namespace
