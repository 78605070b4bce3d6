#pragma once
// The network's rows as the blocked sweep's scatter reads them where they fit one 32-bit
// word a connection: the target in the high bits, the signed synapse count below
// (kernels/README.md, "Packed rows"). Half the bytes of the target and weight arrays, so
// a row comes from memory in half the lines.
#include <cstdint>
#include <mutex>

#include "kernels/cpu/huge_pages.hpp"
#include "model/lif_constants.hpp"
#include "model/network.hpp"

namespace flysim {

class PackedRows {
 public:
  static constexpr uint32_t kSynapseBits = 14;
  static constexpr uint32_t kTargetBits = 32 - kSynapseBits;
  static constexpr int32_t kMostSynapses = (1 << (kSynapseBits - 1)) - 1;  // either sign

  // The rows of `network` with its own weights, checked and packed on the first call of
  // words(). They fit where the neuron count is below 2^kTargetBits and every weight is a
  // whole number of synapses within +-kMostSynapses.
  explicit PackedRows(const Network& network) : network_(network) {}
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
  static constexpr uint32_t kSynapseMask = (1u << kSynapseBits) - 1;
  static_assert(kTargetBits >= kWeightFractionBits, "a weight's units come from a left and an arithmetic right shift");

  const Network& network_;
  mutable std::once_flag built_;
  // Read at random rows: on huge pages where the kernel gives them, fewer TLB misses.
  mutable HugeVector<uint32_t> words_;
  mutable bool fit_ = false;
};

}  // namespace flysim
