#pragma once
// The network's rows as the blocked sweep's scatter reads them where they fit one 32-bit
// word a connection: the target in the high bits, the signed synapse count below
// (kernels/README.md, "Packed rows"). Half the bytes of the target and weight arrays, so
// a row comes from memory in half the lines.
#include <cstdint>
#include <mutex>
#include <vector>

#include "kernels/cpu/huge_pages.hpp"
#include "model/lif_constants.hpp"
#include "model/network.hpp"

namespace flysim {

class PackedRows {
 public:
  static constexpr uint32_t kSynapseBits = 14;
  static constexpr uint32_t kTargetBits = 32 - kSynapseBits;

  // Whether `weights` (by edge) of `network` pack: the neuron count fits kTargetBits,
  // every weight is a whole number of synapses that fits kSynapseBits signed.
  static bool fit(const Network& network, const int32_t* weights);

  // Rows of `network` with these weights, checked and packed on the first call of words()
  // (the weights must not change after that).
  PackedRows(const Network& network, const int32_t* weights) : network_(network), weights_(weights) {}
  PackedRows(const PackedRows&) = delete;
  PackedRows& operator=(const PackedRows&) = delete;

  // The packed connections, indexed by edge as the network's arrays, or null where they
  // do not fit; built once, on the first call from any thread.
  const uint32_t* words() const;

  static uint32_t pack(uint32_t target, int32_t weight) {
    return (target << kSynapseBits) | ((static_cast<uint32_t>(weight) >> kWeightFractionBits) & kSynapseMask);
  }
  static uint32_t target(uint32_t word) { return word >> kSynapseBits; }
  // The first word of a row whose target is `target` or above.
  static uint32_t first_word_of(uint32_t target) { return target << kSynapseBits; }
  // The weight in fixed-point units: the synapse count sign-extended, times 2^16.
  static int32_t weight(uint32_t word) {
    return static_cast<int32_t>(word << kTargetBits) >> (kTargetBits - kWeightFractionBits);
  }

 private:
  static bool targets_fit(const Network& network);
  static constexpr uint32_t kSynapseMask = (1u << kSynapseBits) - 1;
  static_assert(kTargetBits >= kWeightFractionBits, "a weight's units come from one arithmetic shift");

  const Network& network_;
  const int32_t* weights_;
  mutable std::once_flag built_;
  mutable HugeVector<uint32_t> words_;  // read at random rows: huge pages spare the TLB
  mutable bool fit_ = false;
};

}  // namespace flysim
