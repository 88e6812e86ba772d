// The partition of a fabric for a parallel run: every node in one group, an HCA with its
// switch, the groups balanced, the cut and the window counted from the links themselves, the
// same partition every time, and the inputs it cannot serve refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "net/parallel/partition.h"
#include "net/scenario/expected_load.h"
#include "net/scenario/topology.h"

namespace ibcc::net {
namespace {

constexpr uint64_t kCyclePs = 4000;  // 250 MHz

// A fat tree of radix 8, 3 levels (128 hosts, 80 switches); switch-to-switch links of
// `switch_prop_ps`, host links of `host_prop_ps`.
Scenario fat_tree(uint64_t switch_prop_ps, uint64_t host_prop_ps) {
  Scenario s;
  s.fabric.routing = "updown";
  LinkSpec l;
  l.signal_bps = 40e9;
  l.data_bps = 32e9;
  l.propagation_ps = switch_prop_ps;
  generate_fattree({8, 3}, l, &s);
  for (auto& link : s.links) {
    if (link.a_node[0] == 'H' || link.b_node[0] == 'H') link.propagation_ps = host_prop_ps;
  }
  return s;
}

// The partition of that fat tree into `parts` groups, no load given.
PartitionPlan plan_of(uint64_t switch_prop_ps, uint64_t host_prop_ps, unsigned parts) {
  const Scenario s = fat_tree(switch_prop_ps, host_prop_ps);
  return partition_fabric(build_topology(s), s, {}, parts, kCyclePs);
}

TEST(Partition, EveryNodeInOneGroupWithItsSwitchAndTheWindowFromTheCut) {
  const Scenario s = fat_tree(10000, 10000);
  const Topology t = build_topology(s);
  for (unsigned parts : {2u, 3u, 4u, 8u}) {
    const PartitionPlan p = partition_fabric(t, s, {}, parts, kCyclePs);
    ASSERT_EQ(p.part_of.size(), t.nodes.size());
    std::vector<unsigned> switches(parts, 0), hcas(parts, 0);
    uint64_t links = 0, cut = 0;
    for (unsigned n = 0; n < t.nodes.size(); ++n) {
      ASSERT_LT(p.part_of[n], parts);
      (t.nodes[n].is_switch ? switches : hcas)[p.part_of[n]]++;
      if (!t.nodes[n].is_switch) {
        EXPECT_EQ(p.part_of[n], p.part_of[t.wire[n][1].peer]) << t.nodes[n].name;
      }
      for (unsigned q = 1; q < t.wire[n].size(); ++q) {
        const int peer = t.wire[n][q].peer;
        if (peer < 0 || static_cast<unsigned>(peer) < n) continue;
        ++links;
        cut += p.part_of[n] != p.part_of[peer];
      }
    }
    EXPECT_EQ(p.links, links);
    EXPECT_EQ(p.cut_links, cut);
    EXPECT_GT(cut, 0u);
    for (unsigned g = 0; g < parts; ++g) {
      EXPECT_EQ(p.groups[g].switches, switches[g]);
      EXPECT_EQ(p.groups[g].hcas, hcas[g]);
      EXPECT_GT(switches[g], 0u) << parts << " parts: group " << g << " is empty";
    }
    // No load given: balanced by units (80 switches), within METIS's 3 % and one unit.
    EXPECT_LE(p.imbalance, 1.03 + parts / 80.0) << parts;
    // 10 ns at 250 MHz: 2.5 cycles, which the links count as 3.
    EXPECT_EQ(p.window_cycles, 3u);
    EXPECT_EQ(p.window_link_ps, 10000u);
    // The same fabric, the same partition.
    EXPECT_EQ(partition_fabric(t, s, {}, parts, kCyclePs).part_of, p.part_of);
  }
}

TEST(Partition, TheWindowIsTheFastestCutLinkNotAHostLink) {
  // Host links of 1 ps never cross a cut (an HCA stays with its switch): the window is the
  // switch links' 5 ns, 2 cycles (1.25 rounded up).
  const PartitionPlan p = plan_of(5000, 1, 4);
  EXPECT_EQ(p.window_cycles, 2u);
  EXPECT_EQ(p.window_link_ps, 5000u);
  EXPECT_EQ(p.window_link.find('H'), std::string::npos) << p.window_link;
}

TEST(Partition, OneGroupHasNoCutAndNoWindow) {
  const PartitionPlan p = plan_of(10000, 10000, 1);
  EXPECT_EQ(p.cut_links, 0u);
  EXPECT_EQ(p.window_cycles, 0u);
  EXPECT_TRUE(std::all_of(p.part_of.begin(), p.part_of.end(), [](uint32_t g) { return g == 0; }));
}

TEST(Partition, TheExpectedLoadBalancesTheGroups) {
  // All 128 hosts send to H1: the links toward H1 carry nearly everything. Weighed by load,
  // each group's share is within 20 % of the mean, and the groups hold all of it.
  Scenario s = fat_tree(10000, 10000);
  for (unsigned h = 2; h <= 128; ++h) {
    FlowSpec f;
    f.name = "F" + std::to_string(h);
    f.src = "H" + std::to_string(h);
    f.dst = "H1";
    s.flows.push_back(f);
  }
  const Topology t = build_topology(s);
  const std::vector<PortLoad> loads = expected_loads(t, s);
  const PartitionPlan p = partition_fabric(t, s, loads, 4, kCyclePs);
  double total = 0;
  for (const auto& l : loads) total += std::min(l.offered, l.capacity);
  double sum = 0;
  for (const auto& g : p.groups) sum += g.load_bps;
  EXPECT_NEAR(sum, total, total * 1e-9);
  EXPECT_LE(p.imbalance, 1.2);
}

TEST(Partition, InputsItCannotServeAreRefused) {
  const Scenario s = fat_tree(10000, 10000);
  const Topology t = build_topology(s);
  EXPECT_THROW(partition_fabric(t, s, {}, 81, kCyclePs), PartitionError);  // 80 units
  EXPECT_THROW(partition_fabric(t, s, {}, 0, kCyclePs), PartitionError);
  const Scenario instant = fat_tree(0, 10000);  // switch links without propagation
  EXPECT_THROW(partition_fabric(build_topology(instant), instant, {}, 2, kCyclePs), PartitionError);
}

}  // namespace
}  // namespace ibcc::net
