// One round of a cycle's events put in the canonical order (NodeContext::run_cycle): the
// events as the calendar handed them over, each with its key (NodeContext::order_key: the
// node in the high bits, then its rank within the node), reordered only where the order
// matters. Only each node's own events need the canonical order: nodes do not act on each
// other within a cycle (what one sends another arrives later), so the round keeps the
// calendar's order except that a node whose events came out of order gets them sorted into
// the places they hold, and a log tick that is not first moves to the front.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ibcc::net {

class CanonicalRound {
 public:
  void begin() {
    events_.clear();
    ++round_;
    tick_late_ = false;
  }
  // The next event of the round: its key, its node, whether it is the log tick (key 0) and
  // the calendar's handle.
  void add(uint64_t key, uint32_t node, bool tick, uint32_t handle) {
    const uint32_t place = static_cast<uint32_t>(events_.size());
    uint32_t prev = kNoPlace;
    if (tick) {
      tick_late_ |= place != 0;
    } else {
      if (node >= nodes_.size()) nodes_.resize(node + 1);
      NodeRound& nr = nodes_[node];
      if (nr.round == round_) {
        prev = nr.last_place;
        if (key < events_[prev].key && nr.unordered != round_) {
          nr.unordered = round_;
          unordered_.push_back(node);
        }
      }
      nr.round = round_;
      nr.last_place = place;
    }
    events_.push_back({key, place, handle, prev});
  }
  // Puts the round in the canonical order where it is not.
  void finish() {
    for (uint32_t v : unordered_) {
      places_.clear();
      for (uint32_t p = nodes_[v].last_place; p != kNoPlace; p = events_[p].prev) places_.push_back(p);
      std::reverse(places_.begin(), places_.end());
      sorted_.clear();
      for (uint32_t p : places_) sorted_.push_back(events_[p]);
      std::sort(sorted_.begin(), sorted_.end(),
                [](const Ranked& a, const Ranked& b) { return a.key != b.key ? a.key < b.key : a.place < b.place; });
      for (size_t i = 0; i < places_.size(); ++i) events_[places_[i]] = sorted_[i];
    }
    unordered_.clear();
    if (tick_late_) std::stable_partition(events_.begin(), events_.end(), [](const Ranked& r) { return r.key == 0; });
  }
  size_t size() const { return events_.size(); }
  uint32_t handle(size_t i) const { return events_[i].handle; }

 private:
  static constexpr uint32_t kNoPlace = UINT32_MAX;
  struct Ranked {
    uint64_t key;
    uint32_t place;   // in the calendar's order (ties keep it)
    uint32_t handle;  // the calendar's
    uint32_t prev;    // the place of the node's event before it in the round (kNoPlace: none)
  };
  std::vector<Ranked> events_;
  // Per node: the round it last had an event in, that event's place, and the round its
  // events were found out of order in.
  struct NodeRound {
    uint64_t round = 0, unordered = 0;
    uint32_t last_place = 0;
  };
  std::vector<NodeRound> nodes_;
  std::vector<uint32_t> unordered_;  // the nodes found out of order in this round
  uint64_t round_ = 0;
  bool tick_late_ = false;
  std::vector<uint32_t> places_;  // finish()'s
  std::vector<Ranked> sorted_;
};

}  // namespace ibcc::net
