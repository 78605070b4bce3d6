#include "kernels/cpu/packed_rows.hpp"

namespace flysim {

namespace {
// Nonzero where weight w is not a whole number of synapses within +-kMostSynapses:
// branch-free, so that the check of every connection vectorizes with the packing.
uint32_t stray_bits(int32_t w) {
  constexpr int32_t most = PackedRows::kMostSynapses;
  const uint32_t fraction = static_cast<uint32_t>(w) & (uint32_t{kUnitsPerSynapse} - 1);
  const uint32_t shifted = static_cast<uint32_t>((w >> kWeightFractionBits) + most);
  return fraction | static_cast<uint32_t>(shifted > uint32_t{2 * most});
}
}  // namespace

const uint32_t* PackedRows::words() const {
  std::call_once(built_, [this] {
    // Below 2^kTargetBits, so that the word of the first target past the last fits too.
    if (network_.neuron_count() >= (std::size_t{1} << kTargetBits)) return;
    // Packed and checked in one pass; dropped where a weight does not fit.
    const std::size_t edges = network_.out_targets.size();
    words_.resize(edges);
    const uint32_t* __restrict const targets = network_.out_targets.data();
    const int32_t* __restrict const weights = network_.out_weights.data();
    uint32_t* __restrict const words = words_.data();
    uint32_t stray = 0;
    for (std::size_t e = 0; e < edges; ++e) {
      stray |= stray_bits(weights[e]);
      words[e] = pack(targets[e], weights[e]);
    }
    fit_ = stray == 0;
    if (!fit_) HugeVector<uint32_t>().swap(words_);
  });
  return fit_ ? words_.data() : nullptr;
}

}  // namespace flysim
