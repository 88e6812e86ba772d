// Writing a field of a Verilated model's input port: a port of up to 64 bits is an integer,
// a wider one a VlWide array of 32-bit words (the fills and credits of a large marker).
#pragma once

#include <cstddef>
#include <cstdint>

#include "verilated.h"

namespace ibcc::tb {

// `width` (<= 32) bits of `value` at bit `lsb` of a Verilator port of up to 64 bits.
template <typename Word>
void put_field(Word& port, unsigned lsb, unsigned width, uint32_t value) {
  const Word mask = static_cast<Word>(((uint64_t{1} << width) - 1u) << lsb);
  port = static_cast<Word>((port & ~mask) | ((static_cast<Word>(value) << lsb) & mask));
}
// The same in a wide port.
template <std::size_t N>
void put_field(VlWide<N>& port, unsigned lsb, unsigned width, uint32_t value) {
  const unsigned i = lsb / 32u, off = lsb % 32u;
  const bool straddles = off + width > 32u;
  const uint64_t mask = ((uint64_t{1} << width) - 1u) << off;
  uint64_t window = port[i] | (straddles ? uint64_t{port[i + 1]} << 32 : 0u);
  window = (window & ~mask) | ((uint64_t{value} << off) & mask);
  port[i] = static_cast<EData>(window);
  if (straddles) port[i + 1] = static_cast<EData>(window >> 32);
}

}  // namespace ibcc::tb
