// What a rank sends rank 0 as bytes: a log interval's sample (net/fabric/tick_sample.h) and
// a flow's share of its statistics (FlowStats::share_to_bytes).
#include <gtest/gtest.h>

#include <cstring>

#include "net/fabric/node_context.h"
#include "net/fabric/tick_sample.h"

using namespace ibcc::net;
using ibcc::ByteReader;
using ibcc::ByteWriter;

namespace {

TickSample sample(unsigned seed, size_t flows, size_t ports) {
  TickSample s;
  for (size_t i = 0; i < flows; ++i) {
    s.ccti.push_back(static_cast<uint16_t>(seed * 100 + i));
    s.rates.push_back({static_cast<uint32_t>(i + 1), seed * 1000 + i, i, seed + i * 7});
  }
  for (size_t i = 0; i < ports; ++i) {
    PortSample p;
    std::memset(static_cast<void*>(&p), 0, sizeof p);  // (padding too: the rows are compared as bytes)
    p.t_cycle = 250000 + seed;
    p.node = static_cast<unsigned>(i / 8);
    p.port = static_cast<unsigned>(1 + i % 4);
    p.vl = static_cast<unsigned>(i % 2);
    p.occupancy = static_cast<uint32_t>(seed + i);
    p.peak = static_cast<uint32_t>(2 * i);
    p.congested = i % 3 == 0;
    p.congested_cycles = i * 11;
    p.fecn_marks = i * 13;
    p.counters.xmit_data = i * 512;
    p.counters.rcv_pkts = i;
    p.xmit_wait = seed * i;
    s.ports.push_back(p);
  }
  return s;
}

bool same(const TickSample& a, const TickSample& b) {
  return a.ccti == b.ccti && a.rates.size() == b.rates.size() && a.ports.size() == b.ports.size() &&
         (a.rates.empty() || std::memcmp(a.rates.data(), b.rates.data(), a.rates.size() * sizeof(FlowRates)) == 0) &&
         (a.ports.empty() || std::memcmp(a.ports.data(), b.ports.data(), a.ports.size() * sizeof(PortSample)) == 0);
}

}  // namespace

TEST(TickSampleBytes, RoundTripsEveryRow) {
  for (auto [flows, ports] : {std::pair<size_t, size_t>{0, 0}, {1, 0}, {0, 3}, {648, 1152}}) {
    const TickSample s = sample(7, flows, ports);
    std::vector<uint8_t> bytes;
    to_bytes(s, bytes);
    EXPECT_TRUE(same(s, from_bytes(bytes.data(), bytes.size()))) << flows << " flows, " << ports << " port rows";
  }
}

TEST(TickSampleBytes, SamplesSideBySideSplitWhereTheyBegin) {
  // As gathered at rank 0: each rank's bytes after the last, with where each begins.
  std::vector<uint8_t> all;
  std::vector<size_t> offsets{0};
  const TickSample a = sample(1, 5, 9), b = sample(2, 5, 0), c = sample(3, 5, 17);
  for (const TickSample* s : {&a, &b, &c}) {
    to_bytes(*s, all);
    offsets.push_back(all.size());
  }
  EXPECT_TRUE(same(a, from_bytes(all.data() + offsets[0], offsets[1] - offsets[0])));
  EXPECT_TRUE(same(b, from_bytes(all.data() + offsets[1], offsets[2] - offsets[1])));
  EXPECT_TRUE(same(c, from_bytes(all.data() + offsets[2], offsets[3] - offsets[2])));
}

TEST(TickSampleBytes, RefusesCutOrLongBytes) {
  std::vector<uint8_t> bytes;
  to_bytes(sample(4, 3, 5), bytes);
  for (size_t cut : {size_t{0}, size_t{4}, size_t{8}, bytes.size() - 1}) {
    EXPECT_THROW(from_bytes(bytes.data(), cut), std::runtime_error) << "cut at " << cut;
  }
  bytes.push_back(0);
  EXPECT_THROW(from_bytes(bytes.data(), bytes.size()), std::runtime_error);
  // A count larger than the bytes left (not a huge allocation).
  std::vector<uint8_t> lying(8, 0xff);
  EXPECT_THROW(from_bytes(lying.data(), lying.size()), std::runtime_error);
}

namespace {

// A destination's share of a flow's statistics: counts, progress and three histograms.
FlowStats share(uint64_t seed) {
  FlowStats s;
  s.delivered_bytes = 2048 * seed;
  s.delivered_packets = seed;
  s.answer_bytes = 3 * seed;
  s.answer_packets = seed / 2;
  s.discarded_packets = seed % 5;
  s.dropped_packets = seed % 7;
  s.interval_bytes = 1000 + seed;
  s.fecn_marked = seed / 3;
  s.out_of_order = seed % 11;
  s.progress_cycle = 500 * seed;
  for (uint64_t i = 0; i < 40 * seed; ++i) {
    s.packet_latency.add(100 + i * seed);
    if (i % 3 == 0) s.message_latency.add(5000 + i * 17);
    if (i % 9 == 0) s.pingpong_rtt.add(77 + i);
  }
  return s;
}

void expect_same(const LatencyHistogram& a, const LatencyHistogram& b, const char* what) {
  EXPECT_EQ(a.count(), b.count()) << what;
  EXPECT_EQ(a.min(), b.min()) << what;
  EXPECT_EQ(a.max(), b.max()) << what;
  EXPECT_EQ(a.mean(), b.mean()) << what;
  EXPECT_EQ(a.buckets(), b.buckets()) << what;
}

}  // namespace

TEST(FlowShareBytes, AddedFromBytesAsAddedDirectly) {
  FlowStats direct, via_bytes;
  direct.injected_packets = via_bytes.injected_packets = 999;  // the source's: not a share's
  for (uint64_t seed : {3, 1, 8}) {
    FlowStats a = share(seed), b = share(seed);
    direct.add_share(a);
    std::vector<uint8_t> bytes;
    ByteWriter w(bytes);
    b.share_to_bytes(w);
    ByteReader r(bytes.data(), bytes.size());
    FlowStats got = FlowStats::share_from_bytes(r);
    EXPECT_EQ(r.left(), 0u);
    via_bytes.add_share(got);
  }
  EXPECT_EQ(direct.delivered_bytes, via_bytes.delivered_bytes);
  EXPECT_EQ(direct.delivered_bytes, 2048u * 12);
  EXPECT_EQ(direct.delivered_packets, via_bytes.delivered_packets);
  EXPECT_EQ(direct.answer_bytes, via_bytes.answer_bytes);
  EXPECT_EQ(direct.answer_packets, via_bytes.answer_packets);
  EXPECT_EQ(direct.discarded_packets, via_bytes.discarded_packets);
  EXPECT_EQ(direct.dropped_packets, via_bytes.dropped_packets);
  EXPECT_EQ(direct.interval_bytes, via_bytes.interval_bytes);
  EXPECT_EQ(direct.fecn_marked, via_bytes.fecn_marked);
  EXPECT_EQ(direct.out_of_order, via_bytes.out_of_order);
  EXPECT_EQ(direct.progress_cycle, via_bytes.progress_cycle);
  EXPECT_EQ(via_bytes.progress_cycle, 4000u);
  EXPECT_EQ(via_bytes.injected_packets, 999u);
  expect_same(direct.packet_latency, via_bytes.packet_latency, "packet latency");
  expect_same(direct.message_latency, via_bytes.message_latency, "message latency");
  expect_same(direct.pingpong_rtt, via_bytes.pingpong_rtt, "ping-pong RTT");
  EXPECT_EQ(via_bytes.packet_latency.count(), 40u * 12);
}

TEST(FlowShareBytes, RefusesCutBytes) {
  std::vector<uint8_t> bytes;
  ByteWriter w(bytes);
  share(4).share_to_bytes(w);
  for (size_t cut : {size_t{0}, size_t{8}, bytes.size() / 2, bytes.size() - 1}) {
    ByteReader r(bytes.data(), cut);
    EXPECT_THROW(FlowStats::share_from_bytes(r), std::runtime_error) << "cut at " << cut;
  }
}
