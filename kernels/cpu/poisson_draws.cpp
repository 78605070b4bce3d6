#include "kernels/cpu/poisson_draws.hpp"

#include "kernels/cpu/cpu_features.hpp"

namespace flysim::kernels {

uint32_t poisson_draws(uint32_t threshold, RngKey key, uint32_t neuron, EpochSpan e) {
  static const bool vectorized = cpu_has_avx512();
  return vectorized ? poisson_draws_avx512(threshold, key, neuron, e) : poisson_steps(threshold, key, neuron, e);
}

}  // namespace flysim::kernels
