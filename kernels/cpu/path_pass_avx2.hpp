#pragma once
// The AVX2 lanes of the CPU epoch's first pass (path_pass.hpp), for CPUs without AVX-512:
// four entries at a time. path_pass_avx2.cpp is built with AVX2 enabled (CMakeLists.txt)
// and called only where cpu_has_avx2(); as the AVX-512 file, it instantiates
// kernels/lif.hpp's templates with vector types only, which no other file uses.
#include <cstdint>

#include "kernels/cpu/cpu_features.hpp"
#include "kernels/cpu/path_pass.hpp"

namespace flysim::kernels {

// sort_blocks_avx512's contract with blocks of kAvx2Lanes entries.
uint32_t sort_blocks_avx2(const LifConstants& c, EpochSpan span, const PoolArrays& pool, uint32_t begin,
                          uint32_t blocks, uint32_t* stepwise, uint32_t* leaving, uint32_t& leaving_count);

}  // namespace flysim::kernels
