// What the end of a log interval samples of the nodes of one shard (Fabric::sample_nodes)
// and its rows: a switch port VL's (ports.csv) and a DCQCN flow's rates (rates.csv). A
// sample travels as bytes (to_bytes, from_bytes) where the shard that took it is in another
// process than the one that closes the interval (RankExchange::gather): each vector as its
// count, then its rows as they lie in memory (each row type is trivially copyable).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "common/byte_stream.h"
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

// Appends the sample's bytes to `out`.
inline void to_bytes(const TickSample& s, std::vector<uint8_t>& out) {
  ByteWriter w(out);
  w.put_vector(s.ccti);
  w.put_vector(s.rates);
  w.put_vector(s.ports);
}

// The sample in [data, data + size), which must be exactly one (std::runtime_error if not).
inline TickSample from_bytes(const uint8_t* data, size_t size) {
  TickSample s;
  ByteReader r(data, size);
  r.take_vector(s.ccti, "a tick sample's CCTI values");
  r.take_vector(s.rates, "a tick sample's flow rates");
  r.take_vector(s.ports, "a tick sample's port samples");
  if (r.left()) throw std::runtime_error("tick sample bytes go on past one sample (" + std::to_string(r.left()) + " more)");
  return s;
}

}  // namespace ibcc::net
