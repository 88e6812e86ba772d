// The network model's lazy use of the CC cores (MarkerPort, CctiPort) against the same
// cores stepped at every edge with the same input timeline: the skipped settling edges, the
// credit changes not passed on and the jumps between timer expiries change nothing.
#include <gtest/gtest.h>

#include <random>

#include "net/fabric/cc_adapters.h"

namespace ibcc::net {
namespace {

TEST(CcAdapters, MarkerPortEqualsSteppingEveryEdge) {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    std::mt19937_64 rng(seed);
    cc::FecnMarkerParams p;
    p.num_inputs = 6;
    p.num_vls = 2;
    p.fill_width = 16;
    p.port_num = 3;
    p.tick_cycles = 16;
    SwitchCcSpec sw;
    sw.threshold = 1 + rng() % 15;
    sw.marking_rate = rng() % 4;
    sw.packet_size = rng() % 10;
    sw.mapping = static_cast<cc::ThresholdMapping>(rng() % 3);
    sw.marking_mode = static_cast<cc::MarkingMode>(rng() % 2);
    sw.hysteresis = rng() % 4;
    const bool victim = rng() % 2;
    const uint32_t capacity = 256;
    MarkerPort lazy(p, sw, nullptr, victim, capacity);
    cc::FecnMarker ref(p);
    configure_marker(ref, ref.params(), sw, nullptr, victim, capacity);
    cc::FecnMarkerInputs in(p);
    uint64_t done = 0;  // the reference's edges, by the adapter's documented convention
    std::vector<uint64_t> congested_edges(p.num_vls, 0);  // counted at every edge of the reference
    uint64_t marks = 0;
    auto count = [&] {
      for (unsigned v = 0; v < p.num_vls; ++v) congested_edges[v] += (ref.outputs().cong_state >> v) & 1u;
    };
    auto step_ref_to = [&](uint64_t cycle) {
      while (done < cycle) {
        ref.step(in);
        count();
        ++done;
      }
    };
    uint64_t cycle = 1;
    for (int op = 0; op < 3000; ++op) {
      cycle += rng() % 3 == 0 ? 0 : rng() % (rng() % 2 ? 8 : 400);  // same-cycle ops too
      switch (rng() % 4) {
        case 0: {
          const unsigned input = rng() % p.num_inputs, vl = rng() % p.num_vls;
          const uint32_t fill = rng() % 2 ? 0 : rng() % 200;
          lazy.set_fill(cycle, input, vl, fill);
          step_ref_to(cycle);
          in.voq_fill[input * p.num_vls + vl] = fill;
          break;
        }
        case 1: {
          const unsigned vl = rng() % p.num_vls;
          const uint32_t credits = rng() % 3 == 0 ? 0 : rng() % 300;
          lazy.set_credits(cycle, vl, credits);
          step_ref_to(cycle);
          in.credits[vl] = credits;
          break;
        }
        default: {
          const unsigned vl = rng() % p.num_vls, len = 1 + rng() % 33;
          const bool mark = lazy.depart(cycle, vl, 0, 1, 2, len);
          const uint64_t edge = std::max(cycle, done + 1);
          step_ref_to(edge - 1);
          in.pkt_valid = true;
          in.pkt_vl = vl;
          in.pkt_len = len;
          in.pkt_slid = 1;
          in.pkt_dlid = 2;
          ref.step(in);
          count();
          marks += ref.outputs().fecn_mark;
          in.pkt_valid = false;
          done = edge;
          ASSERT_EQ(mark, ref.outputs().fecn_mark) << "seed " << seed << " op " << op;
        }
      }
    }
    lazy.advance_to(cycle + 1000);
    step_ref_to(cycle + 1000);
    EXPECT_EQ(lazy.core().outputs().cong_state, ref.outputs().cong_state) << seed;
    EXPECT_EQ(lazy.core().pkts_marked(), ref.pkts_marked()) << seed;
    EXPECT_EQ(lazy.core().cong_entries(), ref.cong_entries()) << seed;
    EXPECT_EQ(lazy.core().timestamp(), ref.timestamp()) << seed;
    EXPECT_EQ(lazy.core().log_count(), ref.log_count()) << seed;
    // The statistics of ports.csv: congested edges and marks, counted lazily, as stepping counts them.
    uint64_t lazy_marks = 0;
    for (unsigned v = 0; v < p.num_vls; ++v) {
      const MarkerPort::Stats st = lazy.take_stats(v);
      EXPECT_EQ(st.congested_edges, congested_edges[v]) << "seed " << seed << " vl " << v;
      lazy_marks += st.marks;
    }
    EXPECT_EQ(lazy_marks, marks) << seed;
  }
}

TEST(CcAdapters, CctiPortEqualsSteppingEveryEdge) {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    std::mt19937_64 rng(seed);
    cc::CctiBlockParams p;
    p.num_qps = 16;
    p.tick_cycles = 8;
    CaCcSpec ca;
    ca.sl_based = rng() % 2;
    ca.sl_default.ccti_timer = 1 + rng() % 5;
    ca.sl_default.ccti_increase = 1 + rng() % 3;
    ca.sl_default.ccti_min = rng() % 3;
    ca.sl_default.trigger_threshold = rng() % 20;
    ca.ccti_limit = 10 + rng() % 100;
    for (unsigned i = 0; i < 128; ++i) ca.cct.push_back(static_cast<uint16_t>((rng() % 4) << 14 | i));
    CctiPort lazy(p, ca, 300);
    cc::CctiBlock ref(p);
    configure_ccti(ref, ref.params(), ca, 300);
    cc::CctiBlockInputs idle;
    uint64_t done = 0;
    auto step_ref_to = [&](uint64_t cycle) {
      while (done < cycle) {
        ref.step(idle);
        ++done;
      }
    };
    uint64_t cycle = 1;
    for (int op = 0; op < 2000; ++op) {
      cycle += rng() % 3 == 0 ? 0 : rng() % 200;
      const uint32_t qp = rng() % 16, sl = rng() % 4;
      if (rng() % 2) {
        lazy.becn(cycle, qp, sl, 7, 9);
        const uint64_t edge = std::max(cycle, done + 1);
        step_ref_to(edge - 1);
        cc::CctiBlockInputs in;
        in.becn_valid = true;
        in.becn_qp = qp;
        in.becn_sl = sl;
        in.becn_rlid = 7;
        in.becn_llid = 9;
        in.becn_rqpn = qp;
        ref.step(in);
        done = edge;
      } else if (rng() % 4) {
        // A lookup: the query sampled at its edge (the flow's word read), its IRD looked up
        // at the next edge from the state before it.
        const CctiPort::Lookup got = lazy.lookup(cycle, qp, sl);
        const uint64_t edge = std::max(cycle, done + 1);
        step_ref_to(edge - 1);
        cc::CctiBlockInputs in;
        in.query_qp = qp;
        in.query_sl = sl;
        ref.step(in);
        const uint32_t expect_ird = ref.ird_now(qp, sl);
        const uint32_t expect_ccti = ref.ccti(ref.flow_index(qp, sl));
        const cc::CctiBlockOutputs& out = ref.step(idle);
        done = edge + 1;
        ASSERT_EQ(got.ird, out.ird) << "seed " << seed << " op " << op;
        ASSERT_EQ(got.ccti, out.ccti) << "seed " << seed << " op " << op;
        ASSERT_EQ(out.ird, expect_ird) << "the registered lookup answers from the state before its edge";
        ASSERT_EQ(out.ccti, expect_ccti);
      } else {
        // Observation changes nothing.
        const uint32_t c = lazy.observe_ccti(cycle, qp, sl);
        step_ref_to(cycle);
        ASSERT_EQ(c, ref.ccti(ref.flow_index(qp, sl))) << "seed " << seed << " op " << op;
      }
    }
    step_ref_to(cycle);
    lazy.advance_to(cycle);
    for (unsigned f = 0; f < p.num_qps; ++f) EXPECT_EQ(lazy.core().ccti(f), ref.ccti(f));
    EXPECT_EQ(lazy.core().timer_expiries(), ref.timer_expiries());
  }
}

}  // namespace
}  // namespace ibcc::net
