// The canonical order of one round (CanonicalRound) against a plain statement of it: each
// node's events stably sorted by key into the places the node holds in the calendar's
// order, the other nodes' places untouched, and the log tick moved to the front.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "net/fabric/canonical_round.h"

namespace ibcc::net {
namespace {

struct In {
  uint64_t key;
  uint32_t node;
  bool tick;
};

// The order the round must give: handles (indices into `in`).
std::vector<uint32_t> reference(const std::vector<In>& in) {
  std::vector<uint32_t> out(in.size());
  std::map<uint32_t, std::vector<uint32_t>> places;  // node -> its places, in order
  for (uint32_t i = 0; i < in.size(); ++i) {
    out[i] = i;
    if (!in[i].tick) places[in[i].node].push_back(i);
  }
  for (auto& [node, p] : places) {
    std::vector<uint32_t> sorted = p;
    std::stable_sort(sorted.begin(), sorted.end(), [&](uint32_t a, uint32_t b) { return in[a].key < in[b].key; });
    for (size_t k = 0; k < p.size(); ++k) out[p[k]] = sorted[k];
  }
  std::stable_partition(out.begin(), out.end(), [&](uint32_t h) { return in[h].tick; });
  return out;
}

std::vector<uint32_t> ordered(CanonicalRound& r, const std::vector<In>& in) {
  r.begin();
  for (uint32_t i = 0; i < in.size(); ++i) r.add(in[i].key, in[i].node, in[i].tick, i);
  r.finish();
  std::vector<uint32_t> out;
  for (size_t i = 0; i < r.size(); ++i) out.push_back(r.handle(i));
  return out;
}

TEST(CanonicalRound, EachNodesEventsSortedIntoItsOwnPlaces) {
  // Node 3 holds places 0, 2 and 4 with keys 9, 5, 7; node 1 holds 1 and 3 in order.
  const std::vector<In> in = {{(4u << 16) | 9, 3, false},
                              {(2u << 16) | 1, 1, false},
                              {(4u << 16) | 5, 3, false},
                              {(2u << 16) | 2, 1, false},
                              {(4u << 16) | 7, 3, false}};
  CanonicalRound r;
  EXPECT_EQ(ordered(r, in), (std::vector<uint32_t>{2, 1, 4, 3, 0}));
}

TEST(CanonicalRound, EqualKeysKeepTheCalendarsOrderAndTheTickGoesFirst) {
  const std::vector<In> in = {{(1u << 16) | 3, 0, false}, {(1u << 16) | 3, 0, false}, {0, 0, true},
                              {(1u << 16) | 1, 0, false}, {(1u << 16) | 3, 0, false}};
  CanonicalRound r;
  EXPECT_EQ(ordered(r, in), (std::vector<uint32_t>{2, 3, 0, 1, 4}));
}

TEST(CanonicalRound, RandomRoundsMatchTheStatementOfTheOrder) {
  std::mt19937_64 rng(20261203);
  CanonicalRound r;  // one object over all rounds, as run_cycle keeps it
  for (int round = 0; round < 2000; ++round) {
    const unsigned nodes = 1 + static_cast<unsigned>(rng() % 40);
    const unsigned keys = 1 + static_cast<unsigned>(rng() % 8);  // few: many ties
    const size_t n = rng() % 200;
    std::vector<In> in;
    bool tick = false;
    for (size_t i = 0; i < n; ++i) {
      if (!tick && rng() % 50 == 0) {
        in.push_back({0, 0, true});
        tick = true;
        continue;
      }
      const uint32_t node = static_cast<uint32_t>(rng() % nodes);
      in.push_back({(uint64_t{node + 1} << 16) | (rng() % keys), node, false});
    }
    ASSERT_EQ(ordered(r, in), reference(in)) << "round " << round;
  }
}

}  // namespace
}  // namespace ibcc::net
