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

// new[] calls this one in libstdc++ (under ASan its runtime's own new[] and delete[]
// pair up instead).
void* operator new(std::size_t size) {
  using namespace flysim::test;
  if (t_limit != 0 && size > t_limit) {
    if (size > t_largest_refused) t_largest_refused = size;
    throw std::bad_alloc();
  }
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}

// Frees what the operator new above took from std::malloc: the default operator delete
// does the same in libstdc++, but ASan's own would report a malloc/delete mismatch.
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }

// The nothrow form too (std::stable_sort's buffer), so that it is freed as it was taken.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return ::operator new(size);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
