// A marking decision of probability p / 65536, as the ECN and AQS markers take it: always at
// 65536, never at 0, else a uniform 16-bit draw from the top half of a 32-bit xorshift, which
// steps only for a decision in between (so a queue outside the marking range draws nothing
// and runs repeat per seed).
#pragma once

#include <cstdint>

namespace ibcc::cc {

class MarkDraw {
 public:
  explicit MarkDraw(uint32_t seed) : state_(seed) {}  // (seed never 0: the markers' validate())
  bool decide(uint32_t p_q16) {
    if (p_q16 >= 65536) return true;
    if (p_q16 == 0) return false;
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return (state_ >> 16) < p_q16;
  }

 private:
  uint32_t state_;
};

}  // namespace ibcc::cc
