// The CPU epoch's vectorized first pass (kernels/cpu/path_pass.cpp) against choose_path
// taken one entry at a time: the same stepwise list, the same leaving list and the same
// bits of v and g, on pools that mix every case the pass tells apart.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "kernels/cpu/path_pass.hpp"
#include "kernels/cpu/path_pass_avx2.hpp"
#include "kernels/cpu/path_pass_avx512.hpp"
#include "model/lif_params.hpp"
#include "pool_vectors.hpp"

namespace flysim::test {
namespace {

using Pool = PoolVectors;

// Entries drawn from the cases of choose_path: at rest, within the rest snap, input of
// each kind, refractory throughout or ending inside the epoch, near threshold (either
// side of the quiet bound), negative and signed-zero g, far below.
Pool random_pool(const LifConstants& c, kernels::EpochSpan span, std::size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> kind(0, 11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Pool p;
  for (std::size_t e = 0; e < size; ++e) {
    double v = c.v0 + (c.v_threshold - c.v0) * unit(rng), g = 2.0 * unit(rng) - 0.5;
    int32_t last = kNeverSpiked;
    uint8_t poisson = 0;
    uint32_t slots = 0, kicks = 0;
    switch (kind(rng)) {
      case 0: v = c.v0, g = 0.0; break;
      case 1: v = c.v0 + 0.5 * c.rest_snap_mV * (2.0 * unit(rng) - 1.0), g = 0.5 * c.rest_snap_mV * unit(rng); break;
      case 2: slots = 1u << (span.first % c.delay_steps); break;
      case 3: kicks = 1u; break;
      case 4: poisson = 1; break;
      case 5: last = span.first - static_cast<int32_t>(rng() % (2 * c.ref_steps)); break;
      case 6: v = c.v_threshold - c.quiet_margin_mV * (unit(rng) * 4.0), g = 0.0; break;
      case 7: v = c.v0 - 5.0 * unit(rng), g = -0.0; break;
      case 8: v = c.v0, g = -1e-300; break;
      case 9: v = c.v0 - 1.0, g = (c.v_threshold - c.v0 + 1.0) / c.evg_epoch_max * (0.9 + 0.2 * unit(rng)); break;
      case 10: v = c.v0, g = 0.0, last = span.first - static_cast<int32_t>(rng() % (2 * c.ref_steps)); break;
      default: break;
    }
    p.push_back(v, g, last, poisson, slots, kicks);
  }
  return p;
}

using Pass = std::function<uint32_t(const LifConstants&, kernels::EpochSpan, const kernels::PoolArrays&, uint32_t,
                                    uint32_t, uint32_t*, std::vector<uint32_t>&)>;

// `pass` against sort_pool_paths_one_by_one on mixed pools, spans and ranges.
void expect_equals_one_by_one(const Pass& pass) {
  const LifConstants c = derive_constants({});
  int cases = 0;
  for (const kernels::EpochSpan span : {kernels::EpochSpan{0, 18}, kernels::EpochSpan{1800, 18},
                                        kernels::EpochSpan{1805, 7}, kernels::EpochSpan{97, 1}}) {
    for (const auto& [begin, end] : {std::pair<uint32_t, uint32_t>{0, 4000}, {3, 4003}, {5, 12}, {0, 7}}) {
      Pool vector_pool = random_pool(c, span, end + 9, static_cast<uint32_t>(span.first * 31 + begin));
      const Pool initial = vector_pool;
      Pool scalar_pool = vector_pool;
      std::vector<uint32_t> vector_stepwise(end - begin), scalar_stepwise(end - begin);
      std::vector<uint32_t> vector_leaving, scalar_leaving;
      const uint32_t vector_count = pass(c, span, vector_pool.arrays(), begin, end, vector_stepwise.data(), vector_leaving);
      const uint32_t scalar_count = kernels::sort_pool_paths_one_by_one(c, span, scalar_pool.arrays(), begin, end,
                                                                        scalar_stepwise.data(), scalar_leaving);
      ASSERT_EQ(vector_count, scalar_count) << "span " << span.first << "+" << span.steps << " entries " << begin;
      vector_stepwise.resize(vector_count);
      scalar_stepwise.resize(scalar_count);
      EXPECT_EQ(vector_stepwise, scalar_stepwise);
      EXPECT_EQ(vector_leaving, scalar_leaving);
      EXPECT_EQ(bits_of(vector_pool.v), bits_of(scalar_pool.v));
      EXPECT_EQ(bits_of(vector_pool.g), bits_of(scalar_pool.g));
      // Every path occurs: the pool is not trivially one case.
      if (end - begin >= 4000) {
        EXPECT_GT(scalar_count, (end - begin) / 10);
        EXPECT_GT(scalar_leaving.size(), (end - begin) / 20);
        std::size_t decayed = 0;
        for (std::size_t e = begin; e < end; ++e) decayed += scalar_pool.v[e] != initial.v[e];
        EXPECT_GT(decayed, (end - begin) / 10);
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 8);
}

// Blocks of `lanes` entries by `blocks`, the rest one by one.
Pass in_blocks(kernels::PathBlocks blocks, uint32_t lanes) {
  return [=](const LifConstants& c, kernels::EpochSpan span, const kernels::PoolArrays& pool, uint32_t begin,
             uint32_t end, uint32_t* stepwise, std::vector<uint32_t>& leaving) {
    return kernels::sort_pool_paths_in_blocks(blocks, lanes, c, span, pool, begin, end, stepwise, leaving);
  };
}

// What the engine runs: the widest lanes this CPU has.
TEST(PathPass, VectorPassEqualsChoosePathEntryByEntry) { expect_equals_one_by_one(kernels::sort_pool_paths); }

TEST(PathPass, Avx2LanesEqualChoosePathEntryByEntry) {
  if (!kernels::cpu_has_avx2()) GTEST_SKIP() << "this CPU has no AVX2";
  expect_equals_one_by_one(in_blocks(kernels::sort_blocks_avx2, kernels::kAvx2Lanes));
}

TEST(PathPass, Avx512LanesEqualChoosePathEntryByEntry) {
  if (!kernels::cpu_has_avx512()) GTEST_SKIP() << "this CPU has no AVX-512";
  expect_equals_one_by_one(in_blocks(kernels::sort_blocks_avx512, kernels::kAvx512Lanes));
}

}  // namespace
}  // namespace flysim::test
