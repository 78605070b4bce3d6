#pragma once
// The first pass of a CPU epoch (kernels/README.md, "The CPU pool"): every listed entry
// whose epoch cannot spike (EpochPath unchanged or quiet) is settled here, the quiet ones
// decayed in place; the stepwise ones are listed for the second pass. Most of the pool
// takes this pass every epoch, so it runs eight entries at a time in vector registers
// (AVX-512), or four (AVX2), with the lane arithmetic of kernels/lif.hpp (the same
// templates, so the same bits).
#include <cstdint>
#include <vector>

#include "kernels/lif.hpp"

namespace flysim::kernels {

// The pool's arrays, by entry (CpuTrial's structure of arrays). The first pass writes v
// and g only; the second (step_lanes_avx512.hpp) the rest but the Poisson flags.
struct PoolArrays {
  double* v;
  double* g;
  int32_t* last_spike;
  const uint8_t* poisson;
  uint32_t* synaptic_slots;
  uint32_t* kick_steps;
};

// What the pass found in entries [begin, end): the stepwise ones, in ascending order, in
// stepwise[0, returned count) (room for end - begin), and, appended to `leaving`, those
// that are exactly at rest afterwards without input (ascending).
uint32_t sort_pool_paths(const LifConstants& c, EpochSpan span, const PoolArrays& pool, uint32_t begin, uint32_t end,
                         uint32_t* stepwise, std::vector<uint32_t>& leaving);

// The same, one entry at a time through choose_path: what sort_pool_paths must equal
// bit for bit (tests hold them to it).
uint32_t sort_pool_paths_one_by_one(const LifConstants& c, EpochSpan span, const PoolArrays& pool, uint32_t begin,
                                    uint32_t end, uint32_t* stepwise, std::vector<uint32_t>& leaving);

// A vector pass over whole blocks (path_pass_avx512.hpp, path_pass_avx2.hpp).
using PathBlocks = uint32_t (*)(const LifConstants&, EpochSpan, const PoolArrays&, uint32_t begin, uint32_t blocks,
                                uint32_t* stepwise, uint32_t* leaving, uint32_t& leaving_count);

// sort_pool_paths with `blocks_of` over the whole blocks of `lanes` entries and the rest one
// by one; only where the CPU has blocks_of's instructions (sort_pool_paths picks the widest).
uint32_t sort_pool_paths_in_blocks(PathBlocks blocks_of, uint32_t lanes, const LifConstants& c, EpochSpan span,
                                   const PoolArrays& pool, uint32_t begin, uint32_t end, uint32_t* stepwise,
                                   std::vector<uint32_t>& leaving);

}  // namespace flysim::kernels
