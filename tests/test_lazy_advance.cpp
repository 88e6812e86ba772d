// Lazy advance equals cycle stepping: the network model advances idle CC blocks to the
// current cycle in one call (advance_idle); here random histories are replayed both ways
// and every register and output is compared.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "cc/ccti_block.h"
#include "cc/ccti_block_regs.h"
#include "cc/fecn_marker.h"
#include "cc/fecn_marker_regs.h"

namespace {

// Write one register of both copies.
template <typename Block>
void write_both(Block& a, Block& b, uint32_t addr, uint32_t value) {
  ASSERT_TRUE(a.write_csr(addr, value, 0xf));
  ASSERT_TRUE(b.write_csr(addr, value, 0xf));
}

template <typename Block>
void expect_same_registers(const Block& a, const Block& b, uint64_t seed, int round) {
  for (uint32_t addr = 0; addr < 4096; addr += 4) {
    uint32_t va = 0, vb = 0;
    const bool ra = a.read_csr(addr, &va);
    const bool rb = b.read_csr(addr, &vb);
    ASSERT_EQ(ra, rb);
    ASSERT_EQ(va, vb) << "register 0x" << std::hex << addr << std::dec << " seed " << seed << " round " << round;
  }
}

TEST(LazyAdvance, CctiBlockEqualsStepping) {
  namespace r = ibcc::regs::ccti_block;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    ibcc::cc::CctiBlockParams p;
    p.tick_cycles = 2 + rng() % 40;
    ibcc::cc::CctiBlock stepped(p), lazy(p);
    auto both_write = [&](uint32_t addr, uint32_t v) { write_both(stepped, lazy, addr, v); };
    both_write(r::kCaSettingOffset, r::kCaSettingPortControl.put(rng() % 2) | r::kCaSettingControlMap.put(0xffff));
    both_write(r::kCctLimitOffset, r::kCctLimitCctiLimit.put(rng() % 140));
    for (unsigned s = 0; s < 16; ++s) {
      both_write(r::kCaSlTimerOffset + 8 * s, r::kCaSlTimerCctiTimer.put(rng() % 6) |
                                                  r::kCaSlTimerCctiIncrease.put(1 + rng() % 8) |
                                                  r::kCaSlTimerTriggerThreshold.put(rng() % 30));
      both_write(r::kCaSlMinOffset + 8 * s, r::kCaSlMinCctiMin.put(rng() % 4));
    }
    for (int round = 0; round < 30; ++round) {
      ibcc::cc::CctiBlockInputs in;
      in.query_qp = rng() % 64;
      in.query_sl = rng() % 16;
      const unsigned burst = rng() % 6;
      for (unsigned k = 0; k < burst; ++k) {
        in.becn_valid = true;
        in.becn_qp = rng() % 64;
        in.becn_sl = rng() % 4;
        stepped.step(in);
        lazy.step(in);
      }
      in.becn_valid = false;
      const uint64_t idle = rng() % 3 == 0 ? rng() % 5 : rng() % (p.tick_cycles * 20);
      for (uint64_t i = 0; i < idle; ++i) stepped.step(in);
      lazy.advance_idle(in, idle);
      expect_same_registers(stepped, lazy, seed, round);
      for (unsigned s = 0; s < 16; ++s) ASSERT_EQ(stepped.timer_count(s), lazy.timer_count(s));
      const auto& a = stepped.outputs();
      const auto& b = lazy.outputs();
      ASSERT_EQ(a.ird, b.ird);
      ASSERT_EQ(a.ccti, b.ccti);
      ASSERT_EQ(a.timer_expired, b.timer_expired);
      ASSERT_EQ(a.trigger_event, b.trigger_event);
    }
  }
}

TEST(LazyAdvance, FecnMarkerEqualsStepping) {
  namespace r = ibcc::regs::fecn_marker;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    ibcc::cc::FecnMarkerParams p;
    p.tick_cycles = 2 + rng() % 300;
    ibcc::cc::FecnMarker stepped(p), lazy(p);
    auto both_write = [&](uint32_t addr, uint32_t v) { write_both(stepped, lazy, addr, v); };
    both_write(r::kSwSettingThresholdOffset, r::kSwSettingThresholdThreshold.put(rng() % 16));
    both_write(r::kImplCtrlOffset, r::kImplCtrlThresholdMapping.put(rng() % 3) |
                                       r::kImplCtrlMarkingMode.put(rng() % 2) | r::kImplCtrlHysteresis.put(rng() % 8));
    both_write(r::kSwSettingMarkingOffset, rng() % 4);
    ibcc::cc::FecnMarkerInputs in(p);
    for (int round = 0; round < 30; ++round) {
      for (auto& f : in.voq_fill) f = rng() % 300;
      for (auto& c : in.credits) c = rng() % 3 == 0 ? 0 : rng() % 50;
      const unsigned packets = rng() % 5;
      for (unsigned k = 0; k < packets; ++k) {
        in.pkt_valid = true;
        in.pkt_vl = rng() % p.num_vls;
        in.pkt_len = rng() % 40;
        stepped.step(in);
        lazy.step(in);
      }
      in.pkt_valid = false;
      const uint64_t idle = rng() % 3 == 0 ? rng() % 3 : rng() % 5000;
      for (uint64_t i = 0; i < idle; ++i) stepped.step(in);
      // In two calls, the second told how many idle edges the first already ran (as the
      // network model does when it advances a marker at every event).
      const uint64_t first = rng() % (idle + 1);
      lazy.advance_idle(in, first);
      lazy.advance_idle(in, idle - first, static_cast<unsigned>(std::min<uint64_t>(first, 3)));
      expect_same_registers(stepped, lazy, seed, round);
      ASSERT_EQ(stepped.outputs().cong_state, lazy.outputs().cong_state);
      ASSERT_EQ(stepped.outputs().fecn_mark, lazy.outputs().fecn_mark);
    }
  }
}

}  // namespace
