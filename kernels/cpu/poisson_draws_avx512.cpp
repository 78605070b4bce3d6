// GCC 12 warns that the intrinsics' own undefined pass-through operand "may be used
// uninitialized" (a false positive inside avx512fintrin.h).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wpsabi"

#include <immintrin.h>

#include "kernels/cpu/cpu_features.hpp"
#include "kernels/cpu/philox_lanes.hpp"
#include "kernels/cpu/poisson_draws.hpp"

namespace flysim::kernels {
namespace {

// Eight 64-bit lanes (philox_lanes.hpp's Ops).
struct Avx512Ops {
  using V = __m512i;
  static constexpr uint32_t kLanes = kAvx512Lanes;
  static V set1(uint64_t x) { return _mm512_set1_epi64(static_cast<long long>(x)); }
  static V steps() { return _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7); }
  static V add(V a, V b) { return _mm512_add_epi64(a, b); }
  static V and_(V a, V b) { return _mm512_and_si512(a, b); }
  static V xor_(V a, V b) { return _mm512_xor_si512(a, b); }
  static V srli32(V a) { return _mm512_srli_epi64(a, 32); }
  static V mul_epu32(V a, V b) { return _mm512_mul_epu32(a, b); }
  static uint32_t below_mask(V words, uint32_t threshold) { return _mm512_cmplt_epu64_mask(words, set1(threshold)); }
};

}  // namespace

uint32_t poisson_draws_avx512(uint32_t threshold, RngKey key, uint32_t neuron, EpochSpan e) {
  return philox_poisson_steps<Avx512Ops>(threshold, key, neuron, e);
}

}  // namespace flysim::kernels
