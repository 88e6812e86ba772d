// The channel dependency graph of a fabric's routing (topology.h, find_dependency_cycle).
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "net/scenario/topology.h"

namespace ibcc::net {

DependencyCheck find_dependency_cycle(const Topology& t) {
  // Channels: the switch-to-switch ports, each the link out of it.
  const unsigned ns = t.num_switches;
  std::vector<std::vector<int32_t>> chan(ns);
  std::vector<std::pair<unsigned, unsigned>> where;  // channel -> (switch, port)
  for (unsigned sw = 0; sw < ns; ++sw) {
    chan[sw].assign(t.wire[sw].size(), -1);
    for (unsigned p = 1; p < t.wire[sw].size(); ++p) {
      const int peer = t.wire[sw][p].peer;
      if (peer >= 0 && static_cast<unsigned>(peer) < ns) {
        chan[sw][p] = static_cast<int32_t>(where.size());
        where.emplace_back(sw, p);
      }
    }
  }
  std::vector<bool> entry(ns, false);  // switches with an HCA: where packets enter
  for (unsigned h = ns; h < t.nodes.size(); ++h) {
    for (const auto& w : t.wire[h]) {
      if (w.peer >= 0 && static_cast<unsigned>(w.peer) < ns) entry[static_cast<unsigned>(w.peer)] = true;
    }
  }
  // Per destination, the channels a packet to it can hold and, from each, the channels it can
  // ask for next at the switch it leads to: the forwarding table's port, or any port of the AR
  // group the switch chooses among.
  std::vector<std::vector<uint32_t>> next(where.size());
  std::vector<size_t> compacted(where.size(), 0);
  std::vector<uint32_t> seen(where.size(), 0);
  std::vector<std::pair<unsigned, int32_t>> queue;  // (switch, channel it came in on; -1: from an HCA)
  DependencyCheck out;
  out.channels = where.size();
  uint32_t stamp = 0;
  // Destinations routed alike (the same port or AR group at every switch: with adaptive
  // routing, every HCA of one leaf) have the same dependencies: one of them is followed.
  std::set<std::vector<uint32_t>> columns;
  std::vector<uint32_t> column(ns);
  for (unsigned h = ns; h < t.nodes.size(); ++h) {
    const Lid dlid = t.nodes[h].lid;
    for (unsigned sw = 0; sw < ns; ++sw) {
      const uint16_t port = dlid < t.lft[sw].size() ? t.lft[sw][dlid] : 0;
      const uint16_t g = t.ar_group.empty() || dlid >= t.ar_group[sw].size() ? 0 : t.ar_group[sw][dlid];
      // A port to an HCA leads nowhere further: which one does not matter.
      const int peer = port && port < t.wire[sw].size() ? t.wire[sw][port].peer : -1;
      const bool to_hca = peer >= 0 && static_cast<unsigned>(peer) >= ns;
      column[sw] = g ? 0x10000u | g : to_hca ? 0x20000u : port;
    }
    if (!columns.insert(column).second) continue;
    ++stamp;
    queue.clear();
    for (unsigned sw = 0; sw < ns; ++sw) {
      if (entry[sw]) queue.emplace_back(sw, -1);
    }
    for (size_t qi = 0; qi < queue.size(); ++qi) {
      const auto [sw, in] = queue[qi];
      if (column[sw] == 0 || column[sw] == 0x20000u) continue;  // no route, or to an HCA
      const uint16_t lft_port = static_cast<uint16_t>(column[sw] & 0xffffu);
      const std::vector<uint16_t>* group = column[sw] & 0x10000u ? &t.ar_groups[sw][lft_port] : nullptr;
      const uint16_t* first = group ? group->data() : &lft_port;
      const uint16_t* last = group ? group->data() + group->size() : &lft_port + 1;
      for (const uint16_t* it = first; it != last; ++it) {
        const uint16_t p = *it;
        const int32_t c = p < chan[sw].size() ? chan[sw][p] : -1;
        if (c < 0) continue;  // to an HCA: it always drains
        if (in >= 0) {
          auto& n = next[static_cast<size_t>(in)];
          n.push_back(static_cast<uint32_t>(c));
          if (n.size() > 2 * compacted[static_cast<size_t>(in)] + 64) {
            std::sort(n.begin(), n.end());
            n.erase(std::unique(n.begin(), n.end()), n.end());
            compacted[static_cast<size_t>(in)] = n.size();
          }
        }
        if (seen[static_cast<size_t>(c)] != stamp) {
          seen[static_cast<size_t>(c)] = stamp;
          queue.emplace_back(static_cast<unsigned>(t.wire[sw][p].peer), c);
        }
      }
    }
  }
  for (auto& n : next) {
    std::sort(n.begin(), n.end());
    n.erase(std::unique(n.begin(), n.end()), n.end());
    out.dependencies += n.size();
  }
  // A cycle: depth-first search, iterative (0 unvisited, 1 on the stack, 2 done).
  std::vector<uint8_t> state(where.size(), 0);
  std::vector<std::pair<uint32_t, size_t>> stack;
  auto name = [&](uint32_t c) { return fmt::format("{}/{}", t.nodes[where[c].first].name, where[c].second); };
  for (uint32_t root = 0; root < where.size() && out.cycle.empty(); ++root) {
    if (state[root]) continue;
    stack.emplace_back(root, 0);
    state[root] = 1;
    while (!stack.empty() && out.cycle.empty()) {
      auto& [c, i] = stack.back();
      if (i == next[c].size()) {
        state[c] = 2;
        stack.pop_back();
        continue;
      }
      const uint32_t d = next[c][i++];
      if (state[d] == 1) {
        auto from = std::find_if(stack.begin(), stack.end(), [&](const auto& e) { return e.first == d; });
        for (auto it = from; it != stack.end(); ++it) out.cycle += name(it->first) + " -> ";
        out.cycle += name(d);
      } else if (state[d] == 0) {
        state[d] = 1;
        stack.emplace_back(d, 0);
      }
    }
    stack.clear();
  }
  return out;
}

}  // namespace ibcc::net
