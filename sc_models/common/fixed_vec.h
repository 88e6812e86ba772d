// A vector of at most N elements stored inline: for the small per-VL and per-port arrays a
// model touches at every event, which then lie next to the rest of their owner instead of
// behind a pointer on the heap (a cache miss less per touch). Elements beyond size() are
// never read.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ibcc {

template <typename T, size_t N>
class FixedVec {
 public:
  static constexpr size_t kCapacity = N;

  FixedVec() = default;
  FixedVec(size_t n, const T& value) { assign(n, value); }

  // `n` elements, each `value`; std::length_error beyond N.
  void assign(size_t n, const T& value) {
    check(n);
    n_ = static_cast<uint32_t>(n);
    for (size_t i = 0; i < N; ++i) v_[i] = i < n ? value : T{};
  }
  void push_back(const T& value) {
    check(n_ + 1);
    v_[n_++] = value;
  }
  void clear() { n_ = 0; }
  bool empty() const { return n_ == 0; }
  size_t size() const { return n_; }
  T& operator[](size_t i) { return v_[i]; }
  const T& operator[](size_t i) const { return v_[i]; }
  T* data() { return v_.data(); }
  const T* data() const { return v_.data(); }
  T* begin() { return v_.data(); }
  T* end() { return v_.data() + n_; }
  const T* begin() const { return v_.data(); }
  const T* end() const { return v_.data() + n_; }

 private:
  static void check(size_t n) {
    if (n > N) throw std::length_error("FixedVec: " + std::to_string(n) + " elements, at most " + std::to_string(N));
  }
  uint32_t n_ = 0;
  std::array<T, N> v_{};
};

}  // namespace ibcc
