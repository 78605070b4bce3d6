#pragma once
// What the CPU the program runs on offers beyond the x86-64 baseline it is built for.

namespace flysim::kernels {

// AVX-512 F, VL and DQ: what the files built for AVX-512 (kernels/cpu/*_avx512.cpp) use.
bool cpu_has_avx512();

}  // namespace flysim::kernels
