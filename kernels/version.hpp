#pragma once
// The two strings that name the determinism contract (docs/ARCHITECTURE.md). Every engine
// reports the same ones; a checkpoint carries them.
#include <cstdint>
#include <string>

#include "model/lif_constants.hpp"

namespace flysim {

// The version of the arithmetic in kernels/lif.hpp. Bump it whenever a change there
// (or in the epoch scheme, the RNG use or the fixed-point format) can change a bit.
inline constexpr const char* kKernelVersion =
    "flysim-kernel 4: epoch = delay cell; paths unchanged/quiet/stepwise (quiet margin 1e-6 mV, "
    "quiet neurons within 1e-12 mV of rest set to rest; a stepwise epoch skips refractory stretches and takes each "
    "stretch without input that starts provably below threshold as one multi-step decay); "
    "philox4x32-10 key (seed lo, seed hi) counter (neuron, step, trial, 0), event when word 0 < threshold; "
    "weights 16-bit fixed point summed in int64; float64 state, no FMA contraction";

// Model semantics, parameters (a hash of the derived constants' exact bits), network
// hash and state layout.
std::string compatibility_string(const LifConstants& c, uint64_t network_hash);

}  // namespace flysim
