// Topology generators and routing: every route arrives, in the expected number of hops, and
// the computed routes have the properties their names promise.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include <set>
#include <tuple>
#include <vector>

#include "net/scenario/scenario_yaml.h"
#include "net/scenario/topology.h"

namespace ibcc::net {
namespace {

LinkSpec qdr() {
  LinkSpec l;
  l.signal_bps = 40e9;
  l.data_bps = 32e9;
  l.propagation_ps = 5000;
  return l;
}

// All HCA pairs route; returns the longest path (nodes, ends included).
size_t check_all_routes(const Topology& t) {
  size_t longest = 0;
  for (unsigned a = t.num_switches; a < t.nodes.size(); ++a) {
    for (unsigned b = t.num_switches; b < t.nodes.size(); ++b) {
      if (a == b) continue;
      std::string why;
      const auto path = t.route(a, b, &why);
      EXPECT_FALSE(path.empty()) << t.nodes[a].name << " -> " << t.nodes[b].name << ": " << why;
      longest = std::max(longest, path.size());
    }
  }
  return longest;
}

TEST(Topology, Clos648IsTheSunDatacenterSwitch) {
  Scenario s;
  s.fabric.routing = "updown";
  generate_clos3({36, 18, 36}, qdr(), &s);
  const Topology t = build_topology(s);
  EXPECT_EQ(t.num_switches, 54u);
  EXPECT_EQ(t.nodes.size() - t.num_switches, 648u);
  EXPECT_EQ(s.links.size(), 648u + 36u * 18u);
  // From one host to every host on other leaves: 5 nodes (host, leaf, spine, leaf, host),
  // spread over all 18 spines by destination LID.
  std::set<unsigned> spines;
  const unsigned h1 = static_cast<unsigned>(t.find("H1"));
  for (unsigned b = t.num_switches; b < t.nodes.size(); ++b) {
    std::string why;
    const auto path = t.route(h1, b, &why);
    ASSERT_FALSE(path.empty()) << why;
    if (b == h1) continue;
    EXPECT_TRUE(path.size() == 3 || path.size() == 5) << t.nodes[b].name;
    if (path.size() == 5) spines.insert(path[2]);
  }
  EXPECT_EQ(spines.size(), 18u);
}

TEST(Topology, SmallClosAllPairsShortestAndUpDown) {
  for (const char* routing : {"shortest", "updown"}) {
    Scenario s;
    s.fabric.routing = routing;
    generate_clos3({6, 3, 6}, qdr(), &s);
    EXPECT_EQ(check_all_routes(build_topology(s)), 5u) << routing;
  }
}

TEST(Topology, KaryNtree) {
  Scenario s;
  s.fabric.routing = "updown";
  generate_kary_ntree({4, 3}, qdr(), &s);
  const Topology t = build_topology(s);
  EXPECT_EQ(t.num_switches, 48u);
  EXPECT_EQ(t.nodes.size() - t.num_switches, 64u);
  EXPECT_EQ(check_all_routes(t), 2u + 5u);  // up to 2n-1 = 5 switches
}

// Every port of every switch is linked (a full fat tree uses them all).
void expect_all_ports_used(const Topology& t) {
  for (unsigned sw = 0; sw < t.num_switches; ++sw) {
    for (unsigned p = 1; p <= t.nodes[sw].ports; ++p) {
      EXPECT_GE(t.wire[sw][p].peer, 0) << t.nodes[sw].name << "/" << p;
    }
  }
}

TEST(Topology, FatTreeSizes) {
  // (radix, levels) -> hosts 2(r/2)^L, switches (2L-1)(r/2)^(L-1).
  for (const auto& [r, l, hosts, switches] :
       std::vector<std::tuple<unsigned, unsigned, unsigned, unsigned>>{
           {8, 1, 8, 1}, {16, 2, 128, 24}, {36, 2, 648, 54}, {12, 4, 2592, 1512}, {36, 3, 11664, 1620},
           {64, 2, 2048, 96}, {144, 2, 10368, 216}, {254, 1, 254, 1}}) {
    Scenario s;
    s.fabric.routing = "updown";
    generate_fattree({r, l}, qdr(), &s);
    EXPECT_EQ(s.hcas.size(), hosts) << r << "/" << l;
    EXPECT_EQ(s.switches.size(), switches) << r << "/" << l;
    if (hosts <= 648 || r == 144) expect_all_ports_used(build_topology(s));
  }
}

TEST(Topology, FatTreeOfFewerPods) {
  // radix 8, 3 levels, 3 of 8 pods: each pod 16 hosts under 4 edge and 4 aggregation
  // switches; 16 core switches with 3 of their 8 ports linked. Every route exists and goes
  // up at most to the core (7 nodes).
  Scenario s;
  s.fabric.routing = "updown";
  generate_fattree({8, 3, 3}, qdr(), &s);
  EXPECT_EQ(s.hcas.size(), 3u * 16u);
  EXPECT_EQ(s.switches.size(), 3u * 8u + 16u);
  const Topology t = build_topology(s);
  EXPECT_EQ(check_all_routes(t), 7u);
  unsigned linked_core_ports = 0;
  for (unsigned sw = 0; sw < t.num_switches; ++sw) {
    const bool core = t.nodes[sw].name.rfind("SW2_", 0) == 0;
    for (unsigned p = 1; p <= t.nodes[sw].ports; ++p) {
      if (core) linked_core_ports += t.wire[sw][p].peer >= 0;
      else EXPECT_GE(t.wire[sw][p].peer, 0) << t.nodes[sw].name << "/" << p;  // pods are whole
    }
  }
  EXPECT_EQ(linked_core_ports, 16u * 3u);
  // The full tree is pods = radix.
  Scenario full;
  generate_fattree({8, 3, 8}, qdr(), &full);
  EXPECT_EQ(full.hcas.size(), 128u);
}

TEST(Topology, EthernetFabricAddressesPastTheUnicastLidSpace) {
  // radix 320, 2 levels: 51,200 hosts and 480 switches, 51,680 addresses. As an IB fabric
  // (credits) that is more than one subnet's unicast LIDs; with PFC (Ethernet) the model
  // numbers past 0xBFFF, and the hosts numbered there are reached like the others.
  Scenario s;
  s.fabric.routing = "updown";
  generate_fattree({320, 2}, qdr(), &s);
  ASSERT_EQ(s.hcas.size() + s.switches.size(), 51680u);
  try {
    build_topology(s);
    ADD_FAILURE() << "an IB fabric of 51,680 LIDs was built";
  } catch (const ScenarioError& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("need LIDs up to 51680; an IB subnet has the unicast LIDs 1..49151"));
  }
  s.fabric.pfc = true;
  const Topology t = build_topology(s);
  Lid max_lid = 0;
  for (const auto& n : t.nodes) max_lid = std::max(max_lid, n.lid);
  EXPECT_EQ(max_lid, 51680u);
  const unsigned h1 = static_cast<unsigned>(t.find("H1"));
  unsigned past = 0;
  for (unsigned b = t.num_switches; b < t.nodes.size(); ++b) {
    if (t.nodes[b].lid <= kMaxUnicastLid) continue;
    ++past;
    std::string why;
    const auto path = t.route(h1, b, &why);
    ASSERT_FALSE(path.empty()) << t.nodes[b].name << ": " << why;
    EXPECT_EQ(path.back(), b);
    EXPECT_LE(path.size(), 5u);  // host, leaf, spine, leaf, host
  }
  EXPECT_EQ(past, 51200u - kMaxUnicastLid);
}

TEST(Topology, FatTreeRoutesSpreadOverEveryCoreSwitch) {
  // radix 6, 3 levels: 54 hosts, 45 switches, 9 core switches. From one host, the routes to
  // the hosts of other pods (7 nodes: host, edge, aggregation, core, aggregation, edge, host)
  // use every core switch, because each level chooses by another digit of the LID (a single
  // digit would reach only 3 of the 9).
  for (const char* routing : {"updown", "shortest"}) {
    Scenario s;
    s.fabric.routing = routing;
    generate_fattree({6, 3}, qdr(), &s);
    const Topology t = build_topology(s);
    expect_all_ports_used(t);
    EXPECT_EQ(check_all_routes(t), 7u) << routing;
    if (std::string(routing) != "updown") continue;
    std::set<unsigned> cores;
    const unsigned h1 = static_cast<unsigned>(t.find("H1"));
    for (unsigned b = t.num_switches; b < t.nodes.size(); ++b) {
      std::string why;
      const auto path = t.route(h1, b, &why);
      ASSERT_FALSE(path.empty()) << why;
      EXPECT_EQ(t.reaches(h1, b), true);
      if (path.size() == 7) cores.insert(path[3]);
    }
    EXPECT_EQ(cores.size(), 9u);
  }
}

TEST(Topology, ReachesAgreesWithRoute) {
  // A broken forwarding entry: reaches() and route() both see it.
  Scenario s;
  s.fabric.routing = "updown";
  generate_fattree({4, 2}, qdr(), &s);
  Topology t = build_topology(s);
  const unsigned h1 = static_cast<unsigned>(t.find("H1")), h8 = static_cast<unsigned>(t.find("H8"));
  EXPECT_TRUE(t.reaches(h1, h8));
  Topology broken = build_topology(s);  // reaches() caches: change the LFTs before asking
  const unsigned leaf = static_cast<unsigned>(broken.wire[h1][1].peer);
  broken.lft[leaf][broken.nodes[h8].lid] = 0;
  std::string why;
  EXPECT_TRUE(broken.route(h1, h8, &why).empty());
  EXPECT_FALSE(broken.reaches(h1, h8));
  EXPECT_TRUE(broken.reaches(h8, h1));
}

TEST(Topology, AdaptiveRoutingGroupsAreTheEqualCostUpPorts) {
  // radix 8, 3 levels: 128 hosts; an edge switch has hosts on ports 1-4 and up-links on 5-8.
  Scenario s;
  s.fabric.routing = "updown";
  generate_fattree({8, 3}, qdr(), &s);
  EXPECT_TRUE(build_topology(s).ar_group.empty()) << "no AR groups unless adaptive routing is on";
  s.fabric.adaptive_routing = FabricParams::AdaptiveRouting::kLeastOccupancy;
  const Topology t = build_topology(s);
  ASSERT_EQ(t.ar_group.size(), t.num_switches);
  const unsigned h1 = static_cast<unsigned>(t.find("H1"));
  const unsigned edge = static_cast<unsigned>(t.wire[h1][1].peer);
  for (unsigned h = t.num_switches; h < t.nodes.size(); ++h) {
    const ibcc::net::Lid dlid = t.nodes[h].lid;
    const unsigned g = t.ar_group[edge][dlid];
    if (static_cast<unsigned>(t.wire[h][1].peer) == edge) {
      EXPECT_EQ(g, 0u) << "a host of the switch itself: its one port";
      continue;
    }
    // Any other host: the four up-links, the forwarding table's port among them.
    ASSERT_NE(g, 0u) << t.nodes[h].name;
    const std::vector<uint16_t>& ports = t.ar_groups[edge][g];
    EXPECT_EQ(ports, (std::vector<uint16_t>{5, 6, 7, 8})) << t.nodes[h].name;
    EXPECT_NE(std::find(ports.begin(), ports.end(), t.lft[edge][dlid]), ports.end()) << t.nodes[h].name;
  }
  // On the way down there is one port to each sub-tree: no group; a top switch has none at all.
  for (unsigned sw = 0; sw < t.num_switches; ++sw) {
    for (size_t g = 1; g < t.ar_groups[sw].size(); ++g) {
      for (const uint16_t p : t.ar_groups[sw][g]) {
        const int peer = t.wire[sw][p].peer;
        ASSERT_GE(peer, 0);
        EXPECT_TRUE(t.nodes[static_cast<unsigned>(peer)].is_switch);
        EXPECT_GT(p, 4u) << t.nodes[sw].name << ": AR only among up-links";
      }
    }
  }
}

TEST(Topology, MeshDimensionOrderGoesXFirst) {
  Scenario s;
  s.fabric.routing = "dor";
  generate_mesh({4, 4, 1, false}, qdr(), &s);
  const Topology t = build_topology(s);
  EXPECT_EQ(check_all_routes(t), 2u + 7u);  // corner to corner: 7 switches
  std::string why;
  const auto path = t.route(static_cast<unsigned>(t.find("H1")), static_cast<unsigned>(t.find("H16")), &why);
  ASSERT_EQ(path.size(), 9u);
  // H1 sits on SW0_0, H16 on SW3_3: x changes first.
  EXPECT_EQ(t.nodes[path[4]].name, "SW3_0");
  EXPECT_EQ(t.nodes[path[7]].name, "SW3_3");
}

TEST(Topology, TorusTakesTheShortWayRound) {
  Scenario s;
  s.fabric.routing = "dor";
  generate_mesh({5, 1, 1, true}, qdr(), &s);
  const Topology t = build_topology(s);
  std::string why;
  const auto path = t.route(static_cast<unsigned>(t.find("H1")), static_cast<unsigned>(t.find("H5")), &why);
  EXPECT_EQ(path.size(), 4u);  // SW0_0 -> SW4_0 over the wrap link
}

// Channel dependencies: a ring routed the short way round has a cycle (Dally and Seitz's
// example); a fat tree under up*/down*, with every adaptive-routing candidate, has none.
TEST(Topology, DependencyCycleOfARingAndNoneInAnAdaptiveFatTree) {
  Scenario ring;
  ring.fabric.routing = "dor";
  generate_mesh({5, 1, 1, true}, qdr(), &ring);
  const DependencyCheck r = find_dependency_cycle(build_topology(ring));
  EXPECT_EQ(r.channels, 10u);  // each of the 5 ring links, both ways
  EXPECT_FALSE(r.cycle.empty());
  // Only the packets' own direction round the ring: the cycle is five channels, back to its start.
  EXPECT_EQ(std::count(r.cycle.begin(), r.cycle.end(), '>'), 5);
  Scenario tree;
  tree.fabric.routing = "updown";
  tree.fabric.adaptive_routing = FabricParams::AdaptiveRouting::kLeastOccupancy;
  generate_fattree({8, 3}, qdr(), &tree);
  const Topology t = build_topology(tree);
  const DependencyCheck a = find_dependency_cycle(t);
  EXPECT_EQ(a.cycle, "");
  Scenario fixed = tree;
  fixed.fabric.adaptive_routing = FabricParams::AdaptiveRouting::kOff;
  const DependencyCheck f = find_dependency_cycle(build_topology(fixed));
  EXPECT_EQ(f.cycle, "");
  EXPECT_GT(a.dependencies, f.dependencies) << "AR adds the other up-links' dependencies";
  EXPECT_EQ(a.channels, f.channels);
}

// On an irregular fabric (a ring of switches with a chord), up*/down* routes never turn up
// after going down.
TEST(Topology, UpDownNeverGoesUpAfterDown) {
  Scenario s;
  s.fabric.routing = "updown";
  s.fabric.updown_roots = {"R0"};
  const unsigned n = 6;
  for (unsigned i = 0; i < n; ++i) {
    s.switches.push_back({"R" + std::to_string(i), 4, 0, {}, 0});
    s.hcas.push_back({"H" + std::to_string(i), 0, 0});
  }
  auto link = [&](const std::string& a, unsigned ap, const std::string& b, unsigned bp) {
    LinkSpec l = qdr();
    l.a_node = a;
    l.a_port = ap;
    l.b_node = b;
    l.b_port = bp;
    s.links.push_back(l);
  };
  for (unsigned i = 0; i < n; ++i) {
    link("H" + std::to_string(i), 1, "R" + std::to_string(i), 1);
    link("R" + std::to_string(i), 2, "R" + std::to_string((i + 1) % n), 3);
  }
  link("R1", 4, "R4", 4);
  const Topology t = build_topology(s);
  check_all_routes(t);
  // Ranks: BFS distance from the root; "up" = toward smaller (rank, index).
  std::vector<unsigned> rank(t.num_switches, 99);
  std::vector<unsigned> queue{static_cast<unsigned>(t.find("R0"))};
  rank[queue[0]] = 0;
  for (size_t q = 0; q < queue.size(); ++q) {
    const unsigned u = queue[q];
    for (unsigned p = 1; p <= t.nodes[u].ports; ++p) {
      const int v = t.wire[u][p].peer;
      if (v >= 0 && t.nodes[v].is_switch && rank[v] == 99) {
        rank[v] = rank[u] + 1;
        queue.push_back(static_cast<unsigned>(v));
      }
    }
  }
  for (unsigned a = t.num_switches; a < t.nodes.size(); ++a) {
    for (unsigned b = t.num_switches; b < t.nodes.size(); ++b) {
      if (a == b) continue;
      std::string why;
      const auto path = t.route(a, b, &why);
      bool went_down = false;
      for (size_t k = 1; k + 2 < path.size(); ++k) {
        const unsigned u = path[k], v = path[k + 1];
        const bool up = rank[v] < rank[u] || (rank[v] == rank[u] && v < u);
        if (!up) went_down = true;
        EXPECT_FALSE(up && went_down) << t.nodes[a].name << " -> " << t.nodes[b].name;
      }
    }
  }
}

TEST(Topology, WiringErrorsNameTheLine) {
  Scenario s;
  s.file = "t.yaml";
  s.switches.push_back({"S1", 4, 0, {}, 3});
  s.hcas.push_back({"H1", 0, 4});
  LinkSpec l = qdr();
  l.a_node = "H1";
  l.a_port = 1;
  l.b_node = "S1";
  l.b_port = 5;
  l.line = 7;
  s.links.push_back(l);
  try {
    build_topology(s);
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(), "t.yaml:7: topology.links[].b: S1 has ports 1..4, got 5");
  }
}

}  // namespace
}  // namespace ibcc::net
