#include "net/parallel/partition.h"

#include <metis.h>

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

namespace ibcc::net {
namespace {

// METIS weighs with 32-bit integers that it sums: loads in units of 100 Mb/s keep the sum of
// a 65,536-host fabric's far below 2^31.
constexpr double kWeightBps = 1e8;

std::string end_name(const Topology& t, unsigned node, unsigned port) {
  return t.nodes[node].is_switch ? fmt::format("{}/{}", t.nodes[node].name, port) : t.nodes[node].name;
}

// Calls fn(node, port, peer, peer_port, link index) once per link.
template <typename Fn>
void for_each_link(const Topology& t, Fn&& fn) {
  for (unsigned n = 0; n < t.nodes.size(); ++n) {
    for (unsigned p = 1; p < t.wire[n].size(); ++p) {
      const auto& w = t.wire[n][p];
      if (w.peer < 0 || static_cast<unsigned>(w.peer) < n) continue;  // (the other end's turn)
      fn(n, p, static_cast<unsigned>(w.peer), w.peer_port, static_cast<size_t>(w.link));
    }
  }
}

// Why a fabric of `units` units (a switch with its HCAs) takes no `parts` partitions; empty
// when it does.
std::string parts_refusal(size_t parts, size_t units) {
  if (parts <= units) return "";
  return fmt::format("{} partitions of a fabric of {} units (a switch with its HCAs): at most {}", parts, units, units);
}

}  // namespace

PartitionPlan partition_fabric(const Topology& t, const Scenario& s, const std::vector<PortLoad>& loads, unsigned parts,
                               uint64_t ps_per_cycle) {
  PartitionPlan plan;
  plan.parts = parts;
  // Units: a switch with the HCAs linked to it; an HCA linked to no switch stands alone.
  std::vector<uint32_t> unit_of(t.nodes.size());
  unsigned units = 0;
  for (unsigned n = 0; n < t.num_switches; ++n) unit_of[n] = units++;
  for (unsigned n = t.num_switches; n < t.nodes.size(); ++n) {
    const int peer = t.wire[n].size() > 1 ? t.wire[n][1].peer : -1;
    unit_of[n] = peer >= 0 && t.nodes[peer].is_switch ? unit_of[peer] : units++;
  }
  plan.units = units;
  if (parts == 0) throw PartitionError("partitions: at least 1");
  if (const std::string why = parts_refusal(parts, units); !why.empty()) throw PartitionError(why);
  // The load the flows are expected to carry out of each switch port (at most its capacity:
  // beyond it the packets wait, they are not sent faster).
  std::vector<std::vector<double>> out_load(t.nodes.size());
  for (unsigned n = 0; n < t.nodes.size(); ++n) out_load[n].assign(t.wire[n].size(), 0.0);
  for (const PortLoad& l : loads) out_load[l.sw][l.port] = std::min(l.offered, l.capacity);
  std::vector<double> unit_load(units, 0.0);
  for (unsigned n = 0; n < t.num_switches; ++n) {
    for (double b : out_load[n]) unit_load[unit_of[n]] += b;
  }
  // The graph of units: an edge per pair of units a link joins, weighed by what it carries.
  std::vector<std::vector<std::pair<uint32_t, double>>> adj(units);
  for_each_link(t, [&](unsigned n, unsigned p, unsigned peer, unsigned peer_port, size_t) {
    ++plan.links;
    const uint32_t a = unit_of[n], b = unit_of[peer];
    if (a == b) return;
    const double carried = out_load[n][p] + out_load[peer][peer_port];
    adj[a].push_back({b, carried});
    adj[b].push_back({a, carried});
  });
  std::vector<uint32_t> unit_part(units, 0);
  if (parts > 1) {
    std::vector<idx_t> xadj{0}, adjncy, adjwgt, vwgt;
    for (uint32_t u = 0; u < units; ++u) {
      // Parallel links between two units: one edge, their loads summed.
      std::sort(adj[u].begin(), adj[u].end());
      for (size_t k = 0; k < adj[u].size();) {
        double sum = 0;
        size_t j = k;
        for (; j < adj[u].size() && adj[u][j].first == adj[u][k].first; ++j) sum += adj[u][j].second;
        adjncy.push_back(static_cast<idx_t>(adj[u][k].first));
        adjwgt.push_back(1 + static_cast<idx_t>(std::llround(sum / kWeightBps)));
        k = j;
      }
      xadj.push_back(static_cast<idx_t>(adjncy.size()));
      vwgt.push_back(1 + static_cast<idx_t>(std::llround(unit_load[u] / kWeightBps)));
    }
    idx_t nvtxs = static_cast<idx_t>(units), ncon = 1, nparts = static_cast<idx_t>(parts), cut = 0;
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1;
    options[METIS_OPTION_NUMBERING] = 0;
    std::vector<idx_t> part(units, 0);
    const int rc = METIS_PartGraphKway(&nvtxs, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr, adjwgt.data(),
                                       &nparts, nullptr, nullptr, options, &cut, part.data());
    if (rc != METIS_OK) throw PartitionError(fmt::format("METIS could not split the fabric into {} parts (code {})", parts, rc));
    for (uint32_t u = 0; u < units; ++u) unit_part[u] = static_cast<uint32_t>(part[u]);
  }
  plan.part_of.resize(t.nodes.size());
  plan.groups.assign(parts, {});
  for (unsigned n = 0; n < t.nodes.size(); ++n) {
    const uint32_t g = unit_part[unit_of[n]];
    plan.part_of[n] = g;
    (t.nodes[n].is_switch ? plan.groups[g].switches : plan.groups[g].hcas)++;
  }
  for (uint32_t u = 0; u < units; ++u) plan.groups[unit_part[u]].load_bps += unit_load[u];
  // The window: the fastest message across a cut.
  for_each_link(t, [&](unsigned n, unsigned p, unsigned peer, unsigned peer_port, size_t link) {
    if (plan.part_of[n] == plan.part_of[peer]) return;
    ++plan.cut_links;
    const uint64_t prop = s.links[link].propagation_ps;
    const uint64_t cycles = (prop + ps_per_cycle - 1) / ps_per_cycle;  // as the links count it
    const std::string name = end_name(t, n, p) + " - " + end_name(t, peer, peer_port);
    if (cycles == 0) {
      throw PartitionError(fmt::format("the cut link {} has no propagation delay: a message over it arrives in the "
                                       "cycle it is sent, so the groups cannot run apart (give it a propagation)",
                                       name));
    }
    if (plan.window_cycles == 0 || cycles < plan.window_cycles) {
      plan.window_cycles = cycles;
      plan.window_link = name;
      plan.window_link_ps = prop;
    }
  });
  double total = 0, most = 0;
  for (const auto& g : plan.groups) {
    total += g.load_bps;
    most = std::max(most, g.load_bps);
  }
  if (total > 0) {
    plan.imbalance = most / (total / parts);
  } else {
    std::vector<unsigned> count(parts, 0);
    for (uint32_t u = 0; u < units; ++u) ++count[unit_part[u]];
    plan.imbalance = *std::max_element(count.begin(), count.end()) / (static_cast<double>(units) / parts);
  }
  return plan;
}

std::string parallel_refusal(const Scenario& s, unsigned threads) {
  if (threads <= 1) return "";
  // Units as partition_fabric counts them: every switch, and every HCA whose port 1 is not
  // linked to a switch.
  std::set<std::string> switches;
  for (const auto& sw : s.switches) switches.insert(sw.name);
  std::set<std::string> with_switch;
  for (const auto& l : s.links) {
    if (l.a_port == 1 && !switches.count(l.a_node) && switches.count(l.b_node)) with_switch.insert(l.a_node);
    if (l.b_port == 1 && !switches.count(l.b_node) && switches.count(l.a_node)) with_switch.insert(l.b_node);
  }
  return parts_refusal(threads, s.switches.size() + s.hcas.size() - with_switch.size());
}

}  // namespace ibcc::net
