// Wiring checks, LID assignment and routing (shortest path, up*/down*, dimension order,
// or explicit LFTs).
#include "net/scenario/topology.h"

#include <algorithm>
#include <deque>
#include <limits>

#include <fmt/format.h>


namespace ibcc::net {

std::optional<NodePort> parse_node_port(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == 0 || text.empty()) return std::nullopt;
  if (slash == std::string::npos) return NodePort{text, 0};
  const std::string digits = text.substr(slash + 1);
  if (digits.empty() || digits.size() > 3 || digits[0] == '0' ||
      digits.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  const unsigned port = static_cast<unsigned>(std::stoul(digits));
  if (port > 254) return std::nullopt;
  return NodePort{text.substr(0, slash), port};
}

void check_rtl_blocks(const Scenario& s, const Topology& t) {
  for (size_t i = 0; i < s.cc.rtl.size(); ++i) {
    const std::string& name = s.cc.rtl[i];
    const auto np = parse_node_port(name);
    const int node = np ? t.find(np->node) : -1;
    bool ok = s.cc.enabled && node >= 0;
    if (ok && np->port == 0) {
      ok = !t.nodes[node].is_switch && s.cc.reaction == Reaction::kIbcc;
    } else if (ok) {
      const unsigned port = np->port;
      ok = t.nodes[node].is_switch && port <= t.nodes[node].ports && t.wire[node][port].peer >= 0 &&
           s.cc.marking == Marking::kFecn;
    }
    if (!ok) {
      const int line = i < s.cc.rtl_lines.size() ? s.cc.rtl_lines[i] : 0;
      throw ScenarioError(fmt::format("{}{}: cc.rtl: no CC block named '{}' (expected SWITCH/PORT of a linked switch "
                                      "port with cc.marking: fecn, or the name of an HCA with cc.reaction: ibcc; cc.enabled)",
                                      s.file, line > 0 ? fmt::format(":{}", line) : "", name));
    }
  }
}

namespace {

constexpr unsigned kInf = std::numeric_limits<unsigned>::max();

[[noreturn]] void fail_at(const Scenario& s, int line, const std::string& what) {
  if (line > 0) throw ScenarioError(fmt::format("{}:{}: {}", s.file, line, what));
  throw ScenarioError(fmt::format("{}: {}", s.file, what));
}

// Ports of switch `sw` toward switch neighbours, as (port, neighbour).
const std::vector<std::pair<unsigned, unsigned>>& switch_neighbours(const Topology& t, unsigned sw) {
  return t.switch_links[sw];
}

// Hops from the nearest of `sources` to every switch over switch links, moving from u to v
// only where may_move(u, v); kInf where unreachable.
template <typename MayMove>
std::vector<unsigned> hops_from(const Topology& t, const std::vector<unsigned>& sources, MayMove may_move) {
  std::vector<unsigned> dist(t.num_switches, kInf);
  std::deque<unsigned> q;
  for (unsigned src : sources) {
    dist[src] = 0;
    q.push_back(src);
  }
  while (!q.empty()) {
    const unsigned u = q.front();
    q.pop_front();
    for (const auto& [p, v] : switch_neighbours(t, u)) {
      if (dist[v] == kInf && may_move(u, v)) {
        dist[v] = dist[u] + 1;
        q.push_back(v);
      }
    }
  }
  return dist;
}

// The HCAs (node, port on the leaf) attached to one leaf switch: routes toward them differ
// only in the LFT entry chosen among equal candidates, so the searches run once per leaf.
using LeafHcas = std::vector<std::pair<unsigned, unsigned>>;

// Among a switch's equal candidates for `dlid`: d-mod-k. `spread` is the product of the
// candidate counts of the levels below (1 at the leaves), so that successive levels of a
// fat tree use different digits of the LID and every top switch carries traffic.
uint16_t pick_spread(const std::vector<uint16_t>& candidates, Lid dlid, uint64_t spread) {
  return candidates.empty() ? 0 : candidates[(dlid / spread) % candidates.size()];
}

void route_shortest(Topology& t, unsigned leaf, const LeafHcas& hcas) {
  const std::vector<unsigned> dist = hops_from(t, {leaf}, [](unsigned, unsigned) { return true; });
  std::vector<uint16_t> cand;
  for (unsigned sw = 0; sw < t.num_switches; ++sw) {
    if (sw == leaf) {
      for (const auto& [hca, port] : hcas) t.lft[sw][t.nodes[hca].lid] = static_cast<uint16_t>(port);
      continue;
    }
    if (dist[sw] == kInf) continue;
    cand.clear();
    for (const auto& [p, v] : switch_neighbours(t, sw)) {
      if (dist[v] + 1 == dist[sw]) cand.push_back(static_cast<uint16_t>(p));
    }
    for (const auto& [hca, port] : hcas) {
      const Lid dlid = t.nodes[hca].lid;
      t.lft[sw][dlid] = pick_spread(cand, dlid, 1);
    }
  }
}

// up*/down*: ranks by BFS distance from the roots; a move s->u is "up" when (rank, index)
// of u is smaller. A switch with a down-only path to the destination always takes it, so a
// packet never turns up after going down (no cyclic channel dependency).
struct UpDown {
  const std::vector<unsigned>& rank;
  std::vector<unsigned> order;   // switches, up-neighbours first
  std::vector<uint64_t> spread;  // [switch] d-mod-k divisor of its upward choice
  bool up(unsigned from, unsigned to) const {
    return rank[to] < rank[from] || (rank[to] == rank[from] && to < from);
  }
};

UpDown make_updown(const Topology& t, const std::vector<unsigned>& rank) {
  UpDown ud{rank, {}, {}};
  ud.order.resize(t.num_switches);
  for (unsigned i = 0; i < t.num_switches; ++i) ud.order[i] = i;
  std::sort(ud.order.begin(), ud.order.end(), [&](unsigned a, unsigned b) { return ud.up(b, a); });
  // spread: leaves (no down-neighbour) 1; a switch multiplies the largest spread of the
  // switches below it by their number of up-links.
  ud.spread.assign(t.num_switches, 1);
  for (auto it = ud.order.rbegin(); it != ud.order.rend(); ++it) {
    const unsigned s = *it;
    unsigned ups = 0;
    for (const auto& [p, u] : switch_neighbours(t, s)) ups += ud.up(s, u);
    for (const auto& [p, u] : switch_neighbours(t, s)) {
      if (ud.up(s, u)) ud.spread[u] = std::max(ud.spread[u], ud.spread[s] * ups);
    }
  }
  return ud;
}

void route_updown(Topology& t, const UpDown& ud, unsigned leaf, const LeafHcas& hcas) {
  auto up = [&](unsigned from, unsigned to) { return ud.up(from, to); };
  // d_down[s]: hops from s to the leaf using down moves only (a search from the leaf going up).
  const std::vector<unsigned> d_down = hops_from(t, {leaf}, up);
  // d_any[s]: go up some hops, then down. Up-neighbours come earlier in (rank, index) order.
  std::vector<unsigned> d_any(t.num_switches, kInf);
  for (unsigned s : ud.order) {
    unsigned best = d_down[s];
    for (const auto& [p, u] : switch_neighbours(t, s)) {
      if (up(s, u) && d_any[u] != kInf) best = std::min(best, d_any[u] + 1);
    }
    d_any[s] = best;
  }
  std::vector<uint16_t> cand;
  for (unsigned sw = 0; sw < t.num_switches; ++sw) {
    if (sw == leaf) {
      for (const auto& [hca, port] : hcas) t.lft[sw][t.nodes[hca].lid] = static_cast<uint16_t>(port);
      continue;
    }
    cand.clear();
    const bool going_down = d_down[sw] != kInf;
    if (going_down) {
      for (const auto& [p, v] : switch_neighbours(t, sw)) {
        if (up(v, sw) && d_down[v] + 1 == d_down[sw]) cand.push_back(static_cast<uint16_t>(p));
      }
    } else if (d_any[sw] != kInf) {
      for (const auto& [p, u] : switch_neighbours(t, sw)) {
        if (up(sw, u) && d_any[u] != kInf && d_any[u] + 1 == d_any[sw]) cand.push_back(static_cast<uint16_t>(p));
      }
    }
    const uint64_t spread = going_down ? 1 : ud.spread[sw];
    for (const auto& [hca, port] : hcas) {
      const Lid dlid = t.nodes[hca].lid;
      t.lft[sw][dlid] = pick_spread(cand, dlid, spread);
    }
    if (!t.ar_group.empty() && cand.size() > 1) {
      // The candidates are the AR group: a switch has few distinct ones (a leaf's up-ports).
      auto& groups = t.ar_groups[sw];
      auto it = std::find(groups.begin() + 1, groups.end(), cand);
      if (it == groups.end()) it = groups.insert(groups.end(), cand);
      const auto g = static_cast<uint16_t>(it - groups.begin());
      for (const auto& [hca, port] : hcas) t.ar_group[sw][t.nodes[hca].lid] = g;
    }
  }
}

// Dimension order on a generated mesh or torus: x first, then y; on a torus the shorter way
// round (ties: +).
void route_dor(Topology& t, const Scenario& s, unsigned hca, unsigned leaf, unsigned leaf_port) {
  const Lid dlid = t.nodes[hca].lid;
  const unsigned X = s.mesh_x, Y = s.mesh_y;
  const unsigned hps = t.nodes[0].ports - 4;
  const unsigned px = hps + 1, nx = px + 1, py = px + 2, ny = px + 3;
  const unsigned dx = leaf % X, dy = leaf / X;
  for (unsigned sw = 0; sw < t.num_switches; ++sw) {
    const unsigned x = sw % X, y = sw / X;
    unsigned port = 0;
    auto dir = [&](unsigned from, unsigned to, unsigned size, unsigned plus, unsigned minus) {
      if (!s.torus) return to > from ? plus : minus;
      const unsigned fwd = (to + size - from) % size;
      return fwd <= size - fwd ? plus : minus;
    };
    if (sw == leaf) port = leaf_port;
    else if (x != dx) port = dir(x, dx, X, px, nx);
    else port = dir(y, dy, Y, py, ny);
    t.lft[sw][dlid] = static_cast<uint16_t>(port);
  }
}

}  // namespace

std::vector<unsigned> Topology::route(unsigned src, unsigned dst, std::string* why) const {
  std::vector<unsigned> path{src};
  const Lid dlid = nodes[dst].lid;
  int at = wire[src][1].peer;
  unsigned hops = 0;
  while (at >= 0 && static_cast<unsigned>(at) != dst) {
    path.push_back(static_cast<unsigned>(at));
    if (!nodes[at].is_switch) {
      *why = fmt::format("the route ends at {} instead of {}", nodes[at].name, nodes[dst].name);
      return {};
    }
    if (++hops > nodes.size()) {
      *why = fmt::format("the route from {} to {} loops (through {})", nodes[src].name, nodes[dst].name, nodes[at].name);
      return {};
    }
    const uint16_t port = dlid < lft[at].size() ? lft[at][dlid] : 0;
    if (port == 0 || wire[at][port].peer < 0) {
      *why = fmt::format("switch {} has no forwarding entry for LID {} ({})", nodes[at].name, dlid, nodes[dst].name);
      return {};
    }
    at = wire[at][port].peer;
  }
  if (at < 0) {
    *why = nodes[src].name + " is not connected";
    return {};
  }
  path.push_back(dst);
  return path;
}

bool Topology::reaches(unsigned src, unsigned dst) const {
  const int first = wire[src][1].peer;
  if (first < 0) return false;
  if (static_cast<unsigned>(first) == dst) return true;
  if (!nodes[first].is_switch) return false;
  if (reach_.empty()) reach_.resize(nodes.size() - num_switches);
  std::vector<uint8_t>& ok = reach_[dst - num_switches];
  if (ok.empty()) {
    // Follow each switch's entry for dst; 2: on the current walk (a loop), 3: not known yet.
    const Lid dlid = nodes[dst].lid;
    ok.assign(num_switches, 3);
    std::vector<unsigned> walk;
    for (unsigned start = 0; start < num_switches; ++start) {
      unsigned at = start;
      uint8_t result = 0;
      while (true) {
        if (ok[at] == 0 || ok[at] == 1) {
          result = ok[at];
          break;
        }
        if (ok[at] == 2) {  // a loop
          result = 0;
          break;
        }
        ok[at] = 2;
        walk.push_back(at);
        const uint16_t port = dlid < lft[at].size() ? lft[at][dlid] : 0;
        const int peer = port == 0 || port >= wire[at].size() ? -1 : wire[at][port].peer;
        if (peer < 0) {
          result = 0;
          break;
        }
        if (static_cast<unsigned>(peer) == dst) {
          result = 1;
          break;
        }
        if (!nodes[peer].is_switch) {
          result = 0;
          break;
        }
        at = static_cast<unsigned>(peer);
      }
      for (unsigned w : walk) ok[w] = result;
      walk.clear();
    }
  }
  return ok[static_cast<unsigned>(first)] == 1;
}

Topology build_topology(const Scenario& s) {
  Topology t;
  if (s.hcas.empty()) fail_at(s, 0, "topology: no HCAs");
  auto add = [&](const std::string& name, bool sw, unsigned ports, Lid lid, int line) {
    if (t.index.count(name)) fail_at(s, line, fmt::format("topology: the name '{}' is used twice", name));
    t.index[name] = static_cast<unsigned>(t.nodes.size());
    t.nodes.push_back({name, sw, ports, lid, line});
    t.wire.emplace_back(ports + 1);
  };
  for (const auto& sw : s.switches) add(sw.name, true, sw.ports, sw.lid, sw.line);
  t.num_switches = static_cast<unsigned>(t.nodes.size());
  for (const auto& h : s.hcas) add(h.name, false, 1, h.lid, h.line);

  for (size_t i = 0; i < s.links.size(); ++i) {
    const LinkSpec& l = s.links[i];
    const int a = t.find(l.a_node), b = t.find(l.b_node);
    if (a < 0) fail_at(s, l.line, fmt::format("topology.links[].a: no switch or HCA named '{}'", l.a_node));
    if (b < 0) fail_at(s, l.line, fmt::format("topology.links[].b: no switch or HCA named '{}'", l.b_node));
    if (a == b) fail_at(s, l.line, fmt::format("topology.links[]: '{}' is linked to itself", l.a_node));
    if (l.a_port > t.nodes[a].ports) fail_at(s, l.line, fmt::format("topology.links[].a: {} has ports 1..{}, got {}", l.a_node, t.nodes[a].ports, l.a_port));
    if (l.b_port > t.nodes[b].ports) fail_at(s, l.line, fmt::format("topology.links[].b: {} has ports 1..{}, got {}", l.b_node, t.nodes[b].ports, l.b_port));
    if (!t.nodes[a].is_switch && !t.nodes[b].is_switch) fail_at(s, l.line, "topology.links[]: two HCAs linked directly (put a switch between them)");
    for (auto [n, p] : {std::pair<int, unsigned>{a, l.a_port}, {b, l.b_port}}) {
      if (t.wire[n][p].peer >= 0) {
        fail_at(s, l.line, fmt::format("topology.links[]: port {}/{} is already linked (line {})", t.nodes[n].name, p,
                                       s.links[t.wire[n][p].link].line));
      }
    }
    if (l.data_bps <= 0) fail_at(s, l.line, "topology.links[]: the link has no rate");
    t.wire[a][l.a_port] = {b, l.b_port, static_cast<int>(i)};
    t.wire[b][l.b_port] = {a, l.a_port, static_cast<int>(i)};
  }
  t.switch_links.assign(t.num_switches, {});
  for (unsigned sw = 0; sw < t.num_switches; ++sw) {
    for (unsigned p = 1; p <= t.nodes[sw].ports; ++p) {
      const int peer = t.wire[sw][p].peer;
      if (peer >= 0 && t.nodes[peer].is_switch) t.switch_links[sw].emplace_back(p, static_cast<unsigned>(peer));
    }
  }
  for (unsigned n = t.num_switches; n < t.nodes.size(); ++n) {
    if (t.wire[n][1].peer < 0) fail_at(s, t.nodes[n].line, fmt::format("topology: HCA {} is not linked to a switch", t.nodes[n].name));
  }

  // LIDs: explicit ones first (1..kMaxUnicastLid), then HCAs from 1 and switches after,
  // skipping used ones. Room for every node past the explicit ones.
  t.lid_node.assign(kMaxUnicastLid + 1 + t.nodes.size(), -1);
  for (unsigned n = 0; n < t.nodes.size(); ++n) {
    if (t.nodes[n].lid == 0) continue;
    if (t.lid_node[t.nodes[n].lid] >= 0) {
      fail_at(s, t.nodes[n].line, fmt::format("topology: LID {} of {} is already {}'s", t.nodes[n].lid, t.nodes[n].name,
                                              t.nodes[t.lid_node[t.nodes[n].lid]].name));
    }
    t.lid_node[t.nodes[n].lid] = static_cast<int>(n);
  }
  Lid next = 1;
  auto assign = [&](unsigned n) {
    if (t.nodes[n].lid) return;
    while (t.lid_node[next] >= 0) ++next;
    t.nodes[n].lid = next;
    t.lid_node[next] = static_cast<int>(n);
  };
  for (unsigned n = t.num_switches; n < t.nodes.size(); ++n) assign(n);
  for (unsigned n = 0; n < t.num_switches; ++n) assign(n);
  Lid max_lid = 0;
  for (const auto& n : t.nodes) max_lid = std::max(max_lid, n.lid);
  // (A generated fabric is counted before it is built: scenario_yaml.cpp.)
  if (max_lid > kMaxUnicastLid && s.fabric.credited()) {
    fail_at(s, 0, fmt::format("topology: {} switches and HCAs need LIDs up to {}; an IB subnet has the unicast LIDs 1..{} "
                              "(an Ethernet fabric, fabric.flow_control pfc or none, has no such limit)",
                              t.nodes.size(), max_lid, kMaxUnicastLid));
  }
  t.lid_node.resize(max_lid + 1u);

  // Forwarding tables.
  t.lft.assign(t.num_switches, std::vector<uint16_t>(max_lid + 1u, 0));
  const std::string& r = s.fabric.routing;
  std::vector<unsigned> rank;
  if (r == "updown") {
    std::vector<unsigned> roots;
    for (const auto& root : s.fabric.updown_roots) {
      const int n = t.find(root);
      if (n < 0 || !t.nodes[n].is_switch) fail_at(s, 0, "fabric.updown_roots: no switch named '" + root + "'");
      roots.push_back(static_cast<unsigned>(n));
    }
    if (roots.empty()) roots.push_back(0);
    rank = hops_from(t, roots, [](unsigned, unsigned) { return true; });
  }
  if (r == "dor" && (s.mesh_x == 0 || s.mesh_x * s.mesh_y != t.num_switches)) {
    fail_at(s, 0, "fabric.routing: dor needs a generated mesh or torus (topology.generate.family: mesh|torus)");
  }
  if (r == "shortest" || r == "updown") {
    std::vector<LeafHcas> on_leaf(t.num_switches);
    for (unsigned h = t.num_switches; h < t.nodes.size(); ++h) {
      on_leaf[static_cast<unsigned>(t.wire[h][1].peer)].emplace_back(h, t.wire[h][1].peer_port);
    }
    const UpDown ud = r == "updown" ? make_updown(t, rank) : UpDown{rank, {}, {}};
    if (r == "updown" && s.adaptive_routing()) {
      t.ar_group.assign(t.num_switches, std::vector<uint16_t>(max_lid + 1u, 0));
      t.ar_groups.assign(t.num_switches, std::vector<std::vector<uint16_t>>(1));  // (group 0: none)
    }
    for (unsigned leaf = 0; leaf < t.num_switches; ++leaf) {
      if (on_leaf[leaf].empty()) continue;
      if (r == "shortest") route_shortest(t, leaf, on_leaf[leaf]);
      else route_updown(t, ud, leaf, on_leaf[leaf]);
    }
  } else if (r == "dor") {
    for (unsigned h = t.num_switches; h < t.nodes.size(); ++h) {
      route_dor(t, s, h, static_cast<unsigned>(t.wire[h][1].peer), t.wire[h][1].peer_port);
    }
  }
  if (r == "explicit") {
    for (unsigned sw = 0; sw < t.num_switches; ++sw) {
      const auto& lft = s.switches[sw].lft;
      for (size_t lid = 0; lid < lft.size(); ++lid) {
        if (lid > max_lid) fail_at(s, s.switches[sw].line, fmt::format("{}.lft: LID {} belongs to no node", s.switches[sw].name, lid));
        if (lft[lid]) {
          if (t.wire[sw][lft[lid]].peer < 0) {
            fail_at(s, s.switches[sw].line, fmt::format("{}.lft: LID {} goes to unconnected port {}", s.switches[sw].name, lid, lft[lid]));
          }
          t.lft[sw][lid] = lft[lid];
        }
      }
    }
  }
  return t;
}

SharedSeq<int> UniformDestinations::of(const FlowSpec& f) {
  auto& ids = ids_[f.uniform_dsts.all().get()];
  if (!ids) {
    std::vector<int> all;
    if (f.uniform_dsts.all()) {
      all.reserve(f.uniform_dsts.all()->size());
      for (const auto& d : *f.uniform_dsts.all()) all.push_back(t_.find(d));
    }
    ids = std::make_shared<const std::vector<int>>(std::move(all));
  }
  return f.uniform_dsts.same_view(ids);
}

}  // namespace ibcc::net
