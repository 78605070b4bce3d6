#pragma once
// The CPU pool's Poisson draws: kernels::poisson_steps (Random123's Philox4x32-10, one
// draw per step), eight steps at a time in AVX-512 where the CPU has it, four in AVX2: a
// dense stimulus draws for every stimulated neuron at every step, a large share of a run
// when drawn one at a time.
#include <cstdint>

#include "kernels/lif.hpp"

namespace flysim::kernels {

// Bit t set when poisson_event(threshold, key, neuron, e.first + t): poisson_steps' bits.
uint32_t poisson_draws(uint32_t threshold, RngKey key, uint32_t neuron, EpochSpan e);

// The AVX-512 lanes (poisson_draws_avx512.cpp, the file built for AVX-512): call only
// where cpu_has_avx512().
uint32_t poisson_draws_avx512(uint32_t threshold, RngKey key, uint32_t neuron, EpochSpan e);
// The AVX2 lanes (poisson_draws_avx2.cpp, built for AVX2): call only where cpu_has_avx2().
uint32_t poisson_draws_avx2(uint32_t threshold, RngKey key, uint32_t neuron, EpochSpan e);

}  // namespace flysim::kernels
