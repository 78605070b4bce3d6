#include "kernels/cpu/path_pass.hpp"

#include "kernels/cpu/cpu_features.hpp"
#include "kernels/cpu/path_pass_avx2.hpp"
#include "kernels/cpu/path_pass_avx512.hpp"

namespace flysim::kernels {
namespace {

// One entry, as the scalar pass takes it; true when it is stepwise.
bool sort_entry(const LifConstants& c, EpochSpan span, const PoolArrays& pool, uint32_t e,
                std::vector<uint32_t>& leaving) {
  const NeuronInputs in{pool.synaptic_slots[e], pool.kick_steps[e], pool.poisson[e] != 0};
  double v = pool.v[e], g = pool.g[e];
  const EpochPath path = choose_path(c, in, span, v, g, pool.last_spike[e]);
  if (path == EpochPath::stepwise) return true;
  if (path == EpochPath::quiet) {
    advance_quiet(c, span, v, g);
    pool.v[e] = v;
    pool.g[e] = g;
  }
  // Without input and not Poisson-driven (else it would be stepwise): it leaves at rest.
  if (at_rest(c, v, g)) leaving.push_back(e);
  return false;
}

}  // namespace

uint32_t sort_pool_paths_one_by_one(const LifConstants& c, EpochSpan span, const PoolArrays& pool, uint32_t begin,
                                    uint32_t end, uint32_t* stepwise, std::vector<uint32_t>& leaving) {
  uint32_t count = 0;
  for (uint32_t e = begin; e < end; ++e)
    if (sort_entry(c, span, pool, e, leaving)) stepwise[count++] = e;
  return count;
}

uint32_t sort_pool_paths_in_blocks(PathBlocks blocks_of, uint32_t lanes, const LifConstants& c, EpochSpan span,
                                   const PoolArrays& pool, uint32_t begin, uint32_t end, uint32_t* stepwise,
                                   std::vector<uint32_t>& leaving) {
  // The whole blocks of `lanes` entries in vector registers, then the rest one by one:
  // both lists stay ascending.
  thread_local std::vector<uint32_t> leaving_blocks;
  const uint32_t blocks = (end - begin) / lanes;
  leaving_blocks.resize(std::size_t{lanes} * blocks);
  uint32_t leaving_count = 0;
  const uint32_t count = blocks_of(c, span, pool, begin, blocks, stepwise, leaving_blocks.data(), leaving_count);
  leaving.insert(leaving.end(), leaving_blocks.begin(), leaving_blocks.begin() + leaving_count);
  const uint32_t rest = begin + lanes * blocks;
  return count + sort_pool_paths_one_by_one(c, span, pool, rest, end, stepwise + count, leaving);
}

uint32_t sort_pool_paths(const LifConstants& c, EpochSpan span, const PoolArrays& pool, uint32_t begin, uint32_t end,
                         uint32_t* stepwise, std::vector<uint32_t>& leaving) {
  static const bool avx512 = cpu_has_avx512(), avx2 = cpu_has_avx2();
  if (avx512) return sort_pool_paths_in_blocks(sort_blocks_avx512, kAvx512Lanes, c, span, pool, begin, end, stepwise, leaving);
  if (avx2) return sort_pool_paths_in_blocks(sort_blocks_avx2, kAvx2Lanes, c, span, pool, begin, end, stepwise, leaving);
  return sort_pool_paths_one_by_one(c, span, pool, begin, end, stepwise, leaving);
}

}  // namespace flysim::kernels
