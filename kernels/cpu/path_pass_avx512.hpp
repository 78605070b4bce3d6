#pragma once
// The AVX-512 lanes of the CPU epoch's first pass (path_pass.hpp). path_pass_avx512.cpp
// is built with AVX-512 enabled (CMakeLists.txt), and sort_pool_paths calls it only
// where cpu_has_avx512(). Such a file must not emit a copy of an inline function that
// other files share (the linker could keep its AVX-512 copy for the whole program): it
// instantiates kernels/lif.hpp's templates with vector types only, which no other file
// uses.
#include <cstdint>

#include "kernels/cpu/cpu_features.hpp"
#include "kernels/cpu/path_pass.hpp"

namespace flysim::kernels {

// choose_path and the quiet decay for blocks [0, blocks) of kAvx512Lanes entries from
// `begin`: the stepwise entries written to stepwise[0, returned count), those exactly at rest
// afterwards without input (they leave the pool) to leaving[0, leaving_count); both
// ascending, each with room for kAvx512Lanes * blocks.
uint32_t sort_blocks_avx512(const LifConstants& c, EpochSpan span, const PoolArrays& pool, uint32_t begin,
                            uint32_t blocks, uint32_t* stepwise, uint32_t* leaving, uint32_t& leaving_count);

}  // namespace flysim::kernels
