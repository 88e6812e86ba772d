#include "net/scenario/expected_load.h"

#include <algorithm>

namespace ibcc::net {

std::vector<PortLoad> expected_loads(const Topology& t, const Scenario& s) {
  size_t max_ports = 0;
  for (unsigned n = 0; n < t.num_switches; ++n) max_ports = std::max(max_ports, t.wire[n].size());
  auto at = [&](unsigned sw, unsigned port) { return sw * max_ports + port; };
  std::vector<double> load(t.num_switches * max_ports, 0.0);  // bits/s
  std::vector<std::vector<unsigned>> who(load.size());
  FlowDestinations dests(t);
  for (unsigned fi = 0; fi < s.flows.size(); ++fi) {
    const auto& f = s.flows[fi];
    const int src = t.find(f.src);
    if (src < 0) continue;
    const auto& first = s.links[t.wire[src][1].link];
    double rate = f.rate_bps > 0 ? f.rate_bps : first.data_bps;
    if (f.rate_bps == 0 && s.fabric.hca_inject_bps > 0) rate = std::min(rate, s.fabric.hca_inject_bps);
    for (const auto& [dst, p] : dests.of(f)) {
      if (dst < 0) continue;
      const uint16_t dlid = t.nodes[dst].lid;
      for (int sw = t.wire[src][1].peer; sw >= 0 && t.nodes[sw].is_switch;) {
        const unsigned port = t.lft[sw][dlid];
        const size_t k = at(static_cast<unsigned>(sw), port);
        load[k] += rate * p;
        if (who[k].size() < 6 && std::find(who[k].begin(), who[k].end(), fi) == who[k].end()) who[k].push_back(fi);
        sw = t.wire[sw][port].peer;
      }
    }
  }
  std::vector<PortLoad> rows;
  for (unsigned sw = 0; sw < t.num_switches; ++sw) {
    for (unsigned port = 1; port < t.wire[sw].size(); ++port) {
      const auto& w = t.wire[sw][port];
      if (w.peer < 0) continue;
      const double offered = load[at(sw, port)];
      double cap = s.links[w.link].data_bps;
      if (!t.nodes[w.peer].is_switch && s.fabric.hca_sink_bps > 0) cap = std::min(cap, s.fabric.hca_sink_bps);
      rows.push_back({offered / cap, sw, port, offered, cap, std::move(who[at(sw, port)])});
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const PortLoad& a, const PortLoad& b) { return a.ratio > b.ratio; });
  return rows;
}

}  // namespace ibcc::net
