// The SystemC type Verilator --sc gives a port of W bits, and packing of W-bit vectors of
// fixed-width fields to and from those types.
#pragma once

#include <algorithm>
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
  // Copy the words out once, with a zero word past the end for fields that straddle it.
  constexpr int kWords = (W + 31) / 32;
  std::array<uint32_t, kWords + 1> words{};
  for (int w = 0; w < kWords; ++w) words[w] = v.get_word(w);
  const uint32_t mask = (uint32_t{1} << width) - 1u;
  for (size_t i = 0; i < out.size(); ++i) {
    const unsigned lo = static_cast<unsigned>(i) * width;
    const uint64_t window = words[lo / 32u] | (uint64_t{words[lo / 32u + 1]} << 32);
    out[i] = static_cast<uint32_t>(window >> (lo % 32u)) & mask;
  }
}

// Unpacking of a wide bus that changes a few fields per cycle: only the fields of words that
// changed since the last call are extracted again.
template <int W>
class IncrementalUnpacker {
 public:
  void update(const sc_dt::sc_bv<W>& v, unsigned width, std::vector<uint32_t>& out) {
    static_assert(kWords <= 64, "bus too wide for the change mask");
    uint64_t changed = 0;
    for (int w = 0; w < kWords; ++w) {
      const uint32_t word = v.get_word(w);
      if (!primed_ || word != words_[w]) {
        words_[w] = word;
        changed |= uint64_t{1} << w;
      }
    }
    primed_ = true;
    const uint32_t mask = (uint32_t{1} << width) - 1u;
    for (int w = 0; changed != 0; ++w, changed >>= 1) {
      if (!(changed & 1u)) continue;
      // Fields overlapping word w: i * width <= 32w + 31 and (i + 1) * width > 32w.
      const size_t first = (32u * static_cast<unsigned>(w)) / width;
      const size_t last = std::min<size_t>(out.size() - 1, (32u * static_cast<unsigned>(w) + 31u) / width);
      for (size_t i = first; i <= last; ++i) {
        const unsigned lo = static_cast<unsigned>(i) * width;
        const uint64_t window = words_[lo / 32u] | (uint64_t{words_[lo / 32u + 1]} << 32);
        out[i] = static_cast<uint32_t>(window >> (lo % 32u)) & mask;
      }
    }
  }

 private:
  static constexpr int kWords = (W + 31) / 32;
  std::array<uint32_t, kWords + 1> words_{};  // one zero word past the end
  bool primed_ = false;
};

// Packing of a wide bus of which a few fields change per cycle: only changed fields are
// written into the kept words.
template <int W>
class IncrementalPacker {
 public:
  void update(const std::vector<uint32_t>& in, unsigned width, sc_dt::sc_bv<W>& v) {
    if (last_.size() != in.size()) last_.assign(in.size(), ~0u);  // first call: every field
    const uint64_t mask = (uint64_t{1} << width) - 1u;
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i] == last_[i]) continue;
      last_[i] = in[i];
      const unsigned lo = static_cast<unsigned>(i) * width;
      const unsigned w = lo / 32u;
      uint64_t window = words_[w] | (uint64_t{words_[w + 1]} << 32);
      window = (window & ~(mask << (lo % 32u))) | ((uint64_t{in[i]} & mask) << (lo % 32u));
      words_[w] = static_cast<uint32_t>(window);
      words_[w + 1] = static_cast<uint32_t>(window >> 32);
    }
    for (int w = 0; w < kWords; ++w) v.set_word(w, words_[w]);
  }

 private:
  static constexpr int kWords = (W + 31) / 32;
  std::array<uint32_t, kWords + 1> words_{};  // one spare word past the end
  std::vector<uint32_t> last_;
};

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
  constexpr int kWords = (W + 31) / 32;
  std::array<uint32_t, kWords + 1> words{};  // one spare word for the last field's overflow
  for (size_t i = 0; i < in.size(); ++i) {
    const unsigned lo = static_cast<unsigned>(i) * width;
    const uint64_t bits = uint64_t{in[i]} << (lo % 32u);
    words[lo / 32u] |= static_cast<uint32_t>(bits);
    words[lo / 32u + 1] |= static_cast<uint32_t>(bits >> 32);
  }
  for (int w = 0; w < kWords; ++w) v.set_word(w, words[w]);
}

}  // namespace ibcc::sc
