#include "net/observe/metrics.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "net/fabric/fabric.h"
#include "net/observe/latency_histogram.h"
#include "net/scenario/scenario.h"
#include "net/scenario/units.h"

namespace ibcc::net {
namespace {

double jain(const std::vector<double>& xs) {
  double s = 0, q = 0;
  for (double x : xs) {
    s += x;
    q += x * x;
  }
  // Nothing delivered by anyone: fairness is 0/0, undefined (NaN), not 0.
  return q > 0 ? s * s / (static_cast<double>(xs.size()) * q) : std::nan("");
}

}  // namespace

std::map<std::string, double> compute_metrics(const Fabric& f, const MetricsWindow& w) {
  const auto& flows = f.flows();
  const uint64_t end_ps = w.to_ps ? w.to_ps : f.scenario().sim.sim_time_ps;
  std::map<std::string, double> m;
  // Log intervals inside the window.
  std::vector<size_t> in_window;
  uint64_t span_ps = 0;
  for (size_t k = 0; k < f.interval_end_cycle.size(); ++k) {
    const uint64_t t1 = f.ps(f.interval_end_cycle[k]);
    const uint64_t t0 = k ? f.ps(f.interval_end_cycle[k - 1]) : 0;
    if (t0 >= w.from_ps && t1 <= end_ps && t1 > t0) {
      in_window.push_back(k);
      span_ps += t1 - t0;
    }
  }
  auto gbps = [&](size_t k, size_t j) {
    const uint64_t t1 = f.ps(f.interval_end_cycle[k]);
    const uint64_t t0 = k ? f.ps(f.interval_end_cycle[k - 1]) : 0;
    return static_cast<double>(f.interval_bytes[k][j]) * 8.0 / (static_cast<double>(t1 - t0) * 1e-12) / 1e9;
  };
  std::vector<double> avg(flows.size(), 0.0);
  for (size_t j = 0; j < flows.size(); ++j) {
    double bytes = 0;
    for (size_t k : in_window) bytes += static_cast<double>(f.interval_bytes[k][j]);
    // No whole log interval in the window: the throughputs are undefined (NaN: null in
    // metrics.json, empty in sweep.csv), not 0 Gb/s.
    avg[j] = span_ps ? bytes * 8.0 / (static_cast<double>(span_ps) * 1e-12) / 1e9 : std::nan("");
  }
  std::map<std::string, std::vector<size_t>> groups;
  double total = 0;
  for (size_t j = 0; j < flows.size(); ++j) {
    m["throughput." + flows[j].spec.name] = avg[j];
    groups[flows[j].spec.group].push_back(j);
    total += avg[j];
  }
  m["total"] = total;
  for (const auto& [g, members] : groups) {
    if (g.empty()) continue;
    double sum = 0;
    for (size_t j : members) sum += avg[j];
    m["group_total." + g] = sum;
    m["group_mean." + g] = sum / static_cast<double>(members.size());
  }
  if (groups.count("victim")) m["victim"] = m["group_total.victim"];
  std::vector<size_t> contrib;
  if (groups.count("contributors")) {
    contrib = groups["contributors"];
    m["contributors"] = m["group_total.contributors"];
  } else {
    for (size_t j = 0; j < flows.size(); ++j) contrib.push_back(j);
  }
  // Fairness and TVV over the contributors that send in the window.
  std::vector<size_t> active;
  for (size_t j : contrib) {
    const uint64_t stop = flows[j].spec.stop_ps;
    if (flows[j].spec.start_ps <= w.from_ps && stop >= end_ps) active.push_back(j);
  }
  std::vector<double> shares;
  for (size_t j : active) shares.push_back(avg[j]);
  // Undefined without an active contributor: NaN, which metrics.json writes as null and
  // sweep.csv leaves empty (plots draw n/a), never a 0 that reads as "maximally unfair".
  m["jain"] = active.empty() ? std::nan("") : jain(shares);
  std::vector<double> deltas;
  for (size_t k : in_window) {
    if (active.empty()) break;
    double lo = 1e300, hi = -1e300;
    for (size_t j : active) {
      lo = std::min(lo, gbps(k, j));
      hi = std::max(hi, gbps(k, j));
    }
    deltas.push_back(hi - lo);
  }
  double mean = 0, var = 0;
  for (double d : deltas) mean += d;
  if (!deltas.empty()) mean /= static_cast<double>(deltas.size());
  for (double d : deltas) var += (d - mean) * (d - mean);
  m["tvv"] = deltas.empty() ? std::nan("") : var / static_cast<double>(deltas.size());
  double fecn = 0, becn = 0;
  for (const auto& fl : flows) {
    fecn += static_cast<double>(fl.stats.fecn_marked);
    becn += static_cast<double>(fl.stats.becn_received);
  }
  m["fecn"] = fecn;
  m["becn"] = becn;
  m["cnps"] = static_cast<double>(f.cnps);
  uint32_t peak = 0;
  for (const auto& p : f.port_samples) {
    const uint64_t t = f.ps(p.t_cycle);
    if (t > w.from_ps && t <= end_ps) peak = std::max(peak, p.peak);
  }
  m["peak_buffer_credits"] = peak;
  // The other regimes' figures, where the scenario has them.
  const Scenario& sc = f.scenario();
  if (sc.egress_measured() || sc.fabric.pfc) {
    // The most bytes any switch output's egress buffer held; the XOFF frames every port received.
    uint64_t egress = 0, pauses = 0;
    for (const PortReport& r : f.port_reports()) {
      egress = std::max(egress, r.egress_peak);
      pauses += r.pauses_received;
    }
    if (sc.egress_measured()) m["peak_egress_bytes"] = static_cast<double>(egress);
    if (sc.fabric.pfc) m["pfc_pauses"] = static_cast<double>(pauses);
  }
  if (sc.fabric.lossy) m["drops"] = static_cast<double>(f.dropped);
  if (sc.adaptive_routing()) {
    uint64_t ooo = 0;
    for (const auto& fl : flows) ooo += fl.stats.out_of_order;
    m["out_of_order_packets"] = static_cast<double>(ooo);
  }
  if (sc.fabric.transport != FabricParams::Transport::kNone) {
    uint64_t resent = 0;
    for (const auto& fl : flows) resent += fl.stats.retransmitted_packets;
    m["retransmitted"] = static_cast<double>(resent);
  }
  // Latencies, per group and over all flows.
  const double us_per_cycle = static_cast<double>(f.ps_per_cycle()) / 1e6;
  auto add_latency = [&](const std::string& suffix, const std::vector<size_t>& members) {
    LatencyHistogram pkt, msg, rtt, probe;
    for (size_t j : members) {
      pkt.merge(flows[j].stats.packet_latency);
      msg.merge(flows[j].stats.message_latency);
      rtt.merge(flows[j].stats.pingpong_rtt);
      probe.merge(flows[j].stats.probe_rtt);
    }
    if (probe.count()) {
      m["probe_rtt_min_us" + suffix] = static_cast<double>(probe.min()) * us_per_cycle;
      m["probe_rtt_p50_us" + suffix] = static_cast<double>(probe.quantile(0.50)) * us_per_cycle;
      m["probe_rtt_p99_us" + suffix] = static_cast<double>(probe.quantile(0.99)) * us_per_cycle;
      m["probe_rtt_max_us" + suffix] = static_cast<double>(probe.max()) * us_per_cycle;
    }
    if (pkt.count()) {
      m["latency_mean_us" + suffix] = pkt.mean() * us_per_cycle;
      m["latency_p50_us" + suffix] = static_cast<double>(pkt.quantile(0.50)) * us_per_cycle;
      m["latency_p99_us" + suffix] = static_cast<double>(pkt.quantile(0.99)) * us_per_cycle;
      m["latency_p999_us" + suffix] = static_cast<double>(pkt.quantile(0.999)) * us_per_cycle;
      m["latency_max_us" + suffix] = static_cast<double>(pkt.max()) * us_per_cycle;
    }
    if (msg.count()) {
      m["message_p50_us" + suffix] = static_cast<double>(msg.quantile(0.50)) * us_per_cycle;
      m["message_p99_us" + suffix] = static_cast<double>(msg.quantile(0.99)) * us_per_cycle;
    }
    if (rtt.count() && !suffix.empty()) {
      m["pingpong_min_us" + suffix] = static_cast<double>(rtt.min()) * us_per_cycle / 2;
      m["pingpong_avg_us" + suffix] = rtt.mean() * us_per_cycle / 2;
      m["pingpong_max_us" + suffix] = static_cast<double>(rtt.max()) * us_per_cycle / 2;
    }
  };
  std::vector<size_t> everyone(flows.size());
  for (size_t j = 0; j < flows.size(); ++j) everyone[j] = j;
  add_latency("", everyone);
  for (const auto& [g, members] : groups) {
    if (!g.empty()) add_latency("." + g, members);
  }
  return m;
}

std::set<std::string> metric_names(const Scenario& s) {
  std::set<std::string> names = {"total", "jain", "tvv", "fecn", "becn", "cnps", "peak_buffer_credits"};
  if (s.egress_measured()) names.insert("peak_egress_bytes");
  if (s.fabric.pfc) names.insert("pfc_pauses");
  if (s.fabric.lossy) names.insert("drops");
  if (s.adaptive_routing()) names.insert("out_of_order_packets");
  if (s.fabric.transport != FabricParams::Transport::kNone) names.insert("retransmitted");
  const char* latency[] = {"latency_mean_us", "latency_p50_us", "latency_p99_us", "latency_p999_us", "latency_max_us",
                           "message_p50_us", "message_p99_us"};
  for (const char* l : latency) names.insert(l);
  std::set<std::string> groups, pingpong_groups;
  for (const auto& fl : s.flows) {
    names.insert("throughput." + fl.name);
    if (fl.group.empty()) continue;
    groups.insert(fl.group);
    if (fl.pingpong) pingpong_groups.insert(fl.group);
  }
  for (const auto& g : groups) {
    names.insert("group_total." + g);
    names.insert("group_mean." + g);
    if (g == "victim" || g == "contributors") names.insert(g);
    for (const char* l : latency) names.insert(std::string(l) + "." + g);
  }
  for (const auto& g : pingpong_groups) {
    for (const char* l : {"pingpong_min_us.", "pingpong_avg_us.", "pingpong_max_us."}) names.insert(l + g);
  }
  const bool probes = s.cc.dcqcn.rtt_probe_ps > 0 && s.cc.dcqcn_reaction();
  if (probes) {
    for (const char* l : {"probe_rtt_min_us", "probe_rtt_p50_us", "probe_rtt_p99_us", "probe_rtt_max_us"}) {
      names.insert(l);
      for (const auto& g : groups) names.insert(std::string(l) + "." + g);
    }
  }
  return names;
}

std::string describe(const MetricsWindow& w, uint64_t end_ps) {
  return format_time_ps(w.from_ps) + ".." + format_time_ps(w.to_ps ? w.to_ps : end_ps);
}

}  // namespace ibcc::net
