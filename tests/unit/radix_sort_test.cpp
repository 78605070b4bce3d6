// kernels/radix_sort.hpp against std::sort: random keys of several widths (a pass per 11
// bits, digits that never vary skipped), the CUDA engine's packed round keys, duplicates,
// and the edge sizes.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "kernels/cuda/round_keys.hpp"
#include "kernels/radix_sort.hpp"

namespace flysim::test {
namespace {

std::vector<uint64_t> random_keys(std::size_t count, int bits, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  std::vector<uint64_t> keys(count);
  for (uint64_t& k : keys) k = rng() & mask;
  return keys;
}

void expect_sorted_like_std(std::vector<uint64_t> keys, const std::string& what) {
  std::vector<uint64_t> expected = keys, scratch;
  std::sort(expected.begin(), expected.end());
  kernels::radix_sort(keys, scratch);
  EXPECT_EQ(keys, expected) << what;
}

TEST(RadixSort, SortsLikeStdSortAtEveryWidth) {
  for (const int bits : {1, 5, 11, 12, 22, 28, 33, 44, 63, 64})
    for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{1000}, std::size_t{100'000}})
      expect_sorted_like_std(random_keys(count, bits, bits * 7919 + count), std::to_string(count) + " keys of " + std::to_string(bits) + " bits");
}

// The CUDA engine's packed round keys (cuda::PackedRoundKeys) at FlyWire scale: one trial
// (the digits above the step never vary) and 30, many duplicates of the upper fields; and
// keys all equal.
TEST(RadixSort, SortsPackedRoundKeysWithConstantDigitsAndDuplicates) {
  for (const std::size_t trials : {std::size_t{1}, std::size_t{30}}) {
    const cuda::PackedRoundKeys packed(138'639);
    std::mt19937_64 rng(3);
    std::vector<uint64_t> keys;
    for (int k = 0; k < 50'000; ++k)
      keys.push_back(packed.pack(static_cast<uint32_t>(rng() % trials), static_cast<int32_t>(rng() % 504),
                                 static_cast<uint32_t>(rng() % 138'639)));
    expect_sorted_like_std(keys, std::to_string(trials) + " trial(s)");
  }
  expect_sorted_like_std(std::vector<uint64_t>(1000, 0x5a5a5), "all equal");
}

}  // namespace
}  // namespace flysim::test
