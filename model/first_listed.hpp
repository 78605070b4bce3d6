#pragma once
// A summary's list of things a run does over and over (engine swaps, plasticity updates):
// the first `limit` kept, all of them counted. A service does them without end, and a
// list that kept every one would grow with its life.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace flysim {

template <class T>
class FirstListed {
 public:
  explicit FirstListed(std::size_t limit) : limit_(limit) {}
  void add(T item) {
    ++count_;
    if (items_.size() < limit_) items_.push_back(std::move(item));
  }
  const std::vector<T>& items() const { return items_; }
  uint64_t count() const { return count_; }

 private:
  std::size_t limit_;
  std::vector<T> items_;
  uint64_t count_ = 0;
};

}  // namespace flysim
