// SmallDiv gives what the hardware division gives, for every dividend it takes.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "common/small_div.h"

namespace {

TEST(SmallDiv, QuotientAndRemainderEqualDivisionForEveryDividend) {
  // The VL counts (1..15) and port counts (up to 64) it serves, the largest divisor, and a
  // few between (each has its own rounding error e = d - 2^32 mod d).
  std::vector<uint32_t> divisors;
  for (uint32_t d = 1; d <= 64; ++d) divisors.push_back(d);
  for (uint32_t d : {100u, 255u, 641u, 1000u, 4097u, 65521u, 65535u}) divisors.push_back(d);
  for (const uint32_t d : divisors) {
    const ibcc::SmallDiv div(d);
    EXPECT_EQ(div.divisor(), d);
    for (uint32_t x = 0; x <= ibcc::SmallDiv::kMaxDividend; ++x) {
      ASSERT_EQ(div.quot(x), x / d) << x << " / " << d;
      ASSERT_EQ(div.rem(x), x % d) << x << " % " << d;
    }
  }
}

TEST(SmallDiv, RefusesADivisorOutOfRange) {
  EXPECT_THROW(ibcc::SmallDiv(0), std::invalid_argument);
  EXPECT_THROW(ibcc::SmallDiv(65536), std::invalid_argument);
}

}  // namespace
