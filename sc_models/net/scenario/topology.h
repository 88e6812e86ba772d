// The fabric as a checked graph: nodes (switches, then HCAs), who is wired to which port,
// LIDs, and the linear forwarding tables. Built from a Scenario; every inconsistency is a
// ScenarioError naming the scenario line.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "net/scenario/scenario.h"
#include "net/scenario/shared_seq.h"

namespace ibcc::net {

// The one parser of "NODE/PORT" text (scenario links, cc.rtl, --rtl, --trace ports=):
// "S1/3" -> {S1, 3}; "H1" -> {H1, 0}. Empty unless the node is not empty and PORT is 1..254 in
// plain decimal: no sign, no leading zero, nothing after it.
struct NodePort {
  std::string node;
  unsigned port = 0;  // 0: no "/PORT" given
};
std::optional<NodePort> parse_node_port(const std::string& text);

struct PortWire {
  int peer = -1;          // node index, -1: unconnected
  unsigned peer_port = 0;
  int link = -1;          // index into Scenario::links
};

struct Topology {
  struct Node {
    std::string name;
    bool is_switch = false;
    unsigned ports = 0;
    Lid lid = 0;
    int line = 0;
  };
  std::vector<Node> nodes;                 // switches first, then HCAs
  unsigned num_switches = 0;
  std::vector<std::vector<PortWire>> wire; // [node][port] (port 0 unused)
  std::map<std::string, unsigned> index;   // name -> node
  std::vector<int> lid_node;               // [lid] -> node, -1 none
  std::vector<std::vector<uint16_t>> lft;  // [switch][dlid] -> output port (0: none)
  // Adaptive routing (fabric.adaptive_routing; empty when off): [switch][dlid] -> the AR group
  // the switch chooses among for dlid (an index into ar_groups[switch]; 0: none, the LFT's port
  // only), and [switch][group] -> its ports, the equal-cost candidates of up*/down* routing.
  std::vector<std::vector<uint16_t>> ar_group;
  std::vector<std::vector<std::vector<uint16_t>>> ar_groups;
  // [switch] -> (port, neighbour switch) of its switch-to-switch links
  std::vector<std::vector<std::pair<unsigned, unsigned>>> switch_links;

  const Node& node(unsigned n) const { return nodes[n]; }
  int find(const std::string& name) const {
    const auto it = index.find(name);
    return it == index.end() ? -1 : static_cast<int>(it->second);
  }
  // Nodes a packet visits from src to dst (both HCAs), or an empty list with *why set.
  std::vector<unsigned> route(unsigned src, unsigned dst, std::string* why) const;
  // Whether route(src, dst) succeeds: one pass over the switches per destination (cached),
  // then O(1) per source, so checking all n^2 pairs of a uniform pattern costs O(n x switches).
  // The answers are cached: the LFTs must not change after the first call.
  bool reaches(unsigned src, unsigned dst) const;

 private:
  // [dst - num_switches][switch]: 1 the LFTs lead from the switch to dst, 0 not; empty until
  // asked.
  mutable std::vector<std::vector<uint8_t>> reach_;
};

// Checks the wiring, assigns LIDs and computes (or takes) the forwarding tables.
Topology build_topology(const Scenario& s);

// The channel dependency graph of the routing (Dally and Seitz): a switch-to-switch channel
// depends on each channel a packet holding it may ask for next, by the forwarding tables or,
// with adaptive routing, any port of the AR group. Without a cycle, credits cannot deadlock
// whatever the load; a cycle may (unless VLs break it, which this graph of one VL ignores).
struct DependencyCheck {
  size_t channels = 0, dependencies = 0;
  std::string cycle;  // "S1/3 -> S2/5 -> S1/3", empty: none
};
DependencyCheck find_dependency_cycle(const Topology& t);
// Each name of cc.rtl is a CC block of this fabric (a linked switch port with FECN marking, or
// an HCA with IB CC); else ScenarioError naming the line.
void check_rtl_blocks(const Scenario& s, const Topology& t);

// A flow's uniform destination names (FlowSpec::uniform_dsts) as node ids, -1 for a name
// that is no node. The flows of one pattern share one list of names: it is looked up once,
// however many flows hold it (an 11,664-host uniform pattern: 11,664 lookups, not 136 M).
// Used by the fabric builder and by `ibcc topo`.
class UniformDestinations {
 public:
  explicit UniformDestinations(const Topology& t) : t_(t) {}
  SharedSeq<int> of(const FlowSpec& f);

 private:
  const Topology& t_;
  std::map<const void*, std::shared_ptr<const std::vector<int>>> ids_;
};

// The topology generators (topology_gen.cpp) fill switches, hcas and links of `s`.
struct ClosParams {
  unsigned leaves = 36, spines = 18, switch_ports = 36;
};
struct KaryNtreeParams {
  unsigned k = 4, n = 2;
};
struct MeshParams {
  unsigned x = 4, y = 4, hcas_per_switch = 1;
  bool torus = false;
};
// Full fat tree of `radix`-port switches in `levels` levels (m-port n-tree): 2(r/2)^L hosts,
// (2L-1)(r/2)^(L-1) switches; every switch port is used.
struct FatTreeParams {
  unsigned radix, levels;
  unsigned pods = 0;  // the top switches' sub-trees present (0: radix, the full tree)
};
void generate_fattree(const FatTreeParams& p, const LinkSpec& link, Scenario* s);
void generate_clos3(const ClosParams& p, const LinkSpec& link, Scenario* s);
void generate_kary_ntree(const KaryNtreeParams& p, const LinkSpec& link, Scenario* s);
void generate_mesh(const MeshParams& p, const LinkSpec& link, Scenario* s);

}  // namespace ibcc::net
