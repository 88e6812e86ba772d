// Values as bytes, for what one process of a parallel run sends another (RankExchange):
// ByteWriter appends trivially copyable values and vectors of them as they lie in memory (a
// vector: its count, then its elements); ByteReader takes them back in the same order and
// throws std::runtime_error, naming what it was reading, when the bytes end early. Both ends
// run the same build on the same kind of machine, so no byte order or width is converted.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace ibcc {

class ByteWriter {
 public:
  explicit ByteWriter(std::vector<uint8_t>& out) : out_(out) {}
  template <typename T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>, "only plain values travel as bytes");
    const size_t at = out_.size();
    out_.resize(at + sizeof(T));
    std::memcpy(out_.data() + at, &v, sizeof(T));
  }
  template <typename T>
  void put_vector(const std::vector<T>& rows) {
    static_assert(std::is_trivially_copyable_v<T>, "only plain values travel as bytes");
    put(uint64_t{rows.size()});
    const size_t at = out_.size();
    out_.resize(at + rows.size() * sizeof(T));
    if (!rows.empty()) std::memcpy(out_.data() + at, rows.data(), rows.size() * sizeof(T));
  }

 private:
  std::vector<uint8_t>& out_;
};

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  template <typename T>
  T take(const char* what) {
    static_assert(std::is_trivially_copyable_v<T>, "only plain values travel as bytes");
    if (left() < sizeof(T)) throw std::runtime_error(std::string("bytes end before ") + what);
    T v;
    std::memcpy(static_cast<void*>(&v), p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }
  template <typename T>
  void take_vector(std::vector<T>& rows, const char* what) {
    const uint64_t n = take<uint64_t>(what);
    if (n > left() / sizeof(T)) {
      throw std::runtime_error(std::string("bytes hold fewer ") + what + " than their count " + std::to_string(n));
    }
    rows.resize(n);
    if (n) std::memcpy(static_cast<void*>(rows.data()), p_, n * sizeof(T));
    p_ += n * sizeof(T);
  }
  size_t left() const { return static_cast<size_t>(end_ - p_); }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

}  // namespace ibcc
