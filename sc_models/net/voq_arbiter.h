// The input side of one switch output's arbitration: which (input, VL) VoQs toward it hold a
// packet (a request bitmap, one bit per pair, visited with find-first-set), and the
// round-robin pointer over those pairs. Plain C++ (no SystemC, no fabric): the switch asks
// scan() to visit the requesting pairs in round-robin order, decides for each whether its
// head may go, and reports the pair it served with granted(). Pairs are numbered
// (input - 1) * VLs + VL.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ibcc::net {

class VoqArbiter {
 public:
  VoqArbiter() = default;
  explicit VoqArbiter(unsigned pairs) : pairs_(pairs), bits_((pairs + 63) / 64, 0) {}

  unsigned pairs() const { return pairs_; }
  // A VoQ became non-empty (on) or empty (off).
  void request(unsigned pair, bool on) {
    uint64_t& w = bits_[pair / 64];
    const uint64_t bit = uint64_t{1} << (pair % 64);
    w = on ? (w | bit) : (w & ~bit);
  }
  bool requesting(unsigned pair) const { return (bits_[pair / 64] >> (pair % 64)) & 1u; }
  // The pair served first by the next scan.
  unsigned pointer() const { return rr_; }
  // `pair` was served: round robin goes on after it.
  void granted(unsigned pair) { rr_ = pair + 1 == pairs_ ? 0 : pair + 1; }

  // Visits each requesting pair once, from the pointer on and wrapping, in that order, until
  // visit(pair) returns true; returns that pair, or -1 if none did. Costs O(pairs / 64 +
  // requesting pairs visited).
  template <typename Visit>
  int scan(Visit&& visit) const {
    for (unsigned pass = 0; pass < 2; ++pass) {
      const unsigned from = pass == 0 ? rr_ : 0, to = pass == 0 ? pairs_ : rr_;
      for (unsigned w = from / 64; w * 64 < to; ++w) {
        uint64_t bits = bits_[w];
        if (w == from / 64) bits &= ~uint64_t{0} << (from % 64);
        while (bits) {
          const unsigned pair = w * 64 + static_cast<unsigned>(__builtin_ctzll(bits));
          if (pair >= to) break;
          bits &= bits - 1;
          if (visit(pair)) return static_cast<int>(pair);
        }
      }
    }
    return -1;
  }

 private:
  unsigned pairs_ = 0;
  std::vector<uint64_t> bits_;
  unsigned rr_ = 0;
};

}  // namespace ibcc::net
