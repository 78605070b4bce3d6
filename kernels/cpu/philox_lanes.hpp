#pragma once
// kernels::poisson_steps on several steps at once (poisson_draws_avx512.cpp,
// poisson_draws_avx2.cpp): the one text of the vector Philox4x32-10, over an `Ops` of
// the file's own register type, instantiated in each file for its instruction set.
// Random123 has no multi-lane Philox for the CPU, so its rounds are restated here: each
// 64-bit lane holds one 32-bit word of one counter, so Ops::mul_epu32 gives the 64-bit
// product whose halves are Random123's mulhilo32, with the library's constants
// (tests/unit/poisson_draws_test.cpp holds the bits to the library's).
//
// Ops: `V` (Ops::kLanes lanes of 64 bits), set1(uint64), steps() (lane k holds k), add, and_,
// xor_, srli32 (shift right by 32), mul_epu32, and below_mask(words, threshold) (bit k set
// when lane k < threshold; every lane holds a 32-bit word).
#include <Random123/philox.h>

#include <cstdint>

#include "kernels/lif.hpp"

namespace flysim::kernels {

template <class Ops>
struct PhiloxCounters {
  typename Ops::V word[4];
};

template <class Ops>
inline PhiloxCounters<Ops> philox_round(const PhiloxCounters<Ops>& in, uint32_t key0, uint32_t key1) {
  const auto low_half = Ops::set1(0xffffffffu);
  const auto product0 = Ops::mul_epu32(in.word[0], Ops::set1(PHILOX_M4x32_0));
  const auto product1 = Ops::mul_epu32(in.word[2], Ops::set1(PHILOX_M4x32_1));
  return {{Ops::xor_(Ops::xor_(Ops::srli32(product1), in.word[1]), Ops::set1(key0)), Ops::and_(product1, low_half),
           Ops::xor_(Ops::xor_(Ops::srli32(product0), in.word[3]), Ops::set1(key1)), Ops::and_(product0, low_half)}};
}

// poisson_steps(threshold, key, neuron, e), Ops::kLanes steps at a time.
template <class Ops>
inline uint32_t philox_poisson_steps(uint32_t threshold, RngKey key, uint32_t neuron, EpochSpan e) {
  constexpr int kRounds = 10;  // Philox4x32-10
  uint64_t bits = 0;
  for (int32_t t0 = 0; t0 < e.steps; t0 += static_cast<int32_t>(Ops::kLanes)) {
    // Counter (neuron, step, trial, 0) of steps first + t0 + lane; the step as uint32.
    const auto steps = Ops::add(Ops::set1(static_cast<uint32_t>(e.first + t0)), Ops::steps());
    PhiloxCounters<Ops> ctr{{Ops::set1(neuron), Ops::and_(steps, Ops::set1(0xffffffffu)), Ops::set1(key.trial),
                             Ops::set1(0)}};
    uint32_t key0 = key.seed_lo, key1 = key.seed_hi;
    for (int round = 0; round < kRounds; ++round) {
      if (round > 0) {
        key0 += PHILOX_W32_0;
        key1 += PHILOX_W32_1;
      }
      ctr = philox_round<Ops>(ctr, key0, key1);
    }
    bits |= uint64_t{Ops::below_mask(ctr.word[0], threshold)} << t0;
  }
  return static_cast<uint32_t>(bits & ((uint64_t{1} << e.steps) - 1));
}

}  // namespace flysim::kernels
