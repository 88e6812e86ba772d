// The SystemC type Verilator --sc gives a port of W bits, and packing of W-bit vectors of
// fixed-width fields to and from those types.
#pragma once

#include <array>
#include <cstdint>
#include <systemc>
#include <type_traits>
#include <vector>

namespace ibcc::sc {

template <unsigned W>
using VlPort = std::conditional_t<
    W == 1, bool,
    std::conditional_t<(W <= 32), uint32_t, std::conditional_t<(W <= 64), uint64_t, sc_dt::sc_bv<W>>>>;

// Field i of `width` bits at bit i*width.
inline void unpack_fields(uint64_t v, unsigned width, std::vector<uint32_t>& out) {
  const uint64_t mask = (uint64_t{1} << width) - 1u;
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint32_t>((v >> (i * width)) & mask);
}

template <int W>
void unpack_fields(const sc_dt::sc_bv<W>& v, unsigned width, std::vector<uint32_t>& out) {
  const uint32_t mask = (uint32_t{1} << width) - 1u;
  for (size_t i = 0; i < out.size(); ++i) {
    const unsigned lo = static_cast<unsigned>(i) * width;
    const unsigned word = lo / 32u;
    const unsigned bit = lo % 32u;
    uint64_t bits = v.get_word(static_cast<int>(word));
    if (bit + width > 32u && static_cast<int>(word + 1) < (v.length() + 31) / 32) {
      bits |= uint64_t{v.get_word(static_cast<int>(word + 1))} << 32;
    }
    out[i] = static_cast<uint32_t>(bits >> bit) & mask;
  }
}

inline void pack_fields(const std::vector<uint32_t>& in, unsigned width, uint64_t& v) {
  v = 0;
  for (size_t i = 0; i < in.size(); ++i) v |= uint64_t{in[i]} << (i * width);
}

inline void pack_fields(const std::vector<uint32_t>& in, unsigned width, uint32_t& v) {
  uint64_t wide;
  pack_fields(in, width, wide);
  v = static_cast<uint32_t>(wide);
}

template <int W>
void pack_fields(const std::vector<uint32_t>& in, unsigned width, sc_dt::sc_bv<W>& v) {
  std::array<uint32_t, (W + 31) / 32> words{};
  for (size_t i = 0; i < in.size(); ++i) {
    const unsigned lo = static_cast<unsigned>(i) * width;
    const uint64_t bits = uint64_t{in[i]} << (lo % 32u);
    words[lo / 32u] |= static_cast<uint32_t>(bits);
    if (lo / 32u + 1 < words.size()) words[lo / 32u + 1] |= static_cast<uint32_t>(bits >> 32);
  }
  for (size_t w = 0; w < words.size(); ++w) v.set_word(static_cast<int>(w), words[w]);
}

}  // namespace ibcc::sc
