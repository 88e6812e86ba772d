// A view of a list shared by many owners: the flows of one uniform pattern over n hosts hold
// one list of n names, each flow its own view "all but me" (or "the others, starting after
// me"), instead of n^2 names in all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <vector>

namespace ibcc::net {

// Element k of the view is all[(start + k + (k >= skip ? 1 : 0)) % all.size()], for
// k < count: `skip` drops one element (the owner itself) of a view starting at 0; `start`
// rotates a view (all-to-all: the others, starting after the owner).
template <typename T>
class SharedSeq {
 public:
  static constexpr size_t kNone = SIZE_MAX;

  SharedSeq() = default;
  SharedSeq(std::shared_ptr<const std::vector<T>> all, size_t start, size_t count, size_t skip = kNone)
      : all_(std::move(all)), start_(start), count_(count), skip_(skip) {}
  // A view of a list of its own.
  explicit SharedSeq(std::vector<T> own)
      : all_(std::make_shared<const std::vector<T>>(std::move(own))), start_(0), count_(all_->size()) {}

  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  const T& operator[](size_t k) const {
    const size_t i = start_ + k + (k >= skip_ ? 1 : 0);
    return (*all_)[i < all_->size() ? i : i % all_->size()];
  }

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = const T*;
    using reference = const T&;
    const_iterator(const SharedSeq* s, size_t k) : s_(s), k_(k) {}
    reference operator*() const { return (*s_)[k_]; }
    pointer operator->() const { return &(*s_)[k_]; }
    const_iterator& operator++() {
      ++k_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++k_;
      return old;
    }
    bool operator==(const const_iterator& o) const { return k_ == o.k_; }
    bool operator!=(const const_iterator& o) const { return k_ != o.k_; }

   private:
    const SharedSeq* s_;
    size_t k_;
  };
  // Whether element i of the shared list is in the view (i < all().size()).
  bool covers(size_t i) const {
    const size_t n = all_ ? all_->size() : 0;
    if (i >= n) return false;
    const size_t at = (i + n - start_ % n) % n;  // its place in the rotated list
    if (skip_ != kNone && at == skip_) return false;
    return (skip_ != kNone && at > skip_ ? at - 1 : at) < count_;
  }

  // The elements of the shared list the view leaves out, as indices into it: the skipped one
  // and the rotated tail past the view's end.
  size_t left_out() const { return all_ ? all_->size() - count_ : 0; }
  template <typename F>
  void for_each_left_out(F&& f) const {
    const size_t n = all_ ? all_->size() : 0;
    if (n == 0) return;
    const bool skips = skip_ != kNone && skip_ < count_;
    if (skips) f((start_ + skip_) % n);
    for (size_t at = count_ + (skips ? 1 : 0); at < n; ++at) f((start_ + at) % n);
  }

  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, count_}; }

  // The shared list and the view's shape, to build the same view over a parallel list (the
  // LIDs of these names).
  const std::shared_ptr<const std::vector<T>>& all() const { return all_; }
  template <typename U>
  SharedSeq<U> same_view(std::shared_ptr<const std::vector<U>> parallel) const {
    return SharedSeq<U>(std::move(parallel), start_, count_, skip_);
  }

 private:
  std::shared_ptr<const std::vector<T>> all_;
  size_t start_ = 0, count_ = 0, skip_ = kNone;
};

}  // namespace ibcc::net
