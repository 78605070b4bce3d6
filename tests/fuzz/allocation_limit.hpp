#pragma once
// A cap on single heap allocations of the current thread, for tests that feed corrupt
// input to decoders: an allocation above the cap is refused (std::bad_alloc) instead of
// being made, and recorded, so a test can assert that no input made the code ask for an
// absurd amount. The test binary replaces the global operator new for this; it behaves
// as the default one while no cap is set.
#include <cstddef>

namespace flysim::test {

class AllocationLimit {
 public:
  explicit AllocationLimit(std::size_t max_bytes);
  ~AllocationLimit();
  AllocationLimit(const AllocationLimit&) = delete;
  AllocationLimit& operator=(const AllocationLimit&) = delete;
  // The largest allocation refused so far under this cap (0: none).
  std::size_t largest_refused() const;

 private:
  std::size_t previous_;
};

}  // namespace flysim::test
