#include "net/scenario/expected_load.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace ibcc::net {

namespace {

constexpr size_t kNamed = 6;  // flows named per port

// Up to kNamed flow indices, the smallest seen, in order.
class FirstFlows {
 public:
  bool add(unsigned fi) {
    if (n_ == kNamed && fi > f_[n_ - 1]) return false;
    size_t at = 0;
    while (at < n_ && f_[at] < fi) ++at;
    if (at < n_ && f_[at] == fi) return true;
    if (n_ < kNamed) ++n_;
    for (size_t k = n_ - 1; k > at; --k) f_[k] = f_[k - 1];
    f_[at] = fi;
    return true;
  }
  void add(const FirstFlows& o) {
    if (n_ == 0) {
      *this = o;
      return;
    }
    for (size_t k = 0; k < o.n_ && add(o.f_[k]); ++k) {
    }
  }
  bool full_below(unsigned fi) const { return n_ == kNamed && fi > f_[n_ - 1]; }
  void clear() { n_ = 0; }
  std::vector<unsigned> list() const { return {f_, f_ + n_}; }

 private:
  unsigned f_[kNamed] = {};
  size_t n_ = 0;
};

// Offered bits/s and the first flows per switch output, in flat arrays.
class PortTable {
 public:
  explicit PortTable(const Topology& t) : t_(t) {
    for (unsigned n = 0; n < t.num_switches; ++n) stride_ = std::max(stride_, t.wire[n].size());
    bps_.assign(t.num_switches * stride_, 0.0);
    who_.resize(bps_.size());
  }
  size_t at(unsigned sw, unsigned port) const { return sw * stride_ + port; }
  double& bps(size_t k) { return bps_[k]; }
  FirstFlows& who(size_t k) { return who_[k]; }

  // The next switch from `sw` towards `dlid` (-1: the route leaves the switches) and the port.
  int next(int sw, Lid dlid, size_t* k) const {
    const unsigned port = t_.lft[sw][dlid];
    *k = at(static_cast<unsigned>(sw), port);
    const int peer = t_.wire[sw][port].peer;
    return peer >= 0 && t_.nodes[peer].is_switch ? peer : -1;
  }
  // One flow's load to one destination, hop by hop.
  void walk(int sw, Lid dlid, double bps, unsigned fi) {
    while (sw >= 0 && t_.nodes[sw].is_switch) {
      size_t k;
      const int nxt = next(sw, dlid, &k);
      bps_[k] += bps;
      who_[k].add(fi);
      sw = nxt;
    }
  }

 private:
  const Topology& t_;
  size_t stride_ = 0;
  std::vector<double> bps_;
  std::vector<FirstFlows> who_;
};

// The flows that draw from one shared uniform list and enter the fabric at one switch, each
// leaving out only a few of the list's entries (itself).
struct UniformGroup {
  int first_switch;
  struct Member {
    unsigned flow;
    double bps;  // rate x probability per destination
  };
  std::vector<Member> members;
  double total_bps = 0;
  FirstFlows head;  // the first members
};
constexpr size_t kGroupLeftOut = 4;  // a view leaving out more is walked on its own

// One shared list: its groups, where each node stands in it, and who leaves each entry out.
struct SharedList {
  const std::vector<int>* ids;
  std::vector<size_t> groups;
  std::vector<std::pair<int, uint32_t>> by_node;                 // (node, entry), sorted
  std::vector<std::pair<uint32_t, std::pair<size_t, size_t>>> left_out;  // (entry, (group, member))
};

// Loads of grouped flows, one destination at a time: every group injects its weight for the
// destination at its first switch, and the routes towards the destination (a tree in the
// LFTs) carry the sums down hop by hop, each switch once. A uniform pattern over n hosts on
// s switches costs O(n x s) steps instead of O(n^2 x hops).
class TreeLoads {
 public:
  TreeLoads(const Topology& t, PortTable* ports)
      : t_(t), ports_(ports), inflow_(t.num_switches, 0.0), first_(t.num_switches), indeg_(t.num_switches, 0),
        seen_(t.num_switches, 0) {}

  void inject(int sw, double bps, const UniformGroup& g, const std::vector<size_t>& absent_members) {
    if (!seen_[sw]) {
      seen_[sw] = 1;
      sources_.push_back(sw);
    }
    inflow_[sw] += bps;
    if (absent_members.empty()) {
      first_[sw].add(g.head);
      return;
    }
    for (size_t m = 0; m < g.members.size(); ++m) {
      if (first_[sw].full_below(g.members[m].flow)) break;
      if (std::find(absent_members.begin(), absent_members.end(), m) == absent_members.end()) {
        first_[sw].add(g.members[m].flow);
      }
    }
  }

  void flow_to(Lid dlid) {
    // The switches the injected load passes, each counting the switches that feed it.
    for (int sw : sources_) seen_[sw] = 0;
    for (int sw : sources_) {
      for (int u = sw; u >= 0 && !seen_[u];) {
        seen_[u] = 1;
        visited_.push_back(u);
        size_t k;
        u = ports_->next(u, dlid, &k);
        if (u >= 0) ++indeg_[u];
      }
    }
    for (int u : visited_) {
      if (indeg_[u] == 0) ready_.push_back(u);
    }
    while (!ready_.empty()) {
      const int u = ready_.back();
      ready_.pop_back();
      size_t k;
      const int nxt = ports_->next(u, dlid, &k);
      ports_->bps(k) += inflow_[u];
      ports_->who(k).add(first_[u]);
      if (nxt >= 0) {
        inflow_[nxt] += inflow_[u];
        first_[nxt].add(first_[u]);
        if (--indeg_[nxt] == 0) ready_.push_back(nxt);
      }
    }
    for (int u : visited_) {
      seen_[u] = 0;
      inflow_[u] = 0;
      first_[u].clear();
    }
    visited_.clear();
    sources_.clear();
  }

 private:
  const Topology& t_;
  PortTable* ports_;
  std::vector<double> inflow_;
  std::vector<FirstFlows> first_;
  std::vector<unsigned> indeg_;
  std::vector<char> seen_;
  std::vector<int> sources_, visited_, ready_;
};

}  // namespace

std::vector<PortLoad> expected_loads(const Topology& t, const Scenario& s) {
  PortTable ports(t);
  FlowDestinations dests(t);
  std::vector<UniformGroup> groups;
  std::vector<SharedList> lists;
  std::map<const void*, size_t> list_of;
  std::map<std::pair<int, const void*>, size_t> group_of;
  for (unsigned fi = 0; fi < s.flows.size(); ++fi) {
    const auto& f = s.flows[fi];
    const int src = t.find(f.src);
    if (src < 0) continue;
    const auto& first = s.links[t.wire[src][1].link];
    double rate = f.rate_bps > 0 ? f.rate_bps : first.data_bps;
    if (f.rate_bps == 0 && s.fabric.hca_inject_bps > 0) rate = std::min(rate, s.fabric.hca_inject_bps);
    const int first_switch = t.wire[src][1].peer;
    if (first_switch < 0 || !t.nodes[first_switch].is_switch) continue;
    const SharedSeq<int> uniform = f.dst.empty() ? dests.uniform(f) : SharedSeq<int>();
    if (uniform.empty() || uniform.left_out() > kGroupLeftOut) {
      for (const auto& [dst, p] : dests.of(f)) {
        if (dst >= 0) ports.walk(first_switch, t.nodes[dst].lid, rate * p, fi);
      }
      continue;
    }
    const double hot = f.hot_dsts.empty() ? 0.0 : f.hot_share;
    for (const auto& d : f.hot_dsts) {
      const int dst = t.find(d);
      if (dst >= 0) ports.walk(first_switch, t.nodes[dst].lid, rate * hot / static_cast<double>(f.hot_dsts.size()), fi);
    }
    const void* shared = uniform.all().get();
    auto l = list_of.find(shared);
    if (l == list_of.end()) {
      l = list_of.emplace(shared, lists.size()).first;
      lists.push_back({uniform.all().get(), {}, {}, {}});
    }
    auto g = group_of.find({first_switch, shared});
    if (g == group_of.end()) {
      g = group_of.emplace(std::make_pair(first_switch, shared), groups.size()).first;
      lists[l->second].groups.push_back(groups.size());
      groups.push_back({first_switch, {}, 0, {}});
    }
    auto& group = groups[g->second];
    const double bps = rate * (1 - hot) / static_cast<double>(f.uniform_dsts.size());
    uniform.for_each_left_out([&](size_t i) {
      lists[l->second].left_out.push_back({static_cast<uint32_t>(i), {g->second, group.members.size()}});
    });
    group.members.push_back({fi, bps});
    group.head.add(fi);
    group.total_bps += bps;
  }

  // The grouped flows, destination by destination.
  for (auto& l : lists) {
    for (uint32_t i = 0; i < l.ids->size(); ++i) {
      if ((*l.ids)[i] >= 0) l.by_node.emplace_back((*l.ids)[i], i);
    }
    std::sort(l.by_node.begin(), l.by_node.end());
    std::sort(l.left_out.begin(), l.left_out.end());
  }
  TreeLoads tree(t, &ports);
  std::vector<size_t> cursor(lists.size(), 0);
  std::vector<double> deficit(groups.size(), 0.0);
  std::vector<std::vector<size_t>> absent(groups.size());
  for (int d = 0; !lists.empty() && d < static_cast<int>(t.nodes.size()); ++d) {
    bool any = false;
    for (size_t li = 0; li < lists.size(); ++li) {
      auto& l = lists[li];
      for (; cursor[li] < l.by_node.size() && l.by_node[cursor[li]].first == d; ++cursor[li]) {
        const uint32_t i = l.by_node[cursor[li]].second;
        auto lo = std::lower_bound(l.left_out.begin(), l.left_out.end(), std::make_pair(i, std::make_pair(size_t{0}, size_t{0})));
        const auto lo_begin = lo;
        for (; lo != l.left_out.end() && lo->first == i; ++lo) {
          const auto [gi, m] = lo->second;
          deficit[gi] += groups[gi].members[m].bps;
          absent[gi].push_back(m);
        }
        for (size_t gi : l.groups) {
          const auto& g = groups[gi];
          if (absent[gi].size() == g.members.size()) continue;
          tree.inject(g.first_switch, g.total_bps - deficit[gi], g, absent[gi]);
          any = true;
        }
        for (lo = lo_begin; lo != l.left_out.end() && lo->first == i; ++lo) {
          deficit[lo->second.first] = 0;
          absent[lo->second.first].clear();
        }
      }
    }
    if (any) tree.flow_to(t.nodes[d].lid);
  }

  std::vector<PortLoad> rows;
  for (unsigned sw = 0; sw < t.num_switches; ++sw) {
    for (unsigned port = 1; port < t.wire[sw].size(); ++port) {
      const auto& w = t.wire[sw][port];
      if (w.peer < 0) continue;
      // Whole bits/s: sums taken in another order agree, and so does the ranking.
      const double offered = std::round(ports.bps(ports.at(sw, port)));
      double cap = s.links[w.link].data_bps;
      if (!t.nodes[w.peer].is_switch && s.fabric.hca_sink_bps > 0) cap = std::min(cap, s.fabric.hca_sink_bps);
      rows.push_back({offered / cap, sw, port, offered, cap, ports.who(ports.at(sw, port)).list()});
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const PortLoad& a, const PortLoad& b) { return a.ratio > b.ratio; });
  return rows;
}

}  // namespace ibcc::net
