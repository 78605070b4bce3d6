#include "allocation_limit.hpp"

#include <cstdlib>
#include <new>

namespace flysim::test {
namespace {
thread_local std::size_t t_limit = 0;  // 0: no cap
thread_local std::size_t t_largest_refused = 0;
}  // namespace

AllocationLimit::AllocationLimit(std::size_t max_bytes) : previous_(t_limit) {
  t_limit = max_bytes;
  t_largest_refused = 0;
}

AllocationLimit::~AllocationLimit() { t_limit = previous_; }

std::size_t AllocationLimit::largest_refused() const { return t_largest_refused; }

}  // namespace flysim::test

// The other forms (new[], nothrow) call this one in libstdc++; the default operator
// delete frees with std::free, which matches std::malloc.
void* operator new(std::size_t size) {
  using namespace flysim::test;
  if (t_limit != 0 && size > t_limit) {
    if (size > t_largest_refused) t_largest_refused = size;
    throw std::bad_alloc();
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
