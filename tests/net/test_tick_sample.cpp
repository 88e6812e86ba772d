// A log interval's sample as bytes (net/fabric/tick_sample.h): what a rank sends rank 0.
#include <gtest/gtest.h>

#include <cstring>

#include "net/fabric/tick_sample.h"

using namespace ibcc::net;

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
