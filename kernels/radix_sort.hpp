#pragma once
// Sorts 64-bit keys least significant digit first, 11 bits a pass, over the digits that
// differ between keys (packed keys have few): the CUDA engine's host sorts each round's spikes (one key per spike)
// with it. Why not std::sort or Boost's spreadsort: on a round's keys, packed into 28-33
// bits, three counting passes take a fifth to a quarter of std::sort's time, spreadsort
// about half to two thirds (docs/BENCHMARKS.md, "The round's sort").
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace flysim::kernels {

inline constexpr int kRadixDigitBits = 11;

// Sorts `keys` ascending; `scratch` is working room (resized, contents left undefined).
// A pass whose digit is the same in every key is skipped.
inline void radix_sort(std::vector<uint64_t>& keys, std::vector<uint64_t>& scratch) {
  constexpr std::size_t kBuckets = std::size_t{1} << kRadixDigitBits;
  constexpr uint64_t kDigit = kBuckets - 1;
  if (keys.size() < 2) return;
  uint64_t any = 0, all = ~uint64_t{0};
  for (const uint64_t k : keys) {
    any |= k;
    all &= k;
  }
  const uint64_t varying = any & ~all;
  scratch.resize(keys.size());
  std::array<uint32_t, kBuckets> start;
  for (int shift = 0; shift < 64; shift += kRadixDigitBits) {
    if (((varying >> shift) & kDigit) == 0) continue;
    start.fill(0);
    for (const uint64_t k : keys) ++start[(k >> shift) & kDigit];
    uint32_t sum = 0;
    for (uint32_t& s : start) {
      const uint32_t n = s;
      s = sum;
      sum += n;
    }
    for (const uint64_t k : keys) scratch[start[(k >> shift) & kDigit]++] = k;
    keys.swap(scratch);
  }
}

}  // namespace flysim::kernels
