// One round of a cycle's events put in the canonical order (NodeContext::run_cycle): the
// events as the calendar handed them over, each with its key (NodeContext::order_key: the
// node in the high bits, then its rank within the node), reordered only where the order
// matters. Only each node's own events need the canonical order: nodes do not act on each
// other within a cycle (what one sends another arrives later), so the round keeps the
// calendar's order except that a node whose events came out of order gets them sorted into
// the places they hold (sorted as they are added), and a log tick that is not first moves to
// the front.
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
  // the calendar's handle. A node's events are kept sorted as they come (an insertion sort
  // along the places the node holds, ties in the calendar's order): one that comes out of
  // order moves the node's later-keyed ones on by one of its places each.
  void add(uint64_t key, uint32_t node, bool tick, uint32_t handle) {
    const uint32_t place = static_cast<uint32_t>(events_.size());
    uint32_t prev = kNoPlace;
    if (tick) {
      tick_late_ |= place != 0;
    } else {
      if (node >= nodes_.size()) nodes_.resize(node + 1);
      NodeRound& nr = nodes_[node];
      if (nr.round == round_) prev = nr.last_place;
      nr.round = round_;
      nr.last_place = place;
    }
    // (Field by field in place: a Ranked built on the stack and copied in whole would be
    // read back in wide loads from its narrow stores, which wait for them.)
    events_.emplace_back().prev = prev;
    uint32_t at = place;
    for (; prev != kNoPlace && key < events_[prev].key; prev = events_[prev].prev) {
      events_[at].key = events_[prev].key;
      events_[at].handle = events_[prev].handle;
      at = prev;
    }
    events_[at].key = key;
    events_[at].handle = handle;
  }
  // Puts the log tick first when it is not.
  void finish() {
    if (tick_late_) std::stable_partition(events_.begin(), events_.end(), [](const Ranked& r) { return r.key == 0; });
  }
  size_t size() const { return events_.size(); }
  uint32_t handle(size_t i) const { return events_[i].handle; }

 private:
  static constexpr uint32_t kNoPlace = UINT32_MAX;
  // A place of the round (in the calendar's order) and the event it holds.
  struct Ranked {
    uint64_t key;
    uint32_t handle;  // the calendar's
    uint32_t prev;    // the place of the node's place before it in the round (kNoPlace: none)
  };
  std::vector<Ranked> events_;
  // Per node: the round it last had an event in, and that event's place.
  struct NodeRound {
    uint64_t round = 0;
    uint32_t last_place = 0;
  };
  std::vector<NodeRound> nodes_;
  uint64_t round_ = 0;
  bool tick_late_ = false;
};

}  // namespace ibcc::net
