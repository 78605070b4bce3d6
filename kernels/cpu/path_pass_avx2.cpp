#include "kernels/cpu/path_pass_avx2.hpp"

#include <immintrin.h>

#include <cstring>

#include "kernels/cpu/path_lanes.hpp"

// As path_pass_avx512.cpp: kernels/lif.hpp's templates take __m256d and Int32Lanes (GCC
// vector types), so each lane rounds as the scalar text (-ffp-contract=off holds here too).
#pragma GCC diagnostic ignored "-Wpsabi"

namespace flysim::kernels {
namespace {

using Int32Lanes = int32_t __attribute__((vector_size(kAvx2Lanes * sizeof(int32_t))));

// Bit k set when lane k of a comparison's result is true.
uint32_t mask_of(__m256i lanes) { return static_cast<uint32_t>(_mm256_movemask_pd(_mm256_castsi256_pd(lanes))); }
uint32_t mask_of(__m128i lanes) { return static_cast<uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(lanes))); }
// A comparison's lanes as mask bits: of doubles (32 bytes) or of int32 lanes (16).
const auto lane_mask = [](auto lanes) {
  if constexpr (sizeof(lanes) == sizeof(__m256i)) return mask_of(__m256i(lanes));
  else return mask_of(__m128i(lanes));
};

// Appends e + k for every bit k of `lanes` at *list, which advances past them.
void append_lanes(uint32_t lanes, uint32_t e, uint32_t*& list) {
  for (; lanes != 0; lanes &= lanes - 1) *list++ = e + static_cast<uint32_t>(__builtin_ctz(lanes));
}

// Four entries from e, as path_pass_avx512.cpp's sort_block takes eight: choose_path lane
// by lane, the quiet decay kept in the quiet lanes (the others store back what they held).
void sort_block(const LifConstants& c, EpochSpan span, const PoolArrays& pool, uint32_t e, uint32_t*& stepwise,
                uint32_t*& leaving) {
  int32_t poisson4;
  std::memcpy(&poisson4, pool.poisson + e, sizeof poisson4);
  const __m128i inputs = _mm_or_si128(
      _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(pool.synaptic_slots + e)),
                   _mm_loadu_si128(reinterpret_cast<const __m128i*>(pool.kick_steps + e))),
      _mm_cvtepu8_epi32(_mm_cvtsi32_si128(poisson4)));
  const uint32_t no_input = mask_of(_mm_cmpeq_epi32(inputs, _mm_setzero_si128()));
  Int32Lanes last_spike;
  std::memcpy(&last_spike, pool.last_spike + e, sizeof last_spike);
  const __m256d v = _mm256_loadu_pd(pool.v + e), g = _mm256_loadu_pd(pool.g + e);
  const auto [unchanged, quiet] = lane_paths(c, span, v, g, last_spike, no_input, lane_mask);
  __m256d v_after = v, g_after = g;
  if (quiet != 0) {
    __m256d v_quiet = v, g_quiet = g;
    advance_quiet(c, span, v_quiet, g_quiet);
    // Lane k of the blend mask: all ones when bit k of `quiet` is set.
    const __m256i lane_bits = _mm256_setr_epi64x(1, 2, 4, 8);
    const __m256d take = _mm256_castsi256_pd(
        _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x(quiet), lane_bits), lane_bits));
    v_after = _mm256_blendv_pd(v, v_quiet, take);
    g_after = _mm256_blendv_pd(g, g_quiet, take);
    _mm256_storeu_pd(pool.v + e, v_after);
    _mm256_storeu_pd(pool.g + e, g_after);
  }
  const uint32_t leaves = (unchanged | quiet) & lane_mask(at_rest(c, v_after, g_after));
  append_lanes(~(unchanged | quiet) & 0xFu, e, stepwise);
  append_lanes(leaves, e, leaving);
}

}  // namespace

uint32_t sort_blocks_avx2(const LifConstants& c, EpochSpan span, const PoolArrays& pool, uint32_t begin,
                          uint32_t blocks, uint32_t* stepwise, uint32_t* leaving, uint32_t& leaving_count) {
  uint32_t* stepwise_end = stepwise;
  uint32_t* leaving_end = leaving;
  for (uint32_t b = 0; b < blocks; ++b) sort_block(c, span, pool, begin + kAvx2Lanes * b, stepwise_end, leaving_end);
  leaving_count = static_cast<uint32_t>(leaving_end - leaving);
  return static_cast<uint32_t>(stepwise_end - stepwise);
}

}  // namespace flysim::kernels
