#pragma once
// The AVX-512 lanes of the CPU epoch's first pass (path_pass.hpp). path_pass_avx512.cpp
// is built with AVX-512 enabled (CMakeLists.txt), and sort_pool_paths calls it only
// where cpu_has_avx512(). Such a file must not emit a copy of an inline function that
// other files share (the linker could keep its AVX-512 copy for the whole program): it
// instantiates kernels/lif.hpp's templates with vector types only, which no other file
// uses.
#include <cstdint>

#include "kernels/cpu/path_pass.hpp"

namespace flysim::kernels {

inline constexpr uint32_t kLanes = 8;

// choose_path and the quiet decay for blocks [0, blocks) of kLanes entries from `begin`:
// bit k of stepwise_bits[b] (leaving_bits[b]) set when entry begin + kLanes * b + k is
// stepwise (exactly at rest afterwards without input, so it leaves the pool).
void sort_blocks_avx512(const LifConstants& c, EpochSpan span, const PoolArrays& pool, uint32_t begin,
                        uint32_t blocks, uint8_t* stepwise_bits, uint8_t* leaving_bits);

}  // namespace flysim::kernels
