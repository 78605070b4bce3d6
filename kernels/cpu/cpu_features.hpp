#pragma once
// What the CPU the program runs on offers beyond the x86-64 baseline it is built for.
#include <cstdint>

namespace flysim::kernels {

// Lanes of 64 bits in an AVX-512 register: the entries (doubles) of the first pass and
// the Philox counters (one 32-bit word per 64-bit lane) taken at once.
inline constexpr uint32_t kAvx512Lanes = 8;
// Lanes of 64 bits in an AVX2 register: the entries of the first pass on CPUs without AVX-512.
inline constexpr uint32_t kAvx2Lanes = 4;

// AVX-512 F, VL and DQ: what the files built for AVX-512 (kernels/cpu/*_avx512.cpp) use.
bool cpu_has_avx512();
// AVX2: what kernels/cpu/*_avx2.cpp use.
bool cpu_has_avx2();

}  // namespace flysim::kernels
