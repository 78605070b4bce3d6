#pragma once
// An allocator for the CPU engine's large per-neuron arrays (the delay ring, the pool):
// blocks of 2 MiB and more are aligned to 2 MiB and advised to use transparent huge
// pages (madvise; Linux's default THP mode). The scatter and the sweep touch these
// arrays at random places; with 4 KiB pages nearly every such touch is also a TLB miss,
// which under virtualization costs a two-dimensional page walk. Where the kernel gives
// no huge pages nothing changes but the alignment. Memory is the same: these arrays are
// value-initialized (every page touched) either way, and are mapped on their own, so
// freeing one returns it to the system.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace flysim {

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  static constexpr std::size_t round_up(std::size_t x) { return (x + kHugePage - 1) / kHugePage * kHugePage; }

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return std::allocator<T>().allocate(n);
    // Mapped directly (and unmapped when freed: a swapped-out engine's memory goes back
    // to the system at once), with the slack around the aligned block given back.
    const std::size_t rounded = round_up(bytes), mapped = rounded + kHugePage;
    void* p = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    char* const start = static_cast<char*>(p);
    char* const aligned = start + (round_up(reinterpret_cast<std::uintptr_t>(start)) - reinterpret_cast<std::uintptr_t>(start));
    if (aligned != start) ::munmap(start, static_cast<std::size_t>(aligned - start));
    if (aligned + rounded != start + mapped) ::munmap(aligned + rounded, static_cast<std::size_t>(start + mapped - (aligned + rounded)));
#if defined(MADV_HUGEPAGE)
    ::madvise(aligned, rounded, MADV_HUGEPAGE);  // advice only: failure changes nothing
#endif
    return reinterpret_cast<T*>(aligned);
  }
  void deallocate(T* p, std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return std::allocator<T>().deallocate(p, n);
    ::munmap(p, round_up(bytes));
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
};

// A vector whose large blocks lie on huge pages.
template <class T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace flysim
