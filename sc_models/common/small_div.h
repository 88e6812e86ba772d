// x / d and x % d for a divisor fixed at run time, by a multiply and a shift instead of a
// hardware division (tens of cycles each on the hot path of the network model, where a
// packet's hop divides a VoQ pair number by the VL count several times). Exact for every
// x < 2^16 and 1 <= d < 2^16: with m = floor(2^32 / d) + 1 = (2^32 + e) / d, 1 <= e <= d,
// x * m / 2^32 = x / d + x * e / (d * 2^32), and x * e < 2^32 keeps the floor at x / d
// (tests/net/test_small_div.cpp checks every x for d up to 64 and some larger d).
#pragma once

#include <cstdint>
#include <stdexcept>

namespace ibcc {

class SmallDiv {
 public:
  static constexpr uint32_t kMaxDividend = 0xffff;

  SmallDiv() = default;
  explicit SmallDiv(uint32_t d) : d_(d), m_(d == 0 ? 0 : (uint64_t{1} << 32) / d + 1) {
    if (d == 0 || d > kMaxDividend) throw std::invalid_argument("SmallDiv: divisor must be 1..65535");
  }

  uint32_t divisor() const { return d_; }
  // x <= kMaxDividend.
  uint32_t quot(uint32_t x) const { return static_cast<uint32_t>((x * m_) >> 32); }
  uint32_t rem(uint32_t x) const { return x - quot(x) * d_; }

 private:
  uint32_t d_ = 1;
  uint64_t m_ = (uint64_t{1} << 32) + 1;
};

}  // namespace ibcc
