#include <immintrin.h>

#include "kernels/cpu/cpu_features.hpp"
#include "kernels/cpu/philox_lanes.hpp"
#include "kernels/cpu/poisson_draws.hpp"

#pragma GCC diagnostic ignored "-Wpsabi"

namespace flysim::kernels {
namespace {

// Four 64-bit lanes (philox_lanes.hpp's Ops).
struct Avx2Ops {
  using V = __m256i;
  static constexpr uint32_t kLanes = kAvx2Lanes;
  static V set1(uint64_t x) { return _mm256_set1_epi64x(static_cast<long long>(x)); }
  static V steps() { return _mm256_setr_epi64x(0, 1, 2, 3); }
  static V add(V a, V b) { return _mm256_add_epi64(a, b); }
  static V and_(V a, V b) { return _mm256_and_si256(a, b); }
  static V xor_(V a, V b) { return _mm256_xor_si256(a, b); }
  static V srli32(V a) { return _mm256_srli_epi64(a, 32); }
  static V mul_epu32(V a, V b) { return _mm256_mul_epu32(a, b); }
  // Every lane holds a 32-bit word, so the signed 64-bit comparison is the unsigned one.
  static uint32_t below_mask(V words, uint32_t threshold) {
    return static_cast<uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(set1(threshold), words))));
  }
};

}  // namespace

uint32_t poisson_draws_avx2(uint32_t threshold, RngKey key, uint32_t neuron, EpochSpan e) {
  return philox_poisson_steps<Avx2Ops>(threshold, key, neuron, e);
}

}  // namespace flysim::kernels
