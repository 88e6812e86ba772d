// Expected load per switch output port from a scenario's flows, before any run: what `ibcc
// topo` lists as congestion-tree candidates and draws, and what a partition of the fabric
// weighs its parts by.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "net/scenario/scenario.h"
#include "net/scenario/topology.h"

namespace ibcc::net {

// A flow's destinations as node ids with their probabilities (-1: not a node). A uniform
// pattern's names are one list shared by its flows: resolved once per list
// (UniformDestinations, as the fabric builder does).
class FlowDestinations {
 public:
  explicit FlowDestinations(const Topology& t) : t_(t) {}
  const std::vector<std::pair<int, double>>& of(const FlowSpec& f) {
    out_.clear();
    if (!f.dst.empty()) {
      out_.emplace_back(t_.find(f.dst), 1.0);
      return out_;
    }
    const double hot = f.hot_dsts.empty() ? 0.0 : (f.uniform_dsts.empty() ? 1.0 : f.hot_share);
    for (const auto& d : f.hot_dsts) out_.emplace_back(t_.find(d), hot / static_cast<double>(f.hot_dsts.size()));
    const double p = (1 - hot) / static_cast<double>(f.uniform_dsts.size());
    for (int d : uniform(f)) out_.emplace_back(d, p);
    return out_;
  }

  // Every destination name the flow holds (the uniform list, the hotspots, dst), as node ids
  // beside their names, for the route check.
  std::vector<std::pair<int, const std::string*>> all(const FlowSpec& f) {
    std::vector<std::pair<int, const std::string*>> out;
    const SharedSeq<int> ids = uniform(f);
    for (size_t k = 0; k < ids.size(); ++k) out.emplace_back(ids[k], &f.uniform_dsts[k]);
    for (const auto& d : f.hot_dsts) out.emplace_back(t_.find(d), &d);
    if (!f.dst.empty()) out.emplace_back(t_.find(f.dst), &f.dst);
    return out;
  }

  SharedSeq<int> uniform(const FlowSpec& f) { return uniform_.of(f); }

 private:
  const Topology& t_;
  UniformDestinations uniform_{t_};
  std::vector<std::pair<int, double>> out_;
};

// Expected offered load per switch output port from the scenario's flows: a saturating flow
// offers its source's rate (host interface or link), a rate-limited one its rate; a flow with
// drawn destinations spreads it by the destinations' probabilities. Routes are walked in the
// LFTs directly (every route was checked before); loads are kept per (switch, port) in flat
// arrays. The flows that draw from one shared list and enter at one switch are summed first,
// and their loads walked destination by destination down the tree the LFTs form towards it,
// each switch once: a uniform pattern over n hosts costs O(n x switches), not O(n^2 x hops).
struct PortLoad {
  double ratio;  // offered / capacity
  unsigned sw, port;
  double offered, capacity;
  std::vector<unsigned> flows;  // the first 6 flows through it (indices into Scenario::flows)
};

// Every linked switch output (those no flow passes with offered 0), most loaded first.
std::vector<PortLoad> expected_loads(const Topology& t, const Scenario& s);

}  // namespace ibcc::net
