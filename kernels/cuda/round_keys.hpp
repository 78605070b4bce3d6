#pragma once
// A round's spikes as keys (kernels/cuda/README.md, "One round"): as the device writes
// them for the host, and as the host packs them for its sort. Plain C++ (no CUDA header),
// so that the round's sort can be measured and tested without a GPU.
#include <cstddef>
#include <cstdint>

#include "kernels/hd.hpp"

namespace flysim::cuda {

// A spike of a round (several epochs launched together, one wait for all of them) as the
// host sorts it: (slot, step - round's first step, neuron) packed so that plain integer
// order is (trial, step, neuron) order. The step takes kRoundStepBits bits (a round
// holds at most kMaxRoundSteps steps), the neuron 32, the slot the 22 above them.
inline constexpr int kRoundStepBits = 10;
inline constexpr int32_t kMaxRoundSteps = 1 << kRoundStepBits;
inline constexpr uint32_t kMaxBatchSlots = 1u << (64 - 32 - kRoundStepBits);
FLYSIM_HD inline uint64_t round_spike_key(uint32_t slot, int32_t step_in_round, uint32_t neuron) {
  return uint64_t{slot} << (32 + kRoundStepBits) | uint64_t{static_cast<uint32_t>(step_in_round)} << 32 | neuron;
}
inline uint32_t key_slot(uint64_t key) { return static_cast<uint32_t>(key >> (32 + kRoundStepBits)); }
inline int32_t key_step_in_round(uint64_t key) {
  return static_cast<int32_t>((key >> 32) & ((uint64_t{1} << kRoundStepBits) - 1));
}
inline uint32_t key_neuron(uint64_t key) { return static_cast<uint32_t>(key); }

// The same fields as the host sorts them: the neuron in the bits the network needs, the
// step above it and the slot above that, so that the keys of a round of a FlyWire-scale
// batch of up to 32 trials differ in three digits of 11 bits only (kernels/radix_sort.hpp
// passes over those).
// At most 32 + kRoundStepBits + 22 bits (the device key's fields): they fit 64.
struct PackedRoundKeys {
  int neuron_bits;  // of the largest neuron index

  explicit PackedRoundKeys(std::size_t neurons) : neuron_bits(bit_width(neurons - 1)) {}
  uint64_t pack(uint32_t slot, int32_t step_in_round, uint32_t neuron) const {
    return (uint64_t{slot} << kRoundStepBits | static_cast<uint32_t>(step_in_round)) << neuron_bits | neuron;
  }
  uint64_t pack(uint64_t round_key) const {
    return pack(key_slot(round_key), key_step_in_round(round_key), key_neuron(round_key));
  }
  uint32_t slot(uint64_t key) const { return static_cast<uint32_t>(key >> (neuron_bits + kRoundStepBits)); }
  int32_t step_in_round(uint64_t key) const {
    return static_cast<int32_t>((key >> neuron_bits) & ((uint64_t{1} << kRoundStepBits) - 1));
  }
  uint32_t neuron(uint64_t key) const { return static_cast<uint32_t>(key & ((uint64_t{1} << neuron_bits) - 1)); }

 private:
  // Bits of the largest value, at least 1.
  static int bit_width(std::size_t largest) { return largest == 0 ? 1 : 64 - __builtin_clzll(largest); }
};

}  // namespace flysim::cuda
