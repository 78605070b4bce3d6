#pragma once
// The AVX-512 lanes of the CPU epoch's first pass (path_pass.hpp). path_pass_avx512.cpp
// is the one file compiled with AVX-512 enabled (CMakeLists.txt); sort_pool_paths calls
// it only where avx512_pass_available() says the CPU runs it. It includes nothing that
// would put an AVX-512 copy of a shared inline function into the program: only
// kernels/lif.hpp's templates instantiated with vector types, which no other file uses.
#include <cstdint>

#include "kernels/cpu/path_pass.hpp"

namespace flysim::kernels {

inline constexpr uint32_t kLanes = 8;

// Whether this CPU has AVX-512 F, VL and DQ (path_pass.cpp, compiled without them).
bool avx512_pass_available();

// choose_path and the quiet decay for blocks [0, blocks) of kLanes entries from `begin`:
// bit k of stepwise_bits[b] (leaving_bits[b]) set when entry begin + kLanes * b + k is
// stepwise (exactly at rest afterwards without input, so it leaves the pool).
void sort_blocks_avx512(const LifConstants& c, EpochSpan span, const PoolArrays& pool, uint32_t begin,
                        uint32_t blocks, uint8_t* stepwise_bits, uint8_t* leaving_bits);

}  // namespace flysim::kernels
