// What a rank sends rank 0 as bytes: a log interval's sample (net/fabric/tick_sample.h) and
// a flow's share of its statistics (FlowStats::share_to_bytes).
#include <gtest/gtest.h>

#include <cstring>

#include "net/fabric/node_context.h"
#include "net/fabric/port_report.h"
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

namespace {

// What a flow's source counts: every source field set, the chain included.
void fill_source(FlowStats& s, uint64_t seed) {
  s.injected_packets = 7 * seed;
  s.injected_bytes = 2048 * 7 * seed;
  s.becn_received = seed + 3;
  s.retransmitted_packets = seed % 4;
  s.timeouts = seed % 3;
  s.nacks = seed % 5;
  s.packs = 11 * seed;
  s.probes_sent = 2 * seed;
  for (int a = 0; a < FlowStats::kNoEvent; ++a) {
    for (int b = 0; b < FlowStats::kNoEvent; ++b) s.chain[a][b] = seed * 10 + static_cast<uint64_t>(a * 3 + b);
  }
  for (uint64_t i = 0; i < 5 * seed; ++i) s.probe_rtt.add(300 + 7 * i);
}

}  // namespace

// The process that writes the results holds a copy of every flow; a flow whose source ran in
// another process is made whole from that process's source bytes and every process's share
// bytes: each field the results read comes out as a single process counted it.
TEST(FlowSourceBytes, SourceAndSharesMakeTheWholeFlow) {
  FlowStats whole = share(5);
  fill_source(whole, 9);
  // Elsewhere: the source's process counted the source fields, and its destination's share.
  FlowStats remote = share(5);
  fill_source(remote, 9);
  std::vector<uint8_t> src_bytes, share_bytes;
  {
    ByteWriter w(src_bytes);
    remote.source_to_bytes(w);
    ByteWriter s(share_bytes);
    remote.share_to_bytes(s);
  }
  // Here: a stale copy of the source's counts (another seed) and nothing delivered.
  FlowStats here;
  fill_source(here, 2);
  ByteReader r(src_bytes.data(), src_bytes.size());
  here.take_source_bytes(r);
  EXPECT_EQ(r.left(), 0u);
  ByteReader rs(share_bytes.data(), share_bytes.size());
  FlowStats got = FlowStats::share_from_bytes(rs);
  here.add_share(got);

  EXPECT_EQ(here.injected_packets, whole.injected_packets);
  EXPECT_EQ(here.injected_bytes, whole.injected_bytes);
  EXPECT_EQ(here.becn_received, whole.becn_received);
  EXPECT_EQ(here.retransmitted_packets, whole.retransmitted_packets);
  EXPECT_EQ(here.timeouts, whole.timeouts);
  EXPECT_EQ(here.nacks, whole.nacks);
  EXPECT_EQ(here.packs, whole.packs);
  EXPECT_EQ(here.probes_sent, whole.probes_sent);
  for (int a = 0; a < FlowStats::kNoEvent; ++a) {
    for (int b = 0; b < FlowStats::kNoEvent; ++b) EXPECT_EQ(here.chain[a][b], whole.chain[a][b]) << a << b;
  }
  expect_same(here.probe_rtt, whole.probe_rtt, "probe RTT");
  EXPECT_EQ(here.probe_rtt.count(), 45u);
  EXPECT_EQ(here.delivered_bytes, whole.delivered_bytes);
  EXPECT_EQ(here.delivered_packets, whole.delivered_packets);
  EXPECT_EQ(here.answer_bytes, whole.answer_bytes);
  EXPECT_EQ(here.answer_packets, whole.answer_packets);
  EXPECT_EQ(here.discarded_packets, whole.discarded_packets);
  EXPECT_EQ(here.dropped_packets, whole.dropped_packets);
  EXPECT_EQ(here.interval_bytes, whole.interval_bytes);
  EXPECT_EQ(here.fecn_marked, whole.fecn_marked);
  EXPECT_EQ(here.out_of_order, whole.out_of_order);
  EXPECT_EQ(here.progress_cycle, whole.progress_cycle);
  expect_same(here.packet_latency, whole.packet_latency, "packet latency");
  expect_same(here.message_latency, whole.message_latency, "message latency");
  expect_same(here.pingpong_rtt, whole.pingpong_rtt, "ping-pong RTT");
}

TEST(FlowSourceBytes, CutBytesLeaveTheFlowAsItWas) {
  FlowStats src;
  fill_source(src, 6);
  std::vector<uint8_t> bytes;
  ByteWriter w(bytes);
  src.source_to_bytes(w);
  for (size_t cut : {size_t{0}, size_t{8}, bytes.size() / 2, bytes.size() - 1}) {
    FlowStats here;
    fill_source(here, 1);
    ByteReader r(bytes.data(), cut);
    EXPECT_THROW(here.take_source_bytes(r), std::runtime_error) << "cut at " << cut;
    EXPECT_EQ(here.injected_packets, 7u) << "cut at " << cut;
    EXPECT_EQ(here.chain[2][2], 18u) << "cut at " << cut;
    EXPECT_EQ(here.probe_rtt.count(), 5u) << "cut at " << cut;
  }
}

TEST(PortReportBytes, RowsComeBackAsSent) {
  std::vector<PortReport> rows(37);
  for (size_t i = 0; i < rows.size(); ++i) {
    PortReport& r = rows[i];
    r.node = static_cast<uint32_t>(i / 4);
    r.port = static_cast<uint32_t>(1 + i % 4);
    r.packets = 1000 + i;
    r.bytes = 2048 * r.packets;
    r.marked = i % 7;
    r.input_peak = i * 3;
    r.xmit_bytes = 9 * i;
    r.rcv_bytes = 11 * i;
    r.xmit_pkts = i + 5;
    r.rcv_pkts = i + 6;
    r.xmit_wait = 77 * i;
    r.egress_peak = 4096 + i;
    r.pauses_received = i % 3;
    r.pauses_sent = i % 5;
    r.input_drops = i % 2;
    r.egress_drops = i % 9;
  }
  std::vector<uint8_t> bytes;
  to_bytes(rows, bytes);
  const std::vector<PortReport> got = port_reports_from_bytes(bytes.data(), bytes.size());
  ASSERT_EQ(got.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(std::memcmp(&got[i], &rows[i], sizeof(PortReport)), 0) << i;
  for (size_t cut : {size_t{0}, size_t{4}, bytes.size() / 2, bytes.size() - 1}) {
    EXPECT_THROW(port_reports_from_bytes(bytes.data(), cut), std::runtime_error) << "cut at " << cut;
  }
  bytes.push_back(0);
  EXPECT_THROW(port_reports_from_bytes(bytes.data(), bytes.size()), std::runtime_error);
}
