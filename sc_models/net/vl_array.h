// Per-VL state of a port, inside the port: at most 15 data VLs (fabric.vls), so a port's
// VLs lie next to its other fields instead of behind a pointer on the heap (one cache miss
// less each time a hop reads or writes them). The used ones come first; the rest is never
// touched.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ibcc::net {

template <typename T>
class VlArray {
 public:
  static constexpr size_t kMaxVls = 15;

  // `n` VLs, each `value`; std::length_error beyond kMaxVls.
  void assign(size_t n, const T& value) {
    if (n > kMaxVls) throw std::length_error("VlArray: " + std::to_string(n) + " VLs, at most 15");
    n_ = static_cast<uint32_t>(n);
    for (size_t i = 0; i < kMaxVls; ++i) v_[i] = i < n ? value : T{};
  }
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
  uint32_t n_ = 0;
  std::array<T, kMaxVls> v_{};
};

}  // namespace ibcc::net
