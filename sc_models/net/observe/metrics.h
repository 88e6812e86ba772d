// The figures of merit of one run over a time window, as parameter sweeps compare them
// (ibcc run writes them to metrics.json; ibcc sweep gathers them into sweep.csv).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ibcc::net {

class Fabric;
struct Scenario;

struct MetricsWindow {
  uint64_t from_ps = 0;
  uint64_t to_ps = 0;  // 0: the end of the run
};

// Scalar metrics by name (docs/configuration.md, "Metrics"):
//   throughput.<flow>       the flow's average payload throughput in the window, Gb/s, over
//                           the log intervals wholly inside it (none: undefined, NaN, for
//                           every throughput metric, total, jain and tvv)
//   group_total.<group>     sum of its flows' throughputs; group_mean.<group> their mean
//   victim, contributors    group_total of the groups named so (when present)
//   total                   all flows, Gb/s
//   jain                    Jain's fairness index of the contributors (else of all flows)
//   tvv                     the seed slides' treatment variation variable: the variance over
//                           log intervals of (max - min) contributor throughput, (Gb/s)^2
//   fecn, becn, cnps        FECN-marked data packets, BECNs taken, CNPs sent (whole run)
//   peak_buffer_credits     the fullest switch input buffer (any port, VL) in the window
//   peak_egress_bytes       the fullest switch egress queue in the window (ECN marking;
//                           lossy output- or shared-buffered switches)
//   pfc_pauses              PFC XOFF frames received (whole run; PFC fabrics)
//   drops                   packets dropped (whole run; lossy fabrics)
//   retransmitted           packets sent again by Go-Back-N (whole run)
// Latencies of data packets delivered in the window (Fabric::set_stats_window), from their
// message's creation at the source to the end of their drain at the sink, in us; per group
// and over all flows (no suffix). Absent when no packet of the group was delivered:
//   latency_{mean,p50,p99,p999,max}_us[.<group>]
//   message_{p50,p99}_us[.<group>]   message completion times
//   pingpong_{min,avg,max}_us.<group>  half round trips of ping-pong flows (as HPCC reports)
std::map<std::string, double> compute_metrics(const Fabric& f, const MetricsWindow& w);

// Every metric name a run of this scenario can have (throughput.<flow> included), so that a
// sweep can check the names it is asked for before anything runs.
std::set<std::string> metric_names(const Scenario& s);

// The same window written as text, for the record ("1000us..2000us").
std::string describe(const MetricsWindow& w, uint64_t end_ps);

}  // namespace ibcc::net
