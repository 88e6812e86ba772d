// A field of a 32-bit CSR: position, width and reset value, with get/insert helpers.
#pragma once

#include <cstdint>

namespace ibcc::regs {

struct RegField {
  unsigned lsb;
  unsigned width;
  uint32_t reset;

  constexpr uint32_t mask() const {
    return (width >= 32 ? 0xffffffffu : ((1u << width) - 1u)) << lsb;
  }
  constexpr uint32_t get(uint32_t word) const { return (word & mask()) >> lsb; }
  constexpr uint32_t put(uint32_t value) const { return (value << lsb) & mask(); }
};

// Merge a write into the current word under AXI byte strobes.
constexpr uint32_t apply_strobe(uint32_t current, uint32_t wdata, uint32_t wstrb) {
  uint32_t mask = 0;
  for (unsigned b = 0; b < 4; ++b) {
    if (wstrb & (1u << b)) mask |= 0xffu << (8 * b);
  }
  return (current & ~mask) | (wdata & mask);
}

}  // namespace ibcc::regs
