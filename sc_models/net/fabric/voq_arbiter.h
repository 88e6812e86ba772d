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
    // The pointer's word from the pointer on, the words after it (wrapping), then the
    // pointer's word below the pointer. (Bits beyond the last pair are never set.)
    const unsigned words = static_cast<unsigned>(bits_.size());
    if (words == 0) return -1;
    const uint64_t from_pointer = ~uint64_t{0} << (rr_ % 64);
    unsigned w = rr_ / 64;
    uint64_t bits = bits_[w] & from_pointer;
    for (unsigned k = 0;;) {
      while (bits) {
        const unsigned pair = w * 64 + static_cast<unsigned>(__builtin_ctzll(bits));
        bits &= bits - 1;
        if (visit(pair)) return static_cast<int>(pair);
      }
      if (++k > words) return -1;
      w = w + 1 == words ? 0 : w + 1;
      bits = bits_[w];
      if (k == words) bits &= ~from_pointer;  // back at the pointer's word
    }
  }

 private:
  unsigned pairs_ = 0;
  std::vector<uint64_t> bits_;
  unsigned rr_ = 0;
};

}  // namespace ibcc::net
