#pragma once
// A round's spikes as the keys they are sorted by (kernels/cuda/README.md, "One round").
// Plain C++ with FLYSIM_HD members: the device packs and sorts them (round_sort.cuh), the
// host unpacks them, and tests/unit/round_keys_test.cpp holds the layout without a GPU.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "kernels/hd.hpp"

namespace flysim::cuda {

// The step of a spike within its round (several epochs launched together, one wait for
// all of them) takes kRoundStepBits bits: a round holds at most kMaxRoundSteps steps.
inline constexpr int kRoundStepBits = 10;
inline constexpr int32_t kMaxRoundSteps = 1 << kRoundStepBits;

// A spike of a round as one integer: the neuron in the bits the network needs, the step
// within the round above it and the batch slot (the trial) above that, so that integer
// order is (trial, step, neuron) order and a FlyWire-scale round of up to 32 trials uses
// 33 bits (the sort passes over those only).
struct PackedRoundKeys {
  uint32_t largest_neuron;
  int neuron_bits;  // of the largest neuron index, at least 1

  explicit PackedRoundKeys(std::size_t neurons)
      : largest_neuron(neurons == 0 ? 0u : static_cast<uint32_t>(neurons - 1)),
        neuron_bits(std::max(1, static_cast<int>(std::bit_width(largest_neuron)))) {}
  FLYSIM_HD uint64_t pack(uint32_t slot, int32_t step_in_round, uint32_t neuron) const {
    return (uint64_t{slot} << kRoundStepBits | static_cast<uint32_t>(step_in_round)) << neuron_bits | neuron;
  }
  FLYSIM_HD uint32_t slot(uint64_t key) const { return static_cast<uint32_t>(key >> (neuron_bits + kRoundStepBits)); }
  FLYSIM_HD int32_t step_in_round(uint64_t key) const {
    return static_cast<int32_t>((key >> neuron_bits) & ((uint64_t{1} << kRoundStepBits) - 1));
  }
  FLYSIM_HD uint32_t neuron(uint64_t key) const {
    return static_cast<uint32_t>(key & ((uint64_t{1} << neuron_bits) - 1));
  }
  // The bits a round of `batch` trials and `round_steps` steps uses: its largest key's.
  int bits(uint32_t batch, int32_t round_steps) const {
    return static_cast<int>(std::bit_width(pack(batch - 1, round_steps - 1, largest_neuron)));
  }
};

}  // namespace flysim::cuda
