// The switch-port CC unit against the rules of IBCC_SPEC section 2 and the choices named in
// docs/cc_blocks.md: threshold mappings and trip levels, root/victim, Victim_Mask,
// Packet_Size, Marking_Rate in both modes, hysteresis, the congestion log.
#include <gtest/gtest.h>

#include <stdexcept>

#include "cc/fecn_marker.h"
#include "cc/fecn_marker_regs.h"

namespace {

namespace r = ibcc::regs::fecn_marker;
using ibcc::cc::FecnMarker;
using ibcc::cc::FecnMarkerInputs;
using ibcc::cc::FecnMarkerParams;

class FecnMarkerTest : public ::testing::Test {
 protected:
  FecnMarkerTest() : in(params()), m(params()) {
    std::fill(in.credits.begin(), in.credits.end(), 10u);
  }
  static FecnMarkerParams params() {
    FecnMarkerParams p;
    p.num_inputs = 4;
    p.num_vls = 2;
    p.fill_width = 12;
    p.port_num = 37;
    p.tick_cycles = 8;
    return p;
  }
  void write(uint32_t addr, uint32_t v) { ASSERT_TRUE(m.write_csr(addr, v, 0xf)) << std::hex << addr; }
  void threshold(unsigned t, unsigned packet_size = 0) {
    write(r::kSwSettingThresholdOffset,
          r::kSwSettingThresholdThreshold.put(t) | r::kSwSettingThresholdPacketSize.put(packet_size));
  }
  void mapping(unsigned map, unsigned mode = 0, unsigned hysteresis = 0) {
    write(r::kImplCtrlOffset, r::kImplCtrlThresholdMapping.put(map) | r::kImplCtrlMarkingMode.put(mode) |
                                  r::kImplCtrlHysteresis.put(hysteresis));
  }
  void fill(unsigned input, unsigned vl, uint32_t v) { in.voq_fill[input * 2 + vl] = v; }
  // The edges a change of the fills takes to the state: registered at the boundary, reduced,
  // measured, then the state (FecnMarker::state_latency()).
  void settle() {
    for (unsigned e = 0; e < m.state_latency(); ++e) m.step(in);
  }
  bool congested_after_step(unsigned vl) {
    settle();
    return m.congested(vl);
  }
  // Send `n` eligible packets on VL 0; return the marks.
  std::vector<bool> send(unsigned n, uint32_t len = 10) {
    std::vector<bool> marks;
    in.pkt_valid = true;
    in.pkt_vl = 0;
    in.pkt_len = len;
    for (unsigned i = 0; i < n; ++i) marks.push_back(m.step(in).fecn_mark);
    in.pkt_valid = false;
    return marks;
  }

  FecnMarkerInputs in;
  FecnMarker m;
};

TEST_F(FecnMarkerTest, TripLevelIsSixteenthsOfCapacity) {
  threshold(8);  // trip at 8/16 of 256 = 128 credits
  fill(0, 0, 127);
  EXPECT_FALSE(congested_after_step(0));
  fill(0, 0, 128);
  EXPECT_TRUE(congested_after_step(0));
  threshold(15);  // 1/16: 16 credits
  fill(0, 0, 15);
  EXPECT_FALSE(congested_after_step(0));
  fill(0, 0, 16);
  EXPECT_TRUE(congested_after_step(0));
  threshold(0);  // never
  fill(0, 0, 4095);
  EXPECT_FALSE(congested_after_step(0));
}

TEST_F(FecnMarkerTest, PerVoqSumAndSumDivPortsDiffer) {
  threshold(8);  // 128 of 256
  for (unsigned p = 0; p < 4; ++p) fill(p, 1, 40);  // each < 128, sum 160
  mapping(0);
  EXPECT_FALSE(congested_after_step(1)) << "per_voq: no single VoQ reaches 128";
  mapping(1);
  EXPECT_TRUE(congested_after_step(1)) << "sum: 160 >= 128";
  for (unsigned p = 0; p < 4; ++p) fill(p, 1, 0);
  fill(0, 1, 33);
  fill(1, 1, 0);
  mapping(2);
  EXPECT_FALSE(congested_after_step(1)) << "sum_div_ports: 33 < 128/1";
  fill(0, 1, 9);
  fill(1, 1, 9);
  fill(2, 1, 9);
  fill(3, 1, 9);
  EXPECT_TRUE(congested_after_step(1)) << "sum_div_ports: 36 >= 128/4";
  mapping(1);
  EXPECT_FALSE(congested_after_step(1)) << "sum: 36 < 128";
}

TEST_F(FecnMarkerTest, VictimStaysOutUnlessVictimMask) {
  threshold(12);
  fill(2, 0, 200);
  in.credits[0] = 0;
  EXPECT_FALSE(congested_after_step(0)) << "no credits: a victim";
  EXPECT_NE(m.events().victim_blocked, 0u);
  in.credits[0] = 1;
  EXPECT_TRUE(congested_after_step(0)) << "credits: the root";
  in.credits[0] = 0;
  EXPECT_FALSE(congested_after_step(0)) << "losing its credits, it leaves the state";
  // Port 37 is bit 5 of attribute word 8 - 37/32 = 7, index 6 of SW_VICTIM_MASK (0x05c).
  write(r::kSwVictimMaskOffset + 4 * 7, 1u << 5);  // wrong word (ports 31..0): no effect
  EXPECT_FALSE(congested_after_step(0));
  write(r::kSwVictimMaskOffset + 4 * 6, 1u << 4);  // wrong bit (port 36): no effect
  EXPECT_FALSE(congested_after_step(0));
  write(r::kSwVictimMaskOffset + 4 * 6, 1u << 5);
  EXPECT_TRUE(congested_after_step(0)) << "Victim_Mask puts the victim in the state";
  uint32_t v = 0;
  ASSERT_TRUE(m.read_csr(r::kSwVictimMaskOffset + 4 * 6, &v));
  EXPECT_EQ(v, 1u << 5);
  ASSERT_TRUE(m.read_csr(r::kSwVictimMaskOffset + 4 * 7, &v));
  EXPECT_EQ(v, 0u) << "other ports' bits are not implemented";
  ASSERT_TRUE(m.read_csr(r::kLogPortmapOffset + 4 * 6, &v));
  EXPECT_EQ(v, 1u << 5) << "PortMap: attribute word 9 - 37/32 = 8, index 6 of LOG_PORTMAP";
}

TEST_F(FecnMarkerTest, HysteresisHoldsTheState) {
  threshold(8);            // enter at 128
  mapping(0, 0, 4);        // leave below (8 - 4)/16 = 64
  fill(0, 0, 130);
  EXPECT_TRUE(congested_after_step(0));
  fill(0, 0, 64);
  EXPECT_TRUE(congested_after_step(0)) << "64 is still at the exit level";
  EXPECT_TRUE(m.events().hysteresis_held);
  fill(0, 0, 63);
  EXPECT_FALSE(congested_after_step(0));
  fill(0, 0, 100);
  EXPECT_FALSE(congested_after_step(0)) << "re-entry needs the trip level again";
}

TEST_F(FecnMarkerTest, PacketSizeBoundary) {
  threshold(15, 8);
  fill(0, 0, 100);
  settle();
  ASSERT_TRUE(m.congested(0));
  EXPECT_EQ(send(3, 7), std::vector<bool>({false, false, false})) << "7 credits < Packet_Size 8";
  EXPECT_EQ(send(3, 8), std::vector<bool>({true, true, true})) << "8 credits is eligible";
}

TEST_F(FecnMarkerTest, MarkingRateCounterMarksOneThenSkipsN) {
  threshold(15);
  fill(0, 0, 100);
  settle();
  write(r::kSwSettingMarkingOffset, 0);
  EXPECT_EQ(send(4), std::vector<bool>(4, true)) << "Marking_Rate 0 marks every eligible packet";
  write(r::kSwSettingMarkingOffset, 2);
  const auto marks = send(9);
  // The counter was 0: mark, skip 2, mark, skip 2, ...
  EXPECT_EQ(marks, std::vector<bool>({true, false, false, true, false, false, true, false, false}));
}

TEST_F(FecnMarkerTest, PortSettingOverridesSwitchSetting) {
  threshold(0);
  fill(0, 0, 100);
  write(r::kPortSettingOffset, r::kPortSettingValid.put(1) | r::kPortSettingThreshold.put(15) |
                                   r::kPortSettingCongParm.put(1));
  settle();
  ASSERT_TRUE(m.congested(0)) << "port Threshold 15 overrides switch Threshold 0";
  EXPECT_EQ(send(4), std::vector<bool>({true, false, true, false}));
}

TEST_F(FecnMarkerTest, MarkingRateRandomHasTheRequestedMean) {
  threshold(15);
  fill(0, 0, 100);
  settle();
  mapping(0, 1);  // random
  write(r::kSwSettingMarkingOffset, 0);
  EXPECT_EQ(send(10), std::vector<bool>(10, true)) << "random with mean 0 marks everything";
  for (uint32_t rate : {1u, 5u, 40u}) {
    write(r::kSwSettingMarkingOffset, rate);
    const unsigned n = 200000;
    unsigned marked = 0;
    for (bool b : send(n)) marked += b;
    // Gaps are uniform on [0, 2*rate]: mean rate, so 1/(rate+1) of packets are marked.
    const double mean_gap = double(n - marked) / marked;
    EXPECT_NEAR(mean_gap, rate, 0.03 * rate + 0.02) << "rate " << rate;
  }
}

TEST_F(FecnMarkerTest, CongestionLogKeepsTheFifteenMostRecent) {
  threshold(15);
  fill(0, 0, 100);
  settle();
  in.pkt_valid = true;
  in.pkt_len = 10;
  for (uint32_t i = 0; i < 20; ++i) {
    in.pkt_slid = 100 + i;
    in.pkt_dlid = 200 + i;
    in.pkt_sl = i % 16;
    m.step(in);
  }
  in.pkt_valid = false;
  EXPECT_EQ(m.log_count(), 15u);
  uint32_t v = 0;
  ASSERT_TRUE(m.read_csr(r::kLogHeaderOffset, &v));
  EXPECT_EQ(r::kLogHeaderLogType.get(v), 1u);
  EXPECT_EQ(r::kLogHeaderLogEventsCounter.get(v), 20u);
  ASSERT_TRUE(m.read_csr(r::kLogEventLidsOffset, &v));
  EXPECT_EQ(v, (119u << 16) | 219u) << "event 0 is the most recent";
  ASSERT_TRUE(m.read_csr(r::kLogEventLidsOffset + 14 * r::kLogEventLidsStride, &v));
  EXPECT_EQ(v, (105u << 16) | 205u) << "event 14 is the oldest kept";
  ASSERT_TRUE(m.read_csr(r::kLogEventSlOffset, &v));
  EXPECT_EQ(r::kLogEventSlSl.get(v), 19u % 16);
  write(r::kLogCtrlOffset, 1);
  EXPECT_EQ(m.log_count(), 0u);
  ASSERT_TRUE(m.read_csr(r::kLogEventLidsOffset, &v));
  EXPECT_EQ(v, 0u);
}

TEST_F(FecnMarkerTest, IllegalValuesAreRefused) {
  EXPECT_FALSE(m.write_csr(r::kImplCtrlOffset, 3, 0xf)) << "mapping 3";
  EXPECT_FALSE(m.write_csr(r::kBufferCapacityOffset, 0, 0xf));
  EXPECT_FALSE(m.write_csr(r::kBufferCapacityOffset, 4096, 0xf)) << "12 bits stored: 0";
  EXPECT_FALSE(m.write_csr(r::kLfsrSeedOffset, 0, 0xf));
  EXPECT_FALSE(m.write_csr(r::kPktsSentOffset, 1, 0xf)) << "read-only";
  uint32_t v = 0;
  ASSERT_TRUE(m.read_csr(r::kBufferCapacityOffset, &v));
  EXPECT_EQ(v, 256u) << "a refused write changes nothing";
}

TEST_F(FecnMarkerTest, TimestampCountsTicks) {
  for (unsigned i = 0; i < 8 * 5 + 3; ++i) m.step(in);
  EXPECT_EQ(m.timestamp(), 5u);
}

TEST(FecnMarkerParams, BadParametersAreNamed) {
  FecnMarkerParams p;
  p.num_vls = 1;
  EXPECT_THROW(
      {
        try {
          FecnMarker m(p);
        } catch (const std::invalid_argument& e) {
          EXPECT_NE(std::string(e.what()).find("num_vls"), std::string::npos);
          throw;
        }
      },
      std::invalid_argument);
}

}  // namespace
