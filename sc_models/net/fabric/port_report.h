// What a run's summary reads of the ports at its end (Fabric::port_reports): per output port
// of every node, its counts over the run, the peaks of its buffers and its PFC and drop
// counters, the figures summary.json's "ports", its PFC and drop totals and metrics.json's
// peak egress and pauses come from. Read from the nodes of one shard, so that a process of a
// parallel run reports the ports it ran and the process that writes the results takes
// every other's as bytes (to_bytes, from_bytes: the rows as they lie in memory).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "common/byte_stream.h"

namespace ibcc::net {

struct PortReport {
  uint32_t node = 0, port = 0;
  uint64_t packets = 0, bytes = 0, marked = 0;  // sent, and FECN-marked
  uint64_t input_peak = 0;                      // the input buffer's peak, over its VLs (credits)
  // The port's performance counters (switches): totals over the VLs, and PortXmitWait to the
  // report's cycle.
  uint64_t xmit_bytes = 0, rcv_bytes = 0, xmit_pkts = 0, rcv_pkts = 0, xmit_wait = 0;
  uint64_t egress_peak = 0;  // bytes (switches: output and shared buffering)
  uint64_t pauses_received = 0, pauses_sent = 0;  // PFC: XOFF frames at the output, from the input
  uint64_t input_drops = 0, egress_drops = 0;     // lossy: at the input buffer, at the output's limit
};
static_assert(std::is_trivially_copyable_v<PortReport> && sizeof(PortReport) == 8 + 14 * 8,
              "a port's report travels between processes as bytes (no padding: rows compare as bytes)");

// Appends the rows' bytes to `out`.
inline void to_bytes(const std::vector<PortReport>& rows, std::vector<uint8_t>& out) {
  ByteWriter w(out);
  w.put_vector(rows);
}

// The rows in [data, data + size), which must be exactly one list (std::runtime_error if not).
inline std::vector<PortReport> port_reports_from_bytes(const uint8_t* data, size_t size) {
  std::vector<PortReport> rows;
  ByteReader r(data, size);
  r.take_vector(rows, "the ports' reports");
  if (r.left()) throw std::runtime_error("port report bytes go on past one list (" + std::to_string(r.left()) + " more)");
  return rows;
}

}  // namespace ibcc::net
