// The CPU pool's Poisson draws (kernels/cpu/poisson_draws.cpp, AVX-512 where the CPU has
// it) against kernels::poisson_steps, Random123's Philox4x32-10 one step at a time.
#include <gtest/gtest.h>

#include <random>

#include "kernels/cpu/cpu_features.hpp"
#include "kernels/cpu/poisson_draws.hpp"
#include "model/lif_params.hpp"

namespace flysim::test {
namespace {

TEST(PoissonDraws, EqualRandom123StepByStep) {
  std::mt19937_64 rng(7);
  int with_events = 0;
  for (const uint32_t threshold : {0u, 1u, derive_constants({}).poisson_threshold, 0x80000000u, 0xfffffffeu, 0xffffffffu}) {

    for (int k = 0; k < 400; ++k) {
      const kernels::RngKey key{static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng()),
                                static_cast<uint32_t>(rng() % 1000)};
      const uint32_t neuron = static_cast<uint32_t>(rng());
      const int32_t steps = 1 + static_cast<int32_t>(rng() % kMaxDelaySteps);
      const int32_t first = k % 3 == 0 ? 0x7fffffff - steps + 1 : static_cast<int32_t>(rng() % 100000000);
      const kernels::EpochSpan span{first, steps};
      const uint32_t expected = kernels::poisson_steps(threshold, key, neuron, span);
      ASSERT_EQ(kernels::poisson_draws(threshold, key, neuron, span), expected)
          << "threshold " << threshold << " neuron " << neuron << " span " << first << "+" << steps;
      if (kernels::cpu_has_avx512()) {
        ASSERT_EQ(kernels::poisson_draws_avx512(threshold, key, neuron, span), expected);
      }
      if (kernels::cpu_has_avx2()) {
        ASSERT_EQ(kernels::poisson_draws_avx2(threshold, key, neuron, span), expected);
      }
      with_events += expected != 0u && expected != static_cast<uint32_t>((uint64_t{1} << steps) - 1);
    }
  }
  // Draws that are neither all events nor none: the comparison saw real Philox bits.
  EXPECT_GT(with_events, 400);
}

}  // namespace
}  // namespace flysim::test
