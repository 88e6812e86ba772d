// The expected load per switch output, against a plain count: for every flow and every
// destination it may draw, the route from Topology::route, the rate times the probability on
// every switch output it passes, and the six smallest flows through each output. Views of a
// shared list leaving out one entry, a rotated view, a view leaving out many, hotspots beside
// a uniform share and fixed destinations all in one scenario.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "net/scenario/expected_load.h"
#include "net/scenario/topology.h"

namespace ibcc::net {
namespace {

struct Count {
  double bps = 0;
  std::set<unsigned> flows;
};

std::map<std::pair<unsigned, unsigned>, Count> plain_count(const Topology& t, const Scenario& s) {
  std::map<std::pair<unsigned, unsigned>, Count> out;
  for (unsigned fi = 0; fi < s.flows.size(); ++fi) {
    const FlowSpec& f = s.flows[fi];
    const unsigned src = static_cast<unsigned>(t.find(f.src));
    const double rate = f.rate_bps > 0 ? f.rate_bps : s.links[t.wire[src][1].link].data_bps;
    std::vector<std::pair<std::string, double>> dsts;
    if (!f.dst.empty()) dsts.emplace_back(f.dst, 1.0);
    const double hot = f.hot_dsts.empty() ? 0.0 : (f.uniform_dsts.empty() ? 1.0 : f.hot_share);
    for (const auto& d : f.hot_dsts) dsts.emplace_back(d, hot / static_cast<double>(f.hot_dsts.size()));
    for (const auto& d : f.uniform_dsts) dsts.emplace_back(d, (1 - hot) / static_cast<double>(f.uniform_dsts.size()));
    for (const auto& [name, p] : dsts) {
      const unsigned dst = static_cast<unsigned>(t.find(name));
      std::string why;
      const std::vector<unsigned> hops = t.route(src, dst, &why);
      EXPECT_FALSE(hops.empty()) << why;
      for (unsigned n : hops) {
        if (!t.nodes[n].is_switch) continue;
        Count& c = out[{n, t.lft[n][t.nodes[dst].lid]}];
        c.bps += rate * p;
        c.flows.insert(fi);
      }
    }
  }
  return out;
}

TEST(ExpectedLoad, AgreesWithAPlainCountOfEveryRoute) {
  Scenario s;
  s.fabric.routing = "updown";
  LinkSpec l;
  l.signal_bps = 40e9;
  l.data_bps = 32e9;
  l.propagation_ps = 10000;
  generate_fattree({8, 3}, l, &s);  // 128 hosts, 80 switches
  const Topology t = build_topology(s);
  std::vector<std::string> hosts;
  for (const auto& n : t.nodes) {
    if (!n.is_switch) hosts.push_back(n.name);
  }
  const auto names = std::make_shared<const std::vector<std::string>>(hosts);
  const size_t n = hosts.size();
  for (size_t i = 0; i < n; ++i) {
    FlowSpec f;
    f.src = hosts[i];
    f.name = "f" + std::to_string(i);
    switch (i % 5) {
      case 0:  // all but itself, saturating
        f.uniform_dsts = SharedSeq<std::string>(names, 0, n - 1, i);
        break;
      case 1:  // all but itself at a rate, a quarter of it to two hotspots
        f.uniform_dsts = SharedSeq<std::string>(names, 0, n - 1, i);
        f.hot_dsts = {hosts[3], hosts[77]};
        f.hot_share = 0.25;
        f.rate_bps = 5e9 + 1e8 * static_cast<double>(i);
        break;
      case 2:  // the others, starting after itself
        f.uniform_dsts = SharedSeq<std::string>(names, i + 1, n - 1);
        break;
      case 3:  // a third of the list: walked on its own
        f.uniform_dsts = SharedSeq<std::string>(names, i, n / 3);
        break;
      default:
        f.dst = hosts[(i * 7 + 1) % n];
        f.rate_bps = 1e9;
    }
    s.flows.push_back(f);
  }
  // Flows listed out of host order, so that a port's first flows are not one host's.
  std::reverse(s.flows.begin(), s.flows.end());

  const auto want = plain_count(t, s);
  const std::vector<PortLoad> got = expected_loads(t, s);
  size_t loaded = 0;
  for (const PortLoad& p : got) {
    const auto it = want.find({p.sw, p.port});
    if (it == want.end()) {
      EXPECT_EQ(p.offered, 0.0) << t.nodes[p.sw].name << "/" << p.port;
      EXPECT_TRUE(p.flows.empty());
      continue;
    }
    ++loaded;
    EXPECT_NEAR(p.offered, it->second.bps, 1.0) << t.nodes[p.sw].name << "/" << p.port;
    std::vector<unsigned> first(it->second.flows.begin(), it->second.flows.end());
    first.resize(std::min<size_t>(first.size(), 6));
    EXPECT_EQ(p.flows, first) << t.nodes[p.sw].name << "/" << p.port;
  }
  EXPECT_EQ(loaded, want.size());
  EXPECT_GT(loaded, 300u);  // every switch output of the tree carries some of it
}

}  // namespace
}  // namespace ibcc::net
