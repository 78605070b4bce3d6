// GCC 12 warns that the intrinsics' own undefined pass-through operand "may be used
// uninitialized" (a false positive inside avx512fintrin.h).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <immintrin.h>

#include "kernels/cpu/cpu_features.hpp"
#include "kernels/cpu/poisson_draws.hpp"

namespace flysim::kernels {
namespace {

// Random123 has no multi-lane Philox for the CPU, so its rounds are restated here, on
// eight counters at once (tests/unit/poisson_draws_test.cpp holds the bits to the library's):
// each 64-bit lane holds one 32-bit word of one counter, so _mm512_mul_epu32 gives the
// 64-bit product whose halves are Random123's mulhilo32, with the library's constants.
struct Counters {
  __m512i word[4];
};

Counters philox4x32_round(const Counters& in, uint32_t key0, uint32_t key1) {
  const __m512i low_half = _mm512_set1_epi64(0xffffffffu);
  const __m512i product0 = _mm512_mul_epu32(in.word[0], _mm512_set1_epi64(PHILOX_M4x32_0));
  const __m512i product1 = _mm512_mul_epu32(in.word[2], _mm512_set1_epi64(PHILOX_M4x32_1));
  return Counters{{_mm512_xor_si512(_mm512_xor_si512(_mm512_srli_epi64(product1, 32), in.word[1]),
                                    _mm512_set1_epi64(key0)),
                   _mm512_and_si512(product1, low_half),
                   _mm512_xor_si512(_mm512_xor_si512(_mm512_srli_epi64(product0, 32), in.word[3]),
                                    _mm512_set1_epi64(key1)),
                   _mm512_and_si512(product0, low_half)}};
}

}  // namespace

uint32_t poisson_draws_avx512(uint32_t threshold, RngKey key, uint32_t neuron, EpochSpan e) {
  constexpr int kRounds = 10;  // Philox4x32-10
  uint64_t bits = 0;
  for (int32_t t0 = 0; t0 < e.steps; t0 += static_cast<int32_t>(kAvx512Lanes)) {
    // Counter (neuron, step, trial, 0) of steps first + t0 + lane; the step as uint32.
    const __m512i steps = _mm512_add_epi64(_mm512_set1_epi64(static_cast<uint32_t>(e.first + t0)),
                                           _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
    Counters ctr{{_mm512_set1_epi64(neuron), _mm512_and_si512(steps, _mm512_set1_epi64(0xffffffffu)),
                  _mm512_set1_epi64(key.trial), _mm512_setzero_si512()}};
    uint32_t key0 = key.seed_lo, key1 = key.seed_hi;
    for (int round = 0; round < kRounds; ++round) {
      if (round > 0) {
        key0 += PHILOX_W32_0;
        key1 += PHILOX_W32_1;
      }
      ctr = philox4x32_round(ctr, key0, key1);
    }
    const __mmask8 events = _mm512_cmplt_epu64_mask(ctr.word[0], _mm512_set1_epi64(threshold));
    bits |= uint64_t{events} << t0;
  }
  return static_cast<uint32_t>(bits & ((uint64_t{1} << e.steps) - 1));
}

}  // namespace flysim::kernels
