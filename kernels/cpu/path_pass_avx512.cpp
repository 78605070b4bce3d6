#include "kernels/cpu/path_pass_avx512.hpp"

#include <immintrin.h>

#include <cstring>

#include "kernels/cpu/path_lanes.hpp"

// kernels/lif.hpp's templates take __m512d and Int32Lanes as their Real and Int: GCC
// defines them as vector types, so +, -, *, comparisons (lane masks) and ?: work lane by
// lane with the scalar text's rounding (-ffp-contract=off: no FMA here either). They
// must be compiled in a file built for AVX-512: a template instantiated elsewhere is
// lowered to scalar code before it could be inlined here.
// The lane helpers return vectors by value; nothing here is called across instruction
// sets but sort_blocks_avx512, which takes and returns none.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace flysim::kernels {
namespace {

using Int32Lanes = int32_t __attribute__((vector_size(kAvx512Lanes * sizeof(int32_t))));

__mmask8 mask_of(__m512i lanes) { return _mm512_movepi64_mask(lanes); }
__mmask8 mask_of(__m256i lanes) { return _mm256_movepi32_mask(lanes); }
// A comparison's lanes as mask bits: of doubles (64 bytes) or of int32 lanes (32).
const auto lane_mask = [](auto lanes) {
  if constexpr (sizeof(lanes) == sizeof(__m512i)) return mask_of(__m512i(lanes));
  else return mask_of(__m256i(lanes));
};

// Eight entries from e: choose_path lane by lane (lane_paths; a lane with input or a
// Poisson drive is stepwise). The quiet decay is computed in every lane and stored in
// the quiet ones. The stepwise and the
// leaving lanes' entries are appended at *stepwise and *leaving, which advance past them;
// each list needs room for kAvx512Lanes entries from where it stands.
void sort_block(const LifConstants& c, EpochSpan span, const PoolArrays& pool, uint32_t e, uint32_t*& stepwise,
                uint32_t*& leaving) {
  const __m256i inputs = _mm256_or_si256(
      _mm256_or_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(pool.synaptic_slots + e)),
                      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pool.kick_steps + e))),
      _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(pool.poisson + e))));
  const __mmask8 no_input = _mm256_testn_epi32_mask(inputs, inputs);
  Int32Lanes last_spike;
  std::memcpy(&last_spike, pool.last_spike + e, sizeof last_spike);
  const __m512d v = _mm512_loadu_pd(pool.v + e), g = _mm512_loadu_pd(pool.g + e);
  const auto [unchanged, quiet] = lane_paths(c, span, v, g, last_spike, no_input, lane_mask);
  __m512d v_quiet = v, g_quiet = g;
  advance_quiet(c, span, v_quiet, g_quiet);
  _mm512_mask_storeu_pd(pool.v + e, quiet, v_quiet);
  _mm512_mask_storeu_pd(pool.g + e, quiet, g_quiet);
  const __m512d v_after = _mm512_mask_blend_pd(quiet, v, v_quiet), g_after = _mm512_mask_blend_pd(quiet, g, g_quiet);
  const __mmask8 leaves = (unchanged | quiet) & mask_of(__m512i(at_rest(c, v_after, g_after)));
  const __mmask8 steps = static_cast<__mmask8>(~(unchanged | quiet));
  const __m256i entries = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(e)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  // Compressed in a register and stored whole (the lanes past the count are overwritten
  // by the next block): a compressing store to memory is microcoded on AMD Zen 4, about
  // a hundred cycles. The eight stored lanes stay within the lists' room: at most as many
  // entries precede this block's as blocks before it hold.
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(stepwise), _mm256_maskz_compress_epi32(steps, entries));
  if (leaves != 0)  // rare: most listed neurons stay listed for half a second
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(leaving), _mm256_maskz_compress_epi32(leaves, entries));
  stepwise += __builtin_popcount(steps);
  leaving += __builtin_popcount(leaves);
}

}  // namespace

uint32_t sort_blocks_avx512(const LifConstants& c, EpochSpan span, const PoolArrays& pool, uint32_t begin,
                            uint32_t blocks, uint32_t* stepwise, uint32_t* leaving, uint32_t& leaving_count) {
  uint32_t* stepwise_end = stepwise;
  uint32_t* leaving_end = leaving;
  for (uint32_t b = 0; b < blocks; ++b)
    sort_block(c, span, pool, begin + kAvx512Lanes * b, stepwise_end, leaving_end);
  leaving_count = static_cast<uint32_t>(leaving_end - leaving);
  return static_cast<uint32_t>(stepwise_end - stepwise);
}

}  // namespace flysim::kernels
