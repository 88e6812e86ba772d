// What the end of a log interval samples of the nodes of one shard (Fabric::sample_nodes)
// and its rows: a switch port VL's (ports.csv) and a DCQCN flow's rates (rates.csv). A
// sample travels as bytes (to_bytes, from_bytes) where the shard that took it is in another
// process than the one that closes the interval (RankExchange::gather): three counts, then
// the rows as they lie in memory (each row type is trivially copyable).
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "net/fabric/port_counters.h"

namespace ibcc::net {

struct PortSample {  // ports.csv
  uint64_t t_cycle;
  unsigned node, port, vl;
  uint32_t occupancy, peak;
  bool congested;            // the output's state at the sample
  uint64_t congested_cycles; // cycles of the interval the output's VL spent congested (counted, not sampled)
  uint64_t fecn_marks;       // packets the output marked on this VL in the interval
  // The port's performance counters' increments in the interval (PortCounters): this VL's
  // data and packets; the port's PortXmitWait (on its VL 0 sample only).
  PortCounters::Interval counters;
  uint64_t xmit_wait;
};

// DCQCN reaction points (cc.reaction dcqcn | dcqcn_plus): a flow's QPs' rates at an
// interval's end.
struct FlowRates {
  uint32_t qps = 0;
  uint64_t mean_kbps = 0, min_kbps = 0, max_kbps = 0;
};

struct TickSample {
  std::vector<uint16_t> ccti;    // per flow (0 where another shard holds the source)
  std::vector<FlowRates> rates;  // per flow (DCQCN)
  std::vector<PortSample> ports; // in node order
};

static_assert(std::is_trivially_copyable_v<PortSample> && std::is_trivially_copyable_v<FlowRates>,
              "a sample's rows travel between processes as bytes");

namespace tick_bytes {

template <typename T>
void put(std::vector<uint8_t>& out, const std::vector<T>& rows) {
  const uint64_t n = rows.size();
  const size_t at = out.size();
  out.resize(at + sizeof n + n * sizeof(T));
  std::memcpy(out.data() + at, &n, sizeof n);
  if (n) std::memcpy(out.data() + at + sizeof n, rows.data(), n * sizeof(T));
}

template <typename T>
void take(const uint8_t*& p, const uint8_t* end, std::vector<T>& rows, const char* what) {
  uint64_t n = 0;
  if (static_cast<size_t>(end - p) < sizeof n) throw std::runtime_error(std::string("tick sample bytes end before the count of ") + what);
  std::memcpy(&n, p, sizeof n);
  p += sizeof n;
  if (n > static_cast<size_t>(end - p) / sizeof(T)) {
    throw std::runtime_error(std::string("tick sample bytes hold fewer ") + what + " than their count " + std::to_string(n));
  }
  rows.resize(n);
  if (n) std::memcpy(static_cast<void*>(rows.data()), p, n * sizeof(T));
  p += n * sizeof(T);
}

}  // namespace tick_bytes

// Appends the sample's bytes to `out`.
inline void to_bytes(const TickSample& s, std::vector<uint8_t>& out) {
  tick_bytes::put(out, s.ccti);
  tick_bytes::put(out, s.rates);
  tick_bytes::put(out, s.ports);
}

// The sample in [data, data + size), which must be exactly one (std::runtime_error if not).
inline TickSample from_bytes(const uint8_t* data, size_t size) {
  TickSample s;
  const uint8_t* p = data;
  const uint8_t* end = data + size;
  tick_bytes::take(p, end, s.ccti, "CCTI values");
  tick_bytes::take(p, end, s.rates, "flow rates");
  tick_bytes::take(p, end, s.ports, "port samples");
  if (p != end) throw std::runtime_error("tick sample bytes go on past one sample (" + std::to_string(end - p) + " more)");
  return s;
}

}  // namespace ibcc::net
