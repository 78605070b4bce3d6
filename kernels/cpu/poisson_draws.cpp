#include "kernels/cpu/poisson_draws.hpp"

#include "kernels/cpu/cpu_features.hpp"

namespace flysim::kernels {

uint32_t poisson_draws(uint32_t threshold, RngKey key, uint32_t neuron, EpochSpan e) {
  static const bool avx512 = cpu_has_avx512(), avx2 = cpu_has_avx2();
  if (avx512) return poisson_draws_avx512(threshold, key, neuron, e);
  if (avx2) return poisson_draws_avx2(threshold, key, neuron, e);
  return poisson_steps(threshold, key, neuron, e);
}

}  // namespace flysim::kernels
