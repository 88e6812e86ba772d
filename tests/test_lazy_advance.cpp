// Lazy advance equals cycle stepping: the network model advances idle CC blocks to the
// current cycle in one call (advance_idle); here random histories are replayed both ways
// and every register and output is compared.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
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
      // In up to four calls, as the network model advances at each event (the later calls
      // start quiet and skip the settling edges).
      uint64_t left = idle;
      for (unsigned chunk = rng() % 4; chunk > 0 && left > 0; --chunk) {
        const uint64_t n = rng() % (left + 1);
        lazy.advance_idle(in, n);
        left -= n;
      }
      lazy.advance_idle(in, left);
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

// step() does only what changes at a quiet edge (no BECN, idle bus, no expiry): random
// histories with BECN bursts, changing queries, timers and register writes, compared edge by
// edge with a block that takes the full path at every edge.
TEST(LazyAdvance, CctiBlockQuietEdgesEqualFullEdges) {
  namespace r = ibcc::regs::ccti_block;
  uint64_t quiet_edges = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    ibcc::cc::CctiBlockParams p;
    p.tick_cycles = 2 + rng() % 20;
    ibcc::cc::CctiBlock full(p), fast(p);
    full.set_full_edges(true);
    auto both_write = [&](uint32_t addr, uint32_t v) { write_both(full, fast, addr, v); };
    both_write(r::kCaSettingOffset, r::kCaSettingPortControl.put(rng() % 2) | r::kCaSettingControlMap.put(0x7fff));
    both_write(r::kCctLimitOffset, r::kCctLimitCctiLimit.put(rng() % 140));
    both_write(r::kMtuTxCyclesOffset, r::kMtuTxCyclesCycles.put(1 + rng() % 300));
    both_write(r::kImplCtrlOffset, r::kImplCtrlIrdFormula.put(rng() % 2));
    for (uint32_t k = 0; k < 64; ++k) {
      both_write(r::kCctEntryPairOffset + k * r::kCctEntryPairStride,
                 r::kCctEntryPairEntryEven.put(rng() & 0xffff) | r::kCctEntryPairEntryOdd.put(rng() & 0xffff));
    }
    for (unsigned s = 0; s < 16; ++s) {
      both_write(r::kCaSlTimerOffset + 8 * s, r::kCaSlTimerCctiTimer.put(rng() % 6) |
                                                  r::kCaSlTimerCctiIncrease.put(1 + rng() % 8) |
                                                  r::kCaSlTimerTriggerThreshold.put(rng() % 30));
      both_write(r::kCaSlMinOffset + 8 * s, r::kCaSlMinCctiMin.put(rng() % 4));
    }
    ibcc::cc::CctiBlockInputs in;
    for (int edge = 0; edge < 20000; ++edge) {
      in.becn_valid = rng() % 9 == 0;
      in.becn_qp = rng() % 64;
      in.becn_sl = rng() % 16;
      in.becn_rlid = rng() & 0xffff;
      if (rng() % 4 == 0) {
        in.query_qp = rng() % 64;
        in.query_sl = rng() % 16;
      }
      const bool quiet = !in.becn_valid;
      const auto& a = full.step(in);
      const auto& b = fast.step(in);
      if (quiet) ++quiet_edges;
      ASSERT_EQ(a.ird, b.ird) << "seed " << seed << " edge " << edge;
      ASSERT_EQ(a.ccti, b.ccti) << "seed " << seed << " edge " << edge;
      ASSERT_EQ(a.timer_expired, b.timer_expired) << "seed " << seed << " edge " << edge;
      ASSERT_EQ(a.trigger_event, b.trigger_event) << "seed " << seed << " edge " << edge;
      ASSERT_EQ(0, std::memcmp(&full.events(), &fast.events(), sizeof(ibcc::cc::CctiBlockEvents)))
          << "seed " << seed << " edge " << edge;
      for (unsigned s = 0; s < 16; ++s) ASSERT_EQ(full.timer_count(s), fast.timer_count(s));
      if (edge % 500 == 499) {
        expect_same_registers(full, fast, seed, edge);
        // The equal state also answers the same lookups afterwards.
        for (uint32_t qp = 0; qp < 64; ++qp) ASSERT_EQ(full.ird_now(qp, qp % 16), fast.ird_now(qp, qp % 16));
      }
    }
  }
  EXPECT_GT(quiet_edges, 300000u);
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
      lazy.advance_idle(in, idle - first, static_cast<unsigned>(std::min<uint64_t>(first, lazy.settle_edges())));
      expect_same_registers(stepped, lazy, seed, round);
      ASSERT_EQ(stepped.outputs().cong_state, lazy.outputs().cong_state);
      ASSERT_EQ(stepped.outputs().fecn_mark, lazy.outputs().fecn_mark);
    }
  }
}

// The network model changes one fill at a time through FecnMarkerInputs::set_fill, and the
// core registers just the changed fills. A core fed that way must equal one that compares
// all fills at every edge, however many fills change between edges (more than the change
// list holds included), whether a change keeps the value, and when the largest fill falls.
TEST(LazyAdvance, FecnMarkerTrackedFillsEqualFullCompare) {
  namespace r = ibcc::regs::fecn_marker;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    std::mt19937_64 rng(seed);
    ibcc::cc::FecnMarkerParams p;
    p.num_inputs = 1 + rng() % 12;
    p.num_vls = 2 + rng() % 3;
    ibcc::cc::FecnMarker full(p), tracked(p);
    auto both_write = [&](uint32_t addr, uint32_t v) { write_both(full, tracked, addr, v); };
    both_write(r::kSwSettingThresholdOffset, r::kSwSettingThresholdThreshold.put(1 + rng() % 15));
    both_write(r::kImplCtrlOffset, r::kImplCtrlThresholdMapping.put(rng() % 3) | r::kImplCtrlHysteresis.put(rng() % 8));
    both_write(r::kBufferCapacityOffset, 64 + rng() % 512);
    ibcc::cc::FecnMarkerInputs a(p), b(p);
    b.tracked = true;
    const size_t n = a.voq_fill.size();
    unsigned overflows = 0, max_falls = 0;
    for (int edge = 0; edge < 3000; ++edge) {
      const unsigned changes = rng() % 8 == 0 ? 17 + rng() % 20 : rng() % 4;
      if (changes > ibcc::cc::FecnMarkerInputs::kMaxChanged) ++overflows;
      for (unsigned k = 0; k < changes; ++k) {
        const unsigned i = static_cast<unsigned>(rng() % n);
        uint32_t v = rng() % 4 == 0 ? a.voq_fill[i] : static_cast<uint32_t>(rng() % 200);
        if (rng() % 6 == 0) v = 0;
        const uint32_t old_max = *std::max_element(a.voq_fill.begin(), a.voq_fill.end());
        if (a.voq_fill[i] == old_max && v < old_max) ++max_falls;
        a.voq_fill[i] = v;
        b.set_fill(i, v);
      }
      if (rng() % 5 == 0) {
        const unsigned vl = static_cast<unsigned>(rng() % p.num_vls);
        a.credits[vl] = b.credits[vl] = rng() % 2 ? 0 : 1 + rng() % 40;
      }
      a.pkt_valid = b.pkt_valid = rng() % 3 == 0;
      a.pkt_vl = b.pkt_vl = static_cast<uint32_t>(rng() % p.num_vls);
      a.pkt_len = b.pkt_len = 4 + rng() % 40;
      full.step(a);
      tracked.step(b);
      if (tracked.registered_fill_version() == b.fill_version) b.fills_registered();
      ASSERT_EQ(full.outputs().cong_state, tracked.outputs().cong_state) << "seed " << seed << " edge " << edge;
      ASSERT_EQ(full.outputs().fecn_mark, tracked.outputs().fecn_mark) << "seed " << seed << " edge " << edge;
      ASSERT_EQ(full.events().entered, tracked.events().entered);
      ASSERT_EQ(full.events().hysteresis_held, tracked.events().hysteresis_held);
      if (edge % 500 == 0) expect_same_registers(full, tracked, seed, edge);
    }
    expect_same_registers(full, tracked, seed, -1);
    EXPECT_GT(overflows, 0u) << "seed " << seed;
    EXPECT_GT(max_falls, 0u) << "seed " << seed;
  }
}

// settled() is the fixed point: when it says so, an idle edge changes no register and no
// congestion state; and after an input change it says so within settle_edges() idle edges.
TEST(LazyAdvance, FecnMarkerSettledIsTheFixedPoint) {
  namespace r = ibcc::regs::fecn_marker;
  unsigned stays = 0, follows = 0;  // rounds whose fixed point took state_latency() - 1 edges, and state_latency()
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    ibcc::cc::FecnMarkerParams p;
    p.num_inputs = 1 + static_cast<unsigned>(rng() % 40);  // pipelines of 1 to 3 reduction stages
    ibcc::cc::FecnMarker m(p), copy(p);
    write_both(m, copy, r::kSwSettingThresholdOffset, r::kSwSettingThresholdThreshold.put(1 + rng() % 15));
    write_both(m, copy, r::kImplCtrlOffset,
               r::kImplCtrlThresholdMapping.put(rng() % 3) | r::kImplCtrlHysteresis.put(rng() % 8));
    ibcc::cc::FecnMarkerInputs in(p);
    for (int round = 0; round < 200; ++round) {
      for (auto& f : in.voq_fill) {
        if (rng() % 3 == 0) f = rng() % 400;
      }
      for (auto& c : in.credits) c = rng() % 3 == 0 ? 0 : rng() % 50;
      unsigned edges = 0;
      while (!m.settled(in)) {
        m.step(in);
        copy.step(in);
        ASSERT_LE(++edges, m.settle_edges()) << "seed " << seed << " round " << round << ": no fixed point after "
                                             << m.settle_edges() << " idle edges";
      }
      if (edges + 1 == m.state_latency()) ++stays;
      if (edges == m.state_latency()) ++follows;
      const uint32_t state = m.outputs().cong_state;
      for (int k = 0; k < 5; ++k) {
        m.step(in);
        ASSERT_EQ(m.outputs().cong_state, state);
        ASSERT_EQ(m.events().entered | m.events().left, 0u);
        ASSERT_TRUE(m.settled(in));
      }
      copy.advance_idle(in, 5, m.settle_edges());
      expect_same_registers(m, copy, seed, round);
      ASSERT_EQ(m.events().victim_blocked, copy.events().victim_blocked);
      ASSERT_EQ(m.events().victim_masked, copy.events().victim_masked);
      ASSERT_EQ(m.events().hysteresis_held, copy.events().hysteresis_held);
    }
  }
  // Both kinds happen: the state stays (the new inputs registered and through the pipeline:
  // one edge less than the state latency) or follows them (the state latency).
  EXPECT_GT(stays, 0u);
  EXPECT_GT(follows, 0u);
}

}  // namespace
